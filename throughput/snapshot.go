package throughput

import (
	"sort"
	"time"
)

// Snapshot is a copy of the model's figures at one instant. Units are
// local units (what the requests were charged); divide by Scale for the
// AWS-equivalent figures.
type Snapshot struct {
	At     time.Time
	Scale  float64
	Tables []TableStats // by name
}

// TableStats are one table's figures.
type TableStats struct {
	Table string
	// Resources are the table then its indexes by name.
	Resources []ResourceStats
	// Reasons counts throttled requests by reason (a request refused for
	// two reasons counts under both).
	Reasons map[Reason]int64
}

// ResourceStats are the figures of a table or of one index.
type ResourceStats struct {
	Index string // "" for the table
	ARN   string
	Mode  Mode
	// Rate is the table-level rate now (local units per second):
	// provisioned capacity, or the on-demand rate. Tokens is what the
	// table-level bucket holds (banked burst included).
	ReadRate, WriteRate     float64
	ReadTokens, WriteTokens float64
	// ReadLimit and WriteLimit name what sets the rate: KeyRange (the
	// on-demand warm throughput or twice the previous peak),
	// ProvisionedThroughput, AccountLimit or MaxOnDemandThroughput.
	ReadLimit, WriteLimit string
	// ReadPeak and WritePeak are the on-demand peaks the resource has
	// adapted to (local units per second).
	ReadPeak, WritePeak float64
	Totals              Totals
	Partitions          []PartitionStats // in hash order
	Splits              []Split
	// TopThrottled are the most throttled partition keys, heaviest
	// first (counts are upper bounds once more keys were throttled
	// than are tracked).
	TopThrottled []KeyStats
}

// Totals are cumulative units.
type Totals struct {
	ReadConsumed, WriteConsumed, ReadThrottled, WriteThrottled float64
}

// PartitionStats are one partition's figures. The halves of a split
// start their figures afresh (the resource's Totals keep everything).
type PartitionStats struct {
	// Lo..Hi is the hash range the partition owns.
	Lo, Hi uint64
	Totals Totals
	// Seconds are the recent seconds with any traffic, oldest first.
	Seconds []SecondStats
}

// SecondStats are one partition's units in one second.
type SecondStats struct {
	At time.Time
	Totals
}

// KeyStats is a throttled partition key.
type KeyStats struct {
	Hash uint64
	// Key is the start of the key's text as the caller passed it.
	Key   string
	Units float64
	Count int64
}

var limitNames = [...]string{keyRange: "KeyRange", provisioned: "ProvisionedThroughput", account: "AccountLimit", maxOnDemand: "MaxOnDemandThroughput"}

// Snapshot copies the figures. It locks one table at a time, briefly, so
// admissions go on meanwhile; each table's figures are consistent.
func (m *Model) Snapshot() Snapshot {
	now, sec := m.clock()
	m.mu.RLock()
	ts := make([]*table, 0, len(m.tables))
	for _, t := range m.tables {
		ts = append(ts, t)
	}
	m.mu.RUnlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	out := Snapshot{At: time.Unix(0, now).UTC(), Scale: m.c.scale}
	for _, t := range ts {
		t.mu.Lock()
		if !t.dropped {
			out.Tables = append(out.Tables, t.stats(&m.c, now, sec))
		}
		t.mu.Unlock()
	}
	return out
}

func (t *table) stats(c *config, now, sec int64) TableStats {
	ts := TableStats{Table: t.name, Reasons: map[Reason]int64{}}
	for i, n := range t.reasons {
		if n > 0 {
			ts.Reasons[reasons[i]] = n
		}
	}
	names := make([]string, 0, len(t.gsis))
	for n := range t.gsis {
		names = append(names, n)
	}
	sort.Strings(names)
	ts.Resources = append(ts.Resources, t.base.stats(c, now, sec))
	for _, n := range names {
		ts.Resources = append(ts.Resources, t.gsis[n].stats(c, now, sec))
	}
	return ts
}

func (r *resource) stats(c *config, now, sec int64) ResourceStats {
	r.advance(c, now, sec)
	rs := ResourceStats{
		Index: r.index, ARN: r.arn, Mode: r.spec.Mode,
		ReadRate: r.flow[read].limit.rate, WriteRate: r.flow[write].limit.rate,
		ReadTokens: r.flow[read].limit.tokens, WriteTokens: r.flow[write].limit.tokens,
		ReadLimit: limitNames[r.flow[read].binding], WriteLimit: limitNames[r.flow[write].binding],
		ReadPeak: r.flow[read].adapted, WritePeak: r.flow[write].adapted,
		Totals: Totals{
			ReadConsumed: r.flow[read].total.consumed, WriteConsumed: r.flow[write].total.consumed,
			ReadThrottled: r.flow[read].total.throttled, WriteThrottled: r.flow[write].total.throttled,
		},
		Splits: append([]Split(nil), r.split...),
	}
	for _, p := range r.parts {
		ps := PartitionStats{Lo: p.lo, Hi: p.hi, Totals: totals(p.total[read], p.total[write])}
		for s := sec - int64(len(p.ring)) + 1; s <= sec; s++ {
			n := int64(len(p.ring))
			x := &p.ring[((s%n)+n)%n]
			if x.sec != s {
				continue
			}
			ps.Seconds = append(ps.Seconds, SecondStats{At: time.Unix(s, 0).UTC(), Totals: Totals{
				ReadConsumed: x.consumed[read], WriteConsumed: x.consumed[write],
				ReadThrottled: x.throttled[read], WriteThrottled: x.throttled[write],
			}})
		}
		rs.Partitions = append(rs.Partitions, ps)
	}
	for _, e := range r.top.entries {
		rs.TopThrottled = append(rs.TopThrottled, KeyStats{Hash: e.hash, Key: string(e.sample[:e.sampleLen]), Units: e.units, Count: e.count})
	}
	sort.Slice(rs.TopThrottled, func(i, j int) bool {
		a, b := rs.TopThrottled[i], rs.TopThrottled[j]
		if a.Units != b.Units {
			return a.Units > b.Units
		}
		return a.Hash < b.Hash
	})
	return rs
}

func totals(r, w flowTotals) Totals {
	return Totals{ReadConsumed: r.consumed, WriteConsumed: w.consumed, ReadThrottled: r.throttled, WriteThrottled: w.throttled}
}

// Table returns the named table's figures, or nil.
func (s Snapshot) Table(name string) *TableStats {
	for i := range s.Tables {
		if s.Tables[i].Table == name {
			return &s.Tables[i]
		}
	}
	return nil
}

// Resource returns the table's ("") or an index's figures, or nil.
func (t *TableStats) Resource(index string) *ResourceStats {
	for i := range t.Resources {
		if t.Resources[i].Index == index {
			return &t.Resources[i]
		}
	}
	return nil
}

// Busy counts the partitions that consumed or throttled anything.
func (r *ResourceStats) Busy() int {
	n := 0
	for _, p := range r.Partitions {
		if p.Totals != (Totals{}) {
			n++
		}
	}
	return n
}
