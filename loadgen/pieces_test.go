package loadgen

import (
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// The pieces of a run cut in n parts cover every root's trees once, in
// population order, each piece within the trees of the part it names
// (part i: trees [total*i/n, total*(i+1)/n)), whatever n is, a million
// parts included (only the parts a block meets are visited).
func TestPiecesCoverThePopulation(t *testing.T) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pop, err := dataset.New(m, dataset.Options{Scale: 0.001, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 7, 1000, 1_000_000} {
		ps, owner := pieces(pop, n)
		next := map[*dataset.Node]int64{}
		parts := 0
		for j, p := range ps {
			total := p.Root.Total
			i := int64(owner[j])
			if p.Lo != next[p.Root] || p.Lo >= p.Hi {
				t.Fatalf("n=%d: piece %d of %s is [%d, %d), want it to start at %d", n, j, p.Root.Name(), p.Lo, p.Hi, next[p.Root])
			}
			if p.Lo < total*i/int64(n) || p.Hi > total*(i+1)/int64(n) {
				t.Fatalf("n=%d: piece [%d, %d) of %s is not within part %d's trees", n, p.Lo, p.Hi, p.Root.Name(), i)
			}
			next[p.Root] = p.Hi
		}
		for _, r := range pop.Roots {
			if next[r] != r.Total {
				t.Errorf("n=%d: the pieces of %s end at %d of %d trees", n, r.Name(), next[r], r.Total)
			}
		}
		for i := range min(n, 5) {
			bs, err := partBlocks(pop, i, n)
			if err != nil {
				t.Fatal(err)
			}
			parts += len(bs)
		}
		if n == 1 && (parts != len(pop.Blocks()) || len(ps) != parts) {
			t.Errorf("one part: %d pieces, %d blocks", len(ps), len(pop.Blocks()))
		}
	}
}
