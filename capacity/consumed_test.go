package capacity

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsumedShape is the INDEXES example of capacity-rules.md 6.3.
func TestConsumedShape(t *testing.T) {
	c := Consumed{TableName: "T", Table: Capacity{Write: 2}, GSIs: map[string]Capacity{"G1": {Write: 1}}}
	want := `{"TableName":"T","CapacityUnits":3.0,"Table":{"CapacityUnits":2.0},"GlobalSecondaryIndexes":{"G1":{"CapacityUnits":1.0}}}`
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Equal(t, want, string(b))
	assert.Equal(t, `{"TableName":"T","CapacityUnits":3.0}`, string(c.AppendJSON(nil, LevelTotal)), "TOTAL: the aggregate only")
}

// TestConsumedTxnShape follows 6.3: transactional responses repeat units
// in WriteCapacityUnits or ReadCapacityUnits at every level.
func TestConsumedTxnShape(t *testing.T) {
	c := Consumed{TableName: "T", Txn: true, Table: Capacity{Write: 4}, GSIs: map[string]Capacity{"G": {Write: 4}},
		LSIs: map[string]Capacity{"L": {Write: 0.5}}}
	assert.Equal(t, `{"TableName":"T","CapacityUnits":8.5,"WriteCapacityUnits":8.5,`+
		`"Table":{"CapacityUnits":4.0,"WriteCapacityUnits":4.0},`+
		`"LocalSecondaryIndexes":{"L":{"CapacityUnits":0.5,"WriteCapacityUnits":0.5}},`+
		`"GlobalSecondaryIndexes":{"G":{"CapacityUnits":4.0,"WriteCapacityUnits":4.0}}}`,
		string(c.AppendJSON(nil, LevelIndexes)))
	r := Consumed{TableName: "T", Txn: true, Table: Capacity{Read: 2}}
	assert.Equal(t, `{"TableName":"T","CapacityUnits":2.0,"ReadCapacityUnits":2.0,"Table":{"CapacityUnits":2.0,"ReadCapacityUnits":2.0}}`,
		string(r.AppendJSON(nil, LevelIndexes)))
	// JSON-escaped names stay valid JSON.
	var v map[string]any
	require.NoError(t, json.Unmarshal(Consumed{TableName: `a"b`, GSIs: map[string]Capacity{`x\y`: {Read: 1}}}.AppendJSON(nil, LevelIndexes), &v))
}

// TestConsumedFromWrite: a single-item write reports CapacityUnits only.
func TestConsumedFromWrite(t *testing.T) {
	c := Default().Write(gsiTable(), WriteOp{Kind: Put, After: workedItem(t, "A")})
	assert.Equal(t, `{"TableName":"T","CapacityUnits":3.0,"Table":{"CapacityUnits":2.0},"GlobalSecondaryIndexes":{"G1":{"CapacityUnits":1.0}}}`,
		string(c.AppendJSON(nil, LevelIndexes)))
}

// TestPerTable merges the actions of a transaction by table (6.2) and
// keeps the merged entries independent of their sources.
func TestPerTable(t *testing.T) {
	a := Consumed{TableName: "A", Txn: true, Table: Capacity{Write: 2}, GSIs: map[string]Capacity{"G": {Write: 1}}}
	b := Consumed{TableName: "B", Txn: true, Table: Capacity{Write: 4}}
	var p PerTable
	p = p.Add(a).Add(b).Add(a)
	require.Len(t, p, 2)
	assert.Equal(t, "A", p[0].TableName)
	assert.Equal(t, Capacity{Write: 4}, p[0].Table)
	assert.Equal(t, Capacity{Write: 2}, p[0].GSIs["G"])
	assert.Equal(t, Capacity{Write: 1}, a.GSIs["G"], "the source is not modified")
	assert.Equal(t, Capacity{Write: 10}, p.Total())
	assert.Equal(t, `[{"TableName":"A","CapacityUnits":6.0,"WriteCapacityUnits":6.0},{"TableName":"B","CapacityUnits":4.0,"WriteCapacityUnits":4.0}]`,
		string(p.AppendJSON(nil, LevelTotal)))
}
