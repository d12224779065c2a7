package budget

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
)

// Cause kinds.
const (
	CauseItemSize        = "item-size"        // an item crossed a 1 KB (write) or 4 KB (read) boundary
	CauseProjection      = "projection"       // an index copies attributes: entries rewritten or over 1 KB
	CauseIndexKeyChange  = "index-key-change" // a write changes an index key: delete + put
	CauseIndexEntry      = "index-entry"      // an entry enters or leaves an index
	CauseTransaction     = "transaction"      // a transaction doubles the table charge
	CauseFailedCondition = "failed-condition" // a failed condition is still billed
	CausePage            = "page"             // a page summed past 4 KB
	CauseFanOut          = "fan-out"          // the page is read on every shard
	CausePages           = "pages"            // the variant reads several pages
)

// kindRank orders causes: those a change of the design removes (an item
// past a size boundary, what an index copies or keys on, a page summed
// past 4 KB) come first, dearest first, before those the operation's shape
// implies (an entry that must enter or leave an index, a condition that
// fails, a transaction, a fan-out), which a reviewer reads as context.
var kindRank = map[string]int{
	CauseItemSize: 0, CauseProjection: 1, CauseIndexKeyChange: 2, CausePage: 3,
	CauseIndexEntry: 4, CauseFailedCondition: 5, CauseTransaction: 6, CauseFanOut: 7, CausePages: 8,
}

// avoidable is the rank below which a cause is one of the design's.
const avoidable = 4

// mergeTransactions makes one cause of what every action of one
// transaction pays alike: the doubling of its table writes, or the bill
// of a cancellation.
func (x *explainer) mergeTransactions(cs []Cause) []Cause {
	var out []Cause
	type key struct {
		parent string
		rule   capacity.Rule
	}
	at := map[key]int{}
	count := map[key]int{}
	for _, c := range cs {
		k := key{parentID(c.Step), c.rule}
		if !strings.Contains(c.Step, "/") || (c.rule != capacity.RuleTransaction && c.rule != capacity.RuleCancelled) {
			out = append(out, c)
			continue
		}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, c)
			count[k] = 1
			continue
		}
		count[k]++
		m := &out[i]
		if c.rule == capacity.RuleCancelled && x.failing(c.Step) {
			// The cancellation is the failing action's doing: point
			// at its condition, not the transaction's first action.
			m.At = c.At
		}
		m.Units += c.Units
		m.Extra += c.Extra
		m.Step = k.parent
		if c.rule == capacity.RuleTransaction {
			m.Text = fmt.Sprintf("the %d actions of transaction %s are billed twice on the table (prepare and commit): %s WRU instead of %s", count[k], k.parent, num(m.Units), num(m.Units-m.Extra))
		} else {
			m.Text = fmt.Sprintf("transaction %s is cancelled because the condition of %s fails; AWS reports nothing for it yet bills it: its %d actions %s WRU by the failed-write rule, doubled, though nothing is written", k.parent, x.failedStep(), count[k], num(m.Units))
		}
	}
	return out
}

// explainer derives causes for one variant of one operation from the
// static estimate's reasons (each names its billing rule) and the catalog.
type explainer struct {
	m     *catalog.Model
	op    *catalog.Operation
	b     *catalog.Budget
	rules capacity.Rules
	// reads is how many times the step being explained reads its page
	// (shards x pages).
	reads float64
}

// Explain describes a budget the variant exceeds: the steps that consume
// the unit, dearest first, with the billing rules behind each charge, and
// the causes a reviewer can act on, each at its place in the model.
func Explain(m *catalog.Model, op *catalog.Operation, b *catalog.Budget, rules capacity.Rules, steps []Step, unit string, measured, budget float64) Excess {
	return explain(m, op, b, rules, steps, unit, measured, budget, "")
}

// explain is Explain with the words of the figure's source: "measured"
// ("" too) or "is estimated at".
func explain(m *catalog.Model, op *catalog.Operation, b *catalog.Budget, rules capacity.Rules, steps []Step, unit string, measured, budget float64, verb string) Excess {
	if verb == "" {
		verb = "measured"
	}
	x := &explainer{m: m, op: op, b: b, rules: rules}
	ex := Excess{Unit: unit, Measured: measured, Budget: budget, Over: measured - budget}
	var text strings.Builder
	fmt.Fprintf(&text, "%s %s %s %s against a budget of %s: %s %s over.", x.name(), verb, num(measured), unit, num(budget), num(ex.Over), unit)
	order := make([]int, 0, len(steps))
	for i := range steps {
		if steps[i].Measured.of(unit) > 0 || steps[i].Static.of(unit) > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		return steps[order[i]].Measured.of(unit) > steps[order[j]].Measured.of(unit)
	})
	for _, i := range order {
		st := &steps[i]
		fmt.Fprintf(&text, "\n  step %s (%s on %s): %s %s", st.ID, st.Kind, st.Table, num(st.Measured.of(unit)), unit)
		switch {
		case st.Computed:
			fmt.Fprintf(&text, " (computed by the billing rules: the response carried none)")
		case st.Static.of(unit) != st.Measured.of(unit):
			fmt.Fprintf(&text, " measured, %s by the static estimate", num(st.Static.of(unit)))
		}
		for _, part := range st.parts() {
			pad := "    "
			if len(st.Actions) > 0 {
				fmt.Fprintf(&text, "\n    action %s (%s): %s %s static", part.ID, part.Kind, num(part.Static.of(unit)), unit)
				pad = "      "
			}
			for _, l := range part.Reasons {
				if unitOf(l.Rule) == unit && l.Text != "" {
					fmt.Fprintf(&text, "\n%s%s: %s", pad, l.Target, l.Text)
				}
			}
			ex.Causes = append(ex.Causes, x.causes(part, unit)...)
		}
	}
	ex.Causes = x.mergeTransactions(ex.Causes)
	sort.SliceStable(ex.Causes, func(i, j int) bool {
		a, b := ex.Causes[i], ex.Causes[j]
		if ca, cb := kindRank[a.Kind] < avoidable, kindRank[b.Kind] < avoidable; ca != cb {
			return ca
		}
		if a.Extra != b.Extra {
			return a.Extra > b.Extra
		}
		return kindRank[a.Kind] < kindRank[b.Kind]
	})
	ex.At = x.budgetAt(unit)
	if len(ex.Causes) > 0 {
		text.WriteString("\n  causes, those of the design first, dearest first:")
		for _, c := range ex.Causes {
			fmt.Fprintf(&text, "\n  - %s (%s:%d, %s)", c.Text, c.At.File, c.At.Line, c.At.Path)
		}
	}
	if len(ex.Causes) == 0 || kindRank[ex.Causes[0].Kind] >= avoidable {
		fmt.Fprintf(&text, "\n  nothing in the design makes this variant dearer than its requests must be (every item fits its units, no index copies or moves more than it must): the budget, declared at %s, is below what the operation consumes", ex.At.short())
	} else {
		fmt.Fprintf(&text, "\n  budget declared at %s", ex.At.short())
	}
	ex.Text = text.String()
	return ex
}

func (l Location) short() string { return fmt.Sprintf("%s:%d (%s)", l.File, l.Line, l.Path) }

func (x *explainer) name() string {
	if x.b == nil || x.b.Name == "" {
		return x.op.Name
	}
	return x.op.Name + "/" + x.b.Name
}

// budgetAt is where the variant's budget for unit is declared.
func (x *explainer) budgetAt(unit string) Location {
	if x.b == nil || x.b.Name == "" {
		return positioned(x.m, "operations", x.op.Name)
	}
	return positioned(x.m, "operations", x.op.Name, "budgets", x.b.Name, strings.ToLower(unit))
}

// unitOf tells which dimension a rule charges.
func unitOf(r capacity.Rule) string {
	switch r {
	case capacity.RuleReadSize, capacity.RulePage, capacity.RuleFetch, estimate.RulePages, estimate.RuleShards:
		return RRU
	}
	return WRU
}

// stepRef is a step of the operation with its place in the document and
// the sample images the variant gives it.
type stepRef struct {
	step          *catalog.Step
	parent        *catalog.Step // the transaction of an action
	path          []string      // operations.X.steps[i](.transaction.items[j])
	entity        *catalog.Entity
	before, after attr.Item
	read          attr.Item
}

// ref finds a step by its id in the estimate ("apply/settlement" for an
// action of transaction apply).
func (x *explainer) ref(id string) *stepRef {
	parentID, actionID, isAction := strings.Cut(id, "/")
	for i, s := range x.op.Steps {
		if s.ID != parentID {
			continue
		}
		r := &stepRef{step: s, path: []string{"operations", x.op.Name, "steps", strconv.Itoa(i)}}
		if isAction {
			found := false
			for j, it := range s.Items {
				if it.ID == actionID {
					r.parent, r.step, found = s, it, true
					r.path = append(r.path, "transaction", "items", strconv.Itoa(j))
				}
			}
			if !found {
				return nil
			}
		}
		if q := r.step.Request; q != nil && q.Entity != nil && x.b != nil {
			r.entity = q.Entity
			_, _, sn := x.b.SamplesFor(r.step)
			if sn != "" {
				r.read, _ = q.Entity.Sample(sn)
			}
			if r.step.Kind.IsWrite() {
				// The images the estimate charges: the item found, and
				// the one the request leaves, computed from it.
				r.before, r.after, _ = x.op.Images(r.step, x.b)
			}
		}
		return r
	}
	return nil
}

// at returns the location of a part of the step's request.
func (r *stepRef) at(m *catalog.Model, more ...string) Location {
	path := append(append([]string{}, r.path...), string(r.step.Kind))
	return positioned(m, append(path, more...)...)
}

// causes turns the reasons of a step (or transaction action) in one
// dimension into causes.
//
// A cause's Extra is what removing it would save on the whole step: an
// item's size past 1 KB counts twice in a transaction, a page's sum once
// per shard and per page read. Multipliers (a transaction's doubling
// aside, which is a charge of its own) save nothing by themselves.
func (x *explainer) causes(st Action, unit string) []Cause {
	r := x.ref(st.ID)
	txn, reads, pageUnits, total := 1.0, 1.0, 0.0, 0.0
	for _, l := range st.Reasons {
		switch l.Rule {
		case capacity.RuleTransaction:
			txn = 2
		case capacity.RulePage:
			pageUnits += l.Units
		case estimate.RuleShards:
			total = l.Units
			reads *= float64(x.queries(r))
		case estimate.RulePages:
			total = l.Units
			if x.b != nil && x.b.Pages > 1 {
				reads *= float64(x.b.Pages)
			}
		}
	}
	// What the page's sum costs over every page read (shards' pages
	// differ by their shard values, so the total is the estimate's).
	saving := 1.0
	if pageUnits > 0 && total > pageUnits {
		saving = total / pageUnits
	}
	x.reads = reads
	var out []Cause
	for _, l := range st.Reasons {
		if unitOf(l.Rule) != unit {
			continue
		}
		if (l.Rule == capacity.RuleFailedCondition || l.Rule == capacity.RuleCancelled) && l.Bytes > capacity.WriteUnitBytes && sizeBilled(l) {
			// A failed write is billed on the item's size too: past
			// 1 KB, that is a cause of its own.
			size := l
			size.Rule, size.Units = capacity.RuleWriteSize, capacity.WriteUnits(l.Bytes)
			if c, ok := x.cause(&st, r, size); ok {
				c.Step, c.Target = st.ID, l.Target
				if l.Rule == capacity.RuleCancelled {
					c.Extra *= 2
				}
				out = append(out, c)
			}
		}
		c, ok := x.cause(&st, r, l)
		if !ok {
			continue
		}
		c.Step, c.Target, c.rule = st.ID, l.Target, l.Rule
		switch {
		case c.Kind == CauseItemSize && l.Rule == capacity.RuleWriteSize:
			c.Extra *= txn
		case c.Kind == CausePage:
			c.Extra *= saving
		case c.Kind == CauseFanOut || c.Kind == CausePages:
			c.Extra = 0
		}
		out = append(out, c)
	}
	return out
}

// cause explains one line of an estimate in words. It stays one switch,
// one case a billing rule, so each rule's explanation reads beside its kin.
func (x *explainer) cause(st *Action, r *stepRef, l estimate.Line) (Cause, bool) {
	label := "the item"
	if r != nil && r.entity != nil {
		label = r.entity.Name
	}
	c := Cause{Units: l.Units}
	switch l.Rule {
	case capacity.RuleWriteSize:
		if l.Bytes <= capacity.WriteUnitBytes {
			return c, false
		}
		c.Kind, c.Extra = CauseItemSize, l.Units-1
		img := x.larger(r, l.Bytes)
		c.Text = fmt.Sprintf("%s is %s B, %s (a write unit is 1 KB): each write of it costs %s WRU instead of 1%s",
			label, group(l.Bytes), overBy(l.Bytes, capacity.WriteUnitBytes), num(l.Units), x.heaviest(img, nil, "; its largest attributes: "))
		c.At = x.entityAt(r, img, nil)
	case capacity.RuleReadSize:
		if l.Bytes <= capacity.ReadUnitBytes {
			return c, false
		}
		c.Kind, c.Extra = CauseItemSize, l.Units-capacity.ReadUnits(1, consistencyOf(r))
		var img attr.Item
		if r != nil {
			img = r.read
		}
		c.Text = fmt.Sprintf("%s is %s B, %s (a read unit is 4 KB): reading it costs %s RRU%s",
			label, group(l.Bytes), overBy(l.Bytes, capacity.ReadUnitBytes), num(l.Units), x.heaviest(img, nil, "; its largest attributes: "))
		c.At = x.entityAt(r, img, nil)
	case capacity.RuleTransaction:
		c.Kind, c.Extra = CauseTransaction, l.Units/2
		c.Text = fmt.Sprintf("%s is an action of a transaction: DynamoDB bills its table write twice (prepare and commit), %s WRU instead of %s", stepName(st), num(l.Units), num(l.Units/2))
		if r != nil && r.parent != nil {
			c.At = positioned(x.m, append(append([]string{}, r.path[:4]...), "transaction")...)
		}
	case capacity.RuleConditionCheck:
		c.Kind, c.Extra = CauseTransaction, l.Units/2
		c.Text = fmt.Sprintf("%s checks a condition inside a transaction: billed as a write, twice, %s WRU, though nothing is written", stepName(st), num(l.Units))
		if r != nil {
			c.At = positioned(x.m, r.path...)
		}
	case capacity.RuleFailedCondition, capacity.RuleCancelled:
		if l.Units == 0 {
			return c, false
		}
		c.Kind, c.Extra = CauseFailedCondition, l.Units
		if l.Rule == capacity.RuleCancelled {
			c.Text = fmt.Sprintf("the transaction is cancelled because a condition fails (%s); AWS reports nothing for it yet bills it: %s WRU for %s by the failed-write rule, doubled", x.failedStep(), num(l.Units), stepName(st))
		} else {
			c.Text = fmt.Sprintf("the condition of %s fails in this variant and the write is billed all the same: %s WRU, though nothing is written", stepName(st), num(l.Units))
		}
		if r != nil {
			c.At = r.at(x.m, "condition")
		}
	case capacity.RuleIndexPut, capacity.RuleIndexDelete:
		ix := x.m.Index(l.Target)
		if ix == nil || l.Units == 0 {
			return c, false
		}
		img := x.imageFor(r, l.Rule == capacity.RuleIndexPut)
		if l.Bytes > capacity.WriteUnitBytes {
			c.Kind, c.Extra = CauseProjection, l.Units-1
			c.Text = fmt.Sprintf("the %s entry of %s is %s B, over 1 KB, because %s copies %s: %s WRU for one entry write",
				ix.Name, label, group(l.Bytes), projectionWords(ix), x.heaviest(ix.Entry(img), ix, ""), num(l.Units))
			c.At = positioned(x.m, "indexes", ix.Name, "projection")
			return c, true
		}
		c.Kind, c.Extra = CauseIndexEntry, l.Units
		verb, keys := "enters", x.keysGained(r, ix, true)
		if l.Rule == capacity.RuleIndexDelete {
			verb, keys = "leaves", x.keysGained(r, ix, false)
		}
		c.Text = fmt.Sprintf("%s %s %s%s: the entry write costs %s WRU", label, verb, ix.Name, keys, num(l.Units))
		c.At = positioned(x.m, "indexes", ix.Name)
	case capacity.RuleIndexKeyChange:
		ix := x.m.Index(l.Target)
		if ix == nil || l.Units == 0 {
			return c, false
		}
		changed := x.changed(r, ix.KeyAttributes())
		c.Kind, c.Extra = CauseIndexKeyChange, l.Units
		c.Text = fmt.Sprintf("the write changes the key of %s%s: DynamoDB deletes the old entry and puts the new one, %s WRU", ix.Name, x.changeWords(r, changed), num(l.Units))
		if l.Bytes > capacity.WriteUnitBytes {
			c.Text += fmt.Sprintf("; its entries are %s B, over 1 KB, because %s copies %s", group(l.Bytes), projectionWords(ix), x.heaviest(ix.Entry(x.larger(r, 0)), ix, ""))
		}
		c.At = x.keyAt(ix, changed)
	case capacity.RuleIndexRewrite:
		ix := x.m.Index(l.Target)
		if ix == nil || l.Units == 0 {
			return c, false
		}
		var projected []string
		for _, a := range x.changed(r, nil) {
			if ix.Projects(a) {
				projected = append(projected, a)
			}
		}
		what := "attributes it carries"
		if len(projected) > 0 {
			what = strings.Join(projected, ", ")
		}
		c.Kind, c.Extra = CauseProjection, l.Units
		c.Text = fmt.Sprintf("%s %s, so a write that changes %s (carried, not keyed, by the index) rewrites its entry: %s WRU", ix.Name, projectionVerb(ix), what, num(l.Units))
		c.At = positioned(x.m, "indexes", ix.Name, "projection")
	case capacity.RuleIndexTransaction:
		c.Kind, c.Extra = CauseTransaction, l.Units/2
		c.Text = fmt.Sprintf("index charges of %s are doubled in a transaction by the rules in force: %s WRU", stepName(st), num(l.Units))
		if r != nil {
			c.At = positioned(x.m, r.path...)
		}
	case capacity.RulePage:
		if l.Bytes <= capacity.ReadUnitBytes {
			return c, false
		}
		c.Kind, c.Extra = CausePage, l.Units-capacity.ReadUnits(1, consistencyOf(r))
		perPage := num(l.Units) + " RRU"
		if x.reads > 1 {
			perPage = fmt.Sprintf("%s RRU a page, read %s times by the step", num(l.Units), num(x.reads))
		}
		c.Text = fmt.Sprintf("one page of %s sums %s B before rounding to 4 KB: %s", stepName(st), group(l.Bytes), perPage)
		if r != nil && r.step.Request != nil {
			q := r.step.Request
			img := x.matchImage(q)
			if ix := q.Index; ix != nil && ix.Projection.Type != "KEYS_ONLY" {
				if img != nil {
					entry := ix.Entry(img)
					c.Text = fmt.Sprintf("one page of %s sums %s B of %s entries of %s B each before rounding to 4 KB: %s; %s %s, so each entry carries %s",
						stepName(st), group(l.Bytes), ix.Name, group(x.rules.ItemSize(entry)), perPage, ix.Name, projectionVerb(ix), x.heaviest(entry, ix, ""))
				}
				c.At = positioned(x.m, "indexes", ix.Name, "projection")
			} else {
				if img != nil {
					c.Text = fmt.Sprintf("one page of %s sums %s B of items of %s B each before rounding to 4 KB: %s%s",
						stepName(st), group(l.Bytes), group(x.rules.ItemSize(img)), perPage, x.heaviest(img, nil, "; their largest attributes: "))
				}
				c.At = r.at(x.m)
			}
		}
	case estimate.RuleShards:
		if r == nil || r.step.Request == nil || r.step.Request.Index == nil || r.step.Request.Index.Shards == nil {
			return c, false
		}
		n := float64(r.step.Request.Index.Shards.Count)
		c.Kind, c.Extra = CauseFanOut, l.Units-l.Units/n
		c.Text = fmt.Sprintf("%s reads its page on each of the %s of %s: %s RRU in all", stepName(st), digits.Count(int(n), "shard"), r.step.Request.Index.Name, num(l.Units))
		c.At = r.at(x.m, "shards")
	case estimate.RulePages:
		if x.b == nil || x.b.Pages < 2 {
			return c, false
		}
		c.Kind, c.Extra = CausePages, l.Units-l.Units/float64(x.b.Pages)
		c.Text = fmt.Sprintf("the variant reads %s: %s RRU", digits.Count(x.b.Pages, "page"), num(l.Units))
		c.At = positioned(x.m, "operations", x.op.Name, "budgets", x.b.Name, "pages")
	default:
		return c, false
	}
	if c.At.Line == 0 {
		c.At = positioned(x.m, "operations", x.op.Name)
	}
	return c, true
}

func stepName(st *Action) string { return "step " + st.ID }

// failing reports whether the action id ("checkout/order") is the one
// whose condition the variant declares failing.
func (x *explainer) failing(id string) bool {
	return x.b != nil && x.b.FailedStep != "" && id[strings.LastIndex(id, "/")+1:] == x.b.FailedStep
}

func (x *explainer) failedStep() string {
	if x.b != nil && x.b.FailedStep != "" {
		return "step " + x.b.FailedStep
	}
	return "an action"
}

func consistencyOf(r *stepRef) capacity.Consistency {
	if r != nil && r.step.Request != nil && r.step.Request.ConsistentRead {
		return capacity.Strong
	}
	return capacity.Eventual
}

// larger returns the image of the write whose size is bytes, or the
// larger one.
func (x *explainer) larger(r *stepRef, bytes int) attr.Item {
	if r == nil {
		return nil
	}
	bs, as := x.rules.ItemSize(r.before), x.rules.ItemSize(r.after)
	switch {
	case r.after != nil && as == bytes:
		return r.after
	case r.before != nil && bs == bytes:
		return r.before
	case as >= bs:
		return r.after
	}
	return r.before
}

// imageFor returns the image that makes an index entry: after for an
// entry put, before for an entry deleted.
func (x *explainer) imageFor(r *stepRef, put bool) attr.Item {
	if r == nil {
		return nil
	}
	if put {
		return r.after
	}
	return r.before
}

// matchImage is the first sample a query's page holds.
func (x *explainer) matchImage(q *catalog.Request) attr.Item {
	for _, mt := range q.Matches {
		if mt.Entity != nil {
			if it, ok := mt.Entity.Sample(mt.Sample); ok && it != nil {
				return it
			}
		}
	}
	return nil
}

// heaviest names the largest top-level attributes of an item (an index
// entry: leaving out the keys every entry must carry), "promises (L,
// 812 B), statusHistory (L, 390 B)".
func (x *explainer) heaviest(it attr.Item, ix *catalog.Index, prefix string) string {
	if len(it) == 0 {
		return ""
	}
	type part struct {
		name string
		t    attr.Type
		size int
	}
	var parts []part
	total := 0
	for _, p := range x.rules.Breakdown(it, 1) {
		if p.Depth != 0 {
			continue
		}
		total += p.Size()
		if ix != nil && isKey(ix, p.Name) {
			continue
		}
		parts = append(parts, part{p.Name, p.Type, p.Size()})
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].size > parts[j].size })
	var names []string
	for i, p := range parts {
		if i == 3 || (i > 0 && p.size*20 < total) {
			break
		}
		names = append(names, fmt.Sprintf("%s (%s, %s B)", p.name, p.t, group(p.size)))
	}
	if len(names) == 0 {
		return prefix + "only its keys"
	}
	return prefix + strings.Join(names, ", ")
}

func isKey(ix *catalog.Index, name string) bool {
	for _, a := range ix.KeyAttributes() {
		if a == name {
			return true
		}
	}
	return ix.Table != nil && (name == ix.Table.PartitionKey || name == ix.Table.SortKey)
}

// entityAt points at the entity's declaration of the heaviest attribute
// of img (the attribute that would have to move out), or at the entity.
func (x *explainer) entityAt(r *stepRef, img attr.Item, ix *catalog.Index) Location {
	if r == nil || r.entity == nil {
		return Location{}
	}
	best, size := "", 0
	for _, p := range x.rules.Breakdown(img, 1) {
		if p.Depth == 0 && p.Size() > size && (ix == nil || !isKey(ix, p.Name)) {
			best, size = p.Name, p.Size()
		}
	}
	if best != "" {
		if pos, ok := x.m.Locate("entities", r.entity.Name, "attributes", best); ok {
			return Location{File: pos.File, Line: pos.Line, Column: pos.Col, Path: joinPath([]string{"entities", r.entity.Name, "attributes", best})}
		}
	}
	return positioned(x.m, "entities", r.entity.Name)
}

// changed lists the attributes (among names, or all) whose values differ
// between the step's before and after images.
func (x *explainer) changed(r *stepRef, names []string) []string {
	if r == nil {
		return nil
	}
	if names == nil {
		seen := map[string]bool{}
		for _, it := range []attr.Item{r.before, r.after} {
			for _, a := range it {
				if !seen[a.Name] {
					seen[a.Name] = true
					names = append(names, a.Name)
				}
			}
		}
		sort.Strings(names)
	}
	var out []string
	for _, n := range names {
		a, aok := r.before.Get(n)
		b, bok := r.after.Get(n)
		if aok != bok || (aok && !attr.Equal(a, b)) {
			out = append(out, n)
		}
	}
	return out
}

// changeWords writes " (bucket D031_060 -> D001_030, ...)".
func (x *explainer) changeWords(r *stepRef, names []string) string {
	if len(names) == 0 || r == nil {
		return ""
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %s -> %s", n, show(r.before, n), show(r.after, n)))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// keysGained writes " (the write sets nextActionDate, a key of GSI1)" for
// an entry that enters, or the keys removed for one that leaves.
func (x *explainer) keysGained(r *stepRef, ix *catalog.Index, enter bool) string {
	if r == nil {
		return ""
	}
	var names []string
	for _, n := range ix.KeyAttributes() {
		_, had := r.before.Get(n)
		_, has := r.after.Get(n)
		if enter && has && !had || !enter && had && !has {
			names = append(names, n)
		}
	}
	switch {
	case len(names) == 0 && enter:
		return " (a new item that carries its keys)"
	case len(names) == 0 && !enter:
		return " (the item is deleted)"
	}
	what := ", a key of the index)"
	if len(names) > 1 {
		what = ", keys of the index)"
	}
	if enter {
		return " (the write sets " + strings.Join(names, ", ") + what
	}
	return " (the write removes " + strings.Join(names, ", ") + what
}

// keyAt points at the first changed attribute in the index's key
// declaration.
func (x *explainer) keyAt(ix *catalog.Index, changed []string) Location {
	for _, n := range changed {
		for side, names := range map[string][]string{"partition": ix.Partition, "sort": ix.Sort} {
			for i, a := range names {
				if a == n {
					return positioned(x.m, "indexes", ix.Name, side, strconv.Itoa(i))
				}
			}
		}
	}
	return positioned(x.m, "indexes", ix.Name)
}

func projectionVerb(ix *catalog.Index) string {
	switch ix.Projection.Type {
	case "ALL":
		return "projects ALL attributes"
	case "INCLUDE":
		return "projects " + strings.Join(ix.Projection.Attributes, ", ")
	}
	return "projects its keys only"
}

func projectionWords(ix *catalog.Index) string {
	switch ix.Projection.Type {
	case "ALL":
		return "its projection ALL"
	case "INCLUDE":
		return "its projection (INCLUDE " + strings.Join(ix.Projection.Attributes, ", ") + ")"
	}
	return "its keys"
}

// show writes an attribute's value briefly, or "absent".
func show(it attr.Item, name string) string {
	v, ok := it.Get(name)
	if !ok {
		return "absent"
	}
	switch v.Type {
	case attr.S, attr.N:
		s := v.Str
		if len([]rune(s)) > 24 {
			s = string([]rune(s)[:23]) + "…"
		}
		return s
	}
	return v.Type.String()
}

func num(f float64) string { return estimate.Num(f) }

func group(n int) string { return estimate.Num(float64(n)) }

// overBy writes "438 B over 1 KB" for a size past a unit boundary.
func overBy(bytes, unit int) string {
	prev := (bytes - 1) / unit * unit
	return group(bytes-prev) + " B over " + strconv.Itoa(prev/1024) + " KB"
}

// queries is how many queries a fan-out step sends (one per shard, or
// per worker on an index without shards).
func (x *explainer) queries(r *stepRef) int {
	if r == nil || r.step.Request == nil {
		return 1
	}
	n, _ := estimate.FanOutQueries(r.step.Request)
	return max(n, 1)
}

// sizeBilled reports whether a failed write's units are its size's: the
// failed-write rule charges some writes (a new item) 1 unit whatever
// their size.
func sizeBilled(l estimate.Line) bool {
	want := capacity.WriteUnits(l.Bytes)
	if l.Rule == capacity.RuleCancelled {
		want *= 2
	}
	return l.Units >= want
}
