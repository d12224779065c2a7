package estimate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
)

// Point-in-time recovery and the export are billed on the table's data
// and its LSI's entries, each with its 100 B overhead; storage on every
// byte, the GSI's entries too. A declared size is the whole table's: the
// backups take the share of it the populations put outside the GSIs.
func TestBackupsLeaveGSIsOut(t *testing.T) {
	e, b := bill(t, "testdata/backups.yaml")
	// The sample by hand: PK "T#t1" (2 + 4), SK "T" (2 + 1), g (1 + 2),
	// l (1 + 2), pad (3 + 96): 114 B (id lives in the key only). The GSI
	// (ALL) entry is the whole item, 114 B; the LSI (KEYS_ONLY) entry PK,
	// SK and l: 12 B.
	const item, gsi, lsi = 114, 114, 12
	stored := float64(item + 100 + gsi + 100 + lsi + 100)
	data := float64(item + 100 + lsi + 100)
	require.Len(t, b.Tables, 1)
	tm := b.Tables[0]
	assert.Equal(t, 1e6*stored, tm.StoredBytes)
	assert.Equal(t, 1e6*(gsi+100.0), tm.GSIStoredBytes)
	assert.InDelta(t, 1e6*data/1e9, tm.DataGB, 1e-12)
	assert.InDelta(t, tm.GB*0.25, b.StorageUSD, 1e-12, "storage: every byte")
	assert.InDelta(t, 1e6*data/1e9*0.20, b.PITRUSD, 1e-12, "PITR: table data and LSIs")
	assert.InDelta(t, 1e6*data/1e9*0.10, b.ExportUSD, 1e-12, "export: the table's items")
	assert.Equal(t, "populations and samples, GSI entries left out", tm.DataSource)
	require.Len(t, b.Lines, 4)
	assert.Contains(t, b.Lines[2].On, "not GSIs")
	assert.Contains(t, b.Lines[2].Price, "per GB-month")

	declared := 10.0
	e.Model.Table("things").SizeGB = &declared
	b, err := e.Month(estimate.Options{Prices: capacity.DefaultPrices(), Utilisation: 0.7})
	require.NoError(t, err)
	assert.InDelta(t, 10*0.25, b.StorageUSD, 1e-12)
	assert.InDelta(t, 10*data/stored*0.20, b.PITRUSD, 1e-12)
	assert.InDelta(t, 10*data/stored, b.ExportGB, 1e-12)
	assert.Contains(t, b.Tables[0].DataSource, "the declared 10 GB x 60.4%")
}
