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
