package generator

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
)

// The requests of the generated code are printed from the executor's
// compiled plans (executor.Compile): the same key condition text, names,
// value placeholders and operands, update expression (with the synthetic
// keys it maintains), projection, page size and order. Only the values
// are computed by the generated code, from its typed inputs, so that for
// the same inputs it sends exactly the executor's requests.

// stepPlans compiles every path of an operation and returns the plan of
// each step and transaction action by id ("step" or "step/action").
func (p *plan) stepPlans(op *catalog.Operation) (map[string]*executor.StepPlan, error) {
	variants := []string{""}
	if len(op.Budgets) > 0 {
		variants = nil
		for _, b := range op.Budgets {
			variants = append(variants, b.Name)
		}
	}
	out := map[string]*executor.StepPlan{}
	for _, v := range variants {
		pl, err := executor.Compile(p.m, op, v, nil, p.o.Keys)
		if err != nil {
			return nil, err
		}
		for _, sp := range pl.Steps {
			if _, ok := out[sp.ID]; !ok {
				out[sp.ID] = sp
			}
			for _, a := range sp.Actions {
				if _, ok := out[a.ID]; !ok {
					out[a.ID] = a
				}
			}
		}
	}
	return out, nil
}

// answerPlan compiles an access pattern's read as a one-step operation.
func (p *plan) answerPlan(ap *catalog.AccessPattern) (*executor.StepPlan, error) {
	ans := ap.Answer
	q := &catalog.Request{Table: ans.Table, Index: ans.Index, KeyCondition: ans.Key, ConsistentRead: ans.ConsistentRead,
		Order: ans.Order, PageSize: ans.PageSize, Shards: ans.Shards}
	kind := catalog.Query
	if ans.Operation == "GetItem" {
		kind = catalog.Get
		for _, c := range ans.Key {
			if c.Op != catalog.OpEq || len(c.Operands) != 1 {
				return nil, fmt.Errorf("a GetItem needs an equality on %s", c.Attribute)
			}
			q.Key = append(q.Key, catalog.Assign{Attribute: c.Attribute, Value: c.Operands[0]})
		}
	}
	op := &catalog.Operation{Name: ap.ID, Params: ap.Params, Steps: []*catalog.Step{{ID: "answer", Kind: kind, Request: q}}}
	pl, err := executor.Compile(p.m, op, "", nil, p.o.Keys)
	if err != nil {
		return nil, err
	}
	return pl.Steps[0], nil
}

// callCode is a request being printed: statements that run first, the
// fields of its input literal, and whether they use the keyBuilder k.
type callCode struct {
	pre    string
	fields []string
	usesK  bool
}

// fail prints the statement returning an error (an expression).
type failFunc func(errExpr string) string

// keyCode prints the statements computing a request's table key into
// keyVar: the entity's key builder when the request keys the item by the
// entity's own templates, else the templates inline.
func (p *plan) keyCode(ep *entityPlan, tp *tablePlan, keys []catalog.Assign, sc scope, keyVar string, fail failFunc) (string, error) {
	own := ep != nil && len(keys) == len(ep.E.Key)
	for _, a := range keys {
		match := false
		if ep != nil {
			for _, k := range ep.E.Key {
				if k.Attribute != a.Attribute {
					continue
				}
				if a.Value.Template != nil && a.Value.Template.Text == k.Template.Text ||
					a.Value.Param != "" && k.Template.Text == "{"+a.Value.Param+"}" {
					match = true
				}
			}
		}
		own = own && match
	}
	if own {
		var args []string
		for _, f := range ep.KeyArgs {
			x, t, ok := sc(f.Attr.Name)
			if !ok {
				return "", fmt.Errorf("the key of %s needs {%s}", ep.E.Name, f.Attr.Name)
			}
			if t.Go() != f.T.Go() {
				x = f.T.Go() + "(" + x + ")"
			}
			args = append(args, x)
		}
		return fmt.Sprintf("%s, err := %s(%s)\nif err != nil {\n%s\n}\n", keyVar, ep.KeyFunc, strings.Join(args, ", "), fail("err")), nil
	}
	var fields []string
	for _, ka := range tp.Keys() {
		var val *catalog.Operand
		for i := range keys {
			if keys[i].Attribute == ka.Name {
				val = &keys[i].Value
			}
		}
		if val == nil {
			return "", fmt.Errorf("the request has no value for key %s", ka.Name)
		}
		x, err := p.keyOperand(tp, ka, *val, sc)
		if err != nil {
			return "", err
		}
		fields = append(fields, ka.Field+": "+x)
	}
	code := fmt.Sprintf("%s := %s{%s}\n", keyVar, tp.Key, strings.Join(fields, ", "))
	if strings.Contains(code, "k.") {
		p.use("keyBuilder")
		code = fmt.Sprintf("var k keyBuilder\n%sif k.err != nil {\n%s\n}\n", code, fail("k.err"))
	}
	return code, nil
}

// keyOperand prints a table key attribute's value (a Go value of the key
// field's type) from an operand.
func (p *plan) keyOperand(tp *tablePlan, ka *keyAttr, o catalog.Operand, sc scope) (string, error) {
	switch {
	case o.Template != nil && ka.T.kind == kString:
		return p.templateExpr(o.Template, sc)
	case o.Template != nil:
		return p.keyValue(tp, ka, o.Template, sc)
	case o.Param != "":
		y, t, ok := sc(o.Param)
		if !ok {
			return "", fmt.Errorf("no value for {%s}", o.Param)
		}
		if t.Go() != ka.T.Go() {
			return ka.T.Go() + "(" + y + ")", nil
		}
		return y, nil
	case o.Literal != nil && ka.T.kind == kString:
		return quote(o.Literal.Str), nil
	case o.Literal != nil:
		return o.Literal.Str, nil
	}
	return "", fmt.Errorf("no value for key %s", ka.Name)
}

// writeCall prints a get, put, update, delete or condition check from its
// plan.
func (p *plan) writeCall(sp *executor.StepPlan, sc scope, keyVar string, fail failFunc) (callCode, error) {
	var cc callCode
	tp := p.tableByN[sp.ModelTable.Name]
	var ep *entityPlan
	if sp.Entity != nil {
		ep = p.entityByN[sp.Entity.Name]
	}
	fields := []string{fmt.Sprintf("TableName: aws.String(c.tables.%s)", tp.Field)}
	keyAssigns := sp.Key
	keyScope := sc
	if sp.Kind == catalog.Put {
		// A key part the put's item fixes (system: PAYMENT) comes from the
		// item, as the catalog renders it.
		assigned := map[string]catalog.Operand{}
		for _, a := range sp.Item {
			assigned[a.Attribute] = a.Value
		}
		keyScope = func(name string) (string, *gotype, bool) {
			if o, ok := assigned[name]; ok {
				if x, t, ok := p.operandGo(o, name, sc); ok {
					return x, t, true
				}
			}
			return sc(name)
		}
	}
	pre, err := p.keyCode(ep, tp, keyAssigns, keyScope, keyVar, fail)
	if err != nil {
		return cc, err
	}
	cc.pre = pre
	if sp.Kind == catalog.Put {
		var items []string
		values := map[string]catalog.Operand{}
		for _, a := range sp.Item {
			values[a.Attribute] = a.Value
			var x string
			if ka := tableKeyAttr(tp, a.Attribute); ka != nil {
				x = p.encode(ka.T, keyVar+"."+ka.Field)
			} else {
				x, err = p.assignValue(a, sc)
				if err != nil {
					return cc, fmt.Errorf("attribute %s: %w", a.Attribute, err)
				}
			}
			items = append(items, quote(a.Attribute)+": "+x)
		}
		// Synthetic keys: each one whose template's attributes the item
		// holds, rendered from them (the executor's SyntheticWrites).
		for _, sw := range sp.SyntheticWrites {
			ok := true
			for _, ph := range sw.Template.Placeholders() {
				if _, has := values[ph]; !has {
					ok = false
				}
			}
			if !ok {
				continue
			}
			x, err := p.templateExpr(sw.Template, func(name string) (string, *gotype, bool) {
				return p.operandGo(values[name], name, sc)
			})
			if err != nil {
				return cc, fmt.Errorf("synthetic key %s: %w", sw.Attribute, err)
			}
			p.use("stringValue")
			items = append(items, quote(sw.Attribute)+": stringValue("+x+")")
		}
		fields = append(fields, "Item: map[string]types.AttributeValue{\n"+strings.Join(items, ",\n")+",\n}")
	} else {
		fields = append(fields, "Key: "+keyVar+".item()")
	}
	if sp.Update != "" {
		fields = append(fields, "UpdateExpression: aws.String("+quote(sp.Update)+")")
	}
	if sp.Condition != "" {
		fields = append(fields, "ConditionExpression: aws.String("+quote(sp.Condition)+")")
	}
	if sp.Projection != "" {
		fields = append(fields, "ProjectionExpression: aws.String("+quote(sp.Projection)+")")
	}
	if sp.Kind != catalog.Get || sp.Projection != "" {
		if n := namesCode(sp.Names); n != "" {
			fields = append(fields, "ExpressionAttributeNames: "+n)
		}
	}
	if sp.Kind != catalog.Get {
		var vals []valueCode
		for _, nv := range sp.Values {
			x, err := p.operandCode(nv.Value, sc)
			if err != nil {
				return cc, fmt.Errorf("value %s: %w", nv.Name, err)
			}
			vals = append(vals, valueCode{nv.Name, x})
		}
		if sp.Kind == catalog.Update {
			syn, err := p.syntheticValues(sp, sc)
			if err != nil {
				return cc, err
			}
			vals = append(vals, syn...)
		}
		if vc := valuesCode(vals); vc != "" {
			fields = append(fields, "ExpressionAttributeValues: "+vc)
		}
	}
	if sp.ConsistentRead {
		fields = append(fields, "ConsistentRead: aws.Bool(true)")
	}
	if sp.ReturnValues != "" {
		fields = append(fields, "ReturnValues: types.ReturnValue("+quote(sp.ReturnValues)+")")
	}
	if sp.ReturnValuesOnConditionCheckFailure != "" {
		fields = append(fields, "ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure("+quote(sp.ReturnValuesOnConditionCheckFailure)+")")
	}
	cc.fields = fields
	cc.usesK = strings.Contains(strings.Join(fields, "\n"), "k.")
	return cc, nil
}

func tableKeyAttr(tp *tablePlan, name string) *keyAttr {
	for _, ka := range tp.Keys() {
		if ka.Name == name {
			return ka
		}
	}
	return nil
}

// assignValue prints an item attribute's value.
func (p *plan) assignValue(a catalog.Assign, sc scope) (string, error) {
	return p.operandCode(a.Value, sc)
}

// syntheticValues prints the values of the synthetic keys an update
// sets, each rendered from the sources the executor found for its
// template's attributes: the operand the update assigns, a parameter or
// bound attribute of the same name, or a computation of those.
func (p *plan) syntheticValues(sp *executor.StepPlan, sc scope) ([]valueCode, error) {
	var out []valueCode
	for _, sw := range sp.SyntheticWrites {
		if sw.Remove || sw.Placeholder == "" {
			continue
		}
		var source scope
		source = func(name string) (string, *gotype, bool) {
			src, ok := sw.Sources[name]
			switch {
			case !ok:
				return "", nil, false
			case src.Operand != nil:
				return p.operandGo(*src.Operand, name, sc)
			case src.Computed != nil && src.Computed.Kind == catalog.KindHashMod:
				cp := p.computedFor(name)
				if cp == nil {
					return "", nil, false
				}
				in, it, ok := source(src.Computed.Input)
				if !ok {
					in, it, ok = sc(src.Computed.Input)
				}
				if !ok {
					return "", nil, false
				}
				if want := p.valueType(p.m.Attribute(src.Computed.Input)); it.Go() != want.Go() {
					in = want.Go() + "(" + in + ")"
				}
				return cp.Func + "(" + in + ")", p.valueType(p.m.Attribute(name)), true
			}
			return "", nil, false
		}
		x, err := p.templateExpr(sw.Template, source)
		if err != nil {
			return nil, fmt.Errorf("synthetic key %s: %w", sw.Attribute, err)
		}
		p.use("stringValue")
		out = append(out, valueCode{sw.Placeholder, "stringValue(" + x + ")"})
	}
	return out, nil
}

// queryCall prints a query from its plan, for one shard when it fans
// out: the loop variable shardVar stands for the shard's value.
func (p *plan) queryCall(sp *executor.StepPlan, sc scope, shardVar string) (callCode, error) {
	var cc callCode
	tp := p.tableByN[sp.ModelTable.Name]
	fields := []string{fmt.Sprintf("TableName: aws.String(c.tables.%s)", tp.Field)}
	if sp.Index != nil {
		fields = append(fields, "IndexName: aws.String("+quote(sp.Index.Name)+")")
	}
	fields = append(fields, "KeyConditionExpression: aws.String("+quote(sp.KeyCondition)+")")
	if sp.Filter != "" {
		fields = append(fields, "FilterExpression: aws.String("+quote(sp.Filter)+")")
	}
	if sp.Projection != "" {
		fields = append(fields, "ProjectionExpression: aws.String("+quote(sp.Projection)+")")
	}
	if n := namesCode(sp.Names); n != "" {
		fields = append(fields, "ExpressionAttributeNames: "+n)
	}
	var vals []valueCode
	for _, nv := range sp.Values {
		x, err := p.operandCode(nv.Value, sc)
		if err != nil {
			return cc, fmt.Errorf("value %s: %w", nv.Name, err)
		}
		vals = append(vals, valueCode{nv.Name, x})
	}
	shardType := func(a string) *gotype {
		if at := p.m.Attribute(a); at != nil {
			return p.valueType(at)
		}
		return tInt
	}
	for i := range sp.KeyValues {
		kv := &sp.KeyValues[i]
		if !kv.IsSynthetic() {
			var x string
			if i == sp.ShardValue {
				x = p.shardValue(shardType(kv.Attribute), shardVar)
			} else {
				var err error
				if x, err = p.keyConditionValue(kv.Operand, sc); err != nil {
					return cc, fmt.Errorf("key condition on %s: %w", kv.Attribute, err)
				}
			}
			vals = append(vals, valueCode{kv.Placeholder, x})
			continue
		}
		x, err := p.syntheticKeyValue(sp, kv, sc, shardVar)
		if err != nil {
			return cc, err
		}
		vals = append(vals, valueCode{kv.Placeholder, x})
	}
	if vc := valuesCode(vals); vc != "" {
		fields = append(fields, "ExpressionAttributeValues: "+vc)
	}
	if sp.ConsistentRead {
		fields = append(fields, "ConsistentRead: aws.Bool(true)")
	}
	if sp.Descending {
		fields = append(fields, "ScanIndexForward: aws.Bool(false)")
	}
	if sp.Limit > 0 {
		fields = append(fields, fmt.Sprintf("Limit: aws.Int32(%d)", sp.Limit))
	}
	cc.fields = fields
	cc.usesK = strings.Contains(strings.Join(fields, "\n"), "k.")
	return cc, nil
}

// keyConditionValue prints a key condition's value: a template placed in
// a key refuses the separator, as the executor's does.
func (p *plan) keyConditionValue(o catalog.Operand, sc scope) (string, error) {
	return p.operandCode(o, sc)
}

// shardValue prints shard number v (an int64 loop variable) as a value
// of the shard attribute's type.
func (p *plan) shardValue(t *gotype, v string) string {
	if t.kind == kString {
		p.use("stringValue")
		return "stringValue(strconv.FormatInt(" + v + ", 10))"
	}
	p.use("intValue")
	return "intValue(" + v + ")"
}

// syntheticKeyValue prints a key condition value on a synthetic key: the
// template up to the constrained part rendered from the equalities, then
// the last operand (a begins_with prefix as it is, a bound formatted as
// its part), then U+10FFFF for the upper bound of a range the template
// continues after.
func (p *plan) syntheticKeyValue(sp *executor.StepPlan, kv *executor.KeyValue, sc scope, shardVar string) (string, error) {
	eq := map[string]catalog.Operand{}
	for _, c := range kv.Natural {
		eq[c.Attribute] = c.Operands[0]
	}
	natural := func(name string) (string, *gotype, bool) {
		if name == sp.ShardAttr && shardVar != "" {
			return shardVar, tInt, true
		}
		o, ok := eq[name]
		if !ok {
			return "", nil, false
		}
		return p.operandGo(o, name, sc)
	}
	parts := []string{}
	if len(kv.Prefix.Parts) > 0 {
		x, err := p.templateExpr(kv.Prefix, natural)
		if err != nil {
			return "", fmt.Errorf("key condition on %s: %w", kv.Attribute, err)
		}
		parts = append(parts, x)
	}
	if kv.Suffix != nil && kv.Part != nil {
		x, t, ok := p.operandGo(*kv.Suffix, kv.Part.Attr, sc)
		if !ok {
			return "", fmt.Errorf("key condition on %s: no value for %s", kv.Attribute, kv.Part.Attr)
		}
		w := kv.Part.Width
		if kv.Raw {
			w = 0
		}
		p.use("keyBuilder")
		parts = append(parts, p.text(t, kv.Part.Attr, x, w))
	}
	if kv.Max {
		parts = append(parts, quote("\U0010FFFF"))
	}
	if len(parts) == 0 {
		parts = []string{`""`}
	}
	p.use("stringValue")
	return "stringValue(" + strings.Join(parts, " + ") + ")", nil
}
