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
)

// TestEndpointStreams: on a server that turns streams on with UpdateTable
// the run's tables are created without theirs and get them once seeded;
// on one that refuses (dynalite), they are created with their streams.
func TestEndpointStreams(t *testing.T) {
	m := load(t, "../model.yaml")
	only := []string{"PortfolioByBucket/page"}
	for _, refuse := range []bool{false, true} {
		var creates, withStream, enables atomic.Int64
		_, url := server(t, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
				if op == "CreateTable" || op == "UpdateTable" {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(strings.NewReader(string(body)))
					stream := strings.Contains(string(body), `"StreamSpecification"`)
					switch {
					case op == "UpdateTable" && refuse:
						w.Header().Set("Content-Type", "application/x-amz-json-1.0")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = w.Write([]byte(`{"__type":"com.amazon.coral.validate#ValidationException","message":"At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"}`))
						return
					case op == "UpdateTable" && stream:
						enables.Add(1)
					case op == "CreateTable":
						creates.Add(1)
						if stream {
							withStream.Add(1)
						}
					}
				}
				h.ServeHTTP(w, r)
			})
		})
		rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: only})
		require.NoError(t, err)
		assert.True(t, rep.OK, "%+v", rep.Results)
		if refuse {
			assert.EqualValues(t, 1, withStream.Load(), "the table that declares a stream is created with it")
			assert.Zero(t, enables.Load())
		} else {
			assert.Zero(t, withStream.Load(), "no table is created with its stream")
			assert.EqualValues(t, 2, enables.Load(), "the probe's, and the one the model declares, once seeded")
		}
		assert.Greater(t, creates.Load(), int64(2))
	}
}
