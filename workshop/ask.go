package workshop

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/internal/input"
)

// Limits on a question's input: every value comes from a browser and is
// checked before anything runs.
const (
	maxParamBytes = 1024 // one parameter's text
	maxNameBytes  = 256  // an operation's or variant's name
)

// Question is one run the page asks for: an operation (the one that
// answers an access pattern, or a write), its budget variant, and its
// parameters as text.
type Question struct {
	Operation string
	Variant   string
	Params    map[string]string
	// Seed writes the state the variant starts from (its samples at the
	// keys the parameters address) before the run, as budget does.
	Seed bool
}

// Answer is what a run did: its outcome, every request it sent with the
// items returned and the units consumed, and for a write the items and
// index entries that changed.
type Answer struct {
	Operation, Variant string
	Outcome            string
	OK                 bool
	Message            string
	Seeded             string
	Writes             bool
	Params             []Shown
	Requests           []Request
	RRU, WRU           float64
	// Static is the static estimate of the same variant, for comparison.
	Static *estimate.Variant
	// Changes are the items and index entries the run wrote, moved or
	// removed, by table or index.
	Changes []Change
}

// Shown is a name and the text shown for its value.
type Shown struct{ Name, Value string }

// Request is one request the run sent (a page of a query, a get, a write).
type Request struct {
	Call      string // GetItem, Query (page n), PutItem...
	Structure string
	Items     []ItemView
	Count     int
	RRU, WRU  float64
}

// Change is one item or index entry a write changed.
type Change struct {
	Structure string
	Kind      string // added, removed, changed
	Key       string
	Before    []AttrView
	After     []AttrView
}

// Ask runs q on a fresh engine holding the world's population and reports
// it. Bad input (an unknown operation, a bad value) is an input.Error.
func (w *World) Ask(ctx context.Context, m *catalog.Model, est []estimate.Variant, q Question) (*Answer, error) {
	if len(q.Operation) > maxNameBytes || len(q.Variant) > maxNameBytes {
		return nil, input.Errorf("an operation or variant name is at most %d bytes", maxNameBytes)
	}
	op := m.Operation(q.Operation)
	if op == nil {
		return nil, input.Errorf("the model has no operation %q", q.Operation)
	}
	if q.Variant == "" && len(op.Budgets) > 0 {
		q.Variant = defaultVariant(op)
	}
	if len(op.Budgets) > 0 && !slices.ContainsFunc(op.Budgets, func(b *catalog.Budget) bool { return b.Name == q.Variant }) {
		return nil, input.Errorf("operation %s has no budget variant %q", op.Name, q.Variant)
	}
	params, err := parseParams(op, q.Params)
	if err != nil {
		return nil, err
	}
	t, ts, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	defer ts.Delete(context.WithoutCancel(ctx))
	rec := &recorder{API: t.Client, model: ts.Names()}
	x := executor.New(m, rec, executor.Options{Tables: ts.Names(), Keys: ts.Keys, Keep: true})
	in := executor.Input{Operation: op.Name, Variant: q.Variant, Params: params}
	checked, err := x.Params(op, params)
	if err != nil {
		return nil, input.Errorf("%v", err)
	}
	a := &Answer{Operation: op.Name, Variant: q.Variant}
	for _, p := range op.Params {
		a.Params = append(a.Params, Shown{p.Name, show(checked[p.Name])})
	}
	for i := range est {
		if est[i].Operation == op.Name && est[i].Name == q.Variant {
			a.Static = &est[i]
		}
	}
	if q.Seed {
		sd, err := x.Seed(ctx, in)
		if err != nil {
			return nil, err
		}
		in.Before = sd.Before
		a.Seeded = fmt.Sprintf("%d items written first (the state the variant starts from)", sd.Items)
		if len(sd.Notes) > 0 {
			a.Seeded += "; " + strings.Join(sd.Notes, "; ")
		}
	}
	writes := writes(op)
	a.Writes = writes
	var before map[string]map[string]attr.Item
	if writes {
		if before, err = w.dump(ctx, t.Client, ts.Names()); err != nil {
			return nil, err
		}
	}
	rec.reset()
	res, err := x.Run(ctx, in)
	if err != nil {
		return nil, input.Errorf("%v", err)
	}
	a.Outcome = string(res.Outcome.Kind)
	a.OK = res.Outcome.OK()
	a.Message = strings.TrimSpace(res.Outcome.Meaning + " " + res.Outcome.Message)
	a.RRU, a.WRU = res.Capacity.RRU, res.Capacity.WRU
	a.Requests = rec.requests()
	if writes {
		after, err := w.dump(ctx, t.Client, ts.Names())
		if err != nil {
			return nil, err
		}
		a.Changes = diff(m, before, after)
	}
	return a, nil
}

// writes reports whether an operation writes.
func writes(op *catalog.Operation) bool {
	for _, s := range op.Steps {
		switch s.Kind {
		case catalog.Put, catalog.Update, catalog.Delete, catalog.Transaction:
			return true
		}
	}
	return false
}

// parseParams turns the page's text into values of each parameter's
// type; parameters left empty keep their sample.
func parseParams(op *catalog.Operation, given map[string]string) (map[string]attr.Value, error) {
	out := map[string]attr.Value{}
	if len(given) > len(op.Params) {
		return nil, input.Errorf("operation %s takes %d parameters, not %d", op.Name, len(op.Params), len(given))
	}
	names := make([]string, 0, len(given))
	for n := range given {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := given[n]
		p := op.Param(n)
		if p == nil {
			return nil, input.Errorf("operation %s has no parameter %q", op.Name, trim(n))
		}
		if len(s) > maxParamBytes {
			return nil, input.Errorf("parameter %s: at most %d bytes", n, maxParamBytes)
		}
		if s == "" {
			continue
		}
		v, err := parseValue(p.Type, s)
		if err != nil {
			return nil, input.Errorf("parameter %s: %v", n, err)
		}
		out[n] = v
	}
	return out, nil
}

// parseValue reads a scalar of type t from text.
func parseValue(t attr.Type, s string) (attr.Value, error) {
	switch t {
	case attr.S:
		return attr.Str(s), nil
	case attr.N:
		if err := attr.ValidNumber(s); err != nil {
			return attr.Value{}, fmt.Errorf("%q is not a number", trim(s))
		}
		return attr.Num(s), nil
	case attr.B:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return attr.Value{}, fmt.Errorf("want base64 for a binary value")
		}
		return attr.Bin(b), nil
	case attr.BOOL:
		switch s {
		case "true":
			return attr.Bool(true), nil
		case "false":
			return attr.Bool(false), nil
		}
		return attr.Value{}, fmt.Errorf("want true or false")
	}
	return attr.Value{}, fmt.Errorf("a %s value cannot be typed here: leave it empty to use its sample", t)
}

// trim cuts a hostile text for an error message.
func trim(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// recorder keeps what every request of a run returned and consumed.
type recorder struct {
	executor.API
	model map[string]string // model table -> created name
	mu    sync.Mutex
	reqs  []Request
	pages map[string]int
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.reqs, r.pages = nil, map[string]int{}
	r.mu.Unlock()
}

func (r *recorder) requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

func (r *recorder) add(call, table string, index *string, raw []map[string]types.AttributeValue, ccs ...*types.ConsumedCapacity) {
	rq := Request{Call: call, Structure: table, Count: len(raw)}
	if index != nil {
		rq.Structure = *index
	}
	write := call != "GetItem" && call != "Query" && call != "Scan"
	for _, cc := range ccs {
		if cc == nil {
			continue
		}
		r, w := aws.ToFloat64(cc.ReadCapacityUnits), aws.ToFloat64(cc.WriteCapacityUnits)
		if r == 0 && w == 0 {
			// Totals only: the request's kind says which units they are.
			if write {
				w = aws.ToFloat64(cc.CapacityUnits)
			} else {
				r = aws.ToFloat64(cc.CapacityUnits)
			}
		}
		rq.RRU += r
		rq.WRU += w
	}
	for i, it := range raw {
		if i >= shownItems {
			break
		}
		if x, err := attr.FromSDKItem(it); err == nil {
			rq.Items = append(rq.Items, ItemView{Attrs: attrs(x, nil), Size: 0})
		}
	}
	r.mu.Lock()
	if call == "Query" || call == "Scan" {
		k := call + rq.Structure
		r.pages[k]++
		rq.Call = fmt.Sprintf("%s page %d", call, r.pages[k])
	}
	r.reqs = append(r.reqs, rq)
	r.mu.Unlock()
}

func (r *recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := r.API.GetItem(ctx, in, o...)
	if err == nil {
		var items []map[string]types.AttributeValue
		if out.Item != nil {
			items = append(items, out.Item)
		}
		r.add("GetItem", aws.ToString(in.TableName), nil, items, out.ConsumedCapacity)
	}
	return out, err
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := r.API.Query(ctx, in, o...)
	if err == nil {
		r.add("Query", aws.ToString(in.TableName), in.IndexName, out.Items, out.ConsumedCapacity)
	}
	return out, err
}

func (r *recorder) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := r.API.Scan(ctx, in, o...)
	if err == nil {
		r.add("Scan", aws.ToString(in.TableName), in.IndexName, out.Items, out.ConsumedCapacity)
	}
	return out, err
}

func (r *recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := r.API.PutItem(ctx, in, o...)
	if err == nil {
		r.add("PutItem", aws.ToString(in.TableName), nil, nil, out.ConsumedCapacity)
	} else {
		r.add("PutItem (condition failed)", aws.ToString(in.TableName), nil, nil)
	}
	return out, err
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := r.API.UpdateItem(ctx, in, o...)
	if err == nil {
		r.add("UpdateItem", aws.ToString(in.TableName), nil, nil, out.ConsumedCapacity)
	} else {
		r.add("UpdateItem (condition failed)", aws.ToString(in.TableName), nil, nil)
	}
	return out, err
}

func (r *recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := r.API.DeleteItem(ctx, in, o...)
	if err == nil {
		r.add("DeleteItem", aws.ToString(in.TableName), nil, nil, out.ConsumedCapacity)
	} else {
		r.add("DeleteItem (condition failed)", aws.ToString(in.TableName), nil, nil)
	}
	return out, err
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := r.API.TransactWriteItems(ctx, in, o...)
	if err == nil {
		ccs := make([]*types.ConsumedCapacity, 0, len(out.ConsumedCapacity))
		for i := range out.ConsumedCapacity {
			ccs = append(ccs, &out.ConsumedCapacity[i])
		}
		r.add(fmt.Sprintf("TransactWriteItems (%d actions)", len(in.TransactItems)), "transaction", nil, nil, ccs...)
	} else {
		r.add("TransactWriteItems (cancelled)", "transaction", nil, nil)
	}
	return out, err
}

// dump reads every table and index whole, keyed, for a write's diff.
func (w *World) dump(ctx context.Context, c *dynamodb.Client, names map[string]string) (map[string]map[string]attr.Item, error) {
	out := map[string]map[string]attr.Item{}
	for _, tb := range w.model.Tables {
		ct := estimate.Table(tb)
		read := func(label string, index *string, pk, sk []string) error {
			in := &dynamodb.ScanInput{TableName: aws.String(names[tb.Name]), IndexName: index}
			got := map[string]attr.Item{}
			for n := 0; ; n++ {
				o, err := c.Scan(ctx, in)
				if err != nil {
					return fmt.Errorf("read back %s: %w", label, err)
				}
				for _, raw := range o.Items {
					it, err := attr.FromSDKItem(raw)
					if err != nil {
						return err
					}
					k := values(it, append(slices.Clone(pk), sk...))
					if index != nil {
						// Index keys need not be unique: the table key
						// tells entries apart.
						k += " | " + values(it, []string{ct.PK, ct.SK})
					}
					got[k] = it
				}
				if len(o.LastEvaluatedKey) == 0 || len(got) >= maxScanItems {
					break
				}
				in.ExclusiveStartKey = o.LastEvaluatedKey
			}
			out[label] = got
			return nil
		}
		sk := []string{}
		if ct.SK != "" {
			sk = []string{ct.SK}
		}
		if err := read(tb.Name, nil, []string{ct.PK}, sk); err != nil {
			return nil, err
		}
		for _, ix := range append(slices.Clone(ct.GSIs), ct.LSIs...) {
			pk := ix.PK
			if len(pk) == 0 {
				pk = []string{ct.PK}
			}
			if err := read(ix.Name, aws.String(ix.Name), pk, ix.SK); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// maxChanges bounds the changes a run reports.
const maxChanges = 200

// diff lists what changed between two dumps, table by table and index by
// index, in the model's order.
func diff(m *catalog.Model, before, after map[string]map[string]attr.Item) []Change {
	var out []Change
	var order []string
	for _, tb := range m.Tables {
		order = append(order, tb.Name)
		for _, x := range tb.Indexes {
			order = append(order, x.Name)
		}
	}
	for _, s := range order {
		b, a := before[s], after[s]
		var keys []string
		for k := range b {
			keys = append(keys, k)
		}
		for k := range a {
			if _, ok := b[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			x, inB := b[k]
			y, inA := a[k]
			c := Change{Structure: s, Key: k}
			switch {
			case inB && !inA:
				c.Kind, c.Before = "removed", attrs(x, nil)
			case !inB && inA:
				c.Kind, c.After = "added", attrs(y, nil)
			case !attr.EqualItems(x, y):
				c.Kind, c.Before, c.After = "changed", attrs(x, nil), attrs(y, nil)
			default:
				continue
			}
			if len(out) < maxChanges {
				out = append(out, c)
			}
		}
	}
	return out
}

// Suggestion is a coherent set of parameter values, every one taken from
// one item of the population.
type Suggestion struct {
	From   string
	Values map[string]string
}

// maxSets bounds the parameter sets suggested for one operation.
const maxSets = 5

// Suggest proposes parameter sets for op from the population: the items
// that hold the most of its parameters' attributes.
func (w *World) Suggest(op *catalog.Operation) []Suggestion {
	type cand struct {
		s Suggestion
		n int
	}
	var cs []cand
	var entities []string
	for e := range w.Examples {
		entities = append(entities, e)
	}
	sort.Strings(entities)
	for _, e := range entities {
		for i, it := range w.Examples[e] {
			s := Suggestion{From: fmt.Sprintf("%s #%d", e, i+1), Values: map[string]string{}}
			for _, p := range op.Params {
				if p.Attribute == nil {
					continue
				}
				if v, ok := it.Get(p.Attribute.Name); ok && v.Type == p.Type && v.Type.IsScalar() {
					s.Values[p.Name] = show(v)
				}
			}
			if len(s.Values) > 0 {
				cs = append(cs, cand{s, len(s.Values)})
			}
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].n > cs[j].n })
	var out []Suggestion
	for _, c := range cs {
		if len(out) == maxSets || c.n < cs[0].n {
			break
		}
		out = append(out, c.s)
	}
	return out
}

// defaultVariant is the variant a question runs when none is picked: the
// first whose run is meant to succeed (a refusal is asked for by name),
// else the first.
func defaultVariant(op *catalog.Operation) string {
	for _, b := range op.Budgets {
		if b.FailedStep == "" {
			return b.Name
		}
	}
	return op.Budgets[0].Name
}
