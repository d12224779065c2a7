package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	putInProcess(b, New(Options{}))
}

// putInProcess puts 300-byte items into a fresh table "Bench" of e, each
// with a new partition key, and reports puts/s.
func putInProcess(b *testing.B, e *Engine) {
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
	query50(b, c)
}

// query50 runs b.N queries of the 50-item partition "hot" of Bench and
// reports their median and 99th percentile latency.
func query50(b *testing.B, c *dynamodb.Client) {
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
	heapPerItem(b, 1_000_000, func(j int) attr.Item { return item300(fmt.Sprintf("user#%08d", j/10), j%10) })
}

// loaderClient is the aws-sdk-go-v2 client of BenchmarkPutItemHTTP32, set
// up as a bulk loader aimed at a local endpoint would be, and used
// unchanged against every endpoint measured:
//
//   - an http.Transport keeping 64 idle connections per host (Go's
//     default keeps 2, so 32 goroutines open and close TCP connections
//     all the time: 150 to 400 dials per 1,000 puts were measured with
//     it, about 2 with this one), without compression or HTTP/2;
//   - static fake credentials: requests are still signed (SigV4), as
//     every SDK request is;
//   - no retries (aws.NopRetryer): neither endpoint throttles here, so a
//     failed put is a real failure, counted and reported, never hidden
//     or slowed down by backoff; endpoint discovery off (the SDK's
//     default for DynamoDB, stated here);
//   - no CRC32 check of responses (DisableValidateResponseChecksum), a
//     documented option that skips client work unrelated to the server.
//
// dials counts the TCP connections the client opens.
func loaderClient(endpoint string, dials *atomic.Int64) *dynamodb.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if os.Getenv("BENCH_CLIENT") == "sdk-default" {
		// The client as most programs build it: the SDK's own HTTP client
		// (its transport keeps 10 idle connections per host), retries and
		// response checksums on. Only the dialer is wrapped, to count dials.
		hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return d.DialContext(ctx, network, addr)
			}
		})
		return dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(endpoint),
			Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
			HTTPClient:   hc,
		})
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(endpoint),
		Credentials:                     credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient:                      &http.Client{Transport: tr},
		Retryer:                         aws.NopRetryer{},
		EndpointDiscovery:               dynamodb.EndpointDiscoveryOptions{EnableEndpointDiscovery: aws.EndpointDiscoveryDisabled},
		DisableValidateResponseChecksum: true,
	})
}

// putLoad is one goroutine's PutItem request, built once: each put only
// changes the partition key, so the client spends nothing on building
// inputs and every put writes a new item.
type putLoad struct {
	in *dynamodb.PutItemInput
	pk *types.AttributeValueMemberS
}

// newPutLoad builds a request whose item is exactly 300 bytes by
// DynamoDB's sizing once its key is filled in by key.
func newPutLoad(tb testing.TB, table string) putLoad {
	pk := &types.AttributeValueMemberS{Value: putKey(0)}
	item := map[string]types.AttributeValue{
		"pk":   pk,
		"name": &types.AttributeValueMemberS{Value: "someone"},
		"n":    &types.AttributeValueMemberN{Value: "12345"},
		"pad":  &types.AttributeValueMemberS{Value: strings.Repeat("p", 262)},
	}
	same := attr.Sorted([]attr.Field{
		{Name: "pk", Value: attr.Str(pk.Value)},
		{Name: "name", Value: attr.Str("someone")},
		{Name: "n", Value: attr.Num("12345")},
		{Name: "pad", Value: attr.Str(item["pad"].(*types.AttributeValueMemberS).Value)},
	})
	require.Equal(tb, 300, New(Options{}).rules.ItemSize(same), "benchmark item size")
	return putLoad{in: &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}, pk: pk}
}

// putKey is the partition key of the k-th put, always 17 bytes.
func putKey(k int64) string { return fmt.Sprintf("user#%012d", k) }

// cpuTime reads a process's user plus system CPU time from /proc (Linux,
// at the kernel's usual 100 ticks per second); ok is false elsewhere.
func cpuTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0, false
	}
	// After the command name: state is field 0, utime 11, stime 12.
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * 10 * time.Millisecond, true
}

// BenchmarkPutItemHTTP32 puts 300-byte items from 32 aws-sdk-go-v2
// goroutines over loopback HTTP, with loaderClient's configuration.
//
// By default it serves a fresh engine in this process, so client and
// server share one Go runtime. With BENCH_ENDPOINT set (a loopback URL:
// cardapio serve, or dynalite started by bench/dynalite.sh) the same
// client and load go to that endpoint, which is how
// bench/put-vs-dynalite.sh compares the two side by side; BENCH_SERVER_PID
// names the server's process, to report the CPU time it spent per put.
//
// Besides puts/s it reports the client's CPU per put (this whole process
// when the engine is in it), the server's when known, and the TCP
// connections opened per 1,000 puts (near zero when keep-alive works).
func BenchmarkPutItemHTTP32(b *testing.B) {
	var dials atomic.Int64
	var c *dynamodb.Client
	serverPid := 0
	if ep := os.Getenv("BENCH_ENDPOINT"); ep != "" {
		c = loaderClient(ep, &dials)
		serverPid, _ = strconv.Atoi(os.Getenv("BENCH_SERVER_PID"))
	} else {
		served, _ := startServer(b)
		c = loaderClient(*served.Options().BaseEndpoint, &dials)
	}
	putHTTP32(b, c, &dials, serverPid)
}

// BenchmarkPutItemNullServer32 is BenchmarkPutItemHTTP32 against a server
// that reads each request and answers PutItem's empty response without
// looking at it: what the SDK client alone sustains on this machine, the
// ceiling of any server measured with it.
func BenchmarkPutItemNullServer32(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	b.Cleanup(func() { ln.Close() })
	go nullServer(ln)
	var dials atomic.Int64
	putHTTP32(b, loaderClient("http://"+ln.Addr().String(), &dials), &dials, 0)
}

// nullResponse is an empty PutItem answer: {} and its CRC32.
var nullResponse = []byte("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\n" +
	"X-Amzn-Requestid: NULL\r\nX-Amz-Crc32: 2745614147\r\nContent-Length: 2\r\n\r\n{}")

// nullServer answers every HTTP/1.1 request on ln, each read up to the end
// of its Content-Length body, with nullResponse.
func nullServer(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			r := bufio.NewReader(conn)
			for {
				length := -1
				for {
					line, err := r.ReadSlice('\n')
					if err != nil {
						return
					}
					if len(bytes.TrimSpace(line)) == 0 {
						break
					}
					if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
						length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
					}
				}
				if length < 0 {
					return
				}
				if _, err := r.Discard(length); err != nil {
					return
				}
				if _, err := conn.Write(nullResponse); err != nil {
					return
				}
			}
		}()
	}
}

// putHTTP32 runs the load of BenchmarkPutItemHTTP32 with client c and
// reports its metrics; serverPid, when not 0, is the server's process.
func putHTTP32(b *testing.B, c *dynamodb.Client, dials *atomic.Int64, serverPid int) {
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Bench"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) {
		require.NoError(b, err)
	}
	loads := make([]putLoad, 32)
	for g := range loads {
		loads[g] = newPutLoad(b, "Bench")
	}
	// Keys continue across runs against a long-lived endpoint.
	var seq atomic.Int64
	seq.Store(time.Now().UnixNano() % 1e11)
	var failed atomic.Int64
	var once sync.Once
	var firstErr error
	per := b.N/32 + 1
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	srv0, srvOK := cpuTime(serverPid)
	dials0 := dials.Load()
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range loads {
		wg.Add(1)
		go func(l putLoad) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				l.pk.Value = putKey(seq.Add(1))
				if _, err := c.PutItem(ctx, l.in); err != nil {
					failed.Add(1)
					once.Do(func() { firstErr = err })
				}
			}
		}(loads[g])
	}
	wg.Wait()
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d puts failed, the first with: %v", failed.Load(), firstErr)
	}
	puts := float64(per * 32)
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	client := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(puts/b.Elapsed().Seconds(), "puts/s")
	b.ReportMetric(float64(client.Microseconds())/puts, "client-cpu-µs/put")
	if srv1, ok := cpuTime(serverPid); ok && srvOK && serverPid > 0 {
		b.ReportMetric(float64((srv1-srv0).Microseconds())/puts, "server-cpu-µs/put")
	}
	b.ReportMetric(float64(dials.Load()-dials0)*1000/puts, "dials/1000puts")
}
