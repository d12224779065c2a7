package engine

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// benchTable creates a table keyed on pk (S) and sk (N).
func benchTable(b testing.TB, e *Engine, name string) {
	_, err := e.CreateTable(context.Background(), &CreateTableInput{
		TableName:            name,
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode:          "PAY_PER_REQUEST",
	})
	require.NoError(b, err)
}

// item300 builds an item of about 300 bytes (by DynamoDB's sizing).
func item300(pk string, sk int) attr.Item {
	return attr.Sorted([]attr.Field{
		{Name: "pk", Value: attr.Str(pk)},
		{Name: "sk", Value: attr.Num(strconv.Itoa(sk))},
		{Name: "name", Value: attr.Str("Maria da Silva")},
		{Name: "email", Value: attr.Str("maria.silva@example.com")},
		{Name: "balance", Value: attr.Num("1234.56")},
		{Name: "active", Value: attr.Bool(true)},
		{Name: "note", Value: attr.Str(strings.Repeat("n", 213))},
	})
}

// BenchmarkPutItemInProcess puts 300-byte items without HTTP.
func BenchmarkPutItemInProcess(b *testing.B) {
	e := New(Options{})
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
}

// BenchmarkQuery50 queries a 50-item partition over HTTP with the SDK,
// one client, and reports the median latency.
func BenchmarkQuery50(b *testing.B) {
	c, e := startServer(b)
	benchTable(b, e, "Bench")
	for i := 0; i < 50; i++ {
		_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Bench", Item: item300("hot", i)})
		require.NoError(b, err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out, err := c.Query(context.Background(), sdkQuery50())
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if len(out.Items) != 50 {
			b.Fatalf("%d items", len(out.Items))
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkMemory1M stores one million 300-byte items and reports the heap
// they take per item, against their raw size. It takes a while: run it on
// its own with -bench Memory1M -benchtime 1x.
func BenchmarkMemory1M(b *testing.B) {
	const count = 1_000_000
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		e := New(Options{})
		benchTable(b, e, "Mem")
		raw := 0
		for j := 0; j < count; j++ {
			it := item300(fmt.Sprintf("user#%08d", j/10), j%10)
			raw += e.rules.ItemSize(it)
			if _, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Mem", Item: it}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc - before.HeapAlloc)
		b.ReportMetric(heap/count, "heap-B/item")
		b.ReportMetric(float64(raw)/count, "raw-B/item")
		b.ReportMetric(heap/float64(raw), "heap/raw")
		runtime.KeepAlive(e)
	}
}
