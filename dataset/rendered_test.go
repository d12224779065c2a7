package dataset

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderedFromComputedValues: a template whose placeholders are
// computed when the template first reads them renders their values after
// its literal text (reading one wrote over the text rendered so far:
// "SELLER#{sellerId}" came out as "sel-pw3sel-pw3zq1ka"), and a drawn
// string keeps to its pattern when its samples give no variant that does,
// and a set is drawn from its element domain, not the sample's set on
// every item.
func TestRenderedFromComputedValues(t *testing.T) {
	p := population(t, "testdata/rendered.yaml", 1, 3)
	items, err := p.Items()
	require.NoError(t, err)
	require.Len(t, items, 300)
	sets := map[string]bool{}
	for _, gi := range items {
		it := gi.Item
		labels, _ := it.Get("labels")
		sets[fmt.Sprint(labels.Set)] = true
		assert.Equal(t, "SELLER#"+str(it, "sellerId"), str(it, "GSI1SK"))
		price, _ := it.Get("priceCents")
		assert.Equal(t, fmt.Sprintf("PRICE#%09s", price.Str), str(it, "GSI1PK"))
		for _, e := range p.Model.Entity(gi.Entity).CheckItem(it) {
			t.Errorf("%v", e)
		}
	}
	assert.Greater(t, len(sets), 3, "distinct label sets")
}

// TestTooLargeRefused: a scale past what a run can hold is refused when
// the population is built, before its blocks are listed (at --scale 1e9 a
// model of 20,000 items listed gigabytes of blocks, and at 1e300 its
// totals overflowed to a population of no items, exit 0).
func TestTooLargeRefused(t *testing.T) {
	m := loadModel(t, "testdata/rendered.yaml")
	for _, scale := range []float64{1e8, 1e12, 1e300} {
		_, err := New(m, Options{Scale: scale, Seed: 1})
		require.Error(t, err, "scale %g", scale)
		assert.Contains(t, err.Error(), "more than the 1e+10")
	}
	_, err := New(m, Options{Scale: 1e7, Seed: 1})
	require.NoError(t, err, "3e9 items are allowed")
}
