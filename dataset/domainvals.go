package dataset

import (
	"math"
	"regexp/syntax"
	"strconv"
	"unicode/utf8"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// Values drawn inside an attribute's domain (catalog.Domain): numbers in
// its range (whole when it says so), strings of its pattern and lengths,
// enums of numbers, map members and list elements of their own domains.
// A value the domain refuses is never written: a draw that misses is
// drawn again, then replaced by the domain's nearest bound.

// numBounds narrows [lo, hi] to the domain's range; integer says whether
// values must be whole.
func numBounds(d *catalog.Domain, lo, hi float64) (float64, float64, bool) {
	if d.Min != nil {
		lo = math.Max(lo, *d.Min)
		if hi < lo {
			hi = lo + math.Max(1, math.Abs(lo))
		}
	}
	if d.Max != nil {
		hi = math.Min(hi, *d.Max)
		if lo > hi {
			lo = hi - math.Max(1, math.Abs(hi))
			if d.Min != nil {
				lo = math.Max(lo, *d.Min)
			}
		}
	}
	return lo, hi, d.Integer
}

// numberIn draws a number in [lo, hi]: whole when integer (or when both
// bounds are whole and the unit is not a ratio), else with enough
// decimals for a hundred steps across the range.
func (g *gen) numberIn(r *rng, lo, hi float64, integer bool) attr.Value {
	if integer {
		return g.num(r.Range(int64(math.Ceil(lo)), int64(math.Floor(hi))))
	}
	dec := 2
	if span := hi - lo; span > 0 {
		dec = max(2, int(math.Ceil(math.Log10(100/span))))
	}
	p := math.Pow10(dec)
	x := math.Round((lo+(hi-lo)*r.Float())*p) / p
	x = math.Min(math.Max(x, lo), hi)
	return attr.Num(g.keepBytes(strconv.AppendFloat(g.scratch[:0], x, 'f', -1, 64)))
}

// clampNum keeps a drawn number inside the domain.
func clampNum(d *catalog.Domain, x float64) float64 {
	if d.Min != nil && x < *d.Min {
		x = *d.Min
	}
	if d.Max != nil && x > *d.Max {
		x = *d.Max
	}
	if d.Integer {
		x = math.Round(x)
		if d.Max != nil && x > *d.Max {
			x = math.Floor(*d.Max)
		}
		if d.Min != nil && x < *d.Min {
			x = math.Ceil(*d.Min)
		}
	}
	return x
}

// regexGen draws strings matching a regular expression: literals as they
// are, classes uniformly over their characters, repetitions between their
// bounds (an unbounded one up to 8 more than its minimum), one branch of
// an alternation. Anchors match nothing.
type regexGen struct {
	re *syntax.Regexp
	// prog is re with each node's work done once (a literal's bytes, a
	// class's printable characters, a repeat's bounds): it draws what
	// appendRegex draws from the same stream.
	prog *rxNode
	// exact: every string drawn matches (no anchor, boundary or
	// impossible branch in the expression), so the draw needs no check.
	exact bool
}

func newRegexGen(pattern string) (*regexGen, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = re.Simplify()
	return &regexGen{re: re, prog: compileRegex(re), exact: exactRegex(re)}, true
}

// exactRegex reports whether appendRegex draws only strings of the
// expression's language: it is built of literals, classes, any
// character, captures, concatenations, alternations and repetitions.
func exactRegex(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpAnyCharNotNL, syntax.OpAnyChar, syntax.OpEmptyMatch:
		return true
	case syntax.OpCharClass:
		// classRune draws printable ASCII when the class has some; else
		// any of its runes, which UTF-8 writes as themselves unless they
		// are surrogates (and an empty class gives 'x').
		ascii, other := false, false
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if max(lo, 0x21) <= min(hi, 0x7e) {
				ascii = true
			}
			if lo <= 0xdfff && hi >= 0xd800 {
				other = true
			}
		}
		return ascii || (len(re.Rune) > 0 && !other)
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		for _, s := range re.Sub {
			if !exactRegex(s) {
				return false
			}
		}
		return true
	}
	return false
}

func (x *regexGen) append(dst []byte, r *rng) []byte { return x.prog.append(dst, r) }

// rxNode is a node of a regular expression made ready to draw from.
type rxNode struct {
	op  syntax.Op
	lit []byte // a literal's UTF-8
	// chars are a class's printable ASCII members, in the class's order
	// (classRune's choice when there are any); ranges the class itself.
	chars  []byte
	ranges []rune
	sub    []*rxNode
	lo, hi int64 // a repeat's bounds
}

func compileRegex(re *syntax.Regexp) *rxNode {
	n := &rxNode{op: re.Op}
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			n.lit = utf8.AppendRune(n.lit, c)
		}
	case syntax.OpCharClass:
		n.ranges = re.Rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := max(re.Rune[i], 0x21); c <= min(re.Rune[i+1], 0x7e); c++ {
				n.chars = append(n.chars, byte(c))
			}
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeats(re)
		n.lo, n.hi = int64(lo), int64(hi)
	}
	for _, s := range re.Sub {
		n.sub = append(n.sub, compileRegex(s))
	}
	return n
}

// append is appendRegex on the node's expression.
func (n *rxNode) append(dst []byte, r *rng) []byte {
	switch n.op {
	case syntax.OpLiteral:
		dst = append(dst, n.lit...)
	case syntax.OpCharClass:
		if len(n.chars) > 0 {
			return append(dst, n.chars[r.Intn(int64(len(n.chars)))])
		}
		dst = utf8.AppendRune(dst, classRune(n.ranges, r))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		dst = append(dst, alnum[r.Intn(int64(len(alnum)))])
	case syntax.OpCapture:
		dst = n.sub[0].append(dst, r)
	case syntax.OpConcat:
		for _, s := range n.sub {
			dst = s.append(dst, r)
		}
	case syntax.OpAlternate:
		dst = n.sub[r.Intn(int64(len(n.sub)))].append(dst, r)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		k := r.Range(n.lo, n.hi)
		for i := int64(0); i < k; i++ {
			dst = n.sub[0].append(dst, r)
		}
	}
	return dst
}

// classRune draws a character of a class (pairs of inclusive ranges),
// printable ASCII preferred when the class holds some.
func classRune(ranges []rune, r *rng) rune {
	total := int64(0)
	ascii := int64(0)
	for i := 0; i+1 < len(ranges); i += 2 {
		total += int64(ranges[i+1]-ranges[i]) + 1
		lo, hi := max(ranges[i], 0x21), min(ranges[i+1], 0x7e)
		if lo <= hi {
			ascii += int64(hi-lo) + 1
		}
	}
	if ascii > 0 {
		k := r.Intn(ascii)
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := max(ranges[i], 0x21), min(ranges[i+1], 0x7e)
			if lo > hi {
				continue
			}
			if n := int64(hi-lo) + 1; k < n {
				return lo + rune(k)
			} else {
				k -= n
			}
		}
	}
	if total == 0 {
		return 'x'
	}
	k := r.Intn(total)
	for i := 0; i+1 < len(ranges); i += 2 {
		if n := int64(ranges[i+1]-ranges[i]) + 1; k < n {
			return ranges[i] + rune(k)
		} else {
			k -= n
		}
	}
	return ranges[0]
}

// stringGen draws a string of the domain: from its pattern when it has
// one (drawn again until it matches, and fits the lengths), otherwise of
// the set's characters and a length inside the domain's bounds around
// size.
func stringGen(d *catalog.Domain, set string, size int) genFn {
	var rx *regexGen
	if d.Pattern != nil {
		rx, _ = newRegexGen(d.Pattern.Text)
	}
	lo, hi := size, size
	if d.MinLength != nil {
		lo = max(lo, *d.MinLength)
		hi = max(hi, lo)
	}
	if d.MaxLength != nil {
		hi = min(hi, *d.MaxLength)
		lo = min(lo, hi)
	}
	return func(g *gen, f *frame, r *rng) (attr.Value, bool) {
		if rx != nil {
			for try := 0; try < 8; try++ {
				b := rx.append(g.scratch[:0], r)
				if (rx.exact || d.Pattern.MatchString(string(b))) && lengthOK(d, b) {
					return attr.Str(g.keepBytes(b)), true
				}
			}
		}
		return attr.Str(g.keepBytes(appendRandom(g.scratch[:0], r, set, int(r.Range(int64(lo), int64(hi)))))), true
	}
}

// fitText holds a realistic text (a sentence, a name, a company) to the
// lengths of its domain: one too long is cut at the last space that
// leaves it within maxLength (at maxLength itself when there is none in
// its second half), one too short gets more of the same until it
// reaches minLength, then the cut. more appends another text to b.
func fitText(d *catalog.Domain, b []byte, more func([]byte) []byte) []byte {
	if d == nil || d.MinLength == nil && d.MaxLength == nil {
		return b
	}
	if d.MinLength != nil {
		for try := 0; utf8.RuneCount(b) < *d.MinLength && try < 64; try++ {
			n := len(b)
			if n > 0 {
				b = append(b, ' ')
			}
			if b = more(b); len(b) == n+1 {
				b = b[:n] // nothing more to add
				break
			}
		}
		for utf8.RuneCount(b) < *d.MinLength {
			b = append(b, 'x')
		}
	}
	if d.MaxLength == nil || utf8.RuneCount(b) <= *d.MaxLength {
		return b
	}
	end, space, runes := 0, -1, 0
	for i := range string(b) {
		if runes == *d.MaxLength {
			if b[i] == ' ' {
				space = i // the text ends with a word right at maxLength
			}
			break
		}
		if b[i] == ' ' && runes >= *d.MaxLength/2 {
			space = i
		}
		runes++
		_, size := utf8.DecodeRune(b[i:])
		end = i + size
	}
	// Cut at the space when one fits, keeping minLength.
	if space > 0 && (d.MinLength == nil || utf8.RuneCount(b[:space]) >= *d.MinLength) {
		end = space
	}
	return b[:end]
}

func lengthOK(d *catalog.Domain, b []byte) bool {
	n := utf8.RuneCount(b)
	return (d.MinLength == nil || n >= *d.MinLength) && (d.MaxLength == nil || n <= *d.MaxLength)
}

// setValue draws a set (SS, NS or BS) of the domain's element count, at
// least one (DynamoDB has no empty set), of distinct elements of the
// element domain: fewer when the domain has fewer to give.
func (g *gen) setValue(d *catalog.Domain, t attr.Type, r *rng) attr.Value {
	lo, hi := 1, 3
	if d.MinItems != nil {
		lo = max(*d.MinItems, 1)
		hi = max(hi, lo)
	}
	if d.MaxItems != nil {
		hi = max(min(hi, *d.MaxItems), 1)
		lo = min(lo, hi)
	}
	var el catalog.Member
	switch t {
	case attr.NS:
		el.Type = attr.N
	case attr.BS:
		el.Type = attr.B
	default:
		el.Type = attr.S
	}
	if d.Items != nil {
		el = *d.Items
	}
	n := int(r.Range(int64(lo), int64(hi)))
	out := make([]string, 0, n)
	for try := 0; len(out) < n && try < 4*n; try++ {
		var v string
		if el.Type == attr.B {
			v = g.keepBytes(appendRandom(g.scratch[:0], r, alnum, 8))
		} else {
			v = g.memberValue(&el, r).Str
		}
		if !containsStr(out, v) {
			out = append(out, v)
		}
	}
	return attr.Value{Type: t, Set: out}
}

// memberValue draws a value of a list element or map member.
func (g *gen) memberValue(m *catalog.Member, r *rng) attr.Value {
	d := &m.Domain
	switch m.Type {
	case attr.S:
		if len(d.Enum) > 0 {
			return attr.Str(d.Enum[r.Intn(int64(len(d.Enum)))])
		}
		v, _ := stringGen(d, alnum, 8)(g, nil, r)
		return v
	case attr.N:
		if len(d.Enum) > 0 {
			return attr.Num(d.Enum[r.Intn(int64(len(d.Enum)))])
		}
		lo, hi, integer := numBounds(d, 0, 1000)
		return g.numberIn(r, lo, hi, integer || d.Min == nil && d.Max == nil)
	case attr.BOOL:
		return attr.Bool(r.Uint64()&1 == 1)
	case attr.M:
		return g.mapValue(d, r)
	case attr.L:
		return g.listValue(d, r)
	}
	return attr.Str("x")
}

// mapValue draws a map of the domain's members (optional ones on half of
// the draws).
func (g *gen) mapValue(d *catalog.Domain, r *rng) attr.Value {
	start := len(g.fields)
	for _, m := range d.Fields {
		if m.Optional && r.Uint64()&1 == 0 {
			continue
		}
		g.fields = append(g.fields, attr.Field{Name: m.Name, Value: g.memberValue(m, r)})
	}
	return attr.MapOf(attr.Item(g.fields[start:len(g.fields):len(g.fields)]))
}

// listValue draws a list of the domain's element count, each element of
// the element domain; an element enum without repeats gives distinct
// elements when it can.
func (g *gen) listValue(d *catalog.Domain, r *rng) attr.Value {
	lo, hi := 1, 3
	if d.MinItems != nil {
		lo = *d.MinItems
		hi = max(hi, lo)
	}
	if d.MaxItems != nil {
		hi = min(hi, *d.MaxItems)
		lo = min(lo, hi)
	}
	n := int(r.Range(int64(lo), int64(hi)))
	out := make([]attr.Value, n)
	for i := range out {
		if d.Items != nil {
			out[i] = g.memberValue(d.Items, r)
		} else {
			out[i] = attr.Str(g.keepBytes(appendRandom(g.scratch[:0], r, alnum, 8)))
		}
	}
	return attr.ListOf(out...)
}

// repeats is how many times a repeat operator's operand is drawn at
// least and at most: an unbounded repeat (*, +, {n,}) is drawn at most 8
// more times than its least, so that drawn values keep a real length.
func repeats(re *syntax.Regexp) (lo, hi int) {
	lo, hi = re.Min, re.Max
	switch re.Op {
	case syntax.OpStar:
		lo, hi = 0, -1
	case syntax.OpPlus:
		lo, hi = 1, -1
	case syntax.OpQuest:
		lo, hi = 0, 1
	}
	if hi < 0 {
		hi = lo + 8
	}
	return lo, hi
}
