package loadgen

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// judge decides a scenario's expectations on a run's summary. An
// expectation in words only is reported, not decided; one whose guard
// does not match the model's design (if: an index sharded or not) is
// reported as not applying.
func judge(xs []catalog.Expectation, s *Summary, h *heat) []ExpectResult {
	var out []ExpectResult
	for _, x := range xs {
		er := ExpectResult{Text: x.Text, Applies: x.If.Applies(), OK: true}
		if !er.Applies || len(x.Checks) == 0 {
			out = append(out, er)
			continue
		}
		er.Checked = true
		for _, c := range x.Checks {
			cr := measure(c, s, h)
			er.OK = er.OK && cr.OK
			er.Checks = append(er.Checks, cr)
		}
		out = append(out, er)
	}
	return out
}

// measure reads one check's metric off the summary.
func measure(c catalog.Check, s *Summary, h *heat) CheckResult {
	cr := CheckResult{Max: c.Max, Min: c.Min}
	if c.Invariant != "" {
		cr.What = "invariant " + c.Invariant
		for _, r := range s.Invariants {
			if r.Name == c.Invariant {
				v := float64(r.Violations)
				cr.Value = &v
				cr.OK = r.Violations == 0 && !r.Pending
				if r.Pending {
					cr.Note = "completed by load merge"
				}
				return cr
			}
		}
		cr.Note = "not checked"
		return cr
	}
	loads := map[string]*LoadStats{}
	for name, ls := range s.Operations {
		if c.Load == "" || name == c.Load {
			loads[name] = ls
		}
	}
	scope := c.Load
	if scope == "" {
		scope = "every load"
	}
	cr.What = c.Metric + " of " + scope
	var v float64
	have := true
	sum := func(f func(*LoadStats) float64) {
		for _, l := range loads {
			v += f(l)
		}
	}
	lat := func(f func(Latency) float64) {
		for _, l := range loads {
			v = max(v, f(l.LatencyMs))
		}
	}
	resource := func() (string, string) {
		if c.Index != nil {
			return c.Index.Table.Name, c.Index.Name
		}
		if c.Table != nil {
			return c.Table.Name, ""
		}
		return "", ""
	}
	switch c.Metric {
	case catalog.MetricOffered:
		sum(func(l *LoadStats) float64 { return float64(l.Offered) })
	case catalog.MetricAttempted:
		sum(func(l *LoadStats) float64 { return float64(l.Attempted) })
	case catalog.MetricCompleted:
		sum(func(l *LoadStats) float64 { return float64(l.Completed) })
	case catalog.MetricLate:
		sum(func(l *LoadStats) float64 { return float64(l.Late) })
	case catalog.MetricOutcome:
		cr.What = fmt.Sprintf("outcome %s of %s", c.Outcome, scope)
		sum(func(l *LoadStats) float64 { return float64(l.Outcomes[c.Outcome]) })
	case catalog.MetricThrottled:
		if c.Reason != "" {
			cr.What = fmt.Sprintf("throttled (%s) of %s", c.Reason, scope)
			sum(func(l *LoadStats) float64 { return float64(l.Throttles[c.Reason]) })
		} else {
			sum(func(l *LoadStats) float64 { return float64(l.Outcomes["throttled"]) })
		}
	case catalog.MetricDeadLettered:
		sum(func(l *LoadStats) float64 { return float64(l.DeadLettered) })
	case catalog.MetricReplayed:
		sum(func(l *LoadStats) float64 { return float64(l.Replayed) })
	case catalog.MetricRequests:
		if c.Kind != "" {
			cr.What = fmt.Sprintf("%s requests of %s", c.Kind, scope)
		}
		sum(func(l *LoadStats) float64 {
			if c.Kind != "" {
				return float64(l.Requests[c.Kind])
			}
			n := int64(0)
			for _, x := range l.Requests {
				n += x
			}
			return float64(n)
		})
	case catalog.MetricLatencyP50:
		lat(func(l Latency) float64 { return l.P50 })
	case catalog.MetricLatencyP99:
		lat(func(l Latency) float64 { return l.P99 })
	case catalog.MetricLatencyMax:
		lat(func(l Latency) float64 { return l.Max })
	case catalog.MetricReadUnits, catalog.MetricWriteUnits, catalog.MetricIndexReadUnits:
		t, x := resource()
		if x != "" {
			t = x
		}
		if t != "" {
			cr.What = fmt.Sprintf("%s on %s of %s", c.Metric, t, scope)
		}
		sum(func(l *LoadStats) float64 {
			total := 0.0
			for name, u := range l.Units {
				switch {
				case c.Metric == catalog.MetricIndexReadUnits:
					if u.Index && (t == "" || name == t) {
						total += u.Read
					}
				case t != "" && name != t:
				case c.Metric == catalog.MetricReadUnits:
					total += u.Read
				default:
					total += u.Write
				}
			}
			return total
		})
	case catalog.MetricPartitionWrite, catalog.MetricPartitionRead:
		t, x := resource()
		name := t
		if x != "" {
			name = x
		}
		var window int
		v, window, have = h.maxDemand(t, x, c.Metric == catalog.MetricPartitionWrite)
		cr.What = fmt.Sprintf("%s of the hottest %s partition (units a second asked for, at full scale, sustained over %d s of the run's clock)", strings.TrimSuffix(strings.TrimPrefix(c.Metric, "partition"), "Units"), name, window)
		if !have {
			cr.Note = noPartitionFigures(s)
		} else if f := s.Crowded[t]; f > 1 {
			cr.Note = fmt.Sprintf("up to %.4gx above full scale: subjects drawn at random from a population smaller than the run's scale", f)
		}
	}
	if !have {
		return cr
	}
	cr.Value = &v
	cr.OK = (c.Max == nil || v <= *c.Max+1e-9) && (c.Min == nil || v >= *c.Min-1e-9)
	return cr
}

// noPartitionFigures says why a run has no partition figures and what
// gives them. The embedded engine measures partitions only with its
// throughput model, which is off unless asked for: it changes what the
// run measures (throttling, GSI back-pressure) and bounds --scale, so a
// scenario's partition expectation does not turn it on behind the user's
// back; the note says to.
func noPartitionFigures(s *Summary) string {
	if s.Target == endpoint.EmbeddedName && s.Throughput == "" {
		return "no partition figures: the embedded engine measures partitions with its throughput model, which is off; run again with --throughput"
	}
	return "no partition figures: only cardapio's engine with its throughput model measures partitions (load --throughput on the embedded engine, or cardapio serve --throughput)"
}
