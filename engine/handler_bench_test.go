package engine

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkHandlerGetPut serves 300-byte GetItems and PutItems (each put
// changing its item) of a table of 50,000 items through the server's
// handler as cardapio serve runs it, without a socket: the engine's
// share of a loopback request, in CPU time (which the machine's other
// work distorts far less than wall time) and allocations.
func BenchmarkHandlerGetPut(b *testing.B) {
	const keys = 50000
	s, err := NewServer(ServerOptions{LoopbackHosts: true})
	require.NoError(b, err)
	e, err := s.space("us-east-1", "000000000000")
	require.NoError(b, err)
	benchTable(b, e, "Bench")
	for i := range keys {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Bench", Item: item300("user#"+strconv.Itoa(i), i)})
		require.NoError(b, err)
	}
	const auth = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000"
	pad := strings.Repeat("n", 213)
	bodies := map[string]func(i int) string{
		"get": func(i int) string {
			k := i * 7919 % keys
			return `{"TableName":"Bench","Key":{"pk":{"S":"user#` + strconv.Itoa(k) + `"},"sk":{"N":"` + strconv.Itoa(k) + `"}}}`
		},
		"put": func(i int) string {
			k := i * 7919 % keys
			return `{"TableName":"Bench","Item":{"pk":{"S":"user#` + strconv.Itoa(k) + `"},"sk":{"N":"` + strconv.Itoa(k) + `"},"name":{"S":"Maria da Silva"},"email":{"S":"maria.silva@example.com"},"balance":{"N":"1` + strconv.Itoa(i%1e9) + `"},"active":{"BOOL":true},"note":{"S":"` + pad + `"}}}`
		},
	}
	for _, op := range []string{"get", "put"} {
		b.Run(op, func(b *testing.B) {
			target := targetPrefix + map[string]string{"get": "GetItem", "put": "PutItem"}[op]
			// A ring of requests whose bodies are rewound for each use,
			// and one response writer reset each time: what the loop
			// measures is the handler.
			const ring = 1024
			reqs := make([]*http.Request, ring)
			rds := make([]*bytes.Reader, ring)
			for j := range reqs {
				body := []byte(bodies[op](j))
				rds[j] = bytes.NewReader(body)
				reqs[j] = httptest.NewRequest("POST", "/", rds[j])
				reqs[j].Host = "127.0.0.1:8000"
				reqs[j].Header.Set("X-Amz-Target", target)
				reqs[j].Header.Set("Authorization", auth)
				reqs[j].Header.Set("X-Amz-Date", "20260101T000000Z")
			}
			w := &benchWriter{h: http.Header{}}
			b.ReportAllocs()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % ring
				rds[j].Seek(0, io.SeekStart)
				reqs[j].Body = io.NopCloser(rds[j])
				clear(w.h)
				w.code, w.n = 0, 0
				s.ServeHTTP(w, reqs[j])
				if w.code != 200 {
					b.Fatal(w.code)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchWriter is a ResponseWriter that keeps the status and counts the
// body's bytes.
type benchWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *benchWriter) Header() http.Header  { return w.h }
func (w *benchWriter) WriteHeader(code int) { w.code = code }
func (w *benchWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	w.n += len(b)
	return len(b), nil
}
