package throughput

import (
	"math"
	"slices"
	"sort"
)

// Batch admission: one second of aggregated demand decided at once, for
// simulations that replay hours of traffic at full scale (millions of
// requests a second would take too long one by one). The buckets, the
// partitions, their splits, the on-demand adaptation, the reasons and the
// figures are the ones Admit uses; only the decision is made for many
// requests together.
//
// Within a second the requests of a Load are taken to arrive evenly, as a
// fluid: a bucket that the demand reaching it would overdraw serves the
// fraction of it that its tokens and the second's refill cover, and
// refuses the rest, whoever asked. A request passes only if every bucket
// it needs has room, all or nothing as in Admit, the buckets being taken
// as independent. A bucket's demand is what reaches it from requests the
// other buckets pass, so the pass fractions are found together, by
// iterating to a fixed point (the reduced-load approximation of networks
// of links). With one saturated bucket this is what Admit does request by
// request; with several it is an approximation whose agreement with Admit
// the tests measure.

// Load is one kind of request offered during one second.
type Load struct {
	// Count is how many requests are offered in the second; with After
	// set, how many per request of that load admitted in the second.
	Count float64
	// After, when positive, is 1 + the position (in the same call) of an
	// earlier load whose admitted requests make these: a later step of an
	// operation runs only when the earlier one succeeded. 0: none.
	After int
	// Charges are what each request charges, all or nothing. Charges on
	// the same partition key must be given as one charge (their units
	// added): distinct charges are placed independently.
	Charges []Charge
}

// Charge is one request's units on one table or index, spread over the
// partition keys the requests address.
type Charge struct {
	Table string
	// Index names a global secondary index: a read of it, or a base-table
	// write's charge on it. "" is the table itself.
	Index string
	Write bool
	Units float64
	// Points are keys with the share of the requests that address each;
	// Even is the share addressing keys spread over the whole key space
	// (one per item), placed by the width of each partition's range. The
	// shares should add up to 1.
	Points []Point
	Even   float64
}

// Point is a partition key and a share of requests.
type Point struct {
	Hash   uint64
	Weight float64
	// Key is the key's text, kept for the most throttled keys; it may be
	// nil.
	Key []byte
}

// LoadResult is what became of one Load's requests in the second.
type LoadResult struct {
	// Offered is the requests offered (Count, times the admitted requests
	// of After); Admitted and Throttled add up to it.
	Offered, Admitted, Throttled float64
	// Reasons are the throttled requests by reason, in the order of
	// AllReasons: a request refused for two reasons counts under both.
	Reasons ReasonCounts
}

// ReasonCounts holds a count per throttling reason, in the order of
// AllReasons.
type ReasonCounts [16]float64

// Get returns the count of one reason.
func (c *ReasonCounts) Get(r Reason) float64 {
	for i, x := range reasons {
		if x == r {
			return c[i]
		}
	}
	return 0
}

// Add adds o to c.
func (c *ReasonCounts) Add(o *ReasonCounts) {
	for i := range c {
		c[i] += o[i]
	}
}

// Each calls f for every reason with a count above zero, in the order of
// AllReasons.
func (c *ReasonCounts) Each(f func(Reason, float64)) {
	for i, x := range c {
		if x > 0 {
			f(reasons[i], x)
		}
	}
}

// batch is the working state of one AdmitSecond, reused from call to
// call (Model.batches) so that a day of seconds allocates little.
type batch struct {
	now, sec int64
	gen      uint64 // marks the resources touched by this batch
	buckets  []bbucket
	charges  [][]bcharge
	flowsOf  [][]bflow
	tables   []*table
	touched  []*resource
}

// bbucket is one bucket in a batch.
type bbucket struct {
	b      *bucket
	res    *resource
	part   *partition // nil for a table-level bucket
	dir    int
	cap    float64 // tokens now plus the second's refill
	demand float64
	pass   float64
	heat   float64 // units that reached the partition
	noted  float64 // of which noted at their keys
	used   float64
	thr    float64
}

// bcharge is one charge of one load: the partitions it lands on.
type bcharge struct {
	units float64
	flow  int // batch bucket of the table-level limit
	flowN int // its position in the load's flows
	parts []bshare
	avg   float64 // pass fraction over its partitions
	res   *resource
	dir   int
	pts   []Point
	// memo is where the points landed the last time this slot placed
	// the same points on the same layout: partition index and weight.
	memo     []bshare
	memoRes  *resource
	memoPts  *Point
	memoLen  int
	memoEven float64
	memoDir  int
	memoLay  uint64
}

type bshare struct {
	bucket int
	w      float64
}

// bflow is a load's need from one table-level bucket.
type bflow struct {
	bucket int
	units  float64
}

// batchRefs is what a resource keeps of the batch touching it: the batch
// bucket of its table-level limits and of each partition, by direction
// (-1: untouched).
type batchRefs struct {
	gen   uint64
	flow  [2]int
	parts [2][]int
}

// AdmitSecond decides the loads of the second the model's clock is in,
// consuming what is admitted, and returns one result per load (in out,
// reused when it has room). Loads on tables never defined are admitted.
// The whole second's refill is taken at once: call it once per second,
// with the clock at the start of the second, and do not mix it with
// Admit for the same table and second.
func (m *Model) AdmitSecond(loads []Load, out []LoadResult) []LoadResult {
	if cap(out) < len(loads) {
		out = make([]LoadResult, len(loads))
	}
	out = out[:len(loads)]
	clear(out)
	now, sec := m.clock()
	bt, _ := m.batches.Get().(*batch)
	if bt == nil {
		bt = &batch{}
	}
	defer m.batches.Put(bt)
	bt.reset(now, sec, len(loads))
	bt.gen = m.batchGen.Add(1)
	// Lock every table named, in name order.
	for i := range loads {
		for _, c := range loads[i].Charges {
			if t := m.lookup(c.Table); t != nil && !slices.Contains(bt.tables, t) {
				bt.tables = append(bt.tables, t)
			}
		}
	}
	sort.Slice(bt.tables, func(i, j int) bool { return bt.tables[i].name < bt.tables[j].name })
	for _, t := range bt.tables {
		t.mu.Lock()
	}
	defer func() {
		for i := len(bt.tables) - 1; i >= 0; i-- {
			bt.tables[i].mu.Unlock()
		}
	}()
	// Place every charge.
	for i := range loads {
		for k := range loads[i].Charges {
			c := &loads[i].Charges[k]
			var t *table
			for _, x := range bt.tables {
				if x.name == c.Table {
					t = x
				}
			}
			if t == nil || t.dropped || !(c.Units > 0) || !finite(c.Units) {
				continue
			}
			res := t.base
			if c.Index != "" {
				res = t.gsis[c.Index]
			}
			if res == nil {
				continue
			}
			dir := read
			if c.Write {
				dir = write
			}
			n := len(bt.charges[i])
			if n < cap(bt.charges[i]) {
				bt.charges[i] = bt.charges[i][:n+1]
			} else {
				bt.charges[i] = append(bt.charges[i], bcharge{})
			}
			bt.place(&m.c, res, dir, c, &bt.charges[i][n])
		}
		// Group the charges' table-level needs: one request takes all its
		// units on a table from one bucket at once.
		for j := range bt.charges[i] {
			ch := &bt.charges[i][j]
			k := -1
			for n, f := range bt.flowsOf[i] {
				if f.bucket == ch.flow {
					k = n
				}
			}
			if k < 0 {
				bt.flowsOf[i] = append(bt.flowsOf[i], bflow{bucket: ch.flow})
				k = len(bt.flowsOf[i]) - 1
			}
			bt.flowsOf[i][k].units += ch.units
			ch.flowN = k
		}
	}
	bt.solve(loads, out)
	bt.commit(&m.c, loads, out)
	return out
}

// reset empties the batch for a new second, keeping its memory.
func (bt *batch) reset(now, sec int64, loads int) {
	bt.now, bt.sec = now, sec
	bt.gen++
	clear(bt.buckets)
	bt.buckets = bt.buckets[:0]
	bt.tables = bt.tables[:0]
	bt.touched = bt.touched[:0]
	for len(bt.charges) < loads {
		bt.charges = append(bt.charges, nil)
		bt.flowsOf = append(bt.flowsOf, nil)
	}
	for i := range bt.charges {
		for j := range bt.charges[i] {
			bt.charges[i][j].parts = bt.charges[i][j].parts[:0]
		}
		bt.charges[i] = bt.charges[i][:0]
		bt.flowsOf[i] = bt.flowsOf[i][:0]
	}
}

// refs returns the batch's references of a resource, rolling its
// partitions' heat (and splitting those hot long enough) at the first
// touch, as Admit does at a partition's first charge of a second.
func (bt *batch) refs(c *config, res *resource) *batchRefs {
	r := &res.batch
	if r.gen == bt.gen {
		return r
	}
	res.advance(c, bt.now, bt.sec)
	for i := 0; i < len(res.parts); i++ {
		p := res.parts[i]
		if p.roll(bt.sec, res.partCap, c.theta, c.splitAfter) && len(res.parts) < c.maxParts {
			if cut, ok := p.cut(); ok {
				res.splitAt(c, i, cut, true, bt.now, bt.sec)
				i++ // both halves start afresh
			}
		}
	}
	r.gen = bt.gen
	r.flow = [2]int{-1, -1}
	for d := range 2 {
		r.parts[d] = slices.Grow(r.parts[d][:0], len(res.parts))[:len(res.parts)]
		for i := range r.parts[d] {
			r.parts[d][i] = -1
		}
	}
	bt.touched = append(bt.touched, res)
	return r
}

// place finds the partitions a charge lands on, into out (whose parts
// slice it reuses).
func (bt *batch) place(c *config, res *resource, dir int, ch *Charge, out *bcharge) {
	refs := bt.refs(c, res)
	if refs.flow[dir] < 0 {
		f := &res.flow[dir].limit
		f.refill(bt.now)
		refs.flow[dir] = bt.add(bbucket{b: f, res: res, dir: dir, cap: f.tokens + f.rate})
	}
	memo := out.memo
	hit := (out.memoRes == res && out.memoLay == res.layout && out.memoDir == dir && out.memoEven == ch.Even &&
		out.memoLen == len(ch.Points) && (len(ch.Points) == 0 || out.memoPts == &ch.Points[0]))
	*out = bcharge{units: ch.Units, flow: refs.flow[dir], res: res, dir: dir, pts: ch.Points, parts: out.parts[:0],
		memo: memo, memoRes: out.memoRes, memoPts: out.memoPts, memoLen: out.memoLen, memoEven: out.memoEven, memoDir: out.memoDir, memoLay: out.memoLay}
	share := func(i int, w float64) {
		if !(w > 0) {
			return
		}
		if refs.parts[dir][i] < 0 {
			p := res.parts[i]
			p.cap[dir].refill(bt.now)
			refs.parts[dir][i] = bt.add(bbucket{b: &p.cap[dir], res: res, part: p, dir: dir, cap: p.cap[dir].tokens + p.cap[dir].rate})
		}
		b := refs.parts[dir][i]
		for k := range out.parts {
			if out.parts[k].bucket == b {
				out.parts[k].w += w
				return
			}
		}
		out.parts = append(out.parts, bshare{bucket: b, w: w})
	}
	if hit {
		for _, m := range out.memo {
			share(m.bucket, m.w)
		}
		return
	}
	// Where the points land, by partition (kept for the next seconds
	// while the layout holds).
	acc := out.memo[:0]
	add := func(i int, w float64) {
		if !(w > 0) {
			return
		}
		for k := range acc {
			if acc[k].bucket == i {
				acc[k].w += w
				return
			}
		}
		acc = append(acc, bshare{bucket: i, w: w})
	}
	if ch.Even > 0 {
		for i, p := range res.parts {
			add(i, ch.Even*width(p.lo, p.hi))
		}
	}
	last, lastW := -1, 0.0
	for _, pt := range ch.Points {
		i := res.find(pt.Hash)
		if i != last && last >= 0 {
			add(last, lastW)
			lastW = 0
		}
		last = i
		lastW += pt.Weight
	}
	if last >= 0 {
		add(last, lastW)
	}
	out.memo, out.memoRes, out.memoLay, out.memoDir, out.memoEven, out.memoLen = acc, res, res.layout, dir, ch.Even, len(ch.Points)
	out.memoPts = nil
	if len(ch.Points) > 0 {
		out.memoPts = &ch.Points[0]
	}
	for _, m := range acc {
		share(m.bucket, m.w)
	}
}

// width is the fraction of the key space lo..hi covers.
func width(lo, hi uint64) float64 { return (float64(hi-lo) + 1) / (1 << 64) }

func (bt *batch) add(b bbucket) int {
	// Start from the fraction the bucket passed in the previous second:
	// steady loads then settle at once.
	b.pass = 1
	if b.b.batchSec == bt.sec-1 {
		b.pass = b.b.batchPass
	}
	bt.buckets = append(bt.buckets, b)
	return len(bt.buckets) - 1
}

// solve finds every bucket's pass fraction, and each load's result.
// Each round gives every bucket the pass fraction its demand at the
// others' fractions calls for; a bucket whose demand fits passes
// everything, so an unsaturated second takes one round and one saturated
// bucket two. Rounds that oscillate (coupled buckets) are damped.
func (bt *batch) solve(loads []Load, out []LoadResult) {
	const maxRounds = 200
	damp := false
	last := math.Inf(1)
	for round := 0; round < maxRounds; round++ {
		for i := range bt.buckets {
			bt.buckets[i].demand = 0
		}
		bt.sweep(loads, out, true)
		change := 0.0
		for i := range bt.buckets {
			b := &bt.buckets[i]
			want := 1.0
			if b.demand > b.cap {
				want = max(b.cap, 0) / b.demand
			}
			next := want
			if damp {
				next = 0.5*b.pass + 0.5*want
			}
			change = max(change, math.Abs(next-b.pass))
			b.pass = next
		}
		if change < 1e-7 {
			break
		}
		if change >= last {
			damp = true
		}
		last = change
	}
	// A last pass at the fixed point: the results.
	bt.sweep(loads, out, false)
}

// sweep computes every load's offered and admitted requests at the
// current pass fractions, in load order (a continuation after its
// source), and hands each bucket the demand that reaches it from
// requests the other buckets pass.
func (bt *batch) sweep(loads []Load, out []LoadResult, demand bool) {
	for i := range loads {
		l := &loads[i]
		cnt := l.Count
		if l.After > 0 && l.After <= i {
			cnt *= out[l.After-1].Admitted
		}
		if !(cnt > 0) || !finite(cnt) {
			out[i] = LoadResult{}
			continue
		}
		chs, fls := bt.charges[i], bt.flowsOf[i]
		pass := 1.0
		for _, f := range fls {
			pass *= bt.buckets[f.bucket].pass
		}
		for j := range chs {
			ch := &chs[j]
			ch.avg = 0
			for _, s := range ch.parts {
				ch.avg += s.w * bt.buckets[s.bucket].pass
			}
			pass *= ch.avg
		}
		out[i].Offered, out[i].Admitted, out[i].Throttled = cnt, cnt*pass, cnt*(1-pass)
		if !demand {
			continue
		}
		for k, f := range fls {
			bt.buckets[f.bucket].demand += cnt * f.units * bt.without(chs, fls, -1, k)
		}
		for j := range chs {
			ch := &chs[j]
			others := bt.without(chs, fls, j, -1)
			for _, s := range ch.parts {
				bt.buckets[s.bucket].demand += cnt * ch.units * s.w * others
			}
		}
	}
}

// without is a load's pass fraction leaving out charge j's partitions or
// table-level need k.
func (bt *batch) without(chs []bcharge, fls []bflow, j, k int) float64 {
	p := 1.0
	for n, f := range fls {
		if n != k {
			p *= bt.buckets[f.bucket].pass
		}
	}
	for n := range chs {
		if n != j {
			p *= chs[n].avg
		}
	}
	return p
}

// commit consumes what was admitted, records the figures, the heat and
// the throttled keys, and counts the reasons.
func (bt *batch) commit(c *config, loads []Load, out []LoadResult) {
	for i := range loads {
		r := &out[i]
		if r.Offered == 0 {
			continue
		}
		chs, fls := bt.charges[i], bt.flowsOf[i]
		for k, f := range fls {
			b := &bt.buckets[f.bucket]
			b.used += r.Offered * f.units * bt.without(chs, fls, -1, k) * b.pass
		}
		for j := range chs {
			ch := &chs[j]
			fp := bt.buckets[ch.flow].pass
			others := bt.without(chs, fls, j, -1)
			for _, s := range ch.parts {
				b := &bt.buckets[s.bucket]
				units := r.Offered * ch.units * s.w
				b.used += units * others * b.pass
				b.thr += units * (1 - others*b.pass)
				b.heat += units * fp
			}
		}
		// Reasons: a table-level bucket that refuses names its limit; a
		// partition that refuses while its table-level bucket passes
		// names the key range. One reason per resource and direction.
		for k, f := range fls {
			b := &bt.buckets[f.bucket]
			flowRefuse := 1 - b.pass
			partsPass := 1.0
			for j := range chs {
				if chs[j].flowN == k {
					partsPass *= chs[j].avg
				}
			}
			index := b.res.index != ""
			bind := b.res.flow[b.dir].binding
			if bind == keyRange {
				r.Reasons[reasonIndex(index, b.dir, keyRange)] += r.Offered * (1 - b.pass*partsPass)
				continue
			}
			r.Reasons[reasonIndex(index, b.dir, bind)] += r.Offered * flowRefuse
			r.Reasons[reasonIndex(index, b.dir, keyRange)] += r.Offered * b.pass * (1 - partsPass)
		}
	}
	// The heat of each partition this second, both directions: a
	// partition that stays cool has its sketch forgotten at its next
	// roll, so its points need not be noted one by one (their heat is
	// noted at the middle of its range with the spread rest).
	for i := range bt.buckets {
		if b := &bt.buckets[i]; b.part != nil {
			b.part.batchHeat = [2]float64{}
		}
	}
	for i := range bt.buckets {
		if b := &bt.buckets[i]; b.part != nil {
			b.part.batchHeat[b.dir] = b.heat
		}
	}
	for i := range loads {
		r := &out[i]
		if r.Offered == 0 {
			continue
		}
		chs, fls := bt.charges[i], bt.flowsOf[i]
		for j := range chs {
			ch := &chs[j]
			if len(ch.pts) == 0 {
				continue
			}
			fp := bt.buckets[ch.flow].pass
			others := bt.without(chs, fls, j, -1)
			caps := ch.res.partCap
			// Nothing to note when every partition it lands on stays
			// cool and passes everything.
			busy := false
			for _, sh := range ch.parts {
				b := &bt.buckets[sh.bucket]
				h := b.part.batchHeat
				if h[read]/caps[read]+h[write]/caps[write] >= c.theta || others*b.pass < 1-1e-9 {
					busy = true
					break
				}
			}
			if !busy {
				continue
			}
			// Throttled keys and heat, point by point.
			for _, pt := range ch.pts {
				if !(pt.Weight > 0) {
					continue
				}
				pi := ch.res.find(pt.Hash)
				bi := ch.res.batch.parts[ch.dir][pi]
				if bi < 0 {
					continue
				}
				b := &bt.buckets[bi]
				units := r.Offered * ch.units * pt.Weight
				if h := b.part.batchHeat; h[read]/caps[read]+h[write]/caps[write] >= c.theta {
					b.part.note(ch.dir, pt.Hash, units*fp, caps[ch.dir])
					b.noted += units * fp
				}
				if thr := units * (1 - others*b.pass); thr > 1e-9 {
					ch.res.top.note(pt.Hash, pt.Key, thr)
				}
			}
		}
	}
	// Consume, record, and note the spread heat of each partition.
	next := bt.now + 1e9
	for i := range bt.buckets {
		b := &bt.buckets[i]
		b.b.batchSec, b.b.batchPass = bt.sec, b.pass
		b.b.tokens = min(b.b.depth, b.cap-b.used)
		b.b.last = max(b.b.last, next)
		if b.part == nil {
			f := &b.res.flow[b.dir]
			f.units += b.used
			continue
		}
		p := b.part
		s := p.slot(bt.sec)
		s.consumed[b.dir] += b.used
		s.throttled[b.dir] += b.thr
		p.total[b.dir].consumed += b.used
		p.total[b.dir].throttled += b.thr
		f := &b.res.flow[b.dir]
		f.total.consumed += b.used
		f.total.throttled += b.thr
		// Heat for the split rule: the points were noted at their keys,
		// the spread rest is noted at the middle of the range.
		if spread := b.heat - b.noted; spread > 1e-12 {
			p.note(b.dir, midpoint(p.lo, p.hi)-1, spread, b.res.partCap[b.dir])
		}
	}
}
