package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// Dataset is the model's `dataset` section: what the dataset generator
// needs beyond the dictionary's domains and the entities' populations to
// synthesise a coherent population. Which attributes are copied from the
// parent item (by default every attribute the parent carries under the
// same name), which are derived from others, from the item's children or
// from the day the population is drawn as of, the states an item can be
// in and their shares, and the formats of values that look real.
//
// Every rule is declarative and generic: the generator knows no entity or
// attribute by name, only the kinds of rule below.
type Dataset struct {
	// AsOf is the civil date the population is drawn as of (dates past
	// due, counters of the last days, instants up to it); nil when not
	// declared, then the generator's caller chooses.
	AsOf *time.Time
	// Locale selects the names, phones and addresses of format rules
	// (pt_BR, en_US); "" is en_US.
	Locale string
	// Entities holds the rules of each entity that has any, by name.
	Entities map[string]*EntityRules
}

// Locales the format rules know.
var Locales = []string{"en_US", "pt_BR"}

// EntityRules are the generation rules of one entity.
type EntityRules struct {
	Entity *Entity
	// Each names an attribute whose every domain value (an enum value, or
	// each of its cardinality's values) is a parent of the entity's
	// items: per tenant, per region. The items do not scale with --scale.
	Each string
	// Count names the parent attribute (or variable) whose value is the
	// number of the entity's items under each parent item.
	Count string
	// When is the condition a parent item must meet to have items of the
	// entity at all (charges only for open instalments).
	When Cond
	// Ref picks, for each item, one item of another entity of the same
	// tree whose attributes the item's rules may read.
	Ref *Ref
	// Group makes the entity's items the groups of other items under
	// the same parent: one item per distinct key (a day's counter of the
	// day's contacts), instead of a count per parent.
	Group *Group
	// Vars are generation-only values, never stored: computed in order,
	// readable by the item's rules and its children's.
	Vars []*Var
	// States are mutually exclusive; exactly one is chosen per item, by
	// share or by the first whose condition holds. It sets attributes.
	States []*State
	// Rules gives how the named attribute is generated, by name.
	Rules map[string]*Rule
}

// Ref is a reference to one item of another entity of the same item tree
// (a sibling or a cousin), chosen at random among those meeting Where,
// or to a root item of another tree (Root).
type Ref struct {
	Entity *Entity
	Where  Cond
	// Root: Entity is the root of another item tree (a population
	// total); the item refers to one of all its items, drawn at random,
	// and reads what that item carries without its children.
	Root bool
	// Name is how rules read its attributes: {copy: "NAME.attr"}; by
	// default the referenced entity's own attributes are in scope by name,
	// after the item's own and before its parents'.
	//
	// Match narrows the candidates to those whose attribute equals the
	// item's own value (the charge of the event's own instalment).
	Match []RefMatch
}

// Group is how an entity's items gather other items: Of, the member
// entity, a descendant of the group entity's parent; By, the group
// entity's attributes, each taken from a member attribute (an instant
// gives its civil day when the group attribute is a civil date); Days,
// when set, keeps only the groups whose date is within that many days
// before asOf; Max, when set, caps a group's members: a member that would
// exceed it is drawn again, then left out.
type Group struct {
	Of   *Entity
	By   []GroupKey
	Days int
	Max  int
}

// GroupKey is one attribute of a group's key.
type GroupKey struct {
	Attribute string // of the group entity
	From      string // of the member entity
}

// Var is a named generation-only value.
type Var struct {
	Name string
	Type attr.Type // S or N, inferred from the rule
	Rule *Rule
}

// State is one state of an entity's items.
type State struct {
	Name  string
	Share float64 // 0 when When decides
	When  Cond
	Set   map[string]attr.Value
	// Absent lists the attributes items in this state do not carry.
	Absent []string
}

// RuleKind is the kind of a generation rule.
type RuleKind string

// Rule kinds.
const (
	RuleValue     RuleKind = "value"     // a constant
	RuleValues    RuleKind = "values"    // drawn from a distribution
	RuleCopy      RuleKind = "copy"      // the value of another name in scope
	RuleTemplate  RuleKind = "template"  // rendered from names in scope
	RuleSum       RuleKind = "sum"       // Σ sum − Σ minus
	RuleMin       RuleKind = "min"       // smallest operand
	RuleMax       RuleKind = "max"       // largest operand
	RuleDate      RuleKind = "date"      // a date or instant shifted by days, months, years
	RuleCases     RuleKind = "cases"     // the first case whose condition holds
	RuleAggregate RuleKind = "aggregate" // sum, count, min or max over the item's children
	RuleBand      RuleKind = "band"      // the enum value whose range holds a number
	RuleFormat    RuleKind = "format"    // a realistic value of a named format
	RuleEncrypt   RuleKind = "encrypt"   // the ciphertext of another value with a test key
	RuleSplit     RuleKind = "split"     // a share of a parent's number, the siblings' shares adding up to it
	RuleSize      RuleKind = "size"      // the elements of a list, map or set, or the characters of a string
	RuleList      RuleKind = "list"      // a list of a drawn number of elements of the attribute's element domain
	RuleDefault   RuleKind = "default"   // the draw the dictionary alone would give
	RuleAbsent    RuleKind = "absent"    // the attribute is not carried
)

// Rule is one generation rule. Kind says which fields are set.
type Rule struct {
	Kind     RuleKind
	Value    *attr.Value   // value
	Values   *Distribution // values
	Name     string        // copy, encrypt: the name read
	Template *KeyTemplate  // template
	Sum      []SynthOperand
	Minus    []SynthOperand // sum
	Operands []SynthOperand // min, max
	Date     *DateRule
	Cases    []*Case
	Agg      *Aggregate
	Band     *Band
	Format   string
	// Count is the number of elements of a list rule.
	Count *SynthOperand
	// Calc is a calc rule's formula and rounding; Geohash a geohash
	// rule's coordinates and precision (dataset_rules.go).
	Calc    *Calc
	Geohash *Geohash
}

// SynthOperand is a name in scope (an attribute, variable or built-in)
// or a literal.
type SynthOperand struct {
	Name    string
	Literal *attr.Value
	// Range, when set, is a uniform integer draw between two operands.
	Range []SynthOperand
}

// DateRule shifts a civil date or instant.
type DateRule struct {
	From                string // a name in scope, or asOf
	Days, Months, Years *SynthOperand
	Seconds             *SynthOperand
}

// Case is one branch of a cases rule; an empty When always holds.
type Case struct {
	When Cond
	Rule *Rule
}

// Aggregate folds one attribute of the item's children of one entity.
type Aggregate struct {
	Fn     string // sum, count, min, max
	Of     *Entity
	Value  string // the child attribute (count: unused)
	Where  Cond
	Filled bool // min and max of no child: absent
}

// Band maps a number to the enum value whose inclusive range holds it.
// Days, when set, is the number of days from its first name to its
// second (asOf included). A band whose source date has no rule of its
// own is drawn backwards: the enum value by its weights, then the date
// inside the value's range.
type Band struct {
	Days   []string
	Value  string
	Ranges []BandRange
}

// BandRange is one enum value's inclusive range.
type BandRange struct {
	Value  string
	Lo, Hi float64
}

// Cond is a conjunction of terms; the empty Cond always holds.
type Cond []CondTerm

// CondTerm compares a name in scope with operands.
type CondTerm struct {
	Name string
	Op   string // eq, ne, lt, le, gt, ge, in, exists
	Args []SynthOperand
}

// Formats the format rule knows. Each draws values that look real and
// pass their own checks (a CPF's check digits, a boleto's).
var Formats = map[string]attr.Type{
	"cpf": attr.S, "cpfDigits": attr.S, "cnpj": attr.S, "pixTxid": attr.S, "pixE2E": attr.S, "boleto": attr.S,
	"name": attr.S, "firstName": attr.S, "lastName": attr.S, "email": attr.S, "phone": attr.S,
	"street": attr.S, "city": attr.S, "state": attr.S, "postalCode": attr.S, "address": attr.S,
	"company": attr.S, "uuid": attr.S, "sentence": attr.S, "word": attr.S,
}

// Built-in names every rule may read: asOf (the civil date), index (the
// item's 0-based ordinal under its parent, or among the roots), n
// (index + 1) and siblings (how many items of the entity its parent has).
// Attributes and variables of the same names shadow them.
var Builtins = []string{"asOf", "index", "n", "siblings"}

type rawDataset struct {
	AsOf     string                    `json:"asOf"`
	Locale   string                    `json:"locale"`
	Entities map[string]rawEntityRules `json:"entities"`
}

type rawEntityRules struct {
	Each       string                     `json:"each"`
	Count      string                     `json:"count"`
	When       map[string]json.RawMessage `json:"when"`
	Ref        *rawRef                    `json:"ref"`
	Group      *rawGroup                  `json:"group"`
	Vars       map[string]json.RawMessage `json:"vars"`
	States     map[string]rawState        `json:"states"`
	Attributes map[string]json.RawMessage `json:"attributes"`
}

type rawRef struct {
	Entity string                     `json:"entity"`
	Where  map[string]json.RawMessage `json:"where"`
	Match  map[string]string          `json:"match"`
}

type rawGroup struct {
	Of   string            `json:"of"`
	By   map[string]string `json:"by"`
	Days int               `json:"days"`
	Max  int               `json:"max"`
}

type rawState struct {
	Share  *float64                   `json:"share"`
	When   map[string]json.RawMessage `json:"when"`
	Set    map[string]json.RawMessage `json:"set"`
	Absent []string                   `json:"absent"`
}

// datasetResolver resolves the dataset section once entities exist.
type datasetResolver struct {
	*resolver
	ds *Dataset
}

// resolveDataset reads the dataset section. Entities, attributes and
// populations are resolved before it.
func (r *resolver) resolveDataset(raw *rawDataset) *Dataset {
	if raw == nil {
		return nil
	}
	d := &datasetResolver{resolver: r, ds: &Dataset{Locale: raw.Locale, Entities: map[string]*EntityRules{}}}
	if raw.AsOf != "" {
		t, err := time.Parse("2006-01-02", raw.AsOf)
		if err != nil {
			r.errf("/dataset/asOf", "%q is not a valid date", raw.AsOf)
		} else {
			d.ds.AsOf = &t
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw.Entities)) {
		e, ok := r.ents[name]
		if !ok {
			r.errAt(p("dataset", "entities", name), true, didYouMean(name, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", name)
			continue
		}
		d.ds.Entities[name] = &EntityRules{Entity: e, Rules: map[string]*Rule{}}
	}
	// Names in scope need every entity's variables, so variables are
	// declared first and their rules read afterwards.
	for _, name := range slices.Sorted(maps.Keys(d.ds.Entities)) {
		er, re := d.ds.Entities[name], raw.Entities[name]
		for _, vn := range slices.Sorted(maps.Keys(re.Vars)) {
			if er.Entity.Has(vn) != "" {
				r.errAt(p("dataset", "entities", name, "vars", vn), true, "", "%s is an attribute of %s; a variable needs a name of its own", vn, name)
			}
			er.Vars = append(er.Vars, &Var{Name: vn})
		}
	}
	// Variables' types, before any rule reads them: inferred from the
	// kind of their rule (a copy takes its source's type), until nothing
	// changes.
	for pass := 0; pass < 8; pass++ {
		changed := false
		for _, name := range slices.Sorted(maps.Keys(d.ds.Entities)) {
			er, re := d.ds.Entities[name], raw.Entities[name]
			for _, v := range er.Vars {
				if t := d.rawType(re.Vars[v.Name], d.scope(er)); t != v.Type && t != attr.Invalid {
					v.Type, changed = t, true
				}
			}
		}
		if !changed {
			break
		}
	}
	// Parents first: a child's rules read its parents' variables, typed
	// by then.
	names := slices.Sorted(maps.Keys(d.ds.Entities))
	sort.SliceStable(names, func(i, j int) bool {
		return len(d.ancestors(d.ds.Entities[names[i]].Entity)) < len(d.ancestors(d.ds.Entities[names[j]].Entity))
	})
	for _, name := range names {
		d.entity(d.ds.Entities[name], raw.Entities[name])
	}
	return d.ds
}

// ParentOf returns the entity the items of e hang off: its population's
// per entity, or nil for a root.
func (m *Model) ParentOf(e *Entity) *Entity {
	if e == nil || e.Population == nil || e.Population.Per == "" {
		return nil
	}
	return m.Entity(e.Population.Per)
}

func (d *datasetResolver) parent(e *Entity) *Entity {
	if e.Population == nil || e.Population.Per == "" {
		return nil
	}
	return d.ents[e.Population.Per]
}

// ancestors returns e's parent, grandparent... (cycles cut).
func (d *datasetResolver) ancestors(e *Entity) []*Entity {
	var out []*Entity
	seen := map[*Entity]bool{e: true}
	for a := d.parent(e); a != nil && !seen[a]; a = d.parent(a) {
		seen[a] = true
		out = append(out, a)
	}
	return out
}

// scope is the set of names a rule of e may read: e's attributes and
// variables, its ref's entity's, every ancestor's, and the built-ins.
func (d *datasetResolver) scope(er *EntityRules) map[string]attr.Type {
	s := map[string]attr.Type{"asOf": attr.S, "index": attr.N, "n": attr.N, "siblings": attr.N}
	add := func(e *Entity) {
		for n, t := range d.entityScope(e) {
			s[n] = t
		}
	}
	chain := append([]*Entity{er.Entity}, d.ancestors(er.Entity)...)
	for i := len(chain) - 1; i >= 0; i-- {
		add(chain[i])
	}
	if er.Ref != nil && er.Ref.Entity != nil {
		add(er.Ref.Entity)
		add(er.Entity)
	}
	// ENTITY.name reads the attribute of that ancestor (or of the
	// reference) even where a nearer item has one of the same name.
	qualify := func(e *Entity) {
		for n, t := range d.entityScope(e) {
			s[e.Name+"."+n] = t
		}
	}
	for _, e := range chain {
		qualify(e)
	}
	if er.Ref != nil && er.Ref.Entity != nil {
		qualify(er.Ref.Entity)
	}
	return s
}

// entityScope is the names one entity's items hold: its attributes, the
// placeholders of its keys, its variables and the never-stored inputs of
// its computed attributes.
func (d *datasetResolver) entityScope(e *Entity) map[string]attr.Type {
	s := map[string]attr.Type{}
	for _, ea := range e.Attributes {
		if a := d.attrs[ea.Name]; a != nil {
			s[ea.Name] = a.Type
			if a.Computed != nil && a.Computed.Input != "" {
				if in := d.attrs[a.Computed.Input]; in != nil {
					s[in.Name] = in.Type
				}
			}
		}
	}
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if a := d.attrs[ph]; a != nil {
				s[ph] = a.Type
			}
		}
	}
	if r := d.ds.Entities[e.Name]; r != nil {
		for _, v := range r.Vars {
			s[v.Name] = v.Type
		}
	}
	return s
}

func isBuiltin(name string) bool {
	for _, b := range Builtins {
		if b == name {
			return true
		}
	}
	return false
}

func (d *datasetResolver) entity(er *EntityRules, re rawEntityRules) {
	e := er.Entity
	base := p("dataset", "entities", e.Name)
	parent := d.parent(e)
	if re.Each != "" {
		a := d.attrRef(base+"/each", re.Each)
		switch {
		case a == nil:
		case parent != nil:
			d.errf(base+"/each", "%s already hangs off %s (population.per); each makes the values of %s its parents instead", e.Name, parent.Name, re.Each)
		case len(a.Enum) == 0 && a.Cardinality <= 0:
			d.errAt(base+"/each", false, "give "+re.Each+" an enum or a cardinality", "each needs the values of %s to be countable", re.Each)
		case e.Has(re.Each) == "":
			d.errf(base+"/each", "%s does not carry %s", e.Name, re.Each)
		default:
			er.Each = re.Each
		}
	}
	if re.Ref != nil {
		t, ok := d.ents[re.Ref.Entity]
		if !ok {
			d.errAt(base+"/ref/entity", false, didYouMean(re.Ref.Entity, slices.Sorted(maps.Keys(d.ents))), "unknown entity %q", re.Ref.Entity)
		} else if t == e {
			d.errf(base+"/ref/entity", "an item cannot refer to an item of its own entity")
		} else if contains(datasetEntityNames(d.ancestors(e)), t.Name) {
			d.errAt(base+"/ref/entity", false, "drop the ref and read "+t.Name+"'s attributes by name", "%s is an ancestor of %s: its attributes are in scope already", t.Name, e.Name)
		} else if contains(datasetEntityNames(d.ancestors(t)), e.Name) {
			d.errAt(base+"/ref/entity", false, "fold the children with an aggregate rule", "%s hangs off %s: an item cannot refer to one of its own descendants", t.Name, e.Name)
		} else if !d.sameTree(e, t) {
			switch {
			case d.parent(t) != nil:
				d.errAt(base+"/ref/entity", false, "refer to the root of "+t.Name+"'s tree, or to an item under one of "+e.Name+"'s ancestors", "%s is not in the item tree of %s (no common ancestor by population.per) and is not the root of its own (it hangs off %s)", t.Name, e.Name, d.parent(t).Name)
			case len(re.Ref.Where) > 0:
				d.errAt(base+"/ref/where", false, "drop where: the root item is drawn among all of them", "a reference to another tree's root (%s) takes no where", t.Name)
			default:
				er.Ref = &Ref{Entity: t, Root: true}
			}
		} else {
			er.Ref = &Ref{Entity: t}
		}
	}
	if re.Group != nil {
		d.group(er, re.Group, base+"/group")
	}
	scope := d.scope(er)
	if er.Ref != nil && re.Ref != nil {
		rs := d.scope(&EntityRules{Entity: er.Ref.Entity})
		er.Ref.Where = d.cond(base+"/ref/where", re.Ref.Where, rs)
		d.refMatch(er, base+"/ref/match", re.Ref.Match, re)
	}
	if re.Count != "" {
		switch {
		case parent == nil && er.Each == "":
			d.errf(base+"/count", "%s has no parent (population.per) whose value could count its items", e.Name)
		case parent != nil:
			ps := d.scope(d.rulesOf(parent))
			if t, ok := ps[re.Count]; !ok {
				d.errAt(base+"/count", false, didYouMean(re.Count, slices.Sorted(maps.Keys(ps))), "%s is not an attribute or variable of %s or its parents", re.Count, parent.Name)
			} else if t != attr.N && t != attr.Invalid {
				d.errf(base+"/count", "%s is %s: a count needs a number", re.Count, t)
			} else {
				er.Count = re.Count
			}
		}
	}
	if len(re.When) > 0 {
		if parent == nil {
			d.errf(base+"/when", "%s has no parent (population.per) for the condition to test", e.Name)
		} else {
			er.When = d.cond(base+"/when", re.When, d.scope(d.rulesOf(parent)))
		}
	}
	for _, v := range er.Vars {
		v.Rule = d.rule(p("dataset", "entities", e.Name, "vars", v.Name), re.Vars[v.Name], scope, attr.Invalid, nil)
		if v.Rule != nil {
			v.Type = d.ruleType(v.Rule, scope)
			scope[v.Name] = v.Type
		}
	}
	d.states(er, re, scope)
	for _, an := range slices.Sorted(maps.Keys(re.Attributes)) {
		ptr := p("dataset", "entities", e.Name, "attributes", an)
		a := d.attrs[an]
		if e.Has(an) == "" && !d.isHiddenInput(e, an) {
			var carried []string
			for _, ea := range e.Attributes {
				carried = append(carried, ea.Name)
			}
			d.errAt(ptr, true, didYouMean(an, carried), "%s does not carry %s", e.Name, an)
			continue
		}
		if a == nil {
			continue
		}
		if a.Computed != nil {
			// A computed attribute's value is its computation; a rule may
			// only say when the item carries it.
			rl := d.rule(ptr, re.Attributes[an], scope, a.Type, a)
			if rl != nil && !presenceOnly(rl) {
				d.errAt(ptr, true, "say only when it is carried: absent: true, or cases of default: true (the computation) and absent: true", "%s is computed (attributes.%s.computed); the generator computes it", an, an)
				continue
			}
			if rl != nil {
				er.Rules[an] = rl
			}
			continue
		}
		if e.Table != nil && (an == e.Table.PartitionKey || an == e.Table.SortKey || an == e.Table.Discriminator) {
			d.errAt(ptr, true, "", "%s is rendered from the entity's key templates", an)
			continue
		}
		if rl := d.rule(ptr, re.Attributes[an], scope, a.Type, a); rl != nil {
			er.Rules[an] = rl
		}
	}
}

// isHiddenInput reports whether name is the never-stored input of a
// computed attribute of e (a CPF behind a keyed hash): rules may say how
// it is drawn.
func (d *datasetResolver) isHiddenInput(e *Entity, name string) bool {
	for _, ea := range e.Attributes {
		if a := d.attrs[ea.Name]; a != nil && a.Computed != nil && a.Computed.Input == name {
			return true
		}
	}
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if a := d.attrs[ph]; a != nil && a.Computed != nil && a.Computed.Input == name {
				return true
			}
		}
	}
	return false
}

func (d *datasetResolver) rulesOf(e *Entity) *EntityRules {
	if er := d.ds.Entities[e.Name]; er != nil {
		return er
	}
	return &EntityRules{Entity: e}
}

func (d *datasetResolver) sameTree(a, b *Entity) bool {
	roots := func(e *Entity) *Entity {
		anc := d.ancestors(e)
		if len(anc) == 0 {
			return e
		}
		return anc[len(anc)-1]
	}
	return roots(a) == roots(b)
}

func (d *datasetResolver) states(er *EntityRules, re rawEntityRules, scope map[string]attr.Type) {
	if len(re.States) == 0 {
		return
	}
	e := er.Entity
	total, shared, conditioned := 0.0, 0, 0
	for _, sn := range slices.Sorted(maps.Keys(re.States)) {
		rs := re.States[sn]
		ptr := p("dataset", "entities", e.Name, "states", sn)
		st := &State{Name: sn, Set: map[string]attr.Value{}}
		switch {
		case rs.Share != nil && len(rs.When) > 0:
			d.errAt(ptr, true, "", "state %s has both share and when: give one", sn)
		case rs.Share != nil:
			st.Share = *rs.Share
			total += st.Share
			shared++
		case len(rs.When) > 0:
			st.When = d.cond(ptr+"/when", rs.When, scope)
			conditioned++
		default:
			d.errAt(ptr, true, "", "state %s needs a share or a when", sn)
		}
		for _, an := range slices.Sorted(maps.Keys(rs.Set)) {
			sp := ptr + "/set/" + escapePtr(an)
			a := d.attrs[an]
			if a == nil || e.Has(an) == "" {
				d.errAt(sp, true, "", "%s does not carry %s", e.Name, an)
				continue
			}
			v, err := d.literal(rs.Set[an], a)
			if err != nil {
				d.errf(sp, "%v", err)
				continue
			}
			st.Set[an] = v
		}
		for i, an := range rs.Absent {
			if e.Has(an) == "" {
				d.errf(fmt.Sprintf("%s/absent/%d", ptr, i), "%s does not carry %s", e.Name, an)
				continue
			}
			if e.Has(an) == Required {
				d.errf(fmt.Sprintf("%s/absent/%d", ptr, i), "%s is required on %s: every item carries it", an, e.Name)
				continue
			}
			st.Absent = append(st.Absent, an)
		}
		er.States = append(er.States, st)
	}
	if shared > 0 && conditioned > 0 {
		d.errAt(p("dataset", "entities", e.Name, "states"), true, "", "states are chosen either by share or by when, not both")
	}
	if shared > 0 && math.Abs(total-1) > 1e-6 {
		d.errAt(p("dataset", "entities", e.Name, "states"), true, "", "state shares add up to %s, not 1", trimFloat(total))
	}
	// States in the order they are tested: shares by name (cumulative),
	// conditions by name too (the first that holds wins).
	sort.SliceStable(er.States, func(i, j int) bool { return er.States[i].Name < er.States[j].Name })
}

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".")
}

// literal types a plain value by an attribute.
func (d *datasetResolver) literal(raw json.RawMessage, a *Attribute) (attr.Value, error) {
	v, err := decodeAny(raw)
	if err != nil {
		return attr.Value{}, err
	}
	return typedValue(v, a.Type, a)
}

var ruleKinds = []RuleKind{RuleValue, RuleValues, RuleCopy, RuleTemplate, RuleSum, RuleMin, RuleMax, RuleDate, RuleCases, RuleAggregate, RuleBand, RuleFormat, RuleEncrypt, RuleSplit, RuleSize, RuleList, RuleCalc, RuleGeohash, RuleDefault, RuleAbsent}

// rule reads one rule mapping. want is the type of the attribute it
// fills (Invalid for a variable), a the attribute or nil.
// The larger kinds are read by the rule* methods below, which fill rl
// and report false when the rule cannot be read.
func (d *datasetResolver) rule(ptr string, raw json.RawMessage, scope map[string]attr.Type, want attr.Type, a *Attribute) *Rule {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		d.errf(ptr, "a rule is a mapping with one of %s", kindList())
		return nil
	}
	var kinds []string
	for k := range m {
		if k == "minus" || k == "when" || k == "round" || k == "decimals" {
			continue
		}
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	if len(kinds) != 1 {
		if len(kinds) == 0 {
			d.errAt(ptr, true, "", "a rule needs one of %s", kindList())
		} else {
			d.errAt(ptr, true, "", "a rule has exactly one kind, this one has %s", strings.Join(kinds, ", "))
		}
		return nil
	}
	kind := RuleKind(kinds[0])
	kp := ptr + "/" + escapePtr(kinds[0])
	body := m[kinds[0]]
	rl := &Rule{Kind: kind}
	if _, ok := m["minus"]; ok && kind != RuleSum {
		d.errAt(ptr+"/minus", true, "", "minus belongs to a sum rule")
	}
	for _, k := range []string{"round", "decimals"} {
		if _, ok := m[k]; ok && kind != RuleCalc {
			d.errAt(ptr+"/"+k, true, "", "%s belongs to a calc rule", k)
		}
	}
	if _, ok := m["when"]; ok {
		d.errAt(ptr+"/when", true, "conditions go in the cases of a cases rule", "a rule has no when of its own")
	}
	switch kind {
	case RuleValue:
		if !d.ruleValue(rl, kp, body, scope, a) {
			return nil
		}
	case RuleValues:
		var dist Distribution
		if err := json.Unmarshal(body, &dist); err != nil {
			d.errf(kp, "values is a distribution: {kind: uniform, min: 1, max: 10}")
			return nil
		}
		rl.Values = &dist
		if len(dist.Weights) > 0 && a != nil && len(a.Enum) > 0 {
			for _, w := range slices.Sorted(maps.Keys(dist.Weights)) {
				if !contains(a.Enum, w) {
					d.errAt(kp+"/weights/"+escapePtr(w), true, didYouMean(w, a.Enum), "%q is not a value of %s", w, a.Name)
				}
			}
		}
	case RuleCalc:
		if !d.ruleCalc(rl, ptr, kp, m, scope, want) {
			return nil
		}
	case RuleGeohash:
		if !d.ruleGeohash(rl, kp, body, scope, want) {
			return nil
		}
	case RuleSplit:
		if !d.ruleSplit(rl, ptr, kp, body, scope, want) {
			return nil
		}
	case RuleCopy, RuleEncrypt:
		var s string
		if err := json.Unmarshal(body, &s); err != nil || s == "" {
			d.errf(kp, "%s takes a name", kind)
			return nil
		}
		if _, ok := scope[s]; !ok {
			d.errAt(kp, false, didYouMean(s, slices.Sorted(maps.Keys(scope))), "%s is not in scope (an attribute or variable of the item, its reference or its parents)", s)
			return nil
		}
		if kind == RuleEncrypt && want != attr.B && want != attr.Invalid {
			d.errf(kp, "encrypt gives binary ciphertext: the attribute must be B, not %s", want)
		}
		rl.Name = s
	case RuleTemplate:
		if !d.ruleTemplate(rl, kp, body, scope, want) {
			return nil
		}
	case RuleSum:
		rl.Sum = d.operands(kp, body, scope, true)
		if mr, ok := m["minus"]; ok {
			rl.Minus = d.operands(ptr+"/minus", mr, scope, true)
		}
		d.wantNumber(kp, want)
	case RuleMin, RuleMax:
		rl.Operands = d.operands(kp, body, scope, true)
		if len(rl.Operands) == 0 {
			d.errf(kp, "%s needs at least one operand", kind)
		}
	case RuleDate:
		rl.Date = d.date(kp, body, scope)
		if a != nil && a.Unit != UnitCivilDate && a.Unit != UnitInstant && a.Unit != UnitEpochSeconds {
			d.errAt(kp, true, "give the attribute unit civilDate, instant or epochSeconds", "a date rule fills a date; %s has no date unit", a.Name)
		}
	case RuleCases:
		if !d.ruleCases(rl, kp, body, scope, want, a) {
			return nil
		}
	case RuleAggregate:
		rl.Agg = d.aggregate(kp, body, rl, want)
	case RuleBand:
		rl.Band = d.band(kp, body, scope, a)
	case RuleFormat:
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			d.errf(kp, "format takes a format name")
			return nil
		}
		if _, ok := Formats[s]; !ok {
			d.errAt(kp, false, didYouMean(s, slices.Sorted(maps.Keys(Formats))), "unknown format %q", s)
			return nil
		}
		if want != attr.S && want != attr.Invalid {
			d.errf(kp, "format %s gives a string: the attribute must be S, not %s", s, want)
		}
		rl.Format = s
	case RuleSize:
		if !d.ruleSize(rl, kp, body, scope, want) {
			return nil
		}
	case RuleList:
		if !d.ruleList(rl, kp, body, scope, want) {
			return nil
		}
	case RuleDefault:
		var b bool
		if err := json.Unmarshal(body, &b); err != nil || !b {
			d.errf(kp, "default takes true")
			return nil
		}
		if a == nil {
			d.errf(kp, "a variable has no dictionary entry to draw by")
			return nil
		}
	case RuleAbsent:
		var b bool
		if err := json.Unmarshal(body, &b); err != nil || !b {
			d.errf(kp, "absent takes true")
			return nil
		}
		if a != nil {
			if ent := d.entityOfPtr(ptr); ent != nil && ent.Has(a.Name) == Required {
				d.errf(kp, "%s is required on %s: every item carries it", a.Name, ent.Name)
			}
		}
	default:
		d.errAt(kp, true, didYouMean(string(kind), kindNames()), "unknown rule kind %q; expected one of %s", kind, kindList())
		return nil
	}
	return rl
}

// ruleValue reads a value rule, typed by its attribute.
func (d *datasetResolver) ruleValue(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, a *Attribute) bool {
	v, err := decodeAny(body)
	if err != nil {
		d.errf(kp, "%v", err)
		return false
	}
	var tv attr.Value
	if a != nil && (a.Type == attr.L || a.Type == attr.M) {
		// A list or map may hold "{name}" templates, rendered per item.
		tv, err = inferValue(v)
		if err == nil {
			d.valueTemplates(kp, tv, scope)
		}
	} else if a != nil {
		tv, err = typedValue(v, a.Type, a)
	} else {
		tv, err = inferValue(v)
	}
	if err != nil {
		d.errf(kp, "%v", err)
		return false
	}
	rl.Value = &tv
	return true
}

// ruleSplit reads a split rule: a parent's number shared among its items.
func (d *datasetResolver) ruleSplit(rl *Rule, ptr, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	n, t, ok := d.scopedName(kp, body, scope, "split takes the name of the parent's number the siblings share")
	if !ok {
		return false
	}
	if t != attr.N {
		d.errf(kp, "%s is %s: split shares a number", n, t)
		return false
	}
	if ent := d.entityOfPtr(ptr); ent != nil && d.entityScope(ent)[n] != attr.Invalid {
		d.errAt(kp, false, "split a number of the parent item", "%s is %s's own: split shares a parent's number among its items", n, ent.Name)
		return false
	}
	d.wantNumber(kp, want)
	rl.Name = n
	return true
}

// ruleTemplate reads a template rule, its placeholders typed from scope.
func (d *datasetResolver) ruleTemplate(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	var s string
	if err := json.Unmarshal(body, &s); err != nil {
		d.errf(kp, "template takes a string such as \"{contractId}#{seq:03}\"")
		return false
	}
	t, err := ParseTemplate(s)
	if err != nil {
		d.errf(kp, "%v", err)
		return false
	}
	for _, ph := range t.Placeholders() {
		if _, ok := scope[ph]; !ok {
			d.errAt(kp, false, didYouMean(ph, slices.Sorted(maps.Keys(scope))), "placeholder {%s} is not in scope", ph)
		}
	}
	for i := range t.Parts {
		if t.Parts[i].Attr != "" {
			t.Parts[i].Type = scope[t.Parts[i].Attr]
		}
	}
	rl.Template = t
	if want != attr.S && want != attr.Invalid {
		d.errf(kp, "a template renders a string: the attribute must be S, not %s", want)
	}
	return true
}

// ruleCases reads a cases rule: rules tried in order, each with an optional when.
func (d *datasetResolver) ruleCases(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type, a *Attribute) bool {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil || len(items) == 0 {
		d.errf(kp, "cases is a list of rules, each with an optional when")
		return false
	}
	for i, it := range items {
		cp := fmt.Sprintf("%s/%d", kp, i)
		var cm map[string]json.RawMessage
		if err := json.Unmarshal(it, &cm); err != nil {
			d.errf(cp, "a case is a rule with an optional when")
			continue
		}
		c := &Case{}
		if w, ok := cm["when"]; ok {
			var wm map[string]json.RawMessage
			if err := json.Unmarshal(w, &wm); err != nil {
				d.errf(cp+"/when", "when is a mapping of names to values or comparisons")
			} else {
				c.When = d.cond(cp+"/when", wm, scope)
			}
			delete(cm, "when")
		} else if i < len(items)-1 {
			d.errAt(cp, true, "put the case without when last", "a case without when always holds, so the cases after it never run")
		}
		rest, _ := json.Marshal(cm)
		c.Rule = d.rule(cp, rest, scope, want, a)
		if c.Rule != nil {
			rl.Cases = append(rl.Cases, c)
		}
	}
	return true
}

// scopedName reads a rule's body that names something in scope, and
// its type; usage is the error when the body is not a name.
func (d *datasetResolver) scopedName(kp string, body json.RawMessage, scope map[string]attr.Type, usage string) (string, attr.Type, bool) {
	var n string
	if err := json.Unmarshal(body, &n); err != nil || n == "" {
		d.errf(kp, "%s", usage)
		return "", attr.Invalid, false
	}
	t, ok := scope[n]
	if !ok {
		d.errAt(kp, false, didYouMean(n, slices.Sorted(maps.Keys(scope))), "%s is not in scope", n)
		return "", attr.Invalid, false
	}
	return n, t, true
}

// ruleSize reads a size rule: the element or character count of a name in scope.
func (d *datasetResolver) ruleSize(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	n, t, ok := d.scopedName(kp, body, scope, "size takes the name of a list, map, set or string in scope")
	if !ok {
		return false
	}
	if t == attr.N || t == attr.BOOL || t == attr.NULL {
		d.errf(kp, "%s is %s: size counts the elements of a list, map or set, or the characters of a string", n, t)
		return false
	}
	d.wantNumber(kp, want)
	rl.Name = n
	return true
}

// ruleList reads a list rule: its count a number, a name or a range.
func (d *datasetResolver) ruleList(rl *Rule, kp string, body json.RawMessage, scope map[string]attr.Type, want attr.Type) bool {
	var rl2 struct {
		Count json.RawMessage `json:"count"`
	}
	if err := json.Unmarshal(body, &rl2); err != nil || len(rl2.Count) == 0 {
		d.errf(kp, "list is {count: N, a name, or [low, high]}")
		return false
	}
	op, ok := d.operand(kp+"/count", rl2.Count, scope, true)
	if !ok {
		return false
	}
	rl.Count = &op
	if want != attr.L && want != attr.Invalid {
		d.errf(kp, "list gives a list: the attribute must be L, not %s", want)
	}
	return true
}

// entityOfPtr returns the entity of a /dataset/entities/NAME/... pointer.
func (d *datasetResolver) entityOfPtr(ptr string) *Entity {
	parts := strings.Split(ptr, "/")
	if len(parts) > 3 && parts[1] == "dataset" && parts[2] == "entities" {
		return d.ents[unescapePtr(parts[3])]
	}
	return nil
}

func unescapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func kindNames() []string {
	out := make([]string, len(ruleKinds))
	for i, k := range ruleKinds {
		out[i] = string(k)
	}
	return out
}

func kindList() string { return strings.Join(kindNames(), ", ") }

func (d *datasetResolver) wantNumber(ptr string, want attr.Type) {
	if want != attr.N && want != attr.Invalid {
		d.errf(ptr, "this rule gives a number: the attribute must be N, not %s", want)
	}
}

// operands reads a list of names and numbers (numeric contexts: a string
// is a name).
func (d *datasetResolver) operands(ptr string, raw json.RawMessage, scope map[string]attr.Type, numeric bool) []SynthOperand {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		if op, ok := d.operand(ptr, raw, scope, numeric); ok {
			return []SynthOperand{op}
		}
		return nil
	}
	var out []SynthOperand
	for i, it := range items {
		if op, ok := d.operand(fmt.Sprintf("%s/%d", ptr, i), it, scope, numeric); ok {
			out = append(out, op)
		}
	}
	return out
}

// operand reads one operand. In numeric contexts a string is a name and
// a two-element list is a uniform range; elsewhere a name is written
// "{name}" and anything else is a literal.
func (d *datasetResolver) operand(ptr string, raw json.RawMessage, scope map[string]attr.Type, numeric bool) (SynthOperand, bool) {
	v, err := decodeAny(raw)
	if err != nil {
		d.errf(ptr, "%v", err)
		return SynthOperand{}, false
	}
	name := ""
	switch x := v.(type) {
	case string:
		if m := wholePlaceholder.FindStringSubmatch(x); m != nil {
			name = m[1]
		} else if numeric {
			name = x
		}
	case []any:
		if !numeric || len(x) != 2 {
			d.errf(ptr, "a range is a list of two numbers or names, [low, high]")
			return SynthOperand{}, false
		}
		var rg []SynthOperand
		for i := range x {
			b, _ := json.Marshal(x[i])
			op, ok := d.operand(fmt.Sprintf("%s/%d", ptr, i), b, scope, true)
			if !ok {
				return SynthOperand{}, false
			}
			rg = append(rg, op)
		}
		return SynthOperand{Range: rg}, true
	}
	if name != "" {
		t, ok := scope[name]
		if !ok {
			d.errAt(ptr, false, didYouMean(name, slices.Sorted(maps.Keys(scope))), "%s is not in scope (an attribute or variable of the item, its reference or its parents)", name)
			return SynthOperand{}, false
		}
		if numeric && t != attr.N && t != attr.Invalid {
			d.errf(ptr, "%s is %s: a number is needed here", name, t)
			return SynthOperand{}, false
		}
		return SynthOperand{Name: name}, true
	}
	lv, err := inferValue(v)
	if err != nil {
		d.errf(ptr, "%v", err)
		return SynthOperand{}, false
	}
	if numeric && lv.Type != attr.N {
		d.errf(ptr, "expected a number or a name, got %s", kindWord(v))
		return SynthOperand{}, false
	}
	return SynthOperand{Literal: &lv}, true
}

var condOps = []string{"eq", "ne", "lt", "le", "gt", "ge", "in", "exists"}

// cond reads a condition mapping: name: value (equal), name: [values]
// (one of), name: {lt: operand, ...} (comparisons, all of them), name:
// {exists: false}.
func (d *datasetResolver) cond(ptr string, raw map[string]json.RawMessage, scope map[string]attr.Type) Cond {
	var out Cond
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		np := ptr + "/" + escapePtr(name)
		if _, ok := scope[name]; !ok {
			d.errAt(np, true, didYouMean(name, slices.Sorted(maps.Keys(scope))), "%s is not in scope (an attribute or variable of the item, its reference or its parents)", name)
			continue
		}
		v, err := decodeAny(raw[name])
		if err != nil {
			d.errf(np, "%v", err)
			continue
		}
		lit := func(p string, x any) (SynthOperand, bool) {
			b, _ := json.Marshal(x)
			op, ok := d.operand(p, b, scope, false)
			if ok && op.Literal != nil {
				if a := d.attrs[name]; a != nil && a.Type == op.Literal.Type && a.Type == attr.S {
					if err := checkString(a, op.Literal.Str); err != nil {
						d.errf(p, "%v", err)
						return op, false
					}
				}
			}
			return op, ok
		}
		switch x := v.(type) {
		case []any:
			t := CondTerm{Name: name, Op: "in"}
			for i, e := range x {
				if op, ok := lit(fmt.Sprintf("%s/%d", np, i), e); ok {
					t.Args = append(t.Args, op)
				}
			}
			out = append(out, t)
		case map[string]any:
			for _, opn := range slices.Sorted(maps.Keys(x)) {
				op := np + "/" + escapePtr(opn)
				if !contains(condOps, opn) || opn == "in" {
					d.errAt(op, true, didYouMean(opn, condOps), "unknown comparison %q; expected eq, ne, lt, le, gt, ge or exists", opn)
					continue
				}
				if opn == "exists" {
					b, ok := x[opn].(bool)
					if !ok {
						d.errf(op, "exists takes true or false")
						continue
					}
					bv := attr.Bool(b)
					out = append(out, CondTerm{Name: name, Op: "exists", Args: []SynthOperand{{Literal: &bv}}})
					continue
				}
				if a, ok := lit(op, x[opn]); ok {
					out = append(out, CondTerm{Name: name, Op: opn, Args: []SynthOperand{a}})
				}
			}
		default:
			if a, ok := lit(np, x); ok {
				out = append(out, CondTerm{Name: name, Op: "eq", Args: []SynthOperand{a}})
			}
		}
	}
	return out
}

type rawDate struct {
	From    string          `json:"from"`
	Days    json.RawMessage `json:"days"`
	Months  json.RawMessage `json:"months"`
	Years   json.RawMessage `json:"years"`
	Seconds json.RawMessage `json:"seconds"`
}

func (d *datasetResolver) date(ptr string, raw json.RawMessage, scope map[string]attr.Type) *DateRule {
	var rd rawDate
	if err := json.Unmarshal(raw, &rd); err != nil {
		d.errf(ptr, "date is {from: NAME or asOf, days: N, months: N, years: N, seconds: N}")
		return nil
	}
	dr := &DateRule{From: rd.From}
	if rd.From == "" {
		d.errAt(ptr, true, "", "a date rule needs from: a date or instant in scope, or asOf")
	} else if t, ok := scope[rd.From]; !ok {
		d.errAt(ptr+"/from", false, didYouMean(rd.From, slices.Sorted(maps.Keys(scope))), "%s is not in scope", rd.From)
	} else if t != attr.S && t != attr.N {
		d.errf(ptr+"/from", "%s is %s, not a date", rd.From, t)
	} else if a := d.attrs[rd.From]; a != nil && a.Unit != UnitCivilDate && a.Unit != UnitInstant && a.Unit != UnitEpochSeconds {
		d.errf(ptr+"/from", "%s has no date unit (civilDate, instant or epochSeconds)", rd.From)
	}
	one := func(field string, raw json.RawMessage) *SynthOperand {
		if len(raw) == 0 {
			return nil
		}
		op, ok := d.operand(ptr+"/"+field, raw, scope, true)
		if !ok {
			return nil
		}
		return &op
	}
	dr.Days, dr.Months, dr.Years, dr.Seconds = one("days", rd.Days), one("months", rd.Months), one("years", rd.Years), one("seconds", rd.Seconds)
	return dr
}

type rawAggregate struct {
	Sum   string                     `json:"sum"`
	Count string                     `json:"count"`
	Min   string                     `json:"min"`
	Max   string                     `json:"max"`
	Value string                     `json:"value"`
	Where map[string]json.RawMessage `json:"where"`
}

func (d *datasetResolver) aggregate(ptr string, raw json.RawMessage, rl *Rule, want attr.Type) *Aggregate {
	var ra rawAggregate
	if err := json.Unmarshal(raw, &ra); err != nil {
		d.errf(ptr, "aggregate is {sum|count|min|max: CHILD ENTITY, value: attribute, where: condition}")
		return nil
	}
	ag := &Aggregate{}
	n := 0
	for fn, of := range map[string]string{"sum": ra.Sum, "count": ra.Count, "min": ra.Min, "max": ra.Max} {
		if of != "" {
			ag.Fn, n = fn, n+1
			if ch, ok := d.ents[of]; ok {
				ag.Of = ch
			} else {
				d.errAt(ptr+"/"+fn, false, didYouMean(of, slices.Sorted(maps.Keys(d.ents))), "unknown entity %q", of)
				return nil
			}
		}
	}
	if n != 1 {
		d.errAt(ptr, true, "", "an aggregate has exactly one of sum, count, min and max, naming a child entity")
		return nil
	}
	owner := d.entityOfPtr(ptr)
	grouped := owner != nil && d.ds.Entities[owner.Name] != nil && d.ds.Entities[owner.Name].Group != nil && d.ds.Entities[owner.Name].Group.Of == ag.Of
	if owner != nil && d.parent(ag.Of) != owner && !grouped {
		d.errAt(ptr+"/"+ag.Fn, false, "", "%s is not a child of %s (its population.per is not %s)", ag.Of.Name, owner.Name, owner.Name)
		return nil
	}
	cs := d.scope(d.rulesOf(ag.Of))
	if ag.Fn != "count" {
		if ra.Value == "" {
			d.errAt(ptr, true, "", "aggregate %s needs value: the child attribute it folds", ag.Fn)
			return nil
		}
		t, ok := cs[ra.Value]
		if !ok {
			d.errAt(ptr+"/value", false, didYouMean(ra.Value, slices.Sorted(maps.Keys(cs))), "%s is not an attribute or variable of %s", ra.Value, ag.Of.Name)
			return nil
		}
		if ag.Fn == "sum" && t != attr.N {
			d.errf(ptr+"/value", "sum needs a number; %s is %s", ra.Value, t)
		}
		ag.Value = ra.Value
	} else if want != attr.N && want != attr.Invalid {
		d.errf(ptr, "count gives a number: the attribute must be N, not %s", want)
	}
	ag.Where = d.cond(ptr+"/where", ra.Where, cs)
	return ag
}

type rawBand struct {
	Days   []string              `json:"days"`
	Value  string                `json:"value"`
	Ranges map[string][2]float64 `json:"ranges"`
}

func (d *datasetResolver) band(ptr string, raw json.RawMessage, scope map[string]attr.Type, a *Attribute) *Band {
	var rb rawBand
	if err := json.Unmarshal(raw, &rb); err != nil {
		d.errf(ptr, "band is {days: [from, to] or value: NAME, ranges: {VALUE: [low, high]}}")
		return nil
	}
	b := &Band{Days: rb.Days, Value: rb.Value}
	switch {
	case (len(rb.Days) > 0) == (rb.Value != ""):
		d.errAt(ptr, true, "", "a band takes either days: [from, to] or value: NAME")
	case len(rb.Days) > 0 && len(rb.Days) != 2:
		d.errf(ptr+"/days", "days is [from, to]: two dates")
	}
	for i, n := range rb.Days {
		if _, ok := scope[n]; !ok {
			d.errAt(fmt.Sprintf("%s/days/%d", ptr, i), false, didYouMean(n, slices.Sorted(maps.Keys(scope))), "%s is not in scope", n)
		}
	}
	if rb.Value != "" {
		if t, ok := scope[rb.Value]; !ok {
			d.errAt(ptr+"/value", false, didYouMean(rb.Value, slices.Sorted(maps.Keys(scope))), "%s is not in scope", rb.Value)
		} else if t != attr.N {
			d.errf(ptr+"/value", "%s is %s: a band needs a number", rb.Value, t)
		}
	}
	if len(rb.Ranges) == 0 {
		d.errAt(ptr, true, "", "a band needs ranges: {VALUE: [low, high]}")
	}
	for _, v := range slices.Sorted(maps.Keys(rb.Ranges)) {
		rg := rb.Ranges[v]
		if a != nil && len(a.Enum) > 0 && !contains(a.Enum, v) {
			d.errAt(ptr+"/ranges/"+escapePtr(v), true, didYouMean(v, a.Enum), "%q is not a value of %s", v, a.Name)
		}
		if rg[0] > rg[1] {
			d.errf(ptr+"/ranges/"+escapePtr(v), "the range [%s, %s] is empty", trimFloat(rg[0]), trimFloat(rg[1]))
		}
		b.Ranges = append(b.Ranges, BandRange{v, rg[0], rg[1]})
	}
	sort.Slice(b.Ranges, func(i, j int) bool { return b.Ranges[i].Lo < b.Ranges[j].Lo })
	for i := 1; i < len(b.Ranges); i++ {
		if b.Ranges[i].Lo <= b.Ranges[i-1].Hi {
			d.errf(ptr+"/ranges/"+escapePtr(b.Ranges[i].Value), "the ranges of %s and %s overlap", b.Ranges[i-1].Value, b.Ranges[i].Value)
		}
	}
	if a != nil && a.Type != attr.S {
		d.errf(ptr, "a band gives an enum value: the attribute must be S, not %s", a.Type)
	}
	return b
}

// ruleType is the type a rule gives, for variables.
func (d *datasetResolver) ruleType(rl *Rule, scope map[string]attr.Type) attr.Type {
	switch rl.Kind {
	case RuleValue:
		return rl.Value.Type
	case RuleValues:
		if rl.Values != nil && (len(rl.Values.Weights) > 0 || rl.Values.Kind == "dateRange" || rl.Values.Kind == "pattern") {
			return attr.S
		}
		if rl.Values != nil && rl.Values.Kind == "constant" {
			if _, ok := rl.Values.Value.(string); ok {
				return attr.S
			}
		}
		return attr.N
	case RuleCopy:
		return scope[rl.Name]
	case RuleTemplate, RuleFormat, RuleBand, RuleGeohash:
		return attr.S
	case RuleDate:
		if rl.Date != nil {
			if t, ok := scope[rl.Date.From]; ok {
				return t
			}
		}
		return attr.S
	case RuleEncrypt:
		return attr.B
	case RuleSplit, RuleSize:
		return attr.N
	case RuleList:
		return attr.L
	case RuleCases:
		for _, c := range rl.Cases {
			if t := d.ruleType(c.Rule, scope); t != attr.Invalid {
				return t
			}
		}
	case RuleAbsent:
		return attr.Invalid
	}
	return attr.N
}

// rawType infers the type a rule gives from its kind, before the rule is
// read (Invalid when it cannot tell yet).
func (d *datasetResolver) rawType(raw json.RawMessage, scope map[string]attr.Type) attr.Type {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return attr.Invalid
	}
	for k, body := range m {
		switch RuleKind(k) {
		case RuleValue:
			v, err := decodeAny(body)
			if err != nil {
				return attr.Invalid
			}
			if lv, err := inferValue(v); err == nil {
				return lv.Type
			}
		case RuleValues:
			var dist Distribution
			if json.Unmarshal(body, &dist) != nil {
				return attr.Invalid
			}
			r := &Rule{Kind: RuleValues, Values: &dist}
			return d.ruleType(r, scope)
		case RuleCopy:
			var n string
			_ = json.Unmarshal(body, &n)
			return scope[n]
		case RuleTemplate, RuleFormat, RuleBand, RuleGeohash:
			return attr.S
		case RuleSum, RuleMin, RuleMax, RuleAggregate, RuleSplit, RuleSize, RuleCalc:
			return attr.N
		case RuleEncrypt:
			return attr.B
		case RuleDate:
			var rd rawDate
			if json.Unmarshal(body, &rd) != nil {
				return attr.Invalid
			}
			if rd.From == "asOf" {
				return attr.S
			}
			return scope[rd.From]
		case RuleCases:
			var items []json.RawMessage
			if json.Unmarshal(body, &items) != nil {
				return attr.Invalid
			}
			for _, it := range items {
				var cm map[string]json.RawMessage
				if json.Unmarshal(it, &cm) != nil {
					continue
				}
				delete(cm, "when")
				b, _ := json.Marshal(cm)
				if t := d.rawType(b, scope); t != attr.Invalid {
					return t
				}
			}
		}
	}
	return attr.Invalid
}

func datasetEntityNames(es []*Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// group reads an entity's group.
func (d *datasetResolver) group(er *EntityRules, rg *rawGroup, ptr string) {
	e := er.Entity
	parent := d.parent(e)
	if parent == nil {
		d.errf(ptr, "%s has no parent (population.per) whose items it could group", e.Name)
		return
	}
	m, ok := d.ents[rg.Of]
	switch {
	case !ok:
		d.errAt(ptr+"/of", false, didYouMean(rg.Of, slices.Sorted(maps.Keys(d.ents))), "unknown entity %q", rg.Of)
		return
	case m == e || !contains(datasetEntityNames(d.ancestors(m)), parent.Name):
		d.errAt(ptr+"/of", false, "", "%s does not hang off %s (population.per), so its items cannot be grouped under %s's items", m.Name, parent.Name, parent.Name)
		return
	case er.Count != "" || er.Ref != nil:
		d.errf(ptr, "a group entity takes its items from its groups: no count or ref")
		return
	}
	g := &Group{Of: m, Days: rg.Days, Max: rg.Max}
	if len(rg.By) == 0 {
		d.errAt(ptr, true, "", "a group needs by: {groupAttribute: memberAttribute}")
	}
	ms := d.entityScope(m)
	for _, ga := range slices.Sorted(maps.Keys(rg.By)) {
		from := rg.By[ga]
		bp := ptr + "/by/" + escapePtr(ga)
		a := d.attrs[ga]
		if a == nil || e.Has(ga) == "" {
			d.errAt(bp, true, "", "%s does not carry %s", e.Name, ga)
			continue
		}
		if _, ok := ms[from]; !ok {
			d.errAt(bp, false, didYouMean(from, slices.Sorted(maps.Keys(ms))), "%s does not carry %s", m.Name, from)
			continue
		}
		if g.Days > 0 && a.Unit == UnitCivilDate {
			g.Days = rg.Days
		}
		g.By = append(g.By, GroupKey{Attribute: ga, From: from})
	}
	if rg.Days < 0 || rg.Max < 0 {
		d.errf(ptr, "days and max cannot be negative")
	}
	if rg.Days > 0 {
		dated := false
		for _, k := range g.By {
			if a := d.attrs[k.Attribute]; a != nil && a.Unit == UnitCivilDate {
				dated = true
			}
		}
		if !dated {
			d.errAt(ptr+"/days", false, "give the group a civil-date attribute in by", "days keeps recent groups by their civil date, and no attribute of by is one")
		}
	}
	er.Group = g
}

// valueTemplates checks the "{name}" templates inside a list or map
// value: every placeholder is in scope.
func (d *datasetResolver) valueTemplates(ptr string, v attr.Value, scope map[string]attr.Type) {
	switch v.Type {
	case attr.S:
		t, err := ParseTemplate(v.Str)
		if err != nil {
			d.errf(ptr, "%v", err)
			return
		}
		for _, ph := range t.Placeholders() {
			if _, ok := scope[ph]; !ok {
				d.errAt(ptr, false, didYouMean(ph, slices.Sorted(maps.Keys(scope))), "placeholder {%s} is not in scope", ph)
			}
		}
	case attr.L:
		for _, e := range v.List {
			d.valueTemplates(ptr, e, scope)
		}
	case attr.M:
		for _, f := range v.Map {
			d.valueTemplates(ptr, f.Value, scope)
		}
	}
}
