package engine

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/engine/throughput"
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
	benchTable(b, e, "Bench")
	ctx := context.Background()
	items := make([]attr.Item, 4096)
	for i := range items {
		items[i] = item300(fmt.Sprintf("user#%08d", i), i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it := items[i%len(items)].With("pk", attr.Str("user#"+strconv.Itoa(i)))
		if _, err := e.PutItem(ctx, &PutItemInput{TableName: "Bench", Item: it}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	s, _ := e.Throughput()
	if th := s.Table("Bench").Resource("").Totals.WriteThrottled; th > 0 {
		b.Fatalf("%v units throttled", th)
	}
}
