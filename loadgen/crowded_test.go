package loadgen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// A population smaller than the run's scale makes each subject of a
// random pick carry scale/population times its full-scale share of the
// arrivals: the run says so, and marks the hot partitions of the tables
// those loads touch. A pick of each subject once is not crowded.
func TestCrowdedSubjects(t *testing.T) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for pick, want := range map[string]float64{"random": 10, "each": 0} {
		path := filepath.Join(t.TempDir(), "s.yaml")
		text := `scenarios:
  lookups:
    description: random lookups
    at: "10:00"
    load:
      - operation: FindByExternalId
        rate: {count: 10000, per: second}
        window: 20s
        subjects: {entity: EXTERNAL_REF, pick: ` + pick + `}
`
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := catalog.LoadScenarioFile(m, path)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Run(context.Background(), m, Options{Scenario: "lookups", File: f, Scale: 0.001, Population: 0.0001, Throughput: true,
			Seed: 1, Target: endpoint.Options{Retry: endpoint.NoRetry}, Log: testLog{t}})
		if err != nil {
			t.Fatal(err)
		}
		if got := sum.Crowded["orders"]; got != want {
			t.Errorf("%s: crowded %v, want %v (%v)", pick, got, want, sum.Crowded)
		}
		said := false
		for _, n := range sum.Notes {
			said = said || strings.Contains(n, "up to 10x hotter than full scale")
		}
		if said != (want > 0) {
			t.Errorf("%s: the notes say crowded %v: %q", pick, said, sum.Notes)
		}
		if len(sum.Partitions) == 0 {
			t.Fatalf("%s: no hot partitions", pick)
		}
		for _, p := range sum.Partitions {
			if p.Table == "orders" && p.Crowded != want {
				t.Errorf("%s: partition %+v not marked %v", pick, p, want)
			}
		}
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
