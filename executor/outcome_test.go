package executor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/throughput"
)

// seedRun seeds a variant and runs it n times on the same state, so that
// later runs meet what earlier ones left: a real duplicate, a real limit,
// a real lost race.
func seedRun(t *testing.T, x *executor.Executor, op, variant string, n int) []*executor.Result {
	t.Helper()
	ctx := context.Background()
	in := executor.Input{Operation: op, Variant: variant}
	s, err := x.Seed(ctx, in)
	require.NoError(t, err)
	in.Before = s.Before
	var out []*executor.Result
	for range n {
		r, err := x.Run(ctx, in)
		require.NoError(t, err)
		out = append(out, r)
	}
	return out
}

// failure returns the model's declared failure of a step.
func failure(m *catalog.Model, op, step string) *catalog.Failure {
	q := m.Operation(op).Step(step).Request
	if q.OnConditionFailed != nil {
		return q.OnConditionFailed
	}
	return q.OnMissing
}

func TestOutcomes(t *testing.T) {
	m := load(t, "../model.yaml")
	cases := []struct {
		op, variant string
		runs        int
		kind        executor.Kind
		step        string // the step (action) that decides, as the model names it
	}{
		// The same webhook twice: the second finds its settlement.
		{"ApplySettlement", "cures", 2, executor.AlreadyApplied, "apply/settlement"},
		// The third contact of the day is the last allowed; the next is refused.
		{"ClaimContact", "allowed", 2, executor.LimitReached, "claim"},
		// The second reschedule carries the version the first one replaced.
		{"RescheduleNextAction", "move", 2, executor.VersionConflict, "reschedule"},
		{"OnboardDebtor", "new", 2, executor.Exists, "profile"},
		{"PublishPolicy", "new", 2, executor.Exists, "publish"},
		{"CreateCharge", "new", 2, executor.AlreadyApplied, "create/lookup"},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			x, done := fresh(t, m, catalog.KeysNative)
			defer done()
			rs := seedRun(t, x, c.op, c.variant, c.runs)
			assert.Equal(t, executor.Applied, rs[0].Outcome.Kind, "%+v", rs[0].Outcome)
			last := rs[len(rs)-1].Outcome
			require.Equal(t, c.kind, last.Kind, "%+v", last)
			assert.Equal(t, c.step, last.Step)
			id := c.step[strings.LastIndex(c.step, "/")+1:]
			f := failure(m, c.op, id)
			assert.Equal(t, f.Meaning, last.Meaning, "the model's words")
			assert.Equal(t, f.Outcome, last.Declared)
			assert.False(t, rs[len(rs)-1].Capacity.Computed, "the engine reports what the refused write billed")
			assert.Positive(t, rs[len(rs)-1].Capacity.WRU, "a refused write is billed")
		})
	}
}

// TestNotFound: a settlement whose charge does not exist is refused at the
// charge lookup, in the model's words, and nothing is written.
func TestNotFound(t *testing.T) {
	m := load(t, "../model.yaml")
	x, done := fresh(t, m, catalog.KeysNative)
	defer done()
	r, err := x.Run(context.Background(), executor.Input{Operation: "ApplySettlement", Variant: "cures"})
	require.NoError(t, err)
	assert.Equal(t, executor.NotFound, r.Outcome.Kind)
	assert.Equal(t, "charge", r.Outcome.Step)
	assert.Equal(t, failure(m, "ApplySettlement", "charge").Meaning, r.Outcome.Meaning)
	assert.False(t, r.Outcome.OK(), "declared fail")
	require.Len(t, r.Steps, 1, "the transaction is not sent")
	assert.Equal(t, 0.0, r.Capacity.WRU)
	assert.Equal(t, 1.0, r.Capacity.RRU, "a strongly consistent get of a missing item costs 1")
}

// TestThrottled: under the engine's throughput model at 1/1000 scale, a
// hot partition refuses writes, and the run says which limit, where.
func TestThrottled(t *testing.T) {
	m := load(t, "../model.yaml")
	ctx := context.Background()
	clk := throughput.NewManualClock(time.Date(2026, 9, 24, 0, 7, 0, 0, time.UTC))
	tm, err := throughput.New(throughput.Config{Scale: 0.001, Now: clk.Now})
	require.NoError(t, err)
	tg, err := endpoint.Open(ctx, endpoint.Options{Engine: engine.Options{Throughput: tm, Now: clk.Now}})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "th-"})
	require.NoError(t, err)
	x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Loader: tg})
	var last *executor.Result
	for i := 0; i < 5000; i++ {
		// Every policy version of one tenant lives in one partition.
		last, err = x.Run(ctx, executor.Input{Operation: "PublishPolicy", Variant: "new",
			Params: map[string]attr.Value{"policyVersion": attr.Str(fmt.Sprintf("v%04d", i))}})
		require.NoError(t, err)
		if last.Outcome.Kind != executor.Applied {
			break
		}
	}
	require.Equal(t, executor.Throttled, last.Outcome.Kind, "%+v", last.Outcome)
	require.NotEmpty(t, last.Outcome.Throttling)
	assert.Equal(t, "TableWriteKeyRangeThroughputExceeded", last.Outcome.Throttling[0].Reason)
	assert.Contains(t, last.Outcome.Throttling[0].Resource, "th-collections")
	assert.False(t, last.Outcome.OK())
	assert.Equal(t, 0.0, last.Capacity.WRU, "a throttled request is not billed")
}
