package workshop

import (
	"context"
	"os"
	"testing"
)

// BenchmarkRecheck is what a save costs the server before the page sees
// its verdict: the model loaded and judged (Check) and the verdict's
// sections rendered for the push.
func BenchmarkRecheck(b *testing.B) {
	for _, model := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		data, err := os.ReadFile(model)
		if err != nil {
			b.Fatal(err)
		}
		s := &Server{token: "t"}
		b.Run(model, func(b *testing.B) {
			for b.Loop() {
				snap := Check(load, model, data)
				snap.Gen = 2
				if _, err := s.render(snap, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkComplete is what follows: the month priced and the population
// drawn, loaded into the engine and read back, and their sections
// rendered.
func BenchmarkComplete(b *testing.B) {
	for _, model := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		data, err := os.ReadFile(model)
		if err != nil {
			b.Fatal(err)
		}
		s := &Server{token: "t"}
		snap := Check(load, model, data)
		snap.Gen = 2
		b.Run(model, func(b *testing.B) {
			for b.Loop() {
				full := snap.Complete(context.Background(), WorldOptions{})
				if _, err := s.render(full, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
