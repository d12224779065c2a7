package budget

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/input"
)

// throttleFirst answers the first n requests of one operation with a
// ThrottlingException, as a table over its capacity does, and counts them.
func throttleFirst(op string, n int64, seen *atomic.Int64) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810."+op && seen.Add(1) <= n {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// TestRetries: by default a throttled request is sent once and the
// variant is an error that names the throttle (a retry would hide it);
// with Retries the SDK sends it again and the figure is the retried
// answer's. The report says which policy ran.
func TestRetries(t *testing.T) {
	m := load(t, "../model.yaml")
	only := []string{"PortfolioByBucket/page"}

	var seen atomic.Int64
	_, url := server(t, throttleFirst("Query", 1, &seen))
	rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: only})
	require.NoError(t, err)
	assert.Equal(t, "no retries (1 attempt)", rep.Retry)
	assert.Zero(t, rep.Retries)
	assert.False(t, rep.OK)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, Error, rep.Results[0].Verdict)
	assert.Contains(t, rep.Results[0].Explanation, "throttled")
	assert.EqualValues(t, 1, seen.Load(), "sent once")

	seen.Store(0)
	_, url = server(t, throttleFirst("Query", 2, &seen))
	rep, err = Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: only, Retries: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Retries)
	assert.True(t, strings.HasPrefix(rep.Retry, "3 attempts"), rep.Retry)
	assert.True(t, rep.OK, "%+v", rep.Results)
	assert.Equal(t, 3.0, rep.Results[0].Measured.RRU)
	assert.EqualValues(t, 3, seen.Load(), "two throttled attempts, then the answer")

	// The option replaces whatever policy the target options carried.
	seen.Store(0)
	_, url = server(t, throttleFirst("Query", 1, &seen))
	rep, err = Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url, Retry: endpoint.Standard}, Only: only})
	require.NoError(t, err)
	assert.Equal(t, Error, rep.Results[0].Verdict)

	_, err = Run(context.Background(), m, "model.yaml", Options{Only: only, Retries: -1})
	var ie *input.Error
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "--retries must be 0 or more")
}
