package html

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// The month split by table and index adds up to the bill's requests, on
// both example models: the split weighs the variants as the bill does.
func TestStructuresAddUpToTheBill(t *testing.T) {
	for _, path := range models {
		s, err := static(path, load(t, path))
		require.NoError(t, err)
		var usd, wru, rru, storage float64
		for _, x := range s.Structures {
			usd += x.RequestsUSD
			wru += x.WRU
			rru += x.RRU
			storage += x.StorageUSD
		}
		assert.InDelta(t, s.Bill.RequestsUSD, usd, 1e-6*s.Bill.RequestsUSD, path)
		assert.InDelta(t, s.Bill.WRU, wru, 1e-6*s.Bill.WRU, path)
		assert.InDelta(t, s.Bill.RRU, rru, 1e-6*s.Bill.RRU, path)
		assert.InDelta(t, s.Bill.StorageUSD+s.Bill.PITRUSD+s.Bill.ExportUSD, storage, 1e-9+1e-6*storage, path)
		assert.Len(t, s.Structures, len(s.Model.Tables)+len(s.Model.Indexes), path)
	}
}

// Without results the report names each missing section and the
// command that produces it, and draws no chart there.
func TestMissingSectionsSayHowToMakeThem(t *testing.T) {
	for _, path := range models {
		r, err := Collect(context.Background(), Options{Path: path, Model: load(t, path)})
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
	r, err := Collect(context.Background(), Options{Path: models[0], Model: load(t, models[0]),
		Compare: models[1], Other: load(t, models[1]), Load: "testdata/load.jsonl", Plan: "testdata/plan.json"})
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

func TestChartsEscapeAndScale(t *testing.T) {
	c := &BarChart{ID: "x", Title: "a <b>", Desc: "d & e", Unit: "US$", Bars: []Bar{{Label: "<script>", Values: []float64{3}}, {Label: "y", Values: []float64{0}}}}
	out := c.SVG()
	assert.NotContains(t, out, "<script>")
	assert.Contains(t, out, "&lt;script&gt;")
	assert.Contains(t, out, "a &lt;b&gt;")
	assert.Contains(t, out, "$3") // the value labelled
	// An all-zero or empty chart still has an axis.
	l := &LineChart{ID: "l", Lines: []Line{{Name: "z", Y: []float64{0, 0, math.NaN()}}}, X: []float64{0, 1, 2}}
	assert.Contains(t, l.SVG(), "<path")
	assert.Equal(t, []float64{0, 2, 4, 6, 8, 10}, ticks(9.5, 5))
	assert.Equal(t, []float64{0, 0.25, 0.5, 0.75, 1, 1.25}, ticks(1.2, 5))
	assert.Equal(t, "15k /s", tickLabel(15000, "/s"))
	assert.Equal(t, "$2.5", tickLabel(2.5, "US$"))
	assert.Equal(t, []float64{0, 3600, 7200, 10800, 14400}, timeTicks(4 * 3600)[:5])
}

func TestBusiestLoads(t *testing.T) {
	l := &Load{Loads: []string{"a", "b", "c"}, Timeline: []map[string]*Point{
		{"a": {Completed: 1}, "b": {Completed: 9}, "c": {Completed: 5}},
		{"a": {Completed: 2}},
	}}
	assert.Equal(t, []string{"b", "c"}, busiest(l, 2))
	assert.Equal(t, []string{"a", "b", "c"}, busiest(l, 3))
}

// BenchmarkReport makes the reference model's report from check and cost
// (no engine run) and renders it, with the load and plan fixtures.
func BenchmarkReport(b *testing.B) {
	for _, full := range []bool{false, true} {
		o := Options{Path: models[0], Model: load(b, models[0])}
		name := "check+cost"
		if full {
			o.Load, o.Plan, name = "testdata/load.jsonl", "testdata/plan.json", "check+cost+load+plan"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r, err := Collect(context.Background(), o)
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
