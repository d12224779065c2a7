package budget

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/input"
)

// server serves an embedded engine on a loopback port, as cardapio serve
// does, through handler wrappers that can alter what a target answers.
func server(t *testing.T, wrap func(http.Handler) http.Handler) (*engine.Engine, string) {
	t.Helper()
	e := engine.New(engine.Options{})
	var h http.Handler = e.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return e, s.URL
}

func tableNames(t *testing.T, url string) []string {
	t.Helper()
	tg, err := endpoint.Open(context.Background(), endpoint.Options{EndpointURL: url})
	require.NoError(t, err)
	out, err := tg.Client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	return out.TableNames
}

// foreign creates a table the gate did not create, named like the run's.
func foreign(t *testing.T, url, name string) {
	t.Helper()
	tg, err := endpoint.Open(context.Background(), endpoint.Options{EndpointURL: url})
	require.NoError(t, err)
	_, err = tg.Client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

// TestEndpointRunCleansUp: over a socket, as against cardapio serve, the
// run measures what the embedded engine measures in process, deletes
// every table it created and no other, even one named like its own.
func TestEndpointRunCleansUp(t *testing.T) {
	m := load(t, "../model.yaml")
	_, url := server(t, nil)
	foreign(t, url, "run-collections-not-ours")
	foreign(t, url, "cardapio-00000000-collections")
	only := []string{"ApplySettlement", "ClaimContact", "DebtorView", "PortfolioByBucket"}
	rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, TablePrefix: "run-", Only: only})
	require.NoError(t, err)
	assert.True(t, rep.OK, "%+v", rep.Summary)
	assert.Equal(t, "endpoint", rep.Kind)
	assert.Equal(t, "native", rep.Keys)
	assert.Empty(t, rep.Notes, "the engine reports index capacity")
	assert.Zero(t, rep.Summary.Drift)
	assert.Len(t, rep.Results, 9)
	assert.ElementsMatch(t, []string{"run-collections-not-ours", "cardapio-00000000-collections"}, tableNames(t, url))

	inproc, err := Run(context.Background(), m, "model.yaml", Options{Only: only})
	require.NoError(t, err)
	require.Len(t, inproc.Results, len(rep.Results))
	for i := range rep.Results {
		assert.Equal(t, inproc.Results[i].Measured, rep.Results[i].Measured, rep.Results[i].Name())
	}

	rep, err = Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, TablePrefix: "kept-", Keep: true, Only: []string{"ClaimContact/allowed"}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"run-collections-not-ours", "cardapio-00000000-collections", "kept-collections", "kept-collections-history"}, tableNames(t, url))
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "tables kept (--keep): kept-collections, kept-collections-history")
}

// TestInterruptDeletesTables: a run cancelled between variants (Ctrl-C)
// returns an error and leaves no table behind.
func TestInterruptDeletesTables(t *testing.T) {
	m := load(t, "../model.yaml")
	_, url := server(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	_, err := Run(ctx, m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: []string{"ApplySettlement", "ClaimContact"},
		Progress: func(*Result) {
			if n++; n == 2 {
				cancel()
			}
		}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.Empty(t, tableNames(t, url))
}

// stripIndexes removes index figures from every ConsumedCapacity, as an
// engine that does not report them (dynalite) answers.
func stripIndexes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			strip := func(v any) {
				if cc, ok := v.(map[string]any); ok {
					delete(cc, "GlobalSecondaryIndexes")
					delete(cc, "LocalSecondaryIndexes")
				}
			}
			switch cc := doc["ConsumedCapacity"].(type) {
			case []any:
				for _, c := range cc {
					strip(c)
				}
			default:
				strip(cc)
			}
			body, _ = json.Marshal(doc)
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" && !strings.HasPrefix(k, "X-Amz-Crc32") && k != "X-Cardapio-Consumed-Capacity" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// TestNoIndexCapacity: a target that reports no index capacity is found
// by the probe; its index figures are computed by the rules and marked,
// said as a known difference, not drift, and the verdicts stand.
func TestNoIndexCapacity(t *testing.T) {
	m := load(t, "../model.yaml")
	_, url := server(t, stripIndexes)
	rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: []string{"ApplySettlement/cures", "PortfolioByBucket"}})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Notes)
	assert.Contains(t, rep.Notes[0], "reports no index capacity")
	assert.True(t, rep.OK)
	assert.Zero(t, rep.Summary.Drift)
	for _, r := range rep.Results {
		assert.NotEmpty(t, r.Known, r.Name())
		assert.Equal(t, r.Static, r.Measured.Units(), r.Name())
	}
	// A write's index charges are missing: computed by the rules.
	cures := rep.Results[0]
	assert.True(t, cures.Measured.Computed)
	assert.Contains(t, strings.Join(cures.Known, "\n"), "GSI1: the target reports no index capacity; 1 WRU computed by the billing rules")
	// An index read is reported as the table's: moved to the index, measured.
	page := rep.Results[1]
	assert.False(t, page.Measured.Computed)
	assert.Equal(t, map[string]Units{"GSI2": {RRU: 3}}, page.Measured.Indexes)
	assert.Empty(t, page.Measured.Tables)
	assert.Contains(t, page.Known[0], "reports the read of GSI2 as the table's")
}

// refuseTransactions answers TransactWriteItems as a server without
// transactions does.
func refuseTransactions(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.TransactWriteItems" {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"__type":"com.amazon.coral.service#UnknownOperationException","message":"An unknown operation was requested."}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestUnsupportedOperation: a variant the target cannot run is an error
// that fails the gate, with the target's words, not a pass.
func TestUnsupportedOperation(t *testing.T) {
	m := load(t, "../model.yaml")
	_, url := server(t, refuseTransactions)
	rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}, Only: []string{"ApplySettlement/cures", "ClaimContact/allowed"}})
	require.NoError(t, err)
	assert.False(t, rep.OK)
	assert.Equal(t, 1, rep.Summary.Error)
	assert.Equal(t, 1, rep.Summary.Pass)
	r := rep.Results[0]
	assert.Equal(t, Error, r.Verdict)
	assert.Contains(t, r.Explanation, "UnknownOperationException")
	assert.Contains(t, r.Explanation, "step apply")
}

// TestSyntheticKeysDrift: with indexes on their synthetic fallback the
// items carry the concatenated keys, so index reads are dearer than the
// native design's estimate: drift, fatal only under FailOnDrift.
func TestSyntheticKeysDrift(t *testing.T) {
	m := load(t, "../model.yaml")
	only := []string{"PortfolioByBucket"}
	rep, err := Run(context.Background(), m, "model.yaml", Options{Keys: catalog.KeysSynthetic, Only: only})
	require.NoError(t, err)
	assert.Equal(t, "synthetic", rep.Keys)
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "synthetic fallback")
	require.Len(t, rep.Results, 1)
	r := rep.Results[0]
	require.NotEmpty(t, r.Drift)
	assert.Equal(t, "GSI2", r.Drift[0].Target)
	assert.Greater(t, r.Drift[0].Measured, r.Drift[0].Static)
	assert.Equal(t, Pass, r.Verdict, "the measured figure decides: still within budget")
	assert.True(t, rep.OK)

	rep, err = Run(context.Background(), m, "model.yaml", Options{Keys: catalog.KeysSynthetic, Only: only, FailOnDrift: true})
	require.NoError(t, err)
	assert.False(t, rep.OK)
	assert.Equal(t, Fail, rep.Results[0].Verdict)
	assert.Contains(t, rep.Results[0].Explanation, "fatal under --fail-on-drift")
}

// TestOnlyErrors: --only names what the model has, with hints.
func TestOnlyErrors(t *testing.T) {
	m := load(t, "../model.yaml")
	_, err := Run(context.Background(), m, "model.yaml", Options{Only: []string{"ApplySettlment", "DebtorView/typicl", "OnboardDebtor/new,OpenInstallments"}})
	var ie *input.Error
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), `--only ApplySettlment: the model has no operation "ApplySettlment" (did you mean "ApplySettlement"?)`)
	assert.Contains(t, err.Error(), `--only DebtorView/typicl: DebtorView has variants typical (did you mean "typical"?)`)
	assert.NotContains(t, err.Error(), "OnboardDebtor")
	_, err = Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{AWS: true, EndpointURL: "http://127.0.0.1:1"}})
	require.ErrorAs(t, err, &ie)
}
