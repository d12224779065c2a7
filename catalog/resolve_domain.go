package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// domain resolves the domain fields of an attribute, a list element or a
// map member of type t, reporting misuses at ptr.
func (r *resolver) domain(ptr, name string, t attr.Type, unit string, rd *rawDomain) Domain {
	var d Domain
	need := func(field string, ok bool, types string) bool {
		if !ok {
			r.errAt(ptr+"/"+field, true, "", "%s applies to %s values; %s is %s", field, types, name, t)
		}
		return ok
	}
	isN, isS := t == attr.N, t == attr.S
	isColl := t == attr.L || t == attr.M || t.IsSet()
	if len(rd.Enum) > 0 && need("enum", isS || isN, "S or N") {
		seen := map[string]bool{}
		for i, raw := range rd.Enum {
			v, _ := decodeAny(raw)
			eptr := fmt.Sprintf("%s/enum/%d", ptr, i)
			var text string
			switch x := v.(type) {
			case string:
				if !isS {
					r.errf(eptr, "%s is N: its enum values are numbers, not %q", name, x)
					if checkNumber(x) != nil {
						continue
					}
					text = canonNumber(x) // kept, so that the values that use it are not reported too
					break
				}
				text = x
			case json.Number:
				if !isN {
					r.errf(eptr, "%s is S: write the enum value %s as a string (quote it)", name, x)
					text = string(x) // kept, so that the values that use it are not reported too
					break
				}
				text = canonNumber(string(x))
			}
			if seen[text] {
				r.errf(eptr, "duplicate enum value %q", text)
			}
			seen[text] = true
			d.Enum = append(d.Enum, text)
		}
	}
	num := func(field string, n *json.Number) (*float64, *big.Rat) {
		if n == nil || !need(field, isN, "N") {
			return nil, nil
		}
		rat, ok := new(big.Rat).SetString(string(*n))
		if !ok {
			r.errf(ptr+"/"+field, "%s is not a number", *n)
			return nil, nil
		}
		f, _ := rat.Float64()
		return &f, rat
	}
	d.Min, d.min = num("min", rd.Min)
	d.Max, d.max = num("max", rd.Max)
	if d.min != nil && d.max != nil && d.min.Cmp(d.max) > 0 {
		r.errf(ptr+"/max", "max %s is below min %s", ratText(d.max), ratText(d.min))
		d.Min, d.min, d.Max, d.max = nil, nil, nil, nil // no value could be checked against them
	}
	if rd.Integer && need("integer", isN, "N") {
		d.Integer = true
	}
	if rd.MinLength != nil && need("minLength", isS, "S") {
		d.MinLength = rd.MinLength
	}
	if rd.MaxLength != nil && need("maxLength", isS, "S") {
		d.MaxLength = rd.MaxLength
		if d.MinLength != nil && *d.MinLength > *d.MaxLength {
			r.errf(ptr+"/maxLength", "maxLength %d is below minLength %d", *d.MaxLength, *d.MinLength)
		}
	}
	if rd.Pattern != nil && need("pattern", isS, "S") {
		re, err := regexp.Compile(`^(?:` + *rd.Pattern + `)$`)
		if err != nil {
			msg := err.Error()
			msg = strings.TrimPrefix(msg, "error parsing regexp: ")
			r.errf(ptr+"/pattern", "the pattern is not a regular expression: %s", msg)
		} else {
			d.Pattern = &Pattern{Text: *rd.Pattern, re: re}
		}
	}
	if rd.MinItems != nil && need("minItems", isColl, "L, M or set") {
		d.MinItems = rd.MinItems
	}
	if rd.MaxItems != nil && need("maxItems", isColl, "L, M or set") {
		d.MaxItems = rd.MaxItems
		if d.MinItems != nil && *d.MinItems > *d.MaxItems {
			r.errf(ptr+"/maxItems", "maxItems %d is below minItems %d", *d.MaxItems, *d.MinItems)
		}
	}
	if rd.Items != nil && need("items", t == attr.L || t.IsSet(), "L or set") {
		et, _ := attr.ParseType(rd.Items.Type)
		if t.IsSet() {
			want := map[attr.Type]attr.Type{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[t]
			if et != want {
				r.errf(ptr+"/items/type", "the members of %s are %s, not %s", t, want, et)
			}
		}
		d.Items = r.member(ptr+"/items", "", name+"[]", rd.Items)
	}
	if len(rd.Fields) > 0 && need("fields", t == attr.M, "M") {
		for _, fn := range slices.Sorted(maps.Keys(rd.Fields)) {
			f := rd.Fields[fn]
			label := fn
			if strings.HasSuffix(name, "[]") {
				label = name + "." + fn
			}
			d.Fields = append(d.Fields, r.member(ptr+"/fields/"+escapePtr(fn), fn, label, &f))
		}
	}
	if rd.Instant != nil {
		if unit != UnitInstant {
			r.errAt(ptr+"/instant", true, "declare unit: instant", "instant gives the form of an instant, but %s has no unit instant", name)
		} else {
			f, err := parseInstantFormat(rd.Instant.Offset, rd.Instant.Precision)
			if err != nil {
				r.errf(ptr+"/instant", "%v", err)
			} else {
				d.Instant = f
			}
		}
	}
	return d
}

// member resolves the domain of a list element or a map member.
func (r *resolver) member(ptr, name, label string, rv *rawValueDomain) *Member {
	t, _ := attr.ParseType(rv.Type)
	m := &Member{Name: name, Type: t, Unit: rv.Unit, Optional: rv.Optional, label: label}
	if rv.Optional && name == "" {
		r.errAt(ptr+"/optional", true, "", "optional applies to the members of a map, not to list elements")
	}
	r.checkUnitType(ptr, label, t, rv.Unit)
	m.Domain = r.domain(ptr, label, t, rv.Unit, &rv.rawDomain)
	return m
}

// checkUnitType checks that a unit fits the type.
func (r *resolver) checkUnitType(ptr, name string, t attr.Type, unit string) {
	switch unit {
	case UnitCents, UnitEpochSeconds, "count", "days", "sequence", "version", "ratio":
		if t != attr.N {
			r.errf(ptr+"/unit", "unit %s needs type N, %s is %s", unit, name, t)
		}
	case UnitCivilDate, UnitInstant, "hex", "key":
		if t != attr.S {
			r.errf(ptr+"/unit", "unit %s needs type S, %s is %s", unit, name, t)
		}
	}
}

// skew resolves an attribute's skew; the attribute must say how many
// distinct values it has.
func (r *resolver) skew(ptr string, a *Attribute, rs *rawSkew) *Skew {
	s := &Skew{Top: rs.Top, Rest: rs.Rest, S: 1, Growth: rs.Growth, Note: rs.Note}
	if s.Rest == "" {
		s.Rest = "uniform"
	}
	if rs.S != nil {
		s.S = *rs.S
		if s.Rest != "zipf" {
			r.errAt(ptr+"/s", true, "", "s is the exponent of a zipf rest, but the rest is %s", s.Rest)
		}
	}
	n, ok := a.Distinct()
	if !ok {
		r.errAt(ptr, true, "declare cardinality: the number of distinct values at the declared scale", "a skew spreads items over %s's values, but how many there are is unknown", a.Name)
		return s
	}
	s.N = n
	sum := 0.0
	for i, v := range s.Top {
		sum += v
		if i > 0 && v > s.Top[i-1] {
			r.errf(fmt.Sprintf("%s/top/%d", ptr, i), "top lists the largest shares first: %v is larger than %v before it", v, s.Top[i-1])
		}
	}
	switch {
	case sum > 1.0001:
		r.errf(ptr+"/top", "the top shares add up to %v, more than 1", round4(sum))
	case int64(len(s.Top)) > n:
		r.errf(ptr+"/top", "%d top shares, but %s has %d distinct values", len(s.Top), a.Name, n)
	case int64(len(s.Top)) == n && sum < 0.9999:
		r.errf(ptr+"/top", "every value is listed, yet the shares add up to %v, not 1", round4(sum))
	}
	if s.Rest == "zipf" {
		s.norm = zipfNorm(n-int64(len(s.Top)), s.S)
	}
	return s
}

// zipfNorm is the sum of k^-s for k = 1..m: exact up to ten thousand
// terms, the rest by the Euler-Maclaurin formula (relative error far
// below 1e-12), so that two million customers cost no more than forty
// tenants.
func zipfNorm(m int64, s float64) float64 {
	const exact = 10000
	sum := 0.0
	for k := int64(1); k <= m && k <= exact; k++ {
		sum += math.Pow(float64(k), -s)
	}
	if m <= exact {
		return sum
	}
	a, b := float64(exact), float64(m)
	f := func(x float64) float64 { return math.Pow(x, -s) }
	df := func(x float64) float64 { return -s * math.Pow(x, -s-1) }
	var integral float64
	if math.Abs(s-1) < 1e-12 {
		integral = math.Log(b / a)
	} else {
		integral = (math.Pow(b, 1-s) - math.Pow(a, 1-s)) / (1 - s)
	}
	// The sum from a+1 to b: the integral, the end corrections, minus f(a).
	return sum + integral + (f(b)-f(a))/2 + (df(b)-df(a))/12
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// checkWeights checks a weighted distribution of an attribute's values:
// the values are the attribute's (when it has an enum), the shares add up
// to at most 1, and a remainder needs values left to share it.
func (r *resolver) checkWeights(ptr string, a *Attribute, d *Distribution) {
	if d == nil || d.Kind != "weighted" {
		return
	}
	if len(d.Weights) == 0 {
		r.errAt(ptr, true, "", "a weighted distribution needs weights")
		return
	}
	sum := 0.0
	for _, k := range slices.Sorted(maps.Keys(d.Weights)) {
		sum += d.Weights[k]
		if len(a.Enum) > 0 && !contains(a.Enum, canonKey(a, k)) {
			r.errAt(ptr+"/weights/"+escapePtr(k), true, didYouMean(k, a.Enum), "%q is not a value of %s", k, a.Name)
		}
	}
	switch {
	case sum > 1.001:
		r.errf(ptr+"/weights", "the weights are shares of the items and add up to %v, more than 1", round4(sum))
	case sum < 0.999 && (len(a.Enum) == 0 || len(a.Enum) == len(d.Weights)):
		r.errf(ptr+"/weights", "the weights add up to %v: list every value with its share, or declare the enum whose other values share the rest", round4(sum))
	}
}

// canonKey reads a weights key as a value of the attribute.
func canonKey(a *Attribute, k string) string {
	if a.Type == attr.N {
		return canonNumber(k)
	}
	return k
}

// WeightOf returns the share of the items of a distribution that hold
// one of the values, and whether the distribution says: a weighted
// distribution, whose unlisted enum values share its remainder evenly,
// or a constant.
func (d *Distribution) WeightOf(a *Attribute, values []attr.Value) (float64, bool) {
	if d == nil {
		return 0, false
	}
	switch d.Kind {
	case "constant":
		for _, v := range values {
			if valueText(v) == fmt.Sprint(d.Value) {
				return 1, true
			}
		}
		return 0, true
	case "weighted":
	default:
		return 0, false
	}
	sum := 0.0
	listed := map[string]float64{}
	for k, w := range d.Weights {
		listed[canonKey(a, k)] = w
		sum += w
	}
	rest := 0.0
	if unlisted := len(a.Enum) - len(listed); unlisted > 0 && sum < 1 {
		rest = (1 - sum) / float64(unlisted)
	}
	share := 0.0
	for _, v := range values {
		key := valueText(v)
		if a.Type == attr.N {
			key = canonNumber(key)
		}
		if w, ok := listed[key]; ok {
			share += w
		} else if contains(a.Enum, key) {
			share += rest
		}
	}
	return share, true
}

// conditions resolves a condition map (when, unless, where) against the
// attributes an entity carries.
func (r *resolver) conditions(ptr string, e *Entity, raw map[string]json.RawMessage) []Condition {
	var out []Condition
	for _, an := range slices.Sorted(maps.Keys(raw)) {
		cptr := ptr + "/" + escapePtr(an)
		a := r.attrRef(cptr, an)
		if a == nil {
			continue
		}
		if e != nil {
			switch e.Has(an) {
			case "":
				r.errAt(cptr, true, "", "entity %s does not carry %s", e.Name, an)
				continue
			case KeyOnly:
				r.errAt(cptr, true, "", "%s is key-only on %s: it is not stored, so no rule can read it", an, e.Name)
				continue
			}
		}
		v, _ := decodeAny(raw[an])
		list, isList := v.([]any)
		if !isList {
			list = []any{v}
		}
		c := Condition{Attribute: an}
		for i, x := range list {
			vptr := cptr
			if isList {
				vptr = fmt.Sprintf("%s/%d", cptr, i)
			}
			if !a.Type.IsScalar() && a.Type != attr.BOOL {
				r.errf(vptr, "a condition compares scalar values; %s is %s", an, a.Type)
				break
			}
			tv, err := typedValue(x, a.Type, a)
			if err != nil {
				r.errf(vptr, "%s: %v", an, err)
				continue
			}
			c.Values = append(c.Values, tv)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Attribute < out[j].Attribute })
	return out
}
