package budget

import (
	"context"
	"testing"

	"github.com/cardapio/cardapio/catalog"
)

// BenchmarkGate runs the gate on the reference model against the embedded
// engine: every operation and variant, as cardapio budget does.
func BenchmarkGate(b *testing.B) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := Run(context.Background(), m, "model.yaml", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			b.Fatal("gate failed")
		}
	}
}
