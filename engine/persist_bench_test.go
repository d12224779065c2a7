package engine

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// The cost of keeping data (bench/persist.sh runs these alternately and
// prints the ratios): each benchmark has an in-memory variant and one per
// sync mode, on a fresh data directory.

// dataEngines are the variants: in memory, and a data directory per
// sync mode.
var dataEngines = []struct {
	name string
	open func(b *testing.B) *Engine
}{
	{"memory", func(*testing.B) *Engine { return New(Options{}) }},
	{"interval", func(b *testing.B) *Engine { return openBench(b, SyncInterval) }},
	{"always", func(b *testing.B) *Engine { return openBench(b, SyncAlways) }},
}

func openBench(b *testing.B, mode SyncMode) *Engine {
	e, err := Open(Options{}, Data{Dir: b.TempDir(), Sync: mode})
	require.NoError(b, err)
	b.Cleanup(func() { e.Close() })
	return e
}

// selfCPU is the CPU time this process has used, user and system: on a
// shared machine a steadier measure than the wall clock, and it counts
// the flusher's work besides the writer's.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per put since c0.
func reportCPU(b *testing.B, c0 time.Duration, puts int) {
	b.ReportMetric(float64((selfCPU()-c0).Nanoseconds())/float64(puts), "cpu-ns/put")
}

// BenchmarkPutItemData puts 300-byte items in process, one at a time
// (under always each waits for its own fsync).
func BenchmarkPutItemData(b *testing.B) {
	for _, v := range dataEngines {
		b.Run(v.name, func(b *testing.B) {
			e := v.open(b)
			c0 := selfCPU()
			putInProcess(b, e)
			reportCPU(b, c0, b.N)
		})
	}
}

// BenchmarkPutItemData32 puts 300-byte items in process from 32
// goroutines: under always, concurrent writers share each fsync (group
// commit).
func BenchmarkPutItemData32(b *testing.B) {
	for _, v := range dataEngines {
		b.Run(v.name, func(b *testing.B) {
			e := v.open(b)
			benchTable(b, e, "Bench")
			var seq atomic.Int64
			per := b.N/32 + 1
			c0 := selfCPU()
			b.ResetTimer()
			var wg sync.WaitGroup
			for g := 0; g < 32; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < per; i++ {
						n := int(seq.Add(1))
						if _, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Bench", Item: item300("user#"+strconv.Itoa(n), n)}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*32)/b.Elapsed().Seconds(), "puts/s")
			reportCPU(b, c0, per*32)
		})
	}
}

// BenchmarkPutItemDataHTTP32 is BenchmarkPutItemHTTPRaw32 (32 clients
// over loopback) on each variant.
func BenchmarkPutItemDataHTTP32(b *testing.B) {
	for _, v := range dataEngines {
		b.Run(v.name, func(b *testing.B) {
			e := v.open(b)
			_, err := e.CreateTable(context.Background(), &CreateTableInput{TableName: "Bench", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
				KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}})
			require.NoError(b, err)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			srv := &http.Server{Handler: e.Handler()}
			go srv.Serve(ln)
			b.Cleanup(func() { srv.Close() })
			c0 := selfCPU()
			rawPuts32(b, "http://"+ln.Addr().String())
			reportCPU(b, c0, b.N/32*32+32) // the client's CPU too: both sides are in this process
		})
	}
}

// BenchmarkPutItemStream puts 300-byte items in process into a table
// with a stream of each view type (and none): what a record costs.
func BenchmarkPutItemStream(b *testing.B) {
	for _, view := range []string{"none", ViewKeysOnly, ViewNewAndOldImgs} {
		b.Run(view, func(b *testing.B) {
			e := New(Options{})
			in := &CreateTableInput{TableName: "Bench", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
				KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}}
			if view != "none" {
				in.StreamSpecification = &StreamSpecification{StreamEnabled: ptr(true), StreamViewType: view}
			}
			_, err := e.CreateTable(context.Background(), in)
			require.NoError(b, err)
			items := make([]attr.Item, 4096)
			for i := range items {
				items[i] = item300("user#"+strconv.Itoa(i), i)
			}
			b.ReportAllocs()
			c0 := selfCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := items[i%len(items)].With("pk", attr.Str("user#"+strconv.Itoa(i)))
				if _, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Bench", Item: it}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
			reportCPU(b, c0, b.N)
		})
	}
}
