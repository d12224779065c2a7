package throughput

import (
	"math"
	"time"
)

// resource is a table or one of its global secondary indexes: its
// partitions and its table-level limits, one flow per direction.
type resource struct {
	index string // "" for the table
	arn   string
	spec  ResourceSpec
	flow  [2]flow
	parts []*partition // ordered by hash range
	// layout counts the changes of parts, so that AdmitSecond knows
	// where a charge's points land without finding them again.
	layout uint64
	top    topKeys
	split  []Split
	// batch is the state of the AdmitSecond touching it.
	batch batchRefs
	// partCap is the per-partition cap in local units.
	partCap [2]float64
	// high is the highest read rate, write rate and size configured so
	// far: partitions are added only when capacity passes it.
	high [3]float64
}

// flow is one direction (read or write) of a resource at table level.
type flow struct {
	// limit is the table-level bucket: provisioned capacity with burst,
	// or the on-demand rate min(max(warm, 2 x adapted peak), quota, max).
	limit   bucket
	binding limit // which limit sets limit.rate

	// On-demand peak tracking, in local units per second: the units of
	// the current second; earlier seconds' peaks still inside the
	// adaptation window, increasing; and the peak the resource has
	// adapted to.
	sec     int64
	units   float64
	pending []mark
	adapted float64

	total flowTotals
}

type mark struct {
	sec   int64
	units float64
}

// Split records a partition split for reports.
type Split struct {
	At time.Time
	// Lo..Hi was the partition's range; Cut is the first hash of its
	// upper half.
	Lo, Hi, Cut uint64
	// Heat is true for a split for heat, false for one made for
	// capacity (a new provisioned or on-demand high-water mark).
	Heat bool
}

// maxSplitLog bounds the splits a resource remembers.
const maxSplitLog = 1024

// configure sets the limits from the spec (after Define or a new peak)
// and adds the partitions capacity calls for when it passes its
// previous high (a new resource gets Spec.Partitions, or the heuristic).
func (r *resource) configure(c *config, now, sec int64) {
	s := c.scale
	r.partCap = [2]float64{c.partCap[read] * s, c.partCap[write] * s}
	for d := range 2 {
		f := &r.flow[d]
		f.limit.refill(now)
		if r.spec.Mode == Provisioned {
			rate := [2]float64{r.spec.ReadCapacity, r.spec.WriteCapacity}[d] * s
			f.binding = provisioned
			f.limit.reset(rate, max(rate, rate*c.burst))
			continue
		}
		rate, bind := r.onDemandRate(c, d)
		f.binding = bind
		f.limit.reset(rate, rate)
	}
	high := [3]float64{r.flow[read].limit.rate, r.flow[write].limit.rate, r.spec.SizeGB}
	switch {
	case len(r.parts) == 0 && r.spec.Partitions > 0:
		r.grow(c, min(r.spec.Partitions, c.maxParts), now, sec)
	case len(r.parts) == 0 || high[0] > r.high[0] || high[1] > r.high[1] || high[2] > r.high[2]:
		r.grow(c, r.wantPartitions(c), now, sec)
	}
	r.high = [3]float64{max(r.high[0], high[0]), max(r.high[1], high[1]), max(r.high[2], high[2])}
	for _, p := range r.parts {
		for d := range 2 {
			p.cap[d].refill(now)
			p.cap[d].reset(r.partCap[d], r.partCap[d])
		}
	}
}

// onDemandRate is min(max(warm, 2 x adapted peak), quota, max) in local
// units, and which of them binds. A table throttled at the first of them
// has not yet scaled: its partitions refuse, hence KeyRange.
func (r *resource) onDemandRate(c *config, d int) (float64, limit) {
	s := c.scale
	warm := [2]float64{r.spec.WarmRead, r.spec.WarmWrite}[d] * s
	rate, bind := max(warm, 2*r.flow[d].adapted), keyRange
	if q := c.quota[d] * s; q <= rate {
		rate, bind = q, account
	}
	if m := [2]float64{r.spec.MaxRead, r.spec.MaxWrite}[d] * s; m > 0 && m <= rate {
		rate, bind = m, maxOnDemand
	}
	return rate, bind
}

// wantPartitions is the partition count the capacity calls for, the
// community heuristic max(ceil(GB/10), ceil(RCU/3000 + WCU/1000)) with
// the provisioned capacity or the on-demand rate, in AWS units.
func (r *resource) wantPartitions(c *config) int {
	var rc, wc float64
	if r.spec.Mode == Provisioned {
		rc, wc = r.spec.ReadCapacity, r.spec.WriteCapacity
	} else {
		rc, wc = r.flow[read].limit.rate/c.scale, r.flow[write].limit.rate/c.scale
	}
	n := math.Ceil(rc/c.partCap[read] + wc/c.partCap[write] - 1e-9)
	n = max(n, math.Ceil(r.spec.SizeGB/10-1e-9), 1)
	return int(min(n, float64(c.maxParts)))
}

// grow adds partitions until there are at least n, halving every
// partition wider than an n-th of the key space (so that the ranges stay
// even), and never removes any.
func (r *resource) grow(c *config, n int, now, sec int64) {
	if len(r.parts) == 0 {
		r.layout++
		r.parts = make([]*partition, 0, n)
		for i := range n {
			hi := uint64(math.MaxUint64)
			if i+1 < n {
				hi = evenBounds(i+1, n) - 1
			}
			r.parts = append(r.parts, newPartition(evenBounds(i, n), hi, r.partCap, c.history, now, sec))
		}
		return
	}
	span := uint64(math.MaxUint64) / uint64(n)
	for len(r.parts) < n {
		split := false
		for i := 0; i < len(r.parts) && len(r.parts) < c.maxParts; i++ {
			if p := r.parts[i]; p.hi-p.lo > span {
				r.splitAt(c, i, midpoint(p.lo, p.hi), false, now, sec)
				split = true
				i-- // look at the lower half again
			}
		}
		if !split {
			return
		}
	}
}

// splitAt replaces partition i by its two halves at cut. The halves keep
// the parent's tokens; their figures start afresh.
func (r *resource) splitAt(c *config, i int, cut uint64, heat bool, now, sec int64) {
	p := r.parts[i]
	r.layout++
	a := newPartition(p.lo, cut-1, r.partCap, c.history, now, sec)
	b := newPartition(cut, p.hi, r.partCap, c.history, now, sec)
	a.cap, b.cap = p.cap, p.cap
	r.parts = append(r.parts, nil)
	copy(r.parts[i+2:], r.parts[i+1:])
	r.parts[i], r.parts[i+1] = a, b
	if len(r.split) < maxSplitLog {
		r.split = append(r.split, Split{At: time.Unix(0, now).UTC(), Lo: p.lo, Hi: p.hi, Cut: cut, Heat: heat})
	}
}

// find returns the index of the partition owning hash.
func (r *resource) find(hash uint64) int {
	lo, hi := 0, len(r.parts)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.parts[m].hi < hash {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// advance brings the table-level buckets to now and, for on-demand
// resources, adopts peaks that have aged past the adaptation window,
// raising the rate and the partition count.
func (r *resource) advance(c *config, now, sec int64) {
	changed := false
	for d := range 2 {
		f := &r.flow[d]
		f.limit.refill(now)
		if r.spec.Mode != OnDemand {
			continue
		}
		f.close(sec)
		for len(f.pending) > 0 && f.pending[0].sec <= sec-c.peakWindow {
			if f.pending[0].units > f.adapted {
				f.adapted = f.pending[0].units
				changed = true
			}
			f.pending = f.pending[1:]
		}
	}
	if changed {
		r.configure(c, now, sec)
	}
}

// close ends the flow's current second when the clock has moved on,
// keeping its units as a candidate peak if it beats every earlier one.
func (f *flow) close(sec int64) {
	if sec == f.sec {
		return
	}
	best := f.adapted
	if n := len(f.pending); n > 0 {
		best = f.pending[n-1].units
	}
	if f.units > best {
		f.pending = append(f.pending, mark{sec: f.sec, units: f.units})
	}
	f.sec, f.units = sec, 0
}

// topKeys keeps the most throttled keys of a resource (space-saving, so
// that memory stays bounded whatever the key count).
type topKeys struct {
	n       int
	entries []topKey
}

type topKey struct {
	hash      uint64
	units     float64
	count     int64
	sample    [keySample]byte
	sampleLen uint8
}

// keySample bounds the key text kept per throttled key.
const keySample = 64

func (t *topKeys) note(hash uint64, key []byte, units float64) {
	min := -1
	for i := range t.entries {
		e := &t.entries[i]
		if e.hash == hash {
			e.units += units
			e.count++
			return
		}
		if min < 0 || e.units < t.entries[min].units {
			min = i
		}
	}
	e := topKey{hash: hash, units: units, count: 1}
	if len(t.entries) < t.n {
		t.entries = append(t.entries, e)
		min = len(t.entries) - 1
	} else {
		if min < 0 {
			return
		}
		e.units += t.entries[min].units
		e.count += t.entries[min].count
		t.entries[min] = e
	}
	t.entries[min].sampleLen = uint8(copy(t.entries[min].sample[:], key))
}
