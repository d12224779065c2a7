package generator_test

import (
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// BenchmarkGenerate generates the reference model's package from its
// resolved model (the model is loaded once).
func BenchmarkGenerate(b *testing.B) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := generator.Generate(m, generator.Options{Package: "lastro"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad loads the reference model, the other half of a
// generation.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := catalog.Load("../model.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
