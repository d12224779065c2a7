package planner

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/loadgen"
)

// The planner against the engine: the same scaled scenario run both ways.
// The engine's way is the load generator's run in process: the embedded
// engine with its throughput model at 1/100 of AWS's rates and partition
// limits, the population of 1/2500 stored in it, each arrival a real
// operation through the executor at its instant of the scenario's clock
// (which moves only once the arrivals due are answered, so the outcome does
// not depend on the machine's speed), one attempt per request. The
// planner's way is Plan at the same scale, the population sampled and
// never stored. The scenarios are 15 seconds of each example's peak,
// short enough for the small population to hold a subject for every
// arrival: the reference's 00h07 reschedules of the largest tenant at 20
// a second with partial payments at 3 (testdata/agree-peak.yaml), with
// GSI1's 16 shards and without them; the orders example's campaign
// checkouts at 15 a second (testdata/agree-queue.yaml), with opsQueue's
// 10 shards and without them.
//
// What must agree, and how closely:
//
//   - the verdict: nothing throttled with the shards; throttling without,
//     under the same reasons, by load (a cancelled transaction carries no
//     reasons, as on AWS: the load generator names it throttled by a
//     global secondary index, the planner's Index* reasons for that load);
//   - the units each index consumed, within 15%: the planner charges the
//     capacity rules' static estimate of each variant, the engine what
//     each item's bytes cost (measured: GSI1 646 against 581 with the
//     shards, 262 against 299 without; opsQueue 160 against 159);
//   - the partition that refuses first, the index's hottest (the largest
//     tenant's key of tomorrow; PENDING), the engine's most throttled
//     partition of the index holding the same key, and its throttled
//     units within 25% (301 against 255; 65 against 66);
//   - the throttled requests per reason and load, within 50%: a saturated
//     partition serves the same units either way, but the engine decides
//     request by request and a request needing one unit there passes
//     where one needing two (an entry that moves within the partition)
//     does not, so it passes more requests for the same units, while the
//     planner's second-at-a-time admission shares the partition among
//     requests in proportion to their units. Measured: reschedules 186
//     (planner) against 130 to 132 (engine), settlements 19 against 16 to
//     17; checkouts, all one size, 65 against 66.
func TestPlannerAgreesWithEngine(t *testing.T) {
	const scale = 0.01
	for _, c := range []struct {
		name, model, file, scenario string
		// index is the one that throttles without its shards.
		index     string
		throttles bool
	}{
		{"reference", "../model.yaml", "testdata/agree-peak.yaml", "agree-peak", "GSI1", false},
		{"reference-unsharded", "../examples/unsharded-gsi1.yaml", "testdata/agree-peak.yaml", "agree-peak", "GSI1", true},
		{"orders", "../examples/orders/model.yaml", "testdata/agree-queue.yaml", "agree-queue", "opsQueue", false},
		{"orders-unsharded", "../internal/cli/testdata/check/unsharded-opsqueue.yaml", "testdata/agree-queue.yaml", "agree-queue", "opsQueue", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := catalog.Load(c.model)
			if err != nil {
				t.Fatal(err)
			}
			f, err := catalog.LoadScenarioFile(m, c.file)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := loadgen.Run(context.Background(), m, loadgen.Options{Scenario: c.scenario, File: f, Scale: scale, Population: 0.0004,
				Throughput: true, Seed: 3, Target: endpoint.Options{Retry: endpoint.NoRetry}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Plan(m, Options{Scenario: c.scenario, Scenarios: f.Scenarios, Scale: scale})
			if err != nil {
				t.Fatal(err)
			}

			// Requests, by load and reason.
			total := 0.0
			for _, l := range res.Loads {
				op := sum.Operations[l.Name]
				if op == nil || op.Offered != int64(l.Runs) {
					t.Fatalf("%s: the engine's run offered %+v, the plan %v runs", l.Name, op, l.Runs)
				}
				engine := map[string]float64{}
				for r, n := range op.Throttles {
					engine[r] = float64(n)
				}
				planned := map[string]float64{}
				for r, n := range l.Reasons {
					if transaction(m, l.Operation) {
						r = map[bool]string{true: loadgen.TxnIndexThrottled, false: loadgen.TxnTableThrottled}[strings.HasPrefix(r, "Index")]
					}
					planned[r] += n
				}
				for r := range union(planned, engine) {
					p, e := planned[r], engine[r]
					total += p
					t.Logf("%s %s: planner %.0f, engine %.0f throttled of %.0f", l.Name, r, p, e, l.Runs)
					if !near(p, e, 0.5, 5) {
						t.Errorf("%s %s: the planner throttles %.0f requests, the engine %.0f", l.Name, r, p, e)
					}
				}
			}
			if c.throttles != (total > 0) || c.throttles != (len(sum.Throttles) > 0) {
				t.Fatalf("throttled: the planner %.0f requests, the engine %v; want throttling %v", total, sum.Throttles, c.throttles)
			}

			// Units by index.
			for _, r := range res.Resources {
				if r.Index == "" {
					continue
				}
				e := sum.Units[r.Index]
				t.Logf("%s: consumed write units, planner %.1f, engine %.1f; throttled, planner %.1f", r.Index, r.Consumed.Write, e.Write, r.Throttled.Write)
				if !near(r.Consumed.Write, e.Write, 0.15, 2) {
					t.Errorf("%s consumed %.1f write units in the plan, %.1f in the engine", r.Index, r.Consumed.Write, e.Write)
				}
			}
			if !c.throttles {
				return
			}

			// The partition that refused: the plan names it first, its
			// hottest partition of the index; the engine's most throttled
			// partition of the index holds the same key.
			if len(res.First) == 0 || res.First[0].Index != c.index {
				t.Fatalf("the plan's first refusal: %+v; want one of %s", res.First, c.index)
			}
			gsi := resourceNamed(res, c.index)
			top := gsi.Hottest[0]
			if hexRange := top.Lo + "-" + top.Hi; hexRange != res.First[0].Partition {
				t.Errorf("the hottest %s partition is %s, the first to refuse %s", c.index, hexRange, res.First[0].Partition)
			}
			var etop *loadgen.HotPartition
			for i, h := range sum.Partitions {
				if h.Index == c.index && (etop == nil || h.WriteThrottled > etop.WriteThrottled) {
					etop = &sum.Partitions[i]
				}
			}
			if etop == nil || len(etop.Keys) == 0 {
				t.Fatalf("the engine names no throttled key of %s: %+v", c.index, sum.Partitions)
			}
			t.Logf("hottest %s partition: planner %s-%s %v throttled %.1f; engine %v throttled %.1f", c.index, top.Lo, top.Hi, top.Keys, top.Throttled.Write, etop.Keys, etop.WriteThrottled*scale)
			if !slices.ContainsFunc(top.Keys, func(k string) bool { return strings.Contains(k, etop.Keys[0]) }) {
				t.Errorf("the hottest %s partition: the planner's holds %v, the engine's %v", c.index, top.Keys, etop.Keys)
			}
			if !near(top.Throttled.Write, etop.WriteThrottled*scale, 0.25, 2) {
				t.Errorf("the hottest %s partition throttled %.1f units in the plan, %.1f in the engine", c.index, top.Throttled.Write, etop.WriteThrottled*scale)
			}
		})
	}
}

// near reports whether a and b are within rel of the larger, or abs.
func near(a, b, rel, abs float64) bool {
	return math.Abs(a-b) <= max(rel*max(a, b), abs)
}

func union(a, b map[string]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func transaction(m *catalog.Model, name string) bool {
	op := m.Operation(name)
	for _, s := range op.Steps {
		if s.Kind == catalog.Transaction {
			return true
		}
	}
	return false
}

func resourceNamed(r *Result, index string) *Resource {
	for i := range r.Resources {
		if r.Resources[i].Index == index {
			return &r.Resources[i]
		}
	}
	return nil
}
