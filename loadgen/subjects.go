package loadgen

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// A load's subjects are not held: the population's generator makes any
// tree again, byte for byte, from its root's index, so the runner keeps
// only how many subjects each run of chunkTrees consecutive trees holds
// (a few bytes a run, whatever the items weigh) and finds subject j again
// when its arrival starts, by generating the trees of its run. What the
// client holds then grows with the arrivals in flight, not with the
// population, and a run against tables that already hold the population
// draws the same subjects as one that writes it. A load that draws at
// random keeps besides at most foundCacheSize of the subjects it found
// (a bound, whatever the population).

// chunkTrees is how many trees a run of the index covers: what an
// arrival generates again, at most, to find its subject.
const chunkTrees = 8

// subjectChunk is a run of trees of one block holding n subjects.
type subjectChunk struct {
	block int32 // index into the part's blocks
	rows  int32 // trees in the run
	lo    int64 // the run's first root index
	n     int32 // subjects in the run
	// one says tree lo+k holds exactly the run's subject k (a root's
	// own subjects, each tree one): finding it again generates that
	// tree alone.
	one    bool
	before int64 // subjects in the runs before
}

// subjectIndex numbers a load's subjects in population order (block,
// tree, then the tree's own order).
type subjectIndex struct {
	chunks []subjectChunk
	total  int64
}

// add appends a block's runs.
func (x *subjectIndex) add(cs []subjectChunk) {
	for _, c := range cs {
		c.before = x.total
		x.total += int64(c.n)
		x.chunks = append(x.chunks, c)
	}
}

// find returns the run holding subject j and j's place in it.
func (x *subjectIndex) find(j int64) (subjectChunk, int64, bool) {
	if j < 0 || j >= x.total {
		return subjectChunk{}, 0, false
	}
	i := sort.Search(len(x.chunks), func(i int) bool { return x.chunks[i].before+int64(x.chunks[i].n) > j })
	c := x.chunks[i]
	return c, j - c.before, true
}

// indexSpec asks a pass over the population to number the loads'
// eligible subjects (eligible decides, with the selection's when read at
// the scenario's start) and, for the cut, which trees of a root hold one.
type indexSpec struct {
	eligible func(load int, c *Context) bool
	hold     *dataset.Node
}

// indexTree counts the eligible subjects the tree just ended holds, by
// load, into the block's runs, and forgets them; it reports whether the
// tree holds any.
func (c *collector) indexTree(ix *indexSpec, block int, lo, hi, row int64) bool {
	if c.chunks == nil {
		c.chunks = make([][]subjectChunk, c.maxLoad+1)
	}
	held := false
	for l, ss := range c.subjects {
		n := int32(0)
		for _, s := range ss {
			if ix.eligible(l, s) {
				n++
			}
		}
		c.subjects[l] = ss[:0]
		if n == 0 {
			continue
		}
		held = true
		start := lo + (row-lo)/chunkTrees*chunkTrees
		cs := c.chunks[l]
		if k := len(cs) - 1; k >= 0 && cs[k].lo == start && int(cs[k].block) == block {
			cs[k].one = cs[k].one && n == 1 && row == cs[k].lo+int64(cs[k].n)
			cs[k].n += n
			continue
		}
		c.chunks[l] = append(cs, subjectChunk{block: int32(block), lo: start, rows: int32(min(chunkTrees, hi-start)), n: n, one: n == 1 && row == start})
	}
	return held
}

// resolver finds subjects again: a collector and a generator of its own
// (neither is safe for concurrent use), pooled by load.
type resolver struct {
	c  *collector
	gn *dataset.Generator
}

// subjects is what a run needs to find its loads' subjects again.
type subjects struct {
	pop    *dataset.Population
	blocks []dataset.Block // the pieces of the whole population (pieces)
	pickAt time.Time       // the scenario's instant the selections' when reads
	pools  map[int]*sync.Pool
	// found keeps, by load, the subjects found again most recently, for
	// the loads that draw at random (see foundCache); read-only once
	// the run starts.
	found map[int]*foundCache
}

// foundCacheSize is how many subjects a load that draws at random keeps
// once found: a bound, whatever the population (an order of the orders
// example with its key takes about 5 KB: 10 MB a load at most).
const foundCacheSize = 2048

// foundCache keeps the subjects a load found again, by number, direct
// mapped (subject j in slot j mod the size): a load that draws at
// random draws the same subjects again as soon as its arrivals outnumber
// them, and generating a tree again is most of what an arrival costs the
// client beside its requests. The population gives a subject again byte
// for byte and a context is never changed once made, so a kept one is
// the one generating it again would give. Safe for concurrent use
// without a lock: a slot is replaced whole.
type foundCache struct {
	slots [foundCacheSize]atomic.Pointer[foundSubject]
}

type foundSubject struct {
	j int64
	c *Context
}

func (fc *foundCache) get(j int64) *Context {
	if fc == nil {
		return nil
	}
	if s := fc.slots[j%foundCacheSize].Load(); s != nil && s.j == j {
		return s.c
	}
	return nil
}

func (fc *foundCache) put(j int64, c *Context) {
	if fc != nil {
		fc.slots[j%foundCacheSize].Store(&foundSubject{j: j, c: c})
	}
}

// subjectOf is subject j of load l: kept from an earlier arrival when
// the load keeps what it finds, else generated again.
func (r *runner) subjectOf(l *loadRun, j int64) (*Context, error) {
	fc := r.subs.found[l.idx]
	if c := fc.get(j); c != nil {
		return c, nil
	}
	c, err := r.subject(l, j)
	if err == nil {
		fc.put(j, c)
	}
	return c, err
}

// numbered, when a test sets it, sees the runner once its subjects are
// numbered.
var numbered func(r *runner)

// subject returns subject j of load l, generated again; nil when the
// population does not give it again (it cannot, being deterministic,
// unless the index and the population disagree).
func (r *runner) subject(l *loadRun, j int64) (*Context, error) {
	ch, off, ok := l.index.find(j)
	if !ok {
		return nil, fmt.Errorf("load %s has no subject %d", l.name, j)
	}
	rs := r.subs.pools[l.idx].Get().(*resolver)
	defer r.subs.pools[l.idx].Put(rs)
	b := r.subs.blocks[ch.block]
	lo, hi := ch.lo, ch.lo+int64(ch.rows)
	if ch.one {
		lo, hi, off = ch.lo+off, ch.lo+off+1, 0
	}
	c := rs.c
	c.reset()
	for row := lo; row < hi; row++ {
		c.tree = c.tree[:0]
		c.block, c.row = int(ch.block), row
		if err := rs.gn.Tree(b.Root, row); err != nil {
			return nil, err
		}
		c.endTree()
		for _, s := range c.subjects[l.idx] {
			if !r.eligibleAtPick(l, s) {
				continue
			}
			if off == 0 {
				return s, nil
			}
			off--
		}
		c.subjects[l.idx] = c.subjects[l.idx][:0]
	}
	return nil, fmt.Errorf("load %s: subject %d not found again in trees %d-%d of %s", l.name, j, lo, hi-1, b.Root.Name())
}

// newResolvers makes the pools of the loads with subjects.
func (r *runner) newResolvers(m *catalog.Model, pop *dataset.Population, want []wanted, maxLoad int) {
	r.subs.found = map[int]*foundCache{}
	for _, w := range want {
		w := w
		r.subs.pools[w.load] = &sync.Pool{New: func() any {
			c := newCollector(m, []wanted{w}, nil, maxLoad, nil)
			c.write = false
			return &resolver{c: c, gn: pop.NewGenerator(c.emit)}
		}}
		// A load that takes each subject once finds each once: nothing
		// to keep.
		if w.subjects.Pick == catalog.PickRandom {
			r.subs.found[w.load] = &foundCache{}
		}
	}
}

// eligibleAtPick is eligible as the subjects were numbered: the
// selection's when read at the scenario's start.
func (r *runner) eligibleAtPick(l *loadRun, c *Context) bool {
	return r.eligible(l, c, r.contextItemAt(c, nil, r.subs.pickAt))
}

// perm is a bijection of [0, n) drawn from a seed: the order in which a
// load that takes each subject once takes them, computed for any
// position without a list (a Feistel network on the next power of four,
// walking the cycle until it falls in range).
type perm struct {
	n    int64
	half uint // bits of a half
	keys [4]uint64
}

func newPerm(n int64, seed uint64) perm {
	p := perm{n: n, half: 1}
	for int64(1)<<(2*p.half) < n {
		p.half++
	}
	for i := range p.keys {
		p.keys[i] = mix64(seed ^ uint64(i+1)*0x9e3779b97f4a7c15)
	}
	return p
}

// at returns the position i maps to.
func (p perm) at(i int64) int64 {
	if p.n <= 1 {
		return i
	}
	mask := uint64(1)<<p.half - 1
	x := uint64(i)
	for {
		l, r := x>>p.half, x&mask
		for _, k := range p.keys {
			l, r = r, l^(mix64(r^k)&mask)
		}
		x = l<<p.half | r
		if int64(x) < p.n {
			return int64(x)
		}
	}
}

// partBlocks are the blocks of part i of n of a run: of every root
// entity, the i-th n-th of its trees, so that each part holds a like
// share of every load's subjects (dataset.Population.Part, which cuts
// the blocks by their items, would give a small root's trees, and its
// subjects, to one part). The parts are disjoint and together the whole.
func partBlocks(pop *dataset.Population, i, n int) ([]dataset.Block, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("part %d/%d: want 0 <= i < n", i, n)
	}
	all, owner := pieces(pop, n)
	var out []dataset.Block
	for j, b := range all {
		if owner[j] == i {
			out = append(out, b)
		}
	}
	return out, nil
}

// pieces are the population's blocks cut where the n parts of a run
// meet, in population order, with the part each belongs to. Every part
// numbers the subjects over them all, so that subject j, and so arrival
// k, is the whole run's whatever n is; the part that holds a subject's
// tree sends its arrivals.
func pieces(pop *dataset.Population, n int) ([]dataset.Block, []int) {
	var out []dataset.Block
	var owner []int
	n64 := int64(n)
	for _, b := range pop.Blocks() {
		total := b.Root.Total
		// Only the parts the block meets (n may be large): from the one
		// holding its first tree.
		i := b.Lo * n64 / max(total, 1)
		for i > 0 && total*i/n64 > b.Lo {
			i--
		}
		for ; i < n64 && total*i/n64 < b.Hi; i++ {
			lo, hi := max(b.Lo, total*i/n64), min(b.Hi, total*(i+1)/n64)
			if lo >= hi {
				continue
			}
			c := b
			c.Lo, c.Hi = lo, hi
			c.Items = b.Items * float64(hi-lo) / float64(b.Hi-b.Lo)
			out = append(out, c)
			owner = append(owner, int(i))
		}
	}
	return out, owner
}
