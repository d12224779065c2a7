package loadgen

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
)

// The population side of a run: the synthetic dataset written into the
// target's tables (as an import writes them: outside the throughput
// limits, which the run is about), and, while it is made, the subjects of
// every load with the context of each: the items of the same tree its
// parameters and conditions read.

// Context is what an arrival is about: the subject and the items around
// it, by entity, each with its key-only attributes read back from its
// keys.
type Context struct {
	Items []CtxItem
	// block and row are the tree the subject was found in (the block's
	// index in the part, the root's row), when tree says it was.
	block int
	row   int64
	tree  bool
}

// CtxItem is one item of a context.
type CtxItem struct {
	Entity *catalog.Entity
	Item   attr.Item // the stored item plus its key-only attributes
	Key    attr.Item // its table key, to read it again
}

// Get returns the context's item of an entity.
func (c *Context) Get(e *catalog.Entity) (attr.Item, bool) {
	if c == nil {
		return nil, false
	}
	for _, it := range c.Items {
		if it.Entity == e {
			return it.Item, true
		}
	}
	return nil, false
}

// wanted is what the collector looks for on behalf of one load: items of
// the subject entity meeting where, and around each the items of the
// entities its context names.
type wanted struct {
	load     int
	subjects *catalog.Subjects
	entities []*catalog.Entity // context entities other than the subject
}

// counts is, per attribute, how many items of one entity carry each value.
type counts map[string]map[string]int64

// populationResult is what loading a population found.
type populationResult struct {
	pop      *dataset.Population
	items    int64
	byTable  map[string]int64
	subjects [][]*Context // by load, in population order
	counts   map[string]counts
	missing  []int64 // by load: subjects whose context lacked an item
	skipped  map[string]int64
	// trees counts the trees written (or made, by a pass that writes
	// nothing); kept those of them of a cut's root.
	trees int64
	kept  int64
	// index numbers the loads' subjects (by load), hold lists the trees
	// of the cut's root holding one (by block, their rows ascending),
	// when the pass was asked to.
	index []subjectIndex
	hold  [][]int64
	// units are the write units the items written bill (table and
	// indexes, on demand); verified the sampled items read back against
	// existing tables.
	units    float64
	verified int
}

// unread lists the entities of the population nothing of a run reads:
// no load's subjects or their context, no step of the operations it runs
// except a put (a put of a new item does not read what is there), no
// invariant, no count. Their items are generated (the trees stay as they
// are) but not written, which at the reference's scale halves a load.
func unread(m *catalog.Model, ops []*catalog.Operation, want []wanted, count []countSpec, invs []*catalog.Invariant) map[*catalog.Entity]bool {
	need := map[*catalog.Entity]bool{}
	for _, w := range want {
		need[w.subjects.Entity] = true
		for _, e := range w.entities {
			need[e] = true
		}
	}
	for _, cs := range count {
		need[cs.entity] = true
	}
	for _, v := range invs {
		for _, e := range entitiesOf(v) {
			need[e] = true
		}
	}
	all := false
	var walk func(ss []*catalog.Step)
	walk = func(ss []*catalog.Step) {
		for _, st := range ss {
			walk(st.Items)
			r := st.Request
			if r == nil || st.Kind == catalog.Put {
				continue
			}
			if (st.Kind == catalog.Query || st.Kind == catalog.Scan) && len(r.Matches) == 0 {
				all = true
			}
			if r.Entity != nil {
				need[r.Entity] = true
			}
			for _, mt := range r.Matches {
				need[mt.Entity] = true
			}
		}
	}
	for _, op := range ops {
		walk(op.Steps)
	}
	out := map[*catalog.Entity]bool{}
	if all {
		return out
	}
	for _, e := range m.Entities {
		if !need[e] {
			out[e] = true
		}
	}
	return out
}

// countSpec says which entity's items count the values of an attribute.
type countSpec struct {
	entity *catalog.Entity
	attr   string
}

// loadPopulation makes the population's part, writes it to the tables
// (unless write is false: the tables already hold it) and collects what
// the loads need.
func loadPopulation(ctx context.Context, pop *dataset.Population, part, parts int, tg *endpoint.Target, tables *endpoint.Tables,
	want []wanted, count []countSpec, skip map[*catalog.Entity]bool, write bool, progress func(done, total int64)) (*populationResult, error) {
	return populate(ctx, pop, part, parts, tg, tables, want, count, skip, passOptions{write: write}, progress)
}

// passOptions say what one pass over the population does: write its
// items, and of the trees of a cut's root only those the cut keeps (cut
// nil: all).
type passOptions struct {
	write bool
	cut   *cutSpec
	index *indexSpec
	// rate caps the writes (nil: no cap).
	rate *endpoint.Bucket
	// blocks, when set, are the blocks the pass goes over instead of
	// the part's (the subjects are numbered over the whole population).
	blocks []dataset.Block
}

// populate makes one pass over the population's part. What it keeps
// does not grow with the trees: each worker holds one tree's items and
// its tables' batches, sent 25 items at a time as they fill (a tree's
// worth at most waits, whatever the population); each block's output
// (its counts, and the index's runs of subjects) is merged into the
// result as soon as the blocks before it are, and dropped. (Against
// cardapio serve, 16 workers, the live heap of the passes stayed within
// 20 to 70 MB from 1/1000 to 1/100 of the reference model: the client's
// RSS then is mostly the collector's slack, at cardapio load's GOGC.)
func populate(ctx context.Context, pop *dataset.Population, part, parts int, tg *endpoint.Target, tables *endpoint.Tables,
	want []wanted, count []countSpec, skip map[*catalog.Entity]bool, po passOptions, progress func(done, total int64)) (*populationResult, error) {
	write := po.write
	blocks := po.blocks
	if blocks == nil {
		var err error
		if blocks, err = partBlocks(pop, part, parts); err != nil {
			return nil, err
		}
	}
	res := &populationResult{pop: pop, byTable: map[string]int64{}, subjects: make([][]*Context, 0), counts: map[string]counts{}, skipped: map[string]int64{}}
	maxLoad := -1
	for _, w := range want {
		maxLoad = max(maxLoad, w.load)
	}
	res.subjects = make([][]*Context, maxLoad+1)
	res.missing = make([]int64, maxLoad+1)
	if po.index != nil {
		res.index = make([]subjectIndex, maxLoad+1)
		res.hold = make([][]int64, len(blocks))
	}
	workers := runtime.GOMAXPROCS(0)
	if tg.Engine == nil {
		// Batches wait on the network: more of them in flight.
		workers *= 8
	}
	// The blocks' outputs merge in block order (the subjects and the
	// index are in population order, the units' sum adds in one order);
	// a block done before those ahead of it waits here, no longer.
	var mu sync.Mutex
	pending := make([]*blockOut, len(blocks))
	head := 0
	finish := func(i int, o *blockOut) {
		mu.Lock()
		defer mu.Unlock()
		pending[i] = o
		for head < len(pending) && pending[head] != nil {
			res.add(head, pending[head])
			pending[head] = nil
			head++
		}
	}
	var next atomic.Int64
	var done atomic.Int64
	total := 0.0
	for _, b := range blocks {
		total += b.Items
	}
	lctx := engine.Unmetered(ctx)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCollector(pop.Model, want, count, maxLoad, skip)
			c.write, c.rate = write, po.rate
			if po.cut != nil {
				c.tagRoot, c.tagVals = po.cut.root, make([]string, len(po.cut.attrs))
				c.tagAttrs = po.cut.attrs
			}
			gn := pop.NewGenerator(c.emit)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(blocks) || ctx.Err() != nil {
					return
				}
				b := blocks[i]
				c.reset()
				// The trees of the cut's root wait, each, for its end to
				// be written or dropped: whether the run reaches it is
				// known once its root item, the last of it, is made.
				cutting := po.cut != nil && b.Root == po.cut.root
				var hold []int64
				trees, kept := int64(0), int64(0)
				for r := b.Lo; r < b.Hi; r++ {
					c.block, c.row = i, r
					c.tree = c.tree[:0]
					c.pending = cutting
					clear(c.treeSkipped)
					for j := range c.tagVals {
						c.tagVals[j] = ""
					}
					if err := gn.Tree(b.Root, r); err != nil {
						errs[w] = err
						return
					}
					c.endTree()
					if po.index != nil {
						if c.indexTree(po.index, i, b.Lo, b.Hi, r) && po.index.hold == b.Root {
							hold = append(hold, r)
						}
					}
					if cutting {
						if !po.cut.keeps(i, r, c.tagVals) {
							continue
						}
						c.commit()
						kept++
					}
					trees++
					if write {
						if err := c.flush(lctx, tg, tables, false); err != nil {
							errs[w] = err
							return
						}
					}
				}
				if write {
					if err := c.flush(lctx, tg, tables, true); err != nil {
						errs[w] = err
						return
					}
				}
				c.tree = clearTree(c.tree)
				items := c.items
				finish(i, &blockOut{subjects: c.subjects, missing: c.missing, counts: c.counts, items: c.items, byTable: c.byTable, skipped: c.skipped, trees: trees, kept: kept, chunks: c.chunks, hold: hold, units: c.units})
				if progress != nil {
					progress(done.Add(items), int64(total))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// clearTree empties a worker's tree, letting its items go, and drops a
// buffer an unusually large tree grew.
func clearTree(t []treeItem) []treeItem {
	if cap(t) > 4096 {
		return nil
	}
	clear(t[:cap(t)])
	return t[:0]
}

// blockOut is what one block of the population yields.
type blockOut struct {
	subjects [][]*Context
	missing  []int64
	counts   map[string]counts
	items    int64
	byTable  map[string]int64
	skipped  map[string]int64
	trees    int64
	kept     int64
	chunks   [][]subjectChunk // by load
	hold     []int64
	units    float64
}

// add merges block i's output into the population's result.
func (res *populationResult) add(i int, o *blockOut) {
	if res.index != nil {
		res.hold[i] = o.hold
		for l, cs := range o.chunks {
			res.index[l].add(cs)
		}
	}
	res.trees += o.trees
	res.kept += o.kept
	res.units += o.units
	for k, v := range o.skipped {
		res.skipped[k] += v
	}
	res.items += o.items
	for k, v := range o.byTable {
		res.byTable[k] += v
	}
	for l, s := range o.subjects {
		res.subjects[l] = append(res.subjects[l], s...)
		res.missing[l] += o.missing[l]
	}
	for e, cs := range o.counts {
		dst := res.counts[e]
		if dst == nil {
			dst = counts{}
			res.counts[e] = dst
		}
		for a, vs := range cs {
			if dst[a] == nil {
				dst[a] = map[string]int64{}
			}
			for v, n := range vs {
				dst[a][v] += n
			}
		}
	}
}

// collector gathers one worker's trees.
type collector struct {
	m       *catalog.Model
	want    []wanted
	count   []countSpec
	tree    []treeItem
	keep    map[*catalog.Entity]bool // entities some context reads
	counted map[*catalog.Entity]bool // entities whose values are counted
	skip    map[*catalog.Entity]bool // entities nothing of the run reads: not written
	skipped map[string]int64
	batches map[string][]attr.Item // by model table
	maxLoad int
	// write says the items go to the tables; otherwise only what the
	// subjects and counts read is kept of a tree.
	write bool
	// pending says the tree's items wait in tree for the end of the
	// tree, to be written (commit) or dropped; treeSkipped counts its
	// items of the entities not written meanwhile.
	pending     bool
	treeSkipped map[string]int64
	// tagRoot, tagAttrs and tagVals read the cut's attributes of its
	// root's items.
	block    int
	row      int64
	tagRoot  *dataset.Node
	tagAttrs []string
	tagVals  []string

	subjects [][]*Context
	missing  []int64
	counts   map[string]counts
	items    int64
	byTable  map[string]int64
	chunks   [][]subjectChunk // by load: the block's runs of subjects (indexTree)
	// units are the write units of the items written, pend those not
	// yet sent by table, rate the cap they are paced to (nil: none).
	units float64
	pend  map[string]float64
	rate  *endpoint.Bucket
	rules capacity.Rules
	ctabs map[*catalog.Table]*capacity.Table
}

type treeItem struct {
	node *dataset.Node
	item attr.Item
}

func newCollector(m *catalog.Model, want []wanted, count []countSpec, maxLoad int, skip map[*catalog.Entity]bool) *collector {
	c := &collector{m: m, want: want, count: count, keep: map[*catalog.Entity]bool{}, counted: map[*catalog.Entity]bool{}, batches: map[string][]attr.Item{}, skip: skip, write: true,
		treeSkipped: map[string]int64{}, pend: map[string]float64{}, rules: capacity.Default(), ctabs: map[*catalog.Table]*capacity.Table{}}
	for _, cs := range count {
		c.counted[cs.entity] = true
	}
	for _, w := range want {
		c.keep[w.subjects.Entity] = true
		for _, e := range w.entities {
			c.keep[e] = true
		}
	}
	c.maxLoad = maxLoad
	return c
}

func (c *collector) reset() {
	c.subjects = make([][]*Context, c.maxLoad+1)
	c.missing = make([]int64, c.maxLoad+1)
	c.counts = map[string]counts{}
	c.items = 0
	c.byTable = map[string]int64{}
	c.skipped = map[string]int64{}
	c.chunks = nil
	c.units = 0
}

// emit receives one generated item; the generator reuses its memory, so
// what is kept is copied.
func (c *collector) emit(n *dataset.Node, it attr.Item) {
	if n == c.tagRoot {
		for j, a := range c.tagAttrs {
			c.tagVals[j], _ = carries(n, it, a)
		}
	}
	if c.skip[n.Entity] {
		if c.pending {
			c.treeSkipped[n.Entity.Name]++
		} else {
			c.skipped[n.Entity.Name]++
		}
		return
	}
	if !c.write {
		// Only the subjects' contexts and the counts read the tree.
		if c.keep[n.Entity] || c.counted[n.Entity] {
			c.tree = append(c.tree, treeItem{n, cloneItem(it)})
		}
		return
	}
	cp := cloneItem(it)
	if !c.pending {
		c.account(n, cp)
	}
	c.tree = append(c.tree, treeItem{n, cp})
}

// account counts an item to be written and adds it to its table's batch.
func (c *collector) account(n *dataset.Node, cp attr.Item) {
	c.items++
	if t := n.Entity.Table; t != nil {
		c.batches[t.Name] = append(c.batches[t.Name], cp)
		c.byTable[t.Name]++
		ct := c.ctabs[t]
		if ct == nil {
			ct = estimate.Table(t)
			c.ctabs[t] = ct
		}
		u := c.rules.Put(ct, cp).WriteUnits
		c.units += u
		c.pend[t.Name] += u
	}
}

// commit writes the pending tree: its items go to the batches in the
// order they were made, as they would have without waiting.
func (c *collector) commit() {
	for _, ti := range c.tree {
		c.account(ti.node, ti.item)
	}
	for e, n := range c.treeSkipped {
		c.skipped[e] += n
	}
}

// endTree finds the subjects of one tree and counts its values.
func (c *collector) endTree() {
	var full map[int]attr.Item
	fullOf := func(i int) attr.Item {
		if full == nil {
			full = map[int]attr.Item{}
		}
		if f, ok := full[i]; ok {
			return f
		}
		f := withKeyAttrs(c.tree[i].node.Entity, c.tree[i].item)
		full[i] = f
		return f
	}
	for _, cs := range c.count {
		for i, ti := range c.tree {
			if ti.node.Entity != cs.entity {
				continue
			}
			v, ok := fullOf(i).Get(cs.attr)
			if !ok {
				continue
			}
			m := c.counts[cs.entity.Name]
			if m == nil {
				m = counts{}
				c.counts[cs.entity.Name] = m
			}
			if m[cs.attr] == nil {
				m[cs.attr] = map[string]int64{}
			}
			m[cs.attr][valueText(v)]++
		}
	}
	for _, w := range c.want {
		for i, ti := range c.tree {
			if ti.node.Entity != w.subjects.Entity {
				continue
			}
			subj := fullOf(i)
			if !catalog.Holds(w.subjects.Where, subj) {
				continue
			}
			ctx := &Context{Items: []CtxItem{{Entity: ti.node.Entity, Item: subj, Key: tableKey(ti.node.Entity, ti.item)}}, block: c.block, row: c.row, tree: true}
			complete := true
			for _, e := range w.entities {
				j := c.related(i, e, subj, fullOf)
				if j < 0 {
					complete = false
					break
				}
				ctx.Items = append(ctx.Items, CtxItem{Entity: e, Item: fullOf(j), Key: tableKey(e, c.tree[j].item)})
			}
			if !complete {
				c.missing[w.load]++
				continue
			}
			c.subjects[w.load] = append(c.subjects[w.load], ctx)
		}
	}
}

// related finds the item of entity e in the tree that belongs with the
// subject at i: the one whose key attributes agree with the subject's
// wherever the subject carries them; among several, the nearest before
// the subject (its ancestor, in the generator's depth-first order).
func (c *collector) related(i int, e *catalog.Entity, subj attr.Item, fullOf func(int) attr.Item) int {
	var shared []string
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if _, ok := subj.Get(ph); ok && !containsStr(shared, ph) {
				shared = append(shared, ph)
			}
		}
	}
	best := -1
	for j, ti := range c.tree {
		if ti.node.Entity != e {
			continue
		}
		f := fullOf(j)
		agree := true
		for _, a := range shared {
			sv, _ := subj.Get(a)
			v, ok := f.Get(a)
			if !ok || !attr.Equal(sv, v) {
				agree = false
				break
			}
		}
		if !agree {
			continue
		}
		if j < i {
			best = j
			continue
		}
		if best < 0 {
			return j
		}
		break
	}
	return best
}

// flush writes the batches that are full (all of them at the end of a
// block) to their tables.
func (c *collector) flush(ctx context.Context, tg *endpoint.Target, tables *endpoint.Tables, all bool) error {
	for t, items := range c.batches {
		for len(items) >= 25 || all && len(items) > 0 {
			n := min(25, len(items))
			if c.rate != nil {
				u := c.pend[t] * float64(n) / float64(len(items))
				c.pend[t] -= u
				if err := c.rate.Take(ctx, u); err != nil {
					return err
				}
			}
			if err := tg.Load(ctx, tables.Name(t), items[:n]); err != nil {
				return err
			}
			items = items[n:]
		}
		if len(items) == 0 {
			delete(c.batches, t)
			continue
		}
		c.batches[t] = append(c.batches[t][:0], items...)
	}
	return nil
}

// withKeyAttrs adds to an item the attributes its entity keeps only in
// its key templates (T#{tenantId}#...), read back from the keys. The
// item is copied once, with all of them (it itself is not changed).
func withKeyAttrs(e *catalog.Entity, it attr.Item) attr.Item {
	var extra []attr.Field
	for _, k := range e.Key {
		kv, ok := it.Get(k.Attribute)
		if !ok || kv.Type != attr.S {
			continue
		}
		vals, ok := k.Template.Match(kv.Str)
		if !ok {
			continue
		}
		for name, text := range vals {
			if _, has := it.Get(name); has || hasField(extra, name) {
				continue
			}
			t := attr.S
			for _, p := range k.Template.Parts {
				if p.Attr == name && p.Type != attr.Invalid {
					t = p.Type
				}
			}
			v := attr.Str(text)
			if t == attr.N {
				if n, err := strconv.ParseInt(text, 10, 64); err == nil {
					v = attr.Num(strconv.FormatInt(n, 10))
				} else {
					v = attr.Num(text)
				}
			}
			extra = append(extra, attr.Field{Name: name, Value: v})
		}
	}
	if len(extra) == 0 {
		return it
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].Name < extra[j].Name })
	out := make(attr.Item, 0, len(it)+len(extra))
	i := 0
	for _, f := range it {
		for i < len(extra) && extra[i].Name < f.Name {
			out = append(out, extra[i])
			i++
		}
		out = append(out, f)
	}
	return append(out, extra[i:]...)
}

func hasField(fs []attr.Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// tableKey is the item's table key attributes.
func tableKey(e *catalog.Entity, it attr.Item) attr.Item {
	var out attr.Item
	if e.Table == nil {
		return nil
	}
	for _, a := range e.Table.KeyAttributes() {
		if v, ok := it.Get(a); ok {
			out = append(out, attr.Field{Name: a, Value: v})
		}
	}
	return attr.Sorted(out)
}

// valueText is a value's text, for counting values and looking them up.
func valueText(v attr.Value) string {
	switch v.Type {
	case attr.S, attr.N, attr.B:
		return v.Str
	case attr.BOOL:
		return strconv.FormatBool(v.Bool)
	}
	return fmt.Sprint(v)
}

// cloneItem copies an item out of the generator's memory.
func cloneItem(it attr.Item) attr.Item {
	out := make(attr.Item, len(it))
	for i, f := range it {
		out[i] = attr.Field{Name: f.Name, Value: cloneValue(f.Value)}
	}
	return out
}

func cloneValue(v attr.Value) attr.Value {
	v.Str = string([]byte(v.Str))
	if v.List != nil {
		l := make([]attr.Value, len(v.List))
		for i, e := range v.List {
			l[i] = cloneValue(e)
		}
		v.List = l
	}
	if v.Map != nil {
		v.Map = cloneItem(v.Map)
	}
	if v.Set != nil {
		s := make([]string, len(v.Set))
		for i, e := range v.Set {
			s[i] = string([]byte(e))
		}
		v.Set = s
	}
	return v
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// largest is the value most items carry (ties: the smallest text).
func largest(vs map[string]int64) (string, int64) {
	keys := make([]string, 0, len(vs))
	for k := range vs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, n := "", int64(-1)
	for _, k := range keys {
		if vs[k] > n {
			best, n = k, vs[k]
		}
	}
	return best, n
}
