package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// resolver turns the raw document into a Model, collecting every
// semantic error with the position of the offending field.
type resolver struct {
	file  string
	paths map[string]*tnode
	raw   *rawModel
	errs  ErrorList
	m     *Model

	tables  map[string]*Table
	attrs   map[string]*Attribute
	ents    map[string]*Entity
	idx     map[string]*Index
	aps     map[string]*AccessPattern
	ops     map[string]*Operation
	updated map[string][]string // attribute -> operations that SET/REMOVE/ADD it
	broken  map[string]bool     // indexes and entities whose keys are wrong: skip dependent checks
}

func newResolver(file string, paths map[string]*tnode, raw *rawModel) *resolver {
	return &resolver{
		file: file, paths: paths, raw: raw,
		tables: map[string]*Table{}, attrs: map[string]*Attribute{}, ents: map[string]*Entity{},
		idx: map[string]*Index{}, aps: map[string]*AccessPattern{}, ops: map[string]*Operation{},
		updated: map[string][]string{}, broken: map[string]bool{},
	}
}

// p builds a JSON pointer from parts (strings or ints).
func p(parts ...any) string {
	var b strings.Builder
	for _, x := range parts {
		b.WriteByte('/')
		switch v := x.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case string:
			b.WriteString(escapePtr(v))
		}
	}
	return b.String()
}

func (r *resolver) errAt(ptr string, key bool, hint, format string, args ...any) {
	r.errs = append(r.errs, &Error{Pos: posAt(r.file, r.paths, ptr, key), Path: displayPath(r.paths, ptr), Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// errf reports at the value of ptr.
func (r *resolver) errf(ptr, format string, args ...any) { r.errAt(ptr, false, "", format, args...) }

// an returns s prefixed with its indefinite article.
func an(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func (r *resolver) attrNames() []string { return slices.Sorted(maps.Keys(r.attrs)) }

// attrHint names the declared attribute closest to an unknown name, or,
// when none is close (a declaration deleted or renamed far), says where
// the declaration belongs.
func (r *resolver) attrHint(name string) string {
	if h := didYouMean(name, r.attrNames()); h != "" {
		return h
	}
	return fmt.Sprintf("declare %s under the top-level attributes", name)
}

// attrRef checks that name is a declared attribute.
func (r *resolver) attrRef(ptr, name string) *Attribute {
	a, ok := r.attrs[name]
	if !ok {
		r.errAt(ptr, false, r.attrHint(name), "unknown attribute %q", name)
		return nil
	}
	return a
}

func (r *resolver) resolve() *Model {
	raw := r.raw
	m := &Model{Source: r.file, Name: raw.Name, Description: raw.Description, Timezone: raw.Timezone, Separator: raw.Separator}
	r.m = m
	if m.Separator == "" {
		m.Separator = "#"
	}
	for _, k := range slices.Sorted(maps.Keys(raw.Prefixes)) {
		m.Prefixes = append(m.Prefixes, Prefix{k, raw.Prefixes[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(raw.Decisions)) {
		d := raw.Decisions[k]
		m.Decisions = append(m.Decisions, Decision{k, d.Decision, d.Why})
	}
	r.resolveAttributes()
	r.resolveTables()
	r.resolveEntities()
	r.resolvePopulations()
	r.resolveScale()
	r.resolveIndexes()
	r.resolveAccessPatterns()
	r.resolveOperations()
	r.resolveRest()
	r.checkGoNames()
	m.Dataset = r.resolveDataset(raw.Dataset)
	r.checkRootValues(m.Dataset)
	r.resolveAcknowledge()
	r.crossChecks()
	r.checkLoads()
	return m
}

func (r *resolver) resolveAttributes() {
	for _, name := range slices.Sorted(maps.Keys(r.raw.Attributes)) {
		ra := r.raw.Attributes[name]
		t, _ := attr.ParseType(ra.Type)
		a := &Attribute{
			Name: name, Type: t, Description: ra.Description, Unit: ra.Unit, Timezone: ra.Timezone,
			Cardinality: ra.Cardinality, Size: ra.Size, PII: ra.PII, Encrypted: ra.Encrypted,
			CalendarDerived: ra.CalendarDerived, Stored: ra.Stored == nil || *ra.Stored, Derived: ra.Derived,
			Derivation: ra.Derivation, Immutable: ra.Immutable, Values: ra.Values,
		}
		if a.Unit == UnitCivilDate && a.Timezone == "" {
			a.Timezone = r.raw.Timezone
		}
		a.Domain = r.domain(p("attributes", name), name, t, a.Unit, &ra.rawDomain)
		r.attrs[name] = a
		r.m.Attributes = append(r.m.Attributes, a)
	}
	for _, a := range r.m.Attributes {
		ra := r.raw.Attributes[a.Name]
		base := p("attributes", a.Name)
		r.checkUnitType(base, a.Name, a.Type, a.Unit)
		if a.Derived != nil {
			for i, f := range a.Derived.From {
				r.attrRef(p("attributes", a.Name, "derived", "from", i), f)
			}
			if !a.Stored {
				r.errf(base+"/derived", "derived describes a stored value, but %s is not stored (use derivation)", a.Name)
			}
		}
		if !a.Stored && a.Computed == nil && a.Derivation == "" {
			r.errAt(base+"/stored", false, "say how it is derived at read time in derivation", "%s is not stored but has no derivation", a.Name)
		}
		if ra.Computed != nil {
			a.Computed = r.resolveComputed(base+"/computed", a, ra.Computed)
		}
		r.checkWeights(base+"/values", a, a.Values)
		if ra.Skew != nil {
			a.Skew = r.skew(base+"/skew", a, ra.Skew)
		}
	}
}

func (r *resolver) resolveComputed(ptr string, a *Attribute, rc *rawComputed) *Computed {
	c := &Computed{Kind: rc.Kind, Hash: rc.Hash, Input: rc.Input, Modulo: rc.Modulo, Algorithm: rc.Algorithm,
		Secret: rc.Secret, SecretBy: rc.SecretBy, Normalize: rc.Normalize, HexLength: rc.HexLength, Rotation: rc.Rotation}
	need := func(ok bool, field string) {
		if !ok {
			r.errAt(ptr, true, "", "computed kind %s needs %s", c.Kind, field)
		}
	}
	if !a.Stored {
		r.errf(ptr, "%s is computed, so it is stored; remove stored: false", a.Name)
	}
	switch c.Kind {
	case KindHashMod:
		need(c.Hash != "", "hash")
		need(c.Input != "", "input")
		need(c.Modulo > 0, "modulo")
		if c.Input != "" {
			if in := r.attrRef(ptr+"/input", c.Input); in != nil && in.Type != attr.S {
				r.errf(ptr+"/input", "hashMod hashes the text of a string; %s is %s", c.Input, in.Type)
			}
		}
		if a.Type != attr.N {
			r.errf(ptr, "hashMod gives a number; %s must have type N", a.Name)
		}
	case KindHMAC:
		need(c.Algorithm != "", "algorithm")
		need(c.Input != "", "input")
		need(c.Secret != "", "secret")
		need(c.HexLength > 0, "hexLength")
		if c.Secret == "tenant" {
			need(c.SecretBy != "", "secretBy")
		}
		if c.Secret == "global" && c.SecretBy != "" {
			r.errAt(ptr+"/secretBy", true, "drop secretBy, or say secret: tenant for one secret per value of "+c.SecretBy, "secret global is one secret for the whole model: secretBy would choose none")
		}
		if c.SecretBy != "" {
			r.attrRef(ptr+"/secretBy", c.SecretBy)
		}
		if c.Input != "" {
			if in, ok := r.attrs[c.Input]; ok && in.Stored && !in.Encrypted && in.PII {
				r.errf(ptr+"/input", "the HMAC input %s is personal data stored in clear; store it encrypted or not at all", c.Input)
			}
		}
		if a.Type != attr.S {
			r.errf(ptr, "hmac gives hex text; %s must have type S", a.Name)
		}
	case KindTemplate:
		need(rc.Template != "", "template")
		if rc.Template != "" {
			t, err := ParseTemplate(rc.Template)
			if err != nil {
				r.errf(ptr+"/template", "%v", err)
				return c
			}
			for _, ph := range t.Placeholders() {
				r.attrRef(ptr+"/template", ph)
			}
			r.typeTemplate(t)
			c.Template = t
		}
	}
	return c
}

// typeTemplate fills placeholder types from the dictionary.
func (r *resolver) typeTemplate(t *KeyTemplate) {
	for i := range t.Parts {
		if a, ok := r.attrs[t.Parts[i].Attr]; ok {
			t.Parts[i].Type = a.Type
		}
	}
}

func (r *resolver) resolveTables() {
	for _, name := range slices.Sorted(maps.Keys(r.raw.Tables)) {
		rt := r.raw.Tables[name]
		t := &Table{Name: name, Description: rt.Description, PartitionKey: rt.PartitionKey, SortKey: rt.SortKey,
			Discriminator: rt.Discriminator, Class: rt.Class, TTL: rt.TTL, Stream: rt.Stream, PITR: rt.PITR,
			Export: rt.Export, SizeGB: rt.SizeGB, Isolation: rt.Isolation}
		if t.Class == "" {
			t.Class = "STANDARD"
		}
		if rt.Billing != nil {
			t.Billing = *rt.Billing
		} else {
			t.Billing = Billing{Mode: "onDemand"}
		}
		base := p("tables", name)
		if t.Billing.Mode == "provisioned" && (t.Billing.Read == nil || t.Billing.Write == nil) {
			r.errAt(base+"/billing", false, "", "provisioned billing needs read and write capacity")
		}
		if t.Billing.Mode == "onDemand" && (t.Billing.Read != nil || t.Billing.Write != nil) {
			r.errAt(base+"/billing", false, "use maxOnDemand to cap an on-demand table", "read and write capacity apply to provisioned billing only")
		}
		for _, b := range []*Capacity{t.Billing.Read, t.Billing.Write} {
			if b != nil && b.AutoScaling != nil && b.AutoScaling.Min > b.AutoScaling.Max {
				r.errf(base+"/billing", "auto scaling min is above max")
			}
		}
		for _, k := range []struct{ field, name string }{{"partitionKey", t.PartitionKey}, {"sortKey", t.SortKey}} {
			if k.name == "" {
				continue
			}
			if a := r.attrRef(base+"/"+k.field, k.name); a != nil && !a.Type.IsScalar() {
				r.errf(base+"/"+k.field, "key attribute %s must be S, N or B, not %s", k.name, a.Type)
			}
		}
		if t.SortKey != "" && t.SortKey == t.PartitionKey {
			r.errf(base+"/sortKey", "sort key repeats the partition key %s", t.PartitionKey)
		}
		if t.Discriminator != "" {
			if a := r.attrRef(base+"/discriminator", t.Discriminator); a != nil && a.Type != attr.S {
				r.errf(base+"/discriminator", "discriminator %s must be S", t.Discriminator)
			}
		}
		if t.TTL != "" {
			if a := r.attrRef(base+"/ttl", t.TTL); a != nil && (a.Type != attr.N || a.Unit != "" && a.Unit != UnitEpochSeconds) {
				r.errf(base+"/ttl", "TTL attribute %s must be a number of epoch seconds", t.TTL)
			}
		}
		if t.Isolation != nil && !strings.Contains(t.Isolation.LeadingKeys, "${aws:PrincipalTag/") {
			r.errAt(base+"/isolation/leadingKeys", false, "for example ORG#${aws:PrincipalTag/org}#*: the tag of the caller's role names the only key prefix it may touch", "leadingKeys should be built from a principal tag")
		}
		r.tables[name] = t
		r.m.Tables = append(r.m.Tables, t)
	}
}

func (r *resolver) tableRef(ptr, name string) *Table {
	if name == "" {
		if len(r.m.Tables) == 1 {
			return r.m.Tables[0]
		}
		r.errAt(ptr, true, "", "table is required when the model has more than one table")
		return nil
	}
	t, ok := r.tables[name]
	if !ok {
		r.errAt(ptr+"/table", false, didYouMean(name, slices.Sorted(maps.Keys(r.tables))), "unknown table %q", name)
		return nil
	}
	return t
}

func (r *resolver) resolveEntities() {
	for _, name := range slices.Sorted(maps.Keys(r.raw.Entities)) {
		re := r.raw.Entities[name]
		base := p("entities", name)
		e := &Entity{Name: name, TypeValue: name, Description: re.Description, Collection: re.Collection, AppendOnly: re.AppendOnly}
		e.Table = r.tableRef(base, re.Table)
		for _, an := range slices.Sorted(maps.Keys(re.Attributes)) {
			ea := EntityAttr{Name: an, Presence: Presence(entityAttr(re.Attributes[an]).Presence)}
			e.Attributes = append(e.Attributes, ea)
			a := r.attrRef(p("entities", name, "attributes", an), an)
			if a == nil {
				continue
			}
			e.Attributes[len(e.Attributes)-1].Attribute = a
			ptr := p("entities", name, "attributes", an)
			if !a.Stored && ea.Presence != KeyOnly {
				r.errAt(ptr, true, "derive it at read time: "+a.Derivation, "%s is declared not stored, so no item can carry it", an)
			}
			if e.Table != nil && (an == e.Table.PartitionKey || an == e.Table.SortKey || an == e.Table.Discriminator) {
				r.errAt(ptr, true, "the table's key attributes are on every item: its key template (for a natural key, {"+an+"} itself) fills it", "%s is filled from the table definition; do not list it", an)
			}
		}
		if e.Table != nil {
			before := len(r.errs)
			r.resolveEntityKey(base, e, re)
			if len(r.errs) > before {
				r.broken["entity:"+e.Name] = true
			}
			// A natural key attribute is stored on every item: readers
			// find it among the entity's attributes, required.
			for _, k := range e.Key {
				if k.Natural() && e.attr(k.Attribute) == nil && r.attrs[k.Attribute] != nil {
					e.Attributes = append(e.Attributes, EntityAttr{Name: k.Attribute, Presence: Required, Attribute: r.attrs[k.Attribute]})
				}
			}
			sort.SliceStable(e.Attributes, func(i, j int) bool { return e.Attributes[i].Name < e.Attributes[j].Name })
		}
		r.ents[name] = e
		r.m.Entities = append(r.m.Entities, e)
		if e.Table != nil {
			e.Table.Entities = append(e.Table.Entities, e)
		}
	}
	// Presence rules and value shares once every attribute of the entity
	// is known; samples after every entity exists.
	for _, e := range r.m.Entities {
		r.entityRules(e)
	}
	for _, e := range r.m.Entities {
		re := r.raw.Entities[e.Name]
		if e.Table == nil || len(e.Key) == 0 || r.broken["entity:"+e.Name] {
			continue
		}
		for _, sn := range slices.Sorted(maps.Keys(re.Samples)) {
			if sn == Absent {
				r.errAt(p("entities", e.Name, "samples", sn), true, "", "%q is reserved for a missing item", Absent)
				continue
			}
			if it, ok := r.sampleItem(p("entities", e.Name, "samples", sn), e, re.Samples[sn]); ok {
				e.Samples = append(e.Samples, Sample{sn, it})
			}
		}
	}
}

func (r *resolver) resolveEntityKey(base string, e *Entity, re rawEntity) {
	t := e.Table
	for _, k := range slices.Sorted(maps.Keys(re.Key)) {
		if k != t.PartitionKey && k != t.SortKey {
			r.errAt(p("entities", e.Name, "key", k), true, didYouMean(k, t.KeyAttributes()), "%s is not a key attribute of table %s", k, t.Name)
		}
	}
	used := map[string]bool{}
	for _, k := range t.KeyAttributes() {
		text, ok := re.Key[k]
		if !ok {
			r.errAt(base+"/key", true, "", "missing template for key attribute %s", k)
			continue
		}
		ptr := p("entities", e.Name, "key", k)
		tmpl, err := ParseTemplate(text)
		if err != nil {
			r.errf(ptr, "%v", err)
			continue
		}
		r.typeTemplate(tmpl)
		ka := r.attrs[k]
		if ka != nil && ka.Type != attr.S && (len(tmpl.Parts) != 1 || tmpl.Parts[0].Attr == "") {
			r.errf(ptr, "key attribute %s is %s: its template must be a single placeholder", k, ka.Type)
		}
		natural := len(tmpl.Parts) == 1 && tmpl.Parts[0].Attr == k
		for _, part := range tmpl.Parts {
			if part.Attr == "" {
				r.checkPrefixes(ptr, part.Literal)
				continue
			}
			used[part.Attr] = true
			a, declared := r.attrs[part.Attr]
			if ka != nil && ka.Type != attr.S && declared && a.Type != ka.Type {
				r.errf(ptr, "key attribute %s is %s, but {%s} is %s", k, ka.Type, part.Attr, a.Type)
			}
			if natural {
				// A natural key: the table key attribute itself, stored on
				// every item.
				if !declared {
					continue
				}
			} else if e.Has(part.Attr) == "" {
				var carried []string
				for _, ea := range e.Attributes {
					carried = append(carried, ea.Name)
				}
				r.errAt(ptr, false, didYouMean(part.Attr, carried), "placeholder {%s} is not an attribute of entity %s", part.Attr, e.Name)
				continue
			}
			if !declared {
				continue // reported on the entity's attribute list
			}
			if a.PII {
				r.errAt(ptr, false, "keys leak into logs, streams and metrics: use a derived key such as an HMAC", "placeholder {%s} is personal data (pii) and must never appear in a key", part.Attr)
			}
			if a.CalendarDerived {
				r.errf(ptr, "placeholder {%s} changes with the calendar and must not be part of a key", part.Attr)
			}
			if !a.Type.IsScalar() || a.Type == attr.B {
				r.errf(ptr, "placeholder {%s} has type %s; key placeholders must be S or N", part.Attr, a.Type)
			}
			if part.Width > 0 && a.Type != attr.N {
				r.errf(ptr, "placeholder {%s:%0*d} pads a number, but %s is %s", part.Attr, part.Width, 0, part.Attr, a.Type)
			}
			if k == t.SortKey && a.Type == attr.N && part.Width == 0 && (ka == nil || ka.Type == attr.S) {
				r.errAt(ptr, false, fmt.Sprintf("write {%s:03} (or the width that fits): unpadded numbers sort IN#10 before IN#2", part.Attr), "numeric placeholder {%s} in a sort key must be zero-padded", part.Attr)
			}
			if e.Has(part.Attr) == Optional {
				r.errf(ptr, "placeholder {%s} is optional on %s, but a key is always present", part.Attr, e.Name)
			}
			r.checkKeyInstant(ptr, a, "placeholder {"+part.Attr+"}")
		}
		kp := KeyPart{Attribute: k, Template: tmpl, Type: attr.S}
		if ka != nil {
			kp.Type = ka.Type
			if e.keyDefs == nil {
				e.keyDefs = map[string]*Attribute{}
			}
			e.keyDefs[k] = ka
		}
		e.Key = append(e.Key, kp)
	}
	for _, ea := range e.Attributes {
		if ea.Presence == KeyOnly && !used[ea.Name] {
			r.errAt(p("entities", e.Name, "attributes", ea.Name), false, "", "%s is declared key, but no key template of %s uses it", ea.Name, e.Name)
		}
	}
}

// naturalKey reports whether a table key attribute of the entity is its
// own template ({deviceId} for deviceId): then samples give its value.
func naturalKey(e *Entity, name string) bool {
	for _, k := range e.Key {
		if k.Attribute == name {
			return k.Natural()
		}
	}
	return false
}

// checkKeyInstant requires the exact text form of an instant that is
// part of a key: a key compares and sorts it as text, and the same
// instant written with two offsets or precisions is two keys.
func (r *resolver) checkKeyInstant(ptr string, a *Attribute, what string) {
	if a == nil || a.Unit != UnitInstant || a.Instant != nil {
		return
	}
	hint := fmt.Sprintf("declare it on attributes.%s, for example instant: {offset: Z, precision: ms}", a.Name)
	if r.raw.FormatVersion == 1 {
		hint = fmt.Sprintf("formatVersion 2 requires it: cardapio migrate %s declares the form the samples use", r.file)
	}
	r.errAt(ptr, false, hint,
		"%s is an instant in a key, compared and sorted as text: it needs one declared form (09:41:12+02:00 sorts after 08:00:00Z, though earlier)", what)
}

// checkPrefixes verifies that every literal tag between separators is in
// the prefix dictionary, when the model has one.
func (r *resolver) checkPrefixes(ptr, literal string) {
	if len(r.raw.Prefixes) == 0 {
		return
	}
	for _, tok := range strings.Split(literal, r.m.Separator) {
		if tok == "" {
			continue
		}
		if _, ok := r.raw.Prefixes[tok]; !ok {
			r.errAt(ptr, false, didYouMean(tok, slices.Sorted(maps.Keys(r.raw.Prefixes))), "key prefix %q is not in the prefix dictionary", tok)
		}
	}
}

// sampleItem converts one sample into an item: typed values, rendered
// keys, the discriminator, computed values verified.
func (r *resolver) sampleItem(ptr string, e *Entity, raw map[string]json.RawMessage) (attr.Item, bool) {
	ok := true
	values := map[string]attr.Value{}
	explicitKeys := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		vptr := ptr + "/" + escapePtr(name)
		v, err := decodeAny(raw[name])
		if err != nil {
			r.errf(vptr, "unreadable value")
			ok = false
			continue
		}
		if e.Table != nil && (name == e.Table.PartitionKey || name == e.Table.SortKey) && !naturalKey(e, name) {
			s, isStr := v.(string)
			if !isStr {
				r.errf(vptr, "key %s must be a string rendered from its template", name)
				ok = false
				continue
			}
			explicitKeys[name] = s
			continue
		}
		if e.Table != nil && name == e.Table.Discriminator {
			if s, _ := v.(string); s != e.TypeValue {
				r.errf(vptr, "%s of a %s sample must be %q", name, e.Name, e.TypeValue)
				ok = false
			}
			continue
		}
		a, declared := r.attrs[name]
		if !declared || e.Has(name) == "" {
			var carried []string
			for _, ea := range e.Attributes {
				carried = append(carried, ea.Name)
			}
			if !declared {
				r.errAt(vptr, true, r.attrHint(name), "unknown attribute %q", name)
			} else {
				r.errAt(vptr, true, didYouMean(name, carried), "entity %s does not carry %s", e.Name, name)
			}
			ok = false
			continue
		}
		tv, err := typedValue(v, a.Type, a)
		if err != nil {
			r.errf(vptr, "%s: %v", name, err)
			ok = false
			continue
		}
		values[name] = tv
	}
	// Presence: required attributes, and the rules tying presence to
	// other attributes' values (read from the sample's own values).
	var all attr.Item
	for name, v := range values {
		all = all.With(name, v)
	}
	for _, ea := range e.Attributes {
		_, has := raw[ea.Name]
		if r.broken["presence:"+e.Name+"."+ea.Name] {
			continue // its rule is reported
		}
		switch {
		case !has && ea.Needs(all):
			if len(ea.When) > 0 {
				r.errAt(ptr, true, "", "sample misses %s, which is required while %s", ea.Name, condText(ea.When))
			} else {
				r.errAt(ptr, true, "", "sample misses required attribute %s", ea.Name)
			}
			ok = false
		case has && !ea.Allows(all):
			r.errAt(ptr+"/"+escapePtr(ea.Name), true, "", "%s is present, but %s", ea.Name, ea.ruleText(all))
			ok = false
		}
	}
	if !ok {
		return nil, false
	}
	var it attr.Item
	for _, k := range e.Key {
		kv, err := k.Value(values, r.m.Separator)
		if err != nil {
			r.errf(ptr, "%v", err)
			return nil, false
		}
		if ex, given := explicitKeys[k.Attribute]; given && ex != kv.Str {
			r.errAt(ptr+"/"+escapePtr(k.Attribute), false, fmt.Sprintf("the template renders %q", kv.Str), "%s %q does not match its template %s", k.Attribute, ex, k.Template.Text)
			return nil, false
		}
		it = it.With(k.Attribute, kv)
	}
	if d := e.Table.Discriminator; d != "" {
		it = it.With(d, attr.Str(e.TypeValue))
	}
	for name, v := range values {
		if e.Has(name) == KeyOnly {
			continue
		}
		it = it.With(name, v)
		if a := r.attrs[name]; a.Computed != nil && a.Computed.Kind == KindHashMod {
			in, has := values[a.Computed.Input]
			if has {
				want := HashMod(in.Str, a.Computed.Modulo)
				if v.Str != strconv.Itoa(want) {
					r.errAt(ptr+"/"+escapePtr(name), false, fmt.Sprintf("%s(%q) mod %d is %d", a.Computed.Hash, in.Str, a.Computed.Modulo, want), "%s is %s, but it is computed from %s", name, v.Str, a.Computed.Input)
				}
			}
		}
	}
	return it, true
}
