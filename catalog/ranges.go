package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// Range is a between whose two bounds are parameters of one attribute:
// "the simulations of a customer between two dates" takes from and to,
// both typed by the date they bound.
type Range struct {
	Attribute    *Attribute // the attribute both bounds are typed by
	Key          string     // the key attribute the between constrains
	Lower, Upper *Param
}

// Ranges lists the ranges of a key condition: the betweens whose lower
// bound holds one parameter bounding an attribute and whose upper bound
// holds another bounding the same attribute.
func Ranges(conds []KeyCondition, params []*Param) []Range {
	byName := map[string]*Param{}
	for _, p := range params {
		byName[p.Name] = p
	}
	var out []Range
	for _, c := range conds {
		if c.Op != OpBetween || len(c.Operands) != 2 {
			continue
		}
		lo := boundParams(c.Operands[0], byName)
		hi := boundParams(c.Operands[1], byName)
		for _, l := range lo {
			for _, h := range hi {
				if l != h && l.Attribute == h.Attribute {
					out = append(out, Range{Attribute: l.Attribute, Key: c.Attribute, Lower: l, Upper: h})
				}
			}
		}
	}
	return out
}

// Ranges lists the ranges of the operation's queries, each once.
func (o *Operation) Ranges() []Range {
	var out []Range
	for _, s := range o.Steps {
		if s.Request == nil || s.Kind != Query {
			continue
		}
		for _, rg := range Ranges(s.Request.KeyCondition, o.Params) {
			if !slices.ContainsFunc(out, func(x Range) bool { return x.Lower == rg.Lower && x.Upper == rg.Upper }) {
				out = append(out, rg)
			}
		}
	}
	return out
}

// boundParams lists the parameters of an operand typed by an attribute.
func boundParams(o Operand, byName map[string]*Param) []*Param {
	var out []*Param
	for _, ph := range o.Placeholders() {
		if p := byName[ph]; p != nil && p.Attribute != nil {
			out = append(out, p)
		}
	}
	return out
}

// patternParams resolves an access pattern's named placeholders: each
// is typed by the declared attribute it bounds, and is not itself an
// attribute's name (which would read as that attribute).
func (r *resolver) patternParams(ptr string, raw map[string]rawPatternParam) []*Param {
	var out []*Param
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		rp := raw[name]
		pptr := ptr + "/" + escapePtr(name)
		if !validIdent(name) {
			r.errAt(pptr, true, "", "parameter %q is not a name a placeholder can use (letters, digits and _)", name)
			continue
		}
		if _, ok := r.attrs[name]; ok {
			r.errAt(pptr, true, fmt.Sprintf("write {%s} for the attribute itself, or name the bound otherwise (from, to)", name),
				"parameter %s is the name of an attribute", name)
			continue
		}
		if rp.Attribute == "" {
			r.errAt(pptr, true, "", "parameter %s needs the attribute it bounds (attribute: ...)", name)
			continue
		}
		a := r.attrRef(pptr+"/attribute", rp.Attribute)
		if a == nil {
			continue
		}
		out = append(out, &Param{Name: name, Type: a.Type, Attribute: a, Description: rp.Description})
	}
	return out
}

// patternScope types the placeholders of an access pattern's answer: its
// parameters, then the attribute dictionary.
// A placeholder naming a parameter whose declaration failed is already
// reported there.
func (r *resolver) patternScope(ap *AccessPattern, declared map[string]rawPatternParam) func(string, string) (attr.Type, bool) {
	return func(ptr, name string) (attr.Type, bool) {
		for _, p := range ap.Params {
			if p.Name == name {
				return p.Type, true
			}
		}
		if a, ok := r.attrs[name]; ok {
			return a.Type, true
		}
		if _, ok := declared[name]; ok {
			return attr.Invalid, false
		}
		if ptr != "" {
			// A short name's nearest neighbour (PK for {to}) helps no
			// one: only the pattern's own parameters are offered then.
			var names []string
			if len(name) > 3 {
				names = r.attrNames()
			}
			for _, p := range ap.Params {
				names = append(names, p.Name)
			}
			hint := didYouMean(name, names)
			if hint == "" {
				hint = fmt.Sprintf("declare it under the access pattern's params with the attribute it bounds ({%s: {attribute: ...}})", name)
			}
			r.errAt(ptr, false, hint, "placeholder {%s} is neither a declared attribute nor a parameter of access pattern %s", name, ap.ID)
		}
		return attr.Invalid, false
	}
}

// checkRanges holds the betweens of a key condition to two bounds: not
// one value twice (which reads a single point), and a named parameter
// bounding an attribute below matched by one bounding it above (a
// parameter named as its attribute is the attribute, and may meet a
// constant bound).
//
// known says which placeholders resolved: a between with another one is
// reported at the placeholder alone.
func (r *resolver) checkRanges(ptr string, conds []KeyCondition, params []*Param, known func(string) bool) {
	byName := map[string]*Param{}
	for _, p := range params {
		byName[p.Name] = p
	}
	for _, c := range conds {
		if c.Op != OpBetween {
			continue
		}
		cptr := ptr + "/" + escapePtr(c.Attribute) + "/between"
		if len(c.Operands) != 2 {
			r.errf(cptr, "between takes two bounds, [lower, upper]; found %d", len(c.Operands))
			continue
		}
		lo, hi := c.Operands[0], c.Operands[1]
		if slices.ContainsFunc(append(lo.Placeholders(), hi.Placeholders()...), func(n string) bool { return !known(n) }) {
			continue
		}
		if same, text := sameOperand(lo, hi); same {
			r.errAt(cptr, false, "declare two parameters typed by the attribute they bound (from, to) and put one in each bound",
				"both bounds of between are %s: the range holds one value", text)
			continue
		}
		for i, pair := range [][2]Operand{{lo, hi}, {hi, lo}} {
			other := boundParams(pair[1], byName)
			for _, p := range boundParams(pair[0], byName) {
				if slices.ContainsFunc(other, func(q *Param) bool { return q.Attribute == p.Attribute }) {
					continue
				}
				side, missing := "lower", "upper"
				if i == 1 {
					side, missing = "upper", "lower"
				}
				if !slices.Contains(pair[1].Placeholders(), p.Attribute.Name) && p.Name != p.Attribute.Name {
					r.errAt(fmt.Sprintf("%s/%d", cptr, 1-i), false,
						fmt.Sprintf("declare a second parameter typed by %s and put it in the %s bound", p.Attribute.Name, missing),
						"the %s bound of between is {%s}, a bound of %s, but the %s bound has no bound of %s", side, p.Name, p.Attribute.Name, missing, p.Attribute.Name)
				}
			}
		}
	}
}

// sameOperand reports whether two operands are the same value (the same
// template, parameter or constant), and how it reads.
func sameOperand(a, b Operand) (bool, string) {
	switch {
	case a.Template != nil && b.Template != nil:
		return a.Template.Text == b.Template.Text, fmt.Sprintf("%q", a.Template.Text)
	case a.Param != "" && b.Param != "":
		return a.Param == b.Param, "{" + a.Param + "}"
	case a.Literal != nil && b.Literal != nil:
		return attr.Equal(*a.Literal, *b.Literal), "the same constant"
	}
	return false, ""
}

// unusedPatternParams reports the parameters of an access pattern that
// its answer's key condition does not use.
func (r *resolver) unusedPatternParams(ptr string, ap *AccessPattern) {
	used := map[string]bool{}
	if ap.Answer != nil {
		for _, c := range ap.Answer.Key {
			for _, o := range c.Operands {
				for _, ph := range o.Placeholders() {
					used[ph] = true
				}
			}
		}
	}
	for _, p := range ap.Params {
		if !used[p.Name] {
			r.errAt(ptr+"/"+escapePtr(p.Name), true, "remove it, or use it in a bound of the answer's key condition",
				"parameter %s of access pattern %s is used by no key condition", p.Name, ap.ID)
		}
	}
}

// checkRangeSamples holds the samples of an operation's ranges to a
// range that is not empty: the lower bound, rendered from the samples,
// sorts at or before the upper one.
func (r *resolver) checkRangeSamples(ptr string, op *Operation) {
	variants := []*Budget{nil}
	for _, b := range op.Budgets {
		if len(b.Params) > 0 {
			variants = append(variants, b)
		}
	}
	for _, b := range variants {
		r.checkRangeValues(ptr, op, b)
	}
}

// checkRangeValues holds the ranges of one variant's values (b nil: the
// samples) to ranges that are not empty.
func (r *resolver) checkRangeValues(ptr string, op *Operation, b *Budget) {
	vals := map[string]attr.Value(op.SampleInputsIn(b))
	at, who := "", "the samples"
	if b != nil {
		at, who = fmt.Sprintf("%s/budgets/%s/params", ptr, escapePtr(b.Name)), "the values of variant "+b.Name
	}
	for i, s := range op.Steps {
		if s.Request == nil || s.Kind != Query {
			continue
		}
		for _, c := range s.Request.KeyCondition {
			if c.Op != OpBetween || len(c.Operands) != 2 || len(Ranges([]KeyCondition{c}, op.Params)) == 0 {
				continue
			}
			lo, err1 := c.Operands[0].Resolve(vals)
			hi, err2 := c.Operands[1].Resolve(vals)
			if err1 != nil || err2 != nil {
				continue
			}
			if n, ok := attr.Compare(lo, hi); ok && n > 0 {
				where := at
				if where == "" {
					where = fmt.Sprintf("%s/steps/%d/query/key/%s/between", ptr, i, escapePtr(c.Attribute))
				}
				r.errAt(where, false, "give the lower bound's parameter a value at or before the upper one's",
					"%s make an empty range: the lower bound %s sorts after the upper bound %s", who, valueText(lo), valueText(hi))
			}
		}
	}
}

// SampleSpan is how far apart the samples of the two bounds lie, in
// whole seconds (instants, civil dates and epoch seconds), the width a
// load draws its ranges with when it names neither bound; ok is false
// when a bound has no sample or is not a time.
func (rg Range) SampleSpan() (secs int64, ok bool) {
	if rg.Lower.Sample == nil || rg.Upper.Sample == nil {
		return 0, false
	}
	lo, ok1 := sampleTime(*rg.Lower.Sample)
	hi, ok2 := sampleTime(*rg.Upper.Sample)
	if !ok1 || !ok2 || hi.Before(lo) {
		return 0, false
	}
	return int64(hi.Sub(lo) / time.Second), true
}

// sampleTime reads an instant, a civil date or epoch seconds.
func sampleTime(v attr.Value) (time.Time, bool) {
	switch v.Type {
	case attr.S:
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
			return t, true
		}
		if t, err := time.Parse("2006-01-02", v.Str); err == nil {
			return t, true
		}
	case attr.N:
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return time.Unix(n, 0), true
		}
	}
	return time.Time{}, false
}

// checkRangeSources holds the constant bounds a load gives a range to a
// range that is not empty; bounds drawn per arrival are the load's.
func (r *resolver) checkRangeSources(ptr string, op *Operation, sources []*Source) {
	byName := map[string]*Source{}
	for _, s := range sources {
		byName[s.Param.Name] = s
	}
	for _, rg := range op.Ranges() {
		lo, hi := byName[rg.Lower.Name], byName[rg.Upper.Name]
		if lo == nil || hi == nil || lo.Kind != SourceValue || hi.Kind != SourceValue {
			continue
		}
		if n, ok := attr.Compare(lo.Value, hi.Value); ok && n > 0 {
			r.errAt(ptr+"/"+escapePtr(rg.Lower.Name), false, "give the lower bound a value at or before the upper one's",
				"%s %s is after %s %s: the range is empty", rg.Lower.Name, valueText(lo.Value), rg.Upper.Name, valueText(hi.Value))
		}
	}
}
