package dataset

import (
	"context"
	"os"
	"testing"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// FuzzGenerate: any model the catalog accepts (seeded with the models of
// the tests, mutated) either gets a plain error from New or generates,
// a few thousand items at most, without panicking or hanging.
func FuzzGenerate(f *testing.F) {
	for _, path := range append(models, "testdata/formats.yaml") {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		m, err := catalog.Parse("fuzz.yaml", doc)
		if err != nil {
			return
		}
		p, err := New(m, Options{Scale: 1, Seed: 1})
		if err != nil {
			return
		}
		e := 0.0
		for _, b := range p.Blocks() {
			e += b.Items
		}
		if e > 2000 {
			if p, err = New(m, Options{Scale: 2000 / e, Seed: 1}); err != nil {
				return
			}
		}
		if len(p.Roots) == 0 {
			return
		}
		_, _ = p.Run(context.Background(), discard{"none"}, RunOptions{Workers: 1, Rules: capacity.Default()})
	})
}
