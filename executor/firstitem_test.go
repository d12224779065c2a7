package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

// TestReadsWithoutKeepAgree: a read that keeps nothing has its answer's
// items cut to the first before the SDK decodes them; every variant of
// both models reads the same counts, binds the same values and measures
// the same figures as when every item is decoded (Options.Keep).
func TestReadsWithoutKeepAgree(t *testing.T) {
	for _, path := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		m := load(t, path)
		for _, v := range variants(m) {
			var got [2]*executor.Result
			var items int
			for i, keep := range []bool{false, true} {
				got[i], items = runKept(t, m, v, keep)
			}
			if items > 5000 {
				continue // the large fan-outs: the budget gate runs them
			}
			name := m.Name + " " + v[0] + "/" + v[1]
			require.Equal(t, len(got[1].Steps), len(got[0].Steps), name)
			assert.Equal(t, got[1].Outcome.Kind, got[0].Outcome.Kind, name)
			assert.Equal(t, got[1].Capacity, got[0].Capacity, name)
			for j := range got[0].Steps {
				a, b := got[0].Steps[j], got[1].Steps[j]
				assert.Equal(t, b.Items, a.Items, "%s step %s", name, a.ID)
				assert.Equal(t, b.Capacity, a.Capacity, "%s step %s", name, a.ID)
				assert.Equal(t, len(b.Found), b.Items, "%s step %s: kept", name, a.ID)
				assert.Empty(t, a.Found, "%s step %s", name, a.ID)
			}
		}
	}
}

// runKept seeds and runs one variant on a fresh engine; the seeded item
// count comes back too. A variant of more than 5,000 items is not run.
func runKept(t *testing.T, m *catalog.Model, v [2]string, keep bool) (*executor.Result, int) {
	t.Helper()
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "k-"})
	require.NoError(t, err)
	x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Keys: ts.Keys, Loader: tg, Keep: keep})
	in := executor.Input{Operation: v[0], Variant: v[1]}
	if p, err := x.Plan(v[0], v[1]); err == nil && seedsMany(p) {
		return nil, 5001
	}
	s, err := x.Seed(ctx, in)
	require.NoError(t, err)
	in.Before = s.Before
	out, err := x.Run(ctx, in)
	require.NoError(t, err)
	return out, s.Items
}

// seedsMany reports whether a plan's reads match more than 5,000 items.
func seedsMany(p *executor.Plan) bool {
	n := 0
	for _, sp := range p.Steps {
		if sp.Step.Request == nil {
			continue
		}
		for _, mt := range sp.Step.Request.Matches {
			n += mt.Count * max(1, sp.ShardCount)
		}
	}
	return n > 5000
}
