package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

// TestSyntheticKeys runs every operation and variant with the indexes
// keyed on their synthetic fallback, as on a target without
// multi-attribute keys: the outcomes, the items every read returns and
// the indexes every write touches are those of the native run. The
// figures may differ by the synthetic attributes' bytes, which the items
// then carry.
func TestSyntheticKeys(t *testing.T) {
	m := load(t, "../model.yaml")
	ctx := context.Background()
	for _, ov := range variants(m) {
		t.Run(ov[0]+"/"+ov[1], func(t *testing.T) {
			tg, err := endpoint.Open(ctx, endpoint.Options{})
			require.NoError(t, err)
			results := [2]*executor.Result{nativeRun(t, m, ov), runOn(t, tg, m, catalog.KeysSynthetic, ov)}
			n, s := results[0], results[1]
			require.Equal(t, n.Outcome.Kind, s.Outcome.Kind, "synthetic: %+v", s.Outcome)
			require.Equal(t, len(n.Steps), len(s.Steps))
			for i := range n.Steps {
				assert.Equal(t, n.Steps[i].Items, s.Steps[i].Items, "step %s reads the same items", n.Steps[i].ID)
				assert.Equal(t, n.Steps[i].Capacity.IndexNames(), s.Steps[i].Capacity.IndexNames(), "step %s charges the same indexes", n.Steps[i].ID)
			}
			if n.Capacity.WRU != s.Capacity.WRU || n.Capacity.RRU != s.Capacity.RRU {
				t.Logf("%s/%s: native %v WRU %v RRU, synthetic %v WRU %v RRU (the synthetic attributes' bytes)", ov[0], ov[1], n.Capacity.WRU, n.Capacity.RRU, s.Capacity.WRU, s.Capacity.RRU)
			}
		})
	}
}

// TestSyntheticRequests shows the rewriting on the reference model: a
// cure REMOVEs the synthetic keys built from what it removes, a reschedule
// SETs GSI1's from the values it assigns and the shard computed from the
// contract, and the agenda query addresses the synthetic keys.
func TestSyntheticRequests(t *testing.T) {
	m := load(t, "../model.yaml")
	plan := func(op, v string) *executor.Plan {
		p, err := executor.Compile(m, m.Operation(op), v, nil, catalog.KeysSynthetic)
		require.NoError(t, err)
		return p
	}
	cure := plan("ApplySettlement", "cures").Steps[1].Actions[2]
	// GSI2SK holds the balance and the contract, both still there: it is
	// kept (the item is out of GSI2 because GSI2PK goes with the bucket).
	assert.Equal(t, "SET GSI2SK = :GSI2SK, outstandingCents = :bal, #status = :st, statusReason = :why, version = version + :one, updatedAt = :now REMOVE GSI1PK, GSI1SK, GSI2PK, oldestOverdueDueDate, #bucket, nextActionDate, nextAction", cure.Update)
	re := plan("RescheduleNextAction", "move").Steps[0]
	assert.Equal(t, "SET GSI1PK = :GSI1PK, GSI1SK = :GSI1SK, nextActionDate = :nad, nextAction = :na, version = version + :one, updatedAt = :now", re.Update)
	q := plan("DunningAgenda", "page-per-shard").Steps[0]
	assert.Equal(t, "GSI1PK = :GSI1PK AND begins_with(GSI1SK, :GSI1SK)", q.KeyCondition)
	w := plan("WeekendRollInto31", "one-page").Steps[0]
	assert.Equal(t, "GSI2PK = :GSI2PK", w.KeyCondition)
}
