package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
)

// entityAttr reads an entity's attribute entry: a presence word, or the
// long form with its rules (resolved later by entityRules).
func entityAttr(raw json.RawMessage) rawEntityAttr {
	var word string
	if err := json.Unmarshal(raw, &word); err == nil {
		return rawEntityAttr{Presence: word}
	}
	var ea rawEntityAttr
	_ = json.Unmarshal(raw, &ea) // the schema has checked the shape
	return ea
}

// entityRules resolves the presence rules and value shares of an
// entity's attributes.
func (r *resolver) entityRules(e *Entity) {
	re := r.raw.Entities[e.Name]
	keyPlaceholders := map[string]bool{}
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			keyPlaceholders[ph] = true
		}
	}
	for i := range e.Attributes {
		ea := &e.Attributes[i]
		raw := entityAttr(re.Attributes[ea.Name])
		ptr := p("entities", e.Name, "attributes", ea.Name)
		ea.Note, ea.Values, ea.Share = raw.Note, raw.Values, raw.Share
		if ea.Share != nil && ea.Presence != Optional {
			r.errAt(ptr+"/share", true, "", "share is the fraction of items that carry an optional attribute; %s is %s", ea.Name, ea.Presence)
			ea.Share = nil
		}
		if raw.When != nil || raw.Unless != nil {
			switch {
			case ea.Presence == KeyOnly:
				r.errAt(ptr+"/presence", false, "", "a key-only attribute is part of every key: it cannot depend on other attributes")
			case keyPlaceholders[ea.Name]:
				r.errAt(ptr, true, "", "%s is in the key of %s, which every item has: it cannot depend on other attributes", ea.Name, e.Name)
			}
			for _, side := range []struct {
				field string
				raw   map[string]json.RawMessage
				out   *[]Condition
			}{{"when", raw.When, &ea.When}, {"unless", raw.Unless, &ea.Unless}} {
				if side.raw == nil {
					continue
				}
				before := len(r.errs)
				if _, self := side.raw[ea.Name]; self {
					r.errAt(ptr+"/"+side.field+"/"+escapePtr(ea.Name), true, "", "the presence of %s cannot depend on its own value", ea.Name)
				} else {
					*side.out = r.conditions(ptr+"/"+side.field, e, side.raw)
				}
				if len(r.errs) > before {
					// A broken rule is reported once: nothing is checked against it.
					r.broken["presence:"+e.Name+"."+ea.Name] = true
					ea.When, ea.Unless = nil, nil
				}
			}
		}
		if ea.Values != nil && ea.Attribute != nil {
			r.checkWeights(ptr+"/values", ea.Attribute, ea.Values)
		}
	}
}

// share returns the fraction of an entity's items that satisfy every
// condition, from the value shares of the entity (or the dictionary),
// treating the attributes as independent; ok is false when one has no
// declared shares.
func (r *resolver) share(e *Entity, conds []Condition) (float64, string, bool) {
	share := 1.0
	for _, c := range conds {
		ea := e.attr(c.Attribute)
		if ea == nil || ea.Attribute == nil {
			return 0, c.Attribute, false
		}
		d := ea.Values
		if d == nil {
			d = ea.Attribute.Values
		}
		w, ok := d.WeightOf(ea.Attribute, c.Values)
		if !ok {
			return 0, c.Attribute, false
		}
		if ea.Share != nil {
			w *= *ea.Share // the weights count the items that carry it
		}
		share *= w
	}
	return share, "", true
}

// resolvePopulations resolves every entity's population and counts its
// items at the declared scale, parents first.
func (r *resolver) resolvePopulations() {
	for _, e := range r.m.Entities {
		rp := r.raw.Entities[e.Name].Population
		if rp == nil {
			continue
		}
		ptr := p("entities", e.Name, "population")
		pop := &Population{Total: rp.Total, Per: rp.Per, Mean: rp.Mean, Share: rp.Share, Note: rp.Note, ParentShare: 1}
		e.Population = pop
		before := len(r.errs)
		r.population(ptr, e, pop, rp)
		if len(r.errs) > before {
			r.broken["population:"+e.Name] = true
		}
	}
	r.countItems()
}

// population resolves one entity's declared population.
func (r *resolver) population(ptr string, e *Entity, pop *Population, rp *rawPopulation) {
	{
		switch {
		case rp.Total != nil && rp.Per != "":
			r.errAt(ptr+"/per", true, "", "a population is a total or a count per parent, not both")
			return
		case rp.Total != nil:
			for _, f := range []struct {
				name string
				set  bool
			}{{"mean", rp.Mean != nil}, {"share", rp.Share != nil}, {"distribution", rp.Distribution != nil}, {"where", rp.Where != nil}} {
				if f.set {
					r.errAt(ptr+"/"+f.name, true, "", "%s counts children per parent: it needs per, not total", f.name)
				}
			}
			return
		case rp.Per == "":
			r.errAt(ptr, true, "", "a population needs total, or per (the parent entity) with mean, share or distribution")
			return
		}
		parent, ok := r.ents[rp.Per]
		if !ok {
			r.errAt(ptr+"/per", false, didYouMean(rp.Per, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", rp.Per)
			return
		}
		pop.Parent = parent
		pop.PerParent = r.count(ptr, rp)
		if rp.Where != nil {
			pop.Where = r.conditions(ptr+"/where", parent, rp.Where)
			s, missing, ok := r.share(parent, pop.Where)
			if !ok {
				r.errAt(ptr+"/where", true, fmt.Sprintf("declare the shares of its values: entities.%s.attributes.%s: {presence: ..., values: {kind: weighted, weights: {...}}}", parent.Name, missing),
					"the share of %s items where %s is unknown", parent.Name, condText(pop.Where))
			}
			pop.ParentShare = s
		}
	}
}

// countItems counts every population's items, parents first; a cycle is
// an error.
func (r *resolver) countItems() {
	state := map[*Entity]int{} // 1 visiting, 2 done
	var visit func(e *Entity) bool
	visit = func(e *Entity) bool {
		pop := e.Population
		if pop == nil {
			return true
		}
		switch state[e] {
		case 1:
			r.errAt(p("entities", e.Name, "population", "per"), false, "", "populations per parent make a cycle through %s", e.Name)
			r.broken["population:"+e.Name] = true
			return false
		case 2:
			return true
		}
		state[e] = 1
		defer func() { state[e] = 2 }()
		switch {
		case pop.Total != nil:
			pop.Items, pop.Known = float64(*pop.Total), true
		case pop.Parent != nil && pop.PerParent != nil:
			if !visit(pop.Parent) {
				r.broken["population:"+e.Name] = true
				return false
			}
			if pp := pop.Parent.Population; pp != nil && pp.Known {
				pop.Items, pop.Known = pp.Items*pop.ParentShare*pop.PerParent.Mean, true
			}
		}
		return true
	}
	for _, e := range r.m.Entities {
		visit(e)
	}
}

// count resolves the count of children per parent.
func (r *resolver) count(ptr string, rp *rawPopulation) *Count {
	given := 0
	for _, set := range []bool{rp.Mean != nil, rp.Share != nil, rp.Distribution != nil} {
		if set {
			given++
		}
	}
	switch {
	case given == 0:
		r.errAt(ptr, true, "", "a population per parent needs mean, share or distribution")
		return &Count{Kind: CountFixed}
	case rp.Share != nil && given > 1:
		r.errAt(ptr+"/share", true, "", "share is a count of 0 or 1 per parent: give it alone")
	case rp.Share != nil:
		s := *rp.Share
		return &Count{Kind: CountShares, Mean: s, Shares: []CountShare{{0, 1 - s}, {1, s}}}
	case rp.Distribution == nil:
		return &Count{Kind: CountFixed, Mean: *rp.Mean}
	}
	rc := rp.Distribution
	dptr := ptr + "/distribution"
	c := &Count{Kind: rc.Kind}
	need := func(field string, ok bool) {
		if !ok {
			r.errAt(dptr, true, "", "a %s count needs %s", rc.Kind, field)
		}
	}
	refuse := func(field string, set bool) {
		if set {
			r.errAt(dptr+"/"+field, true, "", "%s does not apply to a %s count", field, rc.Kind)
		}
	}
	switch rc.Kind {
	case CountFixed:
		need("mean", rp.Mean != nil)
		refuse("min", rc.Min != nil)
		refuse("max", rc.Max != nil)
		refuse("s", rc.S != nil)
		refuse("shares", rc.Shares != nil)
		if rp.Mean != nil {
			c.Mean = *rp.Mean
		}
		return c
	case CountUniform:
		need("min and max", rc.Min != nil && rc.Max != nil)
		refuse("s", rc.S != nil)
		refuse("shares", rc.Shares != nil)
		if rc.Min != nil && rc.Max != nil {
			c.Min, c.Max = *rc.Min, *rc.Max
			if c.Min > c.Max {
				r.errf(dptr+"/max", "max %d is below min %d", c.Max, c.Min)
			}
			c.Mean = float64(c.Min+c.Max) / 2
		}
	case CountZipf:
		need("max", rc.Max != nil)
		refuse("min", rc.Min != nil)
		refuse("shares", rc.Shares != nil)
		c.S = 1
		if rc.S != nil {
			c.S = *rc.S
		}
		if rc.Max != nil {
			c.Max = *rc.Max
			if c.Max < 1 {
				r.errf(dptr+"/max", "a zipf count runs from 1 to max: max must be at least 1")
			}
			var w, wk float64
			for k := int64(1); k <= c.Max && k <= 1_000_000; k++ {
				x := math.Pow(float64(k), -c.S)
				w += x
				wk += x * float64(k)
			}
			if w > 0 {
				c.Mean = wk / w
			}
		}
	case CountShares:
		need("shares", len(rc.Shares) > 0)
		refuse("min", rc.Min != nil)
		refuse("max", rc.Max != nil)
		refuse("s", rc.S != nil)
		sum := 0.0
		for k, s := range rc.Shares {
			n, _ := strconv.ParseInt(k, 10, 64) // the schema allows digits only
			c.Shares = append(c.Shares, CountShare{n, s})
			sum += s
			c.Mean += float64(n) * s
		}
		sort.Slice(c.Shares, func(i, j int) bool { return c.Shares[i].Count < c.Shares[j].Count })
		if len(rc.Shares) > 0 && (sum < 0.999 || sum > 1.001) {
			r.errf(dptr+"/shares", "the shares of parents add up to %v, not 1", round4(sum))
		}
	}
	if rp.Mean != nil && math.Abs(*rp.Mean-c.Mean) > 1e-6*math.Max(1, c.Mean) {
		r.errAt(ptr+"/mean", false, "drop mean: the distribution gives it", "mean %v disagrees with the distribution, whose mean is %v", *rp.Mean, round4(c.Mean))
	}
	return c
}

// resolveScale resolves the scale section: the business unit, the peaks.
func (r *resolver) resolveScale() {
	rs := r.raw.Scale
	if rs == nil {
		return
	}
	s := &r.m.Scale
	s.StorageGB, s.History, s.Note = rs.StorageGB, rs.History, rs.Note
	for _, name := range slices.Sorted(maps.Keys(rs.Peaks)) {
		rp := rs.Peaks[name]
		pk := &Peak{Name: name, Rule: rp.Rule, Description: rp.Description, Factor: 1, Prewarm: rp.Prewarm}
		if rp.Factor != nil {
			pk.Factor = *rp.Factor
		}
		s.Peaks = append(s.Peaks, pk)
	}
	if bu := rs.BusinessUnit; bu != nil {
		ptr := "/scale/businessUnit"
		u := &BusinessUnit{Name: bu.Name}
		switch {
		case bu.Entity != "" && bu.Count != nil:
			r.errAt(ptr+"/count", true, "", "the count comes from the entity's population: give entity or count, not both")
		case bu.Entity != "":
			e, ok := r.ents[bu.Entity]
			if !ok {
				r.errAt(ptr+"/entity", false, didYouMean(bu.Entity, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", bu.Entity)
				break
			}
			u.Entity = e
			if r.broken["population:"+e.Name] {
				break // reported at the population
			}
			if e.Population == nil || !e.Population.Known {
				r.errAt(ptr+"/entity", false, fmt.Sprintf("declare entities.%s.population", e.Name), "the number of %s is the population of %s, which the model does not give", bu.Name, e.Name)
				break
			}
			u.Count = e.Population.Items
		case bu.Count != nil:
			u.Count = *bu.Count
		default:
			r.errAt(ptr, true, "", "a business unit needs the entity that counts it, or its count")
		}
		s.BusinessUnit = u
	}
}

// peakRefs checks names of peaks.
func (r *resolver) peakRefs(ptr string, names []string) {
	for i, n := range names {
		if r.m.Peak(n) == nil {
			r.errAt(fmt.Sprintf("%s/%d", ptr, i), false, r.peakHint(n), "unknown peak %q", n)
		}
	}
}

func (r *resolver) peakHint(n string) string {
	hint := didYouMean(n, r.peakNames())
	if hint == "" {
		hint = "declare it under scale.peaks"
	}
	return hint
}

func (r *resolver) peakNames() []string {
	var out []string
	for _, pk := range r.m.Scale.Peaks {
		out = append(out, pk.Name)
	}
	return out
}

// volume resolves an operation's volume; a volume per item of an entity
// becomes runs of the business.
func (r *resolver) volume(ptr string, rv *rawVolume) Volume {
	v := Volume{PerDay: rv.PerDay, PerMonth: rv.PerMonth, PeakPerSecond: rv.PeakPerSecond, When: rv.When, Peaks: rv.Peaks}
	r.peakRefs(ptr+"/peaks", rv.Peaks)
	if rv.Per == "" {
		if rv.Where != nil {
			r.errAt(ptr+"/where", true, "", "where applies to a volume per item of an entity: give per")
		}
		return v
	}
	e, ok := r.ents[rv.Per]
	if !ok {
		r.errAt(ptr+"/per", false, didYouMean(rv.Per, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", rv.Per)
		return v
	}
	rel := &RelativeVolume{Entity: e, PerDay: rv.PerDay, PerMonth: rv.PerMonth}
	if rv.PerDay == nil && rv.PerMonth == nil {
		r.errAt(ptr, true, "", "a volume per item of %s needs perDay or perMonth", e.Name)
	}
	share := 1.0
	if rv.Where != nil {
		rel.Where = r.conditions(ptr+"/where", e, rv.Where)
		s, missing, ok := r.share(e, rel.Where)
		if !ok {
			r.errAt(ptr+"/where", true, fmt.Sprintf("declare the shares of its values: entities.%s.attributes.%s: {presence: ..., values: {kind: weighted, weights: {...}}}", e.Name, missing),
				"the share of %s items where %s is unknown", e.Name, condText(rel.Where))
		}
		share = s
	}
	if r.broken["population:"+e.Name] {
		return v // reported at the population
	}
	if e.Population == nil || !e.Population.Known {
		r.errAt(ptr+"/per", false, fmt.Sprintf("declare entities.%s.population", e.Name), "a volume per item of %s needs its population", e.Name)
		return v
	}
	rel.Items = e.Population.Items * share
	mul := func(x *float64) *float64 {
		if x == nil {
			return nil
		}
		y := *x * rel.Items
		return &y
	}
	v.PerDay, v.PerMonth, v.Relative = mul(rv.PerDay), mul(rv.PerMonth), rel
	return v
}
