package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func reference(t *testing.T) *Model {
	t.Helper()
	m, err := Load("../model.yaml")
	require.NoError(t, err)
	return m
}

// TestRequestMaterial renders the requests of ApplySettlement from its
// parameter samples, as the operation runner does.
func TestRequestMaterial(t *testing.T) {
	m := reference(t)
	op := m.Operation("ApplySettlement")
	require.NotNil(t, op)
	params := map[string]attr.Value{}
	for _, p := range op.Params {
		require.NotNil(t, p.Sample, p.Name)
		params[p.Name] = *p.Sample
	}
	get := op.Steps[0]
	require.Equal(t, Get, get.Kind)
	assert.True(t, get.Request.ConsistentRead)
	assert.Equal(t, []string{"debtorKey", "contractId", "seq"}, get.Bind)
	key := map[string]string{}
	for _, a := range get.Request.Key {
		v, err := a.Value.Resolve(params)
		require.NoError(t, err)
		key[a.Attribute] = v.Str
	}
	assert.Equal(t, map[string]string{"PK": "T#t042#CHG#E2E7Q9X4K2M8P0R5T3V1W6Y8Z", "SK": "CHG"}, key)

	// The read binds the charge's attributes for the transaction.
	charge, ok := m.Entity("CHARGE").Sample("pix")
	require.True(t, ok)
	for _, b := range get.Bind {
		v, ok := charge.Get(b)
		require.True(t, ok)
		params[b] = v
	}
	tx := op.Steps[1]
	require.Equal(t, Transaction, tx.Kind)
	require.Len(t, tx.Items, 5) // settlement, instalment, and the contract update of each variant
	stl := tx.Items[0]
	assert.Equal(t, Put, stl.Kind)
	assert.Equal(t, "attribute_not_exists(PK)", stl.Request.Condition)
	assert.Equal(t, "succeed", stl.Request.OnConditionFailed.Outcome)
	for _, a := range stl.Request.Item {
		if a.Attribute == "appliedTo" {
			v, err := a.Value.Resolve(params)
			require.NoError(t, err)
			assert.Equal(t, attr.Str("C-2026-004512#007"), v)
		}
	}
	inst := tx.Items[1]
	assert.Equal(t, "SET paidCents = paidCents + :amt, #status = :newStatus, version = version + :one", inst.Request.Update)
	assert.Equal(t, map[string]string{"#status": "status"}, inst.Request.Names)
	vals := map[string]attr.Value{}
	for _, nv := range inst.Request.Values {
		v, err := nv.Value.Resolve(params)
		require.NoError(t, err)
		vals[nv.Name] = v
	}
	assert.Equal(t, map[string]attr.Value{":amt": attr.Num("48790"), ":newStatus": attr.Str("PAID"), ":one": attr.Num("1"), ":paid": attr.Str("PAID")}, vals)
	for _, a := range inst.Request.Key {
		v, err := a.Value.Resolve(params)
		require.NoError(t, err)
		if a.Attribute == "SK" {
			assert.Equal(t, attr.Str("CT#C-2026-004512#IN#007"), v)
		}
	}

	// Variants select the contract update.
	cures, partial := tx.Items[3], tx.Items[2]
	assert.True(t, cures.In("cures"))
	assert.False(t, cures.In("partial"))
	assert.True(t, partial.In("duplicate"))
	assert.True(t, stl.In("cures"), "steps without variants run in all")

	var dup *Budget
	for _, b := range op.Budgets {
		if b.Name == "duplicate" {
			dup = b
		}
	}
	require.NotNil(t, dup)
	assert.Equal(t, "settlement", dup.FailedStep)
	before, after, _ := dup.SamplesFor(stl)
	assert.Equal(t, "pix", before, "a duplicate webhook finds the settlement it repeats")
	assert.Equal(t, "pix", after)
}

func TestSamplesForOverride(t *testing.T) {
	m := reference(t)
	op := m.Operation("ClaimContact")
	claim := op.Step("claim")
	require.NotNil(t, claim)
	for _, b := range op.Budgets {
		before, after, _ := b.SamplesFor(claim)
		switch b.Name {
		case "first-of-day":
			assert.Equal(t, Absent, before)
			assert.Equal(t, "one", after)
		case "allowed":
			assert.Equal(t, "two", before)
			assert.Equal(t, "", after, "computed, not named")
		}
		// The item left is computed from the update, whatever is named.
		_, left, err := op.Images(claim, b)
		require.NoError(t, err)
		attempts, _ := left.Get("attempts")
		want := map[string]string{"first-of-day": "1", "allowed": "3", "refused": "4"}[b.Name]
		assert.Equal(t, want, attempts.Str, b.Name)
	}
	it, ok := m.Entity("LIMIT").Sample(Absent)
	assert.True(t, ok)
	assert.Nil(t, it)
	_, ok = m.Entity("LIMIT").Sample("nope")
	assert.False(t, ok)
}

func TestIndexEntryAndKeyOf(t *testing.T) {
	m := reference(t)
	contract := m.Entity("CONTRACT")
	full, ok := contract.Sample("full")
	require.True(t, ok)
	entry := m.Index("GSI2").Entry(full)
	var names []string
	for _, f := range entry {
		names = append(names, f.Name)
	}
	assert.ElementsMatch(t, []string{"PK", "SK", "tenantId", "bucket", "outstandingCents", "contractId", "debtorKey", "oldestOverdueDueDate", "productCode", "lastContactAt"}, names)
	cured, _ := contract.Sample("cured")
	assert.Nil(t, m.Index("GSI1").Entry(cured), "a cured contract left the agenda")
	assert.Nil(t, m.Index("GSI2").Entry(cured))

	key, err := contract.KeyOf(map[string]attr.Value{"tenantId": attr.Str("t042"), "debtorKey": attr.Str("9f2c1a7e4b0d3e61"), "contractId": attr.Str("C-1")})
	require.NoError(t, err)
	assert.Equal(t, attr.Item{{Name: "PK", Value: attr.Str("T#t042#D#9f2c1a7e4b0d3e61")}, {Name: "SK", Value: attr.Str("CT#C-1")}}, key)
	assert.Equal(t, Required, contract.Has("PK"))
	assert.Equal(t, Optional, contract.Has("bucket"))
	assert.Equal(t, Presence(""), contract.Has("seq"))
	assert.Equal(t, KeyOnly, m.Entity("INSTALLMENT").Has("contractId"))

	gsi1 := m.Index("GSI1")
	pk, err := gsi1.Synthetic.Partition.Template.RenderItem(full)
	require.NoError(t, err)
	assert.Equal(t, "T#t042#ACT#2026-09-24#10", pk)
}

func TestMap(t *testing.T) {
	m := reference(t)
	mp := m.Map()
	byID := map[string]PatternLine{}
	for _, p := range mp.Patterns {
		byID[p.ID] = p
		assert.False(t, p.Loose, p.ID)
	}
	assert.Equal(t, "GSI1", byID["AP03"].Structure)
	assert.Contains(t, byID["AP03"].Shards, "16 shards")
	assert.Equal(t, "descending", byID["AP05"].Order)
	assert.Equal(t, "elsewhere", byID["AP11"].Kind)
	assert.Equal(t, "S3 export + Athena", byID["AP12"].GoesTo)
	assert.Equal(t, `PK = "T#{tenantId}#D#{debtorKey}" AND begins_with(SK, "CT#{contractId}#IN#")`, byID["AP02"].Key)
	for _, s := range mp.Structures {
		assert.False(t, s.Loose, s.Name)
	}
}
