package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/pricelist/pricelisttest"
)

// recordedPrices is the prices file built from the recorded Price List
// responses (pricelist/testdata) of us-east-1 and sa-east-1, kept for the
// documentation; go test ./internal/cli -run Prices -update rewrites it.
const recordedPrices = "../../docs/tutorial/prices-recorded.yaml"

// TestPrices builds a prices file of two regions with the real SDK
// client from a recorded Price List served on loopback, reads it back,
// and prices both examples with it: us-east-1's figures are the
// defaults', so its bill is the default bill; sa-east-1's are 1.5 times
// us-east-1's in the recording, and so is every request's price.
func TestPrices(t *testing.T) {
	s := pricelisttest.Serve(t, "../../pricelist/testdata")
	out := filepath.Join(t.TempDir(), "prices.yaml")
	r := runCLI([]string{"prices", "--region", "us-east-1,sa-east-1", "--out", out, "--endpoint-url", s.URL}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	book, err := capacity.LoadPriceBook(out, data)
	require.NoError(t, err)
	require.Len(t, book, 2)
	assert.Equal(t, "sa-east-1", book[0].Region, "regions in name order")
	assert.Equal(t, 0.9375, book[0].WritePerMillion.Value)
	assert.Equal(t, "2024-11-01", book[0].Date)
	assert.Equal(t, capacity.DefaultPrices().WritePerMillion.Value, book[1].WritePerMillion.Value)

	if updating() {
		require.NoError(t, os.WriteFile(recordedPrices, data, 0o644))
	}
	recorded, err := os.ReadFile(recordedPrices)
	require.NoError(t, err)
	assert.Equal(t, string(recorded), string(data), "docs/tutorial/prices-recorded.yaml: rewrite with -update")

	r = runCLI([]string{"prices", "--region", "sa-east-1", "--endpoint-url", s.URL}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	one, err := capacity.LoadPriceBook("stdout", []byte(r.stdout))
	require.NoError(t, err)
	require.Len(t, one, 1)

	for _, model := range []string{"../../model.yaml", "../../examples/orders/model.yaml"} {
		bill := func(args ...string) map[string]any {
			r := runCLI(append([]string{"cost", model, "--format", "json"}, args...), nil)
			require.Equal(t, 0, r.code, r.stderr)
			var b map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &b))
			return b
		}
		def, use1, sae1 := bill(), bill("--prices", out, "--region", "us-east-1"), bill("--prices", out, "--region", "sa-east-1")
		assert.Equal(t, "sa-east-1", sae1["region"])
		assert.InEpsilon(t, def["requestsUSD"], use1["requestsUSD"], 1e-6, model)
		assert.InEpsilon(t, def["totalUSD"], use1["totalUSD"], 0.002, "%s: the Standard-IA factor is the list's 1.248, not 1.25", model)
		assert.InEpsilon(t, 1.5*use1["requestsUSD"].(float64), sae1["requestsUSD"], 1e-9, model)
		assert.InEpsilon(t, 1.5*use1["storageUSD"].(float64), sae1["storageUSD"], 0.01, model)
	}

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"prices"}, "--region R is required"},
		{[]string{"prices", "--region", "Sao-Paulo", "--endpoint-url", s.URL}, "want a region code"},
		{[]string{"prices", "--region", "xx-north-9", "--endpoint-url", s.URL}, "no AmazonDynamoDB prices in xx-north-9"},
		{[]string{"prices", "--region", "sa-east-1", "--retries", "11"}, "--retries"},
		{[]string{"cost", "../../model.yaml", "--prices", out}, "holds 2 regions (sa-east-1, us-east-1): pick one with --region"},
		{[]string{"cost", "../../model.yaml", "--prices", out, "--region", "eu-west-1"}, "no prices of eu-west-1 in the price file"},
		{[]string{"cost", "../../model.yaml", "--region", "sa-east-1"}, "cardapio prices --region sa-east-1"},
	} {
		r := runCLI(c.args, nil)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.says, c.args)
		assert.Empty(t, r.stdout, c.args)
	}
	// The API failing is not the user's input.
	s.Fail.Store(100)
	r = runCLI([]string{"prices", "--region", "sa-east-1", "--endpoint-url", s.URL, "--retries", "0", "--out", filepath.Join(t.TempDir(), "x.yaml")}, nil)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "InternalErrorException")
}
