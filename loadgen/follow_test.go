package loadgen

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// TestFollowUpSubjects: a follow-up that draws subjects of its own
// besides its cause pairs each arrival with an item that meets its
// condition. Each checkout of the orders example is followed by a
// payment; paid by a payment id spread over the population, most
// confirmations meet an order that is no longer waiting for one, and
// the payment is not applied; drawing an order still PLACED, each once,
// every confirmation applies.
func TestFollowUpSubjects(t *testing.T) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const checkout = `
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
	scenarios := map[string]string{
		"spread": checkout + `        params:
          paymentId: {spread: paymentId}
`,
		"paired": checkout + `        subjects: {entity: ORDER, where: {status: PLACED}, pick: each}
        params:
          paymentId: {copy: ORDER.paymentId}
          expected: {copy: ORDER.version}
`,
	}
	applied := map[string]float64{}
	for name, loads := range scenarios {
		path := filepath.Join(t.TempDir(), "s.yaml")
		text := "scenarios:\n  " + name + ":\n    description: checkouts and their payments\n    at: \"10:00\"\n    load:" + loads
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := catalog.LoadScenarioFile(m, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum, err := Run(context.Background(), m, Options{Scenario: name, File: f, Scale: 0.001, Population: 0.001,
			Seed: 1, Target: endpoint.Options{Retry: endpoint.NoRetry}, Log: testLog{t}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pay := sum.Operations["PaymentConfirmed"]
		if pay == nil || pay.Completed == 0 {
			t.Fatalf("%s: no payment completed: %+v", name, sum.Operations)
		}
		applied[name] = float64(pay.Outcomes["applied"]) / float64(pay.Completed)
		t.Logf("%s: %d payments completed, outcomes %v", name, pay.Completed, pay.Outcomes)
	}
	if applied["paired"] < 0.99 {
		t.Errorf("paired with a PLACED order, %.1f%% of the payments applied; want all", 100*applied["paired"])
	}
	if applied["spread"] > 0.5 {
		t.Errorf("spread over the population, %.1f%% of the payments applied; the comparison shows nothing", 100*applied["spread"])
	}
}
