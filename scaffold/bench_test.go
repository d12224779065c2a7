package scaffold

import (
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
)

func BenchmarkLargest(b *testing.B) {
	row := "| | " + strings.Repeat("q", 900) + " | a, b | 120/s |\n"
	data := []byte("| ID | Question | Asked by | Rate |\n|---|---|---|---|\n" + strings.Repeat(row, MaxRows))
	for b.Loop() {
		tb, err := Parse("q.md", data)
		if err != nil {
			b.Fatal(err)
		}
		d, err := FromTable("m", tb)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = catalog.Parse("m.yaml", d.YAML())
	}
}
