package loadgen

import (
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// Against a server the runner's estimate is its index of the subjects,
// a few bytes for every run of trees: at 1/10 of the reference's
// population it stays under a few megabytes, far below what holding the
// subjects' items took (kilobytes an item), and the embedded engine's
// share is counted only in process.
func TestFootprintIsTheIndex(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, loads, _, err := pickScenario(m, Options{Scenario: "payday"})
	if err != nil {
		t.Fatal(err)
	}
	var prev Footprint
	for _, scale := range []float64{0.001, 0.01, 0.1} {
		pop, err := dataset.New(m, dataset.Options{Scale: scale, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := footprint(pop, loads, 1, false)
		if f.Engine != 0 || f.Runner <= 0 || f.Runner > 16<<20 {
			t.Errorf("scale %g against a server: engine %v B, runner %v B; want no engine, an index under 16 MiB", scale, f.Engine, f.Runner)
		}
		if f.Runner > 0 && f.Runner/f.Subject > chunkBytes {
			t.Errorf("scale %g: %v B a subject", scale, f.Runner/f.Subject)
		}
		if in := footprint(pop, loads, 1, true); in.Engine <= 0 || in.Total <= f.Total {
			t.Errorf("scale %g in process: %+v; want the engine counted", scale, in)
		}
		if prev.Runner > 0 && f.Runner < prev.Runner {
			t.Errorf("scale %g: the index shrank with the population", scale)
		}
		prev = f
	}
}
