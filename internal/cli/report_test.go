package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"type\":\"start\"}\n{\"type\":\"second\",\"loads\":{\"A\":{\"offered\":true}}}\n"), 0o644))
	notPlan := filepath.Join(dir, "plan.json")
	require.NoError(t, os.WriteFile(notPlan, []byte("{\"results\": []}"), 0o644))
	out := filepath.Join(dir, "r.html")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", "../../model.yaml"}, "--out FILE is required"},
		{[]string{"report", "../../model.yaml", "--out", out, "--no-measure", "--budget", "x.json"}, "choose one"},
		{[]string{"report", "../../model.yaml", "--out", out, "--no-measure", "--load", bad}, bad + ":2:42: loads.offered: got a JSON bool, want a number"},
		{[]string{"report", "../../model.yaml", "--out", out, "--no-measure", "--plan", notPlan}, `no "resources": not a plan`},
		{[]string{"report", "../../model.yaml", "--out", out, "--budget", bad}, "baseline " + bad},
		{[]string{"report", "../../model.yaml", "--out", out, "--no-measure", "--load", filepath.Join(dir, "absent.jsonl")}, "no such file"},
		{[]string{"report", "testdata/check/unsharded-gsi1.yaml", "--out", out, "--no-measure", "--compare", filepath.Join(dir, "absent.yaml")}, "absent.yaml"},
	}
	for _, c := range cases {
		run := runCLI(c.args, nil)
		assert.Equal(t, 2, run.code, "%v: %s", c.args, run.stderr)
		assert.Contains(t, run.stderr, c.want, c.args)
		for _, l := range leaks {
			assert.NotContains(t, run.stderr, l)
		}
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%v wrote a report", c.args)
	}
	// A bad model: its positioned errors, exit 2.
	for name, path := range badModels(t) {
		if strings.HasPrefix(name, "truncated-") && runCLI([]string{"check", path}, nil).code == ExitOK {
			continue // still a valid model
		}
		run := runCLI([]string{"report", path, "--out", out, "--no-measure"}, nil)
		assert.Equal(t, 2, run.code, name)
		if name == "missing" || name == "directory" {
			assert.Contains(t, run.stderr, path, name)
			continue
		}
		assertPositioned(t, run.stderr)
	}
}

// --out - writes the document on stdout; the report of the orders
// example runs the gate on the embedded engine.
func TestReportStdout(t *testing.T) {
	run := runCLI([]string{"report", "../../examples/orders/model.yaml", "--out", "-"}, nil)
	require.Equal(t, 0, run.code, run.stderr)
	assert.True(t, strings.HasPrefix(run.stdout, "<!DOCTYPE html>"))
	assert.Contains(t, run.stdout, "Budgets: measured units per operation")
	assert.Contains(t, run.stdout, "variants measured on embedded engine")
	// The orders example has one table: a count agrees with its noun.
	assert.Contains(t, run.stdout, " 1 table, ")
	assert.NotContains(t, run.stdout, " 1 tables")
}

// The report reads what cardapio plan writes: the orders example's plan
// from its model alone, then the report with it.
func TestReportOfAPlan(t *testing.T) {
	dir := t.TempDir()
	run := runCLI([]string{"plan", "../../examples/orders/model.yaml", "--scenario", "queue-0900", "--format", "json", "--resolution", "60"}, nil)
	require.Contains(t, []int{0, 3}, run.code, run.stderr)
	plan := filepath.Join(dir, "plan.json")
	require.NoError(t, os.WriteFile(plan, []byte(run.stdout), 0o644))
	out := filepath.Join(dir, "r.html")
	run = runCLI([]string{"report", "../../examples/orders/model.yaml", "--no-measure", "--plan", plan, "--out", out}, nil)
	require.Equal(t, 0, run.code, run.stderr)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	i := strings.Index(string(page), `<section id="plan"`)
	require.GreaterOrEqual(t, i, 0)
	sec := string(page[i:])
	sec = sec[:strings.Index(sec, "</section>")]
	assert.Contains(t, sec, "Plan: queue-0900 at full scale")
	assert.Contains(t, sec, "<svg")
	assert.Contains(t, sec, "Tables and indexes: the busiest second")
}
