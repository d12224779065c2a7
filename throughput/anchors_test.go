package throughput

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const arnT = "arn:aws:dynamodb:us-east-1:000000000000:table/T"

// One key takes about 1,000 WCU a second, whatever the table could take;
// above that it is throttled with TableWriteKeyRangeThroughputExceeded.
func TestOneKeyWritesAboutAThousandPerSecond(t *testing.T) {
	for _, tc := range []struct {
		spec      ResourceSpec
		exception string
		msg       string
	}{
		{ResourceSpec{Mode: OnDemand}, ExceptionThrottling, msgOnDemandTable},
		{ResourceSpec{Mode: Provisioned, ReadCapacity: 100, WriteCapacity: 5000}, ExceptionProvisioned, msgProvisionedTable},
	} {
		t.Run(string(tc.spec.Mode), func(t *testing.T) {
			m, clk := newModel(t, Config{})
			require.NoError(t, m.Define("T", tc.spec, nil))
			h := keyHash("hot")
			got := drive(clk, 1500, 20*time.Second, func(int) *Throttle {
				return m.Admit(Request{Table: "T", Hash: h, Key: []byte("hot"), Write: 1})
			})
			require.NotNil(t, got.first)
			assert.Equal(t, tc.exception, got.first.Exception)
			assert.Equal(t, tc.msg, got.first.Message)
			assert.Equal(t, []ThrottlingReason{{TableWriteKeyRangeThroughputExceeded, arnT}}, got.first.Reasons)
			// One second banked at the start, then the cap.
			assert.InDelta(t, 1000+20*1000, got.admitted, 2)

			res := m.Snapshot().Table("T").Resource("")
			busy := 0
			for _, p := range res.Partitions {
				if p.Totals.WriteConsumed == 0 {
					continue
				}
				busy++
				// Seconds 0 and 1 spend the second banked at the start.
				for _, s := range p.Seconds[2 : len(p.Seconds)-1] {
					assert.InDelta(t, 1000, s.WriteConsumed, 1.01, "second %v", s.At)
					assert.InDelta(t, 500, s.WriteThrottled, 1.01, "second %v", s.At)
				}
			}
			assert.Equal(t, 1, busy)
			require.NotEmpty(t, res.TopThrottled)
			assert.Equal(t, KeyStats{Hash: h, Key: "hot", Units: float64(got.throttled), Count: int64(got.throttled)}, res.TopThrottled[0])
			assert.Equal(t, map[Reason]int64{TableWriteKeyRangeThroughputExceeded: int64(got.throttled)}, m.Snapshot().Table("T").Reasons)
		})
	}
}

// A 150 RCU table idle for five minutes has banked 45,000 read units and
// then serves 200 RCU for about 900 s before settling at 150.
func TestBurstServes200RCUFor900Seconds(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: Provisioned, ReadCapacity: 150, WriteCapacity: 10}, nil))
	clk.Advance(5 * time.Minute)
	res := m.Snapshot().Table("T").Resource("")
	require.Len(t, res.Partitions, 1)
	assert.InDelta(t, 45000, res.ReadTokens, 1e-6)

	got := drive(clk, 200, 1000*time.Second, func(i int) *Throttle {
		return m.Admit(Request{Table: "T", Hash: spread(i), Read: 1})
	})
	require.NotNil(t, got.first)
	assert.InDelta(t, 900, got.firstAt.Seconds(), 1)
	assert.Equal(t, ExceptionProvisioned, got.first.Exception)
	assert.Equal(t, []ThrottlingReason{{TableReadProvisionedThroughputExceeded, arnT}}, got.first.Reasons)
	// 900 s at 200, then 100 s at the provisioned 150.
	assert.InDelta(t, 900*200+100*150, got.admitted, 3)
}

// Burst never lifts the partition cap: banked capacity drains at 3,000
// RCU a second at most on one partition.
func TestBurstStopsAtThePartitionCap(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{ReadCapacity: 150, WriteCapacity: 10}, nil))
	clk.Advance(5 * time.Minute)
	got := drive(clk, 4000, 5*time.Second, func(i int) *Throttle {
		return m.Admit(Request{Table: "T", Hash: spread(i), Read: 1})
	})
	assert.InDelta(t, 3000+5*3000, got.admitted, 2)
	assert.Equal(t, TableReadKeyRangeThroughputExceeded, got.first.Reasons[0].Reason)
}

// On-demand: twice the previous peak is served at once, more throttles
// until the new peak is 30 minutes old, then the rate doubles again.
// Run at 1/100 with the quota raised (the default 40,000 would bind).
func TestOnDemandDoublesThePreviousPeak(t *testing.T) {
	m, clk := newModel(t, Config{Scale: 0.01, TableQuotaWrite: 1e6})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand, WarmWrite: 50000}, nil))
	write := func(i int) *Throttle { return m.Admit(Request{Table: "T", Hash: spread(i % 4096), Write: 1}) }

	// 50k a second, pre-warmed: no throttling.
	got := drive(clk, 500, 60*time.Second, write)
	require.Zero(t, got.throttled, "%v", got.first)
	clk.Advance(30 * time.Minute)
	res := m.Snapshot().Table("T").Resource("")
	assert.InDelta(t, 500, res.WritePeak, 1e-6)
	assert.InDelta(t, 1000, res.WriteRate, 1e-6)
	assert.GreaterOrEqual(t, len(res.Partitions), 104) // ceil(12000/3000 + 100000/1000)

	// 100k: instantly served.
	got = drive(clk, 1000, 30*time.Second, write)
	assert.Zero(t, got.throttled, "%v", got.first)

	// 120k within the same 30 minutes: the excess is throttled.
	got = drive(clk, 1200, 30*time.Second, write)
	require.NotNil(t, got.first)
	assert.Equal(t, ExceptionThrottling, got.first.Exception)
	assert.Equal(t, TableWriteKeyRangeThroughputExceeded, got.first.Reasons[0].Reason)
	assert.GreaterOrEqual(t, got.admitted, 1000*30)
	assert.LessOrEqual(t, got.admitted, 1000*30+1000)

	// Half an hour later the table has adapted to the new peak: the first
	// second of the step, which also spent the second banked (1,200),
	// and serves twice it.
	clk.Advance(30 * time.Minute)
	res = m.Snapshot().Table("T").Resource("")
	assert.InDelta(t, 1200, res.WritePeak, 1.01)
	assert.InDelta(t, 2*res.WritePeak, res.WriteRate, 1e-9)
	r, w, ok := m.Warm("T", "")
	require.True(t, ok)
	assert.Equal(t, float64(DefaultWarmRead), r)
	assert.InDelta(t, 2*res.WritePeak/0.01, w, 1e-6, "warm throughput in AWS units rises with the peak")
	assert.Equal(t, "KeyRange", res.WriteLimit)
}

// The quota and the optional maximum bind on-demand tables and indexes
// with their own reasons and ThrottlingException.
func TestOnDemandQuotaAndMaximum(t *testing.T) {
	cases := []struct {
		name   string
		table  ResourceSpec
		gsi    ResourceSpec
		reason Reason
		msg    string
		arn    string
		units  float64 // per base write; the index writes take 1
	}{
		// Partitions enough that no partition binds first.
		{"table quota", ResourceSpec{Mode: OnDemand, WarmWrite: 60000, Partitions: 256}, ResourceSpec{WarmWrite: 60000, Partitions: 256}, TableWriteAccountLimitExceeded, msgAccount, arnT, 1},
		{"table maximum", ResourceSpec{Mode: OnDemand, MaxWrite: 2000}, ResourceSpec{}, TableWriteMaxOnDemandThroughputExceeded, msgMaxOnDemand, arnT, 1},
		{"index maximum", ResourceSpec{Mode: OnDemand}, ResourceSpec{MaxWrite: 1500}, IndexWriteMaxOnDemandThroughputExceeded, msgMaxOnDemand, arnT + "/index/G", 0.5},
		{"index quota", ResourceSpec{Mode: OnDemand, WarmWrite: 100000}, ResourceSpec{WarmWrite: 100000, Partitions: 256}, IndexWriteAccountLimitExceeded, msgAccount, arnT + "/index/G", 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, clk := newModel(t, Config{Scale: 0.01})
			require.NoError(t, m.Define("T", tc.table, map[string]ResourceSpec{"G": tc.gsi}))
			// 700 writes a second and 700 index writes, against a quota
			// of 400 at 1/100; half-unit base writes stay under it.
			got := drive(clk, 700, 10*time.Second, func(i int) *Throttle {
				return m.Admit(Request{Table: "T", Hash: spread(i), Write: tc.units,
					Indexes: []IndexCharge{{Name: "G", Hash: spread(i + 7), Write: 1}}})
			})
			require.NotNil(t, got.first)
			assert.Equal(t, ExceptionThrottling, got.first.Exception)
			assert.Equal(t, "ThrottlingError", got.first.Code())
			assert.Equal(t, tc.msg, got.first.Message)
			assert.Equal(t, ThrottlingReason{tc.reason, tc.arn}, got.first.Reasons[0])
		})
	}
}

// A GSI that cannot take a base write's index writes throttles the base
// write with the index's reason and ARN; nothing is consumed anywhere.
// Moving an index key costs two index writes on two partitions.
func TestIndexKeyChangeBackPressure(t *testing.T) {
	const arnG = arnT + "/index/byDate"
	for _, tc := range []struct {
		name      string
		table     ResourceSpec
		gsi       ResourceSpec
		rate      float64
		reason    Reason
		exception string
		msg       string
		admitted  float64
	}{
		// 1,500 writes a second move their index entry onto one hot key:
		// its partition takes 1,000.
		{"on-demand hot index key", ResourceSpec{Mode: OnDemand}, ResourceSpec{}, 1500,
			IndexWriteKeyRangeThroughputExceeded, ExceptionThrottling, msgOnDemandIndex, 1000 + 10*1000},
		// A provisioned index of 100 WCU: 50 moves a second (plus one
		// second banked, then burst of the first second only).
		{"provisioned index", ResourceSpec{ReadCapacity: 100, WriteCapacity: 5000}, ResourceSpec{ReadCapacity: 100, WriteCapacity: 100}, 300,
			IndexWriteProvisionedThroughputExceeded, ExceptionProvisioned, msgProvisionedIndex, (100 + 10*100) / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, clk := newModel(t, Config{})
			require.NoError(t, m.Define("T", tc.table, map[string]ResourceSpec{"byDate": tc.gsi}))
			oldKey, newKey := keyHash("2026-12-01"), keyHash("2026-12-02")
			got := drive(clk, tc.rate, 10*time.Second, func(i int) *Throttle {
				return m.Admit(Request{Table: "T", Hash: spread(i), Key: []byte(fmt.Sprint("contract#", i)), Write: 1,
					Indexes: []IndexCharge{
						{Name: "byDate", Hash: oldKey, Key: []byte("2026-12-01"), Write: 1},
						{Name: "byDate", Hash: newKey, Key: []byte("2026-12-02"), Write: 1},
					}})
			})
			require.NotNil(t, got.first)
			assert.Equal(t, tc.exception, got.first.Exception)
			assert.Equal(t, tc.msg, got.first.Message)
			assert.Equal(t, ThrottlingReason{tc.reason, arnG}, got.first.Reasons[0])
			assert.InDelta(t, tc.admitted, got.admitted, 2)

			tbl := m.Snapshot().Table("T")
			base, gsi := tbl.Resource(""), tbl.Resource("byDate")
			assert.Equal(t, float64(got.admitted), base.Totals.WriteConsumed, "the base table consumed only admitted writes")
			assert.Equal(t, float64(2*got.admitted), gsi.Totals.WriteConsumed, "two index writes per key change")
			assert.Equal(t, int64(got.throttled), tbl.Reasons[tc.reason])
			require.NotEmpty(t, gsi.TopThrottled)
			assert.Contains(t, []string{"2026-12-01", "2026-12-02"}, gsi.TopThrottled[0].Key)
			assert.Empty(t, base.TopThrottled, "the base table's keys were not at fault")
		})
	}
}

// dunning replays the 00h07 batch in miniature: items a second (in AWS
// terms) move their next-action date from one day to the next on a GSI
// whose key is tenant#date#shard; each move deletes the old-date entry
// and puts the new-date one. The GSI is pre-warmed to 16 partitions.
func dunning(t *testing.T, scale float64, shards int, items float64, d time.Duration) (tally, *Model) {
	t.Helper()
	m, clk := newModel(t, Config{Scale: scale})
	require.NoError(t, m.Define("contracts", ResourceSpec{Mode: OnDemand, WarmWrite: 20000},
		map[string]ResourceSpec{"byNextAction": {WarmWrite: 12000}}))
	keys := func(day string) ([]uint64, [][]byte) {
		var hs []uint64
		var ks [][]byte
		for s := range shards {
			k := fmt.Sprintf("T1#2026-12-%s#%02d", day, s)
			hs, ks = append(hs, keyHash(k)), append(ks, []byte(k))
		}
		return hs, ks
	}
	oldH, oldK := keys("01")
	newH, newK := keys("02")
	got := drive(clk, items*scale, d, func(i int) *Throttle {
		s := i % shards
		return m.Admit(Request{Table: "contracts", Hash: keyHash(fmt.Sprint("contract#", i)), Write: 1,
			Indexes: []IndexCharge{
				{Name: "byNextAction", Hash: oldH[s], Key: oldK[s], Write: 1},
				{Name: "byNextAction", Hash: newH[s], Key: newK[s], Write: 1},
			}})
	})
	return got, m
}

// partitionsHit counts the partitions the keys land on.
func partitionsHit(res *ResourceStats, hs ...uint64) int {
	seen := map[int]bool{}
	for _, h := range hs {
		for i, p := range res.Partitions {
			if p.Lo <= h && h <= p.Hi {
				seen[i] = true
			}
		}
	}
	return len(seen)
}

func TestDunningBatchShards(t *testing.T) {
	one, _ := dunning(t, 0.01, 1, 5000, 60*time.Second)
	sixteen, m := dunning(t, 0.01, 16, 5000, 60*time.Second)
	require.NotNil(t, one.first)
	assert.Equal(t, IndexWriteKeyRangeThroughputExceeded, one.first.Reasons[0].Reason)
	assert.Equal(t, arnT[:len(arnT)-1]+"contracts/index/byNextAction", one.first.Reasons[0].Resource)

	gsi := m.Snapshot().Table("contracts").Resource("byNextAction")
	require.Len(t, gsi.Partitions, 16)
	var oldH, newH []uint64
	for s := range 16 {
		oldH = append(oldH, keyHash(fmt.Sprintf("T1#2026-12-01#%02d", s)))
		newH = append(newH, keyHash(fmt.Sprintf("T1#2026-12-02#%02d", s)))
	}
	hitNew, hitAll := partitionsHit(gsi, newH...), partitionsHit(gsi, append(oldH, newH...)...)
	assert.Equal(t, hitAll, gsi.Busy())
	// 16 keys on 16 partitions fill 16(1-(15/16)^16) = 10.3 on average.
	assert.InDelta(t, 10.3, hitNew, 4)
	t.Logf("16 new-date shard keys land on %d of 16 partitions, all 32 keys on %d; throttled: 1 shard %.1f%%, 16 shards %.1f%%",
		hitNew, hitAll, 100*one.ratio(), 100*sixteen.ratio())

	// One shard: its two keys take 1,000 moves a second of 5,000.
	assert.InDelta(t, 0.8, one.ratio(), 0.02)
	assert.Less(t, sixteen.ratio(), one.ratio()/2)
}

// The scale factor reproduces the throttling of full traffic at 1/100.
func TestScaleReproducesTheThrottlingRatio(t *testing.T) {
	for _, shards := range []int{1, 16} {
		full, _ := dunning(t, 1, shards, 5000, 20*time.Second)
		small, _ := dunning(t, 0.01, shards, 5000, 20*time.Second)
		assert.InDelta(t, full.ratio(), small.ratio(), 0.005, "%d shards", shards)
	}
	// And one key at 1/100 takes 10 WCU a second.
	m, clk := newModel(t, Config{Scale: 0.01})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, nil))
	got := drive(clk, 15, 100*time.Second, func(int) *Throttle {
		return m.Admit(Request{Table: "T", Hash: 42, Write: 1})
	})
	assert.InDelta(t, 10+100*10, got.admitted, 1)
}

// A partition hot for SplitAfter splits at the median of its heat: two
// hot keys end up apart and their throttling stops.
func TestSplitForHeat(t *testing.T) {
	m, clk := newModel(t, Config{SplitAfter: 2 * time.Minute})
	require.NoError(t, m.Define("T", ResourceSpec{WriteCapacity: 2000}, nil))
	a, b := uint64(1)<<40, uint64(1)<<50 // both in the lower of two partitions
	got := drive(clk, 1200, 5*time.Minute, func(i int) *Throttle {
		h := a
		if i%2 == 1 {
			h = b
		}
		return m.Admit(Request{Table: "T", Hash: h, Write: 1})
	})
	res := m.Snapshot().Table("T").Resource("")
	require.Len(t, res.Splits, 1)
	assert.True(t, res.Splits[0].Heat)
	assert.Equal(t, a+1, res.Splits[0].Cut)
	assert.Len(t, res.Partitions, 3)
	// Throttled for the two hot minutes (200 a second), not after.
	assert.InDelta(t, 200*120, got.throttled, 1300)
	for _, p := range res.Partitions {
		for _, s := range p.Seconds {
			assert.Zero(t, s.WriteThrottled)
		}
	}

	// One hot key is isolated within two splits and stays capped.
	m, clk = newModel(t, Config{SplitAfter: time.Minute})
	require.NoError(t, m.Define("T", ResourceSpec{WriteCapacity: 1000}, nil))
	got = drive(clk, 1500, 4*time.Minute, func(int) *Throttle {
		return m.Admit(Request{Table: "T", Hash: 1 << 60, Write: 1})
	})
	res = m.Snapshot().Table("T").Resource("")
	require.Len(t, res.Splits, 2)
	iso := res.Partitions[res.findStats(1<<60)]
	assert.Equal(t, uint64(1)<<60, iso.Lo)
	assert.Equal(t, uint64(1)<<60, iso.Hi)
	assert.InDelta(t, 1000+240*1000, got.admitted, 3)
}

func (r *ResourceStats) findStats(h uint64) int {
	for i, p := range r.Partitions {
		if p.Lo <= h && h <= p.Hi {
			return i
		}
	}
	return -1
}

// Index reads are charged to the index's partitions.
func TestIndexRead(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, map[string]ResourceSpec{"G": {}}))
	got := drive(clk, 4000, 3*time.Second, func(int) *Throttle {
		return m.Admit(Request{Table: "T", Index: "G", Hash: 7, Read: 1})
	})
	require.NotNil(t, got.first)
	assert.Equal(t, []ThrottlingReason{{IndexReadKeyRangeThroughputExceeded, arnT + "/index/G"}}, got.first.Reasons)
	assert.InDelta(t, 3000+3*3000, got.admitted, 2)
	assert.Zero(t, m.Snapshot().Table("T").Resource("").Totals.ReadConsumed)
}

// Transactions are admitted all or nothing, with charges on one
// partition added up.
func TestAdmitAll(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("A", ResourceSpec{ReadCapacity: 10, WriteCapacity: 100}, nil))
	require.NoError(t, m.Define("B", ResourceSpec{Mode: OnDemand}, nil))
	clk.Advance(time.Second) // A banks 200 (1 s at creation + 1 s)
	tx := []Request{{Table: "A", Hash: 1, Write: 150}, {Table: "B", Hash: 2, Write: 100}}
	require.Nil(t, m.AdmitAll(tx))
	tx = []Request{{Table: "B", Hash: 2, Write: 10}, {Table: "A", Hash: 1, Write: 30}, {Table: "A", Hash: 3, Write: 30}, {Table: "nope", Write: 1}}
	out := m.AdmitAll(tx)
	require.Len(t, out, 4)
	assert.Nil(t, out[0])
	assert.Nil(t, out[3])
	for _, th := range out[1:3] {
		require.NotNil(t, th)
		assert.Equal(t, "ProvisionedThroughputExceeded", th.Code())
		assert.Equal(t, TableWriteProvisionedThroughputExceeded, th.Reasons[0].Reason)
	}
	s := m.Snapshot()
	assert.Equal(t, 150.0, s.Table("A").Resource("").Totals.WriteConsumed)
	assert.Equal(t, 100.0, s.Table("B").Resource("").Totals.WriteConsumed, "nothing of the refused transaction was consumed")
	assert.Nil(t, m.AdmitAll([]Request{{Table: "nope"}}))
}

// Undefined tables, unknown indexes and zero or invalid units pass.
func TestUnmodelledRequestsPass(t *testing.T) {
	m, _ := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{ReadCapacity: 1, WriteCapacity: 1}, nil))
	r, w, ok := m.Warm("T", "")
	assert.True(t, ok)
	assert.Equal(t, [2]float64{1, 1}, [2]float64{r, w}, "a provisioned table's warm throughput is its capacity")
	assert.Nil(t, m.Admit(Request{Table: "other", Write: 1e9}))
	assert.Nil(t, m.Admit(Request{Table: "T", Index: "nope", Read: 1e9}))
	assert.Nil(t, m.Admit(Request{Table: "T", Write: math.NaN(), Read: -1}))
	assert.Nil(t, m.Admit(Request{Table: "T", Indexes: []IndexCharge{{Name: "nope", Write: 1e9}}}))
	m.Drop("T")
	assert.Nil(t, m.Admit(Request{Table: "T", Write: 1e9}))
	assert.Empty(t, m.Snapshot().Tables)
}

// A request larger than a whole bucket passes when the bucket is full
// and leaves it in debt, rather than never passing.
func TestOversizedRequestPassesOnAFullBucket(t *testing.T) {
	m, clk := newModel(t, Config{Scale: 0.01})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, nil))
	assert.Nil(t, m.Admit(Request{Table: "T", Hash: 1, Write: 400}))
	assert.NotNil(t, m.Admit(Request{Table: "T", Hash: 1, Write: 1}))
	clk.Advance(40 * time.Second) // 390 of debt repaid at 10 a second, then full again
	assert.Nil(t, m.Admit(Request{Table: "T", Hash: 1, Write: 1}))
}

func TestRedefine(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{ReadCapacity: 100, WriteCapacity: 100}, map[string]ResourceSpec{"G": {}, "H": {}}))
	res := m.Snapshot().Table("T")
	require.Len(t, res.Resources, 3)
	assert.Equal(t, 100.0, res.Resource("G").WriteRate, "an index without capacity takes the table's")
	assert.Len(t, res.Resource("").Partitions, 1)

	clk.Advance(time.Second)
	require.NoError(t, m.Define("T", ResourceSpec{ReadCapacity: 100, WriteCapacity: 4000}, map[string]ResourceSpec{"G": {WriteCapacity: 5}}))
	res = m.Snapshot().Table("T")
	require.Len(t, res.Resources, 2)
	// ceil(100/3000 + 4000/1000) = 5: every partition wider than a fifth
	// of the key space is halved, so one partition becomes 8.
	assert.Len(t, res.Resource("").Partitions, 8)
	assert.Equal(t, 5.0, res.Resource("G").WriteRate)

	// Switching to on-demand: the previous peak is half the provisioned
	// capacity, so twice it (4,000) is served at once; warm is 4,000 too.
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand, WarmWrite: 1000}, map[string]ResourceSpec{"G": {}}))
	res = m.Snapshot().Table("T")
	assert.Equal(t, 4000.0, res.Resource("").WriteRate)
	assert.Len(t, res.Resource("").Partitions, 8)
	assert.Equal(t, OnDemand, res.Resource("G").Mode)
	_, w, ok := m.Warm("T", "G")
	assert.True(t, ok)
	assert.Equal(t, float64(DefaultWarmWrite), w)
	_, _, ok = m.Warm("T", "nope")
	assert.False(t, ok)
	_, _, ok = m.Warm("nope", "")
	assert.False(t, ok)
}

func TestBadInput(t *testing.T) {
	_, err := New(Config{Scale: math.NaN()})
	assert.ErrorContains(t, err, "scale must be a finite number >= 0")
	_, err = New(Config{Scale: -1, History: -1, PeakWindow: -time.Second})
	assert.ErrorContains(t, err, "history must be")
	assert.ErrorContains(t, err, "peak window")

	m, _ := newModel(t, Config{})
	assert.ErrorContains(t, m.Define("", ResourceSpec{}, nil), "empty table name")
	assert.ErrorContains(t, m.Define("T", ResourceSpec{WriteCapacity: -1}, nil), "table T: write capacity must be")
	assert.ErrorContains(t, m.Define("T", ResourceSpec{Mode: "x"}, nil), `unknown billing mode "x"`)
	assert.ErrorContains(t, m.Define("T", ResourceSpec{}, map[string]ResourceSpec{"": {}}), "empty index name")
	assert.ErrorContains(t, m.Define("T", ResourceSpec{}, map[string]ResourceSpec{"G": {Mode: OnDemand}}), "differs from the table's")
	assert.ErrorContains(t, m.Define("T", ResourceSpec{MaxRead: math.Inf(1)}, nil), "max read must be a finite number")
	assert.Empty(t, m.Snapshot().Tables)

	for in, want := range map[string]Mode{"": Provisioned, "PROVISIONED": Provisioned, "PAY_PER_REQUEST": OnDemand, "on_demand": OnDemand} {
		got, err := ParseMode(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err = ParseMode("free")
	assert.ErrorContains(t, err, `unknown billing mode "free"`)
}

func TestReasons(t *testing.T) {
	all := AllReasons()
	require.Len(t, all, 16)
	seen := map[Reason]bool{}
	for _, res := range []string{"Table", "Index"} {
		for _, dir := range []string{"Read", "Write"} {
			for _, l := range []string{"KeyRangeThroughputExceeded", "ProvisionedThroughputExceeded", "AccountLimitExceeded", "MaxOnDemandThroughputExceeded"} {
				seen[Reason(res+dir+l)] = true
			}
		}
	}
	for i, r := range all {
		assert.True(t, seen[r], "%s", r)
		index, dir, l := i >= 8, (i/4)%2, limit(i%4)
		assert.Equal(t, i, reasonIndex(index, dir, l))
	}
	th := newThrottle(false, false, keyRange)
	th.Reasons = []ThrottlingReason{{TableWriteKeyRangeThroughputExceeded, arnT}}
	assert.Equal(t, "ProvisionedThroughputExceededException [TableWriteKeyRangeThroughputExceeded "+arnT+"]", th.String())
	assert.Equal(t, ExceptionProvisioned+": "+msgProvisionedTable, th.Error())
}

// A resource with no capacity refuses everything.
func TestZeroCapacityRefuses(t *testing.T) {
	m, clk := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{WriteCapacity: 5}, nil))
	th := m.Admit(Request{Table: "T", Read: 0.5})
	require.NotNil(t, th)
	assert.Equal(t, TableReadProvisionedThroughputExceeded, th.Reasons[0].Reason)
	clk.Advance(time.Hour)
	assert.NotNil(t, m.Admit(Request{Table: "T", Read: 0.5}))
	assert.Nil(t, m.Admit(Request{Table: "T", Write: 5}))
}
