package generator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// entityPlan is the Go face of an entity: its struct, key builder and
// parser, constructor and codec.
type entityPlan struct {
	E         *catalog.Entity
	Name      string // Go type: Contract
	Table     *tablePlan
	Fields    []*fieldPlan
	KeyFunc   string // ContractKey
	ParseFunc string // ParseContractKey
	NewFunc   string // NewContract
	Unmarshal string // UnmarshalContract
	KeyArgs   []*fieldPlan
	Doc       string

	KeyBody       string // body of KeyFunc
	ParseBody     string // body of ParseFunc
	NewBody       string // body of NewFunc
	MarshalBody   string // body of MarshalItem
	UnmarshalBody string // body of Unmarshal
	// ShapeFunc reports whether a key of the table has this entity's
	// shape, to name the entity of an unexpected key.
	ShapeFunc string
	ShapeBody string
}

// fieldPlan is one attribute of an entity or index entry.
type fieldPlan struct {
	Attr     *catalog.Attribute
	Name     string // Go field name
	Var      string // Go parameter name
	T        *gotype
	Presence catalog.Presence
	Pointer  bool // optional and not nilable: *T
	Doc      string
	Tag      string
}

// GoType is the field's declared type.
func (f *fieldPlan) GoType() string {
	if f.Pointer {
		return "*" + f.T.Go()
	}
	return f.T.Go()
}

func (p *plan) planEntities() error {
	for _, e := range p.m.Entities {
		tp := p.tableByN[e.Table.Name]
		name := p.names.claim("entity:"+e.Name, exported(e.Name), "Item")
		ep := &entityPlan{E: e, Name: name, Table: tp,
			KeyFunc:   p.names.claim("key:"+e.Name, name+"Key", "Func"),
			ParseFunc: p.names.claim("parse:"+e.Name, "Parse"+name+"Key", "Func"),
			NewFunc:   p.names.claim("new:"+e.Name, "New"+name, "Item"),
			Unmarshal: p.names.claim("unmarshal:"+e.Name, "Unmarshal"+name, "Item"),
			ShapeFunc: "is" + name + "Key"}
		tp.Entities = append(tp.Entities, ep)
		p.entities = append(p.entities, ep)
		p.entityByN[e.Name] = ep
		if err := p.planFields(ep); err != nil {
			return err
		}
	}
	for _, ep := range p.entities {
		if err := p.planEntityCode(ep); err != nil {
			return fmt.Errorf("entity %s: %w", ep.E.Name, err)
		}
	}
	for _, tp := range p.tables {
		tp.NeedsUnion = len(tp.Entities) > 0
	}
	return nil
}

// keyPlaceholders lists the attributes an entity's table key templates
// use, in order of appearance.
func keyPlaceholders(e *catalog.Entity) []string {
	var out []string
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if !slices.Contains(out, ph) {
				out = append(out, ph)
			}
		}
	}
	return out
}

// naturalKey says whether the entity's template of the table key
// attribute name is that attribute's own placeholder.
func naturalKey(e *catalog.Entity, name string) bool {
	for _, k := range e.Key {
		if k.Attribute == name {
			ph := k.Template.Placeholders()
			return len(k.Template.Parts) == 1 && len(ph) == 1 && ph[0] == name
		}
	}
	return false
}

func (p *plan) planFields(ep *entityPlan) error {
	e := ep.E
	keyNames := map[string]bool{}
	for _, k := range e.Table.KeyAttributes() {
		keyNames[k] = true
	}
	used := map[string]bool{}
	add := func(name string, pr catalog.Presence) error {
		a := p.m.Attribute(name)
		if a == nil {
			return fmt.Errorf("entity %s: attribute %s is not in the dictionary", e.Name, name)
		}
		t := p.valueType(a)
		f := &fieldPlan{Attr: a, Name: exported(name), Var: unexported(name), T: t, Presence: pr}
		f.Pointer = pr == catalog.Optional && !t.nilable()
		f.Doc = fieldDoc(a, pr)
		switch {
		case pr == catalog.KeyOnly:
			f.Tag = "`dynamodbav:\"-\"`"
		case pr == catalog.Optional:
			f.Tag = "`dynamodbav:\"" + name + ",omitempty\"`"
		default:
			f.Tag = "`dynamodbav:\"" + name + "\"`"
		}
		for _, g := range ep.Fields {
			if g.Name == f.Name {
				f.Name += "Attr"
			}
		}
		used[name] = true
		ep.Fields = append(ep.Fields, f)
		return nil
	}
	for _, ph := range keyPlaceholders(e) {
		pr := e.Has(ph)
		if pr == "" {
			pr = catalog.KeyOnly
		}
		if keyNames[ph] {
			if !naturalKey(e, ph) {
				continue
			}
			// A natural key (deviceId: "{deviceId}") is the attribute
			// itself: the entity's field, every item has it.
			pr = catalog.Required
		}
		if err := add(ph, pr); err != nil {
			return err
		}
		ep.KeyArgs = append(ep.KeyArgs, ep.Fields[len(ep.Fields)-1])
	}
	var rest []string
	conditional := map[string]bool{}
	for _, ea := range e.Attributes {
		if !used[ea.Name] && !keyNames[ea.Name] && ea.Name != e.Table.Discriminator {
			rest = append(rest, ea.Name)
		}
		if len(ea.When) > 0 || len(ea.Unless) > 0 {
			conditional[ea.Name] = true
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		pr := e.Has(name)
		if pr == catalog.Required && conditional[name] {
			// Required only while its rules hold: an item may lack it.
			pr = catalog.Optional
		}
		if err := add(name, pr); err != nil {
			return err
		}
	}
	ep.Doc = entityDoc(e)
	return nil
}

func fieldDoc(a *catalog.Attribute, pr catalog.Presence) string {
	var b strings.Builder
	b.WriteString("attribute " + a.Name)
	desc := strings.TrimSuffix(strings.Join(strings.Fields(a.Description), " "), ".")
	if desc != "" {
		b.WriteString(": " + lowerFirst(desc))
	}
	b.WriteString(".")
	mentions := func(w string) bool { return strings.Contains(strings.ToLower(desc), w) }
	switch {
	case a.Unit == catalog.UnitCivilDate && !mentions("civil date"):
		b.WriteString(" A civil date, YYYY-MM-DD.")
	case a.Unit == catalog.UnitInstant && !mentions("rfc 3339"):
		b.WriteString(" An RFC 3339 instant.")
	case a.Unit == catalog.UnitEpochSeconds && !mentions("epoch"):
		b.WriteString(" Epoch seconds.")
	case a.Unit == catalog.UnitCents && !mentions("cents"):
		b.WriteString(" Integer cents.")
	}
	if a.Computed != nil {
		b.WriteString(" Computed: " + computedText(a.Computed) + ".")
	}
	switch pr {
	case catalog.KeyOnly:
		b.WriteString(" It lives only in the key.")
	case catalog.Optional:
		b.WriteString(" Absent (nil) in some states.")
	}
	return b.String()
}

func computedText(c *catalog.Computed) string {
	switch c.Kind {
	case catalog.KindHashMod:
		h := c.Hash
		if h == "fnv1a32" {
			h = "32-bit FNV-1a"
		}
		return fmt.Sprintf("the %s hash of %s mod %d", h, c.Input, c.Modulo)
	case catalog.KindHMAC:
		return fmt.Sprintf("the first %d hex characters of HMAC-%s of %s with the %s secret", c.HexLength, strings.ToUpper(c.Algorithm), c.Input, c.Secret)
	case catalog.KindTemplate:
		return "the template " + c.Template.Text
	}
	return c.Kind
}

func entityDoc(e *catalog.Entity) string {
	var keys []string
	for _, k := range e.Key {
		keys = append(keys, k.Attribute+" "+k.Template.Text)
	}
	d := fmt.Sprintf("is %s %s item of table %s, keyed %s.", article(e.Name), e.Name, e.Table.Name, joinWords(keys))
	if e.Description != "" {
		d += " " + sentence(e.Description)
	}
	if e.AppendOnly {
		d += " Append-only: items are written once and never changed."
	}
	return d
}

// field returns the entity's field for an attribute, or nil.
func (ep *entityPlan) field(name string) *fieldPlan {
	for _, f := range ep.Fields {
		if f.Attr.Name == name {
			return f
		}
	}
	return nil
}

// scope resolves a template placeholder to a Go expression and its type.
type scope func(name string) (expr string, t *gotype, ok bool)

// templateExpr returns the Go expression rendering a template through a
// keyBuilder named k (which records the first error: an empty value, a
// value holding the separator, a number too wide for its padding).
func (p *plan) templateExpr(t *catalog.KeyTemplate, sc scope) (string, error) {
	if t.IsConstant() {
		var lit strings.Builder
		for _, part := range t.Parts {
			lit.WriteString(part.Literal)
		}
		return quote(lit.String()), nil
	}
	var parts []string
	for _, part := range t.Parts {
		if part.Attr == "" {
			parts = append(parts, quote(part.Literal))
			continue
		}
		x, gt, ok := sc(part.Attr)
		if !ok {
			return "", fmt.Errorf("template %q: no value for {%s}", t.Text, part.Attr)
		}
		if part.Width > 0 && gt.kind != kInt {
			return "", fmt.Errorf("template %q: {%s:%02d} pads a number, but %s is %s", t.Text, part.Attr, part.Width, part.Attr, gt.Go())
		}
		p.use("keyBuilder")
		parts = append(parts, p.text(gt, part.Attr, x, part.Width))
	}
	return strings.Join(parts, " + "), nil
}

// keyValue returns the Go expression of one table key attribute of the
// entity from a scope: a string template, or for a number key the one
// placeholder's value.
func (p *plan) keyValue(tp *tablePlan, ka *keyAttr, t *catalog.KeyTemplate, sc scope) (string, error) {
	if ka.T.kind == kString {
		return p.templateExpr(t, sc)
	}
	ph := t.Placeholders()
	if len(ph) != 1 || len(t.Parts) != 1 {
		return "", fmt.Errorf("key %s of table %s is a number: its template must be one placeholder, not %q", ka.Name, tp.T.Name, t.Text)
	}
	x, gt, ok := sc(ph[0])
	if !ok {
		return "", fmt.Errorf("template %q: no value for {%s}", t.Text, ph[0])
	}
	if gt.Go() != ka.T.Go() {
		return ka.T.Go() + "(" + x + ")", nil
	}
	return x, nil
}

func (p *plan) planEntityCode(ep *entityPlan) error {
	e := ep.E
	tp := ep.Table
	zero := tp.Key + "{}"
	argScope := func(name string) (string, *gotype, bool) {
		if f := ep.field(name); f != nil {
			return f.Var, f.T, true
		}
		return "", nil, false
	}
	// Key builder.
	var b strings.Builder
	needK := false
	var fields []string
	for _, k := range e.Key {
		ka := tp.PK
		if k.Attribute != tp.PK.Name {
			ka = tp.SK
		}
		x, err := p.keyValue(tp, ka, k.Template, argScope)
		if err != nil {
			return err
		}
		if strings.Contains(x, "k.") {
			needK = true
		}
		fields = append(fields, ka.Field+": "+x)
	}
	if needK {
		b.WriteString("var k keyBuilder\n")
		fmt.Fprintf(&b, "key := %s{\n%s,\n}\n", tp.Key, strings.Join(fields, ",\n"))
		fmt.Fprintf(&b, "if k.err != nil {\nreturn %s, fmt.Errorf(\"%s key: %%w\", k.err)\n}\n", zero, e.Name)
		b.WriteString("return key, nil\n")
	} else {
		fmt.Fprintf(&b, "return %s{\n%s,\n}, nil\n", tp.Key, strings.Join(fields, ",\n"))
	}
	ep.KeyBody = b.String()

	// Parser.
	b.Reset()
	fmt.Fprintf(&b, "var x %s\n", ep.Name)
	var conds []string
	var shape strings.Builder
	var assigns []string
	seen := map[string]string{}
	needP := false
	for i, k := range e.Key {
		ka := tp.PK
		if k.Attribute != tp.PK.Name {
			ka = tp.SK
		}
		src := "k." + ka.Field
		if ka.T.kind != kString {
			ph := k.Template.Placeholders()[0]
			f := ep.field(ph)
			assigns = append(assigns, fmt.Sprintf("x.%s = %s(k.%s)", f.Name, f.T.Go(), ka.Field))
			continue
		}
		if k.Template.IsConstant() {
			conds = append(conds, fmt.Sprintf("%s == %s", src, quote(k.Template.Text)))
			continue
		}
		lits, phs := splitTemplate(k.Template)
		v := fmt.Sprintf("v%d", i)
		p.use("matchKey")
		quoted := make([]string, len(lits))
		for j, l := range lits {
			quoted[j] = quote(l)
		}
		fmt.Fprintf(&b, "%s, ok%d := matchKey(%s, %s)\n", v, i, src, strings.Join(quoted, ", "))
		fmt.Fprintf(&shape, "%s, ok%d := matchKey(%s, %s)\n", v, i, src, strings.Join(quoted, ", "))
		conds = append(conds, fmt.Sprintf("ok%d", i))
		for j, part := range phs {
			f := ep.field(part.Attr)
			if f == nil {
				return fmt.Errorf("key template %q: {%s} is not an attribute of %s", k.Template.Text, part.Attr, e.Name)
			}
			val := fmt.Sprintf("%s[%d]", v, j)
			if prev, dup := seen[part.Attr]; dup {
				conds = append(conds, fmt.Sprintf("%s == %s", val, prev))
				continue
			}
			seen[part.Attr] = val
			switch {
			case part.Width > 0:
				needP = true
				assigns = append(assigns, fmt.Sprintf("x.%s = p.padded(%s, %s, %d)", f.Name, quote(part.Attr), val, part.Width))
			case f.T.kind == kInt:
				needP = true
				assigns = append(assigns, fmt.Sprintf("x.%s = p.int(%s, %s)", f.Name, quote(part.Attr), val))
			case f.T.kind == kFloat:
				needP = true
				assigns = append(assigns, fmt.Sprintf("x.%s = p.float(%s, %s)", f.Name, quote(part.Attr), val))
			case f.T.kind == kString && f.T.enum != nil:
				assigns = append(assigns, fmt.Sprintf("x.%s = %s(%s)", f.Name, f.T.Go(), val))
			case f.T.kind == kString:
				assigns = append(assigns, fmt.Sprintf("x.%s = %s", f.Name, val))
			default:
				return fmt.Errorf("key template %q: {%s} of type %s cannot be parsed back", k.Template.Text, part.Attr, f.T.Go())
			}
		}
	}
	if len(conds) > 0 {
		fmt.Fprintf(&b, "if !(%s) {\nreturn %s{}, %s(%s, k)\n}\n", strings.Join(conds, " && "), ep.Name, tp.ErrorFunc, quote(e.Name))
		sb := shape.String()
		for i := range e.Key {
			v := fmt.Sprintf("v%d", i)
			if !strings.Contains(strings.Join(conds, " "), v+"[") {
				sb = strings.Replace(sb, v+", ok", "_, ok", 1)
			}
		}
		ep.ShapeBody = sb + "return " + strings.Join(conds, " && ") + "\n"
	} else {
		ep.ShapeBody = "return true\n"
	}
	if needP {
		p.use("keyParser")
		b.WriteString("var p keyParser\n")
	}
	for _, a := range assigns {
		b.WriteString(a + "\n")
	}
	if needP {
		fmt.Fprintf(&b, "if p.err != nil {\nreturn %s{}, fmt.Errorf(\"%s key: %%w\", p.err)\n}\n", ep.Name, e.Name)
	}
	b.WriteString("return x, nil\n")
	ep.ParseBody = b.String()

	if err := p.planConstructor(ep); err != nil {
		return err
	}
	p.planCodec(ep)
	return nil
}

// splitTemplate returns a template's literal texts around its
// placeholders (one more literal than placeholders; empty where two
// placeholders or an end meet) and the placeholders.
func splitTemplate(t *catalog.KeyTemplate) ([]string, []catalog.Part) {
	lits := []string{""}
	var phs []catalog.Part
	for _, part := range t.Parts {
		if part.Attr == "" {
			lits[len(lits)-1] += part.Literal
			continue
		}
		phs = append(phs, part)
		lits = append(lits, "")
	}
	return lits, phs
}

// planConstructor writes NewX: computed attributes filled in, every value
// checked against the model's domains, the key built once to prove it.
func (p *plan) planConstructor(ep *entityPlan) error {
	var b strings.Builder
	for _, f := range ep.Fields {
		c := f.Attr.Computed
		if c == nil {
			continue
		}
		fill, err := p.fillComputed(ep, f)
		if err != nil {
			return err
		}
		if fill == "" {
			continue
		}
		// A computed attribute the presence rules forbid in the item's
		// state is left out rather than filled and then refused.
		if cond, ok := p.presenceCond(ep, f.Attr.Name); ok && f.Pointer {
			fmt.Fprintf(&b, "if %s {\n%s} else {\nx.%s = nil\n}\n", cond, fill, f.Name)
		} else {
			b.WriteString(fill)
		}
	}
	p.use("checks")
	b.WriteString("var v checks\n")
	for _, f := range ep.Fields {
		x := "x." + f.Name
		for _, chk := range p.valueChecks(f.Attr, f.T, x) {
			if f.Pointer {
				fmt.Fprintf(&b, "if %s != nil {\n%s\n}\n", x, strings.ReplaceAll(chk, x, "*"+x))
			} else {
				b.WriteString(chk + "\n")
			}
		}
	}
	for _, chk := range p.presenceChecks(ep) {
		b.WriteString(chk + "\n")
	}
	args := make([]string, len(ep.KeyArgs))
	for i, f := range ep.KeyArgs {
		args[i] = "x." + f.Name
		if f.Pointer {
			args[i] = "deref(x." + f.Name + ")"
			p.use("deref")
		}
	}
	fmt.Fprintf(&b, "if _, err := %s(%s); err != nil {\nv.add(err)\n}\n", ep.KeyFunc, strings.Join(args, ", "))
	fmt.Fprintf(&b, "if err := v.err(%s); err != nil {\nreturn %s{}, err\n}\nreturn x, nil\n", quote(ep.E.Name), ep.Name)
	ep.NewBody = b.String()
	return nil
}

// fillComputed returns the statements setting a computed field of NewX
// from the fields it is computed from; none when they are not all there.
func (p *plan) fillComputed(ep *entityPlan, f *fieldPlan) (string, error) {
	c := f.Attr.Computed
	var b strings.Builder
	switch c.Kind {
	case catalog.KindHashMod:
		in := ep.field(c.Input)
		cp := p.computedFor(f.Attr.Name)
		if in == nil || cp == nil {
			return "", nil
		}
		val := cp.Func + "(x." + in.Name + ")"
		if in.Pointer {
			fmt.Fprintf(&b, "if x.%s != nil {\n", in.Name)
			val = cp.Func + "(*x." + in.Name + ")"
		}
		if f.Pointer {
			fmt.Fprintf(&b, "%s := %s\nx.%s = &%s\n", f.Var, val, f.Name, f.Var)
		} else {
			fmt.Fprintf(&b, "x.%s = %s\n", f.Name, val)
		}
		if in.Pointer {
			b.WriteString("}\n")
		}
	case catalog.KindTemplate:
		ok := true
		for _, ph := range c.Template.Placeholders() {
			if g := ep.field(ph); g == nil || g.Pointer {
				ok = false
			}
		}
		if !ok || f.T.kind != kString || f.T.enum != nil {
			return "", nil
		}
		x, err := p.templateExpr(c.Template, func(name string) (string, *gotype, bool) {
			g := ep.field(name)
			return "x." + g.Name, g.T, true
		})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "{\nvar k keyBuilder\nv := %s\nif k.err != nil {\nreturn %s{}, fmt.Errorf(\"%s: %s: %%w\", k.err)\n}\n", x, ep.Name, ep.E.Name, f.Attr.Name)
		if f.Pointer {
			b.WriteString("x." + f.Name + " = &v\n}\n")
		} else {
			b.WriteString("x." + f.Name + " = v\n}\n")
		}
	}
	return b.String(), nil
}

// presenceCond returns the condition under which the entity may carry an
// attribute, if it has when or unless rules.
func (p *plan) presenceCond(ep *entityPlan, name string) (string, bool) {
	for _, ea := range ep.E.Attributes {
		if ea.Name == name {
			cond, _, ok := p.presenceRule(ep, ea)
			return cond, ok
		}
	}
	return "", false
}

// valueChecks returns the statements checking a value against its
// attribute's domain, each adding to v: an enum, the form of civil dates
// and instants (and an instant's declared format), numeric bounds and
// enums, string lengths and patterns, and how many elements a list, map
// or set holds. The messages are the catalog's words for the same rules.
func (p *plan) valueChecks(a *catalog.Attribute, t *gotype, x string) []string {
	var out []string
	name := quote(a.Name)
	add := func(helper, format string, args ...any) {
		p.use(helper)
		out = append(out, fmt.Sprintf("v.add("+format+")", args...))
	}
	d := &a.Domain
	switch t.kind {
	case kString:
		if t.enum != nil {
			add("checkEnum", "checkEnum(%s, %s)", name, x)
			return out
		}
		s := x
		switch a.Unit {
		case catalog.UnitCivilDate:
			add("checkCivilDate", "checkCivilDate(%s, %s)", name, s)
		case catalog.UnitInstant:
			if f := d.Instant; f != nil {
				add("checkInstantFormat", "checkInstantFormat(%s, %s, %s, %d)", name, s, quote(f.Offset), map[string]int{"s": 0, "ms": 3, "us": 6, "ns": 9}[f.Precision])
			} else {
				add("checkInstant", "checkInstant(%s, %s)", name, s)
			}
		}
		if d.MinLength != nil || d.MaxLength != nil {
			add("checkLength", "checkLength(%s, %s, %d, %d)", name, s, intOr(d.MinLength, -1), intOr(d.MaxLength, -1))
		}
		if d.Pattern != nil {
			add("checkPattern", "checkPattern(%s, %s, %s)", name, s, p.regexVar(a))
		}
	case kInt, kFloat:
		num := x
		if t.kind == kInt {
			num = "float64(" + x + ")"
		}
		if len(d.Enum) > 0 {
			add("checkOneOf", "checkOneOf(%s, %s, %s)", name, num, "[]float64{"+strings.Join(d.Enum, ", ")+"}")
		}
		if d.Min != nil || d.Max != nil {
			lo, hi := "math.Inf(-1)", "math.Inf(1)"
			if d.Min != nil {
				lo = strconv.FormatFloat(*d.Min, 'g', -1, 64)
			}
			if d.Max != nil {
				hi = strconv.FormatFloat(*d.Max, 'g', -1, 64)
			}
			add("checkRange", "checkRange(%s, %s, %s, %s)", name, num, lo, hi)
		}
	case kList, kMap, kStringSet, kIntSet, kFloatSet, kBytesSet, kRaw:
		if (d.MinItems != nil || d.MaxItems != nil) && (t.kind != kRaw || a.Type == attr.L || a.Type == attr.M) {
			add("checkCount", "checkCount(%s, len(%s), %d, %d)", name, x, intOr(d.MinItems, -1), intOr(d.MaxItems, -1))
		}
	}
	return out
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// regexVar names the package-level compiled pattern of an attribute.
func (p *plan) regexVar(a *catalog.Attribute) string {
	for _, r := range p.regexes {
		if r.Attr == a.Name {
			return r.Var
		}
	}
	r := regexPlan{Attr: a.Name, Var: unexported(a.Name) + "Pattern", Expr: "^(?:" + a.Domain.Pattern.Text + ")$"}
	p.regexes = append(p.regexes, r)
	return r.Var
}

// presenceChecks returns the statements checking the entity's presence
// rules: an attribute carried outside its when (or inside its unless) is
// refused, a required one missing where its rules want it too.
func (p *plan) presenceChecks(ep *entityPlan) []string {
	var out []string
	for _, ea := range ep.E.Attributes {
		f := ep.field(ea.Name)
		if f == nil || !(f.Pointer || f.T.nilable()) {
			continue
		}
		cond, rule, ok := p.presenceRule(ep, ea)
		if !ok {
			continue
		}
		p.use("checks")
		out = append(out, fmt.Sprintf("if x.%s != nil && %s {\nv.add(errors.New(%s))\n}", f.Name, not(cond),
			quote(ea.Name+" is carried only "+rule)))
		if ea.Presence == catalog.Required {
			out = append(out, fmt.Sprintf("if x.%s == nil && (%s) {\nv.add(errors.New(%s))\n}", f.Name, cond,
				quote(ea.Name+" is required "+rule)))
		}
	}
	return out
}

// presenceRule returns the Go condition under which the entity may carry
// an attribute with when or unless rules, and the rule in the model's
// words; ok is false when the attribute has no such rule or it cannot be
// said in Go.
func (p *plan) presenceRule(ep *entityPlan, ea catalog.EntityAttr) (cond, rule string, ok bool) {
	if len(ea.When) == 0 && len(ea.Unless) == 0 {
		return "", "", false
	}
	when, ok1 := p.conditionExpr(ep, ea.When)
	unless, ok2 := p.conditionExpr(ep, ea.Unless)
	if !ok1 || !ok2 {
		return "", "", false
	}
	var allowed, words []string
	if when != "" {
		allowed = append(allowed, when)
		words = append(words, "while "+conditionWords(ea.When))
	}
	if unless != "" {
		allowed = append(allowed, not(unless))
		words = append(words, "unless "+conditionWords(ea.Unless))
	}
	return strings.Join(allowed, " && "), strings.Join(words, " and "), true
}

// not negates a Go condition, dropping a negation it already has rather
// than doubling it.
func not(cond string) string {
	if inner, ok := strings.CutPrefix(cond, "!("); ok && strings.HasSuffix(inner, ")") && closes(cond, 1) == len(cond)-1 {
		return inner[:len(inner)-1]
	}
	return "!(" + cond + ")"
}

// closes returns the index of the parenthesis closing the one at open in
// s, skipping string literals; -1 if none does.
func closes(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '`':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' && q == '"' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// conditionExpr prints the Go condition that every term holds: the
// attribute has one of the values.
func (p *plan) conditionExpr(ep *entityPlan, conds []catalog.Condition) (string, bool) {
	var terms []string
	for _, c := range conds {
		f := ep.field(c.Attribute)
		if f == nil || f.T.nilable() {
			return "", false
		}
		x := "x." + f.Name
		if f.Pointer {
			x = "*x." + f.Name
		}
		var alts []string
		for _, v := range c.Values {
			lit := sampleGo(f.T, v)
			if lit == "" {
				return "", false
			}
			alts = append(alts, x+" == "+lit)
		}
		term := strings.Join(alts, " || ")
		if len(alts) > 1 {
			term = "(" + term + ")"
		}
		if f.Pointer {
			term = "x." + f.Name + " != nil && " + term
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " && "), true
}

// conditionWords says a presence rule the way the model reads it.
func conditionWords(conds []catalog.Condition) string {
	var parts []string
	for _, c := range conds {
		var vs []string
		for _, v := range c.Values {
			vs = append(vs, v.Str)
		}
		parts = append(parts, c.Attribute+" is "+strings.ReplaceAll(joinWords(vs), " and ", " or "))
	}
	return joinWords(parts)
}

// planCodec writes MarshalItem and UnmarshalX without reflection: each
// attribute is encoded and decoded by its known type.
func (p *plan) planCodec(ep *entityPlan) {
	e := ep.E
	tp := ep.Table
	var b strings.Builder
	args := make([]string, len(ep.KeyArgs))
	for i, f := range ep.KeyArgs {
		args[i] = "x." + f.Name
		if f.Pointer {
			args[i] = "deref(x." + f.Name + ")"
			p.use("deref")
		}
	}
	fmt.Fprintf(&b, "key, err := %s(%s)\nif err != nil {\nreturn nil, err\n}\n", ep.KeyFunc, strings.Join(args, ", "))
	b.WriteString("item := key.item()\n")
	if tp.T.Discriminator != "" {
		p.use("stringValue")
		fmt.Fprintf(&b, "item[%s] = stringValue(%s)\n", quote(tp.T.Discriminator), quote(e.TypeValue))
	}
	for _, f := range ep.Fields {
		if f.Presence == catalog.KeyOnly || naturalKey(e, f.Attr.Name) {
			continue // in the key's item already
		}
		x := "x." + f.Name
		switch {
		case f.Pointer:
			fmt.Fprintf(&b, "if %s != nil {\nitem[%s] = %s\n}\n", x, quote(f.Attr.Name), p.encode(f.T, "*"+x))
		case f.T.nilable():
			fmt.Fprintf(&b, "if %s != nil {\nitem[%s] = %s\n}\n", x, quote(f.Attr.Name), p.encode(f.T, x))
		default:
			fmt.Fprintf(&b, "item[%s] = %s\n", quote(f.Attr.Name), p.encode(f.T, x))
		}
	}
	b.WriteString("return item, nil\n")
	ep.MarshalBody = b.String()

	b.Reset()
	p.use("decoder")
	fmt.Fprintf(&b, "k, err := %s(item)\nif err != nil {\nreturn %s{}, err\n}\n", "keyOf"+tp.Field, ep.Name)
	fmt.Fprintf(&b, "x, err := %s(k)\nif err != nil {\nreturn %s{}, err\n}\n", ep.ParseFunc, ep.Name)
	fmt.Fprintf(&b, "d := decoder{item: item, what: %s}\n", quote(e.Name))
	for _, f := range ep.Fields {
		if f.Presence == catalog.KeyOnly || slices.Contains(keyArgNames(ep), f.Attr.Name) {
			continue
		}
		b.WriteString(p.decodeField(f, "x."+f.Name, f.Presence == catalog.Required) + "\n")
	}
	fmt.Fprintf(&b, "if d.err != nil {\nreturn %s{}, d.err\n}\nreturn x, nil\n", ep.Name)
	ep.UnmarshalBody = b.String()
}

func keyArgNames(ep *entityPlan) []string {
	var out []string
	for _, f := range ep.KeyArgs {
		out = append(out, f.Attr.Name)
	}
	return out
}

// decodeField returns the statement decoding attribute f into dst from
// the decoder d.
func (p *plan) decodeField(f *fieldPlan, dst string, required bool) string {
	dec := p.decoder(f.T)
	name := quote(f.Attr.Name)
	switch {
	case required:
		p.use("required")
		return fmt.Sprintf("%s = required(&d, %s, %s)", dst, name, dec)
	case f.Pointer:
		p.use("optional")
		return fmt.Sprintf("%s = optional(&d, %s, %s)", dst, name, dec)
	default:
		p.use("maybe")
		return fmt.Sprintf("%s = maybe(&d, %s, %s)", dst, name, dec)
	}
}

// sampleGo returns a Go literal of type t for a model value, for doc
// examples; "" when the value has no simple literal.
func sampleGo(t *gotype, v attr.Value) string {
	switch {
	case t.kind == kString && v.Type == attr.S:
		if t.enum != nil {
			for _, ev := range t.enum.Values {
				if ev.Value == v.Str {
					return ev.Const
				}
			}
		}
		return quote(v.Str)
	case (t.kind == kInt || t.kind == kFloat) && v.Type == attr.N:
		return v.Str
	case t.kind == kBool && v.Type == attr.BOOL:
		return strconv.FormatBool(v.Bool)
	}
	return ""
}
