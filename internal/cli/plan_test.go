package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/planner"
)

// The command's contract: exit 0 without throttling, 3 with (the index,
// partition and second named on stderr), 2 for bad input; JSON on stdout
// in both verdicts.
func TestPlanCommand(t *testing.T) {
	out, errOut, code := runCheckCLI("plan", "../../model.yaml", "--scenario", "midnight-0007", "--duration", "2m")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "PASS no throttling")
	assert.Contains(t, out, "collections/GSI1")
	assert.Empty(t, errOut)

	out, errOut, code = runCheckCLI("plan", "../../model.yaml", "--scenario", "midnight-0007", "--shards", "GSI1=1", "--format", "json", "--no-search")
	require.Equal(t, ExitFailed, code, errOut)
	assert.Contains(t, errOut, "GSI1")
	assert.Contains(t, errOut, "IndexWriteKeyRangeThroughputExceeded")
	assert.Contains(t, errOut, "partition ")
	var r struct {
		Scenario string `json:"scenario"`
		Verdict  struct {
			Throttled bool `json:"throttled"`
		} `json:"verdict"`
		First []struct {
			Index     string `json:"index"`
			Second    int    `json:"second"`
			Partition string `json:"partition"`
		} `json:"firstLimitHit"`
		Heatmaps []struct {
			Cells [][]float64 `json:"cells"`
		} `json:"heatmaps"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.True(t, r.Verdict.Throttled)
	require.NotEmpty(t, r.First)
	assert.Equal(t, "GSI1", r.First[0].Index)
	assert.NotEmpty(t, r.Heatmaps)

	out, errOut, code = runCheckCLI("plan", "../../model.yaml", "--scenario", "midnight-0007", "--shards", "GSI1=1", "--compare", "--no-search")
	require.Equal(t, ExitFailed, code, errOut)
	assert.Contains(t, out, "side by side")
	assert.Contains(t, out, "PASS")
	assert.Contains(t, out, "FAIL")

	// Two copies of one model are told apart by their files.
	out, errOut, code = runCheckCLI("plan", "testdata/check/unsharded-gsi1.yaml", "../../model.yaml", "--scenario", "midnight-0007", "--compare", "--no-search", "--duration", "5m")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "A: lastro (testdata/check/unsharded-gsi1.yaml) as declared")
	assert.Contains(t, out, "B: lastro (../../model.yaml) as declared")

	for _, args := range [][]string{
		{"plan", "../../model.yaml"},
		{"plan", "../../model.yaml", "--scenario", "nope"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--shards", "x"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--shards", "GSI2=4"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--warm", "12"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--billing", "free"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--format", "xml"},
		{"plan", "../../model.yaml", "--scenario", "payday", "--compare"},
		{"plan", "testdata/missing.yaml", "--scenario", "payday"},
	} {
		out, errOut, code := runCheckCLI(args...)
		assert.Equal(t, ExitBadInput, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

// The orders example, from its model alone.
func TestPlanOrders(t *testing.T) {
	out, errOut, code := runCheckCLI("plan", "../../examples/orders/model.yaml", "--scenario", "queue-0900", "--shards", "opsQueue=1", "--no-search", "--duration", "5m")
	require.Equal(t, ExitFailed, code, errOut)
	assert.Contains(t, out, "orders/opsQueue")
	assert.Contains(t, errOut, "opsQueue")
}

// The what-if flags are outside input: never a panic, a bad one is an
// error.
func FuzzPlanFlags(f *testing.F) {
	for _, s := range []string{"16", "GSI1=1", "=3", "24000/8000", "GSI1=12000/4000", "1e9/1e9", "NaN/1", "-1/2", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := &planOptions{shards: []string{s}, warm: []string{s}, provisioned: s, billing: "provisioned", o: planner.Options{Scale: 1}}
		if err := p.parse(); err == nil {
			for _, n := range p.o.Shards {
				if n < 1 {
					t.Fatalf("%q: shard count %d", s, n)
				}
			}
			for _, w := range p.o.Warm {
				if !(w.Read >= 0 && w.Write >= 0) {
					t.Fatalf("%q: warm %v", s, w)
				}
			}
		}
	})
}

// A scenario file, read as the load generator reads it (FILE, FILE#NAME):
// a batch two and a half times the reference's throttles GSI1 even on
// the 16 shards, where shard keys of tomorrow and old entries of the
// largest tenant share a partition.
func TestPlanScenarioFile(t *testing.T) {
	for _, s := range []string{"testdata/plan/unsharded-batch.yaml", "testdata/plan/unsharded-batch.yaml#heavy-0007"} {
		out, errOut, code := runCheckCLI("plan", "../../model.yaml", "--scenario", s, "--no-search", "--format", "json")
		require.Equal(t, ExitFailed, code, errOut)
		assert.Contains(t, out, `"scenario": "heavy-0007"`)
		assert.Contains(t, errOut, "GSI1")
	}
	out, errOut, code := runCheckCLI("plan", "../../model.yaml", "--scenario", "testdata/plan/unsharded-batch.yaml#nope")
	assert.Equal(t, ExitBadInput, code, errOut)
	assert.Empty(t, out)
	out, errOut, code = runCheckCLI("plan", "../../model.yaml", "--scenario", "testdata/plan/missing.yaml")
	assert.Equal(t, ExitBadInput, code, errOut)
	assert.Empty(t, out)
}
