package diff

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// Change is one difference between BASE and HEAD.
type Change struct {
	// Kind is what changed and how: "index.added", "entity.key",
	// "accessPattern.removed", "api.changed".
	Kind string `json:"kind"`
	// Path names the changed element, the way the acknowledge list
	// names it: "indexes.byStatus.projection".
	Path string `json:"path"`
	// File, Line and Column are where HEAD's model says it (for an
	// element HEAD lost: the nearest enclosing element HEAD still has).
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Text says what changed, in the model's words.
	Text string `json:"text"`
	// Breaking marks a change that makes the code or the data of BASE
	// wrong under HEAD: a removed or renamed element, a key that moved,
	// an index that no longer holds what its readers read.
	Breaking bool `json:"breaking"`
	// Acknowledged is the reason HEAD's acknowledge list gives for it,
	// "" when it gives none.
	Acknowledged string `json:"acknowledged,omitempty"`
}

// changes collects the differences of two models.
type changes struct {
	base, head *catalog.Model
	out        []Change
}

// add records a change at path (keys Model.Locate follows).
func (c *changes) add(kind string, breaking bool, path []string, format string, args ...any) {
	pos, _ := c.head.Locate(path...)
	ch := Change{Kind: kind, Path: strings.Join(path, "."), File: pos.File, Line: pos.Line, Column: pos.Col,
		Text: fmt.Sprintf(format, args...), Breaking: breaking}
	if breaking {
		if a, _, ok := c.head.Acknowledges(ch.Path); ok {
			ch.Acknowledged = a.Why
		}
	}
	c.out = append(c.out, ch)
}

// Changes lists what HEAD changes of BASE, section by section in the
// model's order: tables, attributes, entities, indexes, access patterns,
// operations.
func Changes(base, head *catalog.Model) []Change {
	c := &changes{base: base, head: head}
	c.model()
	return c.out
}

func (c *changes) model() {
	c.tables()
	c.attributes()
	c.entities()
	c.indexes()
	c.patterns()
	c.operations()
}

// pair walks the union of two name-keyed sets in name order.
func pair[T any](a, b []T, name func(T) string, f func(n string, x, y T, inA, inB bool)) {
	am, bm := map[string]T{}, map[string]T{}
	for _, x := range a {
		am[name(x)] = x
	}
	for _, y := range b {
		bm[name(y)] = y
	}
	for _, n := range union(am, bm) {
		x, inA := am[n]
		y, inB := bm[n]
		f(n, x, y, inA, inB)
	}
}

// union returns the keys of a and b, sorted, each once.
func union[V any](a, b map[string]V) []string {
	names := slices.Collect(maps.Keys(a))
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// differ records kind at path when the two renderings differ.
func (c *changes) differ(kind string, breaking bool, path []string, what, was, now string) {
	if was == now {
		return
	}
	c.add(kind, breaking, path, "%s: %s -> %s", what, orNone(was), orNone(now))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (c *changes) tables() {
	pair(c.base.Tables, c.head.Tables, func(t *catalog.Table) string { return t.Name }, func(n string, a, b *catalog.Table, inA, inB bool) {
		at := []string{"tables", n}
		switch {
		case !inA:
			c.add("table.added", false, at, "table %s added (%s)", n, keyText(b.PartitionKey, b.SortKey))
			return
		case !inB:
			c.add("table.removed", true, at, "table %s removed: its items go with it", n)
			return
		}
		c.differ("table.key", true, sub(at, "partitionKey"), "table "+n+" key", keyText(a.PartitionKey, a.SortKey), keyText(b.PartitionKey, b.SortKey))
		c.differ("table.discriminator", true, sub(at, "discriminator"), "table "+n+" discriminator", a.Discriminator, b.Discriminator)
		c.differ("table.billing", false, sub(at, "billing"), "table "+n+" billing", billingText(a.Billing), billingText(b.Billing))
		c.differ("table.warmThroughput", false, sub(at, "billing", "warmThroughput"), "table "+n+" warm throughput", tputText(a.Billing.WarmThroughput), tputText(b.Billing.WarmThroughput))
		c.differ("table.maxOnDemand", false, sub(at, "billing", "maxOnDemand"), "table "+n+" maximum on-demand throughput", tputText(a.Billing.MaxOnDemand), tputText(b.Billing.MaxOnDemand))
		c.differ("table.class", false, sub(at, "class"), "table "+n+" class", a.Class, b.Class)
		c.differ("table.ttl", false, sub(at, "ttl"), "table "+n+" TTL attribute", a.TTL, b.TTL)
		c.differ("table.stream", streamLost(a.Stream, b.Stream), sub(at, "stream"), "table "+n+" stream", streamText(a.Stream), streamText(b.Stream))
		c.differ("table.pitr", false, sub(at, "pitr"), "table "+n+" point-in-time recovery", strconv.FormatBool(a.PITR), strconv.FormatBool(b.PITR))
	})
}

// streamLost reports whether consumers of a stream lose what they read:
// the stream is gone, or its view no longer carries an image they had.
func streamLost(a, b *catalog.Stream) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	return a.View != b.View && b.View != "NEW_AND_OLD_IMAGES"
}

func sub(path []string, more ...string) []string { return append(slices.Clip(path), more...) }

func keyText(pk, sk string) string {
	if sk == "" {
		return pk
	}
	return pk + ", " + sk
}

func billingText(b catalog.Billing) string {
	s := b.Mode
	if b.Read != nil {
		s += fmt.Sprintf(" read %d", b.Read.Units)
	}
	if b.Write != nil {
		s += fmt.Sprintf(" write %d", b.Write.Units)
	}
	return s
}

func tputText(t *catalog.Throughput) string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf("read %d/s, write %d/s", t.Read, t.Write)
}

func streamText(s *catalog.Stream) string {
	if s == nil {
		return ""
	}
	return s.View
}

func (c *changes) attributes() {
	pair(c.base.Attributes, c.head.Attributes, func(a *catalog.Attribute) string { return a.Name }, func(n string, a, b *catalog.Attribute, inA, inB bool) {
		at := []string{"attributes", n}
		switch {
		case !inA:
			c.add("attribute.added", false, at, "attribute %s added (%s)", n, b.Type)
		case !inB:
			c.add("attribute.removed", false, at, "attribute %s removed from the dictionary", n)
		default:
			c.differ("attribute.type", true, sub(at, "type"), "attribute "+n+" type", a.Type.String(), b.Type.String())
			c.differ("attribute.stored", a.Stored && !b.Stored, sub(at, "stored"), "attribute "+n+" stored", strconv.FormatBool(a.Stored), strconv.FormatBool(b.Stored))
			c.members(n, at, members(n, a.Domain), members(n, b.Domain))
			c.differ("attribute.domain", false, at, "attribute "+n+" domain", boundsText(a.Domain), boundsText(b.Domain))
		}
	})
}

// members flattens the members of a list's elements and a map's fields
// into their paths ("lineItems[].sku") and types.
func members(path string, d catalog.Domain) map[string]string {
	out := map[string]string{}
	var walk func(string, catalog.Domain)
	walk = func(p string, d catalog.Domain) {
		if d.Items != nil {
			out[p+"[]"] = d.Items.Type.String()
			walk(p+"[]", d.Items.Domain)
		}
		for _, f := range d.Fields {
			t := f.Type.String()
			if f.Optional {
				t += ", optional"
			}
			out[p+"."+f.Name] = t
			walk(p+"."+f.Name, f.Domain)
		}
	}
	walk(path, d)
	return out
}

// members records the members of attribute n's values that HEAD adds,
// removes or retypes: code reading a member BASE wrote, or writing one
// HEAD no longer accepts, breaks.
func (c *changes) members(n string, at []string, a, b map[string]string) {
	for _, m := range union(a, b) {
		was, inA := a[m]
		now, inB := b[m]
		switch {
		case !inA:
			c.add("attribute.member.added", false, at, "attribute %s: values carry %s (%s); the items written before lack it", n, m, now)
		case !inB:
			c.add("attribute.member.removed", true, at, "attribute %s: values no longer carry %s", n, m)
		case was != now:
			c.add("attribute.member.type", true, at, "attribute %s: %s: %s -> %s", n, m, was, now)
		}
	}
}

// boundsText writes the bounds of a domain that change what a value
// weighs: lengths and counts.
func boundsText(d catalog.Domain) string {
	var parts []string
	ptr := func(what string, p *int) {
		if p != nil {
			parts = append(parts, what+" "+strconv.Itoa(*p))
		}
	}
	ptr("minLength", d.MinLength)
	ptr("maxLength", d.MaxLength)
	ptr("minItems", d.MinItems)
	ptr("maxItems", d.MaxItems)
	return strings.Join(parts, ", ")
}

func (c *changes) entities() {
	pair(c.base.Entities, c.head.Entities, func(e *catalog.Entity) string { return e.Name }, func(n string, a, b *catalog.Entity, inA, inB bool) {
		at := []string{"entities", n}
		switch {
		case !inA:
			c.add("entity.added", false, at, "entity %s added in table %s", n, b.Table.Name)
			return
		case !inB:
			c.add("entity.removed", true, at, "entity %s removed: its items stay in %s until deleted", n, a.Table.Name)
			return
		}
		if a.Table.Name != b.Table.Name {
			c.add("entity.table", true, sub(at, "table"), "entity %s moves from table %s to %s: every item is rewritten", n, a.Table.Name, b.Table.Name)
		}
		c.differ("entity.type", true, sub(at, "typeValue"), "entity "+n+" discriminator value", a.TypeValue, b.TypeValue)
		for _, k := range b.Key {
			was := keyTemplate(a, k.Attribute)
			if was != k.Template.Text {
				c.add("entity.key", true, sub(at, "key", k.Attribute), "entity %s key %s: %s -> %s: every item moves (a put of the new item, a delete of the old)", n, k.Attribute, orNone(was), k.Template.Text)
			}
		}
		pair(a.Attributes, b.Attributes, func(x catalog.EntityAttr) string { return x.Name }, func(an string, x, y catalog.EntityAttr, inX, inY bool) {
			ap := sub(at, "attributes", an)
			switch {
			case !inX:
				c.add("entity.attribute.added", y.Presence == catalog.Required, ap, "entity %s carries %s (%s)%s", n, an, y.Presence, requiredNote(y))
			case !inY:
				c.add("entity.attribute.removed", true, ap, "entity %s no longer carries %s: the items that hold it keep it until it is removed", n, an)
			default:
				c.differ("entity.attribute.presence", x.Presence == catalog.Optional && y.Presence == catalog.Required, ap, "entity "+n+" "+an+" presence", string(x.Presence), string(y.Presence))
			}
		})
	})
}

func requiredNote(y catalog.EntityAttr) string {
	if y.Presence == catalog.Required {
		return ": the items written before lack it"
	}
	return ""
}

// keyTemplate is the template entity e renders key attribute name with,
// "" when it has none.
func keyTemplate(e *catalog.Entity, name string) string {
	for _, k := range e.Key {
		if k.Attribute == name {
			return k.Template.Text
		}
	}
	return ""
}

func (c *changes) indexes() {
	pair(c.base.Indexes, c.head.Indexes, func(x *catalog.Index) string { return x.Name }, func(n string, a, b *catalog.Index, inA, inB bool) {
		at := []string{"indexes", n}
		switch {
		case !inA:
			c.add("index.added", false, at, "index %s added on %s (%s; %s), holding %s", n, b.Table.Name, indexKeyText(b), projText(b.Projection), entityNames(b.Entries))
			return
		case !inB:
			c.add("index.removed", true, at, "index %s removed: the queries on it fail", n)
			return
		}
		if a.Local != b.Local || a.Table.Name != b.Table.Name {
			c.add("index.kind", true, at, "index %s is now %s on %s", n, localText(b.Local), b.Table.Name)
		}
		c.differ("index.key", true, sub(at, "partition"), "index "+n+" key", indexKeyText(a), indexKeyText(b))
		if pa, pb := projText(a.Projection), projText(b.Projection); pa != pb {
			lost := narrowed(a, b)
			text := "index " + n + " projection: " + pa + " -> " + pb + ": the index is dropped and re-created"
			if len(lost) > 0 {
				text += "; its entries no longer carry " + strings.Join(lost, ", ")
			}
			c.add("index.projection", len(lost) > 0, sub(at, "projection"), "%s", text)
		}
		c.differ("index.entries", false, at, "index "+n+" entities", entityNames(a.Entries), entityNames(b.Entries))
		c.differ("index.shards", true, sub(at, "shards"), "index "+n+" shards", shardText(a.Shards), shardText(b.Shards))
	})
}

// narrowed lists the attributes a's entries carry and b's do not.
func narrowed(a, b *catalog.Index) []string {
	var out []string
	for _, ea := range entryAttributes(a) {
		if !b.Projects(ea) {
			out = append(out, ea)
		}
	}
	return out
}

// entryAttributes lists every attribute index x's entries may carry.
func entryAttributes(x *catalog.Index) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range x.Entries {
		for _, ea := range e.Attributes {
			if !seen[ea.Name] && ea.Presence != catalog.KeyOnly && x.Projects(ea.Name) {
				seen[ea.Name] = true
				out = append(out, ea.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func localText(l bool) string {
	if l {
		return "local"
	}
	return "global"
}

func indexKeyText(x *catalog.Index) string {
	s := strings.Join(x.Partition, "+")
	if len(x.Sort) > 0 {
		s += " / " + strings.Join(x.Sort, "+")
	}
	return s
}

func projText(p catalog.Projection) string {
	if p.Type == "INCLUDE" {
		return "INCLUDE " + strings.Join(p.Attributes, ", ")
	}
	return p.Type
}

func shardText(s *catalog.Shards) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%d on %s", s.Count, s.Attribute)
}

func entityNames(es []*catalog.Entity) string {
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (c *changes) patterns() {
	pair(c.base.AccessPatterns, c.head.AccessPatterns, func(p *catalog.AccessPattern) string { return p.ID }, func(n string, a, b *catalog.AccessPattern, inA, inB bool) {
		at := []string{"accessPatterns", n}
		switch {
		case !inA:
			c.add("accessPattern.added", false, at, "access pattern %s added: %s (%s)", n, b.Question, answerText(b))
			return
		case !inB:
			c.add("accessPattern.removed", true, at, "access pattern %s removed: %q is no longer answered", n, a.Question)
			return
		}
		wa, wb := answerText(a), answerText(b)
		switch {
		case wa == wb:
		case b.Answer == nil:
			c.add("accessPattern.unanswered", true, sub(at, "notAnswered"), "access pattern %s is no longer answered by the table: %s -> %s", n, wa, wb)
		default:
			c.add("accessPattern.answer", false, sub(at, "answer"), "access pattern %s answered by %s instead of %s", n, wb, wa)
		}
	})
}

// answerText says what answers a pattern: "Query on byCustomer",
// "GetItem on orders", or where it goes when the table does not.
func answerText(p *catalog.AccessPattern) string {
	if p.Answer == nil {
		if p.NotAnswered != nil {
			return "not answered: goes to " + p.NotAnswered.GoesTo
		}
		return "not answered"
	}
	op := p.Answer.Operation
	if op == "" {
		op = "Query"
	}
	return op + " on " + p.Answer.Structure()
}

func (c *changes) operations() {
	pair(c.base.Operations, c.head.Operations, func(o *catalog.Operation) string { return o.Name }, func(n string, a, b *catalog.Operation, inA, inB bool) {
		at := []string{"operations", n}
		switch {
		case !inA:
			c.add("operation.added", false, at, "operation %s added (%s)", n, stepsText(b))
			return
		case !inB:
			c.add("operation.removed", true, at, "operation %s removed", n)
			return
		}
		pair(a.Params, b.Params, func(p *catalog.Param) string { return p.Name }, func(pn string, x, y *catalog.Param, inX, inY bool) {
			pp := sub(at, "params", pn)
			switch {
			case !inX:
				c.add("operation.param.added", true, pp, "operation %s takes a new parameter %s (%s)", n, pn, y.Type)
			case !inY:
				c.add("operation.param.removed", true, pp, "operation %s no longer takes %s", n, pn)
			default:
				c.differ("operation.param.type", true, pp, "operation "+n+" parameter "+pn+" type", x.Type.String(), y.Type.String())
			}
		})
		c.differ("operation.steps", false, sub(at, "steps"), "operation "+n+" steps", stepsText(a), stepsText(b))
		c.differ("operation.volume", false, sub(at, "volume"), "operation "+n+" volume", volumeText(a.Volume), volumeText(b.Volume))
		pair(a.Budgets, b.Budgets, func(x *catalog.Budget) string { return x.Name }, func(bn string, x, y *catalog.Budget, inX, inY bool) {
			bp := sub(at, "budgets", bn)
			switch {
			case !inX:
				c.add("operation.budget.added", false, bp, "operation %s budget %s added (%s)", n, bn, budgetText(y))
			case !inY:
				c.add("operation.budget.removed", false, bp, "operation %s budget %s removed", n, bn)
			default:
				c.differ("operation.budget", false, bp, "operation "+n+" budget "+bn, budgetText(x), budgetText(y))
			}
		})
	})
}

func stepsText(o *catalog.Operation) string {
	var parts []string
	for _, s := range o.Steps {
		t := s.ID + " " + string(s.Kind)
		if s.Request != nil && s.Request.Index != nil {
			t += " " + s.Request.Index.Name
		} else if s.Request != nil && s.Request.Entity != nil {
			t += " " + s.Request.Entity.Name
		}
		for _, it := range s.Items {
			t += " " + it.ID + ":" + string(it.Kind)
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "; ")
}

func volumeText(v catalog.Volume) string {
	var parts []string
	if v.PerDay != nil {
		parts = append(parts, num(*v.PerDay)+"/day")
	}
	if v.PerMonth != nil {
		parts = append(parts, num(*v.PerMonth)+"/month")
	}
	if v.PeakPerSecond != nil {
		parts = append(parts, "peak "+num(*v.PeakPerSecond)+"/s")
	}
	return strings.Join(parts, ", ")
}

func budgetText(b *catalog.Budget) string {
	var parts []string
	if b.WRU != nil {
		parts = append(parts, num(*b.WRU)+" WRU")
	}
	if b.RRU != nil {
		parts = append(parts, num(*b.RRU)+" RRU")
	}
	return strings.Join(parts, ", ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
