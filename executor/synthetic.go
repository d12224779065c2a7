package executor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/expr"
)

// Synthetic keys: an index with several partition or sort attributes is
// created, on a target without multi-attribute keys, on the model's
// synthetic fallback: one string attribute per side, rendered from the
// natural attributes by the index's template. Then every write must keep
// those attributes, and every query must address them:
//
//   - a put writes each synthetic attribute whose template's attributes
//     are all in the item (so the item is in the synthetic index exactly
//     when it is in the natural one);
//   - an update that SETs an attribute of a synthetic template SETs the
//     synthetic attribute too, rendered from the values the update
//     assigns and the item's other values the request knows (its key's
//     placeholders, computed attributes of those, parameters of the same
//     name); one that REMOVEs such an attribute REMOVEs it;
//   - a query's equalities on the partition attributes become one
//     equality on the synthetic partition key, and its sort conditions a
//     condition on the synthetic sort key: equalities on leading sort
//     attributes and begins_with become begins_with on the rendered
//     prefix, between becomes between on rendered bounds.
//
// The rewriting is done once, by Compile, so that a code generator
// asking for the same plan sends the same requests.

// SyntheticWrite is one synthetic key attribute a write maintains.
type SyntheticWrite struct {
	Attribute string
	Template  *catalog.KeyTemplate
	// Remove: the update REMOVEs it. Otherwise an update SETs it through
	// Placeholder, rendered from Sources (one per attribute of its
	// template); a put renders it from the item it writes.
	Remove      bool
	Placeholder string
	Sources     map[string]Source
}

// Source is where an update finds the value of one natural attribute of
// a synthetic key: an operand (the value it assigns, or a parameter or
// bound attribute of that name), or a computation of other sources.
type Source struct {
	Operand  *catalog.Operand
	Computed *catalog.Computed
}

// syntheticIndexes lists the table's indexes keyed on their fallback.
func (c *compiler) syntheticIndexes(t *catalog.Table) []*catalog.Index {
	var out []*catalog.Index
	for _, x := range t.Indexes {
		if x.KeyedSynthetic(c.keys) {
			out = append(out, x)
		}
	}
	return out
}

func syntheticKeys(x *catalog.Index) []*catalog.SyntheticKey {
	out := []*catalog.SyntheticKey{x.Synthetic.Partition}
	if x.Synthetic.Sort != nil {
		out = append(out, x.Synthetic.Sort)
	}
	return out
}

// synthetic prepares the maintenance of the synthetic keys a write
// touches.
func (c *compiler) synthetic(sp *StepPlan, q *catalog.Request) error {
	xs := c.syntheticIndexes(q.Table)
	if len(xs) == 0 {
		return nil
	}
	switch sp.Kind {
	case catalog.Put:
		for _, x := range xs {
			for _, sk := range syntheticKeys(x) {
				sp.SyntheticWrites = append(sp.SyntheticWrites, SyntheticWrite{Attribute: sk.Attribute, Template: sk.Template})
			}
		}
		return nil
	case catalog.Update:
	default:
		return nil // a delete takes the attributes with the item; a check writes nothing
	}
	assigned, removed, written, err := c.updateEffects(sp, q)
	if err != nil {
		return err
	}
	var sets, removes []string
	for _, x := range xs {
		for _, sk := range syntheticKeys(x) {
			phs := sk.Template.Placeholders()
			touched, gone := false, false
			for _, p := range phs {
				touched = touched || written[p]
				gone = gone || removed[p]
			}
			if !touched {
				continue
			}
			k := SyntheticWrite{Attribute: sk.Attribute, Template: sk.Template, Remove: gone}
			name := c.nameOf(sp, sk.Attribute)
			if gone {
				removes = append(removes, name)
				sp.SyntheticWrites = append(sp.SyntheticWrites, k)
				continue
			}
			k.Sources = map[string]Source{}
			for _, p := range phs {
				src, err := c.sourceOf(sp, q, p, assigned, written)
				if err != nil {
					return fmt.Errorf("index %s is keyed on %s here, which needs %s: %w", x.Name, sk.Attribute, p, err)
				}
				k.Sources[p] = src
			}
			k.Placeholder = valuePlaceholder(sp, sk.Attribute)
			// Reserve the placeholder so the next synthetic key takes
			// another one.
			sp.Values = append(append([]catalog.NamedValue{}, sp.Values...), catalog.NamedValue{Name: k.Placeholder, Value: catalog.Operand{Param: "\x00synthetic"}})
			sets = append(sets, name+" = "+k.Placeholder)
			sp.SyntheticWrites = append(sp.SyntheticWrites, k)
		}
	}
	// The reservations are not values of the request: the run fills the
	// synthetic values itself.
	var vals []catalog.NamedValue
	for _, v := range sp.Values {
		if v.Value.Param != "\x00synthetic" {
			vals = append(vals, v)
		}
	}
	sp.Values = vals
	sp.Update = addActions(addActions(sp.Update, "SET", sets), "REMOVE", removes)
	return nil
}

// sourceOf finds where the value of natural attribute p comes from in an
// update that changes a synthetic key built from it.
func (c *compiler) sourceOf(sp *StepPlan, q *catalog.Request, p string, assigned map[string]catalog.Operand, written map[string]bool) (Source, error) {
	if o, ok := assigned[p]; ok {
		return Source{Operand: &o}, nil
	}
	if written[p] {
		return Source{}, fmt.Errorf("the update computes %s from the stored item, so its new value is not known to the request", p)
	}
	known := func(name string) bool {
		if c.op.Param(name) != nil {
			return true
		}
		for _, s := range c.op.Steps {
			for _, b := range s.Bind {
				if b == name {
					return true
				}
			}
		}
		return false
	}
	if q.Entity != nil {
		for _, k := range q.Entity.Key {
			for _, ph := range k.Template.Placeholders() {
				if ph == p && known(p) {
					return Source{Operand: &catalog.Operand{Param: p}}, nil
				}
			}
		}
	}
	if a := c.m.Attribute(p); a != nil && a.Computed != nil && a.Computed.Kind != catalog.KindHMAC {
		inputs := []string{a.Computed.Input}
		if a.Computed.Kind == catalog.KindTemplate && a.Computed.Template != nil {
			inputs = a.Computed.Template.Placeholders()
		}
		ok := true
		for _, in := range inputs {
			ok = ok && in != "" && known(in)
		}
		if ok {
			return Source{Computed: a.Computed}, nil
		}
	}
	if known(p) {
		return Source{Operand: &catalog.Operand{Param: p}}, nil
	}
	return Source{}, fmt.Errorf("the request neither assigns %s nor knows it (a parameter or bound value of that name)", p)
}

// updateEffects finds what an update does to each top-level attribute:
// assigned (SET a = :v, the operand of :v), removed, or written at all.
// It applies the update, with expr's own semantics, to an item holding
// what the update reads, each value placeholder bound to a value no other
// placeholder has.
func (c *compiler) updateEffects(sp *StepPlan, q *catalog.Request) (assigned map[string]catalog.Operand, removed, written map[string]bool, err error) {
	values := map[string]attr.Value{}
	marks := map[string]catalog.Operand{}
	var samples []string
	for i, nv := range q.Values {
		t := c.operandType(nv.Value)
		v, unique := sentinel(t, i)
		if nv.Value.Literal != nil {
			v, unique = *nv.Value.Literal, false
		}
		values[nv.Name] = v
		if unique {
			marks[string(attr.AppendValueJSON(nil, v))] = nv.Value
		} else {
			samples = append(samples, nv.Name)
		}
	}
	u, err := expr.NewScope(q.Names, values).Update(q.Update)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("update: %w", err)
	}
	var base attr.Item
	for _, a := range u.Reads() {
		t := attr.S
		if at := c.m.Attribute(a); at != nil {
			t = at.Type
		}
		v, _ := sentinel(t, 1000+len(base))
		base = base.With(a, v)
	}
	n, err := u.Apply(base)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("update: %w", err)
	}
	assigned, removed, written = map[string]catalog.Operand{}, map[string]bool{}, map[string]bool{}
	for _, a := range u.Attrs() {
		written[a] = true
		v, ok := n.Get(a)
		if !ok {
			removed[a] = true
			continue
		}
		if o, ok := marks[string(attr.AppendValueJSON(nil, v))]; ok {
			assigned[a] = o
		}
	}
	return assigned, removed, written, nil
}

// operandType is the type of an operand's value.
func (c *compiler) operandType(o catalog.Operand) attr.Type {
	switch {
	case o.Literal != nil:
		return o.Literal.Type
	case o.Template != nil:
		return attr.S
	case o.IsList:
		return attr.L
	case o.IsMap:
		return attr.M
	case o.Param != "":
		if p := c.op.Param(o.Param); p != nil {
			return p.Type
		}
		if a := c.m.Attribute(o.Param); a != nil {
			return a.Type
		}
	}
	return attr.S
}

// sentinel is a value of type t that no other i gives; unique is false
// for types with too few values to tell apart (BOOL, NULL).
func sentinel(t attr.Type, i int) (attr.Value, bool) {
	tag := "\x00cardapio-" + strconv.Itoa(i)
	switch t {
	case attr.N:
		return attr.Num("-7" + strconv.Itoa(100000+i) + ".1357"), true
	case attr.B:
		return attr.Bin([]byte(tag)), true
	case attr.BOOL:
		return attr.Bool(true), false
	case attr.NULL:
		return attr.Null(), false
	case attr.L:
		return attr.ListOf(attr.Str(tag)), true
	case attr.M:
		return attr.MapOf(attr.Item{{Name: "k", Value: attr.Str(tag)}}), true
	case attr.SS:
		return attr.StrSet(tag), true
	case attr.NS:
		return attr.NumSet("-7" + strconv.Itoa(100000+i) + ".1357"), true
	case attr.BS:
		return attr.BinSet(tag), true
	}
	return attr.Str(tag), true
}

// addActions adds actions to a section (SET or REMOVE) of an update
// expression, creating the section when the expression has none.
func addActions(update, section string, actions []string) string {
	if len(actions) == 0 {
		return update
	}
	list := strings.Join(actions, ", ")
	if i := sectionAt(update, section); i >= 0 {
		j := i + len(section)
		return update[:j] + " " + list + "," + update[j:]
	}
	return strings.TrimSpace(update) + " " + section + " " + list
}

// sectionAt finds the keyword of a section (case-insensitive, standing
// alone), or -1.
func sectionAt(update, kw string) int {
	up := strings.ToUpper(update)
	for from := 0; ; {
		i := strings.Index(up[from:], kw)
		if i < 0 {
			return -1
		}
		i += from
		before := i == 0 || up[i-1] == ' ' || up[i-1] == '\t' || up[i-1] == '\n' || up[i-1] == '\r'
		end := i + len(kw)
		after := end < len(up) && (up[end] == ' ' || up[end] == '\t' || up[end] == '\n' || up[end] == '\r')
		if before && after {
			return i
		}
		from = end
	}
}

// syntheticKeyCondition writes a query of an index keyed on its synthetic
// fallback.
func (c *compiler) syntheticKeyCondition(sp *StepPlan, q *catalog.Request, shardAttr string, shardCount int) error {
	x := q.Index
	s := x.Synthetic
	var part, sortConds []catalog.KeyCondition
	for _, kc := range q.KeyCondition {
		if contains(x.Partition, kc.Attribute) {
			if kc.Op != catalog.OpEq {
				return fmt.Errorf("partition attribute %s takes equality only", kc.Attribute)
			}
			part = append(part, kc)
		} else {
			sortConds = append(sortConds, kc)
		}
	}
	pk := KeyValue{Placeholder: valuePlaceholder(sp, s.Partition.Attribute), Attribute: s.Partition.Attribute, Prefix: s.Partition.Template, Natural: part, synthetic: true}
	if shardAttr != "" {
		sp.ShardValue, sp.ShardCount, sp.ShardAttr = 0, shardCount, shardAttr
	}
	sp.KeyValues = append(sp.KeyValues, pk)
	parts := []string{c.nameOf(sp, s.Partition.Attribute) + " = " + pk.Placeholder}
	if len(sortConds) > 0 {
		if s.Sort == nil {
			return fmt.Errorf("index %s has no synthetic sort key for the sort condition", x.Name)
		}
		cond, err := c.syntheticSort(sp, x, sortConds)
		if err != nil {
			return err
		}
		parts = append(parts, cond)
	}
	sp.KeyCondition = strings.Join(parts, " AND ")
	return nil
}

// syntheticSort turns sort conditions on the natural attributes into one
// on the synthetic sort key.
func (c *compiler) syntheticSort(sp *StepPlan, x *catalog.Index, conds []catalog.KeyCondition) (string, error) {
	t := x.Synthetic.Sort.Template
	// The position in the template's parts of each sort attribute's
	// placeholder, in the index's order.
	pos := make([]int, len(x.Sort))
	for i, a := range x.Sort {
		pos[i] = -1
		for j, p := range t.Parts {
			if p.Attr == a && pos[i] < 0 {
				pos[i] = j
			}
		}
		if pos[i] < 0 || i > 0 && pos[i] < pos[i-1] {
			return "", fmt.Errorf("the synthetic sort key %s does not hold the sort attributes in their order", x.Synthetic.Sort.Attribute)
		}
	}
	name := c.nameOf(sp, x.Synthetic.Sort.Attribute)
	k := len(conds)
	last := conds[k-1]
	eqs := conds
	if last.Op != catalog.OpEq {
		eqs = conds[:k-1]
	}
	for _, e := range eqs {
		if e.Op != catalog.OpEq {
			return "", fmt.Errorf("only the last sort condition may be %s", e.Op)
		}
	}
	kv := func(suffix string, upto int, tail *catalog.Operand, part *catalog.Part, raw, max bool) KeyValue {
		return KeyValue{Placeholder: valuePlaceholder(sp, x.Synthetic.Sort.Attribute+suffix), Attribute: x.Synthetic.Sort.Attribute,
			Prefix: &catalog.KeyTemplate{Parts: t.Parts[:upto]}, Natural: eqs, Suffix: tail, Part: part, Raw: raw, Max: max, synthetic: true}
	}
	add := func(v KeyValue) string {
		sp.KeyValues = append(sp.KeyValues, v)
		return v.Placeholder
	}
	switch {
	case last.Op == catalog.OpEq && k == len(x.Sort):
		v := kv("", len(t.Parts), nil, nil, false, false)
		return name + " = " + add(v), nil
	case last.Op == catalog.OpEq:
		return "begins_with(" + name + ", " + add(kv("", pos[k], nil, nil, false, false)) + ")", nil
	}
	p := t.Parts[pos[k-1]]
	more := pos[k-1]+1 < len(t.Parts)
	switch last.Op {
	case catalog.OpBeginsWith:
		return "begins_with(" + name + ", " + add(kv("", pos[k-1], &last.Operands[0], &p, true, false)) + ")", nil
	case catalog.OpBetween:
		lo := add(kv("_lo", pos[k-1], &last.Operands[0], &p, false, false))
		hi := add(kv("_hi", pos[k-1], &last.Operands[1], &p, false, more))
		return name + " BETWEEN " + lo + " AND " + hi, nil
	}
	if pos[k-1] > 0 || more {
		return "", fmt.Errorf("%s on %s cannot be expressed on the synthetic sort key %s", last.Op, last.Attribute, x.Synthetic.Sort.Attribute)
	}
	ph := add(kv("", 0, &last.Operands[0], &p, false, false))
	return comparison(name, last.Op, []string{ph})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// render computes a synthetic key condition value from the natural
// values (attribute -> value) and the environment.
func (kv *KeyValue) render(natural map[string]attr.Value, env map[string]attr.Value) (attr.Value, error) {
	s, err := kv.Prefix.Render(natural)
	if err != nil {
		return attr.Value{}, err
	}
	if kv.Suffix != nil {
		v, err := kv.Suffix.Resolve(env)
		if err != nil {
			return attr.Value{}, err
		}
		if kv.Raw {
			if v.Type != attr.S {
				return attr.Value{}, fmt.Errorf("begins_with on %s needs a string", kv.Part.Attr)
			}
			s += v.Str
		} else {
			one := &catalog.KeyTemplate{Parts: []catalog.Part{*kv.Part}}
			t, err := one.Render(map[string]attr.Value{kv.Part.Attr: v})
			if err != nil {
				return attr.Value{}, err
			}
			s += t
		}
	}
	if kv.Max {
		s += "\U0010FFFF"
	}
	return attr.Str(s), nil
}

// value computes a synthetic attribute an update sets, from its sources.
func (k *SyntheticWrite) value(env map[string]attr.Value) (attr.Value, error) {
	vals := make(map[string]attr.Value, len(k.Sources))
	for p, src := range k.Sources {
		if src.Operand != nil {
			v, err := src.Operand.Resolve(env)
			if err != nil {
				return attr.Value{}, err
			}
			vals[p] = v
		}
	}
	for p, src := range k.Sources {
		if src.Computed != nil {
			in := make(map[string]attr.Value, len(vals)+len(env))
			for n, v := range env {
				in[n] = v
			}
			for n, v := range vals {
				in[n] = v
			}
			v, err := src.Computed.Eval(in, nil)
			if err != nil {
				return attr.Value{}, err
			}
			vals[p] = v
		}
	}
	s, err := k.Template.Render(vals)
	if err != nil {
		return attr.Value{}, err
	}
	return attr.Str(s), nil
}
