package executor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/expr"
)

// Plan is an operation compiled for one budget variant: the steps that run
// in it, each with the static parts of its request resolved once.
type Plan struct {
	Operation *catalog.Operation
	// Variant is the budget variant; a zero Budget (Name "") when the
	// operation declares none.
	Variant *catalog.Budget
	Steps   []*StepPlan
	// binds is how many attributes the steps bind: what a run's values
	// hold beyond its parameters.
	binds int
}

// StepPlan is one step (or transaction action) of a plan. Its exported
// fields are the request as DynamoDB receives it, less the values, which
// each run fills in from Values, Key and Item.
type StepPlan struct {
	Step *catalog.Step
	ID   string // the step id; "step/action" for a transaction action
	Kind catalog.StepKind

	ModelTable *catalog.Table
	Table      string // the table's name on the target
	Index      *catalog.Index
	Entity     *catalog.Entity

	// Key lists the table key attributes and their operands (get,
	// update, delete, condition check, and a put's key).
	Key []catalog.Assign
	// Item lists everything a put writes (catalog.Request.ItemAssigns):
	// the key, the discriminator and the attributes.
	Item []catalog.Assign

	KeyCondition string // a query's KeyConditionExpression
	// KeyValues are the operands of the key condition's value
	// placeholders, in order; ShardValue is the index of the one a
	// fan-out replaces with each shard (-1 when none).
	KeyValues  []KeyValue
	ShardValue int
	ShardCount int
	// ShardAttr is the natural shard attribute a synthetic partition key
	// is rendered with.
	ShardAttr string
	// Pages is how many pages one run of a query or scan reads on each
	// shard: the pages its matches fill (capacity.Pager, at the page size
	// or 1 MB), as the static estimate counts them; 0 reads the whole
	// answer (a scan without matches).
	Pages int

	Update, Condition, Filter, Projection string
	Names                                 map[string]string
	Values                                []catalog.NamedValue
	ConsistentRead                        bool
	Limit                                 int32
	Descending                            bool
	ReturnValues                          string
	ReturnValuesOnConditionCheckFailure   string

	// Actions are a transaction's actions in request order.
	Actions []*StepPlan

	// OnMissing and OnConditionFailed are the model's declared failures,
	// with their kinds.
	OnMissing         *catalog.Failure
	OnConditionFailed *catalog.Failure
	ConditionKind     catalog.FailureKind

	// Bind lists the attributes of the item read that later steps use.
	Bind []string

	// SyntheticWrites are the synthetic index keys a write maintains on a
	// target keyed on the fallback (see synthetic.go).
	SyntheticWrites []SyntheticWrite
}

// KeyValue is one value placeholder of a key condition.
type KeyValue struct {
	Placeholder string
	// Attribute is the key attribute compared: a natural one, or the
	// synthetic key attribute of an index keyed on its fallback.
	Attribute string
	// Operand gives a natural value.
	Operand catalog.Operand
	// A synthetic value is Prefix rendered from the natural values of
	// Natural (equalities), then Suffix's value, formatted as Part (its
	// part of the template) unless Raw (a begins_with prefix, appended as
	// it is), then U+10FFFF when Max (the upper bound of a range that the
	// template continues).
	Prefix    *catalog.KeyTemplate
	Natural   []catalog.KeyCondition
	Suffix    *catalog.Operand
	Part      *catalog.Part
	Raw, Max  bool
	synthetic bool
}

// IsSynthetic reports whether the value is rendered on a synthetic key.
func (kv *KeyValue) IsSynthetic() bool { return kv.synthetic }

// Compile builds the plan of op in variant (the name of one of its
// budgets; "" when it declares none). Table names come from names (model
// table -> name on the target; nil keeps the model's names) and
// multi-attribute index keys follow keys (native or synthetic).
func Compile(m *catalog.Model, op *catalog.Operation, variant string, names map[string]string, keys catalog.KeyMode) (*Plan, error) {
	return compile(m, op, variant, names, keys, capacity.Default())
}

func compile(m *catalog.Model, op *catalog.Operation, variant string, names map[string]string, keys catalog.KeyMode, rules capacity.Rules) (*Plan, error) {
	b := &catalog.Budget{}
	if variant != "" || len(op.Budgets) > 0 {
		b = op.Budget(variant)
		if b == nil {
			var vs []string
			for _, x := range op.Budgets {
				vs = append(vs, x.Name)
			}
			return nil, fmt.Errorf("operation %s has no variant %q (it has %s)", op.Name, variant, strings.Join(vs, ", "))
		}
	}
	c := compiler{m: m, op: op, names: names, keys: keys, rules: rules}
	p := &Plan{Operation: op, Variant: b}
	for _, s := range op.Steps {
		if !s.In(b.Name) {
			continue
		}
		sp, err := c.step(s, "", b.Name)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: step %s: %w", op.Name, variantName(b), s.ID, err)
		}
		p.Steps = append(p.Steps, sp)
		p.binds += len(sp.Bind)
		for _, a := range sp.Actions {
			p.binds += len(a.Bind)
		}
	}
	return p, nil
}

func variantName(b *catalog.Budget) string {
	if b == nil || b.Name == "" {
		return "-"
	}
	return b.Name
}

type compiler struct {
	m     *catalog.Model
	op    *catalog.Operation
	names map[string]string
	keys  catalog.KeyMode
	rules capacity.Rules
}

func (c *compiler) tableName(t *catalog.Table) string {
	if n, ok := c.names[t.Name]; ok {
		return n
	}
	return t.Name
}

func (c *compiler) step(s *catalog.Step, parent, variant string) (*StepPlan, error) {
	sp := &StepPlan{Step: s, ID: s.ID, Kind: s.Kind, Bind: s.Bind, ShardValue: -1}
	if parent != "" {
		sp.ID = parent + "/" + s.ID
	}
	if s.Kind == catalog.Transaction {
		for _, it := range s.Items {
			if !it.In(variant) {
				continue
			}
			a, err := c.step(it, s.ID, variant)
			if err != nil {
				return nil, fmt.Errorf("action %s: %w", it.ID, err)
			}
			sp.Actions = append(sp.Actions, a)
		}
		if len(sp.Actions) == 0 {
			return nil, fmt.Errorf("no action of the transaction runs in this variant")
		}
		return sp, nil
	}
	q := s.Request
	if q == nil || q.Table == nil {
		return nil, fmt.Errorf("the step has no request")
	}
	sp.ModelTable, sp.Table, sp.Index, sp.Entity = q.Table, c.tableName(q.Table), q.Index, q.Entity
	sp.Key = q.Key
	if s.Kind == catalog.Put {
		sp.Item = q.ItemAssigns()
	}
	sp.Update, sp.Condition, sp.Filter = q.Update, q.Condition, q.Filter
	sp.Names = q.Names
	sp.Values = q.Values
	sp.ConsistentRead = q.ConsistentRead
	sp.Limit = int32(q.PageSize)
	sp.Descending = q.Order == "descending"
	sp.ReturnValues, sp.ReturnValuesOnConditionCheckFailure = q.ReturnValues, q.ReturnValuesOnConditionCheckFailure
	sp.OnMissing, sp.OnConditionFailed = q.OnMissing, q.OnConditionFailed
	if q.Condition != "" {
		sp.ConditionKind = s.ConditionKind(c.m, c.op)
	}
	if len(q.Projection) > 0 {
		text, pn := q.ProjectionExpression()
		sp.Projection = text
		sp.Names = merged(sp.Names, pn)
	}
	if s.Kind == catalog.Query {
		if err := c.keyCondition(sp, q); err != nil {
			return nil, err
		}
	}
	if s.Kind == catalog.Query || s.Kind == catalog.Scan {
		sp.Pages = c.pages(q)
	}
	if s.Kind.IsWrite() && c.keys == catalog.KeysSynthetic {
		if err := c.synthetic(sp, q); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// nameOf returns how an expression refers to attribute a: as it is when
// it is a plain name that is not reserved, else through a name
// placeholder (the step's own when it declares one).
func (c *compiler) nameOf(sp *StepPlan, a string) string {
	if plainName(a) && !expr.IsReserved(a) {
		return a
	}
	for _, ph := range sortedNames(sp.Names) {
		if sp.Names[ph] == a {
			return ph
		}
	}
	ph := "#" + sanitize(a)
	for {
		if _, taken := sp.Names[ph]; !taken {
			break
		}
		ph += "_"
	}
	names := make(map[string]string, len(sp.Names)+1)
	for k, v := range sp.Names {
		names[k] = v
	}
	names[ph] = a
	sp.Names = names
	return ph
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func plainName(a string) bool {
	if a == "" {
		return false
	}
	for i, r := range a {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

func sanitize(a string) string {
	var b strings.Builder
	for _, r := range a {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// valuePlaceholder returns a value placeholder for attribute a that the
// step does not use yet.
func valuePlaceholder(sp *StepPlan, a string) string {
	ph := ":" + sanitize(a)
	for {
		taken := false
		for _, v := range sp.Values {
			taken = taken || v.Name == ph
		}
		for _, v := range sp.KeyValues {
			taken = taken || v.Placeholder == ph
		}
		if !taken {
			return ph
		}
		ph += "_"
	}
}

// keyCondition writes a query's KeyConditionExpression: one comparison
// per constrained key attribute, partition attributes first, as the model
// declares them; on an index keyed on its synthetic fallback, the
// equivalent conditions on the synthetic attributes.
func (c *compiler) keyCondition(sp *StepPlan, q *catalog.Request) error {
	x := q.Index
	shardAttr, shardCount := "", 0
	if x != nil && x.Shards != nil && q.Shards != nil && q.Shards.FanOut == "all" {
		shardAttr, shardCount = x.Shards.Attribute, x.Shards.Count
	}
	if x != nil && x.Shards == nil && q.Shards != nil && q.Shards.FanOut == "all" && q.Shards.Workers > 1 {
		// A fan-out over an index without shards: every worker sends the
		// same query (and pays for it), as the static estimate charges it.
		sp.ShardCount = q.Shards.Workers
	}
	if x != nil && x.KeyedSynthetic(c.keys) {
		return c.syntheticKeyCondition(sp, q, shardAttr, shardCount)
	}
	// The catalog writes the expression, so that a generator emits the
	// same one; its values come in the order of the conditions' operands.
	text, kn, kv := q.KeyConditionExpression()
	sp.Names = merged(sp.Names, kn)
	i := 0
	for _, kc := range q.KeyCondition {
		for range kc.Operands {
			if i >= len(kv) {
				return fmt.Errorf("the key condition has more operands than values")
			}
			if kc.Attribute == shardAttr {
				sp.ShardValue, sp.ShardCount = len(sp.KeyValues), shardCount
			}
			sp.KeyValues = append(sp.KeyValues, KeyValue{Placeholder: kv[i].Name, Operand: kv[i].Value, Attribute: kc.Attribute})
			i++
		}
	}
	if shardAttr != "" && sp.ShardValue < 0 {
		return fmt.Errorf("the fan-out over %s needs an equality on %s", x.Name, shardAttr)
	}
	sp.KeyCondition = text
	return nil
}

// merged returns a's names with b's added, a new map when b adds any.
func merged(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// comparison writes one key condition comparison.
func comparison(name, op string, phs []string) (string, error) {
	want := 1
	if op == catalog.OpBetween {
		want = 2
	}
	if len(phs) != want {
		return "", fmt.Errorf("%s on %s needs %d value(s), has %d", op, name, want, len(phs))
	}
	switch op {
	case catalog.OpEq:
		return name + " = " + phs[0], nil
	case catalog.OpBeginsWith:
		return "begins_with(" + name + ", " + phs[0] + ")", nil
	case catalog.OpBetween:
		return name + " BETWEEN " + phs[0] + " AND " + phs[1], nil
	case catalog.OpLt:
		return name + " < " + phs[0], nil
	case catalog.OpLe:
		return name + " <= " + phs[0], nil
	case catalog.OpGt:
		return name + " > " + phs[0], nil
	case catalog.OpGe:
		return name + " >= " + phs[0], nil
	}
	return "", fmt.Errorf("unknown key condition %q", op)
}

// shardValue is the value of shard i of a fan-out, typed as the shard
// attribute is.
func shardValue(t attr.Type, i int) attr.Value {
	if t == attr.S {
		return attr.Str(strconv.Itoa(i))
	}
	return attr.Num(strconv.Itoa(i))
}

// pages counts the pages a read's matches fill: the items (or index
// entries) of every match, sized as the billing rules size them, split by
// capacity.Pager at the page size or 1 MB. A read without matches reads
// its whole answer (0).
func (c *compiler) pages(q *catalog.Request) int {
	if len(q.Matches) == 0 {
		return 0
	}
	t := estimate.Table(q.Table)
	var ix *capacity.Index
	if q.Index != nil {
		ix, _, _ = t.Index(q.Index.Name)
	}
	p := capacity.Pager{Limit: q.PageSize}
	n, open := 0, false
	for _, mt := range q.Matches {
		it, ok := mt.Entity.Sample(mt.Sample)
		if !ok || it == nil {
			continue
		}
		size := c.rules.ItemSize(it)
		if ix != nil {
			if size, ok = c.rules.EntrySize(t, ix, it); !ok {
				continue
			}
		}
		for range mt.Count {
			open = true
			if p.Add(size) {
				n++
				open = false
			}
		}
	}
	if open || n == 0 {
		n++
	}
	return n
}
