package dataset

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// it measures the work, where wall time measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGenerate times the reference population (scale BENCH_SCALE,
// default 0.0002, about 80,000 items) through one worker (BENCH_WORKERS)
// into a sink that drops the bytes, for each compression, with the data
// command's collector settings: items/s and MB/s of uncompressed lines
// are reported, and the CPU per item.
func BenchmarkGenerate(b *testing.B) {
	scale, workers := 0.0002, 1
	if s := os.Getenv("BENCH_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(b, err)
		scale = f
	}
	if s := os.Getenv("BENCH_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		workers = n
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	p := population(b, models[0], scale, 1)
	for _, comp := range []string{"none", "zstd", "gzip"} {
		b.Run(comp, func(b *testing.B) {
			var items, raw int64
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := p.Run(context.Background(), discard{comp}, RunOptions{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range res.Tables {
					items += t.Items
				}
				raw += res.Raw
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(items), "cpu-ns/item")
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(raw)/1e6/b.Elapsed().Seconds(), "MB/s")
		})
	}
}

type discard struct{ comp string }

func (d discard) Encoding() Encoding                 { return Encoding{Format: "s3-import", Compression: d.comp} }
func (discard) Write(context.Context, *Output) error { return nil }
func (discard) Close(context.Context) error          { return nil }

// BenchmarkLoadEndpoint loads the reference population (scale
// BENCH_SCALE, default 0.0002) into the server at BENCH_ENDPOINT (cardapio
// serve) two ways, in the order BENCH_ORDER says (raw,load by default):
// "load", the data command's pipeline (generation, BatchWriteItem of 25,
// 16 in flight, unprocessed items retried), and "raw", a bare
// aws-sdk-go-v2 loop sending the same items, pre-built, 25 a request from
// 16 goroutines with the same HTTP client and retry policy. Each run
// writes into fresh tables. Skipped without BENCH_ENDPOINT.
func BenchmarkLoadEndpoint(b *testing.B) {
	ep := os.Getenv("BENCH_ENDPOINT")
	if ep == "" {
		b.Skip("BENCH_ENDPOINT is not set")
	}
	scale := 0.0002
	if s := os.Getenv("BENCH_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(b, err)
		scale = f
	}
	p := population(b, models[0], scale, 1)
	ctx := context.Background()
	// As the data command runs (Execute): GC against a soft limit.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	tg, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: ep, Retry: LoadRetry, HTTPClient: LoadHTTPClient(16)})
	require.NoError(b, err)
	// The raw loop's items: the same population, generated beforehand
	// (and dropped before the pipeline runs, so that neither run pays for
	// the other's heap).
	prebuilt := func() []types.WriteRequest {
		var reqs []types.WriteRequest
		gn := p.NewGenerator(func(n *Node, it attr.Item) {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: attr.ToSDKItem(cloneItem(it))}})
		})
		for _, bl := range p.Blocks() {
			for i := bl.Lo; i < bl.Hi; i++ {
				require.NoError(b, gn.Tree(bl.Root, i))
			}
		}
		return reqs
	}
	order := strings.Split(os.Getenv("BENCH_ORDER"), ",")
	if order[0] == "" {
		order = []string{"raw", "load"}
	}
	for _, kind := range order {
		b.Run(kind, func(b *testing.B) {
			var reqs []types.WriteRequest
			if kind == "raw" {
				reqs = prebuilt()
			}
			runtime.GC()
			var items int64
			var elapsed time.Duration
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ts, err := tg.CreateTables(ctx, p.Model, endpoint.TableOptions{Keys: catalog.KeysNative})
				require.NoError(b, err)
				table := ts.Name(p.Model.Tables[0].Name)
				b.StartTimer()
				start := time.Now()
				switch kind {
				case "raw":
					items += rawLoad(b, tg.Client, table, reqs)
				case "load":
					sink := NewLoadSink(ctx, p, LoadOptions{Client: tg.Client, Concurrency: 16, Rules: capacity.Default(), Tables: ts.Names()})
					_, err := p.Run(ctx, sink, RunOptions{})
					require.NoError(b, err)
					items += sink.Items.Load()
				}
				elapsed += time.Since(start)
				b.StopTimer()
				require.NoError(b, ts.Delete(ctx))
				b.StartTimer()
			}
			b.ReportMetric(float64(items)/elapsed.Seconds(), "items/s")
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(items), "client-cpu-ns/item")
		})
	}
}

// rawLoad is the baseline: BatchWriteItem of 25 pre-built items from 16
// goroutines, unprocessed items sent again at once.
func rawLoad(b *testing.B, c *dynamodb.Client, table string, reqs []types.WriteRequest) int64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	var sent atomic.Int64
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(BatchSize) - BatchSize
				if i >= int64(len(reqs)) {
					return
				}
				batch := reqs[i:min(i+BatchSize, int64(len(reqs)))]
				in := map[string][]types.WriteRequest{table: batch}
				for len(in[table]) > 0 {
					out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: in})
					if err != nil {
						b.Error(err)
						return
					}
					in = out.UnprocessedItems
				}
				sent.Add(int64(len(batch)))
			}
		}()
	}
	wg.Wait()
	return sent.Load()
}
