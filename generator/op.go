package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
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
	// Default is the variant the zero value means: the common path.
	Default  *variantPlan
	Doc      string
	Validate string
	Body     string

	paths      map[string][]string // variant constant -> budget variants it covers
	pathOf     map[string]string   // budget variant -> variant constant
	bound      map[string]*gotype  // attributes bound by reads
	referenced map[string]bool     // parameters the requests read
	boundUsed  map[string]bool     // bound attributes the requests read
	plans      map[string]*executor.StepPlan
	usesK      bool
	failures   []*failurePlan
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

// commonPath is the index of the path a caller takes when it chooses
// none: the one whose budget variants carry the largest share of the
// operation's runs, else the first declared. The variant type's zero
// value means it, so the common case needs no choosing and a zero Input
// is valid.
func commonPath(op *catalog.Operation, groups []pathGroup) int {
	best, bestShare := 0, 0.0
	for i, g := range groups {
		share := 0.0
		for _, v := range g.variants {
			if b := budgetOf(op, v); b != nil && b.Share != nil {
				share += *b.Share
			}
		}
		if share > bestShare {
			best, bestShare = i, share
		}
	}
	return best
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
			bound:  map[string]*gotype{}, referenced: map[string]bool{}, boundUsed: map[string]bool{}, pathOf: map[string]string{}, paths: map[string][]string{}}
		if err := p.planOp(opp); err != nil {
			return fmt.Errorf("operation %s: %w", op.Name, err)
		}
		p.ops = append(p.ops, opp)
	}
	return nil
}

func (p *plan) planOp(opp *opPlan) error {
	op := opp.Op
	plans, err := p.stepPlans(op)
	if err != nil {
		return err
	}
	opp.plans = plans
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
		def := opp.Variants[commonPath(op, groups)]
		slices.SortFunc(opp.Variants, func(a, b variantPlan) int { return strings.Compare(a.Const, b.Const) })
		for i := range opp.Variants {
			if opp.Variants[i].Const == def.Const {
				opp.Default = &opp.Variants[i]
			}
		}
	}
	if err := p.planOpBody(opp); err != nil {
		return err
	}
	// The input holds the parameters the requests read.
	var unused []string
	for _, prm := range op.Params {
		if !opp.referenced[prm.Name] {
			unused = append(unused, prm.Name)
			continue
		}
		t := p.paramType(prm)
		desc := prm.Description
		if desc == "" && prm.Attribute != nil {
			desc = prm.Attribute.Description
		}
		doc := "parameter " + prm.Name
		if prm.Attribute != nil && prm.Attribute.Name != prm.Name {
			doc += ", a value of " + prm.Attribute.Name
		}
		if desc != "" {
			doc += ": " + lowerFirst(strings.TrimSuffix(strings.Join(strings.Fields(desc), " "), "."))
		}
		if prm.Sample != nil {
			if s := sampleGo(t, *prm.Sample); s != "" && len(s) < 60 {
				doc += " (for example " + strings.Trim(s, "\"") + ")"
			}
		}
		opp.Fields = append(opp.Fields, arg{Name: prm.Name, Var: opp.fieldName(prm.Name), T: t, Doc: doc + "."})
	}
	// Doc.
	var doc strings.Builder
	fmt.Fprintf(&doc, "%s runs business operation %s.", opp.Name, op.Name)
	if op.Description != "" {
		doc.WriteString(" " + sentence(op.Description))
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
		for _, s := range op.Steps {
			if _, _, ok := s.ShardInput(); ok {
				doc.WriteString(" (a fan-out reads every shard)")
				break
			}
		}
		doc.WriteString(".")
	}
	opp.Doc = doc.String()
	p.planValidate(opp)
	return nil
}

// fieldName is the input field of a parameter.
func (opp *opPlan) fieldName(param string) string {
	name := exported(param)
	for _, prm := range opp.Op.Params {
		if prm.Name != param && exported(prm.Name) == name && prm.Name < param {
			return name + "2"
		}
	}
	return name
}

// opScope resolves placeholders inside an operation: attributes bound by
// earlier reads are locals, parameters are fields of in (and recorded as
// inputs).
func (p *plan) opScope(opp *opPlan) scope {
	return func(name string) (string, *gotype, bool) {
		if t, ok := opp.bound[name]; ok {
			opp.boundUsed[name] = true
			return unexported(name), t, true
		}
		if prm := opp.Op.Param(name); prm != nil {
			opp.referenced[name] = true
			return "in." + opp.fieldName(name), p.paramType(prm), true
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
	if opp.Default != nil {
		body.WriteString("in.Variant = in.Variant.orDefault()\n")
	}
	fmt.Fprintf(&body, "var res %s\nif err := in.validate(); err != nil {\nreturn res, err\n}\n", opp.Result)
	// Attributes bound by reads are declared up front: a later step, or
	// the result, reads them.
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
	// Bound attributes a later request reads are declared up front; one
	// that nothing reads is still read from the item (the run fails
	// without it, as the executor's), into the blank identifier.
	var decls []string
	declared := map[string]bool{}
	code := steps.String()
	// One key builder serves the whole function: steps that build keys
	// or synthetic index keys declare their own, which two such steps in
	// one scope would redeclare.
	if strings.Contains(code, "var k keyBuilder\n") {
		code = strings.ReplaceAll(code, "var k keyBuilder\n", "")
		opp.usesK = true
	}
	for _, s := range op.Steps {
		for _, bn := range s.Bind {
			a := p.m.Attribute(bn)
			if a == nil {
				return fmt.Errorf("step %s binds %s, which is not an attribute", s.ID, bn)
			}
			v := unexported(bn)
			used := opp.boundUsed[bn] || strings.Contains(code, "res."+exported(bn)+" = "+v+"\n")
			if !used {
				code = strings.ReplaceAll(code, "\n"+v+" = ", "\n_ = ")
				continue
			}
			if declared[bn] {
				continue
			}
			declared[bn] = true
			decls = append(decls, fmt.Sprintf("%s %s", v, p.valueType(a).Go()))
		}
	}
	if len(decls) > 0 {
		body.WriteString("var (\n" + strings.Join(decls, "\n") + "\n)\n")
	}
	if opp.usesK {
		p.use("keyBuilder")
		body.WriteString("var k keyBuilder\n")
	}
	body.WriteString(code)
	body.WriteString("return res, nil\n")
	opp.Body = body.String()
	return nil
}

// planValidate writes the input check: enum values, civil dates and
// instants of the parameters the chosen variant reads, and the variant.
func (p *plan) planValidate(opp *opPlan) {
	var b strings.Builder
	p.use("checks")
	b.WriteString("var v checks\n")
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
		if opp.VariantType != "" && len(usedBy[f.Name]) > 0 && len(usedBy[f.Name]) < len(opp.Variants) {
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
	v := stepVar(s.ID)
	where := op.Name + ": " + s.ID + ": %w"
	fmt.Fprintf(&b, "// Step %d, %s", n, s.ID)
	if s.Pattern != nil {
		fmt.Fprintf(&b, " (%s)", s.Pattern.ID)
	}
	b.WriteString(": " + prose(stepSummary(s)) + "\n")
	if s.Description != "" {
		b.WriteString(comment("// ", sentence(s.Description)) + "\n")
	}
	sp := opp.plans[s.ID]
	if sp == nil {
		return "", fmt.Errorf("the step runs in no variant")
	}
	switch s.Kind {
	case catalog.Transaction:
		return p.transactionCode(opp, s, &b)
	case catalog.Query:
		return p.queryStepCode(opp, s, sp, &b)
	case catalog.Scan:
		return "", fmt.Errorf("a Scan step has no generated form; read the table with an access pattern")
	}
	fail := func(e string) string { return fmt.Sprintf("return res, fmt.Errorf(%q, %s)", where, e) }
	cc, err := p.writeCall(sp, p.opScope(opp), v+"Key", fail)
	if err != nil {
		return "", err
	}
	b.WriteString(cc.pre)
	input := map[catalog.StepKind]string{catalog.Get: "GetItemInput", catalog.Put: "PutItemInput", catalog.Update: "UpdateItemInput", catalog.Delete: "DeleteItemInput"}[s.Kind]
	call := map[catalog.StepKind]string{catalog.Get: "GetItem", catalog.Put: "PutItem", catalog.Update: "UpdateItem", catalog.Delete: "DeleteItem"}[s.Kind]
	fmt.Fprintf(&b, "%sIn := &dynamodb.%s{\n%s\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n}\n", v, input, strings.Join(cc.fields, ",\n")+",")
	if cc.usesK {
		opp.usesK = true
		fmt.Fprintf(&b, "if k.err != nil {\n%s\n}\n", fail("k.err"))
	}
	fmt.Fprintf(&b, "%sOut, err := c.db.%s(ctx, %sIn)\n", v, call, v)
	q := s.Request
	if q.Condition != "" && q.OnConditionFailed != nil {
		fp := p.failureFor(opp, s, q, false)
		p.use("writeError")
		fmt.Fprintf(&b, "if err != nil {\nreturn res, writeError(err, %s)\n}\n", fp.Var)
	} else {
		fmt.Fprintf(&b, "if err != nil {\n%s\n}\n", fail("err"))
	}
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

// getResult handles a read item as the executor does: a missing item
// with a declared onMissing ends the operation (its failure, or success
// when the model says succeed); a missing item that later steps needed
// is an error; the bound attributes are read, and the item kept in the
// result.
func (p *plan) getResult(opp *opPlan, s *catalog.Step, q *catalog.Request, b *strings.Builder, v string) error {
	ep := p.entityByN[q.Entity.Name]
	out := v + "Out"
	field := exported(s.ID)
	where := opp.Op.Name + ": " + s.ID + ": %w"
	switch {
	case q.OnMissing != nil && q.OnMissing.Outcome != "succeed":
		fp := p.failureFor(opp, s, q, true)
		p.use("failure")
		fmt.Fprintf(b, "if len(%s.Item) == 0 {\nreturn res, %s.with(nil, nil)\n}\n", out, fp.Var)
	case q.OnMissing != nil:
		fmt.Fprintf(b, "if len(%s.Item) == 0 {\n// %s\nreturn res, nil\n}\n", out, sentence(q.OnMissing.Meaning))
	case len(s.Bind) > 0:
		p.noItem = true
		fmt.Fprintf(b, "if len(%s.Item) == 0 {\nreturn res, fmt.Errorf(\"%s: %s: %%w: no %s item to read %s from\", ErrNoItem)\n}\n", out, opp.Op.Name, s.ID, q.Entity.Name, strings.Join(s.Bind, ", "))
	default:
		fmt.Fprintf(b, "if len(%s.Item) > 0 {\n", out)
	}
	guarded := q.OnMissing == nil && len(s.Bind) == 0
	if len(q.Projection) == 0 {
		fmt.Fprintf(b, "%sItem, err := %s(%s.Item)\nif err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\nres.%s = &%sItem\n", v, ep.Unmarshal, out, where, field, v)
		opp.ResultFields = append(opp.ResultFields, arg{Name: s.ID, Var: field, Type: "*" + ep.Name,
			Doc: fmt.Sprintf("%s is the %s item step %s read; nil when there is none.", field, q.Entity.Name, s.ID)})
	}
	if len(s.Bind) > 0 {
		p.use("decoder")
		p.use("required")
		fmt.Fprintf(b, "%sRead := decoder{item: %s.Item, what: %s}\n", v, out, quote(q.Entity.Name))
		for _, bn := range s.Bind {
			t := p.valueType(p.m.Attribute(bn))
			fmt.Fprintf(b, "%s = required(&%sRead, %s, %s)\n", unexported(bn), v, quote(bn), p.decoder(t))
			if len(q.Projection) > 0 {
				opp.ResultFields = append(opp.ResultFields, arg{Name: bn, Var: exported(bn), T: t,
					Doc: fmt.Sprintf("%s is the %s step %s read from the %s item.", exported(bn), bn, s.ID, q.Entity.Name)})
				fmt.Fprintf(b, "res.%s = %s\n", exported(bn), unexported(bn))
			}
		}
		fmt.Fprintf(b, "if %sRead.err != nil {\nreturn res, fmt.Errorf(%q, %sRead.err)\n}\n", v, where, v)
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
	v := stepVar(s.ID)
	fmt.Fprintf(b, "var %sItems []types.TransactWriteItem\n", v)
	fmt.Fprintf(b, "var %sFailures []*failure\n", v)
	p.use("failure")
	usesK := false
	for _, it := range s.Items {
		sp := opp.plans[s.ID+"/"+it.ID]
		if sp == nil {
			continue // runs in no variant
		}
		q := it.Request
		av := stepVar(it.ID)
		where := opp.Op.Name + ": " + it.ID + ": %w"
		fail := func(e string) string { return fmt.Sprintf("return res, fmt.Errorf(%q, %s)", where, e) }
		cc, err := p.writeCall(sp, p.opScope(opp), av+"Key", fail)
		if err != nil {
			return "", fmt.Errorf("action %s: %w", it.ID, err)
		}
		usesK = usesK || cc.usesK
		kind := map[catalog.StepKind]string{catalog.Put: "Put", catalog.Update: "Update", catalog.Delete: "Delete", catalog.ConditionCheck: "ConditionCheck"}[it.Kind]
		var code strings.Builder
		fmt.Fprintf(&code, "// %s: %s\n", it.ID, prose(stepSummary(it)))
		code.WriteString(cc.pre)
		fmt.Fprintf(&code, "%sItems = append(%sItems, types.TransactWriteItem{%s: &types.%s{\n%s\n}})\n", v, v, kind, kind, strings.Join(cc.fields, ",\n")+",")
		fail2 := "nil"
		if q.Condition != "" && q.OnConditionFailed != nil {
			fail2 = "&" + p.failureFor(opp, it, q, false).Var
		}
		fmt.Fprintf(&code, "%sFailures = append(%sFailures, %s)\n", v, v, fail2)
		if g := opp.stepGuard(it); g != "" {
			fmt.Fprintf(b, "if %s {\n%s}\n", g, code.String())
		} else {
			b.WriteString(code.String())
		}
	}
	if usesK {
		opp.usesK = true
		fmt.Fprintf(b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", opp.Op.Name+": "+s.ID+": %w")
	}
	p.use("transactionError")
	fmt.Fprintf(b, "%sOut, err := c.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{\nTransactItems: %sItems,\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n})\n", v, v)
	fmt.Fprintf(b, "if err != nil {\nreturn res, transactionError(%q, %q, err, %sFailures)\n}\n", opp.Op.Name, s.ID, v)
	fmt.Fprintf(b, "res.Capacity.addAll(%sOut.ConsumedCapacity)\n", v)
	return b.String(), nil
}

// queryStepCode writes a query step as the executor runs it: one request
// for each shard of a fan-out (one in all when it does not fan out),
// Limit the step's page size, the first page of each; the items merged
// in the index's order.
func (p *plan) queryStepCode(opp *opPlan, s *catalog.Step, sp *executor.StepPlan, b *strings.Builder) (string, error) {
	q := s.Request
	v := stepVar(s.ID)
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
	shardVar := ""
	if sp.ShardCount > 0 {
		shardVar = "shard"
	}
	cc, err := p.queryCall(sp, p.opScope(opp), shardVar)
	if err != nil {
		return "", err
	}
	if cc.usesK {
		opp.usesK = true
	}
	code := "&dynamodb.QueryInput{\n" + strings.Join(cc.fields, ",\n") + ",\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n}"
	field := exported(s.ID)
	doc := fmt.Sprintf("%s holds the items step %s read: the first page", field, s.ID)
	if sp.ShardCount > 0 {
		doc += fmt.Sprintf(" of each of the %d shards, merged in the index's order", sp.ShardCount)
	}
	opp.ResultFields = append(opp.ResultFields, arg{Name: s.ID, Var: field, Type: "[]" + res.Type, Doc: doc + "."})
	n := max(sp.ShardCount, 1)
	p.use("readShards")
	compare := "nil"
	if ip != nil && n > 1 {
		ip.UsedCompare = true
		compare = ip.Compare
	}
	fmt.Fprintf(b, "%sIn := make([]*dynamodb.QueryInput, 0, %d)\n", v, n)
	if sp.ShardCount > 0 {
		fmt.Fprintf(b, "for %s := range int64(%d) {\n%sIn = append(%sIn, %s)\n}\n", shardVar, sp.ShardCount, v, v, code)
	} else {
		fmt.Fprintf(b, "%sIn = append(%sIn, %s)\n", v, v, code)
	}
	if cc.usesK {
		fmt.Fprintf(b, "if k.err != nil {\nreturn res, fmt.Errorf(%q, k.err)\n}\n", where)
	}
	workers := n
	if q.Shards != nil && q.Shards.Workers > 0 {
		workers = min(q.Shards.Workers, n)
	}
	fmt.Fprintf(b, "%sPage, err := readShards(ctx, c.db, %sIn, %d, %s, %s, %v)\n", v, v, workers, res.Decode, compare, q.Order == "descending")
	b.WriteString("res.Capacity = res.Capacity.plus(" + v + "Page.Capacity)\n")
	fmt.Fprintf(b, "if err != nil {\nreturn res, fmt.Errorf(%q, err)\n}\n", where)
	fmt.Fprintf(b, "res.%s = %sPage.Items\nres.More = res.More || %sPage.more\n", field, v, v)
	if len(s.Bind) > 0 {
		p.use("decoder")
		p.use("required")
		p.noItem = true
		fmt.Fprintf(b, "if %sPage.first == nil {\nreturn res, fmt.Errorf(\"%s: %s: %%w: the query found none to read %s from\", ErrNoItem)\n}\n", v, opp.Op.Name, s.ID, strings.Join(s.Bind, ", "))
		fmt.Fprintf(b, "%sRead := decoder{item: %sPage.first, what: %s}\n", v, v, quote("an item of step "+s.ID))
		for _, bn := range s.Bind {
			t := p.valueType(p.m.Attribute(bn))
			fmt.Fprintf(b, "%s = required(&%sRead, %s, %s)\n", unexported(bn), v, quote(bn), p.decoder(t))
		}
		fmt.Fprintf(b, "if %sRead.err != nil {\nreturn res, fmt.Errorf(%q, %sRead.err)\n}\n", v, where, v)
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
	opp.ResultFields = append(opp.ResultFields, arg{Name: "more", Var: "More", T: tBool, Doc: "More is true when a query stopped at its page size or at 1 MB before the end of its partition; the access pattern's iterator reads on."})
}
