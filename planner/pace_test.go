package planner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/loadgen"
)

// The planner and the load generator read a scenario one way: for every
// load of every scenario in the repository, and for every kind of shape
// (testdata/shapes.yaml), the whole arrivals the pacer makes due in each
// second of the span are the planner's demand of that second, exactly,
// at full scale and scaled down.
func TestPlannerSchedulesAsThePacer(t *testing.T) {
	type run struct {
		m  *catalog.Model
		sc catalog.Scenario
		o  Options
	}
	var runs []run
	models := []string{"../model.yaml", "../examples/orders/model.yaml"}
	for _, dir := range []string{"../examples", "../internal/cli/testdata", "../catalog/testdata/valid", "testdata"} {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") && !strings.Contains(p, "/examples/orders/model.yaml") {
				models = append(models, p)
			}
			return nil
		})
	}
	seen := 0
	for _, path := range models {
		m, err := catalog.Load(path)
		if err != nil {
			continue // not a model, or one that must not load
		}
		for _, sc := range m.Scenarios {
			for _, scale := range []float64{1, 0.01} {
				runs = append(runs, run{m, sc, Options{Scenario: sc.Name, Scale: scale}})
			}
		}
		seen++
	}
	require.Greater(t, seen, 5, "the repository's models")
	orders, err := catalog.Load("../examples/orders/model.yaml")
	require.NoError(t, err)
	f, err := catalog.LoadScenarioFile(orders, "testdata/shapes.yaml")
	require.NoError(t, err)
	kinds := map[string]bool{}
	for _, l := range f.Scenarios[0].Load {
		kinds[l.Plan.Shape.Kind] = true
	}
	for _, k := range []string{"even", "trapezoid", "ramp", "points", "steps", "bursts", "curve"} {
		require.True(t, kinds[k], "testdata/shapes.yaml has a load shaped %s", k)
	}
	for _, scale := range []float64{1, 0.37, 0.001} {
		runs = append(runs, run{orders, f.Scenarios[0], Options{Scenario: "shapes", Scenarios: f.Scenarios, Scale: scale}})
		runs = append(runs, run{orders, f.Scenarios[0], Options{Scenario: "shapes", Scenarios: f.Scenarios, Scale: scale, Duration: 75 * time.Second}})
	}
	loads := 0
	for _, r := range runs {
		items, err := catalog.RunLoads(&r.sc, r.o.find(r.m))
		require.NoError(t, err)
		day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		sch, err := newSchedule(&r.sc, items, day, time.UTC, r.o.Duration, r.o.Scale)
		require.NoError(t, err, "%s %s", r.m.Name, r.sc.Name)
		origin := sch.start.Sub(day)
		for _, l := range sch.loads {
			li := l.item
			if li.Plan.Shape == nil {
				continue
			}
			loads++
			p := loadgen.NewPacer(li.RunShape(r.o.Duration), r.o.Scale)
			// The pacer's arrivals, by second of the planner's span.
			due := map[int]float64{}
			for k := int64(0); ; k++ {
				d, ok := p.Due(k)
				if !ok {
					break
				}
				at := li.Plan.Start - origin + d
				due[int(at/time.Second)]++
			}
			total := 0.0
			for s := range sch.seconds {
				require.Equal(t, due[s], l.at(s), "%s/%s load %s at scale %g: second %d", r.m.Name, r.sc.Name, li.Name, r.o.Scale, s)
				total += l.at(s)
			}
			require.Equal(t, float64(p.Count()), total, "%s/%s load %s: every arrival within the span", r.m.Name, r.sc.Name, li.Name)
		}
	}
	require.Greater(t, loads, 30)
}

// A load that follows another runs one arrival per arrival of its cause,
// After later, capped by its count; a chain that comes back to itself is
// refused where it is written.
func TestFollowUpSchedule(t *testing.T) {
	orders, err := catalog.Load("../examples/orders/model.yaml")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`scenarios:
  chain:
    description: follow-ups
    at: "09:00"
    load:
      - {name: c, operation: GetOrder, count: 600, window: 60s, peakPerSecond: 15}
      - {name: d, operation: GetOrder, follows: {load: c, after: 5s}}
      - {name: e, operation: GetOrder, count: 100, follows: {load: d}}
`), 0o644))
	f, err := catalog.LoadScenarioFile(orders, path)
	require.NoError(t, err)
	sc := &f.Scenarios[0]
	items, err := catalog.RunLoads(sc, func(string) *catalog.Scenario { return nil })
	require.NoError(t, err)
	sch, err := newSchedule(sc, items, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.UTC, 0, 1)
	require.NoError(t, err)
	c, d, e := &sch.loads[0], &sch.loads[1], &sch.loads[2]
	require.Equal(t, 65, sch.seconds)
	total := 0.0
	for s := range sch.seconds {
		if s >= 5 {
			require.Equal(t, c.at(s-5), d.at(s), "second %d", s)
		} else {
			require.Zero(t, d.at(s))
		}
		total += e.at(s)
	}
	require.Equal(t, 600.0, d.total)
	require.Equal(t, 100.0, total, "a count caps a follow-up")

	require.NoError(t, os.WriteFile(path, []byte(`scenarios:
  loop:
    description: a chain back to itself
    load:
      - {name: a, operation: GetOrder, follows: {load: b}}
      - {name: b, operation: GetOrder, follows: {load: a}}
`), 0o644))
	_, err = catalog.LoadScenarioFile(orders, path)
	require.ErrorContains(t, err, "comes back to itself")
}
