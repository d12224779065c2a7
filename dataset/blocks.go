package dataset

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/cardapio/cardapio/attr"
)

// The roots of each root entity are cut into blocks of consecutive
// indexes, sized from the model alone (about blockItems items each), so
// that a block is the unit of work of a worker, of output order and of
// --part: the same model and scale always give the same blocks, whatever
// the number of workers or machines.

const blockItems = 16384

// Block is a run of consecutive roots of one root entity.
type Block struct {
	Seq    int   // position among all blocks
	Root   *Node // the root entity
	Lo, Hi int64 // root indexes [Lo, Hi)
	// Items is the expected number of items of the block's trees.
	Items float64
	nth   int // block number within its root
}

// subtree is the expected number of items under one item of n, n
// included (counts that depend on values count as one).
func (p *Population) subtree(n *Node) float64 {
	s := 1.0
	for _, k := range n.Children {
		per := k.Count.Expected()
		if per < 0 {
			per = 1
		}
		s += per * p.subtree(k)
	}
	return s
}

// Blocks returns every block, roots in model order.
func (p *Population) Blocks() []Block {
	var out []Block
	for _, r := range p.Roots {
		size := p.blockSize(r)
		nth := 0
		for lo := int64(0); lo < r.Total; lo += size {
			hi := min(lo+size, r.Total)
			out = append(out, Block{Seq: len(out), Root: r, Lo: lo, Hi: hi, Items: float64(hi-lo) * p.subtree(r), nth: nth})
			nth++
		}
	}
	return out
}

func (p *Population) blockSize(r *Node) int64 {
	return int64(min(max(1, math.Floor(blockItems/p.subtree(r))), 1<<20))
}

// Part returns the blocks of part i of n (0 <= i < n): consecutive blocks
// holding about 1/n of the expected items each, so that the n parts are
// disjoint and together exactly the whole population.
func (p *Population) Part(i, n int) ([]Block, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("part %d/%d: want 0 <= i < n", i, n)
	}
	all := p.Blocks()
	total := 0.0
	for _, b := range all {
		total += b.Items
	}
	var out []Block
	acc := 0.0
	for _, b := range all {
		// A block belongs to the part its midpoint falls in.
		mid := (acc + b.Items/2) / total
		acc += b.Items
		part := int(mid * float64(n))
		if part >= n {
			part = n - 1
		}
		if part == i {
			out = append(out, b)
		}
	}
	return out, nil
}

// ordinals holds, per node whose items carry an ordinal and per block of
// its root, the ordinal of the block's first item of that node.
type ordinals struct {
	once sync.Once
	err  error
	off  map[*Node][]int64 // node -> block nth -> first ordinal
}

// pure reports whether the number of n's items under a root can be
// counted without drawing any attribute: every count on the way down is
// a distribution, with no condition and no reference.
func pure(n *Node) bool {
	for x := n; x.Parent != nil; x = x.Parent {
		if x.Count.Kind == CountAttr || len(x.comp.when) > 0 || (x.comp.ref != nil && !x.comp.ref.root) || x.comp.group != nil {
			return false
		}
	}
	return true
}

// checkOrdinals refuses nodes that need ordinals they cannot have.
func (p *Population) checkOrdinals() error {
	for _, n := range p.Nodes {
		if n.comp.ordinal && !pure(n) {
			return fmt.Errorf("entity %s: its unique values are numbered across the population, but how many items it has depends on item values (a count from an attribute, a when or a ref): give the attribute a random format instead of {n}", n.Name())
		}
	}
	return nil
}

// offsets computes the first ordinal of each block for every node that
// needs ordinals, counting (in parallel) without generating.
func (p *Population) offsets() (map[*Node][]int64, error) {
	p.ord.once.Do(func() {
		p.ord.off = map[*Node][]int64{}
		if err := p.checkOrdinals(); err != nil {
			p.ord.err = err
			return
		}
		var need []*Node
		for _, n := range p.Nodes {
			if n.comp.ordinal && n.Parent != nil {
				need = append(need, n)
			}
		}
		if len(need) == 0 {
			return
		}
		blocks := p.Blocks()
		counts := make([][]int64, len(blocks)) // block -> per need
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for bi := range next {
					b := blocks[bi]
					cs := make([]int64, len(need))
					for i := b.Lo; i < b.Hi; i++ {
						k := p.rootKey(b.Root, i)
						for j, n := range need {
							if under(n, b.Root) {
								cs[j] += p.countUnder(b.Root, k, n)
							}
						}
					}
					counts[bi] = cs
				}
			}()
		}
		for bi := range blocks {
			next <- bi
		}
		close(next)
		wg.Wait()
		for j, n := range need {
			var root *Node
			for x := n; x != nil; x = x.Parent {
				root = x
			}
			var offs []int64
			acc := int64(0)
			for bi, b := range blocks {
				if b.Root != root {
					continue
				}
				offs = append(offs, acc)
				acc += counts[bi][j]
			}
			p.ord.off[n] = offs
		}
	})
	return p.ord.off, p.ord.err
}

// rootKey is the address key of root index i of r.
func (p *Population) rootKey(r *Node, i int64) uint64 {
	return key2(key2(mix(p.Opts.Seed^0x5ca1ab1e), r.id), uint64(i))
}

// countUnder counts the items of target in the tree of the item at key
// of node at, drawing counts only (target's chain must be pure).
func (p *Population) countUnder(at *Node, key uint64, target *Node) int64 {
	if at == target {
		return 1
	}
	var total int64
	for _, kn := range at.Children {
		if !under(target, kn) {
			continue
		}
		r := newRNG(key2(key, kn.id^0xc0c0))
		cnt := min(max(kn.Count.draw(&r), 0), maxChildren)
		for k := int64(0); k < cnt; k++ {
			total += p.countUnder(kn, key2(key2(key, kn.id), uint64(k)), target)
		}
	}
	return total
}

// Generator generates item trees one root at a time, for programs that
// need items on demand (the load generator picking a contract, the
// planner sampling). Not safe for concurrent use: give each goroutine its
// own.
type Generator struct {
	p *Population
	g *gen
}

// NewGenerator returns a generator that hands every item to emit.
func (p *Population) NewGenerator(emit Emit) *Generator {
	return &Generator{p: p, g: newGen(p, emit)}
}

// Tree generates the whole item tree of root index i of root entity r
// (its item, its children, theirs...), calling emit for each item: the
// same items, byte for byte, as any run of the population.
func (gn *Generator) Tree(r *Node, i int64) error {
	if r.Parent != nil {
		return fmt.Errorf("%s is not a root entity", r.Name())
	}
	if i < 0 || i >= r.Total {
		return fmt.Errorf("%s has %d roots, no index %d", r.Name(), r.Total, i)
	}
	off, err := gn.p.offsets()
	if err != nil {
		return err
	}
	size := gn.p.blockSize(r)
	nth := i / size
	gn.g.startBlock(off, r, int(nth))
	// Ordinals of the earlier roots of the block, for the numbered nodes
	// under r alone (off holds every numbered node): a tree of a model of
	// thousands of entities, most unnumbered, walks none of them.
	var numbered []*Node
	for n := range off {
		if under(n, r) {
			numbered = append(numbered, n)
		}
	}
	for j := nth * size; j < i && len(numbered) > 0; j++ {
		k := gn.p.rootKey(r, j)
		for _, n := range numbered {
			gn.g.ordNext[n.ix] += gn.p.countUnder(r, k, n)
		}
	}
	gn.g.root(r, i)
	return nil
}

// startBlock sets the next ordinal of every numbered node to the block's
// first.
func (g *gen) startBlock(off map[*Node][]int64, r *Node, nth int) {
	for n, offs := range off {
		if under(n, r) && nth < len(offs) {
			g.ordNext[n.ix] = offs[nth]
		}
	}
}

// block generates every tree of a block, in index order.
func (g *gen) block(off map[*Node][]int64, b Block) {
	g.startBlock(off, b.Root, b.nth)
	for i := b.Lo; i < b.Hi; i++ {
		g.root(b.Root, i)
		if g.yield && i&63 == 63 {
			// A load's senders wait for a processor to read each answer
			// and send the next request: a generator that keeps both busy
			// for its 10 ms time slice leaves them waiting that long.
			runtime.Gosched()
		}
	}
}

// root generates root index i of r, then releases its frames.
func (g *gen) root(r *Node, i int64) {
	f := g.newFrame(r, nil, g.pop.rootKey(r, i), i, r.Total)
	f.ord = i // a root's ordinal is its index
	if len(r.EachValues) > 0 {
		// Items per value: index and siblings count within the value
		// (v1, v2, v3 of every tenant); the ordinal stays global.
		per := max(r.Count.N, 1)
		f.index, f.siblings = i%per, per
	}
	g.run(f)
	g.reset()
}

var errNoItems = errors.New("the model declares no population: give its entities population.total (roots) or population.per")

// Items is a convenience for tests and small programs: every item of the
// population, in block order, copied out of the generator.
func (p *Population) Items() ([]Item, error) {
	if len(p.Roots) == 0 {
		return nil, errNoItems
	}
	var out []Item
	gn := p.NewGenerator(func(n *Node, it attr.Item) {
		out = append(out, Item{Entity: n.Name(), Item: cloneItem(it)})
	})
	off, err := p.offsets()
	if err != nil {
		return nil, err
	}
	for _, b := range p.Blocks() {
		gn.g.block(off, b)
	}
	return out, nil
}

// Item is a generated item with the name of its entity.
type Item struct {
	Entity string
	Item   attr.Item
}

// cloneItem copies an item out of the arena: its strings into one new
// buffer (one allocation for all of them), its fields into a new slice.
func cloneItem(it attr.Item) attr.Item {
	n := 0
	for i := range it {
		n += strBytes(&it[i].Value)
	}
	c := cloner{buf: make([]byte, 0, n)}
	return c.item(it)
}

func strBytes(v *attr.Value) int {
	n := len(v.Str)
	for i := range v.List {
		n += strBytes(&v.List[i])
	}
	for i := range v.Map {
		n += strBytes(&v.Map[i].Value)
	}
	for _, m := range v.Set {
		n += len(m)
	}
	return n
}

type cloner struct{ buf []byte }

func (c *cloner) str(s string) string {
	if s == "" {
		return ""
	}
	start := len(c.buf)
	c.buf = append(c.buf, s...)
	return unsafe.String(&c.buf[start], len(s))
}

func (c *cloner) item(it attr.Item) attr.Item {
	out := make(attr.Item, len(it))
	for i, f := range it {
		out[i] = attr.Field{Name: f.Name, Value: c.value(f.Value)}
	}
	return out
}

func (c *cloner) value(v attr.Value) attr.Value {
	v.Str = c.str(v.Str)
	if v.List != nil {
		l := make([]attr.Value, len(v.List))
		for i, e := range v.List {
			l[i] = c.value(e)
		}
		v.List = l
	}
	if v.Map != nil {
		v.Map = c.item(v.Map)
	}
	if v.Set != nil {
		s := make([]string, len(v.Set))
		for i, m := range v.Set {
			s[i] = c.str(m)
		}
		v.Set = s
	}
	return v
}
