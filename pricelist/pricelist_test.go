package pricelist

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/pricelist/pricelisttest"
)

func newPriceListServer(t *testing.T) *pricelisttest.Server {
	return pricelisttest.Serve(t, "testdata")
}

// TestFetchUSEast1 builds us-east-1's table from the recorded list: it
// gives the figures AWS publishes, which are capacity's defaults
// (Standard-IA's request factor aside: the list's 0.78/0.625 = 1.248,
// where the default rounds the calculator's multiplier to 1.25).
func TestFetchUSEast1(t *testing.T) {
	s := newPriceListServer(t)
	p, err := Fetch(context.Background(), "us-east-1", Options{EndpointURL: s.URL})
	require.NoError(t, err)
	assert.Greater(t, s.Requests.Load(), int32(0))
	def := capacity.DefaultPrices()
	assert.Equal(t, "us-east-1", p.Region)
	assert.Equal(t, "2024-11-01", p.Date)
	got, want := p.Lines(), def.Lines()
	require.Equal(t, len(want), len(got))
	for i := range want {
		if got[i].Key == "iaRequestFactor" {
			assert.InDelta(t, 0.78/0.625, got[i].Value, 1e-12)
			assert.InEpsilon(t, want[i].Value, got[i].Value, 0.002, "the list's factor is the default's, to its rounding")
			continue
		}
		assert.Equal(t, want[i].Value, got[i].Value, got[i].Key)
		assert.Contains(t, got[i].Status, "AWS Price List API", got[i].Key)
		assert.Equal(t, "2024-11-01", got[i].Date, got[i].Key)
	}
	assert.Contains(t, p.WritePerMillion.Status, "WriteRequestUnits")
	assert.NotContains(t, p.WritePerMillion.Status, "IA-", "Standard's writes, not Standard-IA's")
}

// TestFetchSAEast1 reads sa-east-1's products, whose usage types carry
// the region's prefix (SAE1-), into its own table.
func TestFetchSAEast1(t *testing.T) {
	s := newPriceListServer(t)
	p, err := Fetch(context.Background(), "sa-east-1", Options{EndpointURL: s.URL})
	require.NoError(t, err)
	want := map[string]float64{
		"writePerMillion": 0.9375, "readPerMillion": 0.1875, "storageGBMonth": 0.375, "freeStorageGB": 25,
		"iaStorageGBMonth": 0.15, "wcuHour": 0.000975, "rcuHour": 0.000195, "pitrGBMonth": 0.3,
		"backupGBMonth": 0.15, "exportGB": 0.15, "importGB": 0.225, "streamPer100k": 0.03,
		"replWritePerMillion": 0.9375, "replWCUHour": 0.000975, "iaRequestFactor": 1.248,
	}
	for _, l := range p.Lines() {
		w, ok := want[l.Key]
		require.True(t, ok, l.Key)
		assert.InDelta(t, w, l.Value, 1e-12, l.Key)
	}
	assert.Equal(t, "sa-east-1", p.Region)
	assert.Contains(t, p.ReadPerMillion.Status, "SAE1-ReadRequestUnits")
}

// TestFetchPagesAndRetries: one product a page, and a server error on
// the first request that the SDK's retry (set explicitly) sends again.
func TestFetchPagesAndRetries(t *testing.T) {
	s := newPriceListServer(t)
	s.Fail.Store(1)
	_, err := Fetch(context.Background(), "us-east-1", Options{EndpointURL: s.URL, Retries: 0})
	require.Error(t, err, "no retry: the 500 is the answer")
	assert.Contains(t, err.Error(), "InternalErrorException")

	s.Fail.Store(1)
	s.Requests.Store(0)
	p, err := Fetch(context.Background(), "us-east-1", Options{EndpointURL: s.URL, Retries: 2})
	require.NoError(t, err)
	assert.Equal(t, 0.625, p.WritePerMillion.Value)
	// 21 products, 100 a page: one page, plus the retried request.
	assert.Equal(t, int32(2), s.Requests.Load())
}

func TestFetchRefuses(t *testing.T) {
	s := newPriceListServer(t)
	_, err := Fetch(context.Background(), "xx-north-9", Options{EndpointURL: s.URL})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no AmazonDynamoDB prices in xx-north-9")
	assert.True(t, input.Is(err), "a region without prices is the caller's")
	for _, bad := range []string{"", "US-EAST-1", "us-east-1; rm", strings.Repeat("a", 100)} {
		_, err := Fetch(context.Background(), bad, Options{EndpointURL: s.URL})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "want a region code", bad)
	}
	_, err = Fetch(context.Background(), "us-east-1", Options{EndpointURL: "ftp://x"})
	require.Error(t, err)
}

func TestUsage(t *testing.T) {
	for in, want := range map[string]string{
		"ReadRequestUnits":             "ReadRequestUnits",
		"USE1-ReadRequestUnits":        "ReadRequestUnits",
		"SAE1-ReadRequestUnits":        "ReadRequestUnits",
		"EU-TimedStorage-ByteHrs":      "TimedStorage-ByteHrs",
		"IA-ReadRequestUnits":          "IA-ReadRequestUnits",
		"SAE1-IA-TimedStorage-ByteHrs": "IA-TimedStorage-ByteHrs",
		"Streams-RequestsCount":        "Streams-RequestsCount",
		"APN2-Streams-RequestsCount":   "Streams-RequestsCount",
	} {
		assert.Equal(t, want, Usage(in), in)
	}
}

// TestBuildRefuses: a list that lacks a figure, or prices one twice, or
// is not a price list, is an error, never a table with a default in it.
func TestBuildRefuses(t *testing.T) {
	data, err := os.ReadFile("testdata/getproducts-sa-east-1.json")
	require.NoError(t, err)
	var rec struct{ PriceList []string }
	require.NoError(t, json.Unmarshal(data, &rec))
	var partial []string
	for _, it := range rec.PriceList {
		if !strings.Contains(it, `"SAE1-TimedPITRStorage-ByteHrs"`) {
			partial = append(partial, it)
		}
	}
	_, err = Build("sa-east-1", partial)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TimedPITRStorage-ByteHrs")

	twice := append(append([]string(nil), rec.PriceList...), strings.Replace(rec.PriceList[0], "0.0000009375", "0.0000001", 1))
	_, err = Build("sa-east-1", twice)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "two prices of WriteRequestUnits")

	_, err = Build("sa-east-1", []string{"not json"})
	require.Error(t, err)

	// The other region's products are not this region's prices.
	_, err = Build("us-east-1", rec.PriceList)
	require.Error(t, err)

	p, err := Build("sa-east-1", rec.PriceList)
	require.NoError(t, err)
	assert.False(t, math.IsNaN(p.IARequestFactor.Value))
}
