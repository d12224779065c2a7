package planner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/planner"
)

func load(t testing.TB, path string) *catalog.Model {
	t.Helper()
	m, err := catalog.Load(path)
	require.NoError(t, err)
	return m
}

func resource(t *testing.T, r *planner.Result, index string) *planner.Resource {
	t.Helper()
	for i := range r.Resources {
		if r.Resources[i].Index == index {
			return &r.Resources[i]
		}
	}
	t.Fatalf("no resource %q", index)
	return nil
}

func loadOf(t *testing.T, r *planner.Result, op string) *planner.LoadPlan {
	t.Helper()
	for i := range r.Loads {
		if r.Loads[i].Operation == op {
			return &r.Loads[i]
		}
	}
	t.Fatalf("no load %s", op)
	return nil
}

// The source's incident at full scale: the 00h07 batch moves 1.2M
// contracts of the largest tenant to tomorrow's agenda key; without the
// shard that key is one GSI1 partition, its 1,000 WCU/s cap refuses the
// index writes, and the settlements arriving meanwhile are refused by
// back-pressure. With the model's 16 shards nothing is throttled.
func TestIncident(t *testing.T) {
	m := load(t, "../model.yaml")
	opts := planner.Options{Scenario: "midnight-0007", Shards: map[string]int{"GSI1": 1}, SearchShards: true}
	r, err := planner.Plan(m, opts)
	require.NoError(t, err)
	assert.Equal(t, 16, m.Index("GSI1").Shards.Count, "the what-if is undone")
	require.True(t, r.Verdict.Throttled, r.Verdict.Summary)
	f := r.First[0]
	assert.Equal(t, "GSI1", f.Index)
	assert.Equal(t, "write", f.Direction)
	assert.Equal(t, "IndexWriteKeyRangeThroughputExceeded", f.Reason)
	assert.NotEmpty(t, f.Partition)
	// The batch passes 1,000 reschedules a second on its way up to
	// 2,000: 300 s into the 600 s ramp.
	assert.InDelta(t, 300, f.Second, 40)
	resch := loadOf(t, r, "RescheduleNextAction")
	assert.InDelta(t, 1.2e6, resch.Requests, 1)
	assert.Greater(t, resch.Throttled, 1e5)
	settle := loadOf(t, r, "ApplySettlement")
	assert.Greater(t, settle.Throttled, 100.0, "settlements are refused by GSI1's back-pressure")
	assert.Greater(t, settle.Reasons["IndexWriteKeyRangeThroughputExceeded"], 100.0)
	gsi1 := resource(t, r, "GSI1")
	// One key cannot pass one partition's cap: once the second it holds
	// banked is spent, the hottest partition consumes at most 1,000 WCU
	// a second, splits or not.
	for _, p := range gsi1.Write[f.Second+1:] {
		assert.LessOrEqual(t, p.Hottest, 1000*(1+1e-6), "second %d", p.Second)
	}
	assert.Greater(t, gsi1.Hottest[0].PeakDemand.Write, 1500.0)
	assert.Greater(t, gsi1.Throttled.Write, 1e5)
	// The shard count found is the one that throttles nothing.
	require.Len(t, r.Advice.Shards, 1)
	assert.Equal(t, "GSI1", r.Advice.Shards[0].Index)
	assert.Greater(t, r.Advice.Shards[0].NoThrottle, 1)
	assert.LessOrEqual(t, r.Advice.Shards[0].NoThrottle, 16)
	hm := false
	for _, h := range r.Heatmaps {
		if h.Index == "GSI1" && h.Direction == "write" {
			hm = true
			require.NotEmpty(t, h.Cells)
			assert.Len(t, h.Cells[0], (r.Seconds+h.Resolution-1)/h.Resolution)
		}
	}
	assert.True(t, hm, "GSI1's heatmap")

	// The fix: the model as declared, 16 shards.
	r, err = planner.Plan(m, planner.Options{Scenario: "midnight-0007"})
	require.NoError(t, err)
	assert.False(t, r.Verdict.Throttled, r.Verdict.Summary)
	assert.Empty(t, r.First)
	assert.Zero(t, loadOf(t, r, "ApplySettlement").Throttled)
	assert.Zero(t, resource(t, r, "GSI1").Throttled.Write)
	assert.Greater(t, resource(t, r, "GSI1").PeakDemand.Write, 3500.0, "2 GSI1 writes a reschedule at 2,000 a second")
}

// A GSI key change costs the index two writes, the old entry's delete
// where it was and the new one's put where it goes (AWS's documented
// figure): the reschedule's step charges GSI1 twice, on two keys, but for
// the contracts already on tomorrow's key, whose entry is updated in
// place (one write).
func TestIndexKeyChange(t *testing.T) {
	m := load(t, "../model.yaml")
	r, err := planner.Plan(m, planner.Options{Scenario: "midnight-0007", Duration: time.Minute})
	require.NoError(t, err)
	st := loadOf(t, r, "RescheduleNextAction").Steps[0]
	assert.Less(t, st.WRU, 3.0, "1 on the table, 2 on GSI1, 1 for an entry that stays")
	assert.Greater(t, st.WRU, 2.75, "1 on the table, 2 on GSI1, 1 for an entry that stays")
	n := 0
	for _, k := range st.Keys {
		if len(k) >= 4 && k[:4] == "GSI1" {
			n++
		}
	}
	assert.Equal(t, 2, n, "%v", st.Keys)
}

// On demand, a table serves at once up to its warm throughput, and twice
// the previous peak once the peak is 30 minutes old (AWS's documented
// figures): demand of twice the orders table's warm writes is throttled
// at the warm throughput for half an hour, then served.
func TestOnDemandDoubling(t *testing.T) {
	m := load(t, "../examples/orders/model.yaml")
	op := m.Operation("CreateOrder")
	require.NotNil(t, op)
	even := &catalog.Shape{Kind: "even", Points: []catalog.RatePoint{{At: 0, PerSecond: 10000}, {At: time.Minute, PerSecond: 10000}}}
	m.Scenarios = append(m.Scenarios, catalog.Scenario{Name: "surge", At: "10:00", Start: 10 * time.Hour,
		Load: []catalog.LoadItem{{Operation: "CreateOrder", Name: "CreateOrder", Rate: &catalog.Rate{Count: 10000, Per: "second"},
			Plan: &catalog.LoadPlan{Start: 10 * time.Hour, Shape: even}}}})
	r, err := planner.Plan(m, planner.Options{Scenario: "surge", Duration: time.Hour, Resolution: 1})
	require.NoError(t, err)
	table := resource(t, r, "")
	warm := table.Write[0].Limit
	assert.Equal(t, 12000.0, warm, "the model's warm throughput")
	// The first second also spends the second banked; then the table
	// serves its warm throughput and refuses the rest for 30 minutes.
	mid := table.Write[600]
	require.Greater(t, mid.Demand, warm*1.2)
	assert.InDelta(t, warm, mid.Consumed, 1)
	assert.Greater(t, mid.Throttled, 0.0)
	assert.Equal(t, warm, mid.Limit)
	late := table.Write[len(table.Write)-1]
	assert.GreaterOrEqual(t, late.Limit, 2*warm)
	assert.Zero(t, late.Throttled)
	assert.InDelta(t, late.Demand, late.Consumed, 1)
	assert.Contains(t, r.Throttled.Reasons, "TableWriteKeyRangeThroughputExceeded")
	// An hour of seconds: the heatmap's columns are 3 seconds each.
	require.NotEmpty(t, r.Heatmaps)
	for _, h := range r.Heatmaps {
		assert.Equal(t, 3, h.Resolution)
		for _, row := range h.Cells {
			assert.Len(t, row, 1200)
		}
	}
}

// The orders example from its model alone: the 09:00 queue with its 10
// shards passes; without them the PENDING partition refuses checkouts.
func TestOrdersPlan(t *testing.T) {
	m := load(t, "../examples/orders/model.yaml")
	r, err := planner.Plan(m, planner.Options{Scenario: "queue-0900"})
	require.NoError(t, err)
	assert.False(t, r.Verdict.Throttled, r.Verdict.Summary)
	assert.Greater(t, r.Population.Items, 1e6)
	assert.Greater(t, r.Cost.USD, 0.0)
	r, err = planner.Plan(m, planner.Options{Scenario: "queue-0900", Shards: map[string]int{"opsQueue": 1}})
	require.NoError(t, err)
	require.True(t, r.Verdict.Throttled, r.Verdict.Summary)
	assert.Equal(t, "opsQueue", r.First[0].Index)
	assert.Greater(t, loadOf(t, r, "CreateOrder").Throttled, 0.0)
}

// --warm is honoured as given, or refused: above what the table has it
// is the limit of the first second; below, warm throughput cannot fall.
func TestWarm(t *testing.T) {
	m := load(t, "../examples/orders/model.yaml")
	even := &catalog.Shape{Kind: "even", Points: []catalog.RatePoint{{At: 0, PerSecond: 20000}, {At: time.Minute, PerSecond: 20000}}}
	m.Scenarios = append(m.Scenarios, catalog.Scenario{Name: "surge", At: "10:00", Start: 10 * time.Hour,
		Load: []catalog.LoadItem{{Operation: "CreateOrder", Name: "CreateOrder", Plan: &catalog.LoadPlan{Start: 10 * time.Hour, Shape: even}}}})
	r, err := planner.Plan(m, planner.Options{Scenario: "surge", Resolution: 1, Warm: map[string]planner.Throughput{"": {Read: 40000, Write: 30000}}})
	require.NoError(t, err)
	assert.Equal(t, 30000.0, resource(t, r, "").Write[0].Limit)

	// Each index starts at its own warm throughput (opsQueue declares
	// 4,000 writes), or else its table's (byCustomer: 12,000); --warm
	// raises one, never below what the index declares.
	r, err = planner.Plan(m, planner.Options{Scenario: "surge", Resolution: 1})
	require.NoError(t, err)
	assert.Equal(t, 4000.0, resource(t, r, "opsQueue").Write[0].Limit)
	assert.Equal(t, 12000.0, resource(t, r, "byCustomer").Write[0].Limit)
	r, err = planner.Plan(m, planner.Options{Scenario: "surge", Resolution: 1, Warm: map[string]planner.Throughput{"opsQueue": {Read: 12000, Write: 9000}}})
	require.NoError(t, err)
	assert.Equal(t, 9000.0, resource(t, r, "opsQueue").Write[0].Limit)
	_, err = planner.Plan(m, planner.Options{Scenario: "surge", Warm: map[string]planner.Throughput{"byCustomer": {Read: 12000, Write: 5000}}})
	require.True(t, input.Is(err), "%v", err)
	assert.Contains(t, err.Error(), "table orders's declared warm throughput")
	_, err = planner.Plan(m, planner.Options{Scenario: "surge", Warm: map[string]planner.Throughput{"": {Read: 40000, Write: 5000}}})
	require.True(t, input.Is(err), "%v", err)
	assert.Contains(t, err.Error(), "below 12,000 read")
	assert.Contains(t, err.Error(), "only rises")
}

func TestBadInput(t *testing.T) {
	m := load(t, "../model.yaml")
	for name, o := range map[string]planner.Options{
		"scenario":  {Scenario: "nope"},
		"shards":    {Scenario: "payday", Shards: map[string]int{"GSI2": 4}},
		"no index":  {Scenario: "payday", Shards: map[string]int{"GSIX": 4}},
		"zero":      {Scenario: "payday", Shards: map[string]int{"": 0}},
		"warm":      {Scenario: "payday", Warm: map[string]planner.Throughput{"nope": {Read: 1, Write: 1}}},
		"billing":   {Scenario: "payday", Billing: "free"},
		"provision": {Scenario: "payday", Billing: "provisioned"},
		"duration":  {Scenario: "payday", Duration: 8 * 24 * time.Hour},
		"cold":      {Scenario: "payday", Warm: map[string]planner.Throughput{"": {Read: 12000, Write: 100}}},
		"cold GSI":  {Scenario: "payday", Warm: map[string]planner.Throughput{"GSI1": {Read: 1, Write: 1}}},
	} {
		_, err := planner.Plan(m, o)
		require.Error(t, err, name)
		assert.True(t, input.Is(err), "%s: %v", name, err)
	}
	assert.Equal(t, 16, m.Index("GSI1").Shards.Count)
}
