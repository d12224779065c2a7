package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// scanBenchItems fills table Scanned with n items of about 1 KB, ten to a
// partition.
func scanBenchItems(b *testing.B, e *Engine, n int) { scanBenchTable(b, e, "Scanned", n) }

// scanBenchTable fills table name with n items of about 1 KB, ten to a
// partition.
func scanBenchTable(b *testing.B, e *Engine, name string, n int) {
	ctx := context.Background()
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName:            name,
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode:          "PAY_PER_REQUEST",
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := e.PutItem(ctx, &PutItemInput{TableName: name, Item: scanBenchItem(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func scanBenchItem(i int) attr.Item {
	return attr.Sorted([]attr.Field{
		{Name: "pk", Value: attr.Str(fmt.Sprintf("user#%08d", i/10))},
		{Name: "sk", Value: attr.Num(strconv.Itoa(i % 10))},
		{Name: "name", Value: attr.Str("Maria da Silva")},
		{Name: "tags", Value: attr.StrSet("a", "b", "c")},
		{Name: "balance", Value: attr.Num("1234.56")},
		{Name: "history", Value: attr.ListOf(attr.Num("1"), attr.Num("2"), attr.MapOf(attr.Item{{Name: "at", Value: attr.Str("2026-09-21")}}))},
		{Name: "note", Value: attr.Str(strings.Repeat("n", 900))},
	})
}

// BenchmarkWritersDuringScan: 16 writers put into a table of 100k items
// of 1 KB, alone, while one reader scans the same table page after page
// (1 MB pages, through the wire's encoder, as a client's Scan is
// answered), and while it scans another table instead. b.N puts per
// sub-benchmark; reported: puts/s, the writers' p99 latency, and the
// pages scanned meanwhile. The ratio of scanning's puts/s to alone's is
// what writers keep while a scan runs on their table; scanning-other,
// where the reader takes as much CPU but shares no lock with the
// writers, tells what of the loss is the processor the scan uses rather
// than the table it reads. The reader keeps its answer buffer and reads
// only LastEvaluatedKey from it, so that it costs what the server does
// for a page, not what a client does decoding one.
func BenchmarkWritersDuringScan(b *testing.B) {
	e := New(Options{})
	scanBenchItems(b, e, 100_000)
	scanBenchTable(b, e, "Other", 10_000)
	h := e.Handler()
	for _, mode := range []string{"alone", "scanning", "scanning-other"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			stop := make(chan struct{})
			var pages atomic.Int64
			var scanner sync.WaitGroup
			if mode != "alone" {
				table := "Scanned"
				if mode == "scanning-other" {
					table = "Other"
				}
				scanner.Add(1)
				go func() {
					defer scanner.Done()
					w := &keepWriter{h: http.Header{}}
					start := ""
					for {
						select {
						case <-stop:
							return
						default:
						}
						w.reset()
						h.ServeHTTP(w, scanRequest(`{"TableName":"`+table+`"`+start+`}`))
						if w.code != http.StatusOK {
							panic(w.body.String())
						}
						pages.Add(1)
						start = ""
						if lek := lastEvaluatedKey(w.body.Bytes()); lek != nil {
							start = `,"ExclusiveStartKey":` + string(lek)
						}
					}
				}()
			}
			const writers = 16
			var next atomic.Int64
			lat := make([][]time.Duration, writers)
			var wg sync.WaitGroup
			b.ResetTimer()
			t0 := time.Now()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						s := time.Now()
						_, err := e.PutItem(ctx, &PutItemInput{TableName: "Scanned", Item: scanBenchItem(int(i*7919) % 100_000)})
						lat[w] = append(lat[w], time.Since(s))
						if err != nil {
							panic(err)
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(t0)
			b.StopTimer()
			close(stop)
			scanner.Wait()
			var all []time.Duration
			for _, l := range lat {
				all = append(all, l...)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "puts/s")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(pages.Load()), "pages")
		})
	}
}

// lastEvaluatedKey is the JSON of a page's LastEvaluatedKey (nil: none),
// decoded alone: the server writes it after the items.
func lastEvaluatedKey(page []byte) json.RawMessage {
	const name = `"LastEvaluatedKey":`
	i := bytes.LastIndex(page, []byte(name))
	if i < 0 {
		return nil
	}
	var lek json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(page[i+len(name):])).Decode(&lek); err != nil {
		panic(err)
	}
	return lek
}

// keepWriter is a ResponseWriter that keeps the body in a buffer reused
// from one answer to the next.
type keepWriter struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (w *keepWriter) reset() {
	clear(w.h)
	w.code = 0
	w.body.Reset()
}
func (w *keepWriter) Header() http.Header { return w.h }
func (w *keepWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *keepWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func scanRequest(body string) *http.Request {
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.Scan")
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	placeholderSign(r)
	return r
}

// BenchmarkScanPage1MB: one 1 MB Scan page (about 1,000 items of 1 KB)
// answered through the server's handler, body encoded and written to a
// writer that keeps nothing: the server's work and garbage for a page.
// cpu-ms/op is the process's CPU time per page (getrusage), steadier
// than the wall time on a busy machine.
func BenchmarkScanPage1MB(b *testing.B) {
	e := New(Options{})
	scanBenchItems(b, e, 5_000)
	h := e.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for b.Loop() {
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, scanRequest(`{"TableName":"Scanned"}`))
		if w.code != http.StatusOK || w.n < 1<<20 {
			b.Fatalf("%d: %d bytes", w.code, w.n)
		}
	}
	b.ReportMetric(float64((processCPU()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// discardWriter is a ResponseWriter that counts what it is given.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteReadCost is what the in-process hot path costs, for
// before and after a change to the storage: a GetItem of a stored item,
// a PutItem of a new item, and a PutItem replacing a stored one, in a
// table of 100k items of 300 bytes without an index and in one with a
// GSI projecting everything (the replaced item keeps its index key).
// cpu-ns/op is the process's CPU time per operation (getrusage).
func BenchmarkWriteReadCost(b *testing.B) {
	const stored = 100_000
	ctx := context.Background()
	for _, gsi := range []bool{false, true} {
		e := New(Options{})
		name := "plain"
		if gsi {
			name = "gsi"
			newTable(b, e)
		} else {
			_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Tab", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
				KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}})
			if err != nil {
				b.Fatal(err)
			}
		}
		items := make([]attr.Item, stored)
		keys := make([]attr.Item, stored)
		for i := range items {
			items[i] = item300(fmt.Sprintf("user#%08d", i/10), i%10).With("gpk", attr.Str(fmt.Sprint("g", i%100))).With("gsk", attr.Num(strconv.Itoa(i)))
			keys[i] = attr.Sorted([]attr.Field{{Name: "pk", Value: attr.Str(fmt.Sprintf("user#%08d", i/10))}, {Name: "sk", Value: attr.Num(strconv.Itoa(i % 10))}})
			if _, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: items[i]}); err != nil {
				b.Fatal(err)
			}
		}
		run := func(b *testing.B, op func(i int) error) {
			b.ReportAllocs()
			c0 := processCPU()
			i := 0
			for b.Loop() {
				if err := op(i); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64((processCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
		b.Run(name+"/get", func(b *testing.B) {
			run(b, func(i int) error {
				out, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: keys[(i*7919)%stored]})
				if err == nil && out.Item == nil {
					err = fmt.Errorf("item %d missing", (i*7919)%stored)
				}
				return err
			})
		})
		b.Run(name+"/put-new", func(b *testing.B) {
			run(b, func(i int) error {
				it := items[i%stored].With("pk", attr.Str("new#"+strconv.Itoa(i)))
				_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
				return err
			})
		})
		b.Run(name+"/put-replace", func(b *testing.B) {
			run(b, func(i int) error {
				_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: items[(i*7919)%stored]})
				return err
			})
		})
	}
}

// BenchmarkMemorySpread stores 500k items of sizes spread evenly from
// about 90 to 1,100 bytes and reports the heap they take per item
// against their raw size: the storage's overhead averaged over the
// allocator's size classes, where one item size alone may fall just
// under or just over a class.
func BenchmarkMemorySpread(b *testing.B) {
	heapPerItem(b, 500_000, func(j int) attr.Item {
		return item300(fmt.Sprintf("user#%08d", j/10), j%10).With("note", attr.Str(strings.Repeat("n", j%1009)))
	})
}

// heapPerItem stores count items (item(j) for each j) in a new engine's
// table and reports the heap they take per item, against their raw
// size.
func heapPerItem(b *testing.B, count int, item func(j int) attr.Item) {
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		e := New(Options{})
		benchTable(b, e, "Mem")
		raw := 0
		for j := range count {
			it := item(j)
			raw += e.rules.ItemSize(it)
			if _, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Mem", Item: it}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc - before.HeapAlloc)
		b.ReportMetric(heap/float64(count), "heap-B/item")
		b.ReportMetric(float64(raw)/float64(count), "raw-B/item")
		b.ReportMetric(heap/float64(raw), "heap/raw")
		runtime.KeepAlive(e)
	}
}
