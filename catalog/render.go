package catalog

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// Call is one DynamoDB request of a step with every value filled in: what
// a program sends, field for field, without knowing anything of the
// model. The executor and the generated code build their requests from
// executor.Compile; Step.Render and Operation.SampleRun render the same
// requests independently, from the model alone, as the reference the
// tests hold the executor to (executor's TestAgreesWithRender) and the
// review's item images are drawn from.
//
// Fields that do not apply to the Action are empty. Names and Values hold
// every placeholder the expressions use and no other (DynamoDB rejects
// both undefined and unused ones), the model's own and those Render adds
// for the key condition and the projection.
type Call struct {
	// Step is the id of the step, or of the transaction action.
	Step string `json:"step"`
	// Action is GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan or
	// TransactWriteItems for a step; Put, Update, Delete or ConditionCheck
	// for an action of a transaction (the member names of TransactItems).
	Action string `json:"action"`
	Table  string `json:"table,omitempty"`
	Index  string `json:"index,omitempty"` // Query and Scan of an index
	// Key is every table key attribute of the item (get, update, delete,
	// condition check).
	Key attr.Item `json:"key,omitempty"`
	// Item is the whole item a put writes: the table keys, the table's
	// discriminator and the attributes.
	Item attr.Item `json:"item,omitempty"`
	// KeyCondition is the KeyConditionExpression of a query.
	KeyCondition string            `json:"keyCondition,omitempty"`
	Update       string            `json:"update,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Filter       string            `json:"filter,omitempty"`
	Projection   string            `json:"projection,omitempty"`
	Names        map[string]string `json:"names,omitempty"`  // ExpressionAttributeNames; nil when none
	Values       attr.Item         `json:"values,omitempty"` // ExpressionAttributeValues by placeholder (":amt"); nil when none
	// ConsistentRead asks for a strongly consistent read.
	ConsistentRead bool `json:"consistentRead,omitempty"`
	// Descending is ScanIndexForward = false.
	Descending bool `json:"descending,omitempty"`
	// Limit is the page size of a query or scan, 0 when not set.
	Limit                               int    `json:"limit,omitempty"`
	ReturnValues                        string `json:"returnValues,omitempty"`
	ReturnValuesOnConditionCheckFailure string `json:"returnValuesOnConditionCheckFailure,omitempty"`
	// Actions are the actions of a TransactWriteItems, in request order.
	Actions []*Call `json:"actions,omitempty"`
}

// Inputs are the values a step is rendered from: the operation's
// parameters by name, and the attributes bound by earlier read steps
// (Step.Bind) under their attribute names.
type Inputs map[string]attr.Value

// Render fills in the request of the step from inputs. A transaction
// renders the actions that run in the budget variant (Step.In); variant
// may be "" when no action names variants. The request is complete: every
// key attribute, every expression name and value; an input that is
// missing, or that a template cannot take (a padded placeholder given a
// string, a value containing the key separator), is an error naming the
// step and the input.
func (s *Step) Render(variant string, in Inputs) (*Call, error) {
	if s.Kind == Transaction {
		c := &Call{Step: s.ID, Action: "TransactWriteItems"}
		for _, it := range s.Items {
			if variant == "" && len(it.Variants) > 0 {
				return nil, fmt.Errorf("step %s: action %s runs only in the variants %s: name the variant to render", s.ID, it.ID, strings.Join(it.Variants, ", "))
			}
		}
		for _, it := range s.Items {
			if !it.In(variant) {
				continue
			}
			a, err := it.render(in, true)
			if err != nil {
				return nil, err
			}
			c.Actions = append(c.Actions, a)
		}
		return c, nil
	}
	return s.render(in, false)
}

// RenderShards renders a query once per shard when it reads every shard
// of a sharded index (shards.fanOut: all): the input feeding the shard
// attribute's key condition takes each value 0..count-1 in turn. Any other
// step renders once.
func (s *Step) RenderShards(variant string, in Inputs) ([]*Call, error) {
	param, n, ok := s.ShardInput()
	if !ok {
		c, err := s.Render(variant, in)
		if err != nil {
			return nil, err
		}
		return []*Call{c}, nil
	}
	out := make([]*Call, 0, n)
	for i := 0; i < n; i++ {
		shard := make(Inputs, len(in)+1)
		for k, v := range in {
			shard[k] = v
		}
		shard[param] = attr.Num(fmt.Sprint(i))
		c, err := s.Render(variant, shard)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ShardInput returns the input that feeds the shard attribute of a query
// that reads every shard of its index, and the number of shards; ok is
// false for any other step.
func (s *Step) ShardInput() (input string, count int, ok bool) {
	q := s.Request
	if s.Kind != Query || q == nil || q.Index == nil || q.Index.Shards == nil || q.Shards == nil || q.Shards.FanOut != "all" {
		return "", 0, false
	}
	for _, kc := range q.KeyCondition {
		if kc.Attribute == q.Index.Shards.Attribute && len(kc.Operands) == 1 && kc.Operands[0].Param != "" {
			return kc.Operands[0].Param, q.Index.Shards.Count, true
		}
	}
	return "", 0, false
}

var actionNames = map[StepKind][2]string{
	Get:            {"GetItem", ""},
	Put:            {"PutItem", "Put"},
	Update:         {"UpdateItem", "Update"},
	Delete:         {"DeleteItem", "Delete"},
	ConditionCheck: {"", "ConditionCheck"},
	Query:          {"Query", ""},
	Scan:           {"Scan", ""},
}

func (s *Step) render(in Inputs, inTx bool) (*Call, error) {
	q := s.Request
	if q == nil {
		return nil, fmt.Errorf("step %s has no request", s.ID)
	}
	names := actionNames[s.Kind]
	c := &Call{Step: s.ID, Action: names[0], Update: q.Update, Condition: q.Condition, Filter: q.Filter,
		ConsistentRead: q.ConsistentRead, Descending: q.Order == "descending", Limit: q.PageSize,
		ReturnValues: q.ReturnValues, ReturnValuesOnConditionCheckFailure: q.ReturnValuesOnConditionCheckFailure}
	if inTx {
		c.Action = names[1]
	}
	if q.Table != nil {
		c.Table = q.Table.Name
	}
	if q.Index != nil {
		c.Index = q.Index.Name
	}
	fail := func(what string, err error) (*Call, error) {
		return nil, fmt.Errorf("step %s: %s: %w", s.ID, what, err)
	}
	resolve := func(o Operand) (attr.Value, error) { return o.Resolve(map[string]attr.Value(in)) }
	// A value rendered into a key must not carry the separator: the key
	// could no longer be read back.
	resolveKey := func(o Operand) (attr.Value, error) {
		if o.Template != nil {
			s, err := o.Template.RenderSep(map[string]attr.Value(in), q.sep)
			return attr.Str(s), err
		}
		return resolve(o)
	}
	names2 := map[string]string{}
	for k, v := range q.Names {
		names2[k] = v
	}
	var values attr.Item
	for _, nv := range q.Values {
		v, err := resolve(nv.Value)
		if err != nil {
			return fail(nv.Name, err)
		}
		values = append(values, attr.Field{Name: nv.Name, Value: v})
	}
	switch s.Kind {
	case Put:
		for _, a := range q.Key {
			v, err := resolveKey(a.Value)
			if err != nil {
				return fail("key "+a.Attribute, err)
			}
			c.Item = c.Item.With(a.Attribute, v)
		}
		for _, a := range q.ItemAssigns() {
			if _, done := c.Item.Get(a.Attribute); done {
				continue
			}
			v, err := resolve(a.Value)
			if err != nil {
				return fail(a.Attribute, err)
			}
			c.Item = c.Item.With(a.Attribute, v)
		}
	case Query:
		text, kn, kv := q.KeyConditionExpression()
		c.KeyCondition = text
		for k, v := range kn {
			names2[k] = v
		}
		for _, nv := range kv {
			v, err := resolveKey(nv.Value)
			if err != nil {
				return fail("key condition on "+nv.Name, err)
			}
			values = append(values, attr.Field{Name: nv.Name, Value: v})
		}
	case Scan:
	default:
		for _, a := range q.Key {
			v, err := resolveKey(a.Value)
			if err != nil {
				return fail("key "+a.Attribute, err)
			}
			c.Key = c.Key.With(a.Attribute, v)
		}
	}
	if len(q.Projection) > 0 {
		text, pn := q.ProjectionExpression()
		c.Projection = text
		for k, v := range pn {
			names2[k] = v
		}
	}
	if len(names2) > 0 {
		c.Names = names2
	}
	if len(values) > 0 {
		c.Values = attr.Sorted(values)
	}
	return c, nil
}

// ItemAssigns returns everything a put writes, as operands: the table key
// attributes (from the entity's templates, or the step's own key), the
// discriminator and the item's attributes, sorted by attribute.
func (q *Request) ItemAssigns() []Assign {
	var out []Assign
	out = append(out, q.Key...)
	if q.Entity != nil && q.Table != nil && q.Table.Discriminator != "" {
		v := attr.Str(q.Entity.TypeValue)
		out = append(out, Assign{q.Table.Discriminator, Operand{Literal: &v}})
	}
	out = append(out, q.Item...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Attribute < out[j].Attribute })
	return out
}

// KeyConditionExpression writes a query's key condition the way
// DynamoDB's KeyConditionExpression reads, with the names and values it
// needs: a key attribute is written bare, or as #name when it is a
// reserved word; its values are :name (:name_lo and :name_hi for BETWEEN),
// renamed when the request already uses the placeholder for something
// else. The operands are the request's own, so a generator emits the same
// expression the executor sends.
func (q *Request) KeyConditionExpression() (text string, names map[string]string, values []NamedValue) {
	taken := map[string]bool{}
	for k := range q.Names {
		taken[k] = true
	}
	for _, v := range q.Values {
		taken[v.Name] = true
	}
	fresh := namer(taken, "_k")
	var parts []string
	for _, kc := range q.KeyCondition {
		name := q.nameFor(kc.Attribute, &names, fresh)
		var phs []string
		for i, o := range kc.Operands {
			base := ":" + kc.Attribute
			if kc.Op == OpBetween {
				base += [...]string{"_lo", "_hi"}[min(i, 1)]
			}
			ph := fresh(base)
			phs = append(phs, ph)
			values = append(values, NamedValue{ph, o})
		}
		switch kc.Op {
		case OpEq:
			parts = append(parts, name+" = "+phs[0])
		case OpBeginsWith:
			parts = append(parts, "begins_with("+name+", "+phs[0]+")")
		case OpBetween:
			parts = append(parts, name+" BETWEEN "+phs[0]+" AND "+phs[1])
		default:
			op := map[string]string{OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">="}[kc.Op]
			parts = append(parts, name+" "+op+" "+phs[0])
		}
	}
	return strings.Join(parts, " AND "), names, values
}

// ProjectionExpression writes the request's projection, with a #name
// for each reserved word.
func (q *Request) ProjectionExpression() (text string, names map[string]string) {
	taken := map[string]bool{}
	for k := range q.Names {
		taken[k] = true
	}
	fresh := namer(taken, "_p")
	parts := make([]string, 0, len(q.Projection))
	for _, a := range q.Projection {
		parts = append(parts, q.nameFor(a, &names, fresh))
	}
	return strings.Join(parts, ", "), names
}

// nameFor returns how an expression written by the catalog names an
// attribute: bare, or through the request's own #name for it, or through
// a new #name when it is a reserved word.
func (q *Request) nameFor(a string, names *map[string]string, fresh func(string) string) string {
	if !expr.IsReserved(a) {
		return a
	}
	for _, k := range slices.Sorted(maps.Keys(q.Names)) {
		if q.Names[k] == a {
			if *names == nil {
				*names = map[string]string{}
			}
			(*names)[k] = a
			return k
		}
	}
	n := fresh("#" + a)
	if *names == nil {
		*names = map[string]string{}
	}
	(*names)[n] = a
	return n
}

// SampleInputs returns the inputs of a sample run of the operation: every
// parameter's sample. Parameters without a sample are left out.
func (o *Operation) SampleInputs() Inputs {
	in := Inputs{}
	for _, p := range o.Params {
		if p.Sample != nil {
			in[p.Name] = *p.Sample
		}
	}
	return in
}

// SampleRun renders every step of a budget variant as a sample run does:
// from the parameters' samples, each read binding its attributes from the
// sample it names for the variant (a get's sample, the first match of a
// query). It is the static picture of what the operation sends; a runner
// binds from the real responses instead.
func (o *Operation) SampleRun(variant string) ([]*Call, error) {
	b := o.Budget(variant)
	in := o.SampleInputsIn(b)
	var out []*Call
	for _, s := range o.Steps {
		if !s.In(variant) {
			continue
		}
		calls, err := s.RenderShards(variant, in)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", o.Name, variant, err)
		}
		out = append(out, calls...)
		if len(s.Bind) == 0 || s.Request == nil {
			continue
		}
		var from attr.Item
		switch {
		case s.Kind == Get && s.Request.Entity != nil:
			name := s.Request.Sample
			if b != nil {
				_, _, name = b.SamplesFor(s)
			}
			from, _ = s.Request.Entity.Sample(name)
		case len(s.Request.Matches) > 0:
			m := s.Request.Matches[0]
			from, _ = m.Entity.Sample(m.Sample)
		}
		for _, a := range s.Bind {
			if v, ok := from.Get(a); ok {
				in[a] = v
			}
		}
	}
	return out, nil
}

// Budget returns the named budget variant, or nil.
func (o *Operation) Budget(name string) *Budget {
	for _, b := range o.Budgets {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// namer returns placeholder names that are not taken yet: base itself,
// or base with the suffix and a number.
func namer(taken map[string]bool, suffix string) func(string) string {
	return func(base string) string {
		if !taken[base] {
			taken[base] = true
			return base
		}
		for i := 2; ; i++ {
			n := fmt.Sprintf("%s%s%d", base, suffix, i)
			if !taken[n] {
				taken[n] = true
				return n
			}
		}
	}
}
