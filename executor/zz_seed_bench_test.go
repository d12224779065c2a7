package executor_test

import (
	"context"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
)

func BenchmarkZZSeedWeek(b *testing.B) {
	m := load(b, "../model.yaml")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		x, done := fresh(b, m, catalog.KeysNative)
		b.StartTimer()
		if _, err := x.Seed(context.Background(), executor.Input{Operation: "PromisesThisWeek", Variant: "week"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		done()
		b.StartTimer()
	}
}
