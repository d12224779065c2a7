package executor

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Options configure an Executor.
type Options struct {
	// Tables maps the model's table names to their names on the target
	// (target.Tables.Names); nil keeps the model's names.
	Tables map[string]string
	// Keys is how multi-attribute index keys exist on the target:
	// catalog.KeysNative (the default) or catalog.KeysSynthetic.
	Keys catalog.KeyMode
	// Rules are the billing rules of computed figures; the zero value is
	// capacity.Default().
	Rules capacity.Rules
	// Retries is how many times a run whose failure the model declares
	// retry is run again from its first step (0: never).
	Retries int
	// Loader writes what Seed makes (a *target.Target); nil sends
	// BatchWriteItem requests through the API.
	Loader Loader
	// Keep makes each run keep what its reads returned (StepResult.Found)
	// and the values it ended with, parameters and bound attributes
	// (Result.Values): the load generator follows reads with further
	// arrivals and checks its ledger against them.
	Keep bool
}

// Executor runs a model's operations through an API. It is safe for
// concurrent use; each operation and variant is compiled once.
type Executor struct {
	m       *catalog.Model
	api     API
	opts    Options
	reverse map[string]string // name on the target -> model table
	tables  map[string]*capacity.Table

	loader Loader

	mu    sync.Mutex
	plans map[planKey]*Plan
	keyed map[*catalog.Operation]map[string]bool // keyedParams, by operation
}

type planKey struct{ op, variant string }

// New returns an executor of m's operations over api.
func New(m *catalog.Model, api API, o Options) *Executor {
	if o.Keys == "" || o.Keys == catalog.KeysAuto {
		o.Keys = catalog.KeysNative
	}
	x := &Executor{m: m, api: api, opts: o, reverse: map[string]string{}, tables: map[string]*capacity.Table{}, plans: map[planKey]*Plan{}, keyed: map[*catalog.Operation]map[string]bool{}, loader: o.Loader}
	if x.loader == nil {
		x.loader = apiLoader{api}
	}
	for _, t := range m.Tables {
		name := t.Name
		if n, ok := o.Tables[t.Name]; ok {
			name = n
		}
		x.reverse[name] = t.Name
		x.tables[t.Name] = estimate.Table(t)
	}
	return x
}

// Model returns the executor's model.
func (x *Executor) Model() *catalog.Model { return x.m }

// Plan returns the compiled plan of an operation in a variant ("" for an
// operation without budgets).
func (x *Executor) Plan(op, variant string) (*Plan, error) {
	k := planKey{op, variant}
	x.mu.Lock()
	p, ok := x.plans[k]
	x.mu.Unlock()
	if ok {
		return p, nil
	}
	o := x.m.Operation(op)
	if o == nil {
		var names []string
		for _, op := range x.m.Operations {
			names = append(names, op.Name)
		}
		return nil, fmt.Errorf("the model has no operation %q%s", op, hintOf(op, names))
	}
	p, err := compile(x.m, o, variant, x.opts.Tables, x.opts.Keys, x.opts.Rules)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	x.plans[k] = p
	x.mu.Unlock()
	return p, nil
}

// Input is one run's request: an operation, a variant, and parameter
// values replacing the model's samples.
type Input struct {
	Operation string
	Variant   string
	Params    map[string]attr.Value
	// Before holds, by step id, the item each write step finds before the
	// run, when the caller knows it (Seed returns it): the figures a
	// target does not report are computed from it. Otherwise they are
	// computed from the step's declared before sample.
	Before map[string]attr.Item
}

// Params returns the values a run of op uses: each parameter's sample,
// replaced by the given values. Every value is checked against its
// parameter (type, the attribute's domain, and the key separator for
// values placed in key templates); an error names the parameter.
func (x *Executor) Params(op *catalog.Operation, given map[string]attr.Value) (map[string]attr.Value, error) {
	out := make(map[string]attr.Value, len(op.Params))
	var errs []string
	for name := range given {
		if op.Param(name) == nil {
			var names []string
			for _, p := range op.Params {
				names = append(names, p.Name)
			}
			errs = append(errs, fmt.Sprintf("operation %s has no parameter %q%s", op.Name, name, hintOf(name, names)))
		}
	}
	keyed := x.keyedParams(op)
	for _, p := range op.Params {
		v, ok := given[p.Name]
		if !ok {
			if p.Sample == nil {
				errs = append(errs, fmt.Sprintf("parameter %s of %s: missing (no value given and no sample declared)", p.Name, op.Name))
				continue
			}
			v = *p.Sample
		}
		if err := catalog.CheckParam(p, v); err != nil {
			errs = append(errs, fmt.Sprintf("parameter %s of %s: %v", p.Name, op.Name, err))
			continue
		}
		if sep := x.m.Separator; sep != "" && keyed[p.Name] && v.Type == attr.S && strings.Contains(v.Str, sep) {
			errs = append(errs, fmt.Sprintf("parameter %s of %s: %q contains the key separator %q, which would make a key ambiguous", p.Name, op.Name, v.Str, sep))
			continue
		}
		out[p.Name] = v
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, &ParamError{Problems: errs}
	}
	return out, nil
}

// ParamError lists what is wrong with a run's parameter values.
type ParamError struct{ Problems []string }

func (e *ParamError) Error() string { return strings.Join(e.Problems, "; ") }

// keyedParams is keyedParams of op, made once: Params runs for every
// request of a load.
func (x *Executor) keyedParams(op *catalog.Operation) map[string]bool {
	x.mu.Lock()
	k, ok := x.keyed[op]
	x.mu.Unlock()
	if ok {
		return k
	}
	k = keyedParams(op)
	x.mu.Lock()
	x.keyed[op] = k
	x.mu.Unlock()
	return k
}

// keyedParams lists the parameters placed inside key templates (with
// literal text around them), where a separator would be ambiguous.
func keyedParams(op *catalog.Operation) map[string]bool {
	out := map[string]bool{}
	mark := func(t *catalog.KeyTemplate) {
		if t == nil || len(t.Parts) < 2 {
			return
		}
		for _, p := range t.Parts {
			if p.Attr != "" {
				out[p.Attr] = true
			}
		}
	}
	var visit func(s *catalog.Step)
	visit = func(s *catalog.Step) {
		for _, it := range s.Items {
			visit(it)
		}
		q := s.Request
		if q == nil {
			return
		}
		for _, k := range q.Key {
			mark(k.Value.Template)
		}
		for _, kc := range q.KeyCondition {
			for _, o := range kc.Operands {
				mark(o.Template)
			}
		}
		if q.Entity != nil {
			for _, k := range q.Entity.Key {
				mark(k.Template)
			}
		}
	}
	for _, s := range op.Steps {
		visit(s)
	}
	return out
}

func hintOf(s string, names []string) string {
	if h := catalog.Hint(s, names); h != "" {
		return " (" + h + ")"
	}
	return ""
}
