package catalog

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// The images of a write: the item it finds and the item it leaves. The
// static estimate charges a write from both, so the item left is computed
// from the request, never taken on trust: a put leaves the item it
// renders, an update what the expression language (the package the
// engine runs) makes of the item it finds, a delete nothing. A sample
// named as after is then a claim the catalog checks against the
// computation.

// MissingValueError is returned when a step cannot be applied because a
// value it needs is unknown: a parameter without a sample, or an
// attribute an earlier read binds from a sample that lacks it.
type MissingValueError struct{ Name string }

func (e *MissingValueError) Error() string {
	return fmt.Sprintf("{%s} has no sample value", e.Name)
}

// Values returns the values an operation runs with in budget variant b:
// the sample of every parameter that has one (or the variant's own value
// of it), and the attributes its read
// steps bind, taken from the item each read returns in b (a get's sample;
// for a query, the first match whose sample carries the attribute).
// Parameters without a sample are absent.
func (o *Operation) Values(b *Budget) map[string]attr.Value {
	if b == nil {
		b = &Budget{}
	}
	vals := map[string]attr.Value(o.SampleInputsIn(b))
	for _, s := range o.Steps {
		if len(s.Bind) == 0 || s.Request == nil || !s.In(b.Name) {
			continue
		}
		for _, name := range s.Bind {
			if v, ok := boundValue(s, b, name); ok {
				vals[name] = v
			}
		}
	}
	return vals
}

// boundValue finds a bound attribute in the items a read returns: stored
// in the item, or, for an attribute that lives only in the key, read back
// from the rendered key.
func boundValue(s *Step, b *Budget, name string) (attr.Value, bool) {
	type read struct {
		e    *Entity
		item attr.Item
	}
	var reads []read
	q := s.Request
	switch s.Kind {
	case Get:
		_, _, sn := b.SamplesFor(s)
		if it, ok := q.Entity.Sample(sn); ok && it != nil {
			reads = append(reads, read{q.Entity, it})
		}
	default:
		for _, m := range q.Matches {
			if it, ok := m.Entity.Sample(m.Sample); ok && it != nil {
				reads = append(reads, read{m.Entity, it})
			}
		}
	}
	for _, r := range reads {
		if v, ok := r.item.Get(name); ok {
			return v, true
		}
	}
	for _, r := range reads {
		if v, ok := fromKey(r.e, r.item, name); ok {
			return v, true
		}
	}
	return attr.Value{}, false
}

// fromKey reads a placeholder's value back from an item's rendered keys.
func fromKey(e *Entity, it attr.Item, name string) (attr.Value, bool) {
	for _, k := range e.Key {
		kv, ok := it.Get(k.Attribute)
		if !ok || kv.Type != attr.S {
			continue
		}
		parts, ok := k.Template.Match(kv.Str)
		if !ok {
			continue
		}
		text, ok := parts[name]
		if !ok {
			continue
		}
		for _, p := range k.Template.Parts {
			if p.Attr != name {
				continue
			}
			if p.Type == attr.N {
				n, err := strconv.ParseUint(text, 10, 64)
				if err != nil {
					return attr.Value{}, false
				}
				return attr.Num(strconv.FormatUint(n, 10)), true
			}
			return attr.Str(text), true
		}
	}
	return attr.Value{}, false
}

// Images returns the item a write step (or transaction action) finds and
// the item it leaves in budget variant b, the second computed by Apply
// from the first and the operation's Values in b (the named after sample
// only when a parameter the request needs has no sample). For a step whose
// condition fails the second is the item it would have left, which is
// what the failed-write rule sizes. A delete and a condition check leave
// nil.
func (o *Operation) Images(s *Step, b *Budget) (before, after attr.Item, err error) {
	if b == nil {
		b = &Budget{}
	}
	q := s.Request
	if q == nil || q.Entity == nil {
		return nil, nil, fmt.Errorf("step %s writes no entity", s.ID)
	}
	bn, _, _ := b.SamplesFor(s)
	if bn == "" {
		bn = Absent
	}
	before, ok := q.Entity.Sample(bn)
	if !ok {
		return nil, nil, fmt.Errorf("entity %s has no sample %q", q.Entity.Name, bn)
	}
	vals := o.Values(b)
	if b.FailedStep != "" && b.FailedStep == s.ID {
		if it, ferr := o.Failing(s, b, vals, nil); ferr == nil {
			before = it
		}
	}
	after, err = s.Apply(before, vals)
	var missing *MissingValueError
	if _, an, _ := b.SamplesFor(s); errors.As(err, &missing) && an != "" {
		// Without the values the request cannot be applied: the named
		// sample is all there is.
		after, _ = q.Entity.Sample(an)
		return before, after, nil
	}
	return before, after, err
}

// Failing returns the item a write step finds in budget variant b when b
// fails the step's condition (b.FailedStep names it): the declared before
// item when the condition fails on it, else the first of the step's after
// sample and the entity's other samples, in order, on which it fails,
// each placed first by place (nil: taken as they are; the executor places
// them at the key its run addresses). A write whose condition holds on
// the item it finds does not fail, so the item a failing write finds is
// never one the condition holds on: a put guarded by attribute_not_exists
// fails only on an existing item, whatever before the variant declares.
// The static estimate charges the failed write on this item (Images) and
// the executor seeds it: one rule, so that both bill the same item.
func (o *Operation) Failing(s *Step, b *Budget, vals map[string]attr.Value, place func(attr.Item) (attr.Item, error)) (attr.Item, error) {
	q := s.Request
	if q == nil || q.Entity == nil {
		return nil, fmt.Errorf("step %s writes no entity", s.ID)
	}
	if place == nil {
		place = func(it attr.Item) (attr.Item, error) { return it, nil }
	}
	c, err := s.call(vals)
	if err != nil {
		return nil, err
	}
	cond, err := expr.NewScope(c.Names, valueMap(c.Values)).Condition(c.Condition)
	if err != nil {
		return nil, fmt.Errorf("condition: %w", err)
	}
	bn, an, _ := b.SamplesFor(s)
	if bn == "" {
		bn = Absent
	}
	if it, _ := q.Entity.Sample(bn); it != nil || bn == Absent {
		placed := it
		if it != nil {
			if placed, err = place(it); err != nil {
				return nil, err
			}
		}
		if !cond.Eval(placed) {
			return placed, nil
		}
	}
	names := []string{an}
	for _, smp := range q.Entity.Samples {
		names = append(names, smp.Name)
	}
	for _, n := range names {
		it, ok := q.Entity.Sample(n)
		if !ok || it == nil {
			continue
		}
		placed, err := place(it)
		if err != nil {
			return nil, err
		}
		if !cond.Eval(placed) {
			return placed, nil
		}
	}
	return nil, fmt.Errorf("the variant fails step %s's condition, but neither its before item nor any sample of %s fails it", s.ID, q.Entity.Name)
}

// Apply returns the item a write step leaves when it finds before (nil:
// no item) and runs with vals (parameters and bound attributes by name).
// It applies the very request Render fills in for the executor: a put
// leaves the item it sends (rendered key, the entity's discriminator and
// its attributes); an update applies its expression, with the values it
// sends, to before, or to the bare key when there is no item (an
// upsert); a delete leaves nil and a condition check leaves before.
// Conditions are not evaluated: the caller decides whether the write
// happens. A missing value is a *MissingValueError; an update DynamoDB
// would reject on this item is an *expr.Error.
func (s *Step) Apply(before attr.Item, vals map[string]attr.Value) (attr.Item, error) {
	c, err := s.call(vals)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case Delete:
		return nil, nil
	case ConditionCheck:
		return before, nil
	case Put:
		return c.Item, nil
	case Update:
		start := before
		if start == nil {
			start = c.Key
		}
		u, err := expr.NewScope(c.Names, valueMap(c.Values)).Update(c.Update)
		if err != nil {
			return nil, err
		}
		return u.Apply(start)
	}
	return nil, fmt.Errorf("a %s step writes nothing", s.Kind)
}

// Holds reports whether the condition of a write step holds on item
// (nil: no item) with vals. A step without a condition always holds.
func (s *Step) Holds(item attr.Item, vals map[string]attr.Value) (bool, error) {
	if s.Request == nil || s.Request.Condition == "" {
		return true, nil
	}
	c, err := s.call(vals)
	if err != nil {
		return false, err
	}
	cond, err := expr.NewScope(c.Names, valueMap(c.Values)).Condition(c.Condition)
	if err != nil {
		return false, err
	}
	return cond.Eval(item), nil
}

// call renders the step's own request (an action alone, outside its
// transaction), a missing input reported as a *MissingValueError.
func (s *Step) call(vals map[string]attr.Value) (*Call, error) {
	q := s.Request
	if q == nil || q.Entity == nil {
		return nil, fmt.Errorf("step %s writes no entity", s.ID)
	}
	var ops []Operand
	for _, as := range [][]Assign{q.Key, q.Item} {
		for _, a := range as {
			ops = append(ops, a.Value)
		}
	}
	for _, nv := range q.Values {
		ops = append(ops, nv.Value)
	}
	for _, o := range ops {
		for _, ph := range o.Placeholders() {
			if _, ok := vals[ph]; !ok {
				return nil, &MissingValueError{ph}
			}
		}
	}
	return s.render(Inputs(vals), false)
}

func valueMap(it attr.Item) map[string]attr.Value {
	m := make(map[string]attr.Value, len(it))
	for _, f := range it {
		m[f.Name] = f.Value
	}
	return m
}

// itemDiff names the attributes in which two items differ, with both
// values: "paidCents (sample 48790, computed 48791)".
func itemDiff(sample, computed attr.Item) []string {
	var out []string
	names := map[string]bool{}
	for _, f := range sample {
		names[f.Name] = true
	}
	for _, f := range computed {
		names[f.Name] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		a, inA := sample.Get(n)
		b, inB := computed.Get(n)
		if inA && inB && attr.Equal(a, b) {
			continue
		}
		out = append(out, fmt.Sprintf("%s (sample %s, computed %s)", n, showValue(a, inA), showValue(b, inB)))
	}
	return out
}

// showValue writes a value the way a model spells it.
func showValue(v attr.Value, present bool) string {
	if !present {
		return "absent"
	}
	switch v.Type {
	case attr.S:
		if r := []rune(v.Str); len(r) > 40 {
			return fmt.Sprintf("%s... (%d characters)", strconv.Quote(string(r[:24])), len(r))
		}
		return strconv.Quote(v.Str)
	case attr.N:
		return v.Str
	case attr.BOOL:
		return strconv.FormatBool(v.Bool)
	case attr.NULL:
		return "null"
	}
	s := string(attr.AppendValueJSON(nil, v))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// checkImages proves the samples of every write in every budget variant
// against the requests: the before sample is the item the request
// addresses, the condition holds on it unless the variant names the step
// as the one that fails, the update applies to it, and a hand-written
// after is what the request leaves. It runs on a model free of other
// errors. A finding shared by every variant a step runs in is reported
// once, without variant names.
func (r *resolver) checkImages(m *Model) {
	for _, op := range m.Operations {
		variants := op.Budgets
		if len(variants) == 0 {
			variants = []*Budget{{}}
		}
		f := &imageFindings{runs: map[*Step][]string{}}
		for _, b := range variants {
			for i, s := range op.Steps {
				if !s.In(b.Name) {
					continue
				}
				sptr := p("operations", op.Name, "steps", i)
				if s.Kind == Transaction {
					cancelled := false
					for _, it := range s.Items {
						cancelled = cancelled || it.ID == b.FailedStep && it.In(b.Name)
					}
					for j, it := range s.Items {
						if it.In(b.Name) {
							f.check(op, it, b, fmt.Sprintf("%s/transaction/items/%d/%s", sptr, j, it.Kind), cancelled)
						}
					}
					continue
				}
				if s.Kind.IsWrite() {
					f.check(op, s, b, sptr+"/"+string(s.Kind), false)
				}
				if s.ID == b.FailedStep {
					break // no later step runs
				}
			}
		}
		f.report(r, op)
	}
}

// imageFindings collects the findings of one operation across its
// variants.
type imageFindings struct {
	list []*imageFinding
	runs map[*Step][]string // variants each step runs in
}

type imageFinding struct {
	step      *Step
	ptr       string
	key       bool
	hint, msg string
	variants  []string
}

func (f *imageFindings) add(s *Step, b *Budget, ptr string, key bool, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, x := range f.list {
		if x.ptr == ptr && x.msg == msg {
			x.variants = append(x.variants, b.Name)
			return
		}
	}
	f.list = append(f.list, &imageFinding{s, ptr, key, hint, msg, []string{b.Name}})
}

func (f *imageFindings) report(r *resolver, op *Operation) {
	for _, x := range f.list {
		prefix := ""
		if len(op.Budgets) > 1 && len(x.variants) < len(f.runs[x.step]) && !strings.HasPrefix(x.ptr, p("operations", op.Name, "budgets")) {
			prefix = "in variant " + strings.Join(x.variants, ", ") + ": "
		}
		r.errAt(x.ptr, x.key, x.hint, "%s%s", prefix, x.msg)
	}
}

// check checks one write in one variant; ptr is the request's pointer,
// cancelled marks an action of a transaction another action cancels.
func (f *imageFindings) check(op *Operation, s *Step, b *Budget, ptr string, cancelled bool) {
	q := s.Request
	if q == nil || q.Entity == nil {
		return
	}
	f.runs[s] = append(f.runs[s], b.Name)
	e := q.Entity
	// Where a sample name comes from: the step, or the variant.
	field := func(name string) string {
		if o, ok := b.Samples[s.ID]; ok {
			if name == "before" && o.Before != nil || name == "after" && o.After != nil {
				return p("operations", op.Name, "budgets", b.Name, "samples", s.ID, name)
			}
		}
		return ptr + "/" + name
	}
	bn, an, _ := b.SamplesFor(s)
	if bn == "" {
		bn = Absent
	}
	before, ok := e.Sample(bn)
	if !ok {
		return // reported where it is named
	}
	vals := op.Values(b)
	if c, err := s.call(vals); err == nil && before != nil {
		key := c.Key
		if s.Kind == Put {
			key = nil
			for _, k := range e.Key {
				if v, ok := c.Item.Get(k.Attribute); ok {
					key = key.With(k.Attribute, v)
				}
			}
		}
		var diff []string
		for _, k := range key {
			if v, _ := before.Get(k.Name); !attr.Equal(v, k.Value) {
				diff = append(diff, fmt.Sprintf("%s %s", k.Name, showValue(k.Value, true)))
			}
		}
		if len(diff) > 0 {
			f.add(s, b, field("before"), false, "give the parameters the sample's key values, or name the sample of the item the step writes",
				"sample %s is not the item the %s addresses: with the parameters' samples it writes %s", bn, s.Kind, strings.Join(diff, ", "))
			return
		}
	}
	if s.Kind != ConditionCheck && s.ID != b.FailedStep && !cancelled {
		if holds, err := s.Holds(before, vals); err == nil && !holds {
			f.add(s, b, field("before"), false, "name the step failedStep in the variant, or give a before sample the condition holds on",
				"the condition %q fails on sample %s, yet the variant charges the %s as a write that succeeds", q.Condition, bn, s.Kind)
		}
	}
	// A write that fails (the variant's failedStep, or an action of a
	// cancelled transaction) leaves the item as it found it: there is no
	// item left to hold to the entity's rules or to the step's after.
	if s.Kind == Delete || s.Kind == ConditionCheck || s.ID == b.FailedStep || cancelled {
		return
	}
	after, err := s.Apply(before, vals)
	var missing *MissingValueError
	var ee *expr.Error
	switch {
	case errors.As(err, &missing):
		if an == "" {
			f.add(s, b, ptr, true, fmt.Sprintf("give %s a sample, or name the after sample", missing.Name),
				"the item the %s leaves cannot be computed: %v", s.Kind, err)
		}
		return
	case errors.As(err, &ee):
		f.add(s, b, ptr+"/update", false, "a before sample is an item the update must apply to: fix the sample or the update",
			"DynamoDB rejects the update on sample %s: %s", bn, ee.Msg)
		return
	case err != nil:
		f.add(s, b, ptr, true, "", "the item the %s leaves cannot be computed: %v", s.Kind, err)
		return
	}
	// The item left must be an item of the entity: its values in their
	// domains, its required attributes there, its presence rules kept
	// (an attribute present only while a state holds is gone when the
	// write leaves the state), and, in a table with a discriminator, the
	// entity's type (an upsert writes it itself).
	var bad []string
	if d := q.Table.Discriminator; d != "" && s.Kind == Update {
		if v, ok := after.Get(d); !ok || v.Type != attr.S || v.Str != e.TypeValue {
			bad = append(bad, fmt.Sprintf("%s: missing: the table's discriminator must be %q", d, e.TypeValue))
		}
	}
	for _, err := range e.CheckItem(after) {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		field, what := "update", fmt.Sprintf("the update leaves of sample %s", bn)
		switch {
		case s.Kind == Put:
			field, what = "item", "the put writes"
		case before == nil:
			what = "the update creates where no item exists"
		}
		f.add(s, b, ptr+"/"+field, false, "a write must leave an item its entity allows: fix the request (or the rule it breaks)",
			"the %s item %s breaks its entity's rules: %s", e.Name, what, strings.Join(bad, "; "))
	}
	if an == "" {
		return
	}
	want, ok := e.Sample(an)
	if !ok || want == nil {
		return
	}
	if diff := itemDiff(want, after); len(diff) > 0 {
		what := fmt.Sprintf("what the %s leaves of sample %s", s.Kind, bn)
		switch {
		case s.Kind == Put:
			what = "the item the put writes"
		case before == nil:
			what = "the item the update creates where none exists"
		}
		f.add(s, b, field("after"), false, "fix the sample, or drop after: the catalog computes it",
			"sample %s is not %s: %s", an, what, strings.Join(diff, "; "))
	}
}
