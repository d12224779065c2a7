package estimate_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Sizes of testdata/unit.yaml, by hand (capacity-rules.md 1):
//
//	BIG empty  PK "B#b1" 6 + SK "B" 3 + pad "x" 4 + n 1 3        =    16 B
//	BIG full   6 + 3 + g "G1" 3 + pad 3+1,100 + n 2 3           = 1,118 B
//	GIX entry  of full (KEYS_ONLY): PK 6 + SK 3 + g 3            =    12 B
//	CHILD one  PK 6 + SK "C#001" 7 + n 3 + pad 3+2,000          = 2,019 B
func unit(t *testing.T) *estimate.Estimator {
	t.Helper()
	m, err := catalog.Load("testdata/unit.yaml")
	require.NoError(t, err)
	return estimate.New(m, capacity.Default())
}

func variant(t *testing.T, e *estimate.Estimator, op, name string) estimate.Variant {
	t.Helper()
	o := e.Model.Operation(op)
	require.NotNil(t, o, op)
	vs, err := e.Operation(o)
	require.NoError(t, err)
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	require.Failf(t, "no variant", "%s/%s", op, name)
	return estimate.Variant{}
}

func reasons(v estimate.Variant) string {
	var b strings.Builder
	for _, s := range v.Steps {
		for _, l := range s.Reasons {
			b.WriteString(s.ID + ": " + l.String() + "\n")
		}
	}
	return b.String()
}

// An update that grows an item over 1 KB and gives it an index key: the
// larger image (3.2), and the entry entering the index (5).
func TestWriteEntersIndex(t *testing.T) {
	v := variant(t, unit(t), "Grow", "ok")
	assert.Equal(t, 3.0, v.WRU)
	assert.Equal(t, []estimate.Target{{Table: "things", WRU: 2}, {Table: "things", Index: "GIX", WRU: 1}}, v.Targets)
	require.NotNil(t, v.BudgetWRU)
	assert.LessOrEqual(t, v.WRU, *v.BudgetWRU)
	r := reasons(v)
	assert.Contains(t, r, "table: update BIG, larger of before 16 B and after 1,118 B: 1,118 B, 94 B over 1 KB: 2 WRU")
	assert.Contains(t, r, "GIX: entry enters the index, put 12 B, fits 1 KB: 1 WRU")
}

// A transaction doubles the table charge of each action, not the index's
// (3.6), and a later get runs.
func TestTransactionDoublesTable(t *testing.T) {
	v := variant(t, unit(t), "Both", "ok")
	assert.Equal(t, 9.0, v.WRU, "child 2 x 2 + BIG 2 x 2 + GIX 1")
	assert.Equal(t, 0.5, v.RRU, "eventually consistent get of 1,118 B")
	require.Len(t, v.Steps, 3)
	assert.Equal(t, "tx/child", v.Steps[0].ID)
	assert.Equal(t, 4.0, v.Steps[0].WRU)
	assert.Equal(t, 5.0, v.Steps[1].WRU)
	assert.Contains(t, reasons(v), "index charges are not doubled in a transaction")
}

// A failed action cancels the transaction: each action is charged as a
// failed write, doubled, no index; later steps do not run. The child put
// declares before absent, but attribute_not_exists fails only on an
// existing item: the failed put is billed on the child it finds (the
// entity's sample the condition fails on), as the executor seeds it.
func TestCancelledTransaction(t *testing.T) {
	v := variant(t, unit(t), "Both", "cancelled")
	assert.Equal(t, 8.0, v.WRU, "child failed on the existing child, larger of 2,019 B and the new item, 2 x 2 + BIG failed, larger of 16 B and 1,118 B, 2 x 2")
	assert.Zero(t, v.RRU, "the get after the transaction does not run")
	require.Len(t, v.Steps, 2)
	assert.True(t, v.Steps[0].Failed)
	assert.False(t, v.Steps[1].Failed)
	assert.Equal(t, []estimate.Target{{Table: "things", WRU: 8}}, v.Targets, "no index charge")
	r := reasons(v)
	assert.Contains(t, r, "tx/child: table: put of CHILD: its condition fails, which cancels the transaction")
	// The action whose condition holds is not said to have failed it.
	assert.Contains(t, r, "tx/grow: table: update of BIG: its condition holds, but another action's fails, which cancels the transaction")
	assert.NotContains(t, r, "update of BIG failed its condition")
	assert.NotContains(t, r, "tx/grow: table: update of BIG: its condition fails")
}

// A query page ends at 1 MB, the item crossing it included, and every
// page is rounded on its own (2.3, 4.3).
func TestQueryPagesAtOneMegabyte(t *testing.T) {
	v := variant(t, unit(t), "Pages", "all")
	// 520 x 2,019 = 1,049,880 B (the 520th item crosses 1 MB): 257 x 4 KB
	// x 0.5 = 128.5; then 80 x 2,019 = 161,520 B: 40 x 0.5 = 20.
	assert.Equal(t, 148.5, v.RRU)
	r := reasons(v)
	assert.Contains(t, r, "page 1 of 2: eventual page of 520 CHILDs, summed once: 1,049,880 B")
	assert.Contains(t, r, "page 2 of 2: eventual page of 80 CHILDs")
}

// The page size ends pages too (the budget package judges the figure
// against the variant's budget of 1 RRU: budget/static_test.go).
func TestPageSizeAndOverrun(t *testing.T) {
	v := variant(t, unit(t), "ByG", "tight")
	assert.Equal(t, 1.5, v.RRU, "25 entries in pages of 10: 3 pages of 0.5")
	require.NotNil(t, v.BudgetRRU)
	assert.Equal(t, 1.0, *v.BudgetRRU)
	assert.Contains(t, reasons(v), "GIX: page 3 of 3: eventual page of 5 BIG entries")
}

// A scan without matches reads the whole table at its computed size.
func TestScanWholeTable(t *testing.T) {
	v := variant(t, unit(t), "ScanAll", "whole")
	// 1,000 BIG x 16 B + 3,000 CHILD x 2,019 B = 6,073,000 B: 5 pages of
	// 1 MB at 128 RRU + 830,120 B (203 x 4 KB x 0.5 = 101.5).
	assert.Equal(t, 741.5, v.RRU)
	assert.Contains(t, reasons(v), "eventual scan of the whole table things, 6,073,000 B")
}

func TestPopulationChainAndSizes(t *testing.T) {
	e := unit(t)
	n, ok := e.Population(e.Model.Entity("CHILD"))
	require.True(t, ok)
	assert.Equal(t, 3000.0, n, "3 per BIG x 1,000")
	ts := e.Size(e.Model.Table("things"))
	assert.Equal(t, 6073000.0, ts.ItemBytes)
	// Stored: BIG (16 + 100) x 1,000 + CHILD (2,019 + 100) x 3,000; the
	// empty BIG is in no index.
	assert.Equal(t, 6473000.0, ts.StoredBytes)
	assert.InDelta(t, 0.006473, ts.GB, 1e-12, "decimal GB by default")

	r, err := catalog.Load("../../model.yaml")
	require.NoError(t, err)
	re := estimate.New(r, capacity.Default())
	n, ok = re.Population(r.Entity("EVENT"))
	require.True(t, ok)
	assert.Equal(t, 160e6, n, "2 per instalment x 10 per contract x 8M contracts")
}

// Shares weigh variants; a day volume is 30 days; an operation without a
// volume is not priced.
func TestMonthShares(t *testing.T) {
	e := unit(t)
	b, err := e.Month(estimate.Options{Prices: capacity.DefaultPrices(), Utilisation: 0.5})
	require.NoError(t, err)
	byName := map[string]estimate.OpMonth{}
	for _, o := range b.Operations {
		byName[o.Operation] = o
	}
	both := byName["Both"]
	assert.Equal(t, 0.75*9+0.25*8, both.UnitWRU)
	assert.Equal(t, 0.75*0.5, both.UnitRRU)
	assert.Equal(t, 1000*8.75, both.WRU)
	assert.Contains(t, both.Basis, "by share")
	assert.InDelta(t, (8750*0.625+375*0.125)/1e6, both.USD, 1e-12)
	grow := byName["Grow"]
	assert.Equal(t, 3000.0, grow.Runs, "100 a day x 30")
	assert.Equal(t, []string{"ByG"}, b.Unpriced)

	assert.InDelta(t, 0.006473*0.25, b.StorageUSD, 1e-12)
	assert.InDelta(t, 0.006473*0.20, b.PITRUSD, 1e-12)
	assert.Zero(t, b.ExportUSD)
	assert.InDelta(t, b.RequestsUSD+b.StorageUSD+b.PITRUSD, b.TotalUSD, 1e-12)
	assert.InDelta(t, b.TotalUSD, b.PerThousandUSD, 1e-12, "1,000 contracts")

	// Provisioned at 50%: the month's units over 30 days, doubled, priced
	// by the hour for 730 hours.
	wps := (grow.WRU + both.WRU + byName["Pages"].WRU + byName["ScanAll"].WRU) / (30 * 86400)
	assert.InDelta(t, wps, b.Provisioned.AvgWPS, 1e-12)
	assert.InDelta(t, capacity.DefaultPrices().Provisioned(b.Provisioned.AvgWPS, b.Provisioned.AvgRPS, 0.5, capacity.Standard), b.Provisioned.USD, 1e-12)

	var patterns []string
	for _, p := range b.Patterns {
		patterns = append(patterns, p.Pattern)
	}
	assert.Equal(t, []string{"AP01", ""}, patterns, "Pages answers AP01; the writes and the scan answer no question")

	_, err = e.Month(estimate.Options{Prices: capacity.DefaultPrices(), Utilisation: 0})
	assert.Error(t, err)
}

// The model's pricing replaces the defaults, and a price file replaces
// the model's only where it says something.
func TestPriceLayers(t *testing.T) {
	mp := catalog.Pricing{WritePerMillion: 1.25, StoragePerGBMonth: 0.3, AsOf: "2024-10"}
	p := estimate.ModelPrices(capacity.DefaultPrices(), mp)
	assert.Equal(t, 1.25, p.WritePerMillion.Value)
	assert.Equal(t, 0.3, p.StorageGBMonth.Value)
	assert.Equal(t, 0.125, p.ReadPerMillion.Value)
	assert.Equal(t, "2024-10", p.Date)

	file, err := capacity.LoadPrices("p.yaml", []byte("readPerMillion: 0.25\nregion: sa-east-1\n"))
	require.NoError(t, err)
	q := estimate.Overlay(p, file)
	assert.Equal(t, 1.25, q.WritePerMillion.Value, "the model's write price stays")
	assert.Equal(t, 0.25, q.ReadPerMillion.Value)
	assert.Equal(t, "sa-east-1", q.Region)
	assert.Equal(t, "2024-10", q.Date)
}

// Shard fan-out multiplies one page by the shard count.
func TestReferenceShardFanOut(t *testing.T) {
	m, err := catalog.Load("../../model.yaml")
	require.NoError(t, err)
	e := estimate.New(m, capacity.Default())
	v := variant(t, e, "DunningAgenda", "page-per-shard")
	// Shard 0's entries carry the number 0, a byte smaller than 1 to 15:
	// its page is 229,000 B, 56 x 4 KB, 28 RRU; the others' 28.5.
	assert.Equal(t, 455.5, v.RRU, "28 + 15 x 28.5 RRU")
	assert.Contains(t, reasons(v), "x 16 shards, one page each, sized with each shard's value of shard: 1 page of 28 RRU (shard = 0), 15 pages of 28.5 RRU (shard 1 to 15) = 455.5 RRU")
	assert.Equal(t, []estimate.Target{{Table: "collections", Index: "GSI1", RRU: 455.5}}, v.Targets)
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 0.5: "0.5", 2: "2", 1047: "1,047", 12451840: "12,451,840", 124.5: "124.5", -1500: "-1,500"} {
		assert.Equal(t, want, estimate.Num(in))
	}
	assert.Equal(t, "0", estimate.Num(math.Copysign(0, -1)), "a negative zero")
	for in, want := range map[float64]string{0: "0", 3.75: "3.75", 150: "150.00", 44826.624: "44,826.62", 0.00375: "0.0037", 1e-6: "<0.0001"} {
		assert.Equal(t, want, estimate.USD(in))
	}
}

// A REMOVE of an index key takes the item out of the index: the item the
// update leaves is computed, so the entry leaves (1 WRU) and does not move
// (delete + put, 2 WRU), whatever a sample once claimed; a sample that
// claims otherwise is refused at the attribute that differs.
func TestRemoveLeavesIndex(t *testing.T) {
	m, err := catalog.Load("testdata/remove.yaml")
	require.NoError(t, err)
	v := variant(t, estimate.New(m, capacity.Default()), "Finish", "done")
	assert.Equal(t, 2.0, v.WRU, "table 1 + QUEUE entry leaves 1, not 1 + key change 2")
	assert.Equal(t, []estimate.Target{{Table: "jobs", WRU: 1}, {Table: "jobs", Index: "QUEUE", WRU: 1}}, v.Targets)
	assert.Contains(t, reasons(v), "QUEUE: entry leaves the index, delete")
	assert.NotContains(t, reasons(v), "key changes")

	data, err := os.ReadFile("testdata/remove.yaml")
	require.NoError(t, err)
	bad := strings.Replace(string(data), "          before: pending\n", "          before: pending\n          after: requeued\n", 1)
	_, err = catalog.Parse("remove.yaml", []byte(bad))
	require.Error(t, err)
	assert.Equal(t, `remove.yaml:50:18: operations.Finish.steps[0].update.after: sample requeued is not what the update leaves of sample pending: queue (sample "q2", computed absent)
hint: fix the sample, or drop after: the catalog computes it`, err.Error())
}
