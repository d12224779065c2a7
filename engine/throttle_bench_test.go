package engine

import (
	"testing"

	"github.com/cardapio/cardapio/throughput"
)

// BenchmarkPutItemInProcessThroughput is BenchmarkPutItemInProcess with
// every put admitted by the throughput model (on the wall clock), so
// that the cost of admission shows beside the plain put. The scale is
// large enough that nothing is throttled: refused puts would be cheaper
// and flatter the figure.
func BenchmarkPutItemInProcessThroughput(b *testing.B) {
	m, err := throughput.New(throughput.Config{Scale: 1000})
	if err != nil {
		b.Fatal(err)
	}
	e := New(Options{Throughput: m})
	putInProcess(b, e)
	s, _ := e.Throughput()
	if th := s.Table("Bench").Resource("").Totals.WriteThrottled; th > 0 {
		b.Fatalf("%v units throttled", th)
	}
}
