package estimate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// The reading of the reference model's partition-key attributes, the one
// the peak gate charges and the planner places.
func TestAttributeSpreadReference(t *testing.T) {
	m, err := catalog.Load("../../model.yaml")
	require.NoError(t, err)
	e := estimate.New(m, capacity.Default())
	gsi1 := m.Index("GSI1")

	tenant := e.AttributeSpread(gsi1, "tenantId", nil)
	assert.Equal(t, estimate.SpreadSkew, tenant.Kind)
	assert.Equal(t, int64(40), tenant.N)
	require.Len(t, tenant.Values, 40)
	assert.InDelta(t, 0.6, tenant.Values[0].Share, 1e-9)
	sum := 0.0
	for i, v := range tenant.Values {
		sum += v.Share
		assert.Equal(t, int64(i), v.Rank)
		if i > 0 {
			assert.LessOrEqual(t, v.Share, tenant.Values[i-1].Share, "heaviest first")
		}
	}
	assert.InDelta(t, 1, sum, 1e-9)
	assert.Equal(t, tenant.Hottest, tenant.Values[0].Share)

	focus := e.AttributeSpread(gsi1, "tenantId", map[string]string{"tenantId": "largest"})
	assert.Equal(t, estimate.SpreadFocus, focus.Kind)
	assert.Equal(t, []estimate.SpreadValue{{Rank: 0, Share: 1}}, focus.Values)

	shard := e.AttributeSpread(gsi1, "shard", nil)
	assert.Equal(t, estimate.SpreadShards, shard.Kind)
	require.Len(t, shard.Values, 16)
	assert.Equal(t, "15", shard.Values[15].Value)
	assert.InDelta(t, 1.0/16, shard.Hottest, 1e-12)
	// Without the index, the shard attribute is its own hash modulo.
	assert.Equal(t, estimate.SpreadHashMod, e.AttributeSpread(nil, "shard", nil).Kind)

	bucket := e.AttributeSpread(m.Index("GSI2"), "bucket", nil)
	assert.Equal(t, estimate.SpreadWeighted, bucket.Kind)
	assert.Equal(t, estimate.SpreadValue{Value: "D001_030", Rank: 0, Share: 0.4}, bucket.Values[0])

	date := e.AttributeSpread(gsi1, "nextActionDate", nil)
	assert.Equal(t, estimate.SpreadTime, date.Kind)
	assert.Equal(t, 1.0, date.Hottest)

	debtor := e.AttributeSpread(nil, "debtorKey", nil)
	assert.True(t, debtor.Even(), "6M values: one per item")
	assert.Empty(t, debtor.Values)
	assert.False(t, tenant.Even())

	// A step's key: the settlement's contract update on GSI1.
	op := m.Operation("RescheduleNextAction")
	after, err := e.WriteSpread(op, op.Steps[0], op.Budgets[0], gsi1, map[string]string{"tenantId": "largest"})
	require.NoError(t, err)
	require.Len(t, after.Attrs, 3)
	assert.InDelta(t, 1.0/16, after.Share, 1e-12)
	assert.Equal(t, "`tenantId = its largest value (focus), nextActionDate = one value (a time: the peak falls on one), shard = one of 16 shards`", after.Text)
	ts := e.TableSpread(op.Steps[0], nil)
	assert.Equal(t, "T#{tenantId}#D#{debtorKey}", ts.Template.Text)
	assert.Len(t, ts.Attrs, 2)
}
