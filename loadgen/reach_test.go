package loadgen

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// TestCutKeepsOutcomes: the night of the unsharded model, written whole
// and cut to the trees the run can reach (the subjects' and the largest
// tenant's, whose agenda the 08:00 run reads), gives the same outcomes,
// throttles, dead letters and invariant violations; the cut writes
// fewer items and says so. One arrival in flight at a time: throttling
// then does not depend on which of an instant's arrivals the engine sees
// first.
func TestCutKeepsOutcomes(t *testing.T) {
	m, err := catalog.Load("../examples/unsharded-gsi1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, "../examples/midnight-peak.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var sums [2]*Summary
	for i, whole := range []bool{false, true} {
		sums[i], err = Run(context.Background(), m, Options{Scenario: "midnight-peak", File: f, Scale: 0.01, Population: 0.0004, Throughput: true,
			Seed: 3, Target: endpoint.Options{Retry: endpoint.NoRetry}, FullPopulation: whole, MaxInflight: 1})
		if err != nil {
			t.Fatal(err)
		}
	}
	cut, whole := sums[0], sums[1]
	if cut.Population.Items >= whole.Population.Items {
		t.Errorf("the cut wrote %d items, the whole population %d", cut.Population.Items, whole.Population.Items)
	}
	if !strings.Contains(strings.Join(cut.Notes, "\n"), "trees written: those holding a subject") {
		t.Errorf("the cut says nothing of itself: %q", cut.Notes)
	}
	for name, w := range whole.Operations {
		c := cut.Operations[name]
		if c == nil {
			t.Errorf("%s: not in the cut run", name)
			continue
		}
		if d := cmp.Diff(w.Outcomes, c.Outcomes); d != "" {
			t.Errorf("%s outcomes (-whole +cut):\n%s", name, d)
		}
	}
	if d := cmp.Diff(whole.Throttles, cut.Throttles); d != "" || whole.DeadLettered != cut.DeadLettered {
		t.Errorf("throttles (-whole +cut):\n%s; dead letters %d, %d", d, whole.DeadLettered, cut.DeadLettered)
	}
	violations := func(s *Summary) map[string]int64 {
		out := map[string]int64{}
		for _, v := range s.Invariants {
			out[v.Name] = v.Violations
		}
		return out
	}
	if d := cmp.Diff(violations(whole), violations(cut)); d != "" {
		t.Errorf("violations (-whole +cut):\n%s", d)
	}
	if violations(whole)["no-contact-after-payment"] == 0 {
		t.Error("the whole run shows no contact after payment: the comparison proves little")
	}
}
