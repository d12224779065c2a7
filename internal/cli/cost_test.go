package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden files of cost are rewritten by: go test ./internal/cli -run Cost -update

func costGolden(t *testing.T, name, got string) { t.Helper(); goldenFile(t, "cost", name, got) }

// goldenFile compares got with testdata/dir/name.golden, rewriting it
// with -update.
func goldenFile(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name+".golden")
	if updating() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), got)
}

func TestCostReference(t *testing.T) {
	out, errOut, code := runCheckCLI("cost", "../../model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	for _, s := range []string{"Operations", "Access patterns", "Storage", "Provisioned alternative", "total", "per 1,000 of 8,000,000 contracts",
		"ApplySettlement", "by share", "AP07", "point-in-time recovery", "export to S3"} {
		assert.Contains(t, out, s)
	}
	costGolden(t, "reference.txt", out)

	out, errOut, code = runCheckCLI("cost", "--format", "json", "../../model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	var doc struct {
		Model          string
		TotalUSD       float64
		PerThousandUSD float64
		Operations     []struct{ Operation string }
		Patterns       []struct{ Pattern string }
		Tables         []struct{ Table string }
		Provisioned    struct{ USD, PeakUSD float64 }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "lastro", doc.Model)
	assert.InEpsilon(t, 200, doc.TotalUSD, 0.05)
	assert.NotEmpty(t, doc.Operations)
	assert.NotEmpty(t, doc.Patterns)
	assert.Len(t, doc.Tables, 2)
	assert.Less(t, doc.Provisioned.USD, doc.Provisioned.PeakUSD)
}

func TestCostDefaultPath(t *testing.T) {
	t.Chdir("../..")
	out, _, code := runCheckCLI("cost")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "lastro: monthly cost")
}

// The comparison the project README shows: model A against model B.
func TestCostCompare(t *testing.T) {
	out, errOut, code := runCheckCLI("cost", "--compare", "../../examples/model-a.yaml", "../../examples/model-b.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "RecomputeDaysPastDue")
	assert.Contains(t, out, "240,000,000")
	assert.Contains(t, out, "6,000,000")
	assert.Contains(t, out, "40x")
	costGolden(t, "compare.txt", out)

	out, _, code = runCheckCLI("cost", "--compare", "--format", "json", "../../examples/model-a.yaml", "../../examples/model-b.yaml")
	require.Equal(t, ExitOK, code)
	var doc struct{ A, B struct{ Model string } }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "model-a", doc.A.Model)
	assert.Equal(t, "model-b", doc.B.Model)
}

// Two versions of one model (one name) are told apart by their files.
func TestCostCompareOneName(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../examples/model-a.yaml")
	require.NoError(t, err)
	a, b := filepath.Join(dir, "before.yaml"), filepath.Join(dir, "after.yaml")
	require.NoError(t, os.WriteFile(a, data, 0o644))
	require.NoError(t, os.WriteFile(b, data, 0o644))
	out, errOut, code := runCheckCLI("cost", "--compare", a, b)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "before.yaml vs after.yaml: monthly cost")
	assert.NotContains(t, out, "model-a vs model-a")
}

func TestCostPricesAndUtilisation(t *testing.T) {
	out, errOut, code := runCheckCLI("cost", "--prices", "testdata/cost/prices.yaml", "--utilisation", "0.5", "../../examples/model-b.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "sa-east-1 prices")
	assert.Contains(t, out, "at 50% target utilisation")
	// 6M WRU x 0.9375 = 5.63; 7.5M RRU x 0.1875 = 1.41.
	assert.Contains(t, out, "5.63")
	assert.Contains(t, out, "1.41")
	costGolden(t, "prices.txt", out)
}

func TestCostBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad-prices", []string{"cost", "--prices", "testdata/cost/bad-prices.yaml", "../../model.yaml"}, "bad-prices.yaml:1:18"},
		{"missing-prices", []string{"cost", "--prices", "testdata/cost/none.yaml", "../../model.yaml"}, "none.yaml"},
		{"utilisation", []string{"cost", "--utilisation", "1.5", "../../model.yaml"}, "--utilisation"},
		{"format", []string{"cost", "--format", "xml", "../../model.yaml"}, "--format"},
		{"compare-one", []string{"cost", "--compare", "../../model.yaml"}, "--compare takes two models"},
		{"two-without-compare", []string{"cost", "../../model.yaml", "../../model.yaml"}, "--compare"},
		{"missing-model", []string{"cost", "testdata/cost/none.yaml"}, "none.yaml"},
		{"invalid-model", []string{"cost", "testdata/check/bad.yaml"}, "bad.yaml:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCheckCLI(c.args...)
			assert.Equal(t, ExitBadInput, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, c.want)
			assert.NotContains(t, errOut, "goroutine")
		})
	}
}
