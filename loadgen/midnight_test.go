package loadgen

import (
	"bytes"
	"context"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// runMidnight replays the peak minute of the reference model's
// midnight-0007 (examples/midnight-peak.yaml), then the 08:00 run and the
// 09:30 replay of the dead-letter ledger, on the embedded engine with its
// throughput model: the rates and partition limits of 1/100, on a
// population of 1/2500 (the reschedules, each contract once, end when
// they run out, at their rate). The clock moves only once
// the arrivals due at an instant are done and every request is sent once,
// so the engine sees every arrival at its instant of the scenario
// whatever the machine's speed: the outcomes do not depend on timing.
func runMidnight(t *testing.T, path string) (*Summary, []Second) {
	t.Helper()
	m, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, "../examples/midnight-peak.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var results bytes.Buffer
	sum, err := Run(context.Background(), m, Options{Scenario: "midnight-peak", File: f, Scale: 0.01, Population: 0.0004, Speed: 0, Throughput: true,
		Seed: 3, Target: endpoint.Options{Retry: endpoint.NoRetry}, Results: &results})
	if err != nil {
		t.Fatal(err)
	}
	return sum, readSeconds(t, results.Bytes())
}

func invariant(s *Summary, name string) InvariantResult {
	for _, v := range s.Invariants {
		if v.Name == name {
			return v
		}
	}
	return InvariantResult{Name: name, Violations: -1}
}

// TestMidnightSharded: with GSI1's 16 shards the night's reschedules
// spread over sixteen partitions; no settlement is throttled or
// dead-lettered and every invariant holds.
func TestMidnightSharded(t *testing.T) {
	s, secs := runMidnight(t, "../model.yaml")
	if checkSecondUnits(t, s, secs, true) == 0 {
		t.Error("the summary has no units")
	}
	if rt, wt := throttledUnits(secs, "GSI1"); rt != 0 || wt != 0 {
		t.Errorf("GSI1 throttled %v read and %v write units in the results' seconds; want none", rt, wt)
	}
	st := s.Operations["ApplySettlement"]
	if st == nil || st.Completed == 0 || s.Operations["RescheduleNextAction"].Completed == 0 {
		t.Fatalf("no settlements or reschedules ran: %+v", s.Operations)
	}
	if n := st.Outcomes["throttled"]; n != 0 || st.DeadLettered != 0 {
		t.Errorf("settlements throttled %d, dead-lettered %d; want none (%v)", n, st.DeadLettered, st.Throttles)
	}
	for _, v := range s.Invariants {
		if v.Violations != 0 {
			t.Errorf("%s: %d violations %+v", v.Name, v.Violations, v.Details)
		}
	}
	if !s.OK {
		t.Errorf("the run failed: %+v", s.Expectations)
	}
}

// TestMidnightUnsharded: without the shard every reschedule of the largest
// tenant enters tomorrow's one GSI1 partition; the index's back-pressure
// throttles base-table writes (IndexWriteKeyRangeThroughputExceeded),
// settlements (transactions: their cancellation says a global secondary
// index) go to the dead-letter ledger, the 08:00 run contacts a
// debtor who paid, and the invariants say so.
func TestMidnightUnsharded(t *testing.T) {
	s, secs := runMidnight(t, "../examples/unsharded-gsi1.yaml")
	if checkSecondUnits(t, s, secs, true) == 0 {
		t.Error("the summary has no units")
	}
	if _, wt := throttledUnits(secs, "GSI1"); wt == 0 {
		t.Error("GSI1 throttled no write units in the results' seconds")
	}
	if s.Throttles["IndexWriteKeyRangeThroughputExceeded"] == 0 {
		t.Fatalf("no GSI back-pressure: throttles %v", s.Throttles)
	}
	st := s.Operations["ApplySettlement"]
	if st.Throttles[TxnIndexThrottled] == 0 || st.DeadLettered == 0 {
		t.Errorf("settlements throttled by the index %v, dead-lettered %d; want some", st.Throttles, st.DeadLettered)
	}
	if v := invariant(s, "no-contact-after-payment"); v.Violations < 1 {
		t.Errorf("no-contact-after-payment: %d violations, want the 08:00 contact of a debtor who paid", v.Violations)
	}
	if s.OK {
		t.Error("the incident's run passed")
	}
}
