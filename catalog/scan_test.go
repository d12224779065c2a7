package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scan step, a declared table size, the GB unit and variant shares
// resolve into the model the estimator reads.
func TestScanSizeAndShares(t *testing.T) {
	m, err := Load("../examples/scan.yaml")
	require.NoError(t, err)
	tb := m.Table("collections")
	require.NotNil(t, tb.SizeGB)
	assert.Equal(t, 95.0, *tb.SizeGB)
	assert.Equal(t, "binary", m.Pricing.GB)
	op := m.Operation("ScreenByScan")
	require.Len(t, op.Steps, 1)
	s := op.Steps[0]
	assert.Equal(t, Scan, s.Kind)
	assert.Equal(t, tb, s.Request.Table)
	assert.Empty(t, s.Request.Matches, "no matches: the whole table")
	assert.Equal(t, "tenantId = :t AND #bucket = :b", s.Request.Filter)
	assert.Equal(t, []string{"post-read-filter"}, codes(m.Warnings))

	ref, err := Load("../model.yaml")
	require.NoError(t, err)
	var sum float64
	for _, b := range ref.Operation("ApplySettlement").Budgets {
		require.NotNil(t, b.Share, b.Name)
		sum += *b.Share
	}
	assert.InDelta(t, 1, sum, 1e-9)
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}
