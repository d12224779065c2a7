package collect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports/collect"
	"github.com/cardapio/cardapio/reports/html"
)

var models = []string{"../../model.yaml", "../../examples/orders/model.yaml"}

// load reads a model as the report command does, with the item size limit
// of the billing rules.
func load(t testing.TB, path string) *catalog.Model {
	t.Helper()
	m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	require.NoError(t, err)
	return m
}

// Without results the report names each missing section and the
// command that produces it, and draws no chart there.
func TestMissingSectionsSayHowToMakeThem(t *testing.T) {
	for _, path := range models {
		r, err := collect.Report(context.Background(), collect.Options{Path: path, Model: load(t, path)})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, r.Write(&b))
		out := b.String()
		for _, cmd := range []string{
			"cardapio budget " + path + " --format json &gt; budget.json",
			"cardapio load " + path + " --scenario " + r.Model.Scenarios[0].Name + " --results load.jsonl",
			"cardapio plan " + path + " --scenario " + r.Model.Scenarios[0].Name + " --format json &gt; plan.json",
			"cardapio report " + path + " --compare OTHER.yaml",
		} {
			assert.Contains(t, out, cmd, path)
		}
		for _, id := range []string{"load", "plan", "compare"} {
			sec := section(t, out, id)
			assert.NotContains(t, sec, "<svg", "%s: %s draws a chart without results", path, id)
			assert.Contains(t, sec, "nothing is drawn")
		}
		// Every access pattern appears in the map and its table.
		for _, ap := range r.Model.AccessPatterns {
			assert.GreaterOrEqual(t, strings.Count(section(t, out, "map"), ">"+ap.ID), 2, ap.ID)
		}
	}
}

func TestFullReport(t *testing.T) {
	r, err := collect.Report(context.Background(), collect.Options{Path: models[0], Model: load(t, models[0]),
		Compare: models[1], Other: load(t, models[1]), Load: "../html/testdata/load.jsonl", Plan: "../html/testdata/plan.json"})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, r.Write(&b))
	out := b.String()
	assert.NotContains(t, out, "Sections without results\n")
	assert.Contains(t, out, "Measured budgets") // no gate run was asked for
	for _, id := range []string{"map", "budgets", "cost", "compare", "load", "plan"} {
		sec := section(t, out, id)
		assert.Contains(t, sec, "<svg", id)
		assert.Contains(t, sec, "<table", id)
	}
	// The load run's units over time: GSI1's writes consumed and
	// throttled against its limit and a partition's cap.
	load := section(t, out, "load")
	assert.Contains(t, load, "GSI1 writes: consumed against the limit, at full scale")
	assert.Contains(t, load, ">partition cap<")
	assert.Contains(t, load, ">throttled<")
	// Every chart is titled and described; ids are unique.
	ids := regexp.MustCompile(`<svg [^>]*id="([^"]+)"`).FindAllStringSubmatch(out, -1)
	seen := map[string]bool{}
	for _, m := range ids {
		assert.False(t, seen[m[1]], m[1])
		seen[m[1]] = true
		assert.Contains(t, out, `<title id="`+m[1]+`-t">`)
		assert.Contains(t, out, `<desc id="`+m[1]+`-d">`)
	}
	assert.Greater(t, len(ids), 10)
	assert.NotContains(t, out, "<script")
	assert.NotContains(t, out, "http://www.w3.org/2000/svg\" href") // nothing linked
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, out)
	assert.NotContains(t, out, "NaN")
}

func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<section id="`+id+`"`)
	require.GreaterOrEqual(t, i, 0, id)
	j := strings.Index(page[i:], "</section>")
	return page[i : i+j]
}

func TestReadBudgetRoundTrip(t *testing.T) {
	r, err := collect.Report(context.Background(), collect.Options{Path: models[1], Model: load(t, models[1]), Measure: true})
	require.NoError(t, err)
	require.NotNil(t, r.Budget)
	data, err := json.Marshal(r.Budget)
	require.NoError(t, err)
	back, err := html.ReadBudget("budget.json", data)
	require.NoError(t, err)
	assert.Equal(t, r.Budget.Summary, back.Summary)
	assert.Len(t, back.Results, len(r.Budget.Results))
}

// BenchmarkReport makes the reference model's report from check and cost
// (no engine run) and renders it, with the load and plan fixtures.
func BenchmarkReport(b *testing.B) {
	for _, full := range []bool{false, true} {
		o := collect.Options{Path: models[0], Model: load(b, models[0])}
		name := "check+cost"
		if full {
			o.Load, o.Plan, name = "../html/testdata/load.jsonl", "../html/testdata/plan.json", "check+cost+load+plan"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r, err := collect.Report(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				var w bytes.Buffer
				if err := r.Write(&w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
