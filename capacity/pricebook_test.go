package capacity

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPriceBookRoundTrip: what WritePriceBook writes, LoadPriceBook reads
// back figure for figure, in region order.
func TestPriceBookRoundTrip(t *testing.T) {
	a, b := DefaultPrices(), DefaultPrices()
	b.Region, b.Date = "sa-east-1", "2024-11-01"
	b.WritePerMillion = Figure{0.9375, `a "quoted" status: with colons`, "2024-11-01"}
	b.FreeStorageGB = Figure{25, "tier", ""}
	var out bytes.Buffer
	require.NoError(t, WritePriceBook(&out, "2024-11-01", "a comment\nof two lines", []Prices{a, b}))
	book, err := LoadPriceBook("p.yaml", out.Bytes())
	require.NoError(t, err, out.String())
	require.Len(t, book, 2)
	b.Date = "2024-11-01"
	assert.Equal(t, b, book[0])
	a.Date = "2024-11-01"
	assert.Equal(t, a.Lines(), book[1].Lines())
	assert.Equal(t, "us-east-1", book[1].Region)

	p, err := PickRegion(book, "sa-east-1")
	require.NoError(t, err)
	assert.Equal(t, 0.9375, p.WritePerMillion.Value)
	_, err = PickRegion(book, "")
	assert.ErrorContains(t, err, "holds 2 regions (sa-east-1, us-east-1)")
}

// TestPriceBookErrors: every error of a file of regions at its line and
// column, all at once.
func TestPriceBookErrors(t *testing.T) {
	src := "date: x\nextra: 1\nregions:\n  sa-east-1:\n    writePerMillion: lots\n    nope: 1\n  sa-east-1: {}\n  eu-west-1: {region: us-east-1}\n"
	_, err := LoadPriceBook("p.yaml", []byte(src))
	require.Error(t, err)
	for _, want := range []string{
		`p.yaml:2:1: unknown key "extra" beside regions`,
		`p.yaml:5:22: writePerMillion: want a number`,
		`p.yaml:6:5: unknown price "nope"`,
		`p.yaml:7:3: sa-east-1 is given twice (first at line 4)`,
		`p.yaml:8:14: regions.eu-west-1: its table says region us-east-1`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = LoadPriceBook("p.yaml", []byte("regions: []\n"))
	assert.ErrorContains(t, err, "regions: want a mapping")

	// A single table is a book of one, named by its region.
	book, err := LoadPriceBook("p.yaml", []byte("region: example\nwritePerMillion: 1\n"))
	require.NoError(t, err)
	require.Len(t, book, 1)
	assert.Equal(t, "example", book[0].Region)
}
