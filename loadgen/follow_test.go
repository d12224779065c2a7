package loadgen

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// followRun runs scenario name of the scenario file text on the embedded
// engine and returns the summary of operation op.
func followRun(t *testing.T, m *catalog.Model, name, text, op string, scale float64) *LoadStats {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sum, err := Run(context.Background(), m, Options{Scenario: name, File: f, Scale: scale, Population: scale,
		Seed: 1, Target: endpoint.Options{Retry: endpoint.NoRetry}, Log: testLog{t}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	st := sum.Operations[op]
	if st == nil || st.Completed == 0 {
		t.Fatalf("%s: no %s completed: %+v", name, op, sum.Operations)
	}
	t.Logf("%s: %d %s completed, outcomes %v", name, st.Completed, op, st.Outcomes)
	return st
}

func applied(st *LoadStats) float64 { return float64(st.Outcomes["applied"]) / float64(st.Completed) }

// TestFollowUpSubjects: a follow-up that draws subjects of its own
// besides its cause pairs each arrival with an item that meets its
// condition. In the ride-hailing model (an independent model of the
// commands' tests) each new ride is offered to a driver: drawn from
// every driver, about half the offers meet a driver who is busy or
// offline and fail; drawn from the AVAILABLE drivers, each once (the
// model's own scenario), every offer is taken. In the orders example
// each checkout is followed by a payment: by a payment id spread over
// the population none applies, paired with an order still PLACED every
// one does.
func TestFollowUpSubjects(t *testing.T) {
	rides, err := catalog.Load("../internal/cli/testdata/models/ridehail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const rush = `scenarios:
  rush:
    description: riders request rides, and each new ride is offered to a driver
    at: "18:00"
    load:
      - operation: RequestRide
        rate: {count: 50, per: second}
        window: 20s
        params:
          rideId: {unique: true}
          requestedAt: {clock: true}
      - operation: OfferRide
        follows: {load: RequestRide, after: 2s, outcome: applied}
`
	const offer = `          driverId: {copy: DRIVER.driverId}
          rideId: {copy: cause.rideId}
`
	spread := followRun(t, rides, "rush", rush+"        params:\n          driverId: {spread: driverId}\n          rideId: {copy: cause.rideId}\n", "OfferRide", 0.2)
	paired := followRun(t, rides, "rush", rush+"        subjects: {entity: DRIVER, where: {driverStatus: AVAILABLE}, pick: each}\n        params:\n"+offer, "OfferRide", 0.2)
	if failed := 1 - applied(spread); failed < 0.3 {
		t.Errorf("offered to any driver, %.1f%% of the offers failed; half the drivers are not available", 100*failed)
	}
	if failed := 1 - applied(paired); failed != 0 {
		t.Errorf("offered to AVAILABLE drivers each once, %.1f%% of the offers failed; want none", 100*failed)
	}

	orders, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const checkout = `scenarios:
  pay:
    description: checkouts and their payments
    at: "10:00"
    load:
      - operation: CreateOrder
        rate: {count: 10000, per: second}
        window: 20s
        subjects: {entity: ORDER, pick: random}
        params:
          orderId: {unique: true}
          paymentId: {unique: true}
          customerId: {copy: ORDER.customerId}
      - operation: PaymentConfirmed
        follows: {load: CreateOrder, after: 1s, outcome: applied}
`
	spread = followRun(t, orders, "pay", checkout+"        params:\n          paymentId: {spread: paymentId}\n", "PaymentConfirmed", 0.001)
	paired = followRun(t, orders, "pay", checkout+`        subjects: {entity: ORDER, where: {status: PLACED}, pick: each}
        params:
          paymentId: {copy: ORDER.paymentId}
          expected: {copy: ORDER.version}
`, "PaymentConfirmed", 0.001)
	if applied(paired) < 0.99 || applied(spread) > 0.5 {
		t.Errorf("payments applied: %.1f%% paired with PLACED orders, %.1f%% spread over the population", 100*applied(paired), 100*applied(spread))
	}
}
