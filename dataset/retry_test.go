package dataset

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/endpoint"
)

// grudging is a DynamoDB endpoint that makes a loader work for every
// item: every third BatchWriteItem is throttled outright, and the others
// process only the first half of their items, giving the rest back as
// UnprocessedItems. It keeps what it processed, by key.
type grudging struct {
	mu       sync.Mutex
	calls    int
	stored   map[string]int // PK\x00SK -> puts
	requests int
}

func (g *grudging) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if r.Header.Get("X-Amz-Target") != "DynamoDB_20120810.BatchWriteItem" {
		_, _ = w.Write([]byte(`{}`))
		return
	}
	var in struct {
		RequestItems map[string][]struct {
			PutRequest struct{ Item json.RawMessage }
		}
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	if g.calls%3 == 0 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`))
		return
	}
	out := map[string][]json.RawMessage{}
	for table, reqs := range in.RequestItems {
		keep := (len(reqs) + 1) / 2
		for i, rq := range reqs {
			if i >= keep {
				out[table] = append(out[table], json.RawMessage(`{"PutRequest":{"Item":`+string(rq.PutRequest.Item)+`}}`))
				continue
			}
			it, err := attr.DecodeItem(rq.PutRequest.Item)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			pk, _ := it.Get("PK")
			sk, _ := it.Get("SK")
			g.stored[pk.Str+"\x00"+sk.Str]++
		}
	}
	b, _ := json.Marshal(map[string]any{"UnprocessedItems": out})
	_, _ = w.Write(b)
}

// TestLoadRetries: against an endpoint that throttles and leaves items
// unprocessed, with the SDK's own retries off, the loader still writes
// every item (each one processed once: nothing lost, nothing applied
// twice), counting its retries and the unprocessed items it sent again.
func TestLoadRetries(t *testing.T) {
	p, err := New(loadModel(t, "testdata/library.yaml"), Options{Scale: 0.01, Seed: 3})
	require.NoError(t, err)
	g := &grudging{stored: map[string]int{}}
	srv := httptest.NewServer(g)
	defer srv.Close()
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: srv.URL, Retry: endpoint.NoRetry})
	require.NoError(t, err)
	defer tg.Close()
	sink := NewLoadSink(ctx, p, LoadOptions{Client: tg.Client, Concurrency: 4, MaxAttempts: 20, Backoff: time.Millisecond, Rules: capacity.Default()})
	res, err := p.Run(ctx, sink, RunOptions{Workers: 2})
	require.NoError(t, err)
	want := res.Tables["lending"].Items
	require.Greater(t, want, int64(100))
	assert.Equal(t, want, int64(len(g.stored)), "every item reached the table")
	for k, n := range g.stored {
		if n != 1 {
			t.Fatalf("%q processed %d times", k, n)
		}
	}
	assert.Equal(t, want, sink.Items.Load())
	assert.Greater(t, sink.Retries.Load(), int64(0))
	assert.Greater(t, sink.Unprocessed.Load(), int64(0))

	// A table that never takes anything: the load fails, saying so.
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"no"}`))
	}))
	defer never.Close()
	tg2, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: never.URL, Retry: endpoint.NoRetry})
	require.NoError(t, err)
	defer tg2.Close()
	sink2 := NewLoadSink(ctx, p, LoadOptions{Client: tg2.Client, Concurrency: 2, MaxAttempts: 3, Backoff: time.Millisecond, Rules: capacity.Default()})
	_, err = p.Run(ctx, sink2, RunOptions{Workers: 1})
	require.Error(t, err, "a load nothing was written by must fail")
	assert.Contains(t, err.Error(), "unprocessed after 3 attempts")
	assert.Zero(t, sink2.Items.Load())
}
