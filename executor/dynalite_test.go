package executor_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

// TestDynalite runs every operation and variant of model.yaml against
// dynalite (DYNALITE_ENDPOINT, which .ci/run starts), an independent
// engine. dynalite has no multi-attribute keys, so auto takes the
// synthetic fallback. What it reports differs from DynamoDB's rules in
// ways this test states rather than hides:
//
//   - no index capacity on writes: a write's ConsumedCapacity carries the
//     table's units only, so its index charges (GSI key moves) are absent;
//     a query of an index does report the index;
//   - its own sizing of pages: a 1 MB page of GSI2 entries (the weekend's
//     roll into 31+) is 153.5 RRU there against 128.5 on the embedded
//     engine;
//   - no transactions: TransactWriteItems is unknown, and the operations
//     that need one end in an error;
//   - no ConsumedCapacity on a refused write, and no billing header: the
//     figure is computed by the capacity rules and marked so.
//
// Outcomes and the items every read returns must still be those of the
// embedded engine run on the same synthetic keys. Variants that seed more
// than 5,000 items (the 16-shard fan-outs, up to 48,000) take minutes on
// dynalite and run only with DYNALITE_ALL=1; the embedded engine and
// cardapio serve run them all.
func TestDynalite(t *testing.T) {
	url := os.Getenv("DYNALITE_ENDPOINT")
	if url == "" {
		t.Skip("DYNALITE_ENDPOINT is not set (.ci/run starts dynalite)")
	}
	m := load(t, "../model.yaml")
	ctx := context.Background()
	remote, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: url})
	require.NoError(t, err)
	k, err := remote.ProbeKeys(ctx, endpoint.UniquePrefix())
	require.NoError(t, err)
	require.Equal(t, catalog.KeysSynthetic, k, "dynalite has no multi-attribute keys")
	local, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(t, err)
	for _, ov := range variants(m) {
		t.Run(ov[0]+"/"+ov[1], func(t *testing.T) {
			if seeded(t, local, m, ov) > 5000 && os.Getenv("DYNALITE_ALL") == "" {
				t.Skip("seeds more than 5,000 items; DYNALITE_ALL=1 runs it")
			}
			want := runOn(t, local, m, catalog.KeysSynthetic, ov)
			got := runOn(t, remote, m, catalog.KeysSynthetic, ov)
			usesTxn := false
			for _, s := range want.Steps {
				usesTxn = usesTxn || s.Kind == "transaction"
			}
			if usesTxn {
				assert.Equal(t, "error", string(got.Outcome.Kind), "dynalite has no transactions: %+v", got.Outcome)
				assert.Contains(t, got.Outcome.Message, "UnknownOperationException")
				return
			}
			require.Equal(t, want.Outcome.Kind, got.Outcome.Kind, "%+v", got.Outcome)
			for i := range want.Steps {
				assert.Equal(t, want.Steps[i].Items, got.Steps[i].Items, "step %s", want.Steps[i].ID)
			}
			for i, st := range got.Steps {
				if st.Kind.IsWrite() {
					assert.Empty(t, st.Capacity.Indexes, "dynalite reports no index capacity on writes")
				} else {
					assert.Equal(t, want.Steps[i].Capacity.IndexNames(), st.Capacity.IndexNames(), "an index read reports its index")
				}
			}
			// The table's figures are dynalite's own sizing; they are
			// shown, not asserted.
			t.Logf("embedded: %s | dynalite: %s", strings.Join(figures(want.Capacity), "; "), strings.Join(figures(got.Capacity), "; "))
			if got.Outcome.Kind != "applied" {
				assert.True(t, got.Capacity.Computed, "a refused write's figure is computed on dynalite")
			}
		})
	}
}

// seeded counts the items a variant's seed writes.
func seeded(t *testing.T, tg *endpoint.Target, m *catalog.Model, ov [2]string) int {
	ctx := context.Background()
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Keys: catalog.KeysNative})
	require.NoError(t, err)
	defer func() { _ = ts.Delete(ctx) }()
	s, err := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Loader: tg}).Seed(ctx, executor.Input{Operation: ov[0], Variant: ov[1]})
	require.NoError(t, err)
	return s.Items
}
