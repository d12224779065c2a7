package dataset

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// Defaults: how an attribute is drawn when the model says no more than
// its dictionary entry. Each choice keeps the value inside the
// attribute's domain and gives keys that are unique where they must be.

// keyIntroduced reports whether the attribute is a placeholder of the
// entity's key templates that its parents do not carry: the attribute
// that tells the entity's items apart.
func (p *Population) keyIntroduced(n *Node, nm string) bool {
	return n.keys[nm] && !p.inherited(n, nm)
}

// inRootPartition reports whether a root's attribute is a placeholder of
// its partition key template: the attribute whose skew places the items.
func (p *Population) inRootPartition(n *Node, nm string) bool {
	if n.Parent != nil || len(n.Entity.Key) == 0 {
		return false
	}
	for _, ph := range n.Entity.Key[0].Template.Placeholders() {
		if ph == nm {
			return true
		}
	}
	return false
}

// unique reports whether the attribute's values must tell items apart:
// it is introduced by the entity's key and the dictionary does not give
// it fewer distinct values than the entity has items.
func (p *Population) unique(n *Node, a *catalog.Attribute) bool {
	if !p.keyIntroduced(n, a.Name) || len(a.Enum) > 0 {
		return false
	}
	if a.Cardinality <= 0 {
		return true
	}
	items := p.declaredTotal(n)
	return items < 0 || float64(a.Cardinality) >= items
}

func (p *Population) distGen(n *Node, s *slot, d *catalog.Distribution) (genFn, []name, bool, string, error) {
	a := s.a
	if d == nil {
		return p.defaultGen(n, s)
	}
	f64 := func(x *float64, def float64) float64 {
		if x == nil {
			return def
		}
		return *x
	}
	switch d.Kind {
	case "constant":
		v, err := constValue(d.Value, s.typ)
		if err != nil {
			return nil, nil, false, "", err
		}
		return func(*gen, *frame, *rng) (attr.Value, bool) { return v, true }, nil, false, "constant", nil
	case "sequence":
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			if s.typ == attr.S {
				return attr.Str(g.keepBytes(strconv.AppendInt(g.scratch[:0], f.index+1, 10))), true
			}
			return g.num(f.index + 1), true
		}, nil, false, "sequence", nil
	case "uniform", "normal":
		lo, hi := f64(d.Min, 0), f64(d.Max, 1000)
		integral := lo == math.Trunc(lo) && hi == math.Trunc(hi) && s.unit != "ratio"
		mean, sd := f64(d.Mean, (lo+hi)/2), f64(d.Stddev, (hi-lo)/6)
		normal := d.Kind == "normal"
		var dom *catalog.Domain
		if a != nil {
			dom = &a.Domain
			lo, hi, _ = numBounds(dom, lo, hi)
			integral = integral || dom.Integer
		}
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			if normal {
				x := mean + sd*r.Normal()
				if d.Min != nil {
					x = math.Max(x, lo)
				}
				if d.Max != nil {
					x = math.Min(x, hi)
				}
				if dom != nil {
					x = clampNum(dom, x)
				}
				if integral {
					return g.num(int64(math.Round(x))), true
				}
				return g.numValue(num{f: math.Round(x*100) / 100, float: true}), true
			}
			return g.numberIn(r, lo, hi, integral), true
		}, nil, false, d.Kind, nil
	case "dateRange":
		from, err1 := time.ParseInLocation("2006-01-02", d.From, p.Loc)
		to, err2 := time.ParseInLocation("2006-01-02", d.To, p.Loc)
		if err1 != nil || err2 != nil || to.Before(from) {
			return nil, nil, false, "", fmt.Errorf("dateRange %s..%s is not a range of civil dates", d.From, d.To)
		}
		span := int64(civilDays(from, to))
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			t := from.AddDate(0, 0, int(r.Range(0, span)))
			if s.unit == catalog.UnitInstant || s.unit == catalog.UnitEpochSeconds {
				t = t.Add(time.Duration(r.Intn(86400)) * time.Second)
			}
			return g.dateValue(t, s), true
		}, nil, false, "dateRange", nil
	case "pattern":
		return p.patternGen(n, s, d.Pattern)
	case "weighted", "zipf":
		return p.domainGen(n, s, d)
	}
	_ = a
	return nil, nil, false, "", fmt.Errorf("unknown distribution %q", d.Kind)
}

func constValue(v any, t attr.Type) (attr.Value, error) {
	switch x := v.(type) {
	case string:
		return scalarOf(t, x), nil
	case float64:
		return attr.Num(strconv.FormatFloat(x, 'f', -1, 64)), nil
	case bool:
		return attr.Bool(x), nil
	case nil:
		return attr.Value{}, fmt.Errorf("constant needs a value")
	}
	return attr.Str(fmt.Sprint(v)), nil
}

// patternGen renders a value pattern: {n} is the item's ordinal among all
// the entity's items (unique) when the attribute is the entity's own key
// part, else the index of a value drawn from the attribute's cardinality;
// {year} the as-of year (earlier years when n outgrows its width); other
// placeholders are names in scope.
func (p *Population) patternGen(n *Node, s *slot, pat string) (genFn, []name, bool, string, error) {
	a := s.a
	t, err := catalog.ParseTemplate(pat)
	if err != nil {
		return nil, nil, false, "", fmt.Errorf("pattern %q: %v", pat, err)
	}
	uniq := a != nil && p.unique(n, a)
	if uniq {
		n.comp.ordinal = true
	}
	width := 0
	var refs []name
	var deps []name
	for _, part := range t.Parts {
		switch part.Attr {
		case "":
			refs = append(refs, name{})
		case "n", "year":
			if part.Attr == "n" {
				width = part.Width
			}
			refs = append(refs, name{})
		default:
			nm, ok := p.resolve(n, part.Attr)
			if !ok {
				return nil, nil, false, "", fmt.Errorf("pattern %q: {%s} is not in scope", pat, part.Attr)
			}
			refs = append(refs, nm)
			deps = append(deps, nm)
		}
	}
	var w []float64
	if !uniq && a != nil && a.Cardinality > 0 && a.Cardinality <= maxDomain {
		w = weights(s.dist, nil, a.Cardinality, a.Skew)
	}
	cum := cumulative(w)
	strat := p.inRootPartition(n, s.name)
	asOfYear := p.AsOf.Year()
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		var k int64
		switch {
		case uniq && f.ord >= 0:
			k = f.ord + 1
		case uniq:
			k = f.index + 1
		case len(cum) > 0 && strat:
			k = int64(pick(cum, (float64(f.index)+0.5)/float64(max(f.siblings, 1)))) + 1
		case len(cum) > 0:
			k = int64(pick(cum, r.Float())) + 1
		case a != nil && a.Cardinality > 0:
			k = r.Intn(a.Cardinality) + 1
		default:
			k = f.index + 1
		}
		year := asOfYear
		if width > 0 {
			span := int64(math.Pow10(width))
			year -= int(k / span)
			k %= span
		}
		// Every other name is read before the first byte is written:
		// reading one may compute it, which may write g.scratch.
		var arr [8]attr.Value
		vals := arr[:0]
		for i, part := range t.Parts {
			var v attr.Value
			if part.Attr != "" && part.Attr != "n" && part.Attr != "year" {
				var ok bool
				if v, ok = g.get(f, refs[i]); !ok {
					return attr.Value{}, false
				}
			}
			vals = append(vals, v)
		}
		b := g.scratch[:0]
		for i, part := range t.Parts {
			switch part.Attr {
			case "":
				b = append(b, part.Literal...)
			case "n":
				b = appendPadded(b, k, part.Width)
			case "year":
				b = strconv.AppendInt(b, int64(year), 10)
			default:
				b = appendPart(b, vals[i], part.Width)
			}
		}
		return scalarOf(s.typ, g.keepBytes(b)), true
	}, deps, false, "pattern", nil
}

func appendPadded(b []byte, n int64, w int) []byte {
	start := len(b)
	b = strconv.AppendInt(b, n, 10)
	if d := w - (len(b) - start); d > 0 {
		b = append(b, make([]byte, d)...)
		copy(b[start+d:], b[start:len(b)-d])
		for i := 0; i < d; i++ {
			b[start+i] = '0'
		}
	}
	return b
}

func appendPart(b []byte, v attr.Value, w int) []byte {
	if v.Type == attr.N && w > 0 {
		if x, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return appendPadded(b, x, w)
		}
	}
	return append(b, v.Str...)
}

// domainGen draws from a finite domain by weights (uniform by default);
// at a root, the partition-key attribute is stratified by the item's
// index, so the declared shares hold exactly at every scale and a part
// of the roots knows its values without drawing.
func (p *Population) domainGen(n *Node, s *slot, d *catalog.Distribution) (genFn, []name, bool, string, error) {
	a := s.a
	dom := domainValues(a)
	if len(dom) == 0 && d != nil && len(d.Weights) > 0 {
		// The weights name the values (a weighted number without an enum).
		for v := range d.Weights {
			dom = append(dom, v)
		}
		sort.Slice(dom, func(i, j int) bool {
			if a.Type == attr.N {
				return attr.CompareNumbers(dom[i], dom[j]) < 0
			}
			return dom[i] < dom[j]
		})
	}
	if dom == nil && a.Cardinality > maxDomain {
		// A large domain: value k rendered on demand, drawn by the skew.
		card := a.Cardinality
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return scalarOf(a.Type, g.keep(domainValue(a, rankDraw(a.Skew, card, r)))), true
		}, nil, false, "domain", nil
	}
	if len(dom) == 0 {
		return nil, nil, false, "", fmt.Errorf("no domain to draw from (give an enum or a cardinality)")
	}
	dom = p.sampleFamily(n, a, dom)
	w := weights(d, dom, 0, a.Skew)
	if w == nil {
		return nil, nil, false, "", fmt.Errorf("weights add up to 0")
	}
	cum := cumulative(w)
	vals := make([]attr.Value, len(dom))
	for i, v := range dom {
		vals[i] = scalarOf(a.Type, v)
	}
	strat := p.inRootPartition(n, s.name)
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		if strat {
			return vals[pick(cum, (float64(f.index)+0.5)/float64(max(f.siblings, 1)))], true
		}
		return vals[pick(cum, r.Float())], true
	}, nil, false, "domain", nil
}

// sampleFamily replaces a rendered cardinality domain with values shaped
// like the model's samples (CREDIARIO_12X, CREDIARIO_137X...) when the
// attribute has samples and no pattern or enum.
func (p *Population) sampleFamily(n *Node, a *catalog.Attribute, dom []string) []string {
	if len(a.Enum) > 0 || (a.Values != nil && a.Values.Kind == "pattern") || a.Type != attr.S {
		return dom
	}
	var seen []string
	for _, e := range p.Model.Entities {
		for _, s := range e.Samples {
			if v, ok := s.Item.Get(a.Name); ok && v.Type == attr.S && v.Str != "" && !containsStr(seen, v.Str) {
				seen = append(seen, v.Str)
			}
		}
	}
	if len(seen) == 0 {
		return dom
	}
	out := make([]string, len(dom))
	used := map[string]bool{}
	for i := range out {
		v := variant(seen[i%len(seen)], i/len(seen))
		for used[v] {
			v += "X"
		}
		used[v] = true
		if a.Check(attr.Str(v)) != nil {
			// A variant outside the domain (a pattern's length, a
			// maxLength): the rendered domain, which keeps to it.
			return dom
		}
		out[i] = v
	}
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// variant returns the k-th variant of a sample value: itself for k = 0,
// else its last run of digits replaced by another number (or a number
// appended).
func variant(s string, k int) string {
	if k == 0 {
		return s
	}
	end := strings.LastIndexAny(s, "0123456789")
	if end < 0 {
		return s + "_" + strconv.Itoa(k)
	}
	start := end
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	orig, _ := strconv.Atoi(s[start : end+1])
	return s[:start] + pad(int64(orig+k), end+1-start) + s[end+1:]
}

// defaultGen draws an attribute from its dictionary entry alone.
func (p *Population) defaultGen(n *Node, s *slot) (genFn, []name, bool, string, error) {
	a := s.a
	if s.dist != nil {
		return p.distGen(n, s, s.dist)
	}
	if p.unique(n, a) {
		return p.uniqueGen(n, s)
	}
	if c := p.computedFrom(n, a); c != nil {
		return p.inputGen(n, s, c)
	}
	if len(a.Enum) > 0 || (a.Cardinality > 0 && a.Type != attr.M && a.Type != attr.L && a.Type != attr.B) {
		return p.domainGen(n, s, nil)
	}
	return p.unitGen(n, s)
}

// uniqueGen draws values that tell siblings apart: numbers and
// sequences by ordinal, dates and instants spread so that no two
// siblings share one, strings long enough to never collide (and checked
// against the siblings' keys, redrawn if they do).
func (p *Population) uniqueGen(n *Node, s *slot) (genFn, []name, bool, string, error) {
	a := s.a
	switch {
	case a.Type == attr.N && a.Unit != catalog.UnitEpochSeconds:
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			if f.ord >= 0 && n.Parent == nil {
				return g.num(f.ord + 1), true
			}
			return g.num(f.index + 1), true
		}, nil, false, "ordinal", nil
	case a.Unit == catalog.UnitCivilDate || a.Unit == catalog.UnitInstant || a.Unit == catalog.UnitEpochSeconds:
		window := int64(30 * 86400)
		if a.Unit == catalog.UnitInstant {
			window = 90 * 86400
		}
		future := a.Unit == catalog.UnitEpochSeconds
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			sib := max(f.siblings, 1)
			unit := int64(1)
			if a.Unit == catalog.UnitCivilDate {
				unit = 86400
			}
			slots := max(window/unit, sib)
			stride := slots / sib
			off := (f.index*stride + r.Intn(stride)) * unit
			var t time.Time
			switch {
			case future:
				t = g.pop.AsOf.Add(time.Duration(off+unit) * time.Second)
			case a.Unit == catalog.UnitCivilDate:
				t = g.pop.AsOf.AddDate(0, 0, -int(off/86400)-1)
			default:
				t = g.pop.AsOf.Add(-time.Duration(off+1) * time.Second)
			}
			return g.dateValue(t, s), true
		}, nil, false, "spread", nil
	case a.Type == attr.S:
		size := max(a.Size, 12)
		set := alnumUpper
		if a.Unit == "hex" {
			set = "0123456789abcdef"
			size = max(a.Size, 16)
		}
		return stringGen(&a.Domain, set, size), nil, false, "random id", nil
	case a.Type == attr.B:
		return randomBytes(max(a.Size, 16)), nil, false, "random bytes", nil
	}
	return p.unitGen(n, s)
}

// unitGen draws by unit, then by type.
func (p *Population) unitGen(n *Node, s *slot) (genFn, []name, bool, string, error) {
	a := s.a
	rangeN := func(lo, hi int64) genFn {
		flo, fhi, _ := numBounds(&a.Domain, float64(lo), float64(hi))
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.numberIn(r, flo, fhi, true), true }
	}
	switch a.Unit {
	case catalog.UnitCivilDate:
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.dateValue(g.pop.AsOf.AddDate(0, 0, -int(r.Range(0, 365))), s), true
		}, nil, false, "civil date in the last year", nil
	case catalog.UnitInstant:
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.dateValue(g.pop.AsOf.Add(-time.Duration(r.Range(1, 90*86400))*time.Second), s), true
		}, nil, false, "instant in the last 90 days", nil
	case catalog.UnitEpochSeconds:
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.dateValue(g.pop.AsOf.Add(time.Duration(r.Range(86400, 400*86400))*time.Second), s), true
		}, nil, false, "epoch seconds in the next 400 days", nil
	case catalog.UnitCents:
		return rangeN(100, 500000), nil, false, "cents", nil
	case "count":
		return rangeN(0, 10), nil, false, "count", nil
	case "days":
		return rangeN(0, 365), nil, false, "days", nil
	case "sequence":
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.num(f.index + 1), true }, nil, false, "sequence", nil
	case "version":
		return rangeN(1, 30), nil, false, "version", nil
	case "ratio":
		lo, hi, integer := numBounds(&a.Domain, 0, 1)
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.numberIn(r, lo, hi, integer), true
		}, nil, false, "ratio", nil
	}
	switch a.Type {
	case attr.S:
		size := a.Size
		set := alnum
		switch a.Unit {
		case "hex":
			set = "0123456789abcdef"
			size = max(size, 16)
		case "code":
			set = alnumUpper
			size = max(size, 8)
		case "text":
			if a.Domain.Pattern != nil {
				break // a pattern says more than a sentence would
			}
			d := &a.Domain
			return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
				more := func(b []byte) []byte { return g.fk.appendFormat(b, "sentence", false, r) }
				return attr.Str(g.keepBytes(fitText(d, more(g.scratch[:0]), more))), true
			}, nil, false, "text", nil
		}
		if size == 0 {
			size = 10
		}
		return stringGen(&a.Domain, set, size), nil, false, "random string", nil
	case attr.N:
		lo, hi, integer := numBounds(&a.Domain, 0, 1000)
		whole := integer || (lo == math.Trunc(lo) && hi == math.Trunc(hi))
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.numberIn(r, lo, hi, whole), true
		}, nil, false, "number", nil
	case attr.BOOL:
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return attr.Bool(r.Uint64()&1 == 1), true }, nil, false, "boolean", nil
	case attr.NULL:
		return func(*gen, *frame, *rng) (attr.Value, bool) { return attr.Null(), true }, nil, false, "null", nil
	case attr.B:
		return randomBytes(max(a.Size, 16)), nil, false, "random bytes", nil
	case attr.M, attr.L, attr.SS, attr.NS, attr.BS:
		if _, sampled := p.sampleOf(n, a); !sampled && (len(a.Fields) > 0 || a.Items != nil || a.MinItems != nil) {
			// No sample to follow: the domain's members and elements.
			d := &a.Domain
			if a.Type == attr.M {
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.mapValue(d, r), true }, nil, false, "map of its members", nil
			}
			if a.Type == attr.L {
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.listValue(d, r), true }, nil, false, "list of its elements", nil
			}
		}
		if a.Type == attr.SS || a.Type == attr.NS || a.Type == attr.BS {
			if _, sampled := p.sampleOf(n, a); !sampled || a.Items != nil {
				// A set of its element domain (a sample's elements
				// repeated on every item would say nothing).
				d, t := &a.Domain, a.Type
				return func(g *gen, f *frame, r *rng) (attr.Value, bool) { return g.setValue(d, t, r), true }, nil, false, "set of its elements", nil
			}
		}
		shape := p.shapeOf(n, a)
		d := &a.Domain
		return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
			return g.like(shape, d, r), true
		}, nil, false, "shaped like the samples", nil
	}
	return nil, nil, false, "", fmt.Errorf("no way to draw a %s value", a.Type)
}

// sampleOf finds a sample value of the attribute, the entity's own
// first.
func (p *Population) sampleOf(n *Node, a *catalog.Attribute) (attr.Value, bool) {
	if vs := n.comp.samples[a.Name]; len(vs) > 0 {
		return vs[0], true
	}
	for _, e := range p.Model.Entities {
		for _, s := range e.Samples {
			if v, ok := s.Item.Get(a.Name); ok {
				return v, true
			}
		}
	}
	return attr.Value{}, false
}

// shapeOf is a sample value of the attribute (documents are drawn like
// it), or an empty one of its type.
func (p *Population) shapeOf(n *Node, a *catalog.Attribute) attr.Value {
	if v, ok := p.sampleOf(n, a); ok {
		return v
	}
	switch a.Type {
	case attr.M:
		return attr.MapOf(nil)
	case attr.L:
		return attr.ListOf()
	case attr.SS:
		return attr.StrSet("a")
	case attr.NS:
		return attr.NumSet("1")
	}
	return attr.BinSet("a")
}

// computedFrom returns the computation of n's attribute whose input is a,
// or nil.
func (p *Population) computedFrom(n *Node, a *catalog.Attribute) *catalog.Computed {
	for _, s := range n.comp.slots {
		if s.a != nil && s.a.Computed != nil && s.a.Computed.Input == a.Name {
			return s.a.Computed
		}
	}
	return nil
}

// inputGen draws the never-stored input of a computation (a document
// behind a keyed hash): digits when the computation keeps only digits,
// and, when the computed attribute tells items apart, distinct for every
// item (a bijection of its ordinal), so that no two items share a key.
func (p *Population) inputGen(n *Node, s *slot, c *catalog.Computed) (genFn, []name, bool, string, error) {
	digits := c.Normalize == "digits"
	size := max(s.a.Size, 11)
	var keyed bool
	for _, x := range n.comp.slots {
		if x.a != nil && x.a.Computed == c && p.keyIntroduced(n, x.name) {
			keyed = true
		}
	}
	salt := hashString("input:" + n.Name() + ":" + s.name)
	// An input with a domain of its own (a stored id of a pattern, a
	// length) is drawn from it, unless its digits key the items (a
	// document behind a keyed hash), which only the bijection keeps
	// distinct across trees.
	var own genFn
	if d := &s.a.Domain; s.a.Type == attr.S && !(digits && keyed) && (d.Pattern != nil || d.MinLength != nil || d.MaxLength != nil) {
		own = stringGen(d, alnum, max(size, 16))
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		if own != nil {
			return own(g, f, r)
		}
		b := g.scratch[:0]
		switch {
		case digits && keyed && f.ord >= 0:
			m := uint64(1)
			for i := 0; i < min(size, 18); i++ {
				m *= 10
			}
			x := permute(uint64(f.ord)+salt%1000, m)
			b = appendPadded(b, int64(x), min(size, 18))
		case digits:
			b = appendDigits(b, r, size)
		default:
			b = appendRandom(b, r, alnum, max(size, 16))
		}
		return attr.Str(g.keepBytes(b)), true
	}, nil, false, "computation input", nil
}

// randomBytes draws size random bytes (a B value).
func randomBytes(size int) genFn {
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		b := g.scratch[:0]
		for i := 0; i < size; i++ {
			b = append(b, byte(r.Uint64()))
		}
		return attr.Value{Type: attr.B, Str: g.keepBytes(b)}, true
	}
}
