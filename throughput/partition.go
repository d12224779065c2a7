package throughput

import (
	"math"
	"math/bits"
)

// partition owns the hashes lo..hi (inclusive) of a table or index.
type partition struct {
	lo, hi uint64
	cap    [2]bucket // the per-partition caps; never lifted by burst
	total  [2]flowTotals
	ring   []second // per-second figures, slot sec%len

	// Heat: the demand that reached the partition in the current second
	// (served or refused by its cap); the consecutive hot seconds; the
	// heaviest keys seen while hot, to split at the median of heat.
	heatSec  int64
	demand   [2]float64
	hotStart int64 // first second of the current hot streak, or -1
	hotLast  int64
	sketch   [sketchSize]heat
	// batchHeat is the demand reaching it in the second AdmitSecond is
	// deciding, by direction.
	batchHeat [2]float64
}

// flowTotals are cumulative units.
type flowTotals struct{ consumed, throttled float64 }

// second holds one second's units of a partition.
type second struct {
	sec       int64
	consumed  [2]float64
	throttled [2]float64
}

const sketchSize = 8

// heat is a key's weight in the space-saving sketch.
type heat struct {
	hash uint64
	w    float64
}

func newPartition(lo, hi uint64, caps [2]float64, history int, now, sec int64) *partition {
	p := &partition{lo: lo, hi: hi, ring: make([]second, history), heatSec: sec, hotStart: -1}
	for d := range 2 {
		p.cap[d] = bucket{tokens: caps[d], rate: caps[d], depth: caps[d], last: now}
	}
	for i := range p.ring {
		p.ring[i].sec = math.MinInt64
	}
	return p
}

// slot returns the figures of second sec, cleared when the slot last
// held an older second.
func (p *partition) slot(sec int64) *second {
	n := int64(len(p.ring))
	s := &p.ring[((sec%n)+n)%n]
	if s.sec != sec {
		*s = second{sec: sec}
	}
	return s
}

// roll closes the heat second when the clock has moved on and reports
// whether the partition has now been hot for splitAfter consecutive
// seconds. A cool second, or idle seconds, end a streak and forget the
// heat seen so far.
func (p *partition) roll(sec int64, caps [2]float64, theta float64, splitAfter int64) bool {
	if sec == p.heatSec {
		return false
	}
	closed := p.heatSec
	hot := p.demand[read]/caps[read]+p.demand[write]/caps[write] >= theta
	p.heatSec, p.demand = sec, [2]float64{}
	if !hot || sec != closed+1 {
		p.hotStart = -1
		p.sketch = [sketchSize]heat{}
		return false
	}
	if p.hotStart < 0 || p.hotLast != closed-1 {
		p.hotStart = closed
	}
	p.hotLast = closed
	return splitAfter >= 0 && closed-p.hotStart+1 >= splitAfter
}

// note records demand for heat: the units of one access to hash.
func (p *partition) note(dir int, hash uint64, units, capacity float64) {
	p.demand[dir] += units
	w := units / capacity
	min := 0
	for i := range p.sketch {
		e := &p.sketch[i]
		if e.w > 0 && e.hash == hash {
			e.w += w
			return
		}
		if e.w < p.sketch[min].w {
			min = i
		}
	}
	// Space-saving: the lightest entry (or an empty one) gives way and
	// its weight is inherited, an upper bound of the newcomer's.
	p.sketch[min] = heat{hash: hash, w: p.sketch[min].w + w}
}

// cut is where a hot partition splits, as the first hash of its upper
// half: at the median of its heat, on whichever side of the median key
// balances the halves better, so that two hot keys end up apart and a
// single hot key alone on a partition after at most two splits. ok is
// false when the partition holds a single hash.
func (p *partition) cut() (c uint64, ok bool) {
	if p.lo == p.hi {
		return 0, false
	}
	var hs [sketchSize]heat
	n, total := 0, 0.0
	for _, e := range p.sketch {
		if e.w > 0 {
			hs[n] = e
			n++
			total += e.w
		}
	}
	if n == 0 {
		return midpoint(p.lo, p.hi), true
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && hs[j].hash < hs[j-1].hash; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
	j, below := 0, 0.0 // hs[j] is the median key, below the heat before it
	for ; j < n-1 && below+hs[j].w < total/2; j++ {
		below += hs[j].w
	}
	k := hs[j].hash
	before, after := k > p.lo, k < p.hi // cut before k, or just after it
	if before && after {
		after = math.Abs(total-2*(below+hs[j].w)) <= math.Abs(total-2*below)
		before = !after
	}
	if after {
		return k + 1, true
	}
	return k, true
}

// midpoint is the first hash of the upper half of lo..hi.
func midpoint(lo, hi uint64) uint64 { return lo + (hi-lo)/2 + 1 }

// evenBounds returns the first hash of partition i of n equal ranges.
func evenBounds(i, n int) uint64 {
	if i == 0 {
		return 0
	}
	q, _ := bits.Div64(uint64(i), 0, uint64(n))
	return q
}
