package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/calc"
)

// Rule kinds that derive a value by a formula or from coordinates.
const (
	RuleCalc    RuleKind = "calc"    // a bounded arithmetic formula over names in scope, rounded as named
	RuleGeohash RuleKind = "geohash" // the geohash cell of a latitude and a longitude in scope
)

// Calc is a calc rule: a formula (calc.Parse) over names in scope, and
// how its result is rounded. Round "" keeps the result as computed.
type Calc struct {
	Expr     *calc.Expr
	Round    calc.Mode
	Decimals int
}

// Geohash is a geohash rule: the standard base-32 geohash of Lat and Lon
// (names in scope, degrees) with Precision characters.
type Geohash struct {
	Lat, Lon  string
	Precision int
}

// MaxGeohashPrecision is the longest geohash a rule may ask for (12
// characters: cells of a few centimetres, the limit of a double).
const MaxGeohashPrecision = 12

// RefMatch is one attribute a reference is matched on: the referenced
// item's Target equals the item's own Own (an event's charge is the one
// of the event's own instalment).
type RefMatch struct {
	Target string
	Own    string
}

// ruleCalc reads a calc rule: {calc: "formula", round: MODE, decimals: N}.
func (d *datasetResolver) ruleCalc(rl *Rule, ptr, kp string, m map[string]json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	var src string
	if err := json.Unmarshal(m[string(RuleCalc)], &src); err != nil {
		d.errf(kp, "calc takes a formula such as \"principal * rate / (1 - pow(1 + rate, -term))\"")
		return false
	}
	e, err := calc.Parse(src)
	if err != nil {
		var pe *calc.Error
		if errors.As(err, &pe) {
			d.errAt(kp, false, "a formula holds numbers, names, + - * /, parentheses and "+calc.Funcs, "the formula does not read at column %d: %s", pe.Col, pe.Msg)
		} else {
			d.errf(kp, "%v", err)
		}
		return false
	}
	ok := true
	for _, n := range e.Names() {
		t, in := scope[n]
		switch {
		case !in:
			d.errAt(kp, false, didYouMean(n, slices.Sorted(maps.Keys(scope))), "the formula reads %s, which is not in scope (an attribute or variable of the item, its reference or its parents)", n)
			ok = false
		case t != attr.N && t != attr.Invalid:
			d.errf(kp, "the formula reads %s, which is %s: a formula computes with numbers", n, t)
			ok = false
		}
	}
	c := &Calc{Expr: e}
	if raw, has := m["round"]; has {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			d.errf(ptr+"/round", "round takes halfEven, halfUp, down or up")
			ok = false
		} else if mode, err := calc.ParseMode(s); err != nil {
			d.errAt(ptr+"/round", false, didYouMean(s, []string{"halfEven", "halfUp", "down", "up"}), "%v", err)
			ok = false
		} else {
			c.Round = mode
		}
	}
	if raw, has := m["decimals"]; has {
		if c.Round == "" {
			d.errAt(ptr+"/decimals", true, "add round: halfEven (or halfUp, down, up)", "decimals says where round rounds; name the rounding")
			ok = false
		}
		if err := json.Unmarshal(raw, &c.Decimals); err != nil || c.Decimals < 0 || c.Decimals > calc.MaxDecimals {
			d.errf(ptr+"/decimals", "decimals is a whole number from 0 to %d", calc.MaxDecimals)
			ok = false
		}
	}
	d.wantNumber(kp, want)
	if a := d.attrs[d.attrOfPtr(ptr)]; a != nil && a.Integer && c.Round == "" {
		d.errAt(ptr, true, "add round: halfEven (or halfUp, down, up): the rounding is a decision", "%s holds whole numbers, and a formula's result may have a fraction", a.Name)
		ok = false
	} else if a != nil && a.Integer && c.Decimals > 0 {
		d.errf(ptr+"/decimals", "%s holds whole numbers: round to 0 decimals", a.Name)
		ok = false
	}
	rl.Calc = c
	return ok
}

// ruleGeohash reads a geohash rule: {geohash: {lat: NAME, lon: NAME, precision: N}}.
func (d *datasetResolver) ruleGeohash(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	var g struct {
		Lat       string `json:"lat"`
		Lon       string `json:"lon"`
		Precision int    `json:"precision"`
	}
	if err := json.Unmarshal(body, &g); err != nil {
		d.errf(kp, "geohash is {lat: NAME, lon: NAME, precision: 1 to %d}", MaxGeohashPrecision)
		return false
	}
	ok := true
	for _, f := range []struct{ field, name string }{{"lat", g.Lat}, {"lon", g.Lon}} {
		t, in := scope[f.name]
		switch {
		case f.name == "":
			d.errAt(kp, true, "", "geohash needs %s: the name in scope holding the %s in degrees", f.field, map[string]string{"lat": "latitude", "lon": "longitude"}[f.field])
			ok = false
		case !in:
			d.errAt(kp+"/"+f.field, false, didYouMean(f.name, slices.Sorted(maps.Keys(scope))), "%s is not in scope", f.name)
			ok = false
		case t != attr.N && t != attr.Invalid:
			d.errf(kp+"/"+f.field, "%s is %s: a geohash reads degrees, a number", f.name, t)
			ok = false
		}
	}
	if g.Precision < 1 || g.Precision > MaxGeohashPrecision {
		d.errf(kp+"/precision", "precision is the number of characters of the cell, 1 to %d", MaxGeohashPrecision)
		ok = false
	}
	if want != attr.S && want != attr.Invalid {
		d.errf(kp, "a geohash is a string: the attribute must be S, not %s", want)
		ok = false
	}
	rl.Geohash = &Geohash{Lat: g.Lat, Lon: g.Lon, Precision: g.Precision}
	return ok
}

// attrOfPtr returns the attribute a /dataset/entities/E/attributes/NAME
// pointer is about ("" for a variable or a case deeper down).
func (d *datasetResolver) attrOfPtr(ptr string) string {
	parts := splitPtr(ptr)
	if len(parts) >= 5 && parts[0] == "dataset" && parts[1] == "entities" && parts[3] == "attributes" {
		return parts[4]
	}
	return ""
}

func splitPtr(ptr string) []string {
	var out []string
	cur := ""
	for i := 1; i < len(ptr); i++ {
		if ptr[i] == '/' {
			out = append(out, unescapePtr(cur))
			cur = ""
			continue
		}
		cur += string(ptr[i])
	}
	return append(out, unescapePtr(cur))
}

// presenceOnly reports whether a rule only decides whether the attribute
// is carried: absent: true, default: true (the dictionary's value: for a
// computed attribute, its computation), or cases of those. It is the
// only rule a computed attribute takes.
func presenceOnly(rl *Rule) bool {
	switch rl.Kind {
	case RuleAbsent, RuleDefault:
		return true
	case RuleCases:
		for _, c := range rl.Cases {
			if !presenceOnly(c.Rule) {
				return false
			}
		}
		return true
	}
	return false
}

// refMatch reads a reference's match: {TARGET_ATTRIBUTE: OWN_NAME}, the
// referenced item's attribute equal to the item's own name. The own name
// is read before the reference is chosen, so it cannot come from the
// reference: an attribute of the item with its own rule, a variable, a
// parent's attribute or a built-in.
func (d *datasetResolver) refMatch(er *EntityRules, ptr string, raw map[string]string, re rawEntityRules) {
	if len(raw) == 0 || er.Ref == nil {
		return
	}
	if er.Ref.Root {
		d.errAt(ptr, true, "drop match: another tree's root is drawn among all of them", "a reference to another tree's root (%s) takes no match", er.Ref.Entity.Name)
		return
	}
	ts := d.scope(&EntityRules{Entity: er.Ref.Entity})
	// The item's scope without its reference.
	own := d.scope(&EntityRules{Entity: er.Entity, Vars: er.Vars})
	for _, tn := range slices.Sorted(maps.Keys(raw)) {
		on := raw[tn]
		mp := ptr + "/" + escapePtr(tn)
		tt, ok := ts[tn]
		if !ok {
			d.errAt(mp, true, didYouMean(tn, slices.Sorted(maps.Keys(ts))), "%s is not an attribute or variable of %s", tn, er.Ref.Entity.Name)
			continue
		}
		ot, ok := own[on]
		if !ok {
			d.errAt(mp, false, didYouMean(on, slices.Sorted(maps.Keys(own))), "%s is not in the scope of %s without its reference (its own attributes and variables, its parents', the built-ins)", on, er.Entity.Name)
			continue
		}
		if tt != ot && tt != attr.Invalid && ot != attr.Invalid {
			d.errf(mp, "%s.%s is %s and %s is %s: they never equal", er.Ref.Entity.Name, tn, tt, on, ot)
			continue
		}
		// An attribute of the item without a rule of its own is copied
		// from the reference (before its parents) when the reference
		// carries it: from the item the match is to choose.
		if _, carried := d.entityScope(er.Ref.Entity)[on]; carried && er.Entity.Has(on) != "" && re.Attributes[on] == nil {
			d.errAt(mp, false, "give "+on+" a rule of its own in dataset.entities."+er.Entity.Name+".attributes", "%s would be copied from the %s it is to choose: the match reads it before the reference exists", on, er.Ref.Entity.Name)
			continue
		}
		er.Ref.Match = append(er.Ref.Match, RefMatch{Target: tn, Own: on})
	}
}

// inheritedName reports whether an ancestor of e carries name.
func (d *datasetResolver) inheritedName(e *Entity, name string) bool {
	for _, a := range d.ancestors(e) {
		if _, ok := d.entityScope(a)[name]; ok {
			return true
		}
	}
	return false
}

// String names the rule's formula and rounding, for messages.
func (c *Calc) String() string {
	if c.Round == "" {
		return c.Expr.String()
	}
	return fmt.Sprintf("%s, rounded %s to %d decimals", c.Expr.String(), c.Round, c.Decimals)
}

// checkRootValues refuses an entity's own values for an attribute that
// names an item of another tree's root (a placeholder its key
// introduces): the generator copies such an attribute from the root item
// it names, so values declared for it on the entity would not be drawn,
// and saying nothing would hide it. The dictionary's values are how the
// root draws its identifiers, and stay.
func (r *resolver) checkRootValues(ds *Dataset) {
	if ds == nil {
		ds = &Dataset{Entities: map[string]*EntityRules{}}
	}
	d := &datasetResolver{resolver: r, ds: ds}
	for _, en := range slices.Sorted(maps.Keys(r.ents)) {
		e := r.ents[en]
		for _, ea := range e.Attributes {
			a := r.attrs[ea.Name]
			if ea.Values == nil || a == nil || a.Computed != nil || len(a.Enum) > 0 || d.inheritedName(e, ea.Name) {
				continue
			}
			if er := ds.Entities[en]; er != nil && er.Rules[ea.Name] != nil {
				continue
			}
			if root := d.rootNamedBy(e, ea.Name); root != nil {
				r.errAt(p("entities", en, "attributes", ea.Name, "values"), true,
					"drop values here (the dictionary's values draw "+root.Name+"'s own), or give "+ea.Name+" a rule in dataset.entities."+en+".attributes",
					"%s names an item of %s (a placeholder of its key): the generator copies it from the %s item it names, so these values would not be drawn", ea.Name, root.Name, root.Name)
			}
		}
	}
}

// rootNamedBy returns the first root entity (in name order) of another
// tree whose keys hold name, nil when none does.
func (d *datasetResolver) rootNamedBy(e *Entity, name string) *Entity {
	own := append([]*Entity{e}, d.ancestors(e)...)
	for _, rn := range slices.Sorted(maps.Keys(d.ents)) {
		root := d.ents[rn]
		if root.Population == nil || root.Population.Per != "" || slices.Contains(own, root) {
			continue
		}
		for _, k := range root.Key {
			if slices.Contains(k.Template.Placeholders(), name) {
				return root
			}
		}
	}
	return nil
}
