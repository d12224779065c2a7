package budget

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// supported lists the operations of m an emulator can run: with txn
// false, those with no transaction step (for one without transactions;
// keys are taken care of by the synthetic fallback), and, emulators being
// slow to load, whose queries match at most maxItems items over all their
// shards.
func supported(m *catalog.Model, maxItems int, txn bool) []string {
	var out []string
	for _, op := range m.Operations {
		ok := true
		for _, s := range op.Steps {
			ok = ok && (txn || s.Kind != catalog.Transaction)
			if q := s.Request; q != nil {
				n := 0
				for _, mt := range q.Matches {
					n += mt.Count
				}
				if q.Index != nil && q.Index.Shards != nil && q.Shards != nil && q.Shards.FanOut == "all" {
					n *= q.Index.Shards.Count
				}
				ok = ok && n <= maxItems
			}
		}
		if ok {
			out = append(out, op.Name)
		}
	}
	return out
}

// TestDynalite runs the reference model's operations that dynalite
// supports against dynalite (DYNALITE_ENDPOINT, which .ci/run starts) and
// shows where its figures differ from the rules: the gate finds that it
// takes no multi-attribute keys (synthetic fallback) and reports no index
// capacity (index figures computed and said so, not drift), that it
// reports nothing for a failed conditional write (computed), and what is
// left is drift, printed: index reads dearer by the synthetic key
// attributes the items carry. Skipped when no dynalite is running.
func TestDynalite(t *testing.T) {
	url := os.Getenv("DYNALITE_ENDPOINT")
	if url == "" {
		t.Skip("DYNALITE_ENDPOINT is not set (bash .ci/run starts dynalite)")
	}
	m := load(t, "../model.yaml")
	only := supported(m, 5000, false)
	require.NotEmpty(t, only)
	rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: only})
	require.NoError(t, err)
	assert.Equal(t, "synthetic", rep.Keys, "dynalite takes no multi-attribute GSI keys")
	notes := strings.Join(rep.Notes, "\n")
	assert.Contains(t, notes, "reports no index capacity")

	var b strings.Builder
	fmt.Fprintf(&b, "dynalite against the billing rules, %d variants:\n", len(rep.Results))
	computed := 0
	for _, r := range rep.Results {
		assert.NotEqual(t, Error, r.Verdict, "%s: %s", r.Name(), r.Explanation)
		if r.Measured.Computed {
			computed++
		}
		fmt.Fprintf(&b, "  %-32s measured %6s WRU %7s RRU, static %6s WRU %7s RRU, %s\n", r.Name(),
			num(r.Measured.WRU), num(r.Measured.RRU), num(r.Static.WRU), num(r.Static.RRU), r.Verdict)
		for _, d := range r.Drift {
			fmt.Fprintf(&b, "    drift: step %s, %s: %s %s measured, %s by the rules\n", d.Step, d.Target, num(d.Measured), d.Unit, num(d.Static))
		}
		for _, k := range r.Known {
			fmt.Fprintf(&b, "    known: %s\n", k)
		}
	}
	t.Log(b.String())
	assert.Positive(t, computed, "index writes and failed conditional writes are computed on dynalite")
	for _, r := range rep.Results {
		for _, d := range r.Drift {
			assert.NotEqual(t, "table", d.Target, "%s: only index figures drift, by the synthetic keys' bytes", r.Name())
			assert.Greater(t, d.Measured, d.Static, r.Name())
		}
	}
	for _, r := range rep.Results {
		if r.Name() == "ClaimContact/refused" {
			assert.True(t, r.Measured.Computed, "dynalite reports nothing for a failed conditional write")
			assert.Equal(t, r.Static, r.Measured.Units())
		}
	}
}
