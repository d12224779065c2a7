package diff

import (
	"testing"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

func loadBench(b *testing.B, path string) *catalog.Model {
	b.Helper()
	m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkCompare is diff without --rehearse on the reference model and
// its committed HEAD: what bench/diff.sh times with process start.
func BenchmarkCompare(b *testing.B) {
	base, head := loadBench(b, "../model.yaml"), loadBench(b, "../examples/diff/lastro.yaml")
	b.ResetTimer()
	for range b.N {
		if _, err := Compare(base, head, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
