package estimate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
)

// Estimator computes the static figures of one model under one set of
// billing rules. It holds no state beyond the model's table descriptions
// and may be shared.
type Estimator struct {
	Rules  capacity.Rules
	Model  *catalog.Model
	tables map[*catalog.Table]*capacity.Table
	// GB is what a gigabyte is in table sizes and storage bills (the
	// model's pricing.gb, decimal by default).
	GB capacity.GBUnit
}

// New prepares an estimator for m.
func New(m *catalog.Model, r capacity.Rules) *Estimator {
	e := &Estimator{Rules: r, Model: m, tables: map[*catalog.Table]*capacity.Table{}}
	for _, t := range m.Tables {
		e.tables[t] = Table(t)
	}
	if m.Pricing.GB == "binary" {
		e.GB = capacity.BinaryGB
	}
	return e
}

// Line is one reason behind a charge, on the table or on an index.
type Line struct {
	Target string  `json:"target"` // "table" or an index name
	Units  float64 `json:"units"`
	Text   string  `json:"text"`
	// Rule is the billing rule (or RulePages, RuleShards) behind the
	// line; Bytes the size it rounded, when one is involved.
	Rule  capacity.Rule `json:"rule,omitempty"`
	Bytes int           `json:"bytes,omitempty"`
}

// Multipliers an estimate applies to a query's page, beside capacity's
// billing rules.
const (
	RulePages  capacity.Rule = "pages"  // the variant reads the page several times (Budget.Pages)
	RuleShards capacity.Rule = "shards" // a fan-out reads the page on every shard
)

// String returns "target: text".
func (l Line) String() string { return l.Target + ": " + l.Text }

// Target is what one table or index consumed.
type Target struct {
	Table string  `json:"table"`
	Index string  `json:"index,omitempty"` // "" for the table itself
	WRU   float64 `json:"wru"`
	RRU   float64 `json:"rru"`
}

// Step is the static charge of one step or transaction action.
type Step struct {
	ID      string   `json:"id"` // "apply/settlement" for a transaction action
	Kind    string   `json:"kind"`
	Table   string   `json:"table"`
	Entity  string   `json:"entity,omitempty"`
	Pattern string   `json:"pattern,omitempty"` // access pattern the step answers
	Failed  bool     `json:"failed,omitempty"`  // its condition fails in this variant
	WRU     float64  `json:"wru"`
	RRU     float64  `json:"rru"`
	Targets []Target `json:"targets"`
	Reasons []Line   `json:"reasons"`
	// Consumed is the charge in ConsumedCapacity shape.
	Consumed capacity.Consumed `json:"-"`
}

// Variant is an operation's static figure in one budget variant.
type Variant struct {
	Operation string   `json:"operation"`
	Name      string   `json:"variant"` // "" when the operation declares no budget
	Steps     []Step   `json:"steps"`
	WRU       float64  `json:"wru"`
	RRU       float64  `json:"rru"`
	Targets   []Target `json:"targets"`
	// BudgetWRU and BudgetRRU are the variant's declared budget; the
	// budget package judges the figure against them.
	BudgetWRU *float64 `json:"budgetWRU,omitempty"`
	BudgetRRU *float64 `json:"budgetRRU,omitempty"`
}

// Operations estimates every operation of the model in every variant,
// in the model's order.
func (e *Estimator) Operations() ([]Variant, error) {
	var out []Variant
	for _, op := range e.Model.Operations {
		vs, err := e.Operation(op)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// Operation estimates one operation in each of its budget variants, or in
// one unnamed variant when it declares none.
func (e *Estimator) Operation(op *catalog.Operation) ([]Variant, error) {
	if len(op.Budgets) == 0 {
		v, err := e.Variant(op, &catalog.Budget{})
		if err != nil {
			return nil, err
		}
		return []Variant{v}, nil
	}
	out := make([]Variant, 0, len(op.Budgets))
	for _, b := range op.Budgets {
		v, err := e.Variant(op, b)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Variant estimates op in budget variant b.
func (e *Estimator) Variant(op *catalog.Operation, b *catalog.Budget) (Variant, error) {
	v := Variant{Operation: op.Name, Name: b.Name, BudgetWRU: b.WRU, BudgetRRU: b.RRU}
	for _, s := range op.Steps {
		if !s.In(b.Name) {
			continue
		}
		ended := false
		var steps []Step
		var err error
		switch s.Kind {
		case catalog.Transaction:
			steps, ended, err = e.transaction(op, s, b)
		default:
			var st Step
			st, err = e.step(op, s, b, false, false)
			steps = []Step{st}
			ended = st.Failed
		}
		if err != nil {
			return v, fmt.Errorf("%s/%s: step %s: %w", op.Name, b.Name, s.ID, err)
		}
		for i := range steps {
			if s.Pattern != nil {
				steps[i].Pattern = s.Pattern.ID
			}
		}
		v.Steps = append(v.Steps, steps...)
		if ended {
			break
		}
	}
	var all capacity.PerTable
	for _, st := range v.Steps {
		v.WRU += st.WRU
		v.RRU += st.RRU
		all = all.Add(st.Consumed)
	}
	v.Targets = targets(all)
	return v, nil
}

// targets lists the table and index totals, tables in order of first use
// and indexes by name.
func targets(p capacity.PerTable) []Target {
	var out []Target
	for _, c := range p {
		// A read served by an index alone leaves the table out, as
		// ConsumedCapacity does.
		if c.Table != (capacity.Capacity{}) || len(c.GSIs)+len(c.LSIs) == 0 {
			out = append(out, Target{Table: c.TableName, WRU: c.Table.Write, RRU: c.Table.Read})
		}
		for _, m := range []map[string]capacity.Capacity{c.GSIs, c.LSIs} {
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				out = append(out, Target{Table: c.TableName, Index: k, WRU: m[k].Write, RRU: m[k].Read})
			}
		}
	}
	return out
}

var writeKinds = map[catalog.StepKind]capacity.WriteKind{
	catalog.Put: capacity.Put, catalog.Update: capacity.Update,
	catalog.Delete: capacity.Delete, catalog.ConditionCheck: capacity.ConditionCheck,
}

// sample returns an entity's named sample (nil for absent).
func sample(en *catalog.Entity, name string) (attr.Item, error) {
	if en == nil {
		return nil, fmt.Errorf("no entity to take sample %q from", name)
	}
	if name == "" {
		return nil, fmt.Errorf("entity %s: no sample named for the estimate", en.Name)
	}
	it, ok := en.Sample(name)
	if !ok {
		return nil, fmt.Errorf("entity %s has no sample %q", en.Name, name)
	}
	return it, nil
}

// transaction charges the actions of a transaction that run in b. When
// one of them is b's failing step the transaction is cancelled and charged
// as the package documentation says.
func (e *Estimator) transaction(op *catalog.Operation, s *catalog.Step, b *catalog.Budget) ([]Step, bool, error) {
	cancelled := false
	for _, it := range s.Items {
		cancelled = cancelled || (b.FailedStep != "" && it.ID == b.FailedStep)
	}
	var out []Step
	for _, it := range s.Items {
		if !it.In(b.Name) {
			continue
		}
		st, err := e.step(op, it, b, true, cancelled)
		if err != nil {
			return nil, false, fmt.Errorf("action %s: %w", it.ID, err)
		}
		st.ID = s.ID + "/" + it.ID
		out = append(out, st)
	}
	return out, cancelled, nil
}

// step charges one step or action. txn marks a transaction action;
// cancelled a transaction whose condition fails.
func (e *Estimator) step(op *catalog.Operation, s *catalog.Step, b *catalog.Budget, txn, cancelled bool) (Step, error) {
	q := s.Request
	if q == nil || q.Table == nil {
		return Step{}, fmt.Errorf("step has no request")
	}
	t := e.tables[q.Table]
	st := Step{ID: s.ID, Kind: string(s.Kind), Table: q.Table.Name}
	label := "item"
	if q.Entity != nil {
		st.Entity, label = q.Entity.Name, q.Entity.Name
	}
	var c capacity.Consumed
	var why []capacity.Reason
	switch s.Kind {
	case catalog.Get:
		_, _, name := b.SamplesFor(s)
		it, err := sample(q.Entity, name)
		if err != nil {
			return st, err
		}
		cons := capacity.Eventual
		if q.ConsistentRead {
			cons = capacity.Strong
		}
		c, why, err = e.Rules.ExplainRead(t, capacity.ReadOp{Kind: capacity.GetItem, Consistency: cons, Bytes: e.Rules.ItemSize(it), Label: label})
		if err != nil {
			return st, err
		}
	case catalog.Query:
		var err error
		c, why, err = e.query(t, q, b)
		if err != nil {
			return st, err
		}
	case catalog.Scan:
		var err error
		if len(q.Matches) > 0 {
			c, why, err = e.query(t, q, b)
		} else {
			c, why, err = e.scanAll(t, q)
		}
		if err != nil {
			return st, err
		}
	default:
		kind, ok := writeKinds[s.Kind]
		if !ok {
			return st, fmt.Errorf("cannot estimate a %s step", s.Kind)
		}
		// The item the write leaves is computed by the catalog from the
		// request and the item it finds, never taken from a sample.
		before, after, err := op.Images(s, b)
		if err != nil {
			return st, err
		}
		wop := capacity.WriteOp{Kind: kind, Before: before, After: after, Txn: txn, Label: label}
		st.Failed = s.ID == b.FailedStep
		switch {
		case cancelled:
			// Every action of a cancelled transaction is charged by
			// capacity's one rule; only the failing one is said to fail.
			c, why = e.Rules.ExplainCancelled(t, wop, st.Failed)
			for i := range why {
				why[i].Rule = capacity.RuleCancelled
			}
		default:
			wop.Failed = st.Failed
			c, why = e.Rules.ExplainWrite(t, wop)
		}
	}
	st.Consumed = c
	tot := c.Total()
	st.WRU, st.RRU = tot.Write, tot.Read
	st.Targets = targets(capacity.PerTable{}.Add(c))
	for _, r := range why {
		st.Reasons = append(st.Reasons, Line{r.Target, r.Units, r.Text, r.Rule, r.Bytes})
	}
	return st, nil
}

// query charges the pages of a query: its matches are one page of one
// shard (split further when they pass the page size or 1 MB). A fan-out
// reads that page on every shard, with the shard attribute set to each
// shard's value (0 to count-1, as the queries are sent), since a value's
// size is part of every entry's (the number 0 is a byte smaller than 10).
func (e *Estimator) query(t *capacity.Table, q *catalog.Request, b *catalog.Budget) (capacity.Consumed, []capacity.Reason, error) {
	var ix *capacity.Index
	if q.Index != nil {
		ix, _, _ = t.Index(q.Index.Name)
	}
	c, why, err := e.page(t, ix, q, nil)
	if err != nil {
		return c, nil, err
	}
	n := 1
	if b.Pages > 1 {
		n = b.Pages
		why = append(why, capacity.Reason{Target: target(ix), Rule: RulePages, Text: "x " + digits.Count(n, "page") + " read in this variant"})
	}
	if k, text := FanOutQueries(q); k > 1 && (q.Index == nil || q.Index.Shards == nil) {
		// One partition read by every worker: the same page each time.
		n *= k
		why = append(why, capacity.Reason{Target: target(ix), Rule: RuleShards, Text: text})
	} else if k > 1 {
		sh := q.Index.Shards
		var all capacity.Consumed
		byUnits := map[float64][]int{}
		var order []float64
		for v := range sh.Count {
			val := attr.Num(strconv.Itoa(v))
			if a := e.Model.Attribute(sh.Attribute); a != nil && a.Type == attr.S {
				val = attr.Str(strconv.Itoa(v))
			}
			sc, _, err := e.page(t, ix, q, &shardValue{sh.Attribute, val})
			if err != nil {
				return c, nil, err
			}
			all.Add(sc)
			u := sc.Total().Read
			if _, ok := byUnits[u]; !ok {
				order = append(order, u)
			}
			byUnits[u] = append(byUnits[u], v)
		}
		if len(order) > 1 {
			var parts []string
			for _, u := range order {
				parts = append(parts, fmt.Sprintf("%s of %s RRU (%s %s)", digits.Count(len(byUnits[u]), "page"), Num(u), sh.Attribute, shardList(byUnits[u])))
			}
			text = fmt.Sprintf("x %d shards, one page each, sized with each shard's value of %s: %s", sh.Count, sh.Attribute, strings.Join(parts, ", "))
		}
		c = all
		why = append(why, capacity.Reason{Target: target(ix), Rule: RuleShards, Text: text})
	}
	if n > 1 {
		c = scaled(c, float64(n))
	}
	if len(why) > 0 && (n > 1 || why[len(why)-1].Rule == RuleShards) {
		why[len(why)-1].Units = c.Total().Read
		why[len(why)-1].Text += fmt.Sprintf(" = %s RRU", Num(c.Total().Read))
	}
	return c, why, nil
}

// shardValue is the value a fan-out's query gives the shard attribute.
type shardValue struct {
	attr  string
	value attr.Value
}

// page charges the matches of one query, split into pages by the page
// size and the 1 MB limit; with a shard value, every matched item that
// carries the shard attribute takes that value.
func (e *Estimator) page(t *capacity.Table, ix *capacity.Index, q *catalog.Request, shard *shardValue) (capacity.Consumed, []capacity.Reason, error) {
	type run struct {
		size, count int
	}
	var runs []run
	label := ""
	for _, mt := range q.Matches {
		it, err := sample(mt.Entity, mt.Sample)
		if err != nil {
			return capacity.Consumed{}, nil, err
		}
		if it == nil {
			continue
		}
		if shard != nil {
			if _, ok := it.Get(shard.attr); ok {
				it = it.With(shard.attr, shard.value)
			}
		}
		size := e.Rules.ItemSize(it)
		if ix != nil {
			var ok bool
			if size, ok = e.Rules.EntrySize(t, ix, it); !ok {
				return capacity.Consumed{}, nil, fmt.Errorf("sample %s.%s is not in index %s", mt.Entity.Name, mt.Sample, ix.Name)
			}
		}
		runs = append(runs, run{size, mt.Count})
		switch label {
		case "", mt.Entity.Name:
			label = mt.Entity.Name
		default:
			label = "item"
		}
	}
	if ix != nil {
		label += " entrie" // capacity adds the plural s
	}
	var pages []capacity.ReadOp
	p := capacity.Pager{Limit: q.PageSize}
	cur := capacity.ReadOp{Kind: capacity.Page, Consistency: consistency(q), Label: label}
	if ix != nil {
		cur.Index = ix.Name
	}
	for _, r := range runs {
		for range r.count {
			cur.Bytes += r.size
			cur.Count++
			if p.Add(r.size) {
				pages = append(pages, cur)
				cur.Bytes, cur.Count = 0, 0
			}
		}
	}
	if cur.Count > 0 || len(pages) == 0 {
		pages = append(pages, cur)
	}
	var c capacity.Consumed
	var why []capacity.Reason
	for i, pg := range pages {
		pc, pwhy, err := e.Rules.ExplainRead(t, pg)
		if err != nil {
			return c, nil, err
		}
		if len(pages) > 1 {
			for j := range pwhy {
				pwhy[j].Text = fmt.Sprintf("page %d of %d: %s", i+1, len(pages), pwhy[j].Text)
			}
		}
		c.Add(pc)
		why = append(why, pwhy...)
	}
	return c, why, nil
}

// shardList writes shard values briefly: "= 0", "1 to 15", "in 0, 3, 7".
func shardList(vs []int) string {
	if len(vs) == 1 {
		return "= " + strconv.Itoa(vs[0])
	}
	if len(vs) > 2 && vs[len(vs)-1]-vs[0] == len(vs)-1 {
		return fmt.Sprintf("%d to %d", vs[0], vs[len(vs)-1])
	}
	var parts []string
	for _, v := range vs {
		parts = append(parts, strconv.Itoa(v))
	}
	return "in " + strings.Join(parts, ", ")
}

// FanOutQueries returns how many queries a step's fan-out makes, with the
// reason in words: one per shard of a sharded index; on an index that
// declares no shards, one per worker, every one of them reading the same
// partition (such a fan-out is charged for every query it makes, not as
// one); 1 without a fan-out over all shards.
func FanOutQueries(q *catalog.Request) (int, string) {
	if q == nil || q.Shards == nil || q.Shards.FanOut != "all" {
		return 1, ""
	}
	if q.Index != nil && q.Index.Shards != nil {
		n := q.Index.Shards.Count
		return n, fmt.Sprintf("x %d shards: the same page read on every shard", n)
	}
	if w := q.Shards.Workers; w > 1 {
		return w, fmt.Sprintf("x %d workers: the index declares no shards, so each of the %d queries reads the same partition", w, w)
	}
	return 1, ""
}

func target(ix *capacity.Index) string {
	if ix == nil {
		return "table"
	}
	return ix.Name
}

func consistency(q *catalog.Request) capacity.Consistency {
	if q.ConsistentRead {
		return capacity.Strong
	}
	return capacity.Eventual
}

// scaled multiplies every charge of c by n.
func scaled(c capacity.Consumed, n float64) capacity.Consumed {
	mul := func(x capacity.Capacity) capacity.Capacity {
		return capacity.Capacity{Read: x.Read * n, Write: x.Write * n}
	}
	out := capacity.Consumed{TableName: c.TableName, Txn: c.Txn, Table: mul(c.Table)}
	for _, m := range []struct {
		src map[string]capacity.Capacity
		dst *map[string]capacity.Capacity
	}{{c.GSIs, &out.GSIs}, {c.LSIs, &out.LSIs}} {
		if len(m.src) == 0 {
			continue
		}
		*m.dst = map[string]capacity.Capacity{}
		for k, v := range m.src {
			(*m.dst)[k] = mul(v)
		}
	}
	return out
}

// Num formats a unit count or size the short way, with thousands
// separators: 2, 0.5, 12,453,125.
func Num(f float64) string {
	if f == 0 {
		f = 0 // a negative zero (a rounded -1e-13) is printed 0, not -0
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if f >= 1e6 || f <= -1e6 {
		s = strconv.FormatFloat(f, 'f', 0, 64)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = digits.Group(intPart)
	if frac != "" {
		if len(frac) > 2 {
			frac = frac[:2]
		}
		return intPart + "." + frac
	}
	return intPart
}
