package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleUnshardedGSI1 is the model cardapio load replays the 00h07
// incident on: the peak gate's copy of the reference model with GSI1
// unsharded (testdata/check/unsharded-gsi1.yaml), its readers no longer
// fanning out over shards the index has lost.
const exampleUnshardedGSI1 = "../../examples/unsharded-gsi1.yaml"

const exampleUnshardedHead = `# The reference model with GSI1 unsharded: the design before the incident
# of midnight-0007 (its partition is tenantId + nextActionDate alone, every
# GSI1 query reads one partition). It differs from model.yaml only there;
# cardapio check flags GSI1's hot partition, and cardapio load replays the
# incident on it (README, "The 00h07 incident, replayed").
# Written by go test ./internal/cli -run LoadExample -update from the model
# and the edits of internal/cli/testdata/check/unsharded-gsi1.yaml; do not edit.
`

// plantExampleUnsharded makes examples/unsharded-gsi1.yaml: the peak
// regression's edits, then the fan-out lines of GSI1's readers dropped.
func plantExampleUnsharded(t *testing.T) []byte {
	t.Helper()
	var r regression
	for _, p := range peakRegressions {
		if p.name == "unsharded-gsi1" {
			r = p
		}
	}
	require.NotEmpty(t, r.edits, "no unsharded-gsi1 peak regression")
	r.edits = append(append([]edit(nil), r.edits...),
		edit{in: "accessPatterns:", old: "      shards: {fanOut: all, workers: 16}\n", new: "", all: true},
		edit{in: "operations:", old: "          shards: {fanOut: all, workers: 16}\n", new: "", all: true})
	planted := string(plant(t, r))
	// plant heads the copy with two lines of its own.
	body := planted[strings.Index(planted, "\n")+1:]
	body = body[strings.Index(body, "\n")+1:]
	return []byte(exampleUnshardedHead + body)
}

// TestLoadExampleUpToDate: the load's unsharded model is made from
// model.yaml by the peak regression's edits (so that what cardapio check
// flags is what cardapio load replays), and differs from the regression's
// copy only in the readers' fan-out lines.
func TestLoadExampleUpToDate(t *testing.T) {
	want := plantExampleUnsharded(t)
	if updating() {
		require.NoError(t, os.WriteFile(exampleUnshardedGSI1, want, 0o644))
	}
	got, err := os.ReadFile(exampleUnshardedGSI1)
	require.NoError(t, err)
	assert.True(t, string(want) == string(got), "%s is stale: run go test ./internal/cli -run LoadExample -update", exampleUnshardedGSI1)
	check, err := os.ReadFile(peakRegressionPath("unsharded-gsi1"))
	require.NoError(t, err)
	fanOut := func(s string) int { return strings.Count(s, "shards: {fanOut: all, workers: 16}\n") }
	assert.Equal(t, 7, fanOut(string(check))-fanOut(string(want)), "the check copy's fan-out lines")
}
