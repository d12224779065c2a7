package planner

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/loadgen"
	"github.com/cardapio/cardapio/target"
)

// The planner against the engine: the same scaled scenario run both ways.
// The engine's way is the load generator's run in process: the embedded
// engine with its throughput model at 1/100 of AWS's rates and partition
// limits, the population of 1/2500 stored in it, each arrival a real
// operation through the executor at its instant of the scenario's clock
// (which moves only once the arrivals due are answered, so the outcome does
// not depend on the machine's speed), one attempt per request. The
// planner's way is Plan at the same scale, the population sampled and
// never stored. The scenario (testdata/agree-peak.yaml) is the 00h07
// peak for 15 seconds, reschedules of the largest tenant at 20 a second
// and partial payments at 3, so that the small population holds a subject
// for every arrival; with GSI1's 16 shards and without them.
//
// What must agree, and how closely:
//
//   - the verdict: nothing throttled with the shards; throttling without,
//     under the same reasons, by load, on the same index (a cancelled
//     transaction carries no reasons, as on AWS: the load generator names
//     it throttled by a global secondary index, the planner's Index*
//     reasons for that load);
//   - the units each index consumed, within 15%: the planner charges the
//     capacity rules' static estimate of each variant, the engine what
//     each item's bytes cost;
//   - the partition that throttles (the largest tenant's key of tomorrow)
//     and its throttled units, within 25%;
//   - the throttled requests per reason and load, within 50%: a
//     saturated partition serves the same units either way, but the
//     engine decides request by request and a request needing one unit
//     there passes where one needing two (an entry that moves within the
//     partition) does not, so it passes more requests for the same
//     units, while the planner's second-at-a-time fluid shares the
//     partition among requests in proportion to their units. Measured:
//     reschedules 186 (planner) against 132 (engine), settlements 19
//     against 17.
func TestPlannerAgreesWithEngine(t *testing.T) {
	const scale = 0.01
	for _, c := range []struct {
		path      string
		throttles bool
	}{{"../model.yaml", false}, {"../examples/unsharded-gsi1.yaml", true}} {
		t.Run(strings.TrimSuffix(c.path[strings.LastIndex(c.path, "/")+1:], ".yaml"), func(t *testing.T) {
			m, err := catalog.Load(c.path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := catalog.LoadScenarioFile(m, "testdata/agree-peak.yaml")
			if err != nil {
				t.Fatal(err)
			}
			sum, err := loadgen.Run(context.Background(), m, loadgen.Options{Scenario: "agree-peak", File: f, Scale: scale, Population: 0.0004,
				Throughput: true, Seed: 3, Target: target.Options{Retry: target.NoRetry}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Plan(m, Options{Scenario: "agree-peak", Scenarios: f.Scenarios, Scale: scale})
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

			// Units by index, and the throttled resources.
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
			gsi := resourceNamed(res, "GSI1")
			if gsi == nil || len(gsi.Hottest) == 0 {
				t.Fatal("no GSI1 partitions in the plan")
			}
			top := gsi.Hottest[0]
			var etop *loadgen.HotPartition
			for i, h := range sum.Partitions {
				if h.Index == "GSI1" && (etop == nil || h.WriteThrottled > etop.WriteThrottled) {
					etop = &sum.Partitions[i]
				}
			}
			if etop == nil {
				t.Fatal("the engine names no GSI1 partition")
			}
			tomorrow := res.Start.AddDate(0, 0, 1).Format("2006-01-02")
			key := "tenantId = " + sum.Population.Largest["tenantId"] + ", nextActionDate = " + tomorrow
			t.Logf("hottest GSI1 partition: planner %s-%s %v throttled %.1f; engine %v throttled %.1f", top.Lo, top.Hi, top.Keys, top.Throttled.Write, etop.Keys, etop.WriteThrottled*scale)
			if !contains(top.Keys, key) || !contains(etop.Keys, sum.Population.Largest["tenantId"]) {
				t.Errorf("the hottest GSI1 partition: the planner's holds %v, the engine's %v; want %s", top.Keys, etop.Keys, key)
			}
			if !near(top.Throttled.Write, etop.WriteThrottled*scale, 0.25, 2) {
				t.Errorf("the hottest GSI1 partition throttled %.1f units in the plan, %.1f in the engine", top.Throttled.Write, etop.WriteThrottled*scale)
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s || strings.HasPrefix(x, s+",") {
			return true
		}
	}
	return false
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
