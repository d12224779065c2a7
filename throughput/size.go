package throughput

import (
	"fmt"
	"math"
	"sort"
)

// PartitionGB is the size at which DynamoDB splits a partition.
const PartitionGB = 10

// Place splits the partitions of a table (index "") or of one of its
// indexes by size, as DynamoDB does near 10 GB: the data is given as
// points (Weight in GB at a key's hash) and as even GB spread over the
// whole key space (keys of one item each), and every partition holding
// more than PartitionGB is cut at the median of its data until none does.
// A single key holding more cannot be cut by hash (DynamoDB then splits
// its item collection by sort key, which does not raise what the key can
// serve); it stays on one partition. Place returns how many partitions
// were added. It is for simulations that know where the data lies; the
// engine sizes partitions from its tables' sizes at Define.
func (m *Model) Place(tableName, index string, points []Point, even float64) (int, error) {
	t := m.lookup(tableName)
	if t == nil {
		return 0, fmt.Errorf("place: no table %s", tableName)
	}
	if !finite(even) || even < 0 {
		return 0, fmt.Errorf("place: even size must be a finite number >= 0, got %v", even)
	}
	for _, p := range points {
		if !finite(p.Weight) || p.Weight < 0 {
			return 0, fmt.Errorf("place: size must be a finite number >= 0, got %v", p.Weight)
		}
	}
	now, sec := m.clock()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.base
	if index != "" {
		r = t.gsis[index]
	}
	if r == nil || t.dropped {
		return 0, fmt.Errorf("place: table %s has no index %s", tableName, index)
	}
	pts := append([]Point(nil), points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].Hash < pts[j].Hash })
	added := 0
	for i := 0; i < len(r.parts) && len(r.parts) < m.c.maxParts; {
		p := r.parts[i]
		if sizeIn(pts, even, p.lo, p.hi) <= PartitionGB*(1+1e-9) {
			i++
			continue
		}
		cut, ok := sizeCut(pts, even, p.lo, p.hi)
		if !ok {
			i++ // one key: cannot be cut by hash
			continue
		}
		r.splitAt(&m.c, i, cut, false, now, sec)
		added++
	}
	total := even
	for _, p := range pts {
		total += p.Weight
	}
	r.spec.SizeGB = max(r.spec.SizeGB, total)
	r.high[2] = max(r.high[2], total)
	return added, nil
}

// sizeIn is the data of the range lo..hi.
func sizeIn(pts []Point, even float64, lo, hi uint64) float64 {
	s := even * width(lo, hi)
	i := sort.Search(len(pts), func(i int) bool { return pts[i].Hash >= lo })
	for ; i < len(pts) && pts[i].Hash <= hi; i++ {
		s += pts[i].Weight
	}
	return s
}

// sizeCut is the first hash of the upper half of lo..hi by data: the
// smallest cut leaving at least half the range's data below it, moved to
// the side of a heavy key that balances better. ok is false when the data
// cannot be cut (it all sits on one hash).
func sizeCut(pts []Point, even float64, lo, hi uint64) (uint64, bool) {
	if lo == hi {
		return 0, false
	}
	total := sizeIn(pts, even, lo, hi)
	below := func(c uint64) float64 { // data at hashes < c
		if c == lo {
			return 0
		}
		return sizeIn(pts, even, lo, c-1)
	}
	// Binary search for the smallest c in (lo, hi] with below(c) >= total/2.
	a, b := lo+1, hi
	for a < b {
		mid := a + (b-a)/2
		if below(mid) >= total/2 {
			b = mid
		} else {
			a = mid + 1
		}
	}
	c := a
	// a key sitting at c-1 made the halves uneven: cut before it when that
	// balances better.
	if c-1 > lo && math.Abs(total-2*below(c-1)) < math.Abs(total-2*below(c)) {
		c--
	}
	if below(c) == 0 || below(c) >= total*(1-1e-12) {
		// everything on one side: a single heavy key, unless the range
		// can still be halved evenly.
		if even == 0 {
			return 0, false
		}
	}
	return c, true
}
