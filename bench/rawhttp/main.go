// Command rawhttp is the client of bench/latency.sh and bench/memory.sh: a light raw-HTTP
// DynamoDB client (prepared JSON bodies, a placeholder SigV4 header, no
// SDK) that sends PutItem or GetItem requests from a fixed number of
// goroutines, each waiting for its answer before the next, and records
// every request's latency in an HDR histogram (hdrhistogram-go: exact
// percentiles over the whole run at 3 significant digits, without keeping
// every sample). It is light so that the figures are the server's: the
// SDK spends about 110 µs of CPU a request here, more than the engine.
//
// Usage:
//
//	rawhttp -endpoint URL -op create|fill|put|get [-clients 32] [-n 20000] [-keys 100000] [-pid PID] [-rate R]
//	rawhttp -endpoint URL -op load -file ITEMS.jsonl -table T -pk PK [-sk SK] [-clients 16]
//
// create makes table -table (Bench: pk S; -pk and -sk name string keys;
// on demand; an existing one is kept);
// fill puts items 0..keys-1 once; put overwrites random ones of them and
// get reads random ones, n requests in all after -warmup more. Every
// put changes its item (a number attribute takes the request's sequence
// number): a put of an item as it is stored changes nothing, which
// cardapio neither logs nor streams, and would measure less than a
// write. With -rate, requests are sent open-model instead: the i-th is
// due at start + i/rate whatever the answers before it, taken by the
// first of -clients senders free, each request's latency counted from
// when it was due if every sender was busy then (the wait for a sender
// is the server's doing: coordinated omission corrected), from when it
// was sent otherwise (a sender's timer waking late is the client's);
// gen
// writes -keys items of 300 bytes keyed PK and SK as DynamoDB JSON lines
// on stdout, for load. Items are
// about 300 bytes as DynamoDB counts them. With -pid, the server's CPU
// time over the measured requests is read from /proc/PID/stat. load
// sends the items of a file of DynamoDB JSON lines ({"Item": {...}}, as
// cardapio data --format s3-import --compression none writes them) in
// BatchWriteItem requests of 25, unprocessed items sent again, and prints
// the items loaded.
//
// With -memory (cardapio serve's /cardapio/memory), the collector's
// cycles over the measured requests and its CPU µs per request are read
// from it before and after them.
//
// Printed, one line: op, requests, requests/s, p50, p90, p99, p99.9 and
// max in µs, the server's CPU µs per request (-1 without -pid), and with
// -memory the collector's cycles and CPU µs per request (-1 -1 without).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const authorization = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000"

var pad = strings.Repeat("p", 213)

func main() {
	endpoint := flag.String("endpoint", "", "the server's URL")
	op := flag.String("op", "put", "create, fill, put, get, gen or load")
	clients := flag.Int("clients", 32, "goroutines, each with one request in flight")
	n := flag.Int("n", 20000, "requests measured")
	warmup := flag.Int("warmup", 2000, "requests sent first and not measured")
	keys := flag.Int("keys", 100000, "items of the table")
	pid := flag.Int("pid", 0, "the server's process, for its CPU time")
	file := flag.String("file", "", "with -op load, the items")
	table := flag.String("table", "Bench", "with -op create or load, the table")
	pkName := flag.String("pk", "pk", "with -op create, the partition key's name (a string)")
	skName := flag.String("sk", "", "with -op create, the sort key's name (a string), none by default")
	memory := flag.String("memory", "", "with -op put or get, cardapio serve's memory figures (URL of /cardapio/memory), for the collector's cycles and CPU")
	rate := flag.Float64("rate", 0, "with -op put or get, requests a second sent open-model (0: closed loop, each client waits for its answer)")
	flag.Parse()
	if *endpoint == "" || *clients < 1 || *n < 1 || *keys < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "rawhttp: -endpoint, and positive -clients, -n, -keys are required")
		os.Exit(2)
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 2 * *clients, MaxIdleConnsPerHost: 2 * *clients, DisableCompression: true}}
	send := func(target string, body []byte) ([]byte, error) {
		req, err := http.NewRequest("POST", *endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("Authorization", authorization)
		req.Header.Set("X-Amz-Date", "20260101T000000Z")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%s: HTTP %d: %s", target, resp.StatusCode, b)
		}
		return b, nil
	}
	switch *op {
	case "create":
		create(send, *table, *pkName, *skName)
		return
	case "gen":
		gen(*keys)
		return
	case "load":
		fmt.Println(load(send, *file, *table, *clients))
		return
	case "fill":
		var next atomic.Int64
		run(*clients, func(int) bool {
			i := next.Add(1) - 1
			if i >= int64(*keys) {
				return false
			}
			if _, err := send("PutItem", putBody(nil, int(i), i)); err != nil {
				fail(err)
			}
			return true
		})
		return
	case "put", "get":
	default:
		fail(fmt.Errorf("unknown -op %q", *op))
	}
	target := "PutItem"
	if *op == "get" {
		target = "GetItem"
	}
	hists := make([]*hdr.Histogram, *clients)
	var left, seq atomic.Int64
	left.Store(int64(*warmup))
	// request sends one request to a random key and returns its latency
	// counted from start.
	request := func(start time.Time) time.Duration {
		k := rand.IntN(*keys)
		var body []byte
		if *op == "get" {
			body = getBody(k)
		} else {
			body = putBody(nil, k, seq.Add(1))
		}
		if start.IsZero() {
			start = time.Now()
		}
		if _, err := send(target, body); err != nil {
			fail(err)
		}
		return time.Since(start)
	}
	phase := func(measure bool) time.Duration {
		start := time.Now()
		var due atomic.Int64
		interval := time.Duration(0)
		if *rate > 0 {
			interval = time.Duration(float64(time.Second) / *rate)
		}
		run(*clients, func(g int) bool {
			if left.Add(-1) < 0 {
				return false
			}
			var from time.Time
			if interval > 0 {
				at := start.Add(time.Duration(due.Add(1)-1) * interval)
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
				} else {
					from = at // every sender was busy when it fell due
				}
			}
			d := request(from)
			if measure {
				hists[g].RecordValue(d.Microseconds())
			}
			return true
		})
		return time.Since(start)
	}
	for g := range hists {
		hists[g] = hdr.New(1, 60_000_000, 3)
	}
	phase(false)
	left.Store(int64(*n))
	gc0, gcs0 := collector(hc, *memory)
	cpu0 := cpuTicks(*pid)
	wall := phase(true)
	cpu1 := cpuTicks(*pid)
	gc1, gcs1 := collector(hc, *memory)
	h := hdr.New(1, 60_000_000, 3)
	for _, x := range hists {
		h.Merge(x)
	}
	server := -1.0
	if *pid > 0 && cpu0 >= 0 && cpu1 >= 0 {
		server = float64(cpu1-cpu0) * 1e6 / float64(clockTicks) / float64(h.TotalCount())
	}
	cycles, gcCPU := int64(-1), -1.0
	if gc0 >= 0 && gc1 >= 0 {
		cycles, gcCPU = gc1-gc0, (gcs1-gcs0)*1e6/float64(h.TotalCount())
	}
	fmt.Printf("%s %d %.0f %d %d %d %d %d %.1f %d %.1f\n", *op, h.TotalCount(), float64(h.TotalCount())/wall.Seconds(),
		h.ValueAtQuantile(50), h.ValueAtQuantile(90), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.Max(), server, cycles, gcCPU)
}

// create makes the table the benchmark writes: a string partition key,
// an optional string sort key, on demand. A table already there is kept.
func create(send func(string, []byte) ([]byte, error), table, pkName, skName string) {
	defs := `{"AttributeName":"` + pkName + `","AttributeType":"S"}`
	ks := `{"AttributeName":"` + pkName + `","KeyType":"HASH"}`
	if skName != "" {
		defs += `,{"AttributeName":"` + skName + `","AttributeType":"S"}`
		ks += `,{"AttributeName":"` + skName + `","KeyType":"RANGE"}`
	}
	_, err := send("CreateTable", []byte(`{"TableName":"`+table+`","AttributeDefinitions":[`+defs+`],"KeySchema":[`+ks+`],"BillingMode":"PAY_PER_REQUEST"}`))
	if err != nil && !strings.Contains(err.Error(), "ResourceInUse") {
		fail(err)
	}
}

// gen writes keys items of about 400 bytes to standard output, one
// DynamoDB JSON line each, ten a partition, for -op load.
func gen(keys int) {
	w := bufio.NewWriter(os.Stdout)
	for k := range keys {
		b := append([]byte(`{"Item":{"PK":{"S":"user#`), strconv.Itoa(k/10)...)
		b = append(b, `"},"SK":{"S":"item#`...)
		b = appendKey(b, k%10)
		b = append(b, `"},"name":{"S":"Maria da Silva"},"email":{"S":"maria.silva@example.com"},"balance":{"N":"1234.56"},"active":{"BOOL":true},"note":{"S":"`...)
		b = append(b, pad[:190]...)
		w.Write(append(b, "\"}}}\n"...))
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
}

// collector reads the collector's completed cycles and CPU seconds from
// cardapio serve's memory figures at url; -1 when url is empty or they
// cannot be read.
func collector(hc *http.Client, url string) (int64, float64) {
	if url == "" {
		return -1, -1
	}
	resp, err := hc.Get(url)
	if err != nil {
		return -1, -1
	}
	defer resp.Body.Close()
	var m struct {
		GCCycles     int64   `json:"gcCycles"`
		GCCPUSeconds float64 `json:"gcCpuSeconds"`
	}
	if resp.StatusCode != 200 || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m) != nil {
		return -1, -1
	}
	return m.GCCycles, m.GCCPUSeconds
}

// run calls f from clients goroutines until it returns false in each.
func run(clients int, f func(g int) bool) {
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f(g) {
			}
		}()
	}
	wg.Wait()
}

// load sends the items of file to table in batches of 25 from clients
// goroutines and returns how many were written.
func load(send func(string, []byte) ([]byte, error), file, table string, clients int) int64 {
	f, err := os.Open(file)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	batches := make(chan []json.RawMessage, clients)
	go func() {
		defer close(batches)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var batch []json.RawMessage
		for sc.Scan() {
			var line struct{ Item json.RawMessage }
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil || len(line.Item) == 0 {
				fail(fmt.Errorf("%s: not a line of DynamoDB JSON: %.80s", file, sc.Text()))
			}
			batch = append(batch, line.Item)
			if len(batch) == 25 {
				batches <- batch
				batch = nil
			}
		}
		if err := sc.Err(); err != nil {
			fail(err)
		}
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	var written atomic.Int64
	tname, _ := json.Marshal(table)
	run(clients, func(int) bool {
		batch, ok := <-batches
		if !ok {
			return false
		}
		for len(batch) > 0 {
			b := append([]byte(`{"RequestItems":{`), tname...)
			b = append(b, ":["...)
			for i, it := range batch {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"PutRequest":{"Item":`...)
				b = append(b, it...)
				b = append(b, "}}"...)
			}
			b = append(b, "]}}"...)
			out, err := send("BatchWriteItem", b)
			if err != nil {
				fail(err)
			}
			var r struct {
				UnprocessedItems map[string][]struct {
					PutRequest struct{ Item json.RawMessage }
				}
			}
			if err := json.Unmarshal(out, &r); err != nil {
				fail(err)
			}
			left := r.UnprocessedItems[table]
			written.Add(int64(len(batch) - len(left)))
			batch = batch[:0]
			for _, u := range left {
				batch = append(batch, u.PutRequest.Item)
			}
			if len(batch) > 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
		return true
	})
	return written.Load()
}

// putBody is a put of item k whose balance is 1 followed by version v in
// 12 digits (every body the same size).
func putBody(b []byte, k int, v int64) []byte {
	b = append(b, `{"TableName":"Bench","Item":{"pk":{"S":"user#`...)
	b = appendKey(b, k)
	b = append(b, `"},"name":{"S":"Maria da Silva"},"email":{"S":"maria.silva@example.com"},"balance":{"N":"1`...)
	b = appendKey(b, int(v%1e12))
	b = append(b, `"},"active":{"BOOL":true},"note":{"S":"`...)
	b = append(b, pad...)
	return append(b, `"}}}`...)
}

func getBody(k int) []byte {
	b := append([]byte(nil), `{"TableName":"Bench","Key":{"pk":{"S":"user#`...)
	b = appendKey(b, k)
	return append(b, `"}}}`...)
}

func appendKey(b []byte, k int) []byte {
	s := strconv.Itoa(k)
	for i := len(s); i < 12; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on
// every Linux architecture Go supports).
const clockTicks = 100

// cpuTicks is a process's user + system CPU time in clock ticks, -1 when
// it cannot be read.
func cpuTicks(pid int) int64 {
	if pid <= 0 {
		return -1
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from its closing one (utime and stime are the 14th and 15th).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return u + st
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rawhttp:", err)
	os.Exit(1)
}
