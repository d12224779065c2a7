package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// patternPlan is the function answering an access pattern, or, for a
// question the table does not answer with a read, the line saying where
// it goes.
type patternPlan struct {
	AP     *catalog.AccessPattern
	Name   string // AP03
	Doc    string
	Get    bool // GetItem: returns one item
	Args   []arg
	Result string // Go type of one result: Installment, Item, DunningAgendaEntry
	Body   string
}

// Sig returns the function's parameters after ctx.
func (pp *patternPlan) Sig() string {
	var names, types []string
	for _, a := range pp.Args {
		names = append(names, a.Var)
		types = append(types, a.T.Go())
	}
	return groupParams(names, types)
}

// readResult is what a read returns: the Go type of one item and the
// function decoding it.
type readResult struct {
	Type, Decode string
	Entities     []*entityPlan
}

// resultOf decides what a read of a table or index returns, from the
// entities its key condition can match (or the matches the model lists).
func (p *plan) resultOf(tp *tablePlan, ip *indexPlan, conds []catalog.KeyCondition, listed []*catalog.Entity) readResult {
	if ip != nil && !ip.All {
		return readResult{Type: ip.Name, Decode: ip.Decode, Entities: ip.Entries}
	}
	var cands []*entityPlan
	pool := tp.Entities
	if ip != nil {
		pool = ip.Entries
	}
	if len(pool) == 0 && ip == nil {
		// A table without entities of its own (an archive) holds the items
		// of tables keyed alike.
		for _, other := range p.tables {
			if other != tp && slices.Equal(other.T.KeyAttributes(), tp.T.KeyAttributes()) {
				pool = append(pool, other.Entities...)
			}
		}
	}
	switch {
	case len(listed) > 0:
		for _, e := range listed {
			if ep := p.entityByN[e.Name]; ep != nil && !slices.Contains(cands, ep) {
				cands = append(cands, ep)
			}
		}
	case ip != nil:
		cands = pool
	default:
		for _, ep := range pool {
			if entityMatches(ep.E, conds, p.m.Separator) {
				cands = append(cands, ep)
			}
		}
	}
	if len(cands) == 1 {
		return readResult{Type: cands[0].Name, Decode: cands[0].Unmarshal, Entities: cands}
	}
	home := tp
	if len(cands) > 0 {
		home = cands[0].Table
	}
	return readResult{Type: "Item", Decode: home.Unmarshal, Entities: cands}
}

// entityMatches reports whether the entity's key templates can satisfy
// table key conditions.
func entityMatches(e *catalog.Entity, conds []catalog.KeyCondition, sep string) bool {
	for _, c := range conds {
		var tmpl *catalog.KeyTemplate
		for _, k := range e.Key {
			if k.Attribute == c.Attribute {
				tmpl = k.Template
			}
		}
		if tmpl == nil || len(c.Operands) == 0 {
			continue
		}
		o := c.Operands[0]
		var want *catalog.KeyTemplate
		switch {
		case o.Template != nil:
			want = o.Template
		case o.Param != "":
			want = catalog.MustTemplate("{" + o.Param + "}")
		default:
			continue
		}
		switch c.Op {
		case catalog.OpEq:
			if !mayMatch(tmpl, want, sep, false) {
				return false
			}
		case catalog.OpBeginsWith:
			if !mayMatch(tmpl, want, sep, true) {
				return false
			}
		case catalog.OpBetween:
			// Every key between two bounds begins with the literal text
			// both bounds begin with (SIM# of SIM#{from} and SIM#{to}#~).
			if p := betweenPrefix(c.Operands); p != "" {
				if t, err := catalog.ParseTemplate(p); err == nil && !mayMatch(tmpl, t, sep, true) {
					return false
				}
			}
		}
	}
	return true
}

func (p *plan) planPatterns() error {
	for _, ap := range p.m.AccessPatterns {
		pp := &patternPlan{AP: ap, Name: p.names.claim("pattern:"+ap.ID, exported(ap.ID), "Pattern")}
		switch {
		case ap.NotAnswered != nil:
			pp.Doc = fmt.Sprintf("%s (%s) is not answered by the table: it goes to %s.", ap.ID, ap.Question, goesTo(ap.NotAnswered.GoesTo))
			if ap.NotAnswered.Why != "" {
				pp.Doc += " " + sentence(ap.NotAnswered.Why)
			}
			p.elsewhere = append(p.elsewhere, pp)
			continue
		case ap.Answer == nil:
			continue
		case ap.Answer.Operation != "GetItem" && ap.Answer.Operation != "Query":
			var ops []string
			for _, op := range ap.Operations {
				ops = append(ops, op.Name)
			}
			who := "a business operation"
			if len(ops) > 0 {
				who = joinWords(ops)
			}
			pp.Doc = fmt.Sprintf("%s (%s) has no read of its own: the %s of %s answers it.", ap.ID, ap.Question, writeWord(ap.Answer.Operation), who)
			if ap.Answer.Note != "" {
				pp.Doc = fmt.Sprintf("%s (%s) has no read of its own: %s answers it, %s.", ap.ID, ap.Question, who, strings.TrimSuffix(ap.Answer.Note, "."))
			}
			p.elsewhere = append(p.elsewhere, pp)
			continue
		}
		if err := p.planRead(pp); err != nil {
			return fmt.Errorf("access pattern %s: %w", ap.ID, err)
		}
		p.patterns = append(p.patterns, pp)
	}
	return nil
}

func goesTo(s string) string {
	switch s {
	case "s3ExportAthena":
		return "the S3 export, queried with Athena"
	case "searchEngine":
		return "a search engine fed by the table's stream"
	case "stream":
		return "a consumer of the table's stream"
	}
	return s
}

func writeWord(op string) string {
	switch op {
	case "PutItem":
		return "conditional put"
	case "UpdateItem":
		return "conditional update"
	case "DeleteItem":
		return "conditional delete"
	}
	return op
}

// patternArgs lists the parameters a key condition needs, in order of
// appearance, typed by their attributes; a begins_with operand is a plain
// string even on an enum attribute (a prefix is not a value); a named
// parameter takes its bound attribute's type. The
// fan-out attribute is not a parameter: every shard is read.
func (p *plan) patternArgs(conds []catalog.KeyCondition, params []*catalog.Param, skip string) ([]arg, scope, error) {
	var args []arg
	byName := map[string]*arg{}
	for _, c := range conds {
		for _, o := range c.Operands {
			for _, ph := range o.Placeholders() {
				if ph == skip {
					continue
				}
				// A named parameter (a range's from and to) is typed
				// by the attribute it bounds.
				a := p.m.Attribute(ph)
				for _, prm := range params {
					if prm.Name == ph {
						a = prm.Attribute
					}
				}
				if a == nil {
					return nil, nil, fmt.Errorf("placeholder {%s} is neither an attribute nor a parameter", ph)
				}
				t := p.valueType(a)
				if o.Param != "" && c.Op == catalog.OpBeginsWith && t.kind == kString {
					t = tString
				}
				if prev, ok := byName[ph]; ok {
					if prev.T.enum != nil && t.enum == nil {
						prev.T = tString
					}
					continue
				}
				args = append(args, arg{Name: ph, Var: unexported(ph), T: t})
				byName[ph] = &args[len(args)-1]
			}
		}
	}
	sc := func(name string) (string, *gotype, bool) {
		for _, a := range args {
			if a.Name == name {
				return a.Var, a.T, true
			}
		}
		return "", nil, false
	}
	return args, sc, nil
}

func (p *plan) planRead(pp *patternPlan) error {
	ap := pp.AP
	ans := ap.Answer
	tp := p.tableByN[ans.Table.Name]
	var ip *indexPlan
	if ans.Index != nil {
		ip = p.indexByN[ans.Index.Name]
	}
	fan := fanOut(ans.Index, ans.Shards)
	skip := ""
	if fan != nil {
		skip = fan.attr
	}
	args, sc, err := p.patternArgs(ans.Key, ap.Params, skip)
	if err != nil {
		return err
	}
	pp.Args = args
	res := p.resultOf(tp, ip, ans.Key, nil)
	pp.Result = res.Type

	var doc strings.Builder
	fmt.Fprintf(&doc, "%s answers %q", pp.Name, ap.Question)
	if len(ap.AskedBy) > 0 {
		fmt.Fprintf(&doc, ", asked by %s", joinWords(ap.AskedBy))
	}
	fmt.Fprintf(&doc, " (%s consistency", ap.Consistency)
	if ap.Latency > 0 {
		fmt.Fprintf(&doc, ", within %s", ap.Latency)
	}
	doc.WriteString("): ")
	where := "table " + ans.Table.Name
	if ans.Index != nil {
		where = "index " + ans.Index.Name
	}
	if ans.Operation == "GetItem" {
		pp.Get = true
		fmt.Fprintf(&doc, "a GetItem on %s", where)
		if ans.ConsistentRead {
			doc.WriteString(", strongly consistent")
		}
		doc.WriteString(". It returns nil when there is no such item.")
	} else {
		fmt.Fprintf(&doc, "a Query of %s on %s", where, catalog.KeyConditionText(ans.Key))
		if ans.ConsistentRead {
			doc.WriteString(", strongly consistent")
		}
		if ans.Order == "descending" {
			doc.WriteString(", in descending order")
		}
		if ans.PageSize > 0 {
			fmt.Fprintf(&doc, ", in pages of %d", ans.PageSize)
		}
		doc.WriteString(".")
		if fan != nil {
			fmt.Fprintf(&doc, " It queries each of the %d shards of %s, at most %d at a time, and merges their items in the index's order", fan.count, fan.attr, fan.workers)
			if len(ip.X.Sort) > 0 {
				fmt.Fprintf(&doc, " (%s", strings.Join(ip.X.Sort, ", "))
				if ans.Order == "descending" {
					doc.WriteString(", descending")
				}
				doc.WriteString(")")
			}
			doc.WriteString("; each page holds the items merged since the last one.")
		}
		if len(res.Entities) > 1 && res.Type == "Item" {
			var names []string
			for _, e := range res.Entities {
				names = append(names, e.Name)
			}
			fmt.Fprintf(&doc, " Items are %s values (a type switch tells them apart).", joinWords(names))
		}
	}
	if ap.IfWrong != "" {
		doc.WriteString(" If it were answered wrong: " + lowerFirst(sentence(ap.IfWrong)))
	}
	if ans.Note != "" {
		doc.WriteString(" Note: " + lowerFirst(sentence(ans.Note)))
	}
	pp.Doc = doc.String()

	if pp.Get {
		pp.Body, err = p.getPatternBody(pp, tp, ans, sc, res)
	} else {
		pp.Body, err = p.queryPatternBody(pp, tp, ip, ans, sc, res, fan)
	}
	return err
}

// fanout is how a sharded index is read: every shard, bounded.
type fanout struct {
	attr    string
	count   int
	workers int
}

func fanOut(x *catalog.Index, f *catalog.FanOut) *fanout {
	if x == nil || x.Shards == nil || f == nil || f.FanOut != "all" {
		return nil
	}
	w := f.Workers
	if w <= 0 || w > x.Shards.Count {
		w = x.Shards.Count
	}
	return &fanout{attr: x.Shards.Attribute, count: x.Shards.Count, workers: w}
}

func (p *plan) getPatternBody(pp *patternPlan, tp *tablePlan, ans *catalog.Answer, sc scope, res readResult) (string, error) {
	sp, err := p.answerPlan(pp.AP)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fail := func(e string) string {
		return fmt.Sprintf("return nil, Capacity{}, fmt.Errorf(%q, %s)", pp.Name+": %w", e)
	}
	cc, err := p.writeCall(sp, sc, "key", fail)
	if err != nil {
		return "", err
	}
	// The entity's key builder, when the condition keys its templates.
	if len(res.Entities) == 1 {
		if pre, err := p.keyCode(res.Entities[0], tp, sp.Key, sc, "key", fail); err == nil {
			cc.pre = pre
		}
	}
	b.WriteString(cc.pre)
	fmt.Fprintf(&b, "out, err := c.db.GetItem(ctx, &dynamodb.GetItemInput{\n%s,\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n})\n", strings.Join(cc.fields, ",\n"))
	fmt.Fprintf(&b, "if err != nil {\n%s\n}\n", fail("err"))
	p.use("capacityOf")
	b.WriteString("used := capacityOf(out.ConsumedCapacity)\n")
	b.WriteString("if len(out.Item) == 0 {\nreturn nil, used, nil\n}\n")
	fmt.Fprintf(&b, "x, err := %s(out.Item)\nif err != nil {\nreturn nil, used, fmt.Errorf(%q, err)\n}\nreturn &x, used, nil\n", res.Decode, pp.Name+": %w")
	return b.String(), nil
}

func (p *plan) queryPatternBody(pp *patternPlan, tp *tablePlan, ip *indexPlan, ans *catalog.Answer, sc scope, res readResult, fan *fanout) (string, error) {
	sp, err := p.answerPlan(pp.AP)
	if err != nil {
		return "", err
	}
	// The page size is the reader's (PageSize), the model's by default.
	sp.Limit = 0
	var b strings.Builder
	shardVar := ""
	if sp.ShardCount > 0 {
		shardVar = "shard"
	}
	cc, err := p.queryCall(sp, sc, shardVar)
	if err != nil {
		return "", err
	}
	code := "&dynamodb.QueryInput{\n" + strings.Join(cc.fields, ",\n") + ",\nReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,\n}"
	if cc.usesK {
		b.WriteString("var k keyBuilder\n")
	}
	p.use("readOptions")
	if fan == nil || sp.ShardCount == 0 {
		p.use("queryPages")
		fmt.Fprintf(&b, "q := %s\n", code)
		if cc.usesK {
			fmt.Fprintf(&b, "if k.err != nil {\nreturn failed[Page[%s]](fmt.Errorf(%q, k.err))\n}\n", res.Type, pp.Name+": %w")
			p.use("failed")
		}
		fmt.Fprintf(&b, "return queryPages(ctx, c.db, q, readWith(opts, %d, 1), %s)\n", ans.PageSize, res.Decode)
		return b.String(), nil
	}
	p.use("scatterPages")
	ip.UsedCompare = true
	fmt.Fprintf(&b, "qs := make([]*dynamodb.QueryInput, 0, %d)\n", sp.ShardCount)
	fmt.Fprintf(&b, "for %s := range int64(%d) {\nqs = append(qs, %s)\n}\n", shardVar, sp.ShardCount, code)
	if cc.usesK {
		fmt.Fprintf(&b, "if k.err != nil {\nreturn failed[Page[%s]](fmt.Errorf(%q, k.err))\n}\n", res.Type, pp.Name+": %w")
		p.use("failed")
	}
	fmt.Fprintf(&b, "return scatterPages(ctx, c.db, qs, readWith(opts, %d, %d), %s, %s, %v)\n", ans.PageSize, fan.workers, res.Decode, ip.Compare, ans.Order == "descending")
	return b.String(), nil
}

// betweenPrefix is the literal text both bounds of a between begin with;
// "" when they share none or a bound is not a template.
func betweenPrefix(ops []catalog.Operand) string {
	if len(ops) != 2 || ops[0].Template == nil || ops[1].Template == nil {
		return ""
	}
	a, b := ops[0].Template.Prefix(), ops[1].Template.Prefix()
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}
