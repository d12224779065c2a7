package budget

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A variant that runs with its own parameter value is estimated and
// measured with it: orders' AddNote writes the same note item in both
// variants, and only the long variant's own text makes it a 2 KB write.
// The range query of CustomerOrdersBetween runs with both bounds.
func TestVariantParamsMeasured(t *testing.T) {
	m := load(t, "../examples/orders/model.yaml")
	rep, err := Run(context.Background(), m, "model.yaml", Options{Only: []string{"AddNote", "CustomerOrdersBetween"}})
	require.NoError(t, err)
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.Operation+"/"+r.Variant] = r
	}
	require.Len(t, got, 3)
	assert.Equal(t, 1.0, got["AddNote/new"].Measured.WRU)
	assert.Equal(t, 1.0, got["AddNote/new"].Static.WRU)
	assert.Equal(t, 2.0, got["AddNote/long"].Measured.WRU)
	assert.Equal(t, 2.0, got["AddNote/long"].Static.WRU)
	assert.Equal(t, 0.5, got["CustomerOrdersBetween/page"].Measured.RRU)
	for k, r := range got {
		assert.Equal(t, Pass, r.Verdict, k)
	}
}
