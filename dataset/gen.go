package dataset

import (
	"crypto/cipher"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// maxChildren caps the items one parent item may have of one entity (a
// count read from an attribute could otherwise ask for billions).
const maxChildren = 100_000

// maxRetries is how often an item whose key repeats a sibling's is drawn
// again before it is dropped (and counted).
const maxRetries = 8

// Emit receives every generated item. The item and its strings are only
// valid during the call: they live in the generator's arena.
type Emit func(n *Node, it attr.Item)

// gen generates item trees. One per goroutine: it owns an arena of bytes
// the items' strings point into, reset after each root's tree.
type gen struct {
	pop     *Population
	arena   []byte
	scratch []byte
	fields  []attr.Field
	frames  []*frame
	nframes int
	item    attr.Item
	fk      *faker
	secrets map[string][]byte
	gcm     cipher.AEAD
	emit    Emit
	// emitFrame, when set, takes every item as its frame instead of emit
	// (a run's workers write the item's lines from the slots).
	emitFrame func(f *frame)
	asOfStr   string
	seed      uint64
	ordNext   []int64
	// Dropped counts items left out because their key kept repeating a
	// sibling's, per node index.
	Dropped []int64
	// KeyErrors counts items whose key could not be rendered.
	KeyErrors []int64
	treeKeys  keySet
	rngs      [64]rng
	lastTime  int64 // the instant of the last date value made, for the slot's cache
	// lastNum is the last integer num wrote, lastNumStr its text: a
	// slot's value that is that very text (the same bytes of the arena
	// or of smallNums) is that integer.
	lastNum    int64
	lastNumStr string
	// likes holds the string generators like compiles, by domain and
	// size: a list of thousands of elements compiles its pattern once.
	likes   map[likeKey]genFn
	keyVals []attr.Value
	asOfVal attr.Value // the asOf builtin's value
	depth   int
	// yield: give the processor up every few roots (loads, whose senders
	// share the processors with the generators).
	yield bool
	// observe, when set, sees every value drawn (tests look at the
	// never-stored ones).
	observe func(name string, v attr.Value)
}

// frame is one item being generated.
type frame struct {
	c        *compiled
	parent   *frame
	ref      *frame
	key      uint64
	attempt  uint64
	index    int64
	siblings int64
	ord      int64
	vals     []attr.Value
	times    []int64 // per slot: the instant of a date value, Unix nanoseconds; 0 unknown
	// ints and isInt: per slot, the integer a number's text was written
	// from (by gen.num), so that rules reading it need not parse it.
	ints   []int64
	isInt  []bool
	st     []uint8 // 0 to do, 1 doing, 2 present, 3 absent
	state  int     // chosen state, -1 none, -2 choosing
	kids   [][]*frame
	keyStr []string
	keyOK  bool
	// group holds a group item's key values and members.
	group *groupInst
	// capCounts count the members of each group under this frame, for
	// groups with a max.
	capCounts []capCount
	// bvals are the builtins index, n and siblings as values, made when
	// first read (bset's bits say which).
	bvals [3]attr.Value
	bset  uint8
}

type capCount struct {
	plan *groupPlan
	hash uint64
	n    int
}

// groupInst is one group: its key and the member frames it gathers.
type groupInst struct {
	hash    uint64
	vals    []attr.Value
	members []*frame
}

const (
	stTodo uint8 = iota
	stDoing
	stPresent
	stAbsent
)

func newGen(p *Population, emit Emit) *gen {
	g := &gen{pop: p, emit: emit, fk: newFaker(), secrets: map[string][]byte{},
		asOfStr: p.AsOf.Format("2006-01-02"), seed: mix(p.Opts.Seed ^ 0x5ca1ab1e),
		ordNext: make([]int64, len(p.Nodes)), Dropped: make([]int64, len(p.Nodes)), KeyErrors: make([]int64, len(p.Nodes))}
	g.asOfVal = attr.Str(g.asOfStr)
	g.arena = make([]byte, 0, 1<<16)
	g.treeKeys = newKeySet()
	g.scratch = make([]byte, 0, 256)
	return g
}

// keep copies s into the arena (strings from libraries).
func (g *gen) keep(s string) string { return g.keepBytes([]byte(s)) }

// keepBytes copies b (often g.scratch) into the arena and returns a
// string over it, without allocating.
func (g *gen) keepBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	start := len(g.arena)
	g.arena = append(g.arena, b...)
	return unsafe.String(&g.arena[start], len(b))
}

func (g *gen) num(i int64) attr.Value {
	var s string
	if i >= 0 && i < int64(len(smallNums)) {
		s = smallNums[i]
	} else {
		s = g.keepBytes(strconv.AppendInt(g.scratch[:0], i, 10))
	}
	g.lastNum, g.lastNumStr = i, s
	return attr.Num(s)
}

var smallNums = func() []string {
	s := make([]string, 1024)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func (g *gen) numValue(a num) attr.Value {
	if !a.float {
		return g.num(a.i)
	}
	return attr.Num(g.keepBytes(appendNum(g.scratch[:0], a)))
}

// dateValue writes t in the slot's unit: a civil date, an instant (UTC or
// the model's zone, as the samples write it) or epoch seconds.
func (g *gen) dateValue(t time.Time, s *slot) attr.Value {
	if sec := t.Unix(); sec > calMin/1e9 && sec < calMax/1e9 {
		if v, ok := g.dateNanos(sec*1e9+int64(t.Nanosecond()), s); ok {
			return v
		}
	}
	g.lastTime = t.UnixNano()
	switch s.unit {
	case catalog.UnitEpochSeconds:
		g.lastTime = time.Unix(t.Unix(), 0).UnixNano()
		return g.num(t.Unix())
	case catalog.UnitInstant:
		// What is cached is the instant the text says, to its precision.
		if s.a != nil && s.a.Instant != nil {
			g.lastTime = t.Truncate(s.a.Instant.Resolution()).UnixNano()
			return attr.Str(g.keepBytes(s.a.Instant.AppendFormat(g.scratch[:0], t)))
		}
		var b []byte
		switch {
		case s.inst.local && s.inst.milli:
			b = t.In(g.pop.Loc).AppendFormat(g.scratch[:0], "2006-01-02T15:04:05.000Z07:00")
		case s.inst.local:
			b = t.In(g.pop.Loc).AppendFormat(g.scratch[:0], time.RFC3339)
		case s.inst.milli:
			b = t.UTC().AppendFormat(g.scratch[:0], "2006-01-02T15:04:05.000Z07:00")
		default:
			b = t.UTC().AppendFormat(g.scratch[:0], time.RFC3339)
		}
		if s.inst.milli {
			g.lastTime = t.Truncate(time.Millisecond).UnixNano()
		} else {
			g.lastTime = t.Truncate(time.Second).UnixNano()
		}
		return attr.Str(g.keepBytes(b))
	}
	if s.typ == attr.N {
		return g.num(t.Unix())
	}
	// A civil date is its day: what is cached is the day's midnight, as
	// parsing the text would give.
	lt := t.In(g.pop.Loc)
	g.lastTime = time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, g.pop.Loc).UnixNano()
	return attr.Str(g.keepBytes(lt.AppendFormat(g.scratch[:0], "2006-01-02")))
}

func (g *gen) secret(model, sel string) []byte {
	if s, ok := g.secrets[sel]; ok {
		return s
	}
	s := TestSecret(model, sel)
	g.secrets[string([]byte(sel))] = s
	return s
}

func (g *gen) aead(model string) cipher.AEAD {
	if g.gcm == nil {
		g.gcm = testKey(model)
	}
	return g.gcm
}

// newFrame takes a frame from the pool.
func (g *gen) newFrame(n *Node, parent *frame, key uint64, index, siblings int64) *frame {
	if g.nframes == len(g.frames) {
		g.frames = append(g.frames, &frame{})
	}
	f := g.frames[g.nframes]
	g.nframes++
	c := n.comp
	*f = frame{c: c, parent: parent, key: key, index: index, siblings: siblings, ord: -1, state: -1,
		vals: grow(f.vals, len(c.slots)), times: grow(f.times, len(c.slots)),
		ints: grow(f.ints, len(c.slots)), isInt: grow(f.isInt, len(c.slots)), st: grow(f.st, len(c.slots)),
		kids: grow(f.kids, len(c.kids)), keyStr: f.keyStr[:0], capCounts: f.capCounts[:0]}
	// Values are left as they were: a slot's value is only read once its
	// state says it is present, and set then.
	clear(f.times)
	clear(f.st) // stTodo
	for i := range f.kids {
		f.kids[i] = f.kids[i][:0]
	}
	if c.ordinal {
		f.ord = g.ordNext[n.ix]
		g.ordNext[n.ix]++
	}
	return f
}

// grow returns s with length n, its elements kept where it had them.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// reset releases every frame and the arena, after a root's tree.
func (g *gen) reset() {
	g.nframes = 0
	g.arena = g.arena[:0]
	g.treeKeys.reset()
	g.fields = g.fields[:0]
}

// get reads a name in scope.
func (g *gen) get(f *frame, nm name) (attr.Value, bool) {
	if v := g.ref(f, nm); v != nil {
		return *v, true
	}
	return attr.Value{}, false
}

// ref reads a name in scope without copying its value: a pointer to the
// slot (or to the frame's or the generator's own copy of a builtin),
// nil when absent. The value is not to be changed through it.
func (g *gen) ref(f *frame, nm name) *attr.Value {
	switch nm.builtin {
	case bAsOf:
		return &g.asOfVal
	case bIndex:
		return f.builtin(g, 0, f.index)
	case bN:
		return f.builtin(g, 1, f.index+1)
	case bSiblings:
		return f.builtin(g, 2, f.siblings)
	}
	switch {
	case nm.up == 0:
		return g.slot(f, nm.slot)
	case nm.up < 0:
		if f.ref == nil {
			return nil
		}
		return g.slot(f.ref, nm.slot)
	}
	a := f
	for i := int8(0); i < nm.up && a != nil; i++ {
		a = a.parent
	}
	if a == nil {
		return nil
	}
	return g.slot(a, nm.slot)
}

// refInt is ref, with the integer the value was written from when that
// is known (isInt): a builtin count, or a slot made by gen.num.
func (g *gen) refInt(f *frame, nm name) (v *attr.Value, x int64, isInt bool) {
	switch nm.builtin {
	case bIndex:
		return f.builtin(g, 0, f.index), f.index, true
	case bN:
		return f.builtin(g, 1, f.index+1), f.index + 1, true
	case bSiblings:
		return f.builtin(g, 2, f.siblings), f.siblings, true
	case 0:
		a := f.owner(nm)
		if a == nil {
			return nil, 0, false
		}
		if v = g.slot(a, nm.slot); v == nil {
			return nil, 0, false
		}
		return v, a.ints[nm.slot], a.isInt[nm.slot]
	}
	return g.ref(f, nm), 0, false
}

// builtin is the frame's value of builtin k (index, n, siblings), made
// once: x.
func (f *frame) builtin(g *gen, k int, x int64) *attr.Value {
	if f.bset&(1<<k) == 0 {
		f.bvals[k] = g.num(x)
		f.bset |= 1 << k
	}
	return &f.bvals[k]
}

// slotValue computes (once) and returns a slot of a frame.
func (g *gen) slotValue(f *frame, i int) (attr.Value, bool) {
	if v := g.slot(f, i); v != nil {
		return *v, true
	}
	return attr.Value{}, false
}

// slot computes (once) a slot of a frame and points at its value; nil
// when the item does not carry it.
func (g *gen) slot(f *frame, i int) *attr.Value {
	switch f.st[i] {
	case stPresent:
		return &f.vals[i]
	case stAbsent, stDoing:
		return nil
	}
	f.st[i] = stDoing
	f.isInt[i] = false
	c := f.c
	s := c.slots[i]
	if f.state >= 0 {
		switch c.stateSet[f.state][i] {
		case 1:
			f.vals[i], f.st[i] = c.stateVal[f.state][i], stPresent
			return &f.vals[i]
		case 2:
			f.st[i] = stAbsent
			return nil
		}
	}
	// Presence rules first: outside them the item does not carry the
	// attribute, whatever its rule would give.
	if (len(s.when) > 0 && !g.holds(f, s.when)) || (len(s.unless) > 0 && g.holds(f, s.unless)) {
		f.st[i] = stAbsent
		return nil
	}
	// The slot's stream lives on the generator's stack of streams: a
	// local whose address a rule takes would be allocated on the heap,
	// once per value.
	if g.depth == len(g.rngs) {
		return nil // rules nested deeper than any model needs
	}
	r := &g.rngs[g.depth]
	g.depth++
	*r = newRNG(slotKey(f.key, s, f.attempt))
	g.lastTime = 0
	g.lastNumStr = ""
	v, ok := s.gen(g, f, r)
	g.depth--
	if ok && v.Type == attr.N && len(v.Str) == len(g.lastNumStr) && len(v.Str) > 0 && unsafe.StringData(v.Str) == unsafe.StringData(g.lastNumStr) {
		f.ints[i], f.isInt[i] = g.lastNum, true
	}
	if ok && g.lastTime != 0 && (v.Type == attr.S || (v.Type == attr.N && s.unit == catalog.UnitEpochSeconds)) {
		f.times[i] = g.lastTime
	}
	g.lastTime = 0
	if ok && s.tossed {
		cr := newRNG(key2(f.key, s.coin^f.attempt))
		if s.odds == 0.5 {
			ok = cr.Uint64()&1 == 0
		} else {
			ok = cr.Float() < s.odds
		}
	}
	if !ok {
		f.st[i] = stAbsent
		return nil
	}
	f.vals[i], f.st[i] = v, stPresent
	if g.observe != nil {
		g.observe(s.name, v)
	}
	return &f.vals[i]
}

// ruled reports whether the model gives the slot a rule (then the rule
// decides its presence, not a coin).
func ruled(er *catalog.EntityRules, s *slot) bool {
	if er == nil {
		return false
	}
	if _, ok := er.Rules[s.name]; ok {
		return true
	}
	for _, st := range er.States {
		if _, ok := st.Set[s.name]; ok {
			return true
		}
		for _, a := range st.Absent {
			if a == s.name {
				return true
			}
		}
	}
	return false
}

// holds evaluates a condition on a frame.
func (g *gen) holds(f *frame, terms []cterm) bool {
	for i := range terms {
		t := &terms[i]
		v := g.ref(f, t.n)
		ok := v != nil
		if t.code == opExists {
			if ok != t.args[0].lit.Bool {
				return false
			}
			continue
		}
		if !ok {
			if t.code == opNe {
				continue
			}
			return false
		}
		if t.code == opIn {
			in := false
			for _, a := range t.args {
				if w := g.opRef(f, a); w != nil && equal(v, w) {
					in = true
					break
				}
			}
			if !in {
				return false
			}
			continue
		}
		w := g.opRef(f, t.args[0])
		if w == nil {
			return false
		}
		var cmp int
		if t.code == opEq || t.code == opNe {
			if !equal(v, w) {
				cmp = 1
			}
		} else {
			c, ok := compare(v, w)
			if !ok {
				return false
			}
			cmp = c
		}
		switch t.code {
		case opEq:
			if cmp != 0 {
				return false
			}
		case opNe:
			if cmp == 0 {
				return false
			}
		case opLt:
			if cmp >= 0 {
				return false
			}
		case opLe:
			if cmp > 0 {
				return false
			}
		case opGt:
			if cmp <= 0 {
				return false
			}
		case opGe:
			if cmp < 0 {
				return false
			}
		}
	}
	return true
}

// equal is attr.Equal, without its numbers' decimal parse when both are
// plain integers (the commonest case: counts, cents, days), whose text is
// equal exactly when their values are.
func equal(a, b *attr.Value) bool {
	if a.Type == attr.S && b.Type == attr.S {
		return a.Str == b.Str
	}
	if a.Type == attr.N && b.Type == attr.N && plainInt(a.Str) && plainInt(b.Str) {
		return a.Str == b.Str
	}
	return attr.Equal(*a, *b)
}

// compare is attr.Compare, plain integers compared by length and then
// digits.
func compare(a, b *attr.Value) (int, bool) {
	if a.Type == attr.N && b.Type == attr.N && plainInt(a.Str) && plainInt(b.Str) {
		if len(a.Str) != len(b.Str) {
			if len(a.Str) < len(b.Str) {
				return -1, true
			}
			return 1, true
		}
		return strings.Compare(a.Str, b.Str), true
	}
	return attr.Compare(*a, *b)
}

// plainInt reports whether s is a non-negative integer's decimal text
// with no leading zero.
func plainInt(s string) bool {
	if len(s) == 0 || len(s) > 38 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (g *gen) opValue(f *frame, o operand) (attr.Value, bool) {
	if v := g.opRef(f, o); v != nil {
		return *v, true
	}
	return attr.Value{}, false
}

// opRef is opValue without the copy (nil when absent).
func (g *gen) opRef(f *frame, o operand) *attr.Value {
	if o.lit != nil {
		return o.lit
	}
	if o.n != nil {
		return g.ref(f, *o.n)
	}
	return nil
}

// numOf reads a numeric operand; a range draws from r.
func (g *gen) numOf(f *frame, o *operand, r *rng) (num, bool) {
	switch {
	case o.lo != nil:
		lo, ok1 := g.numOf(f, o.lo, r)
		hi, ok2 := g.numOf(f, o.hi, r)
		if !ok1 || !ok2 {
			return num{}, false
		}
		return intNum(r.Range(lo.int(), hi.int())), true
	case o.lit != nil:
		if o.litParsed {
			return o.litNum, o.litOK
		}
		return parseNum(o.lit.Str)
	case o.n != nil:
		v, x, isInt := g.refInt(f, *o.n)
		if v == nil || v.Type != attr.N {
			return num{}, false
		}
		if isInt {
			return intNum(x), true
		}
		return parseNum(v.Str)
	}
	return num{}, false
}

// render fills a template from names in scope into the arena. In a key,
// a string holding the separator is refused (the key would be
// ambiguous), as catalog.KeyTemplate.RenderSep refuses it.
//
// The values are all read before the first byte is written: reading one
// may compute it (a slot is computed when first read), and computing it
// may write g.scratch, which the rendering writes into.
func (g *gen) render(f *frame, t *catalog.KeyTemplate, refs []name, sep string, key bool) (string, bool) {
	var arr [8]partValue
	vals, ok := g.partValues(f, t, refs, arr[:0])
	if !ok {
		return "", false
	}
	b := g.scratch[:0]
	for i, part := range t.Parts {
		if part.Attr == "" {
			b = append(b, part.Literal...)
			continue
		}
		v, x, isInt := vals[i].v, vals[i].x, vals[i].isInt
		switch v.Type {
		case attr.S:
			if part.Width > 0 {
				return "", false
			}
			if key && sep != "" && strings.Contains(v.Str, sep) {
				return "", false
			}
			b = append(b, v.Str...)
		case attr.N:
			if part.Width == 0 {
				b = append(b, v.Str...)
				break
			}
			if !isInt || x < 0 {
				u, err := strconv.ParseUint(v.Str, 10, 64)
				if err != nil {
					return "", false
				}
				x = int64(u)
			}
			start := len(b)
			b = appendPadded(b, int64(x), part.Width)
			if len(b)-start > part.Width {
				return "", false
			}
		default:
			return "", false
		}
	}
	g.scratch = b[:0]
	return g.keepBytes(b), true
}

// partValue is a placeholder's value as refInt reads it.
type partValue struct {
	v     *attr.Value
	x     int64
	isInt bool
}

// partValues reads the value of every placeholder of t (none at each
// literal part), before anything is written into g.scratch.
func (g *gen) partValues(f *frame, t *catalog.KeyTemplate, refs []name, vals []partValue) ([]partValue, bool) {
	for i, part := range t.Parts {
		if part.Attr == "" {
			vals = append(vals, partValue{})
			continue
		}
		v, x, isInt := g.refInt(f, refs[i])
		if v == nil {
			return nil, false
		}
		vals = append(vals, partValue{v, x, isInt})
	}
	return vals, true
}

// likeKey names a string generator of like: a domain and a size.
type likeKey struct {
	d    *catalog.Domain
	size int
}

// like draws a value shaped like a sample: maps keep their keys, lists
// their length; booleans and numbers are drawn again (inside the member's
// domain when the attribute declares one), strings kept.
func (g *gen) like(v attr.Value, d *catalog.Domain, r *rng) attr.Value {
	switch v.Type {
	case attr.BOOL:
		return attr.Bool(r.Uint64()&1 == 1)
	case attr.N:
		x, ok := parseNum(v.Str)
		if !ok || x.float {
			return v
		}
		hi := max(x.i*2, 10)
		if d == nil {
			return g.num(r.Range(0, hi))
		}
		lo, fhi, _ := numBounds(d, 0, float64(hi))
		return g.numberIn(r, lo, fhi, true)
	case attr.S:
		if d != nil && (d.Pattern != nil || len(d.Enum) > 0) {
			// A member with a domain of its own: drawn from it (skus of a
			// pattern, not the sample's one sku again).
			if len(d.Enum) > 0 {
				return attr.Str(d.Enum[r.Intn(int64(len(d.Enum)))])
			}
			k := likeKey{d, len(v.Str)}
			sg := g.likes[k]
			if sg == nil {
				if g.likes == nil {
					g.likes = map[likeKey]genFn{}
				}
				sg = stringGen(d, alnum, len(v.Str))
				g.likes[k] = sg
			}
			x, _ := sg(g, nil, r)
			return x
		}
		return v
	case attr.M:
		start := len(g.fields)
		for _, f := range v.Map {
			var md *catalog.Domain
			if d != nil {
				for i := range d.Fields {
					if d.Fields[i].Name == f.Name {
						md = &d.Fields[i].Domain
					}
				}
			}
			g.fields = append(g.fields, attr.Field{Name: f.Name, Value: g.like(f.Value, md, r)})
		}
		return attr.MapOf(attr.Item(g.fields[start:len(g.fields):len(g.fields)]))
	case attr.L:
		var ed *catalog.Domain
		if d != nil && d.Items != nil {
			ed = &d.Items.Domain
		}
		out := make([]attr.Value, len(v.List))
		for i, e := range v.List {
			out[i] = g.like(e, ed, r)
		}
		return attr.ListOf(out...)
	}
	return v
}

// chooseState picks the frame's state.
func (g *gen) chooseState(f *frame) {
	c := f.c
	f.state = -1
	if len(c.states) == 0 {
		return
	}
	if c.cumState != nil {
		r := newRNG(key2(key2(f.key, 0x57a7e), f.attempt))
		f.state = pick(c.cumState, r.Float())
		return
	}
	f.state = -2
	for i, st := range c.states {
		terms := c.stateTerms(i, st)
		if g.holds(f, terms) {
			f.state = i
			break
		}
	}
	if f.state == -2 {
		f.state = -1
	}
	// Slots computed while choosing did not see the state: compute them
	// again.
	for i := range f.st {
		f.st[i] = stTodo
	}
}

// run generates one item and its subtree; it reports false when the item
// is dropped.
func (g *gen) run(f *frame) bool {
	c := f.c
	n := c.node
	for {
		if c.ref != nil && c.ref.root {
			g.pickRoot(f)
		}
		// A reference matched on the item's own values is chosen again
		// when a retry draws them again.
		if c.ref != nil && len(c.ref.match) > 0 && f.attempt > 0 && !g.pickRef(f) {
			g.Dropped[n.ix]++
			return false
		}
		g.chooseState(f)
		for i, s := range c.slots {
			if !s.late {
				g.slot(f, i)
			}
		}
		if !g.renderKeys(f) {
			g.KeyErrors[n.ix]++
			return false
		}
		if g.capsAllow(f, false) && g.uniqueInTree(f) {
			g.capsAllow(f, true)
			break
		}
		f.attempt++
		if f.attempt >= maxRetries {
			g.Dropped[n.ix]++
			return false
		}
		for i := range f.st {
			f.st[i] = stTodo
		}
	}
	for ci, kn := range c.kids {
		kc := kn.comp
		if len(kc.when) > 0 && !g.holds(f, kc.when) {
			continue
		}
		if kc.group != nil {
			groups := g.groups(f, kc.group)
			for k, gi := range groups {
				cf := g.newFrame(kn, f, key2(key2(f.key, kn.id), uint64(k)), int64(k), int64(len(groups)))
				cf.group = gi
				if g.run(cf) && kc.retain {
					f.kids[ci] = append(f.kids[ci], cf)
				}
			}
			continue
		}
		var cnt int64
		if kn.Count.Kind == CountAttr {
			v, ok := g.get(f, kc.count)
			if ok {
				x, _ := parseNum(v.Str)
				cnt = x.int()
			}
		} else {
			r := newRNG(key2(f.key, kn.id^0xc0c0))
			cnt = kn.Count.draw(&r)
		}
		cnt = min(max(cnt, 0), maxChildren)
		for k := int64(0); k < cnt; k++ {
			cf := g.newFrame(kn, f, key2(key2(f.key, kn.id), uint64(k)), k, cnt)
			if kc.ref != nil && !kc.ref.root && !g.pickRef(cf) {
				continue
			}
			if g.run(cf) && kc.retain {
				f.kids[ci] = append(f.kids[ci], cf)
			}
		}
	}
	for _, i := range c.late {
		g.slot(f, i)
	}
	if n.Entity.Table != nil {
		g.emitItem(f)
	}
	return true
}

// kidsOf returns the retained child frames of node n.
func (f *frame) kidsOf(n *Node) []*frame {
	for i, k := range f.c.kids {
		if k == n {
			return f.kids[i]
		}
	}
	return nil
}

// pickRef chooses the item's reference among the matching items under
// the common ancestor; false when none matches (the item is not made).
func (g *gen) pickRef(f *frame) bool {
	rp := f.c.ref
	a := f
	for i := 0; i < rp.up && a != nil; i++ {
		a = a.parent
	}
	if a == nil {
		return false
	}
	cands := []*frame{a}
	for _, step := range rp.path {
		var next []*frame
		for _, x := range cands {
			next = append(next, x.kidsOf(step)...)
		}
		cands = next
	}
	own := g.matchValues(f)
	var ok []*frame
	for _, x := range cands {
		if g.holds(x, rp.where) && (own == nil || g.matchHolds(x, rp.match, own)) {
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return false
	}
	r := newRNG(key2(f.key, 0x4ef))
	f.ref = ok[r.Intn(int64(len(ok)))]
	return true
}

// matchValues reads the item's own values a reference is matched on,
// before the reference exists (its state chosen, then forgotten so that
// run computes every slot again, the reference in place); nil when the
// reference has no match.
func (g *gen) matchValues(f *frame) []*attr.Value {
	rp := f.c.ref
	if len(rp.match) == 0 {
		return nil
	}
	f.ref = nil
	g.chooseState(f)
	own := make([]*attr.Value, len(rp.match))
	for i, m := range rp.match {
		if v := g.ref(f, m[1]); v != nil {
			c := *v
			own[i] = &c
		}
	}
	for i := range f.st {
		f.st[i] = stTodo
	}
	return own
}

// pickRoot points the item's reference at a root item of another tree:
// index j of the root entity's whole population (whatever --part the run
// makes), drawn from the item's stream (again at each attempt, so that a
// key the reference makes repeat is drawn anew). The root's frame is
// made as root makes it and its values are computed on demand, each a
// function of the seed and of j alone: the same values the root's own
// item carries.
func (g *gen) pickRoot(f *frame) {
	t := f.c.ref.target
	f.ref = nil
	if t.Total <= 0 {
		return
	}
	r := newRNG(key2(key2(f.key, 0x4ef), f.attempt))
	f.ref = g.rootFrame(t, r.Intn(t.Total))
}

// rootFrame is the frame of root index i of r, its state chosen, as root
// and run make it, for reading its values without generating its tree.
func (g *gen) rootFrame(r *Node, i int64) *frame {
	next := g.ordNext[r.ix]
	f := g.newFrame(r, nil, g.pop.rootKey(r, i), i, r.Total)
	g.ordNext[r.ix] = next
	f.ord = i
	if len(r.EachValues) > 0 {
		per := max(r.Count.N, 1)
		f.index, f.siblings = i%per, per
	}
	g.chooseState(f)
	return f
}

// renderKeys renders the item's table keys into the frame.
func (g *gen) renderKeys(f *frame) bool {
	c := f.c
	f.keyStr = f.keyStr[:0]
	for _, k := range c.keys {
		s, ok := g.render(f, k.tmpl, k.refs, g.pop.Model.Separator, true)
		if !ok {
			return false
		}
		f.keyStr = append(f.keyStr, s)
	}
	return true
}

// uniqueInTree records the item's key among the keys of its root's
// tree (an item collection spans cousins: two contracts' contacts share
// their debtor's partition), and reports false when an item of the tree
// already has it.
func (g *gen) uniqueInTree(f *frame) bool {
	if f.c.node.Entity.Table == nil {
		return true
	}
	h := f.c.tableKey
	for _, s := range f.keyStr {
		h = key2(h, hashString(s))
	}
	return g.treeKeys.add(h)
}

// keySet is a set of key hashes emptied after every root's tree: open
// addressing over a table reused from tree to tree, a slot belonging to
// the current tree when its stamp is the tree's (emptying it is one
// increment, not a clear of a map).
type keySet struct {
	keys   []uint64
	stamps []uint32
	stamp  uint32
	n      int
}

func newKeySet() keySet {
	return keySet{keys: make([]uint64, 256), stamps: make([]uint32, 256), stamp: 1}
}

// add inserts h and reports whether it was new.
func (s *keySet) add(h uint64) bool {
	if 2*(s.n+1) > len(s.keys) {
		s.grow()
	}
	mask := uint64(len(s.keys) - 1)
	for i := mix(h) & mask; ; i = (i + 1) & mask {
		if s.stamps[i] != s.stamp {
			s.keys[i], s.stamps[i] = h, s.stamp
			s.n++
			return true
		}
		if s.keys[i] == h {
			return false
		}
	}
}

func (s *keySet) grow() {
	old, oldStamps := s.keys, s.stamps
	s.keys, s.stamps = make([]uint64, 2*len(old)), make([]uint32, 2*len(old))
	s.n = 0
	for i, k := range old {
		if oldStamps[i] == s.stamp {
			s.add(k)
		}
	}
}

// reset empties the set.
func (s *keySet) reset() {
	s.n = 0
	s.stamp++
	if s.stamp == 0 {
		clear(s.stamps)
		s.stamp = 1
	}
}

// emitItem builds the item's attributes in name order and hands it over.
func (g *gen) emitItem(f *frame) {
	if g.emitFrame != nil {
		g.emitFrame(f)
		return
	}
	c := f.c
	it := g.item[:0]
	for _, of := range c.out {
		switch of.kind {
		case 0:
			if f.st[of.slot] == stPresent {
				it = append(it, attr.Field{Name: of.name, Value: f.vals[of.slot]})
			}
		case 1:
			k := c.keys[of.key]
			if len(k.tmpl.Parts) == 1 && k.tmpl.Parts[0].Attr != "" {
				// A key of one placeholder keeps the value's type.
				if v, ok := g.slotValue(f, k.refs[0].slot); ok && v.Type != attr.S {
					it = append(it, attr.Field{Name: of.name, Value: v})
					continue
				}
			}
			it = append(it, attr.Field{Name: of.name, Value: attr.Str(f.keyStr[of.key])})
		case 2:
			it = append(it, attr.Field{Name: of.name, Value: attr.Str(c.node.Entity.TypeValue)})
		}
	}
	g.item = it
	g.emit(c.node, it)
}

// groupKey computes a member's group key under a plan: the values of its
// by attributes, converted to the group's (an instant gives its civil
// day), and their hash; ok is false when a value is missing.
func (g *gen) groupKey(m *frame, gp *groupPlan, vals []attr.Value) ([]attr.Value, uint64, bool) {
	h := uint64(0x9e3779b97f4a7c15)
	for _, b := range gp.by {
		v, ok := g.get(m, b.from)
		if !ok {
			return vals, 0, false
		}
		if b.date && b.fromU != catalog.UnitCivilDate {
			t, ok := g.pop.parseTime(v, b.fromU)
			if !ok {
				return vals, 0, false
			}
			v = attr.Str(g.keepBytes(t.In(g.pop.Loc).AppendFormat(g.scratch[:0], "2006-01-02")))
		}
		vals = append(vals, v)
		h = key2(h, hashString(v.Str)^uint64(v.Type))
	}
	return vals, h, true
}

// capsAllow reports whether a member item keeps every group it joins
// within the group's max; with add, it counts the item in.
func (g *gen) capsAllow(f *frame, add bool) bool {
	for _, gp := range f.c.caps {
		if gp.max <= 0 {
			continue
		}
		a := f
		for i := 0; i < gp.up && a != nil; i++ {
			a = a.parent
		}
		if a == nil {
			continue
		}
		var h uint64
		var ok bool
		g.keyVals, h, ok = g.groupKey(f, gp, g.keyVals[:0])
		if !ok {
			continue
		}
		j := -1
		for i := range a.capCounts {
			if a.capCounts[i].plan == gp && a.capCounts[i].hash == h {
				j = i
			}
		}
		switch {
		case !add && j >= 0 && a.capCounts[j].n >= gp.max:
			return false
		case add && j >= 0:
			a.capCounts[j].n++
		case add:
			a.capCounts = append(a.capCounts, capCount{plan: gp, hash: h, n: 1})
		}
	}
	return true
}

// groups gathers the members under f into groups, by key, in the order of
// their key values; with days, only the recent ones.
func (g *gen) groups(f *frame, gp *groupPlan) []*groupInst {
	cands := []*frame{f}
	for _, step := range gp.path {
		var next []*frame
		for _, x := range cands {
			next = append(next, x.kidsOf(step)...)
		}
		cands = next
	}
	var out []*groupInst
	var since string
	if gp.days > 0 {
		since = g.pop.AsOf.AddDate(0, 0, -gp.days).Format("2006-01-02")
	}
	for _, m := range cands {
		vals, h, ok := g.groupKey(m, gp, nil)
		if !ok {
			continue
		}
		if since != "" {
			recent := false
			for i, b := range gp.by {
				if b.date && vals[i].Str >= since && vals[i].Str < g.asOfStr {
					recent = true
				}
			}
			if !recent {
				continue
			}
		}
		var gi *groupInst
		for _, x := range out {
			if x.hash == h {
				gi = x
			}
		}
		if gi == nil {
			gi = &groupInst{hash: h, vals: vals}
			out = append(out, gi)
		}
		gi.members = append(gi.members, m)
	}
	sort.Slice(out, func(i, j int) bool {
		for k := range out[i].vals {
			if c, ok := attr.Compare(out[i].vals[k], out[j].vals[k]); ok && c != 0 {
				return c < 0
			}
		}
		return out[i].hash < out[j].hash
	})
	return out
}

// timeOf reads a name in scope as a time: from the slot's cache when the
// value was made as a date here, else parsed.
func (g *gen) timeOf(f *frame, nm name, unit string) (time.Time, bool) {
	if nm.builtin == bAsOf {
		return g.pop.AsOf, true
	}
	v, ok := g.get(f, nm)
	if !ok {
		return time.Time{}, false
	}
	if nm.builtin == 0 {
		if a := f.owner(nm); a != nil && a.times[nm.slot] != 0 {
			return time.Unix(0, a.times[nm.slot]).In(g.pop.Loc), true
		}
	}
	return g.pop.parseTime(v, unit)
}

// dateNanos is dateValue by the calendar, for an instant in Unix
// nanoseconds; false when the calendar cannot write it (outside the
// zone's period), for the time package to.
func (g *gen) dateNanos(ns int64, s *slot) (attr.Value, bool) {
	c := &g.pop.cal
	switch s.unit {
	case catalog.UnitEpochSeconds:
		sec := floorDiv(ns, 1e9)
		g.lastTime = sec * 1e9
		return g.num(sec), true
	case catalog.UnitInstant:
		if s.a != nil && s.a.Instant != nil {
			if !s.instFast {
				return attr.Value{}, false
			}
			res := int64(1e9)
			for range s.instDigits {
				res /= 10
			}
			g.lastTime = floorDiv(ns, res) * res
			zone := byte('-')
			if s.instZ {
				zone = 'z'
			}
			return attr.Str(g.keepBytes(appendStamp(g.scratch[:0], ns, s.instOff, s.instDigits, zone))), true
		}
		var off int64
		if s.inst.local {
			if !c.in(ns) {
				return attr.Value{}, false
			}
			off = c.off
		}
		digits, res := 0, int64(1e9)
		if s.inst.milli {
			digits, res = 3, 1e6
		}
		g.lastTime = floorDiv(ns, res) * res
		return attr.Str(g.keepBytes(appendStamp(g.scratch[:0], ns, off, digits, 'Z'))), true
	}
	if s.typ == attr.N {
		g.lastTime = ns
		return g.num(floorDiv(ns, 1e9)), true
	}
	if !c.in(ns) {
		return attr.Value{}, false
	}
	day, _ := c.localDay(ns)
	g.lastTime = c.midnight(day)
	return attr.Str(g.keepBytes(appendDay(g.scratch[:0], day))), true
}

// nanosOf reads a name in scope as an instant in Unix nanoseconds, when
// that needs no time package: the slot's cache, or a civil date's text in
// the calendar's period; false otherwise (timeOf then reads it).
func (g *gen) nanosOf(f *frame, nm name) (int64, bool) {
	if nm.builtin == bAsOf {
		return g.pop.AsOf.UnixNano(), true
	}
	v := g.ref(f, nm)
	if v == nil || nm.builtin != 0 {
		return 0, false
	}
	if a := f.owner(nm); a != nil && a.times[nm.slot] != 0 {
		return a.times[nm.slot], true
	}
	if v.Type == attr.S && len(v.Str) == 10 {
		if day, ok := parseDay(v.Str); ok {
			if ns := g.pop.cal.midnight(day); g.pop.cal.in(ns) {
				return ns, true
			}
		}
	}
	return 0, false
}

// owner is the frame whose slot a name reads: f, an ancestor or the
// reference; nil when there is none.
func (f *frame) owner(nm name) *frame {
	if nm.up < 0 {
		return f.ref
	}
	a := f
	for i := int8(0); i < nm.up && a != nil; i++ {
		a = a.parent
	}
	return a
}
