package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTable() *Table {
	return &Table{Name: "T", PK: "pk", SK: "sk",
		GSIs: []Index{{Name: "G", PK: []string{"g"}}},
		LSIs: []Index{{Name: "L", SK: []string{"d"}, Projection: ProjectKeysOnly}},
	}
}

func mustRead(t *testing.T, op ReadOp) Consumed {
	t.Helper()
	c, err := Default().Read(readTable(), op)
	require.NoError(t, err)
	return c
}

// TestUnits follows 2.1 and 2.2.
func TestUnits(t *testing.T) {
	for bytes, want := range map[int]float64{0: 1, 1: 1, 1024: 1, 1025: 2, 2048: 2, 409600: 400} {
		assert.Equal(t, want, WriteUnits(bytes), bytes)
	}
	assert.Equal(t, 1.0, ReadUnits(4096, Strong))
	assert.Equal(t, 2.0, ReadUnits(4097, Strong))
	assert.Equal(t, 1.0, ReadUnits(4097, Eventual))
	assert.Equal(t, 0.5, ReadUnits(1, Eventual))
	assert.Equal(t, 4.0, ReadUnits(4097, Transactional))
	assert.Equal(t, "eventual strong transactional", Eventual.String()+" "+Strong.String()+" "+Transactional.String())
}

// TestGetItem follows 4.1 and 4.7: a missing item still costs 1 or 0.5;
// a transactional read costs double.
func TestGetItem(t *testing.T) {
	assert.Equal(t, 1.0, mustRead(t, ReadOp{Kind: GetItem, Consistency: Strong}).Units())
	assert.Equal(t, 0.5, mustRead(t, ReadOp{Kind: GetItem}).Units())
	assert.Equal(t, 2.0, mustRead(t, ReadOp{Kind: GetItem, Consistency: Strong, Bytes: 8192}).Units())
	c := mustRead(t, ReadOp{Kind: GetItem, Consistency: Transactional, Bytes: 5000})
	assert.Equal(t, Capacity{Read: 4}, c.Table)
	assert.True(t, c.Txn)
}

// TestWorkedBatchGet is "BatchGetItem of 1.5 KB + 6.5 KB" of
// capacity-rules.md 10 and 4.2: rounded per item, 1 + 2.
func TestWorkedBatchGet(t *testing.T) {
	var c Consumed
	c.Add(mustRead(t, ReadOp{Kind: GetItem, Consistency: Strong, Bytes: 1536}))
	c.Add(mustRead(t, ReadOp{Kind: GetItem, Consistency: Strong, Bytes: 6656}))
	assert.Equal(t, 3.0, c.Units())
}

// TestWorkedQuery is "Query matching 10 x 1,500 B, eventually consistent,
// filter keeps 2" of capacity-rules.md 10: the filter does not reduce the
// charge, ceil(15,000 / 4,096) = 4, so 2.0.
func TestWorkedQuery(t *testing.T) {
	c, why, err := Default().ExplainRead(readTable(), ReadOp{Kind: Page, Bytes: 10 * 1500, Count: 10, Label: "INSTALLMENT"})
	require.NoError(t, err)
	assert.Equal(t, 2.0, c.Units())
	assert.Equal(t, "table: eventual page of 10 INSTALLMENTs, summed once: 15,000 B, 2,712 B over 12 KB: 2 RRU", why[0].String())
}

// TestQueryExamples are AWS's examples of 4.3: 40.8 KB counts as 44 KB,
// 1,500 x 64 B as 96 KB.
func TestQueryExamples(t *testing.T) {
	assert.Equal(t, 11.0, mustRead(t, ReadOp{Kind: Page, Consistency: Strong, Bytes: 41779}).Units())
	assert.Equal(t, 24.0, mustRead(t, ReadOp{Kind: Page, Consistency: Strong, Bytes: 1500 * 64}).Units())
}

// TestGSIQuery follows 4.5: the index's entries, eventual only, charged to
// the index. 8 x 2,000 B = 16,000 B rounds to 16 KB: 2 RCU.
func TestGSIQuery(t *testing.T) {
	c := mustRead(t, ReadOp{Kind: Page, Index: "G", Bytes: 8 * 2000, Count: 8})
	assert.Equal(t, map[string]Capacity{"G": {Read: 2}}, c.GSIs)
	assert.Equal(t, Capacity{}, c.Table)
	assert.Equal(t, `{"TableName":"T","CapacityUnits":2.0,"GlobalSecondaryIndexes":{"G":{"CapacityUnits":2.0}}}`,
		string(c.AppendJSON(nil, LevelIndexes)))

	_, err := Default().Read(readTable(), ReadOp{Kind: Page, Index: "G", Consistency: Strong})
	assert.EqualError(t, err, "index G is global: its reads are eventually consistent only")
	_, err = Default().Read(readTable(), ReadOp{Kind: Page, Index: "nope"})
	assert.EqualError(t, err, "table T has no index nope")
	_, err = Default().Read(readTable(), ReadOp{Kind: Page, Consistency: Transactional})
	assert.Error(t, err)
	_, err = Default().Read(readTable(), ReadOp{Kind: Page, Fetched: []int{1}})
	assert.Error(t, err, "fetches need an LSI")
	_, err = Default().Read(readTable(), ReadOp{})
	assert.Error(t, err)
}

// TestLSIQuery follows 4.6 and AWS's example: 4 x 200 B entries (4 KB) +
// 4 x 300 B fetched items (16 KB) = 5 RCU strongly consistent.
func TestLSIQuery(t *testing.T) {
	c, why, err := Default().ExplainRead(readTable(), ReadOp{Kind: Page, Index: "L", Consistency: Strong,
		Bytes: 800, Count: 4, Fetched: []int{300, 300, 300, 300}})
	require.NoError(t, err)
	assert.Equal(t, 5.0, c.Units())
	assert.Equal(t, Capacity{Read: 4}, c.Table, "fetches are charged to the table")
	assert.Equal(t, map[string]Capacity{"L": {Read: 1}}, c.LSIs)
	require.Len(t, why, 2)
	assert.Contains(t, why[1].Text, "each rounded to 4 KB")
}

// TestPageLimit follows 4.3: a page reads up to 1 MB, the item reaching it
// included, or Limit items.
func TestPageLimit(t *testing.T) {
	kb := 1024
	assert.Equal(t, 3, PageLen([]int{100 * kb, 100 * kb, 100 * kb}, 0), "all fit")
	assert.Equal(t, 2, PageLen([]int{512 * kb, 512 * kb, 1}, 0), "exactly 1 MB ends the page")
	assert.Equal(t, 3, PageLen([]int{512 * kb, 512*kb - 1, 2, 1}, 0), "the item crossing 1 MB is read")
	assert.Equal(t, 1, PageLen([]int{400 * kb * 3, 1}, 0))
	assert.Equal(t, 2, PageLen([]int{1, 1, 1}, 2), "Limit")
	assert.Equal(t, 0, PageLen(nil, 0))

	// 1,500 items of 1 KB: pages of 1,024 and 476.
	p := Pager{}
	var pages []int
	n := 0
	for range 1500 {
		n++
		if p.Add(kb) {
			pages = append(pages, n)
			n = 0
		}
	}
	assert.Equal(t, []int{1024}, pages)
	assert.Equal(t, 476, n)
}
