package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// Seeded is the state Seed wrote for a run.
type Seeded struct {
	// Items is how many items were written; Requests how many requests
	// wrote them.
	Items, Requests int
	// Before holds, by write step id, the item the step finds (nil: none).
	Before map[string]attr.Item
	// Notes say where the state differs from what the model describes:
	// a scan of a whole table seeded with nothing, items that could not
	// all keep their sample's size.
	Notes []string
	// Partial is set when the model describes state Seed cannot write: a
	// scan of a whole table or index at the size the model declares. A
	// run's figure is then not the one the model's volume implies.
	Partial bool
}

// Seed writes the state a variant starts from, with ordinary batch
// writes: the item each get reads (its sample), the item each write finds
// (its before sample; none for absent), and for each query or scan the
// items of its matches, at their declared counts, on every shard of a
// fan-out. Samples are placed at the keys the run's parameters address:
// the attributes a key template takes from the parameters are set to
// their values, and computed attributes (a shard hash) are recomputed.
// The items of one match are made distinct by varying an attribute of the
// entity's key that the query leaves free, keeping every item the size of
// its sample (so the page sums match the static estimate) and its computed
// attributes coherent. Seeding stops after the step at which the variant's
// run ends (its failing step, or a get whose sample is absent).
func (x *Executor) Seed(ctx context.Context, in Input) (*Seeded, error) {
	p, params, err := x.prepare(in)
	if err != nil {
		return nil, err
	}
	s := &seeder{x: x, p: p, env: params, seen: map[string]bool{}, out: &Seeded{Before: map[string]attr.Item{}}, batches: map[string][]attr.Item{}, pools: map[string]*pool{}}
	wait := s.startLoader(ctx)
	err = s.plan(ctx)
	if err == nil {
		err = s.flush(ctx)
	}
	if lerr := wait(); lerr != nil {
		err = lerr // the loader's failure, not the stop it caused
	}
	if err != nil {
		return nil, fmt.Errorf("seed %s/%s: %w", p.Operation.Name, variantName(p.Variant), err)
	}
	return s.out, nil
}

// load is a batch of items for the loader.
type load struct {
	table string
	items []attr.Item
}

// errLoadFailed stops the seeding once the loader has failed.
var errLoadFailed = errors.New("the loader failed")

// startLoader starts the goroutine that writes the batches flush hands
// it, one after the other, while the next are built: building a large
// seed's items and writing them (to the engine, or over the wire to a
// server) overlap instead of taking turns. wait closes the queue, waits
// for the writes and returns the first failure.
func (s *seeder) startLoader(ctx context.Context) (wait func() error) {
	s.loads = make(chan load, 2)
	done := make(chan error, 1)
	go func() {
		var first error
		for l := range s.loads {
			if first != nil {
				continue
			}
			if err := s.x.loader.Load(ctx, l.table, l.items); err != nil {
				first = err
				s.failed.Store(true)
			}
		}
		done <- first
	}()
	return func() error {
		close(s.loads)
		return <-done
	}
}

type seeder struct {
	x       *Executor
	p       *Plan
	env     map[string]attr.Value
	seen    map[string]bool // table + key of every item written
	out     *Seeded
	batches map[string][]attr.Item
	pending int
	loads   chan load   // to the loader (startLoader)
	failed  atomic.Bool // the loader failed: stop building
	// first is the first item seeded for each query or scan step: what
	// its bound attributes are read from, as a run reads them from the
	// first item of the page.
	first map[string]attr.Item
	pools map[string]*pool // variations walked by the matches, by attribute and start
}

func (s *seeder) plan(ctx context.Context) error {
	b := s.p.Variant
	for _, sp := range s.p.Steps {
		steps := []*StepPlan{sp}
		if sp.Kind == catalog.Transaction {
			steps = sp.Actions
		}
		ends := false
		for _, a := range steps {
			end, err := s.step(ctx, a)
			if err != nil {
				return fmt.Errorf("step %s: %w", a.ID, err)
			}
			ends = ends || end || (b.FailedStep != "" && a.Step.ID == b.FailedStep)
		}
		if ends {
			return nil
		}
	}
	return nil
}

// step seeds what one step finds; end reports that the run ends there.
func (s *seeder) step(ctx context.Context, sp *StepPlan) (end bool, err error) {
	before, _, sample := s.p.Variant.SamplesFor(sp.Step)
	switch sp.Kind {
	case catalog.Get:
		it, ok := sp.Entity.Sample(sample)
		if !ok {
			return false, fmt.Errorf("entity %s has no sample %q", sp.Entity.Name, sample)
		}
		if it == nil {
			return true, nil
		}
		item, err := s.place(sp, it)
		if err != nil {
			return false, err
		}
		for _, b := range sp.Bind {
			if v, ok := item.Get(b); ok {
				s.env[b] = v
			}
		}
		return false, s.put(ctx, sp, item)
	case catalog.Query, catalog.Scan:
		if err := s.matches(ctx, sp); err != nil {
			return false, err
		}
		for _, b := range sp.Bind {
			if v, ok := s.first[sp.ID].Get(b); ok {
				s.env[b] = v
			}
		}
		return false, nil
	}
	var item attr.Item
	if before != "" && before != catalog.Absent {
		it, ok := sp.Entity.Sample(before)
		if !ok {
			return false, fmt.Errorf("entity %s has no sample %q", sp.Entity.Name, before)
		}
		if item, err = s.place(sp, it); err != nil {
			return false, err
		}
	}
	if b := s.p.Variant.FailedStep; b != "" && b == sp.Step.ID {
		if item, err = s.failing(sp); err != nil {
			return false, err
		}
	}
	s.out.Before[sp.ID] = item
	if item == nil {
		return false, nil
	}
	return false, s.put(ctx, sp, item)
}

// failing finds the item that makes the variant's failing step fail its
// condition, by the catalog's rule (Operation.Failing), with the samples
// placed at the step's key: the declared before item when it fails, else
// the first of the step's after sample and the entity's other samples
// that does. A duplicate finds what the first run left; a lost race finds
// the next version. The static estimate charges the same item.
func (s *seeder) failing(sp *StepPlan) (attr.Item, error) {
	return s.p.Operation.Failing(sp.Step, s.p.Variant, s.env, func(it attr.Item) (attr.Item, error) { return s.place(sp, it) })
}

// place puts a sample at the key a step addresses with the run's values.
func (s *seeder) place(sp *StepPlan, sample attr.Item) (attr.Item, error) {
	key, err := s.keyItem(sp)
	if err != nil {
		return nil, err
	}
	vals := s.templateValues(sp.Entity, sample)
	changed := map[string]bool{}
	item := sample
	for _, k := range sp.Entity.Key {
		v, ok := key.Get(k.Attribute)
		if !ok {
			continue
		}
		// The values the key was rendered from: the step's own when it
		// spells the key out, or the run's (params and bindings).
		if m, ok := k.Template.Match(v.Str); ok {
			for ph, text := range m {
				tv := typed(s.x.m, ph, text)
				if old, had := vals[ph]; !had || !attr.Equal(old, tv) {
					changed[ph] = true
				}
				vals[ph] = tv
			}
		}
		item = item.With(k.Attribute, v)
	}
	for ph := range changed {
		if p := sp.Entity.Has(ph); p == catalog.Required || p == catalog.Optional {
			item = item.With(ph, vals[ph])
		}
	}
	item = s.recompute(sp.Entity, item, changed)
	return item, nil
}

func (s *seeder) keyItem(sp *StepPlan) (attr.Item, error) {
	var it attr.Item
	for _, k := range sp.Key {
		v, err := k.Value.Resolve(s.env)
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", k.Attribute, err)
		}
		it = it.With(k.Attribute, v)
	}
	return it, nil
}

// templateValues are the values of an item's key placeholders: its
// attributes, and for placeholders it does not store, what its rendered
// keys hold.
func (s *seeder) templateValues(e *catalog.Entity, it attr.Item) map[string]attr.Value {
	vals := make(map[string]attr.Value, len(it)+4)
	for _, k := range e.Key {
		if v, ok := it.Get(k.Attribute); ok && v.Type == attr.S {
			if m, ok := k.Template.Match(v.Str); ok {
				for ph, text := range m {
					vals[ph] = typed(s.x.m, ph, text)
				}
			}
		}
	}
	for _, f := range it {
		vals[f.Name] = f.Value
	}
	return vals
}

// typed reads a placeholder's text as its attribute's type.
func typed(m *catalog.Model, name, text string) attr.Value {
	if a := m.Attribute(name); a != nil && a.Type == attr.N {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return attr.Num(strconv.FormatInt(n, 10))
		}
		return attr.Num(text)
	}
	return attr.Str(text)
}

// recompute recomputes the computed attributes an item stores whose
// inputs changed.
func (s *seeder) recompute(e *catalog.Entity, it attr.Item, changed map[string]bool, force ...map[string]bool) attr.Item {
	if len(changed) == 0 && len(force) == 0 {
		return it
	}
	for _, ea := range e.Attributes {
		a := s.x.m.Attribute(ea.Name)
		if a == nil || a.Computed == nil || a.Computed.Kind == catalog.KindHMAC || ea.Presence == catalog.KeyOnly {
			continue
		}
		if _, has := it.Get(a.Name); !has {
			continue
		}
		inputs := []string{a.Computed.Input}
		if a.Computed.Template != nil {
			inputs = a.Computed.Template.Placeholders()
		}
		touched := len(force) > 0 && force[0][a.Name]
		for _, in := range inputs {
			touched = touched || changed[in]
		}
		if !touched {
			continue
		}
		vals := map[string]attr.Value{}
		for _, f := range it {
			vals[f.Name] = f.Value
		}
		if v, err := a.Computed.Eval(vals, nil); err == nil {
			it = it.With(a.Name, v)
			changed[a.Name] = true
		}
	}
	return it
}

// put queues an item for writing, once per key.
func (s *seeder) put(ctx context.Context, sp *StepPlan, it attr.Item) error {
	return s.write(ctx, sp.ModelTable, sp.Table, it)
}

func (s *seeder) write(ctx context.Context, t *catalog.Table, name string, it attr.Item) error {
	var id strings.Builder
	id.WriteString(name)
	for _, k := range t.KeyAttributes() {
		v, ok := it.Get(k)
		if !ok {
			return fmt.Errorf("the item lacks the key attribute %s", k)
		}
		id.WriteByte(0)
		id.WriteString(v.Str)
	}
	return s.writeID(ctx, t, name, it, id.String())
}

// writeID is write for an item whose id (table and key) is known.
func (s *seeder) writeID(ctx context.Context, t *catalog.Table, name string, it attr.Item, id string) error {
	if s.seen[id] {
		return nil
	}
	s.seen[id] = true
	it = s.synthetic(t, it)
	s.batches[name] = append(s.batches[name], it)
	s.pending++
	s.out.Items++
	if s.pending >= 1000 {
		return s.flush(ctx)
	}
	return nil
}

// synthetic adds the synthetic index keys of an item.
func (s *seeder) synthetic(t *catalog.Table, it attr.Item) attr.Item {
	if s.x.opts.Keys != catalog.KeysSynthetic {
		return it
	}
	for _, x := range t.Indexes {
		if !x.KeyedSynthetic(s.x.opts.Keys) {
			continue
		}
		for _, sk := range syntheticKeys(x) {
			if v, err := sk.Template.RenderItem(it); err == nil {
				it = it.With(sk.Attribute, attr.Str(v))
			}
		}
	}
	return it
}

// flush hands the queued items to the loader.
func (s *seeder) flush(ctx context.Context) error {
	for name, items := range s.batches {
		if len(items) == 0 {
			continue
		}
		if s.failed.Load() {
			return errLoadFailed
		}
		s.out.Requests += (len(items) + 24) / 25
		select {
		case s.loads <- load{name, items}:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.batches[name] = nil // the loader holds these now
	}
	s.pending = 0
	return nil
}

// Loader writes the items Seed makes. target.Target is one (batches to
// the embedded engine without the wire, or through its SDK client);
// without one, Seed sends BatchWriteItem requests through the API.
type Loader interface {
	Load(ctx context.Context, table string, items []attr.Item) error
}

// apiLoader loads through the executor's API, 25 items a request.
type apiLoader struct{ api API }

func (l apiLoader) Load(ctx context.Context, table string, items []attr.Item) error {
	for len(items) > 0 {
		n := min(25, len(items))
		req := map[string][]types.WriteRequest{table: make([]types.WriteRequest, n)}
		for i, it := range items[:n] {
			req[table][i].PutRequest = &types.PutRequest{Item: attr.ToSDKItem(it)}
		}
		items = items[n:]
		delay := 10 * time.Millisecond
		for attempt := 0; len(req) > 0; attempt++ {
			out, err := l.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			if err != nil {
				return err
			}
			if req = out.UnprocessedItems; len(req) == 0 {
				break
			}
			if attempt >= 20 {
				return fmt.Errorf("the target left items unprocessed after %d attempts", attempt+1)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(delay):
			}
			delay = min(2*delay, time.Second)
		}
	}
	return nil
}

// matches seeds what a query or scan reads.
func (s *seeder) matches(ctx context.Context, sp *StepPlan) error {
	q := sp.Step.Request
	if len(q.Matches) == 0 {
		s.out.Notes = append(s.out.Notes, fmt.Sprintf("step %s reads the whole %s, which the model sizes; it is not seeded, so the run reads only what the other steps seed", sp.ID, structure(q)))
		s.out.Partial = true
		return nil
	}
	shards := []int{-1}
	if sp.ShardCount > 0 && q.Index != nil && q.Index.Shards != nil {
		shards = shards[:0]
		for i := range sp.ShardCount {
			shards = append(shards, i)
		}
	}
	for _, shard := range shards {
		conds, err := s.conditions(sp, q, shard)
		if err != nil {
			return err
		}
		for _, mt := range q.Matches {
			if err := s.match(ctx, sp, mt, conds); err != nil {
				return fmt.Errorf("matches %s.%s: %w", mt.Entity.Name, mt.Sample, err)
			}
		}
	}
	return nil
}

// cond is a key condition with its values resolved.
type cond struct {
	attr string
	op   string
	vals []attr.Value
}

func (c cond) holds(v attr.Value, ok bool) bool {
	if !ok {
		return false
	}
	cmp := func(w attr.Value) int { n, _ := attr.Compare(v, w); return n }
	switch c.op {
	case catalog.OpEq:
		return attr.Equal(v, c.vals[0])
	case catalog.OpBeginsWith:
		return v.Type == attr.S && strings.HasPrefix(v.Str, c.vals[0].Str)
	case catalog.OpBetween:
		return cmp(c.vals[0]) >= 0 && cmp(c.vals[1]) <= 0
	case catalog.OpLt:
		return cmp(c.vals[0]) < 0
	case catalog.OpLe:
		return cmp(c.vals[0]) <= 0
	case catalog.OpGt:
		return cmp(c.vals[0]) > 0
	case catalog.OpGe:
		return cmp(c.vals[0]) >= 0
	}
	return false
}

func (s *seeder) conditions(sp *StepPlan, q *catalog.Request, shard int) ([]cond, error) {
	var out []cond
	for _, kc := range q.KeyCondition {
		c := cond{attr: kc.Attribute, op: kc.Op}
		for _, o := range kc.Operands {
			v, err := o.Resolve(s.env)
			if err != nil {
				return nil, fmt.Errorf("key condition on %s: %w", kc.Attribute, err)
			}
			c.vals = append(c.vals, v)
		}
		if shard >= 0 && q.Index != nil && q.Index.Shards != nil && kc.Attribute == q.Index.Shards.Attribute {
			t := attr.N
			if a := s.x.m.Attribute(kc.Attribute); a != nil {
				t = a.Type
			}
			c.vals = []attr.Value{shardValue(t, shard)}
		}
		out = append(out, c)
	}
	return out, nil
}

// match seeds count distinct items of a match that satisfy conds.
func (s *seeder) match(ctx context.Context, sp *StepPlan, mt catalog.Match, conds []cond) error {
	if mt.Count <= 0 {
		return nil
	}
	e := mt.Entity
	sample, ok := e.Sample(mt.Sample)
	if !ok || sample == nil {
		return fmt.Errorf("no such sample")
	}
	vals, fixed := s.fixedValues(e, sample, conds)
	build := s.builder(e, sample, fixed)
	// Every item keeps the size of the first accepted (the sample with
	// what the query fixes), so the pages sum as the static estimate sums
	// them.
	size, strict := -1, true
	fixedNames := slices.Sorted(maps.Keys(fixed))
	// accepting checks an item's size, the conditions cs and the fixed
	// values fs, and that its key is new.
	accepting := func(cs []cond, fs []string) func(attr.Item) (string, bool) {
		return func(it attr.Item) (string, bool) {
			if strict && size >= 0 && s.x.opts.Rules.ItemSize(it) != size {
				return "", false
			}
			for _, c := range cs {
				v, ok := it.Get(c.attr)
				if !c.holds(v, ok) {
					return "", false
				}
			}
			for _, n := range fs {
				if v, ok := it.Get(n); ok && !attr.Equal(v, vals[n]) {
					return "", false
				}
			}
			id := s.id(sp, it)
			return id, !s.seen[id]
		}
	}
	accept := accepting(conds, fixedNames)
	free, guard := s.freeAttribute(e, fixed, vals)
	made := 0
	first, err := build(vals)
	if err != nil {
		return err
	}
	if id, ok := accept(first); ok {
		if err := s.writeID(ctx, sp.ModelTable, sp.Table, first, id); err != nil {
			return err
		}
		if s.first == nil {
			s.first = map[string]attr.Item{}
		}
		if _, ok := s.first[sp.ID]; !ok {
			s.first[sp.ID] = first
		}
		size = s.x.opts.Rules.ItemSize(first)
		made++
	}
	if made == mt.Count {
		return nil
	}
	if free == "" {
		return fmt.Errorf("%d items are asked for, but the query fixes every attribute of the key of %s", mt.Count, e.Name)
	}
	vary, changes := s.varier(e, first, free, build)
	acceptVaried := accept
	if changes != nil && holdsUnchanged(first, changes, conds, fixedNames, vals) {
		// What the varied items share with first holds for them as it
		// holds for first: only what varies is checked again.
		var cs []cond
		for _, c := range conds {
			if changes[c.attr] {
				cs = append(cs, c)
			}
		}
		var fs []string
		for _, n := range fixedNames {
			if changes[n] {
				fs = append(fs, n)
			}
		}
		acceptVaried = accepting(cs, fs)
	}
	base := vals[free]
	width := widthOf(e, free)
	limit := 200*mt.Count + 10000
	next := s.cursor(free, base, width, guard, limit)
	sized := 0
	for tries := 0; made < mt.Count; tries++ {
		v, ok := next()
		if !ok || tries > limit {
			if !strict {
				return fmt.Errorf("found only %d distinct items of %s matching the key condition by varying %s; %d are asked for", made, e.Name, free, mt.Count)
			}
			// Distinct keys of the sample's size ran out (a zero-padded
			// number of three digits has 189 values of 2 bytes): the
			// rest may differ in size, which the result says.
			strict, sized, tries = false, made, 0
			next = s.cursor(free, base, width, guard, limit)
			continue
		}
		vals[free] = v
		it, err := vary(vals)
		if err != nil {
			continue
		}
		id, ok := acceptVaried(it)
		if !ok {
			continue
		}
		if err := s.writeID(ctx, sp.ModelTable, sp.Table, it, id); err != nil {
			return err
		}
		if size < 0 {
			size = s.x.opts.Rules.ItemSize(it)
		}
		made++
	}
	if !strict {
		s.out.Notes = append(s.out.Notes, fmt.Sprintf("%s: only %d of the %d distinct items asked for keep the sample's size (%d B) by varying %s; the others differ", e.Name, sized, mt.Count, size, free))
	}
	return nil
}

// fixedValues returns the template values of a sample with what the
// conditions fix set, and which of them they fix. Equalities on the
// entity's own attributes (an index's natural keys) set them; conditions
// on a table key set the placeholders the rendered value determines.
func (s *seeder) fixedValues(e *catalog.Entity, sample attr.Item, conds []cond) (map[string]attr.Value, map[string]bool) {
	vals := s.templateValues(e, sample)
	fixed := map[string]bool{}
	for _, c := range conds {
		if k := keyPart(e, c.attr); k != nil {
			if c.op == catalog.OpEq {
				if m, ok := k.Template.Match(c.vals[0].Str); ok {
					for ph, text := range m {
						vals[ph], fixed[ph] = typed(s.x.m, ph, text), true
					}
				}
			} else if c.op == catalog.OpBeginsWith {
				for ph, text := range prefixValues(k.Template, c.vals[0].Str) {
					vals[ph], fixed[ph] = typed(s.x.m, ph, text), true
				}
			}
			continue
		}
		if c.op == catalog.OpEq {
			vals[c.attr], fixed[c.attr] = c.vals[0], true
		}
	}
	return vals, fixed
}

// builder returns how match builds an item from template values: the
// sample with the stored attributes that differ, its computed attributes
// recomputed and its key rendered.
func (s *seeder) builder(e *catalog.Entity, sample attr.Item, fixed map[string]bool) func(map[string]attr.Value) (attr.Item, error) {
	return func(vals map[string]attr.Value) (attr.Item, error) {
		it := sample
		changed := map[string]bool{}
		for name, v := range vals {
			if p := e.Has(name); (p == catalog.Required || p == catalog.Optional) && keyPart(e, name) == nil {
				if old, ok := sample.Get(name); !ok || !attr.Equal(old, v) {
					changed[name] = true
					it = it.With(name, v)
				}
			}
		}
		// Computed attributes follow their inputs; a fixed one is checked
		// against them (accept refuses an incoherent item).
		it = s.recompute(e, it, changed, fixed)
		tv := make(map[string]attr.Value, len(vals)+len(it))
		for n, v := range vals {
			tv[n] = v
		}
		for _, f := range it {
			tv[f.Name] = f.Value
		}
		for _, k := range e.Key {
			str, err := k.Template.Render(tv)
			if err != nil {
				return nil, err
			}
			it = it.With(k.Attribute, attr.Str(str))
		}
		return it, nil
	}
}

// holdsUnchanged reports whether first passes the conditions and the
// fixed values on the attributes a varier leaves as they are.
func holdsUnchanged(first attr.Item, changes map[string]bool, conds []cond, fixed []string, vals map[string]attr.Value) bool {
	for _, c := range conds {
		if !changes[c.attr] {
			if v, ok := first.Get(c.attr); !c.holds(v, ok) {
				return false
			}
		}
	}
	for _, n := range fixed {
		if !changes[n] {
			if v, ok := first.Get(n); ok && !attr.Equal(v, vals[n]) {
				return false
			}
		}
	}
	return true
}

// structure names what a read reads.
func structure(q *catalog.Request) string {
	if q.Index != nil {
		return "index " + q.Index.Name
	}
	return "table " + q.Table.Name
}

// varier returns a fast build of the items that differ from base only
// in attribute free and what follows from it: the computed attributes it
// feeds and the keys whose templates hold them. It gives the item build
// gives, without rebuilding it whole (a fan-out seeds tens of thousands).
// changes names the attributes in which its items can differ from base;
// nil when it is build itself, whose items can differ in any.
func (s *seeder) varier(e *catalog.Entity, base attr.Item, free string, build func(map[string]attr.Value) (attr.Item, error)) (vary func(map[string]attr.Value) (attr.Item, error), changes map[string]bool) {
	type computed struct {
		name string
		c    *catalog.Computed
	}
	var deps []computed
	touched := map[string]bool{free: true}
	for _, ea := range e.Attributes {
		a := s.x.m.Attribute(ea.Name)
		if a == nil || a.Computed == nil || ea.Presence == catalog.KeyOnly {
			continue
		}
		switch a.Computed.Kind {
		case catalog.KindHashMod:
			if a.Computed.Input == free {
				deps = append(deps, computed{a.Name, a.Computed})
				touched[a.Name] = true
			}
		case catalog.KindTemplate:
			for _, in := range a.Computed.Template.Placeholders() {
				if in == free {
					// Templates may chain; the general build handles it.
					return build, nil
				}
			}
		}
	}
	var keys []catalog.KeyPart
	for _, k := range e.Key {
		for _, p := range k.Template.Placeholders() {
			if touched[p] {
				keys = append(keys, k)
				break
			}
		}
	}
	index := func(name string) int {
		for i := range base {
			if base[i].Name == name {
				return i
			}
		}
		return -1
	}
	stored := e.Has(free) == catalog.Required || e.Has(free) == catalog.Optional
	at := map[string]int{}
	for n := range touched {
		at[n] = index(n)
	}
	for _, k := range keys {
		at[k.Attribute] = index(k.Attribute)
	}
	for n, i := range at {
		if i < 0 && (n != free || stored) {
			return build, nil // an attribute the base item lacks: rebuild whole
		}
	}
	// saved holds the values the keys' rendering overrides in the
	// caller's map, restored before returning (calls are sequential).
	type override struct {
		name string
		v    attr.Value
		had  bool
	}
	saved := make([]override, len(deps))
	changes = map[string]bool{}
	for n := range at {
		changes[n] = true
	}
	// The items are carved from slabs of fields, a few hundred items at a
	// time, instead of one allocation each; each has its own capacity, so
	// that a With of one copies it rather than writing into the next.
	var slab []attr.Field
	return func(vals map[string]attr.Value) (attr.Item, error) {
		if len(slab) < len(base) {
			slab = make([]attr.Field, 256*len(base))
		}
		it := attr.Item(slab[:len(base):len(base)])
		slab = slab[len(base):]
		copy(it, base)
		if stored {
			it[at[free]].Value = vals[free]
		}
		for _, d := range deps {
			if _, has := vals[d.name]; !has && at[d.name] < 0 {
				continue
			}
			v, err := d.c.Eval(vals, nil)
			if err != nil {
				return nil, err
			}
			if i := at[d.name]; i >= 0 {
				it[i].Value = v
			}
		}
		if len(deps) > 0 {
			// Keys render from the item's values: the computed ones too.
			for j, d := range deps {
				old, had := vals[d.name]
				saved[j] = override{d.name, old, had}
				vals[d.name] = it[at[d.name]].Value
			}
			defer func() {
				for _, o := range saved {
					if o.had {
						vals[o.name] = o.v
					} else {
						delete(vals, o.name)
					}
				}
			}()
		}
		for _, k := range keys {
			str, err := k.Template.Render(vals)
			if err != nil {
				return nil, err
			}
			it[at[k.Attribute]].Value = attr.Str(str)
		}
		return it, nil
	}, changes
}

func (s *seeder) id(sp *StepPlan, it attr.Item) string {
	var id strings.Builder
	id.WriteString(sp.Table)
	for _, k := range sp.ModelTable.KeyAttributes() {
		v, _ := it.Get(k)
		id.WriteByte(0)
		id.WriteString(v.Str)
	}
	return id.String()
}

func keyPart(e *catalog.Entity, a string) *catalog.KeyPart {
	for i := range e.Key {
		if e.Key[i].Attribute == a {
			return &e.Key[i]
		}
	}
	return nil
}

// prefixValues are the placeholders a begins_with prefix determines
// entirely: those followed, within the prefix, by the literal after them.
func prefixValues(t *catalog.KeyTemplate, prefix string) map[string]string {
	out := map[string]string{}
	rest := prefix
	for i, p := range t.Parts {
		if p.Attr == "" {
			if !strings.HasPrefix(rest, p.Literal) {
				return out
			}
			rest = rest[len(p.Literal):]
			continue
		}
		if i+1 >= len(t.Parts) || t.Parts[i+1].Attr != "" {
			return out
		}
		j := strings.Index(rest, t.Parts[i+1].Literal)
		if j < 0 {
			return out
		}
		out[p.Attr] = rest[:j]
		rest = rest[j:]
	}
	return out
}

// freeAttribute picks the key placeholder to vary: one a fixed computed
// attribute is computed from (so that varying it keeps the item
// coherent: a shard hash), else the last one of the sort key's template
// the query leaves free, else of the partition key's. The guard, when
// set, is the fixed computed attribute a value must keep.
func (s *seeder) freeAttribute(e *catalog.Entity, fixed map[string]bool, vals map[string]attr.Value) (string, *guard) {
	placeholders := map[string]bool{}
	for _, k := range e.Key {
		for _, p := range k.Template.Placeholders() {
			placeholders[p] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(fixed)) {
		a := s.x.m.Attribute(n)
		if a == nil || a.Computed == nil || a.Computed.Kind != catalog.KindHashMod || e.Has(n) == "" {
			continue
		}
		in := a.Computed.Input
		if placeholders[in] && !fixed[in] {
			return in, &guard{attr: n, c: a.Computed, want: vals[n]}
		}
	}
	for i := len(e.Key) - 1; i >= 0; i-- {
		parts := e.Key[i].Template.Parts
		for j := len(parts) - 1; j >= 0; j-- {
			if a := parts[j].Attr; a != "" && !fixed[a] {
				return a, nil
			}
		}
	}
	return "", nil
}

// guard is a computed attribute (a shard hash) that the varied values of
// its input must keep at want.
type guard struct {
	attr string
	c    *catalog.Computed
	want attr.Value
}

// pool is the sequence of variations of one attribute from one value,
// made once and shared by every match that walks it: a fan-out's shards
// each walk the same values and keep those whose hash falls on their
// shard, so each value, and the hash a guard computes of it, is made once
// per run instead of once per shard; and each shard walks only the
// values of its own hash (an index by the guard's value), not all of
// them.
type pool struct {
	next func() (attr.Value, bool)
	g    *guard // the computed attribute evaluated for each value, or nil
	vals []attr.Value
	done bool
	// by holds, for each value of g's attribute (as its type and text),
	// the positions of the values that give it, in order.
	by     map[guardKey][]int
	byVals []attr.Value // the distinct values of g's attribute seen
}

type guardKey struct {
	t attr.Type
	s string
}

// grow makes the next value of the sequence (false past its end).
func (p *pool) grow() bool {
	if p.done {
		return false
	}
	v, ok := p.next()
	if !ok {
		p.done = true
		return false
	}
	p.vals = append(p.vals, v)
	if p.g != nil {
		k, err := p.g.c.Eval(map[string]attr.Value{p.g.c.Input: v}, nil)
		if err == nil && k.Type != attr.Invalid {
			gk := guardKey{k.Type, k.Str}
			if _, seen := p.by[gk]; !seen {
				p.byVals = append(p.byVals, k)
			}
			p.by[gk] = append(p.by[gk], len(p.vals)-1)
		}
	}
	return true
}

// at returns the i-th value of the sequence (false past its end).
func (p *pool) at(i int) (attr.Value, bool) {
	for len(p.vals) <= i && p.grow() {
	}
	if i < len(p.vals) {
		return p.vals[i], true
	}
	return attr.Value{}, false
}

// matching returns the key of the values that keep g's attribute at
// want, once the sequence holds one (a guard's values are computed: one
// spelling each).
func (p *pool) matching(want attr.Value) (guardKey, bool) {
	for _, v := range p.byVals {
		if attr.Equal(v, want) {
			return guardKey{v.Type, v.Str}, true
		}
	}
	return guardKey{}, false
}

func poolKey(free string, base attr.Value, width int, g *guard) string {
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%d", free, base.Type, base.Str, width)
	if g != nil {
		key += "\x00" + g.attr
	}
	return key
}

// cursor walks a pool from its start, as the generator it stands for
// would be walked: with a guard, only the values that keep it, up to
// position limit in the whole sequence.
func (s *seeder) cursor(free string, base attr.Value, width int, g *guard, limit int) func() (attr.Value, bool) {
	key := poolKey(free, base, width, g)
	p := s.pools[key]
	if p == nil {
		p = &pool{next: variations(s.x.m, free, base, width), g: g, by: map[guardKey][]int{}}
		s.pools[key] = p
	}
	if g == nil {
		i := -1
		return func() (attr.Value, bool) {
			i++
			return p.at(i)
		}
	}
	j := -1 // position among the values that keep the guard
	var gk guardKey
	known := false
	return func() (attr.Value, bool) {
		j++
		for {
			if !known {
				gk, known = p.matching(g.want)
			}
			if known && j < len(p.by[gk]) && p.by[gk][j] <= limit {
				return p.vals[p.by[gk][j]], true
			}
			if len(p.vals) > limit || !p.grow() {
				return attr.Value{}, false
			}
		}
	}
}

func widthOf(e *catalog.Entity, a string) int {
	for _, k := range e.Key {
		for _, p := range k.Template.Parts {
			if p.Attr == a && p.Width > 0 {
				return p.Width
			}
		}
	}
	return 0
}

// variations returns a generator of values of attribute a after v, in a
// form that keeps the value's size: the next integers (within a template's
// zero-padded width), the next days of a civil date, the next seconds of
// an instant in its own layout, or the next strings of the same length
// and character classes.
func variations(m *catalog.Model, a string, v attr.Value, width int) func() (attr.Value, bool) {
	unit := ""
	if at := m.Attribute(a); at != nil {
		unit = at.Unit
	}
	switch {
	case v.Type == attr.N:
		n, err := strconv.ParseInt(v.Str, 10, 64)
		if err != nil {
			return func() (attr.Value, bool) { return attr.Value{}, false }
		}
		limit := int64(1<<62 - 1)
		if width > 0 && width < 18 {
			limit = 1
			for range width {
				limit *= 10
			}
			limit--
		}
		return func() (attr.Value, bool) {
			n++
			if n > limit {
				return attr.Value{}, false
			}
			return attr.Num(strconv.FormatInt(n, 10)), true
		}
	case v.Type == attr.S && unit == catalog.UnitCivilDate:
		if d, err := time.Parse("2006-01-02", v.Str); err == nil {
			return func() (attr.Value, bool) {
				d = d.AddDate(0, 0, 1)
				return attr.Str(d.Format("2006-01-02")), true
			}
		}
	case v.Type == attr.S && unit == catalog.UnitInstant:
		if layout, t, ok := instantLayout(v.Str); ok {
			return func() (attr.Value, bool) {
				t = t.Add(time.Second)
				return attr.Str(t.Format(layout)), true
			}
		}
	}
	if v.Type != attr.S {
		return func() (attr.Value, bool) { return attr.Value{}, false }
	}
	b := []byte(v.Str)
	return func() (attr.Value, bool) {
		// An odometer over the alphanumeric characters, from the right,
		// each within its class.
		for i := len(b) - 1; i >= 0; i-- {
			c := b[i]
			switch {
			case c >= '0' && c < '9', c >= 'a' && c < 'z', c >= 'A' && c < 'Z':
				b[i]++
				return attr.Str(string(b)), true
			case c == '9':
				b[i] = '0'
			case c == 'z':
				b[i] = 'a'
			case c == 'Z':
				b[i] = 'A'
			}
		}
		return attr.Value{}, false
	}
}

// instantLayout finds the layout of an RFC 3339 instant (its fraction
// digits and its offset form), so that variations keep its length.
func instantLayout(s string) (string, time.Time, bool) {
	for _, l := range []string{"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05.0Z07:00", "2006-01-02T15:04:05.00Z07:00",
		"2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05.000000Z07:00", "2006-01-02T15:04:05.000000000Z07:00"} {
		if t, err := time.Parse(l, s); err == nil && t.Format(l) == s {
			return l, t, true
		}
	}
	return "", time.Time{}, false
}
