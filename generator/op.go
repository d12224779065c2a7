package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// opPlan is the Go face of a business operation: its input, result and
// the function sending its requests.
type opPlan struct {
	Op           *catalog.Operation
	Name         string
	Input        string
	Result       string
	Fields       []arg
	ResultFields []arg
	VariantType  string
	Variants     []variantPlan
	Doc          string
	Validate     string
	Body         string

	paths    map[string][]string // variant constant -> budget variants it covers
	pathOf   map[string]string   // budget variant -> variant constant
	bound    map[string]*gotype  // attributes bound by reads
	fan      map[string]bool     // parameters standing for a fan-out attribute
	usesK    bool
	failures []*failurePlan
}

type variantPlan struct{ Const, Value, Doc string }

// PathVariant returns the value of the operation's variant type that a
// budget variant takes (variants with the same steps share one), or ""
// when the operation has no variant choice. Tests use it to drive the
// generated code variant by variant.
func PathVariant(m *catalog.Model, op, variant string) string {
	o := m.Operation(op)
	if o == nil {
		return ""
	}
	groups := pathGroups(o)
	if groups == nil {
		return ""
	}
	for _, g := range groups {
		if slices.Contains(g.variants, variant) {
			return g.name
		}
	}
	return ""
}

type pathGroup struct {
	name     string   // the variant naming the path
	variants []string // every budget variant taking it
	steps    []string // step and action ids that run
}

// pathGroups groups an operation's budget variants by the steps they run;
// nil when every variant runs the same steps. A path is named by its
// first variant that does not fail a step (a duplicate webhook runs the
// steps of a partial payment; the duplicate is an outcome, not a path).
func pathGroups(op *catalog.Operation) []pathGroup {
	var groups []pathGroup
	for _, b := range op.Budgets {
		var ids []string
		for _, s := range op.Steps {
			if !s.In(b.Name) {
				continue
			}
			ids = append(ids, s.ID)
			for _, it := range s.Items {
				if it.In(b.Name) {
					ids = append(ids, it.ID)
				}
			}
		}
		found := false
		for i := range groups {
			if slices.Equal(groups[i].steps, ids) {
				groups[i].variants = append(groups[i].variants, b.Name)
				found = true
			}
		}
		if !found {
			groups = append(groups, pathGroup{steps: ids, variants: []string{b.Name}})
		}
	}
	if len(groups) <= 1 {
		return nil
	}
	for i := range groups {
		groups[i].name = groups[i].variants[0]
		for _, v := range groups[i].variants {
			if b := budgetOf(op, v); b != nil && b.FailedStep == "" {
				groups[i].name = v
				break
			}
		}
	}
	return groups
}

func budgetOf(op *catalog.Operation, name string) *catalog.Budget {
	for _, b := range op.Budgets {
		if b.Name == name {
			return b
		}
	}
	return nil
}

func (p *plan) planOperations() error {
	for _, op := range p.m.Operations {
		name := p.names.claim("op:"+op.Name, exported(op.Name), "Op")
		opp := &opPlan{Op: op, Name: name,
			Input:  p.names.claim("input:"+op.Name, name+"Input", "Params"),
			Result: p.names.claim("result:"+op.Name, name+"Result", "Output"),
			bound:  map[string]*gotype{}, fan: map[string]bool{}, pathOf: map[string]string{}, paths: map[string][]string{}}
		if err := p.planOp(opp); err != nil {
			return fmt.Errorf("operation %s: %w", op.Name, err)
		}
		p.ops = append(p.ops, opp)
	}
	return nil
}

// usedParams lists the parameters the requests read, in the order of the
// operation's parameters, leaving out those that only stand for a fan-out
// attribute (every shard is read).
func usedParams(op *catalog.Operation) (used map[string]bool, fan map[string]bool) {
	used, fan = map[string]bool{}, map[string]bool{}
	mark := func(o catalog.Operand) {
		for _, ph := range o.Placeholders() {
			used[ph] = true
		}
	}
	forEachRequest(op, func(_ *catalog.Step, q *catalog.Request) {
		for _, a := range q.Key {
			mark(a.Value)
		}
		for _, a := range q.Item {
			mark(a.Value)
		}
		for _, v := range q.Values {
			mark(v.Value)
		}
		f := fanOut(q.Index, q.Shards)
		for _, c := range q.KeyCondition {
			if f != nil && c.Attribute == f.attr {
				for _, o := range c.Operands {
					for _, ph := range o.Placeholders() {
						fan[ph] = true
					}
				}
				continue
			}
			for _, o := range c.Operands {
				mark(o)
			}
		}
	})
	for ph := range fan {
		if used[ph] {
			delete(fan, ph)
		}
	}
	return used, fan
}

func (p *plan) planOp(opp *opPlan) error {
	op := opp.Op
	used, fan := usedParams(op)
	opp.fan = fan
	var unused []string
	for _, prm := range op.Params {
		if !used[prm.Name] {
			unused = append(unused, prm.Name)
			continue
		}
		t := p.paramType(prm)
		doc := prm.Name
		if prm.Description != "" {
			doc += ": " + strings.TrimSuffix(prm.Description, ".")
		}
		if prm.Attribute != nil && prm.Attribute.Name != prm.Name {
			doc += " (a value of " + prm.Attribute.Name + ")"
		}
		if prm.Sample != nil {
			if s := sampleGo(t, *prm.Sample); s != "" && len(s) < 60 {
				doc += ", for example " + strings.Trim(s, "\"")
			}
		}
		opp.Fields = append(opp.Fields, arg{Name: prm.Name, Var: exported(prm.Name), T: t, Doc: doc + "."})
	}
	for i := range opp.Fields {
		for j := 0; j < i; j++ {
			if opp.Fields[j].Var == opp.Fields[i].Var {
				opp.Fields[i].Var += "2"
			}
		}
	}
	// Variants.
	if groups := pathGroups(op); groups != nil {
		opp.VariantType = p.names.claim("variant:"+op.Name, opp.Name+"Variant", "Kind")
		for _, g := range groups {
			c := p.names.claim("variantconst:"+op.Name+":"+g.name, opp.Name+exported(g.name), "Variant")
			doc := ""
			if b := budgetOf(op, g.name); b != nil && b.Description != "" {
				doc = lowerFirst(strings.TrimSuffix(b.Description, "."))
			}
			if len(g.variants) > 1 {
				var others []string
				for _, v := range g.variants {
					if v != g.name {
						others = append(others, v)
					}
				}
				doc += fmt.Sprintf(" (the same requests serve budget variant %s)", joinWords(others))
			}
			opp.Variants = append(opp.Variants, variantPlan{Const: c, Value: g.name, Doc: strings.TrimSpace(doc)})
			opp.paths[c] = g.variants
			for _, v := range g.variants {
				opp.pathOf[v] = c
			}
		}
		slices.SortFunc(opp.Variants, func(a, b variantPlan) int { return strings.Compare(a.Const, b.Const) })
	}
	// Doc.
	var doc strings.Builder
	fmt.Fprintf(&doc, "%s runs business operation %s", opp.Name, op.Name)
	if op.Description != "" {
		doc.WriteString(": " + lowerFirst(sentence(op.Description)))
	} else {
		doc.WriteString(".")
	}
	if len(op.Serves) > 0 {
		var ids []string
		for _, ap := range op.Serves {
			ids = append(ids, ap.ID)
		}
		fmt.Fprintf(&doc, " It serves %s.", joinWords(ids))
	}
	if op.Trigger != "" {
		doc.WriteString(" Trigger: " + lowerFirst(sentence(op.Trigger)))
	}
	if op.Idempotency != "" {
		doc.WriteString(" Idempotency: " + lowerFirst(sentence(op.Idempotency)))
	}
	if len(unused) > 0 {
		fmt.Fprintf(&doc, " Parameter %s of the model is not an input: no request reads it", joinWords(unused))
		if len(fan) > 0 {
			doc.WriteString(" (every shard is read)")
		}
		doc.WriteString(".")
	}
	opp.Doc = doc.String()
	return p.planOpBody(opp)
}

// opScope resolves placeholders inside an operation: parameters are
// fields of in, attributes bound by earlier reads are locals.
func (p *plan) opScope(opp *opPlan) scope {
	return func(name string) (string, *gotype, bool) {
		if t, ok := opp.bound[name]; ok {
			return unexported(name), t, true
		}
		for _, f := range opp.Fields {
			if f.Name == name {
				return "in." + f.Var, f.T, true
			}
		}
		return "", nil, false
	}
}

// stepGuard returns the condition under which a step with variants runs.
func (opp *opPlan) stepGuard(s *catalog.Step) string {
	if len(s.Variants) == 0 || opp.VariantType == "" {
		return ""
	}
	var consts []string
	for _, v := range opp.Variants {
		for _, bv := range opp.paths[v.Const] {
			if s.In(bv) && !slices.Contains(consts, v.Const) {
				consts = append(consts, v.Const)
			}
		}
	}
	if len(consts) == len(opp.Variants) {
		return ""
	}
	var parts []string
	for _, c := range consts {
		parts = append(parts, "in.Variant == "+c)
	}
	if len(parts) == 0 {
		return "false"
	}
	return strings.Join(parts, " || ")
}

func (p *plan) planOpBody(opp *opPlan) error {
	op := opp.Op
	var body strings.Builder
	fmt.Fprintf(&body, "var res %s\nif err := in.validate(); err != nil {\nreturn res, err\n}\n", opp.Result)
	// Attributes bound by reads are declared up front: a later step, or
	// the result, reads them.
	var decls []string
	for _, s := range op.Steps {
		for _, bn := range s.Bind {
			a := p.m.Attribute(bn)
			if a == nil {
				return fmt.Errorf("step %s binds %s, which is not an attribute", s.ID, bn)
			}
			if _, dup := opp.bound[bn]; dup {
				continue
			}
			opp.bound[bn] = p.valueType(a)
			decls = append(decls, fmt.Sprintf("%s %s", unexported(bn), opp.bound[bn].Go()))
		}
	}
	opp.bound = map[string]*gotype{}
	if len(decls) > 0 {
		body.WriteString("var (\n" + strings.Join(decls, "\n") + "\n)\n")
	}
	var steps strings.Builder
	for i, s := range op.Steps {
		code, err := p.stepCode(opp, s, i+1)
		if err != nil {
			return fmt.Errorf("step %s: %w", s.ID, err)
		}
		if g := opp.stepGuard(s); g != "" {
			fmt.Fprintf(&steps, "if %s {\n%s}\n", g, code)
		} else {
			steps.WriteString(code)
		}
		for _, bn := range s.Bind {
			opp.bound[bn] = p.valueType(p.m.Attribute(bn))
		}
	}
	if opp.usesK {
		p.use("keyBuilder")
		body.WriteString("var k keyBuilder\n")
	}
	body.WriteString(steps.String())
	body.WriteString("return res, nil\n")
	opp.Body = body.String()
	p.planValidate(opp)
	return nil
}

// planValidate writes the input check: enum values, civil dates and
// instants of the parameters the chosen variant uses, and the variant.
func (p *plan) planValidate(opp *opPlan) {
	var b strings.Builder
	p.use("checks")
	b.WriteString("var v checks\n")
	// Which parameters each variant constant reads.
	usedBy := map[string][]string{}
	if opp.VariantType != "" {
		for _, v := range opp.Variants {
			for _, bv := range opp.paths[v.Const] {
				for _, s := range opp.Op.Steps {
					if !s.In(bv) {
						continue
					}
					for _, ss := range append([]*catalog.Step{s}, s.Items...) {
						if ss != s && !ss.In(bv) || ss.Request == nil {
							continue
						}
						for _, ph := range requestPlaceholders(ss.Request) {
							if !slices.Contains(usedBy[ph], v.Const) {
								usedBy[ph] = append(usedBy[ph], v.Const)
							}
						}
					}
				}
			}
		}
	}
	for _, f := range opp.Fields {
		prm := opp.Op.Param(f.Name)
		a := prm.Attribute
		if a == nil {
			a = &catalog.Attribute{Name: prm.Name, Type: prm.Type}
		}
		checks := p.valueChecks(a, f.T, "in."+f.Var)
		if len(checks) == 0 {
			continue
		}
		for i := range checks {
			checks[i] = strings.Replace(checks[i], quote(a.Name), quote(f.Name), 1)
		}
		guard := ""
		if opp.VariantType != "" && len(usedBy[f.Name]) < len(opp.Variants) {
			var parts []string
			for _, c := range usedBy[f.Name] {
				parts = append(parts, "in.Variant == "+c)
			}
			guard = strings.Join(parts, " || ")
		}
		if guard != "" {
			fmt.Fprintf(&b, "if %s {\n%s\n}\n", guard, strings.Join(checks, "\n"))
		} else {
			b.WriteString(strings.Join(checks, "\n") + "\n")
		}
	}
	if opp.VariantType != "" {
		var consts, values []string
		for _, v := range opp.Variants {
			consts = append(consts, v.Const)
			values = append(values, v.Value)
		}
		fmt.Fprintf(&b, "switch in.Variant {\ncase %s:\ndefault:\nv.add(fmt.Errorf(\"variant %%q is not one of %s\", in.Variant))\n}\n",
			strings.Join(consts, ", "), strings.ReplaceAll(joinWords(values), " and ", " or "))
	}
	fmt.Fprintf(&b, "return v.err(%s)\n", quote(opp.Op.Name))
	opp.Validate = b.String()
	if !strings.Contains(opp.Validate, "v.add(") {
		opp.Validate = "return nil\n"
	}
}

func requestPlaceholders(q *catalog.Request) []string {
	var out []string
	add := func(o catalog.Operand) { out = append(out, o.Placeholders()...) }
	for _, a := range q.Key {
		add(a.Value)
	}
	for _, a := range q.Item {
		add(a.Value)
	}
	for _, v := range q.Values {
		add(v.Value)
	}
	for _, c := range q.KeyCondition {
		for _, o := range c.Operands {
			add(o)
		}
	}
	return out
}

// stepCode writes one step: build its request, send it, account its
// capacity, turn a failed condition or a missing item into the step's
// failure, and bind what later steps read.
func (p *plan) stepCode(opp *opPlan, s *catalog.Step, n int) (string, error) {
	var b strings.Builder
	op := opp.Op
	v := unexported(s.ID)
	where := op.Name + ": " + s.ID + ": %w"
	fmt.Fprintf(&b, "// Step %d, %s", n, s.ID)
	if s.Pattern != nil {
		fmt.Fprintf(&b, " (%s)", s.Pattern.ID)
	}
	b.WriteString(": " + stepSummary(s) + "\n")
	if s.Description != "" {
		b.WriteString(comment("// ", sentence(s.Description)) + "\n")
	}
	switch s.Kind {
	case catalog.Transaction:
		return p.transactionCode(opp, s, &b)
	case catalog.Query:
		return p.queryStepCode(opp, s, &b)
	case catalog.Scan:
		return "", fmt.Errorf("a Scan step has no generated form; read the table with an access pattern")
	}
	q := s.Request
	tp := p.tableByN[q.Table.Name]
	rc, err := p.requestCode(opp, s, q, tp, v)
	if err != nil {
		return "", err
	}
	b.WriteString(rc.pre)
	input := map[catalog.StepKind]string{catalog.Get: "GetItemInput", catalog.Put: "PutItemInput", catalog.Update: "UpdateItemInput", catalog.Delete: "DeleteItemInput"}[s.Kind]
	call := map[catalog.StepKind]string{catalog.Get: "GetItem", catalog.Put: "PutItem", catalog.Update: "UpdateItem", catalog.Delete: "DeleteItem"}[s.Kind]
	fmt.Fprintf(&b, "%sIn := &dynamodb.%s{\n%s\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n}\n", v, input, strings.Join(rc.fields, ",\n")+",")
	if rc.usesK {
		fmt.Fprintf(&b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where)
	}
	fmt.Fprintf(&b, "%sOut, err := c.db.%s(ctx, %sIn)\n", v, call, v)
	if q.Condition != "" && q.OnConditionFailed != nil {
		fp := p.failureFor(opp, s, q, false)
		p.use("writeError")
		fmt.Fprintf(&b, "if err != nil {\nreturn res, writeError(err, %s)\n}\n", fp.Var)
	} else {
		fmt.Fprintf(&b, "if err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\n", where)
	}
	p.use("capacityAdd")
	fmt.Fprintf(&b, "res.Capacity.add(%sOut.ConsumedCapacity)\n", v)
	if s.Kind == catalog.Get {
		if err := p.getResult(opp, s, q, &b, v); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func stepSummary(s *catalog.Step) string {
	q := s.Request
	switch s.Kind {
	case catalog.Transaction:
		var acts []string
		for _, it := range s.Items {
			a := fmt.Sprintf("%s %s", it.Kind, it.Request.Entity.Name)
			if len(it.Variants) > 0 {
				a += " (" + strings.Join(it.Variants, ", ") + ")"
			}
			acts = append(acts, a)
		}
		return "one transaction: " + strings.Join(acts, ", ") + "."
	case catalog.Query:
		where := "table " + q.Table.Name
		if q.Index != nil {
			where = "index " + q.Index.Name
		}
		return "query " + where + " on " + catalog.KeyConditionText(q.KeyCondition) + "."
	}
	txt := fmt.Sprintf("%s %s", s.Kind, q.Entity.Name)
	if q.ConsistentRead {
		txt += ", strongly consistent"
	}
	if q.Condition != "" {
		txt += " if " + q.Condition
	}
	return txt + "."
}

// reqCode is a request being printed: statements that must run first, and
// the fields of its input literal.
type reqCode struct {
	pre    string
	fields []string
	usesK  bool
	fail   *failurePlan
}

// requestCode prints the fields of a get, put, update, delete or
// condition check (the same fields serve the transaction actions).
func (p *plan) requestCode(opp *opPlan, s *catalog.Step, q *catalog.Request, tp *tablePlan, v string) (reqCode, error) {
	var rc reqCode
	sc := p.opScope(opp)
	ep := p.entityByN[q.Entity.Name]
	fields := []string{fmt.Sprintf("TableName: aws.String(c.tables.%s)", tp.Field)}
	// The key, through the entity's key builder when the request keys the
	// item by the entity's own templates.
	keyVar := v + "Key"
	keyCode, err := p.requestKey(opp, ep, tp, q, sc, keyVar, s.ID)
	if err != nil {
		return rc, err
	}
	rc.pre += keyCode
	if s.Kind == catalog.Put {
		var items []string
		for _, ka := range tp.Keys() {
			items = append(items, quote(ka.Name)+": "+p.encode(ka.T, keyVar+"."+ka.Field))
		}
		if tp.T.Discriminator != "" && q.Entity.TypeValue != "" {
			p.use("stringValue")
			items = append(items, quote(tp.T.Discriminator)+": stringValue("+quote(q.Entity.TypeValue)+")")
		}
		for _, a := range q.Item {
			x, err := p.assignCode(opp, a, sc)
			if err != nil {
				return rc, fmt.Errorf("item %s: %w", a.Attribute, err)
			}
			items = append(items, quote(a.Attribute)+": "+x)
		}
		fields = append(fields, "Item: map[string]types.AttributeValue{\n"+strings.Join(items, ",\n")+",\n}")
	} else {
		fields = append(fields, "Key: "+keyVar+".item()")
	}
	if q.Update != "" {
		fields = append(fields, "UpdateExpression: aws.String("+quote(q.Update)+")")
	}
	if q.Condition != "" {
		fields = append(fields, "ConditionExpression: aws.String("+quote(q.Condition)+")")
	}
	names := map[string]string{}
	for k, n := range q.Names {
		names[k] = n
	}
	if len(q.Projection) > 0 {
		en := exprNames{names: names}
		var refs []string
		for _, a := range q.Projection {
			refs = append(refs, en.ref(a))
		}
		names = en.names
		fields = append(fields, "ProjectionExpression: aws.String("+quote(strings.Join(refs, ", "))+")")
	}
	if n := namesCode(names); n != "" {
		fields = append(fields, "ExpressionAttributeNames: "+n)
	}
	var vals []valueCode
	for _, nv := range q.Values {
		x, err := p.operandCode(nv.Value, sc)
		if err != nil {
			return rc, fmt.Errorf("value %s: %w", nv.Name, err)
		}
		vals = append(vals, valueCode{nv.Name, x})
	}
	if vc := valuesCode(vals); vc != "" {
		fields = append(fields, "ExpressionAttributeValues: "+vc)
	}
	if q.ConsistentRead {
		fields = append(fields, "ConsistentRead: aws.Bool(true)")
	}
	if q.ReturnValues != "" {
		fields = append(fields, "ReturnValues: types.ReturnValue("+quote(q.ReturnValues)+")")
	}
	if q.ReturnValuesOnConditionCheckFailure != "" {
		fields = append(fields, "ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure("+quote(q.ReturnValuesOnConditionCheckFailure)+")")
	}
	rc.fields = fields
	joined := strings.Join(fields, "\n")
	if strings.Contains(joined, "k.") {
		rc.usesK = true
		opp.usesK = true
	}
	return rc, nil
}

// assignCode prints the value of an item attribute: a parameter converted
// to its attribute's type, a template, or a literal.
func (p *plan) assignCode(opp *opPlan, a catalog.Assign, sc scope) (string, error) {
	at := p.m.Attribute(a.Attribute)
	if a.Value.Param != "" && at != nil {
		x, t, ok := sc(a.Value.Param)
		if !ok {
			return "", fmt.Errorf("no value for {%s}", a.Value.Param)
		}
		want := p.valueType(at)
		if t.kind == want.kind && t.enum != want.enum && t.kind == kString {
			return p.encode(t, x), nil
		}
		return p.encode(t, x), nil
	}
	return p.operandCode(a.Value, sc)
}

// requestKey prints the statements computing a request's key into
// keyVar.
func (p *plan) requestKey(opp *opPlan, ep *entityPlan, tp *tablePlan, q *catalog.Request, sc scope, keyVar, step string) (string, error) {
	where := opp.Op.Name + ": " + step
	own := len(q.Key) == len(ep.E.Key)
	for _, a := range q.Key {
		match := false
		for _, k := range ep.E.Key {
			if k.Attribute == a.Attribute && a.Value.Template != nil && a.Value.Template.Text == k.Template.Text {
				match = true
			}
		}
		if !match {
			own = false
		}
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
		return fmt.Sprintf("%s, err := %s(%s)\nif err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\n", keyVar, ep.KeyFunc, strings.Join(args, ", "), where+": %w"), nil
	}
	var fields []string
	for _, ka := range tp.Keys() {
		var val *catalog.Operand
		for i := range q.Key {
			if q.Key[i].Attribute == ka.Name {
				val = &q.Key[i].Value
			}
		}
		if val == nil {
			return "", fmt.Errorf("the request has no value for key %s", ka.Name)
		}
		var x string
		var err error
		switch {
		case val.Template != nil && ka.T.kind == kString:
			x, err = p.templateExpr(val.Template, sc)
		case val.Template != nil:
			x, err = p.keyValue(tp, ka, val.Template, sc)
		case val.Param != "":
			y, t, ok := sc(val.Param)
			if !ok {
				return "", fmt.Errorf("no value for {%s}", val.Param)
			}
			x = y
			if t.Go() != ka.T.Go() {
				x = ka.T.Go() + "(" + y + ")"
			}
		case val.Literal != nil:
			x = quote(val.Literal.Str)
			if ka.T.kind != kString {
				x = val.Literal.Str
			}
		}
		if err != nil {
			return "", err
		}
		fields = append(fields, ka.Field+": "+x)
	}
	code := fmt.Sprintf("%s := %s{%s}\n", keyVar, tp.Key, strings.Join(fields, ", "))
	if strings.Contains(code, "k.") {
		opp.usesK = true
		code += fmt.Sprintf("if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where+": %w")
	}
	return code, nil
}

// getResult handles a read item: a missing item's failure, the bound
// attributes and the item in the result.
func (p *plan) getResult(opp *opPlan, s *catalog.Step, q *catalog.Request, b *strings.Builder, v string) error {
	ep := p.entityByN[q.Entity.Name]
	out := v + "Out"
	field := exported(s.ID)
	if q.OnMissing != nil && q.OnMissing.Outcome != "succeed" {
		fp := p.failureFor(opp, s, q, true)
		p.use("failureWith")
		fmt.Fprintf(b, "if %s.Item == nil {\nreturn res, %s.with(nil, nil)\n}\n", out, fp.Var)
	} else {
		ret := "res, nil"
		if len(s.Bind) == 0 {
			fmt.Fprintf(b, "if %s.Item != nil {\n", out)
		} else {
			fmt.Fprintf(b, "if %s.Item == nil {\nreturn %s\n}\n", out, ret)
		}
	}
	guarded := (q.OnMissing == nil || q.OnMissing.Outcome == "succeed") && len(s.Bind) == 0
	if len(q.Projection) == 0 {
		fmt.Fprintf(b, "%sItem, err := %s(%s.Item)\nif err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\nres.%s = &%sItem\n", v, ep.Unmarshal, out, opp.Op.Name+": "+s.ID+": %w", field, v)
		opp.ResultFields = append(opp.ResultFields, arg{Name: s.ID, Var: field, Type: "*" + ep.Name,
			Doc: fmt.Sprintf("%s is the %s item step %s read; nil when there is none.", field, q.Entity.Name, s.ID)})
		for _, bn := range s.Bind {
			f := ep.field(bn)
			if f == nil {
				continue
			}
			if f.Pointer {
				p.use("deref")
				fmt.Fprintf(b, "%s = deref(%sItem.%s)\n", unexported(bn), v, f.Name)
			} else {
				fmt.Fprintf(b, "%s = %sItem.%s\n", unexported(bn), v, f.Name)
			}
		}
	} else if len(s.Bind) > 0 {
		p.use("decoder")
		fmt.Fprintf(b, "%sRead := decoder{item: %s.Item, what: %s}\n", v, out, quote(q.Entity.Name))
		for _, bn := range s.Bind {
			a := p.m.Attribute(bn)
			t := p.valueType(a)
			p.use("required")
			fmt.Fprintf(b, "%s = required(&%sRead, %s, %s)\n", unexported(bn), v, quote(bn), p.decoder(t))
			opp.ResultFields = append(opp.ResultFields, arg{Name: bn, Var: exported(bn), T: t,
				Doc: fmt.Sprintf("%s is the %s step %s read from the %s item.", exported(bn), bn, s.ID, q.Entity.Name)})
			fmt.Fprintf(b, "res.%s = %s\n", exported(bn), unexported(bn))
		}
		fmt.Fprintf(b, "if %sRead.err != nil {\nreturn res, fmt.Errorf(%q, %sRead.err)\n}\n", v, opp.Op.Name+": "+s.ID+": %w", v)
	}
	if guarded {
		b.WriteString("}\n")
	}
	return nil
}

// transactionCode writes a TransactWriteItems step: its actions in the
// model's order (those of the chosen variant), and on cancellation the
// failure of the first action whose condition failed.
func (p *plan) transactionCode(opp *opPlan, s *catalog.Step, b *strings.Builder) (string, error) {
	v := unexported(s.ID)
	where := opp.Op.Name + ": " + s.ID + ": %w"
	fmt.Fprintf(b, "var %sItems []types.TransactWriteItem\n", v)
	fmt.Fprintf(b, "var %sFailures []*failure\n", v)
	p.use("failure")
	for _, it := range s.Items {
		q := it.Request
		tp := p.tableByN[q.Table.Name]
		av := unexported(it.ID)
		rc, err := p.requestCode(opp, it, q, tp, av)
		if err != nil {
			return "", fmt.Errorf("action %s: %w", it.ID, err)
		}
		kind := map[catalog.StepKind]string{catalog.Put: "Put", catalog.Update: "Update", catalog.Delete: "Delete", catalog.ConditionCheck: "ConditionCheck"}[it.Kind]
		var code strings.Builder
		fmt.Fprintf(&code, "// %s: %s\n", it.ID, stepSummary(it))
		code.WriteString(rc.pre)
		fmt.Fprintf(&code, "%sItems = append(%sItems, types.TransactWriteItem{%s: &types.%s{\n%s\n}})\n", v, v, kind, kind, strings.Join(rc.fields, ",\n")+",")
		fail := "nil"
		if q.Condition != "" && q.OnConditionFailed != nil {
			fail = p.failureFor(opp, it, q, false).Var
			fail = "&" + fail
		}
		fmt.Fprintf(&code, "%sFailures = append(%sFailures, %s)\n", v, v, fail)
		if g := opp.stepGuard(it); g != "" {
			fmt.Fprintf(b, "if %s {\n%s}\n", g, code.String())
		} else {
			b.WriteString(code.String())
		}
	}
	if opp.usesK {
		fmt.Fprintf(b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where)
	}
	p.use("transactionError")
	fmt.Fprintf(b, "%sOut, err := c.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{\nTransactItems: %sItems,\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n})\n", v, v)
	fmt.Fprintf(b, "if err != nil {\nreturn res, transactionError(%q, %q, err, %sFailures)\n}\n", opp.Op.Name, s.ID, v)
	p.use("capacityAddAll")
	fmt.Fprintf(b, "res.Capacity.addAll(%sOut.ConsumedCapacity)\n", v)
	return b.String(), nil
}

// queryStepCode writes a query step: one request for each partition the
// step names (each shard of a fan-out), Limit the step's page size, the
// items in the index's order.
func (p *plan) queryStepCode(opp *opPlan, s *catalog.Step, b *strings.Builder) (string, error) {
	q := s.Request
	v := unexported(s.ID)
	where := opp.Op.Name + ": " + s.ID + ": %w"
	tp := p.tableByN[q.Table.Name]
	var ip *indexPlan
	if q.Index != nil {
		ip = p.indexByN[q.Index.Name]
	}
	var listed []*catalog.Entity
	for _, m := range q.Matches {
		listed = append(listed, m.Entity)
	}
	res := p.resultOf(tp, ip, q.KeyCondition, listed)
	fan := fanOut(q.Index, q.Shards)
	sc := p.opScope(opp)
	inner := sc
	shardVar := ""
	if fan != nil {
		shardVar = unexported(fan.attr)
		inner = func(name string) (string, *gotype, bool) {
			for _, c := range q.KeyCondition {
				if c.Attribute == fan.attr {
					for _, o := range c.Operands {
						if o.Param == name {
							return shardVar, tInt, true
						}
					}
				}
			}
			if name == fan.attr {
				return shardVar, tInt, true
			}
			return sc(name)
		}
	}
	conds, err := p.keyConditions(ip, q.KeyCondition, inner)
	if err != nil {
		return "", err
	}
	n := exprNames{names: map[string]string{}}
	for k, nm := range q.Names {
		n.names[k] = nm
	}
	for _, nv := range q.Values {
		x, err := p.operandCode(nv.Value, sc)
		if err != nil {
			return "", fmt.Errorf("value %s: %w", nv.Name, err)
		}
		n.values = append(n.values, valueCode{nv.Name, x})
	}
	qi := queryInput{table: tp.Field, consistent: q.ConsistentRead, descending: q.Order == "descending", limit: q.PageSize, filter: q.Filter}
	if ip != nil {
		qi.index = ip.X.Name
	}
	qi.keyCond = keyConditionCode(conds, &n)
	if len(q.Projection) > 0 {
		var refs []string
		for _, a := range q.Projection {
			refs = append(refs, n.ref(a))
		}
		qi.projection = strings.Join(refs, ", ")
	}
	qi.names, qi.values = n.names, n.values
	code := qi.code()
	if strings.Contains(code, "k.") {
		opp.usesK = true
	}
	field := exported(s.ID)
	opp.ResultFields = append(opp.ResultFields, arg{Name: s.ID, Var: field, Type: "[]" + res.Type,
		Doc: fmt.Sprintf("%s holds the items step %s read: the first page", field, s.ID)})
	last := &opp.ResultFields[len(opp.ResultFields)-1]
	if fan != nil {
		last.Doc += fmt.Sprintf(" of each of the %d shards, merged in the index's order", fan.count)
	}
	last.Doc += ". More tells whether a page stopped short of the end."
	p.use("readPage")
	if fan == nil {
		fmt.Fprintf(b, "%sIn := %s\n", v, code)
		if strings.Contains(code, "k.") {
			fmt.Fprintf(b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where)
		}
		fmt.Fprintf(b, "%sPage, err := readPage(ctx, c.db, %sIn, %s)\n", v, v, res.Decode)
		fmt.Fprintf(b, "res.Capacity = res.Capacity.plus(%sPage.Capacity)\n", v)
		fmt.Fprintf(b, "if err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\n", where)
		fmt.Fprintf(b, "res.%s = %sPage.Items\nres.More = res.More || %sPage.Next != nil\n", field, v, v)
	} else {
		p.use("readShards")
		ip.UsedCompare = true
		fmt.Fprintf(b, "%sIn := make([]*dynamodb.QueryInput, 0, %d)\n", v, fan.count)
		fmt.Fprintf(b, "for %s := range int64(%d) {\n%sIn = append(%sIn, %s)\n}\n", shardVar, fan.count, v, v, code)
		if strings.Contains(code, "k.") {
			fmt.Fprintf(b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where)
		}
		fmt.Fprintf(b, "%sPage, err := readShards(ctx, c.db, %sIn, %d, %s, %s, %v)\n", v, v, fan.workers, res.Decode, ip.Compare, q.Order == "descending")
		fmt.Fprintf(b, "res.Capacity = res.Capacity.plus(%sPage.Capacity)\n", v)
		fmt.Fprintf(b, "if err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\n", where)
		fmt.Fprintf(b, "res.%s = %sPage.Items\nres.More = res.More || %sPage.more\n", field, v, v)
	}
	opp.hasMore()
	return b.String(), nil
}

func (opp *opPlan) hasMore() {
	for _, f := range opp.ResultFields {
		if f.Var == "More" {
			return
		}
	}
	opp.ResultFields = append(opp.ResultFields, arg{Name: "more", Var: "More", T: tBool, Doc: "More is true when a query stopped at its page size or 1 MB before the end of its partition; the access pattern's iterator reads on."})
}
