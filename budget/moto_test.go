package budget

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/moto"
)

// probeTable creates a table keyed on pk on tg, for misbilling.
func probeTable(t *testing.T, tg *endpoint.Target) string {
	t.Helper()
	name := endpoint.UniquePrefix() + "billing"
	ctx := context.Background()
	_, err := tg.Client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = tg.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name
}

// TestMisbilling: the embedded engine answers the probe's requests as the
// billing rules do; moto, which reports a constant per request kind, is
// caught on the put and the scan page.
func TestMisbilling(t *testing.T) {
	ctx := context.Background()
	emb, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(t, err)
	defer emb.Close()
	wrong, err := misbilling(ctx, emb.Client, probeTable(t, emb), capacity.Default())
	require.NoError(t, err)
	assert.Empty(t, wrong, "the embedded engine bills by the rules")

	m, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: moto.Endpoint(t)})
	require.NoError(t, err)
	defer m.Close()
	wrong, err = misbilling(ctx, m.Client, probeTable(t, m), capacity.Default())
	require.NoError(t, err)
	text := strings.Join(wrong, "\n")
	assert.Contains(t, text, "an eventually consistent scan page of 1 item (1,518 B): the target reports 1 RRU; AWS's rules give 0.5")
	assert.Contains(t, text, "WRU; AWS's rules give 2")
}

// TestMoto runs both example models' operations on moto (small reads, and
// transactions, which moto takes) and on the embedded engine: the gate
// finds that moto misbills, says where each of its figures contradicts the
// rules, and reaches the embedded engine's verdicts and figures, never
// blaming a budget for the emulator's arithmetic. On the embedded engine
// nothing is reported as misbilled.
func TestMoto(t *testing.T) {
	if testing.Short() {
		t.Skip("runs both models on moto")
	}
	url := moto.Endpoint(t)
	for _, path := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		t.Run(path, func(t *testing.T) {
			m := load(t, path)
			only := supported(m, 50, true)
			require.NotEmpty(t, only)
			ctx := context.Background()
			want, err := Run(ctx, m, path, Options{Only: only})
			require.NoError(t, err)
			got, err := Run(ctx, m, path, Options{Target: endpoint.Options{EndpointURL: url}, Only: only})
			require.NoError(t, err)
			assert.Contains(t, strings.Join(got.Notes, "\n"), misbillNote)
			assert.NotContains(t, strings.Join(want.Notes, "\n"), misbillNote)
			require.Len(t, got.Results, len(want.Results))
			contradicted := 0
			for i, r := range got.Results {
				w := want.Results[i]
				require.Equal(t, w.Name(), r.Name())
				assert.Equal(t, w.Verdict, r.Verdict, "%s: %s", r.Name(), r.Explanation)
				assert.InDelta(t, w.Measured.WRU, r.Measured.WRU, 1e-9, r.Name())
				assert.InDelta(t, w.Measured.RRU, r.Measured.RRU, 1e-9, r.Name())
				assert.NotContains(t, r.Explanation, "below what the operation consumes", r.Name())
				for _, k := range w.Known {
					assert.NotContains(t, k, "the target reports", "%s: the embedded engine misbills nothing", w.Name())
				}
				for _, k := range r.Known {
					if strings.Contains(k, "the target reports") && strings.Contains(k, "AWS's rules give") {
						contradicted++
					}
				}
			}
			assert.Positive(t, contradicted, "moto's figures are contradicted somewhere")
		})
	}
}
