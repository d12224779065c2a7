package engine

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine/auth"
)

// What the trust features cost, against the same code with them off
// (bench/trust-overhead.sh runs these alternately): each benchmark has a
// variant "on", the server as cardapio serve runs it by default (the
// loopback Host check, the signature read, a space per region and
// account, ARNs checked, the in-flight cap; under Serve the connection
// cap and the timeouts), and "off", the same Server with all of them
// turned off (ServerOptions.bare).

// trustVariants are the two servers compared.
var trustVariants = []struct {
	name string
	on   bool
}{{"on", true}, {"off", false}}

// trustOptions are the options of a server with the trust features on
// (as cardapio serve runs by default) or off.
func trustOptions(on bool) ServerOptions {
	if on {
		return ServerOptions{LoopbackHosts: true}
	}
	// The engine a request for us-east-1 reaches when they are on.
	return ServerOptions{Engine: New(Options{Region: "us-east-1", Account: auth.DefaultAccount}), bare: true}
}

// trustServer is a server with the trust features on or off, and the
// engine its requests for us-east-1 reach.
func trustServer(tb testing.TB, on bool) (*Server, *Engine) {
	tb.Helper()
	s, err := NewServer(trustOptions(on))
	require.NoError(tb, err)
	return s, trustEngine(tb, s)
}

// trustEngine is the engine of s that requests for us-east-1 reach.
func trustEngine(tb testing.TB, s *Server) *Engine {
	tb.Helper()
	e, err := s.space("us-east-1", auth.DefaultAccount)
	require.NoError(tb, err)
	return e
}

// BenchmarkTrustHandlerPut serves a 300-byte PutItem (each changing its
// item) through the handler without a socket: CPU time per put.
func BenchmarkTrustHandlerPut(b *testing.B) {
	pad := strings.Repeat("p", 230)
	for _, v := range trustVariants {
		b.Run(v.name, func(b *testing.B) {
			s, e := trustServer(b, v.on)
			benchTable(b, e, "Bench")
			bodies := make([]string, 1024)
			for i := range bodies {
				bodies[i] = `{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"sk":{"N":"1"},"name":{"S":"someone"},"n":{"N":"` +
					strconv.Itoa(100000+i) + `"},"pad":{"S":"` + pad + `"}}}`
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := selfCPU()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", "/", strings.NewReader(bodies[i%len(bodies)]))
				req.Host = "127.0.0.1:8000"
				req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
				placeholderSign(req)
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Body.String())
				}
			}
			reportCPU(b, c0, b.N)
		})
	}
}

// BenchmarkTrustHandlerPutAB is BenchmarkTrustHandlerPut with both
// servers in one process, taking turns every 256 puts, the CPU time of
// each turn counted to its side: the machine's other work, and the
// collector's work on both sides' garbage, fall on both alike. It
// reports each side's CPU per put and their ratio on/off.
func BenchmarkTrustHandlerPutAB(b *testing.B) {
	const turn = 256
	pad := strings.Repeat("p", 230)
	type side struct {
		s      *Server
		bodies []string
		cpu    time.Duration
		puts   int
	}
	var sides [2]*side
	for i, on := range []bool{true, false} {
		s, e := trustServer(b, on)
		benchTable(b, e, "Bench")
		sd := &side{s: s, bodies: make([]string, 1024)}
		for j := range sd.bodies {
			sd.bodies[j] = `{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"sk":{"N":"1"},"name":{"S":"someone"},"n":{"N":"` +
				strconv.Itoa(100000+j) + `"},"pad":{"S":"` + pad + `"}}}`
		}
		sides[i] = sd
	}
	b.ResetTimer()
	for done, t := 0, 0; done < b.N; t++ {
		sd := sides[t%2]
		n := min(turn, b.N-done)
		if t%2 == 1 {
			done += n
		}
		c0 := selfCPU()
		for i := 0; i < n; i++ {
			req := httptest.NewRequest("POST", "/", strings.NewReader(sd.bodies[(sd.puts+i)%len(sd.bodies)]))
			req.Host = "127.0.0.1:8000"
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
			placeholderSign(req)
			rec := httptest.NewRecorder()
			sd.s.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatal(rec.Body.String())
			}
		}
		sd.cpu += selfCPU() - c0
		sd.puts += n
	}
	on, off := sides[0], sides[1]
	if on.puts == 0 || off.puts == 0 {
		return
	}
	onNs := float64(on.cpu.Nanoseconds()) / float64(on.puts)
	offNs := float64(off.cpu.Nanoseconds()) / float64(off.puts)
	b.ReportMetric(onNs, "on-cpu-ns/put")
	b.ReportMetric(offNs, "off-cpu-ns/put")
	b.ReportMetric(onNs/offNs, "on/off")
}

// BenchmarkTrustQuery50 is BenchmarkQuery50 (one SDK client querying a
// 50-item partition over loopback) against Serve with the features on
// and off: the median latency.
func BenchmarkTrustQuery50(b *testing.B) {
	for _, v := range trustVariants {
		b.Run(v.name, func(b *testing.B) {
			s, url := serveTest(b, trustOptions(v.on))
			e := trustEngine(b, s)
			c := sdkClient(url)
			benchTable(b, e, "Bench")
			for i := 0; i < 50; i++ {
				_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Bench", Item: item300("hot", i)})
				require.NoError(b, err)
			}
			query50(b, c)
		})
	}
}

// TestTrustServe serves, when BENCH_TRUST_SERVE names a loopback
// address, with the trust features as BENCH_TRUST says (on or off),
// until SIGINT or SIGTERM: the server bench/trust-overhead.sh measures
// the CPU per put of over loopback, in a process of its own so that the
// client's CPU is not counted. Without the variable it is skipped.
func TestTrustServe(t *testing.T) {
	addr := os.Getenv("BENCH_TRUST_SERVE")
	if addr == "" {
		t.Skip("BENCH_TRUST_SERVE not set: bench/trust-overhead.sh runs this server")
	}
	on := os.Getenv("BENCH_TRUST") != "off"
	s, _ := trustServer(t, on)
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	require.NoError(t, s.Serve(ctx, ln))
	t.Logf("served %s with the trust features on=%v", time.Since(start).Round(time.Second), on)
}
