package dataset

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// Options choose the population drawn from a model.
type Options struct {
	// Scale multiplies every population that scales (root totals); 1 is
	// the model's declared scale. Counts per parent item do not change,
	// so everything that hangs off a root scales with it.
	Scale float64
	// Seed selects the population; the same seed gives the same items.
	Seed uint64
	// AsOf is the civil day the population is drawn as of; the zero value
	// takes the model's dataset.asOf.
	AsOf time.Time
}

// Population is the population model of a catalog at a scale: which
// entities have items, how many, hanging off which parent, and how each
// attribute is drawn. It answers counts without generating an item
// (Expected, Roots), and generates any root's item tree deterministically
// from (seed, root entity, index) alone (Tree), so that workers, parts and
// other programs (the load generator, the planner) agree on every item.
type Population struct {
	Model *catalog.Model
	Opts  Options
	AsOf  time.Time // the civil day, 00:00 in the model's zone
	Loc   *time.Location
	cal   calendar // the zone's period around AsOf, for the generator's dates
	// Nodes are the generated entities, every parent before its children.
	Nodes []*Node
	// Roots are the nodes without a parent.
	Roots []*Node
	// Skipped are the model's entities that get no items, with why.
	Skipped []Skip
	ord     ordinals
	refs    map[string]*refCands // implicitRef's candidates by attribute
}

// Skip is an entity the population leaves out.
type Skip struct {
	Entity string
	Why    string
}

// Node is one entity of the population tree.
type Node struct {
	Entity *catalog.Entity
	// keys holds the placeholders of the entity's key templates, read
	// once: the references between entities compare them pair by pair.
	keys     map[string]bool
	Rules    *catalog.EntityRules // nil when the model gives none
	Parent   *Node
	Children []*Node
	// Total is the number of items of a root at the chosen scale (for an
	// each root, per value times the values).
	Total int64
	// Count is the number of items under each parent item.
	Count Count
	// EachValues are the parent values of an each root.
	EachValues []string
	id         uint64
	ix         int // index in Population.Nodes
	comp       *compiled
}

// Name is the entity's name.
func (n *Node) Name() string { return n.Entity.Name }

// CountKind is the shape of a per-parent count.
type CountKind uint8

// Count kinds.
const (
	CountFixed     CountKind = iota // N, or with a fractional Mean floor or ceil so that the mean holds
	CountPoisson                    // Poisson of mean Mean
	CountBernoulli                  // 1 with probability P, else 0
	CountUniform                    // uniform Min..Max
	CountAttr                       // the parent's value of Attr
	CountTable                      // a table of counts and their shares
)

// countShare is a row of a table of counts: the share of parents with
// that many items.
type countShare struct {
	N     int64
	Share float64
}

// zipfTable is the table of counts 1..max weighing k^-s.
func zipfTable(maxN int64, s float64) []countShare {
	maxN = max(1, min(maxN, maxChildren))
	var t []countShare
	sum := 0.0
	for k := int64(1); k <= maxN; k++ {
		w := math.Pow(float64(k), -s)
		t = append(t, countShare{k, w})
		sum += w
	}
	for i := range t {
		t[i].Share /= sum
	}
	return t
}

// Count is how many items an entity has under each parent item.
type Count struct {
	Kind     CountKind
	N        int64
	Mean     float64
	P        float64
	Min, Max int64
	Attr     string
	Table    []countShare
}

// Expected is the mean of the count (for CountAttr, unknown: -1).
func (c Count) Expected() float64 {
	switch c.Kind {
	case CountFixed:
		if c.Mean > 0 {
			return c.Mean
		}
		return float64(c.N)
	case CountPoisson:
		return c.Mean
	case CountBernoulli:
		return c.P
	case CountUniform:
		return float64(c.Min+c.Max) / 2
	case CountTable:
		m := 0.0
		for _, row := range c.Table {
			m += float64(row.N) * row.Share
		}
		return m
	}
	return -1
}

// String describes the count.
func (c Count) String() string {
	switch c.Kind {
	case CountFixed:
		if c.Mean > 0 {
			return fmt.Sprintf("%g", c.Mean)
		}
		return fmt.Sprintf("%d", c.N)
	case CountPoisson:
		return fmt.Sprintf("Poisson(%g)", c.Mean)
	case CountBernoulli:
		return fmt.Sprintf("1 with probability %g", c.P)
	case CountUniform:
		return fmt.Sprintf("%d to %d", c.Min, c.Max)
	case CountTable:
		return fmt.Sprintf("a table of %d counts, mean %.3g", len(c.Table), c.Expected())
	}
	return "the parent's " + c.Attr
}

func (c Count) draw(r *rng) int64 {
	switch c.Kind {
	case CountFixed:
		if c.Mean > 0 {
			n := math.Floor(c.Mean)
			if r.Float() < c.Mean-n {
				n++
			}
			return int64(n)
		}
		return c.N
	case CountPoisson:
		return r.Poisson(c.Mean)
	case CountBernoulli:
		if r.Float() < c.P {
			return 1
		}
		return 0
	case CountUniform:
		return r.Range(c.Min, c.Max)
	case CountTable:
		u, acc := r.Float(), 0.0
		for _, row := range c.Table {
			acc += row.Share
			if u < acc {
				return row.N
			}
		}
		if len(c.Table) > 0 {
			return c.Table[len(c.Table)-1].N
		}
	}
	return 0
}

// DefaultAsOf is the as-of date of a model that declares none (no
// dataset.asOf) when none is asked for: a fixed day, not today's, so that
// a seed gives the same bytes on any day.
var DefaultAsOf = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// New builds the population model of m. It fails with a plain error
// when a rule cannot be compiled (the catalog has checked the model; what
// remains are combinations only the generator can judge).
func New(m *catalog.Model, o Options) (*Population, error) {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Scale < 0 || math.IsNaN(o.Scale) || math.IsInf(o.Scale, 0) {
		return nil, fmt.Errorf("scale %g: want a positive number", o.Scale)
	}
	p := &Population{Model: m, Opts: o}
	p.Loc = time.UTC
	if m.Timezone != "" {
		if loc, err := time.LoadLocation(m.Timezone); err == nil {
			p.Loc = loc
		}
	}
	asOf := o.AsOf
	if asOf.IsZero() && m.Dataset != nil && m.Dataset.AsOf != nil {
		asOf = *m.Dataset.AsOf
	}
	if asOf.IsZero() {
		asOf = DefaultAsOf
	}
	p.AsOf = time.Date(asOf.Year(), asOf.Month(), asOf.Day(), 0, 0, 0, 0, p.Loc)
	p.Opts.AsOf = p.AsOf
	p.cal = newCalendar(p.Loc, p.AsOf)
	if err := p.buildTree(); err != nil {
		return nil, err
	}
	for _, n := range p.Nodes {
		n.keys = map[string]bool{}
		for _, k := range n.Entity.Key {
			for _, ph := range k.Template.Placeholders() {
				n.keys[ph] = true
			}
		}
	}
	for _, n := range p.Nodes {
		c, err := p.compile(n)
		if err != nil {
			return nil, fmt.Errorf("entity %s: %w", n.Name(), err)
		}
		n.comp = c
	}
	for _, n := range p.Nodes {
		if err := p.link(n); err != nil {
			return nil, fmt.Errorf("entity %s: %w", n.Name(), err)
		}
	}
	for _, n := range p.Nodes {
		if err := p.checkRootRef(n); err != nil {
			return nil, fmt.Errorf("entity %s: %w", n.Name(), err)
		}
	}
	for _, n := range p.Nodes {
		if err := p.orderKids(n); err != nil {
			return nil, err
		}
	}
	// A run lists its blocks (one per about 16,000 items) before it
	// writes the first: a population past MaxItems is refused here, where
	// it would hold gigabytes of blocks before anything is written.
	var items float64
	for _, r := range p.Roots {
		items += float64(r.Total) * p.subtree(r)
	}
	if items > MaxItems || math.IsNaN(items) {
		return nil, fmt.Errorf("scale %g gives about %.3g items, more than the %.0g one population may hold (split the model, or lower the scale)", o.Scale, items, float64(MaxItems))
	}
	return p, nil
}

// MaxItems caps the expected items of a population: 10 billion, tens of
// times the largest population a model of this repository declares.
const MaxItems = 1e10

// checkRootRef refuses what an item cannot read of another tree's root
// item: what the root computes from its children (an aggregate, or a
// rule reading one), since the root's tree is not generated to read it.
func (p *Population) checkRootRef(n *Node) error {
	rp := n.comp.ref
	if rp == nil || !rp.root {
		return nil
	}
	t := rp.target
	for _, s := range n.comp.slots {
		for _, d := range s.deps {
			if d.up < 0 && d.builtin == 0 && t.comp.slots[d.slot].late {
				return fmt.Errorf("%s reads %s.%s, which %s computes from its children: an item of another tree is read without its children", s.name, t.Name(), d.text, t.Name())
			}
		}
	}
	if tr := t.comp.ref; tr != nil && tr.root {
		return fmt.Errorf("ref: %s refers to %s in turn: refer to %s directly", t.Name(), tr.target.Name(), tr.target.Name())
	}
	return nil
}

func (p *Population) rules(e *catalog.Entity) *catalog.EntityRules {
	if p.Model.Dataset == nil {
		return nil
	}
	return p.Model.Dataset.Entities[e.Name]
}

// buildTree places every entity with a population under its parent.
func (p *Population) buildTree() error {
	m := p.Model
	byName := map[string]*Node{}
	for _, e := range m.Entities {
		if e.Table == nil {
			p.Skipped = append(p.Skipped, Skip{e.Name, "no table"})
			continue
		}
		er := p.rules(e)
		if e.Population == nil && (er == nil || er.Each == "") {
			p.Skipped = append(p.Skipped, Skip{e.Name, "no population declared"})
			continue
		}
		byName[e.Name] = &Node{Entity: e, Rules: er, id: hashString("entity:" + e.Name)}
	}
	// Parents first: resolve each node's parent, dropping nodes whose
	// parent is itself left out.
	var resolve func(n *Node, seen map[*Node]bool) error
	resolve = func(n *Node, seen map[*Node]bool) error {
		if seen[n] {
			return fmt.Errorf("entity %s: its population.per chain loops", n.Name())
		}
		seen[n] = true
		pop := n.Entity.Population
		if pop == nil || pop.Per == "" {
			return nil
		}
		par, ok := byName[pop.Per]
		if !ok {
			return fmt.Errorf("entity %s hangs off %s, which has no items", n.Name(), pop.Per)
		}
		n.Parent = par
		return resolve(par, seen)
	}
	var names []string
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		n := byName[k]
		if err := resolve(n, map[*Node]bool{}); err != nil {
			delete(byName, k)
			p.Skipped = append(p.Skipped, Skip{k, err.Error()})
		}
	}
	// Model order (entities are sorted by name), parents before children.
	var order func(n *Node)
	placed := map[*Node]bool{}
	order = func(n *Node) {
		if placed[n] {
			return
		}
		if n.Parent != nil {
			if _, ok := byName[n.Parent.Name()]; !ok {
				return
			}
			order(n.Parent)
		}
		placed[n] = true
		n.ix = len(p.Nodes)
		p.Nodes = append(p.Nodes, n)
		if n.Parent != nil {
			n.Parent.Children = append(n.Parent.Children, n)
		} else {
			p.Roots = append(p.Roots, n)
		}
	}
	for _, k := range names {
		if n, ok := byName[k]; ok {
			order(n)
		}
	}
	for _, n := range p.Nodes {
		if err := p.counts(n); err != nil {
			return fmt.Errorf("entity %s: %w", n.Name(), err)
		}
	}
	return nil
}

// counts sets a node's Total (roots) or Count (children).
func (p *Population) counts(n *Node) error {
	pop := n.Entity.Population
	if n.Rules != nil && n.Rules.Each != "" {
		a := p.Model.Attribute(n.Rules.Each)
		n.EachValues = domainValues(a)
		per := int64(1)
		if pop != nil && pop.Total != nil {
			// A total over the values: spread evenly, at least one each.
			per = max(1, int64(math.Round(float64(*pop.Total)/float64(len(n.EachValues)))))
		}
		if pop != nil && pop.Mean != nil {
			per = max(1, int64(math.Round(*pop.Mean)))
		}
		n.Count = Count{Kind: CountFixed, N: per}
		n.Total = per * int64(len(n.EachValues))
		return nil
	}
	if n.Parent == nil {
		if pop.Total == nil {
			return errors.New("a root entity needs population.total")
		}
		t := float64(*pop.Total) * p.Opts.Scale
		if t > MaxItems {
			return fmt.Errorf("population.total %d at scale %g is %.3g items, more than the %.0g one population may hold", *pop.Total, p.Opts.Scale, t, float64(MaxItems))
		}
		n.Total = int64(math.Round(t))
		if n.Total == 0 && *pop.Total > 0 {
			n.Total = 1
		}
		return nil
	}
	if n.Rules != nil && n.Rules.Count != "" {
		n.Count = Count{Kind: CountAttr, Attr: n.Rules.Count}
		return nil
	}
	if pc := pop.PerParent; pc != nil {
		// The catalog's count per parent: fixed (the mean, rounded down
		// or up so that it holds), uniform, zipf or a table of shares.
		switch pc.Kind {
		case catalog.CountUniform:
			n.Count = Count{Kind: CountUniform, Min: pc.Min, Max: pc.Max}
			return nil
		case catalog.CountZipf:
			n.Count = Count{Kind: CountTable, Table: zipfTable(pc.Max, pc.S)}
			return nil
		case catalog.CountShares:
			var t []countShare
			for _, sh := range pc.Shares {
				t = append(t, countShare{sh.Count, sh.Share})
			}
			n.Count = Count{Kind: CountTable, Table: t}
			return nil
		case catalog.CountFixed:
			if pop.Share != nil && pop.Mean == nil {
				n.Count = Count{Kind: CountBernoulli, P: *pop.Share}
				return nil
			}
			n.Count = Count{Kind: CountFixed, Mean: pc.Mean}
			return nil
		}
	}
	switch {
	case pop.Share != nil:
		n.Count = Count{Kind: CountBernoulli, P: *pop.Share}
	case pop.Mean != nil:
		// A mean alone: every parent has about the mean, rounded down or
		// up so that the mean holds (10 instalments each; 1.33 contracts
		// a debtor: one or two).
		n.Count = Count{Kind: CountFixed, Mean: *pop.Mean}
	case pop.Total != nil:
		// A total under a parent: the mean per parent item at the
		// declared scale (both scale alike).
		base := p.declaredTotal(n.Parent)
		if base <= 0 {
			return fmt.Errorf("population.total %d under %s, whose own total is unknown", *pop.Total, n.Parent.Name())
		}
		n.Count = Count{Kind: CountFixed, Mean: float64(*pop.Total) / base}
	default:
		return errors.New("population.per needs a mean, a share or a total")
	}
	return nil
}

// declaredTotal is the expected number of items of n at the declared
// scale (1), or -1 when it depends on item values.
func (p *Population) declaredTotal(n *Node) float64 {
	if n.Parent == nil {
		if n.Entity.Population != nil && n.Entity.Population.Total != nil {
			return float64(*n.Entity.Population.Total)
		}
		return float64(n.Total)
	}
	per := n.Count.Expected()
	base := p.declaredTotal(n.Parent)
	if per < 0 || base < 0 {
		return -1
	}
	return per * base
}

// Expected is the expected number of items of n at the chosen scale,
// computed from the counts alone; ok is false when a count depends on
// item values (a count from a parent attribute, a condition on the
// parent), which only generating (or sampling) tells.
func (p *Population) Expected(n *Node) (float64, bool) {
	if n.Parent == nil {
		return float64(n.Total), true
	}
	per := n.Count.Expected()
	if per < 0 || (n.Rules != nil && (len(n.Rules.When) > 0 || n.Rules.Group != nil)) {
		return 0, false
	}
	base, ok := p.Expected(n.Parent)
	if pop := n.Entity.Population; pop != nil && len(pop.Where) > 0 {
		// Only the parents that match: the catalog's share of them.
		if pop.ParentShare <= 0 {
			return 0, false
		}
		base *= pop.ParentShare
	}
	return per * base, ok
}

// Node returns the node of the named entity, or nil.
func (p *Population) Node(entity string) *Node {
	for _, n := range p.Nodes {
		if n.Name() == entity {
			return n
		}
	}
	return nil
}
