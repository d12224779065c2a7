package dataset

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// compiled is a node's plan: the slots of an item (every attribute it
// carries, key-only ones included, the never-stored inputs of computed
// attributes, and variables), each with the function that draws it, and
// the fields an item is written with.
type compiled struct {
	node     *Node
	slots    []*slot
	byName   map[string]int
	late     []int      // slots computed after the children (aggregates)
	out      []outField // the item's fields in name order
	enc      *itemEncoder
	tableKey uint64     // hashString of the table's name
	keys     []keyField // table key attributes, rendered from templates
	states   []*catalog.State
	cumState []float64
	stateSet [][]int8 // per state: per slot, 0 untouched, 1 set, 2 absent
	stateVal [][]attr.Value
	// child plans, in generation order (referenced entities first)
	kids   []*Node
	retain bool // frames kept until the root completes (refs, aggregates)
	when   []cterm
	count  name // CountAttr: the parent's value
	ref    *refPlan
	group  *groupPlan
	// after are the sibling entities whose items must be made before
	// this entity's: its rules read the parent's folds of them.
	after []*Node
	// caps are the groups whose max this node's items must respect.
	caps    []*groupPlan
	ordinal bool // items know their ordinal among all the entity's items
	samples map[string][]attr.Value
	// stateWhen holds the compiled condition of each state chosen by when.
	stateWhen [][]cterm
	// rewires run once every slot has its own rule (a band drawn
	// backwards replaces its source date's rule).
	rewires []func()
}

func (c *compiled) stateTerms(i int, _ *catalog.State) []cterm { return c.stateWhen[i] }

// aggregated returns the child entities a late slot folds, directly or
// through the slots it reads.
func (c *compiled) aggregated(i int, seen map[int]bool) []*Node {
	if seen[i] {
		return nil
	}
	seen[i] = true
	s := c.slots[i]
	var out []*Node
	out = append(out, s.aggOf...)
	for _, d := range s.deps {
		if d.up == 0 && d.builtin == 0 && c.slots[d.slot].late {
			out = append(out, c.aggregated(d.slot, seen)...)
		}
	}
	return out
}

type slot struct {
	name     string
	a        *catalog.Attribute // nil for a variable
	typ      attr.Type
	presence catalog.Presence
	stored   bool // written as an attribute of the item
	isVar    bool
	id       uint64
	idKey    uint64 // mix(id + golden): key2's inner half, once
	gen      genFn
	deps     []name
	late     bool
	aggOf    []*Node // the child entities its aggregates fold
	rule     string  // what the rule is, for errors and docs
	// coin groups optional attributes that enter an index together: one
	// draw decides the group's presence.
	coin uint64
	unit string
	inst instFormat
	// dist is how values spread over this entity's items: the entity's
	// own (entities.E.attributes.a.values) or the dictionary's.
	dist *catalog.Distribution
	// ea is the entity's declaration of the attribute (presence rules);
	// nil for key-only placeholders, inputs and variables.
	ea *catalog.EntityAttr
	// when and unless are the compiled presence rules.
	when, unless []cterm
	// tossed: the coin decides the slot's presence (no rule does);
	// odds is the chance it lands on present: the entity's share of the
	// attribute, or one half.
	tossed bool
	odds   float64
	// The attribute's instant format as the calendar writes it:
	// offset, fraction digits, Z; instFast false leaves it to the time
	// package.
	instOff    int64
	instDigits int
	instZ      bool
	instFast   bool
}

type genFn func(g *gen, f *frame, r *rng) (attr.Value, bool)

type outField struct {
	name string
	kind uint8 // 0 slot, 1 key, 2 discriminator
	slot int
	key  int
}

type keyField struct {
	name string
	tmpl *catalog.KeyTemplate
	refs []name // per part: the slot it reads (parts with Attr)
}

// name is a compiled reference to a name in scope.
type name struct {
	up      int8 // 0 own slot, n: the n-th ancestor's, -1 the reference's
	slot    int
	builtin int8 // 1 asOf, 2 index, 3 n, 4 siblings, 0 none
	text    string
}

const (
	bAsOf = iota + 1
	bIndex
	bN
	bSiblings
)

// groupPlan is how a group entity's items gather their members.
type groupPlan struct {
	node    *Node   // the group entity
	members *Node   // the member entity
	path    []*Node // from the group's parent's child down to members
	up      int     // from a member up to the group's parent
	by      []groupBy
	days    int
	max     int
}

type groupBy struct {
	slot  int  // the group entity's slot
	from  name // in the member's scope
	date  bool // the group attribute is a civil date: an instant gives its day
	fromU string
}

type refPlan struct {
	target *Node
	up     int     // frames up from the item to the common ancestor
	path   []*Node // from the ancestor's child to the target
	where  []cterm
	// match pairs a target's name with the item's own (resolved without
	// the reference): the candidates are those whose value equals it.
	match [][2]name
	// root: the target is a root entity of another tree; the item reads
	// root item j of its whole population, j drawn from the item's
	// stream, its values computed as generating that root computes them.
	root bool
}

type cterm struct {
	n    name
	op   string
	code opCode // op, as holds switches on it
	args []operand
}

// opCode is a condition's operator; 0 is one the generator does not
// know, which holds treats as a comparison that decides nothing.
type opCode uint8

const (
	opEq opCode = iota + 1
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
	opExists
)

var opCodes = map[string]opCode{"eq": opEq, "ne": opNe, "lt": opLt, "le": opLe, "gt": opGt, "ge": opGe, "in": opIn, "exists": opExists}

type operand struct {
	n      *name
	lit    *attr.Value
	lo, hi *operand
	// litNum is the literal read as a number once (litParsed), with
	// litOK parseNum's verdict: numOf need not parse it every time.
	litNum           num
	litParsed, litOK bool
}

// instFormat is how an instant attribute is written, learnt from the
// model's samples: UTC or the model's zone, with milliseconds or not.
type instFormat struct {
	local bool
	milli bool
}

func (p *Population) compile(n *Node) (*compiled, error) {
	c := &compiled{node: n, byName: map[string]int{}, samples: map[string][]attr.Value{}}
	e := n.Entity
	m := p.Model
	for _, s := range e.Samples {
		for _, f := range s.Item {
			c.samples[f.Name] = append(c.samples[f.Name], f.Value)
		}
	}
	add := func(nm string, a *catalog.Attribute, pres catalog.Presence, stored, isVar bool) *slot {
		if i, ok := c.byName[nm]; ok {
			return c.slots[i]
		}
		s := &slot{name: nm, a: a, presence: pres, stored: stored, isVar: isVar, id: hashString("slot:" + nm)}
		s.idKey = mix(s.id + golden)
		if a != nil {
			s.typ, s.unit, s.dist = a.Type, a.Unit, a.Values
		}
		c.byName[nm] = len(c.slots)
		c.slots = append(c.slots, s)
		return s
	}
	for i := range e.Attributes {
		ea := &e.Attributes[i]
		a := m.Attribute(ea.Name)
		if a == nil {
			continue
		}
		s := add(ea.Name, a, ea.Presence, ea.Presence != catalog.KeyOnly, false)
		s.ea = ea
		if ea.Values != nil {
			s.dist = ea.Values
		}
	}
	// Placeholders of key templates that the entity does not list are
	// key-only.
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if a := m.Attribute(ph); a != nil {
				add(ph, a, catalog.KeyOnly, false, false)
			}
		}
	}
	// Inputs of computed attributes are drawn but never stored, where the
	// attribute is computed (not copied from a parent).
	for _, s := range append([]*slot(nil), c.slots...) {
		if s.a != nil && s.a.Computed != nil && s.a.Computed.Input != "" && !p.inherited(n, s.name) {
			if in := m.Attribute(s.a.Computed.Input); in != nil {
				add(in.Name, in, catalog.KeyOnly, false, false)
			}
		}
	}
	if n.Rules != nil {
		for _, v := range n.Rules.Vars {
			s := add(v.Name, nil, catalog.Required, false, true)
			s.typ = v.Type
		}
	}
	for _, s := range c.slots {
		if s.unit == catalog.UnitInstant {
			s.inst = p.instantFormat(s.name)
		}
		if s.a != nil && s.a.Instant != nil {
			s.instOff, s.instDigits, s.instZ, s.instFast = instantZone(s.a.Instant)
		}
	}
	return c, nil
}

// instantFormat learns how the model writes an instant attribute from
// its samples: an offset other than Z means the model's zone.
func (p *Population) instantFormat(attrName string) instFormat {
	for _, e := range p.Model.Entities {
		for _, s := range e.Samples {
			if v, ok := s.Item.Get(attrName); ok && v.Type == attr.S {
				f := instFormat{local: !strings.HasSuffix(v.Str, "Z")}
				if i := strings.IndexByte(v.Str, '.'); i > 0 {
					f.milli = true
				}
				return f
			}
		}
	}
	return instFormat{}
}

// link resolves names across nodes, once every node has its slots.
func (p *Population) link(n *Node) error {
	l := &linker{p: p, n: n, c: n.comp, er: n.Rules}
	l.relations()
	l.conditions()
	l.states()
	if l.c.ref == nil {
		l.c.ref = p.implicitRef(n)
	}
	l.rules()
	l.coins()
	l.fields()
	if len(l.errs) > 0 {
		return errors.New(strings.Join(l.errs, "; "))
	}
	return nil
}

// linker is the linking of one node: its compiled form, filled phase by
// phase, and the problems found, reported together.
type linker struct {
	p    *Population
	n    *Node
	c    *compiled
	er   *catalog.EntityRules
	errs []string
}

func (l *linker) fail(format string, args ...any) {
	l.errs = append(l.errs, fmt.Sprintf(format, args...))
}

// relations plans the node's reference (ref) and group, keeping the
// nodes they walk through.
func (l *linker) relations() {
	p, n, c, er, fail := l.p, l.n, l.c, l.er, l.fail
	if er != nil && er.Ref != nil {
		t := p.Node(er.Ref.Entity.Name)
		if t == nil {
			fail("ref: %s has no items", er.Ref.Entity.Name)
		} else if t.Parent == nil && !under(n, t) {
			c.ref = &refPlan{target: t, root: true}
		} else if rp, err := p.refPlan(n, t); err != nil {
			fail("ref: %v", err)
		} else {
			c.ref = rp
			for _, x := range append([]*Node{t}, rp.path...) {
				x.comp.retain = true
			}
			for _, term := range er.Ref.Where {
				ct, err := p.term(t, term)
				if err != nil {
					fail("ref.where: %v", err)
					continue
				}
				rp.where = append(rp.where, ct)
			}
			if m, err := p.refMatches(n, t, er.Ref.Match); err != nil {
				fail("ref.%v", err)
			} else {
				rp.match = m
			}
		}
	}
	if er != nil && er.Group != nil && n.Parent != nil {
		if gp, err := p.groupPlan(n, er.Group); err != nil {
			fail("group: %v", err)
		} else {
			c.group = gp
			gp.members.comp.caps = append(gp.members.comp.caps, gp)
			for _, x := range gp.path {
				x.comp.retain = true
			}
		}
	}
}

// conditions compiles which parents have items of the node (the
// catalog's population.where, the rules' when) and what counts them.
func (l *linker) conditions() {
	p, n, c, e, er, fail := l.p, l.n, l.c, l.n.Entity, l.er, l.fail
	// The catalog's population.where: only the parents that match have
	// items of the entity.
	if pop := e.Population; n.Parent != nil && pop != nil {
		for _, cd := range pop.Where {
			nm, ok := p.resolve(n.Parent, cd.Attribute)
			if !ok {
				fail("population.where: %s is not in the scope of %s", cd.Attribute, n.Parent.Name())
				continue
			}
			t := cterm{n: nm, op: "in", code: opIn}
			for i := range cd.Values {
				t.args = append(t.args, operand{lit: &cd.Values[i]})
			}
			c.when = append(c.when, t)
		}
	}
	if n.Parent != nil && er != nil {
		for _, term := range er.When {
			ct, err := p.term(n.Parent, term)
			if err != nil {
				fail("when: %v", err)
				continue
			}
			c.when = append(c.when, ct)
		}
		if er.Count != "" {
			nm, ok := p.resolve(n.Parent, er.Count)
			if !ok {
				fail("count: %s is not in the scope of %s", er.Count, n.Parent.Name())
			}
			c.count = nm
		}
	}
}

// states compiles the node's states: their shares, what each sets or
// leaves absent, and when each applies.
func (l *linker) states() {
	p, n, c, er, fail := l.p, l.n, l.c, l.er, l.fail
	if er != nil && len(er.States) > 0 {
		c.states = er.States
		w := make([]float64, len(er.States))
		for i, st := range er.States {
			w[i] = st.Share
			set := make([]int8, len(c.slots))
			vals := make([]attr.Value, len(c.slots))
			for an, v := range st.Set {
				if i, ok := c.byName[an]; ok {
					set[i], vals[i] = 1, v
				}
			}
			for _, an := range st.Absent {
				if i, ok := c.byName[an]; ok {
					set[i] = 2
				}
			}
			c.stateSet = append(c.stateSet, set)
			c.stateVal = append(c.stateVal, vals)
		}
		if er.States[0].When == nil {
			c.cumState = cumulative(w)
		}
		for _, st := range er.States {
			var terms []cterm
			for _, t := range st.When {
				ct, err := p.term(n, t)
				if err != nil {
					fail("states.%s.when: %v", st.Name, err)
					continue
				}
				terms = append(terms, ct)
			}
			c.stateWhen = append(c.stateWhen, terms)
		}
	}
}

// rules compiles every slot's rule and presence rules, orders the
// slots, and makes the node wait for the children its rules read through
// their parent's aggregates.
func (l *linker) rules() {
	p, n, c, er, fail := l.p, l.n, l.c, l.er, l.fail
	for i, s := range c.slots {
		var rl *catalog.Rule
		if er != nil {
			if s.isVar {
				for _, v := range er.Vars {
					if v.Name == s.name {
						rl = v.Rule
					}
				}
			} else {
				rl = er.Rules[s.name]
			}
		}
		g, deps, late, desc, err := p.slotGen(n, i, s, rl)
		if err != nil {
			fail("%s: %v", s.name, err)
			continue
		}
		s.gen, s.deps, s.late, s.rule = g, deps, late, desc
	}
	for _, rw := range c.rewires {
		rw()
	}
	// Presence rules (entities.E.attributes.a.when and unless): an item
	// carries the attribute exactly while they allow it.
	for _, s := range c.slots {
		if s.ea == nil {
			continue
		}
		for _, set := range []struct {
			conds []catalog.Condition
			dst   *[]cterm
		}{{s.ea.When, &s.when}, {s.ea.Unless, &s.unless}} {
			for _, cd := range set.conds {
				nm, ok := p.resolve(n, cd.Attribute)
				if !ok {
					fail("%s: presence rule on %s, which is not in scope", s.name, cd.Attribute)
					continue
				}
				t := cterm{n: nm, op: "in", code: opIn}
				for i := range cd.Values {
					t.args = append(t.args, operand{lit: &cd.Values[i]})
				}
				*set.dst = append(*set.dst, t)
				s.deps = append(s.deps, nm)
			}
		}
	}
	if len(l.errs) == 0 {
		if err := c.order(); err != nil {
			fail("%v", err)
		}
	}
	// A rule may read what its parent computes from other children (an
	// aggregate, or what depends on one) only once those children are
	// made: they are generated first. Further up, it may not.
	for _, s := range c.slots {
		for _, d := range s.deps {
			if d.up <= 0 || d.builtin != 0 {
				continue
			}
			a := n
			for i := int8(0); i < d.up && a != nil; i++ {
				a = a.Parent
			}
			if a == nil || !a.comp.slots[d.slot].late {
				continue
			}
			if d.up > 1 {
				fail("%s reads %s.%s, which %s computes from its children, after them", s.name, a.Name(), d.text, a.Name())
				continue
			}
			for _, k := range a.comp.aggregated(d.slot, map[int]bool{}) {
				if k == n {
					fail("%s reads %s.%s, which folds %s's own items", s.name, a.Name(), d.text, n.Name())
					continue
				}
				c.after = append(c.after, k)
			}
		}
	}
}

// coins decides how optional attributes without a rule are carried:
// by a coin, shared by the optional attributes that key one index.
func (l *linker) coins() {
	p, c, er := l.p, l.c, l.er
	// An optional attribute without a rule is carried by half of the
	// items; the optional attributes that key one index share their coin.
	for _, s := range c.slots {
		if s.presence == catalog.Optional {
			s.coin = s.id
		}
	}
	for _, x := range p.Model.Indexes {
		var group []*slot
		for _, k := range x.KeyAttributes() {
			if i, ok := c.byName[k]; ok && c.slots[i].presence == catalog.Optional {
				group = append(group, c.slots[i])
			}
		}
		if len(group) > 1 {
			for _, s := range group {
				s.coin = hashString("coin:" + x.Name)
			}
		}
	}
	// Which slots a coin decides, once, rather than per item: an optional
	// attribute with a coin whose presence no rule, state or presence
	// rule of the model decides.
	// A declared share (entities.E.attributes.a.share) is the odds among
	// the items the presence rules and states let carry it; without one, an
	// attribute a presence rule confines is carried by every item it
	// lets carry it, and one that nothing confines by half of them.
	for _, s := range c.slots {
		shared := s.ea != nil && s.ea.Share != nil
		s.odds = 0.5
		if shared {
			s.odds = *s.ea.Share
		}
		// A share holds whatever rule draws the value (a format, a
		// distribution); a state that sets or drops the attribute
		// decides before the coin.
		s.tossed = s.coin != 0 && s.presence == catalog.Optional && (shared || (s.rule != "copy" && len(s.when) == 0 && len(s.unless) == 0 && !ruled(er, s)))
	}
}

// fields lays out the item's output fields (keys, discriminator,
// stored attributes) and its encoder.
func (l *linker) fields() {
	c, e, fail := l.c, l.n.Entity, l.fail
	if e.Table != nil {
		for ki, k := range e.Key {
			kf := keyField{name: k.Attribute, tmpl: k.Template}
			for _, part := range k.Template.Parts {
				if part.Attr == "" {
					kf.refs = append(kf.refs, name{})
					continue
				}
				i, ok := c.byName[part.Attr]
				if !ok {
					fail("key %s: placeholder {%s} has no slot", k.Attribute, part.Attr)
					continue
				}
				kf.refs = append(kf.refs, name{slot: i, text: part.Attr})
			}
			c.keys = append(c.keys, kf)
			c.out = append(c.out, outField{name: k.Attribute, kind: 1, key: ki})
		}
		if d := e.Table.Discriminator; d != "" {
			c.out = append(c.out, outField{name: d, kind: 2})
		}
		keyed := map[string]bool{}
		for _, k := range e.Key {
			keyed[k.Attribute] = true
		}
		for i, s := range c.slots {
			// A natural key (deviceId: "{deviceId}") is the attribute
			// itself: written once, as the key.
			if s.stored && !keyed[s.name] {
				c.out = append(c.out, outField{name: s.name, slot: i})
			}
		}
		sort.Slice(c.out, func(i, j int) bool { return c.out[i].name < c.out[j].name })
		c.enc = newItemEncoder(c)
		c.tableKey = hashString(e.Table.Name)
	}
}

// orderKids puts each node's children in generation order, once every
// node is linked: what a reference or a group reads comes first, names
// otherwise (a topological order, so that chains of references hold).
func (p *Population) orderKids(n *Node) error {
	left := append([]*Node(nil), n.Children...)
	var out []*Node
	for len(left) > 0 {
		pick := -1
		for i, a := range left {
			ready := true
			for j, b := range left {
				if i != j && p.before(b, a) {
					ready = false
					break
				}
			}
			if ready {
				pick = i
				break
			}
		}
		if pick < 0 {
			return fmt.Errorf("the references and groups of %s's children go round in a circle", n.Name())
		}
		out = append(out, left[pick])
		left = append(left[:pick], left[pick+1:]...)
	}
	n.comp.kids = out
	return nil
}

// before reports whether a's subtree must be generated before b's: some
// node under b refers to a node under a.
func (p *Population) before(a, b *Node) bool {
	under := func(x, root *Node) bool {
		for ; x != nil; x = x.Parent {
			if x == root {
				return true
			}
		}
		return false
	}
	for _, n := range p.Nodes {
		if n.comp == nil || !under(n, b) {
			continue
		}
		if n.comp.ref != nil && under(n.comp.ref.target, a) {
			return true
		}
		if n.comp.group != nil && under(n.comp.group.members, a) {
			return true
		}
		for _, x := range n.comp.after {
			if under(x, a) {
				return true
			}
		}
	}
	return false
}

// groupPlan finds how a group entity's items reach their members.
func (p *Population) groupPlan(n *Node, gr *catalog.Group) (*groupPlan, error) {
	m := p.Node(gr.Of.Name)
	if m == nil {
		return nil, fmt.Errorf("%s has no items", gr.Of.Name)
	}
	par := n.Parent
	var path []*Node
	for x := m; x != nil && x != par; x = x.Parent {
		path = append([]*Node{x}, path...)
	}
	if len(path) == 0 || path[0].Parent != par {
		return nil, fmt.Errorf("%s does not hang off %s", m.Name(), par.Name())
	}
	gp := &groupPlan{node: n, members: m, path: path, up: len(path), days: gr.Days, max: gr.Max}
	for _, k := range gr.By {
		i, ok := n.comp.byName[k.Attribute]
		if !ok {
			return nil, fmt.Errorf("%s has no %s", n.Name(), k.Attribute)
		}
		from, ok := p.resolve(m, k.From)
		if !ok {
			return nil, fmt.Errorf("%s has no %s", m.Name(), k.From)
		}
		a := n.comp.slots[i].a
		gp.by = append(gp.by, groupBy{slot: i, from: from, date: a != nil && a.Unit == catalog.UnitCivilDate, fromU: p.unitOf(m, from)})
	}
	return gp, nil
}

// refPlan finds how an item of n reaches items of t: up to the nearest
// common ancestor, then down the path to t.
func (p *Population) refPlan(n, t *Node) (*refPlan, error) {
	up := 0
	for a := n.Parent; a != nil; a = a.Parent {
		up++
		var path []*Node
		for x := t; x != nil && x != a; x = x.Parent {
			path = append([]*Node{x}, path...)
		}
		if len(path) > 0 && path[0].Parent == a {
			if under(n, path[0]) {
				return nil, fmt.Errorf("%s is an ancestor of %s", t.Name(), n.Name())
			}
			return &refPlan{target: t, up: up, path: path}, nil
		}
	}
	return nil, fmt.Errorf("%s and %s have no common ancestor", n.Name(), t.Name())
}

func under(x, root *Node) bool {
	for ; x != nil; x = x.Parent {
		if x == root {
			return true
		}
	}
	return false
}

// inherited reports whether an attribute of n comes from its parent chain.
func (p *Population) inherited(n *Node, nm string) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if _, ok := a.comp.byName[nm]; ok {
			return true
		}
	}
	return false
}

// resolve finds a name in n's scope: its own slots, its reference's, its
// ancestors', then the built-ins.
func (p *Population) resolve(n *Node, nm string) (name, bool) {
	if ent, attrName, ok := strings.Cut(nm, "."); ok {
		return p.resolveQualified(n, ent, attrName)
	}
	if i, ok := n.comp.byName[nm]; ok {
		return name{slot: i, text: nm}, true
	}
	if x, ok := p.resolveUp(n, nm); ok {
		return x, true
	}
	switch nm {
	case "asOf":
		return name{builtin: bAsOf, text: nm}, true
	case "index":
		return name{builtin: bIndex, text: nm}, true
	case "n":
		return name{builtin: bN, text: nm}, true
	case "siblings":
		return name{builtin: bSiblings, text: nm}, true
	}
	return name{}, false
}

// resolveQualified finds ENTITY.name: the attribute of the nearest item
// of that entity among the item itself, its reference and its parents.
func (p *Population) resolveQualified(n *Node, ent, nm string) (name, bool) {
	up := int8(0)
	for a := n; a != nil; a = a.Parent {
		if a.Name() == ent {
			if i, ok := a.comp.byName[nm]; ok {
				return name{up: up, slot: i, text: nm}, true
			}
			return name{}, false
		}
		up++
	}
	if rp := n.comp.ref; rp != nil && rp.target.Name() == ent {
		if i, ok := rp.target.comp.byName[nm]; ok {
			return name{up: -1, slot: i, text: nm}, true
		}
	}
	return name{}, false
}

// resolveUp is resolve skipping the node's own slots (a copy of the
// same name from the reference or a parent).
func (p *Population) resolveUp(n *Node, nm string) (name, bool) {
	rp := n.comp.ref
	if rp != nil && !rp.root {
		if i, ok := rp.target.comp.byName[nm]; ok {
			return name{up: -1, slot: i, text: nm}, true
		}
	}
	up := int8(0)
	for a := n.Parent; a != nil; a = a.Parent {
		up++
		if i, ok := a.comp.byName[nm]; ok {
			return name{up: up, slot: i, text: nm}, true
		}
	}
	// Another tree's root comes after the item's own tree.
	if rp != nil && rp.root {
		if i, ok := rp.target.comp.byName[nm]; ok {
			return name{up: -1, slot: i, text: nm}, true
		}
	}
	return name{}, false
}

// implicitRef finds the root entity of another tree an entity's items
// name without saying so: an attribute the item carries with no rule of
// its own, not computed, not from its own tree, that is the identifier
// of another tree's root (a placeholder its key introduces, with no enum
// and no fewer distinct values than it has items: an order's customerId
// beside CUSTOMER keyed "C#{customerId}"). A root entity whose keys
// would be made of the other root's placeholders alone does not refer
// to it (two of its items drawing the same root item would write the
// same key, which no tree's check sees). The first such root in model order
// is referenced; nil when none is.
func (p *Population) implicitRef(n *Node) *refPlan {
	for _, s := range n.comp.slots {
		a := s.a
		// The dictionary's values are how the root draws its identifier,
		// so the item copies the value of the root it names; an entity's
		// own values for it are refused by the catalog.
		if a == nil || a.Computed != nil || (s.ea != nil && s.ea.Values != nil) || len(a.Enum) > 0 || p.inherited(n, s.name) {
			continue
		}
		if n.Rules != nil && n.Rules.Rules[s.name] != nil {
			continue
		}
		if t := p.refCandidates(s.name, a).first(n); t != nil {
			return &refPlan{target: t, root: true}
		}
	}
	return nil
}

// refCands are the roots an attribute may name (they carry it, and
// its values tell their items apart), in model order, with the answers
// of first kept: implicitRef asks for every attribute of every entity,
// and a model of thousands of entities sharing an attribute name would
// otherwise compare every pair.
type refCands struct {
	roots   []*Node
	at      map[*Node]int    // a root's position in roots
	lacking map[string]*Node // by placeholder: the first root without it
}

// refCandidates returns the candidates of attribute a, found once.
func (p *Population) refCandidates(name string, a *catalog.Attribute) *refCands {
	if c := p.refs[name]; c != nil {
		return c
	}
	c := &refCands{at: map[*Node]int{}, lacking: map[string]*Node{}}
	for _, t := range p.Roots {
		if _, ok := t.comp.byName[name]; ok && p.unique(t, a) {
			c.at[t] = len(c.roots)
			c.roots = append(c.roots, t)
		}
	}
	if p.refs == nil {
		p.refs = map[string]*refCands{}
	}
	p.refs[name] = c
	return c
}

// first returns the first candidate n may name: not n's own tree's root,
// and, for a root n, not one whose placeholders hold all of n's (two of
// n's items naming the same root item would write the same key):
// the first root lacking one of n's placeholders.
func (c *refCands) first(n *Node) *Node {
	if n.Parent != nil {
		for _, t := range c.roots {
			if !under(n, t) {
				return t
			}
		}
		return nil
	}
	var best *Node
	for ph := range n.keys {
		t, ok := c.lacking[ph]
		if !ok {
			for _, r := range c.roots {
				if !r.keys[ph] {
					t = r
					break
				}
			}
			c.lacking[ph] = t
		}
		if t != nil && (best == nil || c.at[t] < c.at[best]) {
			best = t
		}
	}
	return best
}

// refKeyCopy reports whether a slot of n copies the same-named attribute
// of its reference by default: always for a reference within the tree;
// for another tree's root, only the placeholders of the root's keys,
// which name the item referred to (its other attributes are read by
// rules, as ENTITY.name or by name).
func (p *Population) refKeyCopy(n *Node, nm string) bool {
	rp := n.comp.ref
	if rp == nil || !rp.root {
		return true
	}
	for _, k := range rp.target.Entity.Key {
		for _, ph := range k.Template.Placeholders() {
			if ph == nm {
				return true
			}
		}
	}
	return false
}

func (p *Population) term(n *Node, t catalog.CondTerm) (cterm, error) {
	nm, ok := p.resolve(n, t.Name)
	if !ok {
		return cterm{}, fmt.Errorf("%s is not in the scope of %s", t.Name, n.Name())
	}
	ct := cterm{n: nm, op: t.Op, code: opCodes[t.Op]}
	for _, a := range t.Args {
		op, err := p.operand(n, a)
		if err != nil {
			return cterm{}, err
		}
		ct.args = append(ct.args, op)
	}
	return ct, nil
}

func (p *Population) operand(n *Node, a catalog.SynthOperand) (operand, error) {
	switch {
	case len(a.Range) == 2:
		lo, err := p.operand(n, a.Range[0])
		if err != nil {
			return operand{}, err
		}
		hi, err := p.operand(n, a.Range[1])
		if err != nil {
			return operand{}, err
		}
		return operand{lo: &lo, hi: &hi}, nil
	case a.Name != "":
		nm, ok := p.resolve(n, a.Name)
		if !ok {
			return operand{}, fmt.Errorf("%s is not in the scope of %s", a.Name, n.Name())
		}
		return operand{n: &nm}, nil
	case a.Literal != nil:
		x, ok := parseNum(a.Literal.Str)
		return operand{lit: a.Literal, litNum: x, litParsed: true, litOK: ok}, nil
	}
	return operand{}, errors.New("empty operand")
}

// order checks that the item's own slots do not read each other in a
// circle, and marks the slots that must wait for the children.
func (c *compiled) order() error {
	state := make([]int8, len(c.slots))
	var visit func(i int, path []string) error
	visit = func(i int, path []string) error {
		switch state[i] {
		case 1:
			return fmt.Errorf("rules read each other in a circle: %s -> %s", strings.Join(path, " -> "), c.slots[i].name)
		case 2:
			return nil
		}
		state[i] = 1
		s := c.slots[i]
		for _, d := range s.deps {
			if d.up != 0 || d.builtin != 0 {
				continue
			}
			if err := visit(d.slot, append(path, s.name)); err != nil {
				return err
			}
			if c.slots[d.slot].late {
				s.late = true
			}
		}
		state[i] = 2
		return nil
	}
	for i := range c.slots {
		if err := visit(i, nil); err != nil {
			return err
		}
	}
	for i, s := range c.slots {
		if s.late {
			c.late = append(c.late, i)
		}
	}
	return nil
}

// slotGen compiles the rule of one slot: the model's rule when it gives
// one, otherwise the dictionary's (computed, copied from a parent of the
// same name, the declared values, a unique key value, the domain, the
// unit).
func (p *Population) slotGen(n *Node, i int, s *slot, rl *catalog.Rule) (genFn, []name, bool, string, error) {
	if rl != nil {
		g, deps, late, err := p.ruleGen(n, s, rl)
		return g, deps, late, string(rl.Kind), err
	}
	a := s.a
	if s.isVar {
		return nil, nil, false, "", errors.New("a variable needs a rule")
	}
	if gp := n.comp.group; gp != nil {
		for j, b := range gp.by {
			if b.slot == i {
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
					if f.group == nil {
						return attr.Value{}, false
					}
					return f.group.vals[j], true
				}, nil, false, "group key", nil
			}
		}
	}
	if n.Rules != nil && n.Rules.Each == s.name {
		per := n.Count.N
		vals := n.EachValues
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return scalarOf(a.Type, vals[int(f.ord/per)%len(vals)]), true
		}, nil, false, "each", nil
	}
	// What the reference or a parent carries is copied: an instalment's
	// contract, a charge's instalment. A computed attribute is computed
	// where it first appears and copied below.
	if nm, ok := p.resolveUp(n, s.name); ok && (nm.up >= 0 || p.refKeyCopy(n, s.name)) {
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.get(f, nm) }, []name{nm}, false, "copy", nil
	}
	if a.Computed != nil {
		return p.computedGen(n, s)
	}
	return p.defaultGen(n, s)
}

func scalarOf(t attr.Type, s string) attr.Value {
	if t == attr.N {
		return attr.Num(s)
	}
	return attr.Str(s)
}

func (p *Population) computedGen(n *Node, s *slot) (genFn, []name, bool, string, error) {
	c := s.a.Computed
	switch c.Kind {
	case catalog.KindHashMod:
		in, ok := p.resolve(n, c.Input)
		if !ok {
			return nil, nil, false, "", fmt.Errorf("computed from %s, which is not in scope", c.Input)
		}
		mod := c.Modulo
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			v, ok := g.get(f, in)
			if !ok {
				return attr.Value{}, false
			}
			return g.num(int64(catalog.HashMod(v.Str, mod))), true
		}, []name{in}, false, "computed hashMod", nil
	case catalog.KindHMAC:
		in, ok := p.resolve(n, c.Input)
		if !ok {
			return nil, nil, false, "", fmt.Errorf("computed from %s, which is not in scope", c.Input)
		}
		var by *name
		if c.Secret == "tenant" || c.SecretBy != "" {
			nm, ok := p.resolve(n, c.SecretBy)
			if !ok {
				return nil, nil, false, "", fmt.Errorf("secret chosen by %s, which is not in scope", c.SecretBy)
			}
			by = &nm
		}
		deps := []name{in}
		if by != nil {
			deps = append(deps, *by)
		}
		model := p.Model.Name
		norm, hexLen := c.Normalize, c.HexLength
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			v, ok := g.get(f, in)
			if !ok {
				return attr.Value{}, false
			}
			sel := ""
			if by != nil {
				bv, _ := g.get(f, *by)
				sel = bv.Str
			}
			secret := g.secret(model, sel)
			input := v.Str
			if norm == "digits" {
				input = catalog.NormalizeDigits(input)
			}
			return attr.Str(g.keep(catalog.HMACHex(secret, input, hexLen))), true
		}, deps, false, "computed hmac", nil
	case catalog.KindTemplate:
		return p.templateGen(n, s, c.Template)
	}
	return nil, nil, false, "", fmt.Errorf("unknown computation %q", c.Kind)
}

// TestSecret is the secret of a keyed-hash attribute for one value of the
// attribute that selects it (a tenant): "<model>-test-secret-<value>",
// or "<model>-test-secret" for a global secret. It is what the generated
// population's keys are computed with, never a production secret.
func TestSecret(model, value string) []byte {
	if value == "" {
		return []byte(model + "-test-secret")
	}
	return []byte(model + "-test-secret-" + value)
}

func (p *Population) templateGen(n *Node, s *slot, t *catalog.KeyTemplate) (genFn, []name, bool, string, error) {
	refs, deps, err := p.templateRefs(n, t)
	if err != nil {
		return nil, nil, false, "", fmt.Errorf("template %w", err)
	}
	sep := p.Model.Separator
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		st, ok := g.render(f, t, refs, sep, false)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Str(st), true
	}, deps, false, "template", nil
}

// ruleGen compiles a model rule.
func (p *Population) ruleGen(n *Node, s *slot, rl *catalog.Rule) (genFn, []name, bool, error) {
	switch rl.Kind {
	case catalog.RuleValue:
		v := *rl.Value
		if v.Type == attr.L || v.Type == attr.M {
			if tv, deps, ok, err := p.templatedValue(n, v); err != nil {
				return nil, nil, false, err
			} else if ok {
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return tv(g, f) }, deps, false, nil
			}
		}
		return func(*gen, *frame, *rng) (attr.Value, bool) { return v, true }, nil, false, nil
	case catalog.RuleDefault:
		if s.a != nil && s.a.Computed != nil {
			// a computed attribute's default is its computation (or the
			// copy of the parent's, where that computes it)
			if nm, ok := p.resolveUp(n, s.name); ok && nm.up > 0 {
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.get(f, nm) }, []name{nm}, false, nil
			}
			g, deps, late, _, err := p.computedGen(n, s)
			return g, deps, late, err
		}
		g, deps, late, _, err := p.defaultGen(n, s)
		return g, deps, late, err
	case catalog.RuleCalc:
		return p.calcGen(n, s, rl.Calc)
	case catalog.RuleGeohash:
		return p.geohashGen(n, s, rl.Geohash)
	case catalog.RuleSize:
		return p.sizeGen(n, s, rl.Name)
	case catalog.RuleList:
		return p.listGen(n, s, *rl.Count)
	case catalog.RuleAbsent:
		return func(*gen, *frame, *rng) (attr.Value, bool) { return attr.Value{}, false }, nil, false, nil
	case catalog.RuleValues:
		g, deps, _, _, err := p.distGen(n, s, rl.Values)
		return g, deps, false, err
	case catalog.RuleCopy:
		return p.copyGen(n, s, rl.Name)
	case catalog.RuleTemplate:
		g, deps, late, _, err := p.templateGen(n, s, rl.Template)
		return g, deps, late, err
	case catalog.RuleSum, catalog.RuleMin, catalog.RuleMax:
		return p.arithGen(n, s, rl)
	case catalog.RuleDate:
		return p.dateGen(n, s, rl.Date)
	case catalog.RuleCases:
		return p.casesGen(n, s, rl)
	case catalog.RuleAggregate:
		return p.aggGen(n, s, rl.Agg)
	case catalog.RuleSplit:
		return p.splitGen(n, s, rl.Name)
	case catalog.RuleBand:
		return p.bandGen(n, s, rl.Band)
	case catalog.RuleFormat:
		return p.formatGen(n, s, rl.Format)
	case catalog.RuleEncrypt:
		return p.encryptGen(n, s, rl.Name)
	}
	return nil, nil, false, fmt.Errorf("unknown rule kind %q", rl.Kind)
}

// sizeGen compiles a size rule: the element count of a list, map or set,
// or the characters of a string.
func (p *Population) sizeGen(n *Node, _ *slot, ref string) (genFn, []name, bool, error) {
	return p.ofName(n, ref, func(g *gen, v attr.Value, _ *rng) attr.Value {
		switch v.Type {
		case attr.L:
			return g.num(int64(len(v.List)))
		case attr.M:
			return g.num(int64(len(v.Map)))
		case attr.SS, attr.NS, attr.BS:
			return g.num(int64(len(v.Set)))
		}
		return g.num(int64(utf8.RuneCountInString(v.Str)))
	})
}

// ofName compiles a rule that turns the value of a name in scope into
// the attribute's; an absent value leaves the attribute absent.
func (p *Population) ofName(n *Node, ref string, fn func(g *gen, v attr.Value, r *rng) attr.Value) (genFn, []name, bool, error) {
	nm, ok := p.resolve(n, ref)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is not in scope", ref)
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		v, ok := g.get(f, nm)
		if !ok {
			return attr.Value{}, false
		}
		return fn(g, v, r), true
	}, []name{nm}, false, nil
}

// listGen compiles a list rule: a list of a drawn length (at most 10,000),
// its elements like the sample's first or drawn from the attribute's items.
func (p *Population) listGen(n *Node, s *slot, c catalog.SynthOperand) (genFn, []name, bool, error) {
	count, err := p.operand(n, c)
	if err != nil {
		return nil, nil, false, err
	}
	a := s.a
	var elem *attr.Value
	if sv, ok := p.sampleOf(n, a); ok && sv.Type == attr.L && len(sv.List) > 0 {
		elem = &sv.List[0]
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		x, ok := g.numOf(f, &count, r)
		if !ok {
			return attr.Value{}, false
		}
		k := min(max(x.int(), 0), 10_000)
		out := make([]attr.Value, k)
		for i := range out {
			switch {
			case elem != nil:
				var d *catalog.Domain
				if a.Items != nil {
					d = &a.Items.Domain
				}
				out[i] = g.like(*elem, d, r)
			case a.Items != nil:
				out[i] = g.memberValue(a.Items, r)
			default:
				out[i] = attr.Str(g.keepBytes(appendRandom(g.scratch[:0], r, alnum, 8)))
			}
		}
		return attr.ListOf(out...), true
	}, count.names(), false, nil
}

// copyGen compiles a copy rule; an attribute that copies its own name
// copies the one of the item above.
func (p *Population) copyGen(n *Node, s *slot, ref string) (genFn, []name, bool, error) {
	nm, ok := p.resolve(n, ref)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is not in scope", ref)
	}
	if nm.up == 0 && nm.builtin == 0 && nm.slot == n.comp.byName[s.name] {
		nm, ok = p.resolveUp(n, ref)
		if !ok {
			return nil, nil, false, fmt.Errorf("copies itself")
		}
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		v, ok := g.get(f, nm)
		if ok && nm.builtin == bAsOf && s.unit != catalog.UnitCivilDate {
			return g.dateValue(g.pop.AsOf, s), true
		}
		return v, ok
	}, []name{nm}, false, nil
}

// arithGen compiles a sum, min or max rule over its operands.
func (p *Population) arithGen(n *Node, s *slot, rl *catalog.Rule) (genFn, []name, bool, error) {
	var plus, minus []operand
	var deps []name
	for _, list := range []struct {
		src []catalog.SynthOperand
		dst *[]operand
	}{{rl.Sum, &plus}, {rl.Minus, &minus}, {rl.Operands, &plus}} {
		for _, a := range list.src {
			op, err := p.operand(n, a)
			if err != nil {
				return nil, nil, false, err
			}
			*list.dst = append(*list.dst, op)
			deps = append(deps, op.names()...)
		}
	}
	kind := rl.Kind
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		var acc num
		for i := range plus {
			x, ok := g.numOf(f, &plus[i], r)
			if !ok {
				return attr.Value{}, false
			}
			switch {
			case i == 0:
				acc = x
			case kind == catalog.RuleSum:
				acc = acc.add(x)
			case kind == catalog.RuleMin && x.less(acc):
				acc = x
			case kind == catalog.RuleMax && acc.less(x):
				acc = x
			}
		}
		for i := range minus {
			x, ok := g.numOf(f, &minus[i], r)
			if !ok {
				return attr.Value{}, false
			}
			acc = acc.add(x.neg())
		}
		return g.numValue(acc), true
	}, deps, false, nil
}

// casesGen compiles a cases rule: the first case whose when holds.
func (p *Population) casesGen(n *Node, s *slot, rl *catalog.Rule) (genFn, []name, bool, error) {
	type cs struct {
		when []cterm
		g    genFn
	}
	var cases []cs
	var deps []name
	late := false
	for _, c := range rl.Cases {
		var when []cterm
		for _, t := range c.When {
			ct, err := p.term(n, t)
			if err != nil {
				return nil, nil, false, err
			}
			when = append(when, ct)
			deps = append(deps, ct.names()...)
		}
		g, d, l, err := p.ruleGen(n, s, c.Rule)
		if err != nil {
			return nil, nil, false, err
		}
		deps = append(deps, d...)
		late = late || l
		cases = append(cases, cs{when, g})
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		for _, c := range cases {
			if g.holds(f, c.when) {
				return c.g(g, f, r)
			}
		}
		return attr.Value{}, false
	}, deps, late, nil
}

// encryptGen compiles an encrypt rule: the named string sealed under the
// model's key.
func (p *Population) encryptGen(n *Node, _ *slot, ref string) (genFn, []name, bool, error) {
	return p.ofName(n, ref, func(g *gen, v attr.Value, r *rng) attr.Value {
		b := appendEncrypt(g.scratch[:0], g.aead(p.Model.Name), r, []byte(v.Str))
		return attr.Value{Type: attr.B, Str: g.keepBytes(b)}
	})
}

func (o operand) names() []name {
	switch {
	case o.n != nil:
		return []name{*o.n}
	case o.lo != nil:
		return append(o.lo.names(), o.hi.names()...)
	}
	return nil
}

func (t cterm) names() []name {
	out := []name{t.n}
	for _, a := range t.args {
		out = append(out, a.names()...)
	}
	return out
}

func (p *Population) dateGen(n *Node, s *slot, dr *catalog.DateRule) (genFn, []name, bool, error) {
	var from *name
	var deps []name
	if dr.From != "asOf" {
		nm, ok := p.resolve(n, dr.From)
		if !ok {
			return nil, nil, false, fmt.Errorf("%s is not in scope", dr.From)
		}
		from = &nm
		deps = append(deps, nm)
	}
	var fromUnit string
	if from != nil {
		fromUnit = p.unitOf(n, *from)
	}
	one := func(o *catalog.SynthOperand) (*operand, error) {
		if o == nil {
			return nil, nil
		}
		op, err := p.operand(n, *o)
		if err != nil {
			return nil, err
		}
		deps = append(deps, op.names()...)
		return &op, nil
	}
	days, err := one(dr.Days)
	if err != nil {
		return nil, nil, false, err
	}
	months, err := one(dr.Months)
	if err != nil {
		return nil, nil, false, err
	}
	years, err := one(dr.Years)
	if err != nil {
		return nil, nil, false, err
	}
	secs, err := one(dr.Seconds)
	if err != nil {
		return nil, nil, false, err
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		// The calendar's arithmetic on the instant when it has one (asOf,
		// a date made here, a civil date's text), the time package's
		// otherwise: the same result.
		var t time.Time
		ns, fast := g.pop.AsOf.UnixNano(), true
		if from != nil {
			ns, fast = g.nanosOf(f, *from)
			if !fast {
				var ok bool
				t, ok = g.timeOf(f, *from, fromUnit)
				if !ok {
					return attr.Value{}, false
				}
			}
		}
		amount := func(o *operand) int {
			if o == nil {
				return 0
			}
			x, ok := g.numOf(f, o, r)
			if !ok {
				return 0
			}
			return int(x.int())
		}
		ys, ms, ds := amount(years), amount(months), amount(days)
		ss := 0
		if secs != nil {
			ss = amount(secs)
		}
		if fast {
			if out, ok := g.pop.cal.addDate(ns, int64(ys), int64(ms), int64(ds), int64(ss)); ok {
				if v, ok := g.dateNanos(out, s); ok {
					return v, true
				}
			}
			t = time.Unix(0, ns).In(g.pop.Loc)
		}
		t = t.AddDate(ys, ms, ds)
		if secs != nil {
			t = t.Add(time.Duration(ss) * time.Second)
		}
		return g.dateValue(t, s), true
	}, deps, false, nil
}

// unitOf is the unit of the attribute a name reads ("" for variables,
// which take their source's).
func (p *Population) unitOf(n *Node, nm name) string {
	if nm.builtin == bAsOf {
		return catalog.UnitCivilDate
	}
	if a := p.Model.Attribute(nm.text); a != nil {
		return a.Unit
	}
	return ""
}

// parseTime reads a date value: a civil date, an instant or epoch seconds.
func (p *Population) parseTime(v attr.Value, unit string) (time.Time, bool) {
	if v.Type == attr.N {
		s, err := strconv.ParseInt(v.Str, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		return time.Unix(s, 0).In(p.Loc), true
	}
	if len(v.Str) == 10 {
		t, err := time.ParseInLocation("2006-01-02", v.Str, p.Loc)
		return t, err == nil
	}
	// An instant is read in the model's zone, as the cache of timeOf
	// gives it: date arithmetic on it then counts the zone's days.
	t, err := time.Parse(time.RFC3339Nano, v.Str)
	return t.In(p.Loc), err == nil
}

func (p *Population) aggGen(n *Node, s *slot, ag *catalog.Aggregate) (genFn, []name, bool, error) {
	child := p.Node(ag.Of.Name)
	grouped := n.comp.group != nil && n.comp.group.members == child
	if child == nil || (child.Parent != n && !grouped) {
		return nil, nil, false, fmt.Errorf("aggregate over %s, which is not a child of %s with items", ag.Of.Name, n.Name())
	}
	child.comp.retain = true
	s.aggOf = append(s.aggOf, child)
	var val name
	if ag.Fn != "count" {
		i, ok := child.comp.byName[ag.Value]
		if !ok {
			return nil, nil, false, fmt.Errorf("%s has no %s", child.Name(), ag.Value)
		}
		val = name{slot: i, text: ag.Value}
	}
	var where []cterm
	for _, t := range ag.Where {
		ct, err := p.term(child, t)
		if err != nil {
			return nil, nil, false, err
		}
		where = append(where, ct)
	}
	fn := ag.Fn
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		kids := f.kidsOf(child)
		if grouped && f.group != nil {
			kids = f.group.members
		}
		var acc num
		var best attr.Value
		found := false
		count := int64(0)
		for _, k := range kids {
			if !g.holds(k, where) {
				continue
			}
			count++
			if fn == "count" {
				continue
			}
			v, ok := g.get(k, val)
			if !ok {
				continue
			}
			switch fn {
			case "sum":
				x, ok := parseNum(v.Str)
				if ok {
					acc = acc.add(x)
				}
			case "min", "max":
				if !found {
					best = v
				} else if c, ok := attr.Compare(v, best); ok && (fn == "min" && c < 0 || fn == "max" && c > 0) {
					best = v
				}
			}
			found = true
		}
		switch fn {
		case "count":
			return g.num(count), true
		case "sum":
			return g.numValue(acc), true
		}
		return best, found
	}, nil, true, nil
}

// bandGen compiles a band. When the band reads the days from a date of
// the item that has no rule of its own, the date is drawn from the band
// instead: the value first (by the attribute's weights), then a date
// inside its range, so the declared shares hold exactly.
func (p *Population) bandGen(n *Node, s *slot, b *catalog.Band) (genFn, []name, bool, error) {
	ranges := b.Ranges
	bandOf := func(x float64) (string, bool) {
		for _, rg := range ranges {
			if x >= rg.Lo && x <= rg.Hi {
				return rg.Value, true
			}
		}
		return "", false
	}
	if b.Value != "" {
		nm, ok := p.resolve(n, b.Value)
		if !ok {
			return nil, nil, false, fmt.Errorf("%s is not in scope", b.Value)
		}
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			v, ok := g.get(f, nm)
			if !ok {
				return attr.Value{}, false
			}
			x, _ := parseNum(v.Str)
			bv, ok := bandOf(x.toFloat())
			return attr.Str(bv), ok
		}, []name{nm}, false, nil
	}
	names := make([]name, 2)
	for i, d := range b.Days {
		nm, ok := p.resolve(n, d)
		if !ok {
			return nil, nil, false, fmt.Errorf("%s is not in scope", d)
		}
		names[i] = nm
	}
	// Drawn backwards: the source date is an own slot without a rule.
	src := -1
	for i, nm := range names {
		if nm.up == 0 && nm.builtin == 0 && n.comp.slots[nm.slot].a != nil && (n.Rules == nil || n.Rules.Rules[nm.text] == nil) {
			other := names[1-i]
			if other.builtin == bAsOf || other.up != 0 {
				src = i
			}
		}
	}
	units := []string{p.unitOf(n, names[0]), p.unitOf(n, names[1])}
	days := func(g *gen, f *frame) (float64, bool) {
		var ts [2]time.Time
		for i, nm := range names {
			t, ok := g.timeOf(f, nm, units[i])
			if !ok {
				return 0, false
			}
			ts[i] = t
		}
		return civilDays(ts[0], ts[1]), true
	}
	if src < 0 {
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			d, ok := days(g, f)
			if !ok {
				return attr.Value{}, false
			}
			bv, ok := bandOf(d)
			return attr.Str(bv), ok
		}, names, false, nil
	}
	// The band value is drawn by the attribute's weights; the source slot
	// is rewired to a date inside the drawn value's range.
	bandSlot := n.comp.byName[s.name]
	dom := make([]string, len(ranges))
	for i, rg := range ranges {
		dom[i] = rg.Value
	}
	w := weights(s.dist, dom, 0, nil)
	if w == nil {
		w = weights(nil, dom, 0, nil)
	}
	cum := cumulative(w)
	srcSlot := n.comp.slots[names[src].slot]
	other := names[1-src]
	forward := src == 0 // days = other - src: src = other - days
	srcUnit := srcSlot.unit
	srcGen := func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		bv, ok := g.slotValue(f, bandSlot)
		if !ok {
			return attr.Value{}, false
		}
		var rg catalog.BandRange
		for _, x := range ranges {
			if x.Value == bv.Str {
				rg = x
			}
		}
		d := r.Range(int64(math.Ceil(rg.Lo)), int64(math.Floor(rg.Hi)))
		base, ok := g.timeOf(f, other, p.unitOf(n, other))
		if !ok {
			return attr.Value{}, false
		}
		if forward {
			d = -d
		}
		_ = srcUnit
		return g.dateValue(base.AddDate(0, 0, int(d)), srcSlot), true
	}
	srcDeps := []name{{slot: bandSlot, text: s.name}}
	if other.builtin == 0 {
		srcDeps = append(srcDeps, other)
	}
	n.comp.rewires = append(n.comp.rewires, func() {
		srcSlot.gen, srcSlot.deps, srcSlot.rule = srcGen, srcDeps, "band (drawn backwards)"
	})
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		return attr.Str(dom[pick(cum, r.Float())]), true
	}, nil, false, nil
}

// civilDays is the number of civil days from a to b.
func civilDays(a, b time.Time) float64 {
	ad := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	bd := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return math.Round(bd.Sub(ad).Hours() / 24)
}

func (p *Population) formatGen(n *Node, s *slot, format string) (genFn, []name, bool, error) {
	br := p.Model.Dataset != nil && p.Model.Dataset.Locale == "pt_BR"
	switch format {
	case "cpf", "cpfDigits", "cnpj":
		// Unique by construction where the item has an ordinal: a
		// bijection of the ordinal onto the nine (eight) base digits.
		formatted := format != "cpfDigits"
		salt := hashString("doc:" + n.Name() + ":" + s.name)
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			var base uint64
			if f.ord >= 0 {
				base = permute(uint64(f.ord)+salt%1000, 1_000_000_000)
			} else {
				base = uint64(r.Intn(1_000_000_000))
			}
			var b []byte
			if format == "cnpj" {
				b = appendCNPJ(g.scratch[:0], base%100_000_000, r.Intn(4))
			} else {
				b = appendCPF(g.scratch[:0], base, formatted)
			}
			return attr.Str(g.keepBytes(b)), true
		}, nil, false, nil
	case "pixTxid":
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return attr.Str(g.keepBytes(appendPixTxid(g.scratch[:0], r))), true
		}, nil, false, nil
	case "pixE2E":
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			at := g.pop.AsOf.Add(-time.Duration(r.Intn(90*86400)) * time.Second)
			return attr.Str(g.keepBytes(appendPixE2E(g.scratch[:0], r, at))), true
		}, nil, false, nil
	case "boleto":
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			due := g.pop.AsOf.AddDate(0, 0, int(r.Range(-60, 60)))
			return attr.Str(g.keepBytes(appendBoleto(g.scratch[:0], r, due, r.Range(1000, 500000)))), true
		}, nil, false, nil
	}
	var d *catalog.Domain
	if s.a != nil {
		d = &s.a.Domain
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		more := func(b []byte) []byte { return g.fk.appendFormat(b, format, br, r) }
		return attr.Str(g.keepBytes(fitText(d, more(g.scratch[:0]), more))), true
	}, nil, false, nil
}

// permute is a bijection of [0, m) for m a power of ten (10^9 for the
// base digits of a CPF): an affine map whose multiplier, a prime other
// than 2 and 5, is coprime to m, so distinct ordinals give distinct,
// unordered values.
func permute(x, m uint64) uint64 {
	const a = 179424673
	hi, lo := bits.Mul64(x%m, a%m)
	return (bits.Rem64(hi, lo, m) + 104729) % m
}

// splitGen shares a parent's number among the parent's items of this
// entity: with weights w drawn from the parent's key (every sibling
// computes the same), item k gets the total's share of the weights up to
// and including k less its share up to k, rounded (to whole units for an
// integer, cents for a decimal), the last item the rest: the shares add
// up to the total exactly.
func (p *Population) splitGen(n *Node, s *slot, total string) (genFn, []name, bool, error) {
	nm, ok := p.resolveUp(n, total)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is not a parent's", total)
	}
	salt := hashString("split:" + n.Name() + ":" + s.name)
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		v, ok := g.get(f, nm)
		if !ok {
			return attr.Value{}, false
		}
		x, ok := parseNum(v.Str)
		if !ok {
			return attr.Value{}, false
		}
		nsib := max(f.siblings, 1)
		var key uint64
		if f.parent != nil {
			key = f.parent.key
		}
		ws := newRNG(key2(key, salt))
		var sum, before float64
		for k := int64(0); k < nsib; k++ {
			w := 1 + ws.Float()
			if k < f.index {
				before += w
			}
			sum += w
		}
		ws = newRNG(key2(key, salt))
		upto := 0.0
		for k := int64(0); k <= f.index && k < nsib; k++ {
			upto += 1 + ws.Float()
		}
		scale := 1.0
		if x.float {
			scale = 100
		}
		t := x.toFloat() * scale
		lo := math.Floor(t * before / sum)
		hi := t
		if f.index < nsib-1 {
			hi = math.Floor(t * upto / sum)
		}
		if !x.float {
			return g.num(int64(hi - lo)), true
		}
		return g.numValue(num{f: (hi - lo) / scale, float: true}), true
	}, []name{nm}, false, nil
}

// templateRefs resolves the placeholders of template t in n's scope:
// refs holds one name per part (the zero name for a literal part), deps
// the names read.
func (p *Population) templateRefs(n *Node, t *catalog.KeyTemplate) (refs, deps []name, err error) {
	for _, part := range t.Parts {
		if part.Attr == "" {
			refs = append(refs, name{})
			continue
		}
		nm, ok := p.resolve(n, part.Attr)
		if !ok {
			return nil, nil, fmt.Errorf("placeholder {%s} is not in scope", part.Attr)
		}
		refs = append(refs, nm)
		deps = append(deps, nm)
	}
	return refs, deps, nil
}

// templatedValue compiles a list or map value whose strings hold
// "{name}" templates (a list of the item's external ids); ok is false
// when it holds none.
func (p *Population) templatedValue(n *Node, v attr.Value) (func(*gen, *frame) (attr.Value, bool), []name, bool, error) {
	var deps []name
	var build func(v attr.Value) (func(*gen, *frame) (attr.Value, bool), error)
	any := false
	build = func(v attr.Value) (func(*gen, *frame) (attr.Value, bool), error) {
		switch v.Type {
		case attr.S:
			t, err := catalog.ParseTemplate(v.Str)
			if err != nil || t.IsConstant() {
				return func(*gen, *frame) (attr.Value, bool) { return v, true }, nil
			}
			any = true
			refs, used, err := p.templateRefs(n, t)
			if err != nil {
				return nil, err
			}
			deps = append(deps, used...)
			// A value that is one placeholder keeps the name's type.
			if len(t.Parts) == 1 {
				nm := refs[0]
				return func(g *gen, f *frame) (attr.Value, bool) { return g.get(f, nm) }, nil
			}
			return func(g *gen, f *frame) (attr.Value, bool) {
				s, ok := g.render(f, t, refs, "", false)
				return attr.Str(s), ok
			}, nil
		case attr.L:
			var elems []func(*gen, *frame) (attr.Value, bool)
			for _, e := range v.List {
				b, err := build(e)
				if err != nil {
					return nil, err
				}
				elems = append(elems, b)
			}
			return func(g *gen, f *frame) (attr.Value, bool) {
				out := make([]attr.Value, 0, len(elems))
				for _, b := range elems {
					if x, ok := b(g, f); ok {
						out = append(out, x)
					}
				}
				return attr.ListOf(out...), true
			}, nil
		case attr.M:
			type field struct {
				name string
				b    func(*gen, *frame) (attr.Value, bool)
			}
			var fs []field
			for _, mf := range v.Map {
				b, err := build(mf.Value)
				if err != nil {
					return nil, err
				}
				fs = append(fs, field{mf.Name, b})
			}
			return func(g *gen, f *frame) (attr.Value, bool) {
				start := len(g.fields)
				for _, x := range fs {
					val, ok := x.b(g, f)
					if !ok {
						g.fields = g.fields[:start]
						return attr.Value{}, false // a member without its value: the map is left out
					}
					g.fields = append(g.fields, attr.Field{Name: x.name, Value: val})
				}
				return attr.MapOf(attr.Item(g.fields[start:len(g.fields):len(g.fields)])), true
			}, nil
		}
		return func(*gen, *frame) (attr.Value, bool) { return v, true }, nil
	}
	b, err := build(v)
	if err != nil || !any {
		return nil, nil, false, err
	}
	return b, deps, true, nil
}
