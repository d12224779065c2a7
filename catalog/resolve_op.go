package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// opScope types the placeholders available to a step: the operation's
// parameters and the attributes bound by earlier steps.
type opScope struct {
	r      *resolver
	op     *Operation
	params map[string]attr.Type
	names  []string
}

func (s *opScope) avail(ptr, name string) (attr.Type, bool) {
	if t, ok := s.params[name]; ok {
		return t, true
	}
	if ptr != "" {
		s.r.errAt(ptr, false, didYouMean(name, s.names), "placeholder {%s} is neither a parameter of %s nor bound by an earlier step", name, s.op.Name)
	}
	return attr.Invalid, false
}

func (s *opScope) bind(name string, t attr.Type) {
	if _, ok := s.params[name]; !ok {
		s.names = append(s.names, name)
	}
	s.params[name] = t
}

func (r *resolver) resolveOperations() {
	for _, name := range slices.Sorted(maps.Keys(r.raw.Operations)) {
		ro := r.raw.Operations[name]
		op := &Operation{Name: name, Description: ro.Description, Trigger: ro.Trigger, Idempotency: ro.Idempotency}
		if ro.Volume != nil {
			op.Volume = r.volume(p("operations", name, "volume"), ro.Volume)
		}
		scope := &opScope{r: r, op: op, params: map[string]attr.Type{}}
		for _, pn := range slices.Sorted(maps.Keys(ro.Params)) {
			rp := ro.Params[pn]
			ptr := p("operations", name, "params", pn)
			prm := &Param{Name: pn, Description: rp.Description}
			switch {
			case rp.Attribute != "" && rp.Type != "":
				r.errAt(ptr+"/type", true, "", "give attribute or type, not both")
			case rp.Attribute != "":
				if a := r.attrRef(ptr+"/attribute", rp.Attribute); a != nil {
					prm.Attribute, prm.Type = a, a.Type
				}
			case rp.Type != "":
				prm.Type, _ = attr.ParseType(rp.Type)
			default:
				if a, ok := r.attrs[pn]; ok {
					prm.Attribute, prm.Type = a, a.Type
				} else {
					r.errAt(ptr, true, "", "parameter %s is not an attribute name: give its attribute or type", pn)
				}
			}
			if len(rp.Sample) > 0 && prm.Type != attr.Invalid {
				v, _ := decodeAny(rp.Sample)
				tv, err := typedValue(v, prm.Type, prm.Attribute)
				if err != nil {
					r.errf(ptr+"/sample", "%v", err)
				} else {
					prm.Sample = &tv
				}
			}
			op.Params = append(op.Params, prm)
			scope.bind(pn, prm.Type)
		}
		ids := map[string]bool{}
		for i, rs := range ro.Steps {
			sptr := p("operations", name, "steps", i)
			st := r.step(sptr, scope, rs, ids)
			if st != nil {
				op.Steps = append(op.Steps, st)
			}
		}
		served := map[string]bool{}
		for i, id := range ro.Serves {
			ap, ok := r.aps[id]
			if !ok {
				r.errAt(p("operations", name, "serves", i), false, didYouMean(id, slices.Sorted(maps.Keys(r.aps))), "unknown access pattern %q", id)
				continue
			}
			if !served[id] {
				served[id] = true
				op.Serves = append(op.Serves, ap)
			}
		}
		for _, st := range op.Steps {
			if st.Pattern != nil && !served[st.Pattern.ID] {
				served[st.Pattern.ID] = true
				op.Serves = append(op.Serves, st.Pattern)
			}
		}
		sort.Slice(op.Serves, func(i, j int) bool { return op.Serves[i].ID < op.Serves[j].ID })
		for _, ap := range op.Serves {
			ap.Operations = append(ap.Operations, op)
		}
		for _, bn := range slices.Sorted(maps.Keys(ro.Budgets)) {
			op.Budgets = append(op.Budgets, r.budget(p("operations", name, "budgets", bn), op, bn, ro.Budgets[bn]))
		}
		r.checkShares(p("operations", name, "budgets"), op)
		r.checkRangeSamples(p("operations", name), op)
		if len(op.Budgets) > 0 && r.raw.FormatVersion >= FormatVersion {
			// budget measures each variant with the parameters' samples:
			// one without a sample has no value to run with (a model of
			// formatVersion 1 learns it from migrate).
			for _, prm := range op.Params {
				if len(ro.Params[prm.Name].Sample) == 0 && prm.Type != attr.Invalid {
					r.errAt(p("operations", name, "params", prm.Name), true, "declare its sample: a value the measured run uses",
						"parameter %s of %s has no sample: budget measures each variant with its parameters' samples", prm.Name, name)
				}
			}
		}
		for i, rs := range ro.Steps {
			r.checkVariants(p("operations", name, "steps", i, "variants"), rs.Variants, ro.Budgets)
			if rs.Transaction != nil {
				for j, ri := range rs.Transaction.Items {
					r.checkVariants(p("operations", name, "steps", i, "transaction", "items", j, "variants"), ri.Variants, ro.Budgets)
				}
			}
		}
		r.ops[name] = op
		r.m.Operations = append(r.m.Operations, op)
	}
}

func (r *resolver) budget(ptr string, op *Operation, name string, rb rawBudget) *Budget {
	b := &Budget{Name: name, Description: rb.Description, WRU: rb.WRU, RRU: rb.RRU, FailedStep: rb.FailedStep, Pages: rb.Pages, Share: rb.Share, Reasoning: rb.Reasoning}
	if b.WRU == nil && b.RRU == nil {
		r.errAt(ptr, true, "", "a budget needs wru, rru or both")
	}
	if b.FailedStep != "" {
		st := op.Step(b.FailedStep)
		switch {
		case st == nil:
			r.errAt(ptr+"/failedStep", false, didYouMean(b.FailedStep, stepIDs(op)), "unknown step %q", b.FailedStep)
		case st.Kind == Get || st.Kind == Query || st.Kind == Scan || st.Kind == Transaction:
			r.errf(ptr+"/failedStep", "step %s is a %s: only a conditional write or condition check can fail its condition", st.ID, st.Kind)
		case st.Request != nil && st.Request.Condition == "":
			r.errf(ptr+"/failedStep", "step %s has no condition that could fail", st.ID)
		}
	}
	if len(rb.Samples) > 0 {
		b.Samples = map[string]SampleOverride{}
	}
	for _, sid := range slices.Sorted(maps.Keys(rb.Samples)) {
		o := rb.Samples[sid]
		sptr := ptr + "/samples/" + escapePtr(sid)
		st := op.Step(sid)
		if st == nil {
			r.errAt(sptr, true, didYouMean(sid, stepIDs(op)), "unknown step %q", sid)
			continue
		}
		if st.Request != nil && st.Request.Entity != nil {
			for _, s := range []struct {
				f string
				v *string
			}{{"before", o.Before}, {"after", o.After}, {"sample", o.Sample}} {
				if s.v != nil {
					r.sampleRef(sptr+"/"+s.f, st.Request.Entity, *s.v)
				}
			}
		}
		b.Samples[sid] = SampleOverride{Before: o.Before, After: o.After, Sample: o.Sample}
	}
	b.Params = r.budgetParams(ptr+"/params", op, rb.Params)
	return b
}

func (r *resolver) checkVariants(ptr string, vs []string, budgets map[string]rawBudget) {
	for i, v := range vs {
		if _, ok := budgets[v]; !ok {
			r.errAt(fmt.Sprintf("%s/%d", ptr, i), false, didYouMean(v, slices.Sorted(maps.Keys(budgets))), "unknown budget variant %q", v)
		}
	}
}

func stepIDs(op *Operation) []string {
	var ids []string
	for _, s := range op.Steps {
		ids = append(ids, s.ID)
		for _, it := range s.Items {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

func (r *resolver) sampleRef(ptr string, e *Entity, name string) {
	if _, ok := e.Sample(name); ok {
		return
	}
	if _, raw := r.raw.Entities[e.Name].Samples[name]; raw {
		return // the sample itself is broken and reported there
	}
	var names []string
	for _, s := range e.Samples {
		names = append(names, s.Name)
	}
	r.errAt(ptr, false, didYouMean(name, append(names, Absent)), "entity %s has no sample %q", e.Name, name)
}

func (r *resolver) step(ptr string, scope *opScope, rs rawStep, ids map[string]bool) *Step {
	st := &Step{ID: rs.ID, Description: rs.Description, When: rs.When, Variants: rs.Variants}
	if ids[rs.ID] {
		r.errf(ptr+"/id", "duplicate step id %q", rs.ID)
	}
	ids[rs.ID] = true
	if rs.Pattern != "" {
		ap, ok := r.aps[rs.Pattern]
		if !ok {
			r.errAt(ptr+"/pattern", false, didYouMean(rs.Pattern, slices.Sorted(maps.Keys(r.aps))), "unknown access pattern %q", rs.Pattern)
		}
		st.Pattern = ap
	}
	kinds := map[StepKind]*rawRequest{Get: rs.Get, Put: rs.Put, Update: rs.Update, Delete: rs.Delete, Query: rs.Query, Scan: rs.Scan, ConditionCheck: rs.ConditionCheck}
	var set []StepKind
	for k, v := range kinds {
		if v != nil {
			set = append(set, k)
		}
	}
	if rs.Transaction != nil {
		set = append(set, Transaction)
	}
	if len(set) != 1 {
		r.errAt(ptr, true, "", "a step has exactly one of get, put, update, delete, query, scan or transaction (found %d)", len(set))
		return nil
	}
	st.Kind = set[0]
	switch st.Kind {
	case Transaction:
		st.Why = rs.Transaction.Why
		type itemKey struct{ entity, key string }
		seen := map[itemKey]*Step{}
		for i, ri := range rs.Transaction.Items {
			iptr := fmt.Sprintf("%s/transaction/items/%d", ptr, i)
			it := &Step{ID: ri.ID, Description: ri.Description, Variants: ri.Variants}
			if ids[ri.ID] {
				r.errf(iptr+"/id", "duplicate step id %q", ri.ID)
			}
			ids[ri.ID] = true
			var rr *rawRequest
			n := 0
			for k, v := range map[StepKind]*rawRequest{Put: ri.Put, Update: ri.Update, Delete: ri.Delete, ConditionCheck: ri.ConditionCheck} {
				if v != nil {
					it.Kind, rr = k, v
					n++
				}
			}
			if n != 1 {
				r.errAt(iptr, true, "", "a transaction action has exactly one of put, update, delete or conditionCheck (found %d)", n)
				continue
			}
			it.Request = r.request(iptr+"/"+string(it.Kind), scope, it.Kind, rr, true)
			if it.Request != nil && it.Request.Entity != nil {
				k := itemKey{it.Request.Entity.Name, keyText(it.Request.Key)}
				if prev, dup := seen[k]; dup && overlap(prev, it) {
					r.errf(iptr, "actions %s and %s touch the same item: a transaction may touch each item once", prev.ID, it.ID)
				}
				seen[k] = it
			}
			st.Items = append(st.Items, it)
		}
	default:
		if st.Kind == ConditionCheck {
			r.errAt(ptr+"/conditionCheck", true, "use a conditional put or update, or a transaction", "a condition check exists only inside a transaction")
			return nil
		}
		st.Request = r.request(ptr+"/"+string(st.Kind), scope, st.Kind, kinds[st.Kind], false)
	}
	if st.Pattern != nil && st.Pattern.Answer != nil && st.Request != nil {
		want := st.Pattern.Answer.Structure()
		got := ""
		if st.Request.Index != nil {
			got = st.Request.Index.Name
		} else if st.Request.Table != nil {
			got = st.Request.Table.Name
		}
		if got != "" && got != want {
			r.errf(ptr+"/pattern", "%s is answered by %s, but this step uses %s", st.Pattern.ID, want, got)
		}
	}
	for i, bn := range rs.Bind {
		bptr := fmt.Sprintf("%s/bind/%d", ptr, i)
		if st.Kind != Get && st.Kind != Query && st.Kind != Scan {
			r.errf(bptr, "only reads bind attributes for later steps")
			break
		}
		e := (*Entity)(nil)
		if st.Request != nil {
			e = st.Request.Entity
		}
		a := r.attrRef(bptr, bn)
		if a == nil {
			continue
		}
		if e != nil && e.Has(bn) == "" {
			r.errf(bptr, "entity %s does not carry %s", e.Name, bn)
		}
		if st.Request != nil && len(st.Request.Projection) > 0 && !contains(st.Request.Projection, bn) {
			r.errf(bptr, "%s is bound but not in the projection", bn)
		}
		if st.Request != nil && st.Request.Index != nil && !st.Request.Index.Projects(bn) {
			r.errAt(bptr, false, fmt.Sprintf("add %s to the projection of %s", bn, st.Request.Index.Name), "%s is bound, but index %s does not project it: its entries do not hold it", bn, st.Request.Index.Name)
		}
		scope.bind(bn, a.Type)
		st.Bind = append(st.Bind, bn)
	}
	return st
}

// overlap reports whether two steps can run in the same variant.
func overlap(a, b *Step) bool {
	if len(a.Variants) == 0 || len(b.Variants) == 0 {
		return true
	}
	for _, v := range a.Variants {
		if b.In(v) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func keyText(key []Assign) string {
	var b strings.Builder
	for _, a := range key {
		b.WriteString(a.Attribute + "=")
		if a.Value.Param != "" {
			b.WriteString("{" + a.Value.Param + "}")
		} else if a.Value.Template != nil {
			b.WriteString(a.Value.Template.Text)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// fieldsSet lists the request fields present, for the per-kind rules.
func fieldsSet(rr *rawRequest) []string {
	var f []string
	add := func(ok bool, name string) {
		if ok {
			f = append(f, name)
		}
	}
	add(rr.Table != "", "table")
	add(rr.Index != "", "index")
	add(rr.Entity != "", "entity")
	add(rr.Key != nil, "key")
	add(rr.Item != nil, "item")
	add(rr.Update != "", "update")
	add(rr.Condition != "", "condition")
	add(rr.Filter != "", "filter")
	add(rr.Projection != nil, "projection")
	add(rr.Names != nil, "names")
	add(rr.Values != nil, "values")
	add(rr.ReturnValues != "", "returnValues")
	add(rr.ReturnValuesOnConditionCheckFailure != "", "returnValuesOnConditionCheckFailure")
	add(rr.ConsistentRead, "consistentRead")
	add(rr.Order != "", "order")
	add(rr.PageSize != 0, "pageSize")
	add(rr.Shards != nil, "shards")
	add(rr.OnConditionFailed != nil, "onConditionFailed")
	add(rr.OnMissing != nil, "onMissing")
	add(rr.Before != nil, "before")
	add(rr.After != nil, "after")
	add(rr.Sample != nil, "sample")
	add(rr.Matches != nil, "matches")
	return f
}

var allowedFields = map[StepKind]string{
	Get:            "table entity key projection names consistentRead onMissing sample",
	Put:            "table entity key item condition names values returnValues returnValuesOnConditionCheckFailure onConditionFailed before after",
	Update:         "table entity key update condition names values returnValues returnValuesOnConditionCheckFailure onConditionFailed before after",
	Delete:         "table entity key condition names values returnValues returnValuesOnConditionCheckFailure onConditionFailed before after",
	ConditionCheck: "table entity key condition names values returnValuesOnConditionCheckFailure onConditionFailed before",
	Query:          "table index entity key filter projection names values consistentRead order pageSize shards matches",
	Scan:           "table index entity filter projection names values consistentRead pageSize matches",
}

func (r *resolver) request(ptr string, scope *opScope, kind StepKind, rr *rawRequest, inTx bool) *Request {
	allowed := strings.Fields(allowedFields[kind])
	for _, f := range fieldsSet(rr) {
		if !contains(allowed, f) {
			r.errAt(ptr+"/"+f, true, "", "%s does not apply to %s", f, an(string(kind)))
		}
	}
	q := &Request{Update: rr.Update, Condition: rr.Condition, Filter: rr.Filter, Projection: rr.Projection, Names: rr.Names,
		ReturnValues: rr.ReturnValues, ReturnValuesOnConditionCheckFailure: rr.ReturnValuesOnConditionCheckFailure,
		ConsistentRead: rr.ConsistentRead, Order: rr.Order, PageSize: rr.PageSize, Shards: rr.Shards,
		OnConditionFailed: rr.OnConditionFailed, OnMissing: rr.OnMissing, sep: r.m.Separator}
	if !r.requestTarget(ptr, kind, q, rr) {
		return nil
	}
	e := q.Entity
	// Keys.
	switch kind {
	case Query:
		if rr.Key == nil {
			r.errAt(ptr, true, "", "a query needs its key condition")
		} else {
			q.KeyCondition = r.keyConditions(ptr+"/key", rr.Key, q.Table, q.Index, scope.avail)
			r.checkRanges(ptr+"/key", q.KeyCondition, scope.op.Params, func(n string) bool { _, ok := scope.params[n]; return ok })
		}
		// The question's consistency is checked where the step names its
		// pattern (consistency.go); here only the read itself.
		r.checkReadShape(ptr, "", q.Index, "Query", q.ConsistentRead, q.Shards)
		r.indexProjects(ptr, q)
		if rr.Matches == nil {
			r.errAt(ptr, true, "list the entity samples a page matches, for the static estimate", "a query needs matches")
		}
		r.matches(ptr, q, rr)
	case Scan:
		if q.Index != nil && !q.Index.Local && q.ConsistentRead {
			r.errf(ptr+"/consistentRead", "global index %s cannot be read with strong consistency", q.Index.Name)
		}
		r.indexProjects(ptr, q)
		r.matches(ptr, q, rr) // optional: without them the scan reads everything
	case Put:
		r.putItem(ptr, scope, e, q, rr)
	default:
		if e != nil {
			q.Key = r.stepKey(ptr, scope, e, q.Table, rr.Key, nil)
		}
	}
	for i, a := range q.Projection {
		if at := r.attrRef(fmt.Sprintf("%s/projection/%d", ptr, i), a); at != nil && e != nil && e.Has(a) == "" {
			r.errf(fmt.Sprintf("%s/projection/%d", ptr, i), "entity %s does not carry %s", e.Name, a)
		}
	}
	// Expressions.
	if kind == Update && q.Update == "" {
		r.errAt(ptr, true, "", "an update needs its update expression")
	}
	if kind == ConditionCheck && q.Condition == "" {
		r.errAt(ptr, true, "", "a condition check needs its condition")
	}
	if q.OnConditionFailed != nil && q.Condition == "" {
		r.errf(ptr+"/onConditionFailed", "onConditionFailed without a condition")
	}
	if q.Condition != "" && q.OnConditionFailed == nil {
		r.errAt(ptr+"/condition", false, "declare onConditionFailed: what a failed condition means (already applied, do not contact, retry)", "a condition without onConditionFailed")
	}
	if (kind == Put || kind == Delete) && q.ReturnValues != "" && q.ReturnValues != "NONE" && q.ReturnValues != "ALL_OLD" {
		r.errf(ptr+"/returnValues", "%s returns NONE or ALL_OLD only", an(string(kind)))
	}
	if inTx && q.ReturnValues != "" {
		r.errf(ptr+"/returnValues", "transaction actions do not return values")
	}
	r.expressions(ptr, scope, q, rr, kind)
	if e != nil {
		r.requestSamples(ptr, kind, e, q, rr)
	}
	return q
}

// requestTarget resolves the entity, table and index a request names; a
// request naming none of them reads the model's only table. It reports
// false when the request addresses nothing.
func (r *resolver) requestTarget(ptr string, kind StepKind, q *Request, rr *rawRequest) bool {
	if rr.Entity != "" {
		e, ok := r.ents[rr.Entity]
		if !ok {
			r.errAt(ptr+"/entity", false, didYouMean(rr.Entity, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", rr.Entity)
			return false
		}
		q.Entity = e
		q.Table = e.Table
	} else if kind != Query && kind != Scan {
		r.errAt(ptr, true, "", "%s names the entity it reads or writes", an(string(kind)))
		return false
	}
	if rr.Table != "" {
		t, ok := r.tables[rr.Table]
		if !ok {
			r.errAt(ptr+"/table", false, didYouMean(rr.Table, slices.Sorted(maps.Keys(r.tables))), "unknown table %q", rr.Table)
			return false
		}
		if q.Table != nil && q.Table != t {
			r.errf(ptr+"/table", "entity %s lives in table %s, not %s", q.Entity.Name, q.Table.Name, t.Name)
		}
		q.Table = t
	}
	if rr.Index != "" {
		x, ok := r.idx[rr.Index]
		if !ok {
			r.errAt(ptr+"/index", false, didYouMean(rr.Index, slices.Sorted(maps.Keys(r.idx))), "unknown index %q", rr.Index)
			return false
		}
		if q.Table != nil && x.Table != q.Table {
			r.errf(ptr+"/index", "index %s belongs to table %s", x.Name, x.Table.Name)
		}
		q.Index, q.Table = x, x.Table
	}
	if q.Table == nil {
		if len(r.m.Tables) == 1 {
			q.Table = r.m.Tables[0]
		} else {
			r.errAt(ptr, true, "", "%s names its table, index or entity", an(string(kind)))
			return false
		}
	}
	return true
}

// indexProjects checks that a read of an index asks only for the
// attributes the index projects.
func (r *resolver) indexProjects(ptr string, q *Request) {
	if q.Index != nil && q.Index.Projection.Type != "ALL" {
		for i, a := range q.Projection {
			if !q.Index.Projects(a) {
				r.errf(fmt.Sprintf("%s/projection/%d", ptr, i), "index %s does not project %s", q.Index.Name, a)
			}
		}
	}
}

// putItem resolves a put's item: attributes the entity stores, each
// operand checked, the required ones present, and the key built from it.
func (r *resolver) putItem(ptr string, scope *opScope, e *Entity, q *Request, rr *rawRequest) {
	if rr.Item == nil {
		r.errAt(ptr, true, "", "a put needs its item")
	}
	for _, an := range slices.Sorted(maps.Keys(rr.Item)) {
		iptr := ptr + "/item/" + escapePtr(an)
		a := r.attrRef(iptr, an)
		if a == nil {
			continue
		}
		if e != nil && (e.Has(an) == "" || e.Has(an) == KeyOnly) {
			r.errAt(iptr, true, "", "entity %s does not store %s", e.Name, an)
			continue
		}
		o, err := parseOperand(rr.Item[an])
		if err != nil {
			r.errf(iptr, "%v", err)
			continue
		}
		r.checkOperand(iptr, o, a, scope.avail)
		r.checkLiteral(iptr, o, a)
		q.Item = append(q.Item, Assign{an, o})
	}
	if e != nil {
		var missing []string
		for _, ea := range e.Attributes {
			// A required attribute with a presence rule is absent in
			// some states: the put may leave it out.
			if ea.Presence == Required && len(ea.When) == 0 && len(ea.Unless) == 0 && !r.broken["presence:"+e.Name+"."+ea.Name] && !naturalKey(e, ea.Name) {
				if _, ok := rr.Item[ea.Name]; !ok {
					missing = append(missing, ea.Name)
				}
			}
		}
		if len(missing) > 0 {
			r.errAt(ptr+"/item", true, "", "a put of %s must write its required attributes: %s", e.Name, strings.Join(missing, ", "))
		}
		items := map[string]Operand{}
		for _, a := range q.Item {
			items[a.Attribute] = a.Value
		}
		q.Key = r.stepKey(ptr, scope, e, q.Table, rr.Key, items)
	}
}

// requestSamples resolves the samples a step names for the static
// estimate: before and after for writes, the read item for a get.
func (r *resolver) requestSamples(ptr string, kind StepKind, e *Entity, q *Request, rr *rawRequest) {
	need := func(field string, v *string) string {
		if v == nil {
			r.errAt(ptr, true, "name the sample the estimate uses, or absent", "%s needs %s", an(string(kind)), field)
			return ""
		}
		r.sampleRef(ptr+"/"+field, e, *v)
		return *v
	}
	switch kind {
	case Get:
		q.Sample = need("sample", rr.Sample)
	case Put, Update:
		q.Before = need("before", rr.Before)
		// after is optional: the catalog computes the item a write
		// leaves, and checks a named after against it (images.go).
		if rr.After != nil {
			r.sampleRef(ptr+"/after", e, *rr.After)
			q.After = *rr.After
		}
		if q.After == Absent {
			r.errf(ptr+"/after", "%s leaves an item behind; after cannot be absent", an(string(kind)))
		}
	case Delete:
		q.Before = need("before", rr.Before)
		q.After = Absent
	case ConditionCheck:
		q.Before = need("before", rr.Before)
	}
}

// stepKey builds the key a step addresses: each table key attribute the
// step's own key gives (a template such as EXT#PAYMENT#{paymentId}, held
// to the shape of the entity's template), the others from the entity's
// templates. A template placeholder is filled from what the put writes
// for that attribute (system: PAYMENT makes EXT#{system}#... EXT#PAYMENT#...)
// or else from the parameters and bound attributes.
func (r *resolver) stepKey(ptr string, scope *opScope, e *Entity, t *Table, explicit map[string]json.RawMessage, items map[string]Operand) []Assign {
	for _, k := range slices.Sorted(maps.Keys(explicit)) {
		if k != t.PartitionKey && k != t.SortKey {
			r.errAt(ptr+"/key/"+escapePtr(k), true, didYouMean(k, t.KeyAttributes()), "%s is not a key attribute of table %s", k, t.Name)
		}
	}
	var out []Assign
	for _, kp := range e.Key {
		k := kp.Attribute
		if raw, ok := explicit[k]; ok {
			kptr := ptr + "/key/" + escapePtr(k)
			o, err := parseOperand(raw)
			if err != nil {
				r.errf(kptr, "%v", err)
				continue
			}
			r.checkOperand(kptr, o, r.attrs[k], scope.avail)
			r.checkLiteral(kptr, o, r.attrs[k])
			r.keyShape(kptr, e, kp, o, items)
			out = append(out, Assign{k, o})
			continue
		}
		tmpl, ok := r.fillKey(ptr, scope, e, kp.Template, items)
		switch {
		case !ok:
		case kp.Type != attr.S && len(tmpl.Parts) == 1 && tmpl.Parts[0].Attr != "":
			// A numeric (or binary) key takes its placeholder's value.
			out = append(out, Assign{k, Operand{Param: tmpl.Parts[0].Attr}})
		case kp.Type != attr.S && len(tmpl.Parts) == 1:
			v := attr.Value{Type: kp.Type, Str: tmpl.Parts[0].Literal}
			out = append(out, Assign{k, Operand{Literal: &v}})
		default:
			out = append(out, Assign{k, Operand{Template: tmpl}})
		}
	}
	return out
}

// fillKey returns the entity's key template with the placeholders the put
// writes replaced by what it writes (a constant becomes literal text, a
// parameter a placeholder of its own); the other placeholders must be in
// the scope.
func (r *resolver) fillKey(ptr string, scope *opScope, e *Entity, kt *KeyTemplate, items map[string]Operand) (*KeyTemplate, bool) {
	ok := true
	changed := false
	var parts []Part
	for _, part := range kt.Parts {
		if part.Attr == "" {
			parts = append(parts, part)
			continue
		}
		if o, has := items[part.Attr]; has {
			switch {
			case o.Param != "":
				typ, _ := scope.avail("", o.Param)
				parts = append(parts, Part{Attr: o.Param, Width: part.Width, Type: typ})
				changed = changed || o.Param != part.Attr
				continue
			case o.Literal != nil && o.Literal.Type.IsScalar() && o.Literal.Type != attr.B:
				text, err := renderPart(part, *o.Literal)
				if err == nil {
					parts = append(parts, Part{Literal: text})
					changed = true
					continue
				}
			case o.Template != nil && part.Width == 0:
				parts = append(parts, o.Template.Parts...)
				changed = true
				continue
			}
		}
		if _, has := scope.avail("", part.Attr); !has {
			r.errAt(ptr, true, didYouMean(part.Attr, scope.names), "the key of %s needs {%s}, which is neither a parameter nor bound by an earlier step", e.Name, part.Attr)
			ok = false
		}
		parts = append(parts, part)
	}
	if !ok {
		return nil, false
	}
	if !changed {
		return kt, true
	}
	// Adjacent literals merge, so that the template reads as written.
	var merged []Part
	var text strings.Builder
	for _, part := range parts {
		if part.Attr == "" && len(merged) > 0 && merged[len(merged)-1].Attr == "" {
			merged[len(merged)-1].Literal += part.Literal
		} else {
			merged = append(merged, part)
		}
	}
	for _, part := range merged {
		if part.Attr == "" {
			text.WriteString(part.Literal)
			continue
		}
		text.WriteString("{" + part.Attr)
		if part.Width > 0 {
			fmt.Fprintf(&text, ":%0*d", part.Width, 0)
		}
		text.WriteString("}")
	}
	return &KeyTemplate{Text: text.String(), Parts: merged}, true
}

// keyShape holds a key a step spells out to the shape of the entity's
// template: rendered, it must read back through the template, and the
// fixed parts it puts where the template has placeholders must be values
// of those attributes (and agree with what a put writes for them).
func (r *resolver) keyShape(ptr string, e *Entity, kp KeyPart, o Operand, items map[string]Operand) {
	if o.Template == nil {
		return
	}
	// Each placeholder of the step's template stands for a value no
	// literal of the entity's template can be mistaken for.
	probe := map[string]attr.Value{}
	for i, ph := range o.Template.Placeholders() {
		probe[ph] = attr.Str(fmt.Sprintf("\x00%d\x00", i))
	}
	for _, part := range o.Template.Parts {
		if part.Attr != "" && part.Width > 0 {
			probe[part.Attr] = attr.Num(strings.Repeat("7", part.Width))
		}
	}
	text, err := o.Template.Render(probe)
	if err != nil {
		return
	}
	got, ok := kp.Template.Match(text)
	if !ok {
		r.errAt(ptr, false, fmt.Sprintf("%s's %s is %s", e.Name, kp.Attribute, kp.Template.Text), "%q does not have the shape of the template of %s", o.Template.Text, e.Name)
		return
	}
	for _, ph := range slices.Sorted(maps.Keys(got)) {
		v := got[ph]
		if strings.Contains(v, "\x00") {
			continue // a placeholder of the step's own
		}
		a := r.attrs[ph]
		if a == nil {
			continue
		}
		var val attr.Value
		switch a.Type {
		case attr.N:
			val = attr.Num(strings.TrimLeft(v, "0"))
			if val.Str == "" {
				val.Str = "0"
			}
		default:
			val = attr.Str(v)
		}
		if err := a.Check(val); err != nil {
			r.errf(ptr, "the fixed part %q stands for %s: %v", v, ph, err)
			continue
		}
		if w, has := items[ph]; has && w.Literal != nil && !attr.Equal(*w.Literal, val) {
			r.errf(ptr, "the key fixes %s to %s, but the item writes %s", ph, v, valueText(*w.Literal))
		}
	}
}

// expressions parses the update, condition and filter of a request with
// the expression grammar of the engine, over the request's names and a
// value of the right type for each of its values, then checks what only
// the model knows: the attributes the expressions name are declared and
// carried by the entity.
func (r *resolver) expressions(ptr string, scope *opScope, q *Request, rr *rawRequest, kind StepKind) {
	values := map[string]attr.Value{}
	var samples []string
	for _, v := range slices.Sorted(maps.Keys(rr.Values)) {
		vptr := ptr + "/values/" + escapePtr(v)
		o, err := parseOperand(rr.Values[v])
		if err != nil {
			r.errf(vptr, "%v", err)
			continue
		}
		r.checkOperand(vptr, o, nil, scope.avail)
		q.Values = append(q.Values, NamedValue{v, o})
		if val, sample, ok := representative(o, scope); ok {
			values[v] = val
			if sample {
				samples = append(samples, v)
			}
		}
	}
	sc := expr.NewScope(q.Names, values).Samples(samples...)
	parsed := true
	checked := map[string]bool{}
	var uses []expr.Use
	for _, ex := range []struct{ field, text string }{{"update", q.Update}, {"condition", q.Condition}, {"filter", q.Filter}} {
		if ex.text == "" {
			continue
		}
		eptr := ptr + "/" + ex.field
		var attrs []string
		var err error
		switch ex.field {
		case "update":
			var u *expr.Update
			if u, err = sc.Update(ex.text); err == nil {
				for _, a := range u.Attrs() {
					r.updated[a] = append(r.updated[a], scope.op.Name)
				}
				attrs = append(u.Attrs(), u.Reads()...)
				uses = append(uses, u.Uses()...)
			}
		case "condition", "filter":
			var c *expr.Condition
			if ex.field == "condition" {
				c, err = sc.Condition(ex.text)
			} else {
				c, err = sc.Filter(ex.text)
			}
			if err == nil {
				attrs = c.Attrs()
				uses = append(uses, c.Uses()...)
			}
		}
		if err != nil {
			parsed = false
			r.exprError(eptr, err, q.Names, rr.Values)
			continue
		}
		for _, a := range attrs {
			if !checked[a] {
				checked[a] = true
				r.exprAttr(ptr, eptr, ex.field, a, q, kind)
			}
		}
	}
	if !parsed {
		return // what the failed expressions use is unknown
	}
	r.valueDomains(ptr, scope, q, uses)
	names, unusedValues := sc.Unused()
	for _, n := range names {
		r.errAt(ptr+"/names/"+escapePtr(n), true, "", "%s is defined but not used (DynamoDB rejects unused names)", n)
	}
	for _, v := range unusedValues {
		r.errAt(ptr+"/values/"+escapePtr(v), true, "", "%s is defined but not used (DynamoDB rejects unused values)", v)
	}
}

// valueDomains holds the values an expression assigns or compares equal
// to the domain of the path they meet: a constant as written, a
// parameter by its sample when the parameter stands for another
// attribute. Each value is reported once, at its definition.
func (r *resolver) valueDomains(ptr string, scope *opScope, q *Request, uses []expr.Use) {
	operands := map[string]Operand{}
	for _, nv := range q.Values {
		operands[nv.Name] = nv.Value
	}
	done := map[string]bool{}
	for _, u := range uses {
		o, ok := operands[u.Value]
		if !ok || done[u.Value] {
			continue
		}
		var v attr.Value
		what := ""
		switch {
		case o.Literal != nil:
			v = *o.Literal
		case o.Template != nil && o.Template.IsConstant():
			v = attr.Str(o.Template.Text)
		case o.Param != "":
			prm := scope.op.Param(o.Param)
			if prm == nil || prm.Sample == nil || prm.Attribute != nil && prm.Attribute.Name == u.Path.Attr() && len(u.Path) == 1 {
				continue // bound, without a sample, or already held to this attribute's domain
			}
			v = *prm.Sample
			what = fmt.Sprintf("the sample of parameter %s, ", o.Param)
		default:
			continue
		}
		check, name := r.pathDomain(u.Path)
		if check == nil {
			continue
		}
		var err error
		verb := "assigned to"
		switch u.How {
		case expr.Assigned:
			err = check(v)
		case expr.Equal:
			verb = "compared with"
			if err = check(v); err != nil {
				err = fmt.Errorf("%w: the comparison can never hold", err)
			}
		case expr.Elements:
			verb = "added to"
			err = r.elements(u.Path, v)
		default:
			continue
		}
		if err != nil {
			done[u.Value] = true
			r.errf(ptr+"/values/"+escapePtr(u.Value), "%s is %s%s %s: %v", u.Value, what, verb, name, err)
		}
	}
}

// pathDomain returns the check of the attribute, element or member a
// document path reaches, and how to name it; nil when the dictionary
// does not declare one.
func (r *resolver) pathDomain(path expr.Path) (func(attr.Value) error, string) {
	a := r.attrs[path.Attr()]
	if a == nil {
		return nil, ""
	}
	if len(path) == 1 {
		return a.Check, a.Name
	}
	d := &a.Domain
	var mb *Member
	for _, s := range path[1:] {
		switch {
		case s.IsIndex() && d.Items != nil:
			mb = d.Items
		case !s.IsIndex() && len(d.Fields) > 0:
			mb = fieldOf(d, s.Name)
		default:
			mb = nil
		}
		if mb == nil {
			return nil, ""
		}
		d = &mb.Domain
	}
	return mb.Check, path.String()
}

// elements checks the elements a value adds to (or removes from) a list
// or a set against the domain of the path's elements.
func (r *resolver) elements(path expr.Path, v attr.Value) error {
	a := r.attrs[path.Attr()]
	if a == nil || len(path) != 1 || a.Items == nil {
		return nil
	}
	switch {
	case v.Type == attr.L:
		for i, e := range v.List {
			if err := a.Items.Check(e); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	case v.Type.IsSet():
		elem := map[attr.Type]attr.Type{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[v.Type]
		for _, m := range v.Set {
			if err := a.Items.Check(attr.Value{Type: elem, Str: m}); err != nil {
				return fmt.Errorf("member %q: %w", m, err)
			}
		}
	}
	return nil
}

// exprError reports an expression the grammar rejects, in DynamoDB's
// words, with a hint for the mistakes a model makes most.
func (r *resolver) exprError(eptr string, err error, names map[string]string, values map[string]json.RawMessage) {
	var e *expr.Error
	if !errors.As(err, &e) {
		r.errf(eptr, "%v", err)
		return
	}
	hint := ""
	switch s := e.Subject; {
	case s == "":
	case s[0] == ':':
		if _, ok := values[s]; ok {
			return // defined but unusable: reported at the value
		}
		if hint = didYouMean(s, slices.Sorted(maps.Keys(values))); hint == "" {
			hint = "define " + s + " under values"
		}
	case s[0] == '#':
		if hint = didYouMean(s, slices.Sorted(maps.Keys(names))); hint == "" {
			hint = fmt.Sprintf("define it under names: {%q: attribute}", s)
		}
	default:
		hint = fmt.Sprintf("write #%s and add names: {\"#%s\": %s}", s, s, s)
	}
	r.errAt(eptr, false, hint, "%s", e.Msg)
}

// exprAttr checks an attribute an expression names at the top level:
// declared, and carried by the entity (a query's filter may also read the
// other entities of the page). A name placeholder's attribute is reported
// at the name.
func (r *resolver) exprAttr(ptr, eptr, field, name string, q *Request, kind StepKind) {
	at := eptr
	for _, n := range slices.Sorted(maps.Keys(q.Names)) {
		if q.Names[n] == name {
			at = ptr + "/names/" + escapePtr(n)
			break
		}
	}
	if _, ok := r.attrs[name]; !ok {
		if at == eptr {
			r.errAt(at, false, r.attrHint(name), "unknown attribute %q in %s expression", name, field)
		} else {
			r.attrRef(at, name)
		}
		return
	}
	if q.Entity != nil && q.Entity.Has(name) == "" && kind != Query {
		r.errf(at, "entity %s does not carry %s", q.Entity.Name, name)
	}
}

// representative is a value for the grammar to type an expression value
// with: a literal is itself; a parameter, or a template with
// placeholders, is a sample of its type (sample is then true). ok is
// false when the type is unknown, which is reported where the value is
// defined.
func representative(o Operand, scope *opScope) (v attr.Value, sample, ok bool) {
	switch {
	case o.Literal != nil:
		return *o.Literal, false, true
	case o.Template != nil && o.Template.IsConstant():
		return attr.Str(o.Template.Text), false, true
	case o.Template != nil:
		return attr.Str("x"), true, true
	case o.Param != "":
		v, ok := sampleOf(scope.params[o.Param])
		return v, true, ok
	case o.IsList:
		out := make([]attr.Value, 0, len(o.List))
		for _, e := range o.List {
			v, s, ok := representative(e, scope)
			if !ok {
				return attr.Value{}, false, false
			}
			out = append(out, v)
			sample = sample || s
		}
		return attr.ListOf(out...), sample, true
	case o.IsMap:
		it := make(attr.Item, 0, len(o.Map))
		for _, m := range o.Map {
			v, s, ok := representative(m.Value, scope)
			if !ok {
				return attr.Value{}, false, false
			}
			it = append(it, attr.Field{Name: m.Attribute, Value: v})
			sample = sample || s
		}
		return attr.MapOf(it), sample, true
	}
	return attr.Value{}, false, false
}

// sampleOf returns some value of type t.
func sampleOf(t attr.Type) (attr.Value, bool) {
	switch t {
	case attr.S:
		return attr.Str("x"), true
	case attr.N:
		return attr.Num("0"), true
	case attr.B:
		return attr.Bin([]byte{0}), true
	case attr.BOOL:
		return attr.Bool(false), true
	case attr.NULL:
		return attr.Null(), true
	case attr.M:
		return attr.MapOf(nil), true
	case attr.L:
		return attr.ListOf(), true
	case attr.SS:
		return attr.StrSet("x"), true
	case attr.NS:
		return attr.NumSet("0"), true
	case attr.BS:
		return attr.BinSet("\x00"), true
	}
	return attr.Value{}, false
}

// matches resolves what a query page (or a scan) matches.
func (r *resolver) matches(ptr string, q *Request, rr *rawRequest) {
	for i, mt := range rr.Matches {
		mptr := fmt.Sprintf("%s/matches/%d", ptr, i)
		me, ok := r.ents[mt.Entity]
		if !ok {
			r.errAt(mptr+"/entity", false, didYouMean(mt.Entity, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", mt.Entity)
			continue
		}
		if q.Index != nil && !r.broken[q.Index.Name] && !containsEntity(q.Index.Entries, me) {
			r.errf(mptr+"/entity", "%s items never enter index %s", me.Name, q.Index.Name)
		}
		r.sampleRef(mptr+"/sample", me, mt.Sample)
		q.Matches = append(q.Matches, Match{me, mt.Sample, mt.Count})
	}
}

// checkShares makes the variants' shares of runs, when declared, cover
// every variant and add up to 1: a monthly figure weighs them.
func (r *resolver) checkShares(ptr string, op *Operation) {
	var sum float64
	var with, without []string
	for _, b := range op.Budgets {
		if b.Share == nil {
			without = append(without, b.Name)
			continue
		}
		with = append(with, b.Name)
		sum += *b.Share
	}
	switch {
	case len(with) == 0:
	case len(without) > 0:
		r.errAt(ptr+"/"+escapePtr(without[0]), true, "give every variant its share, or none", "variant %s has no share while %s declares one", without[0], with[0])
	case sum < 0.999 || sum > 1.001:
		r.errf(ptr, "the variants' shares add up to %v, not 1", sum)
	}
}
