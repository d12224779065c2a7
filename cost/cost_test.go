package cost

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// The month split by table and index adds up to the bill's requests, on
// both example models: the split weighs the variants as the bill does.
func TestStructuresAddUpToTheBill(t *testing.T) {
	for _, path := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
		require.NoError(t, err)
		bill, err := Month(m, Options{})
		require.NoError(t, err)
		assert.Equal(t, DefaultUtilisation, bill.Provisioned.Utilisation, path)
		ss := Structures(m, bill, Options{})
		var usd, wru, rru, storage float64
		for _, x := range ss {
			usd += x.RequestsUSD
			wru += x.WRU
			rru += x.RRU
			storage += x.StorageUSD
		}
		assert.InDelta(t, bill.RequestsUSD, usd, 1e-6*bill.RequestsUSD, path)
		assert.InDelta(t, bill.WRU, wru, 1e-6*bill.WRU, path)
		assert.InDelta(t, bill.RRU, rru, 1e-6*bill.RRU, path)
		assert.InDelta(t, bill.StorageUSD+bill.PITRUSD+bill.ExportUSD, storage, 1e-9+1e-6*storage, path)
		assert.Len(t, ss, len(m.Tables)+len(m.Indexes), path)
	}
}
