package estimate_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports"
)

// FuzzEstimate: any model the catalog accepts is estimated and priced
// without a panic, with finite, non-negative figures, under any price file
// capacity accepts. Run it with -fuzzminimizetime 0s (inputs are whole
// models).
func FuzzEstimate(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	more, _ := filepath.Glob("../../examples/*.yaml")
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data, []byte("writePerMillion: 1.25\n"))
		}
	}
	f.Add([]byte("formatVersion: 1\nname: x\n"), []byte("{}"))
	f.Fuzz(func(t *testing.T, model, prices []byte) {
		m, err := catalog.Parse("fuzz.yaml", model)
		if err != nil {
			return
		}
		p, err := capacity.LoadPrices("prices.yaml", prices)
		if err != nil {
			return
		}
		e := estimate.New(m, capacity.Default())
		vs, err := e.Operations()
		if err != nil {
			return // a sample missing from an index, an unknown size: reported, not a panic
		}
		for _, v := range vs {
			if bad(v.WRU) || bad(v.RRU) {
				t.Fatalf("%s/%s: %v WRU %v RRU", v.Operation, v.Name, v.WRU, v.RRU)
			}
		}
		pk, err := e.Peaks()
		if err != nil {
			return
		}
		for _, s := range pk.Structures {
			for _, l := range []*estimate.PeakLoad{s.Write, s.Read} {
				if l != nil && (math.IsNaN(l.Units) || l.Units < 0 || l.Fit < 0) {
					t.Fatalf("%s: %v units, fit %d", s.Name(), l.Units, l.Fit)
				}
			}
		}
		for _, f := range pk.Failures() {
			_ = f.String()
		}
		b, err := e.Month(estimate.Options{Prices: estimate.Overlay(estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing), p), Utilisation: 0.7})
		if err != nil {
			return
		}
		if math.IsNaN(b.TotalUSD) || b.TotalUSD < 0 {
			t.Fatalf("total %v", b.TotalUSD)
		}
		var w bytes.Buffer
		reports.CostText(&w, b) // the renderers take any bill the estimate makes
		reports.CostCompare(&w, b, b)
	})
}

func bad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) || f < 0 }

func BenchmarkReferenceOperations(b *testing.B) {
	m, err := catalog.Load("../../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	e := estimate.New(m, capacity.Default())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Operations(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReferenceMonth(b *testing.B) {
	m, err := catalog.Load("../../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	e := estimate.New(m, capacity.Default())
	o := estimate.Options{Prices: estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing), Utilisation: 0.7}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Month(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReferencePeaks(b *testing.B) {
	m, err := catalog.Load("../../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	e := estimate.New(m, capacity.Default())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Peaks(); err != nil {
			b.Fatal(err)
		}
	}
}
