package dataset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
)

// Measure splits each entity's stored bytes: the part in global secondary
// indexes (which point-in-time recovery and exports do not bill) is zero
// for an entity no GSI holds, and otherwise at most what the item's
// entries and their overheads can weigh beyond the item itself.
func TestMeasureGSIShare(t *testing.T) {
	for _, path := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		m := loadModel(t, path)
		got, err := Measure(m, capacity.Default())
		require.NoError(t, err)
		inGSI := 0
		for _, en := range m.Entities {
			ms, ok := got[en.Name]
			if !ok {
				continue
			}
			global := false
			for _, x := range m.Indexes {
				for _, e := range x.Entries {
					global = global || e == en && !x.Local
				}
			}
			if !global {
				assert.Zero(t, ms.GSIBytes, "%s %s is in no GSI", path, en.Name)
				continue
			}
			assert.LessOrEqual(t, ms.GSIBytes, ms.StoredBytes-ms.ItemBytes-capacity.ItemOverhead+1e-9, "%s %s", path, en.Name)
			if ms.GSIBytes > 0 {
				inGSI++
			}
		}
		assert.Positive(t, inGSI, "%s: some entity has GSI entries", path)
	}
}
