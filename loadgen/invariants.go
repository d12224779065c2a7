package loadgen

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/digits"
)

// The invariants are checked once the run is over, against the data: one
// strongly consistent read of every item of the tables they are about,
// each item told to its entity and handed to every invariant, and against
// the runner's ledger of the messages it received (dead-lettered ones
// included) and of the version-guarded writes it saw applied.

const maxDetails = 20

// checker is one invariant being checked.
type checker interface {
	see(e *catalog.Entity, item attr.Item, key attr.Item)
	result() InvariantResult
}

// invariantInput is what the checks read besides the table.
type invariantInput struct {
	m        *catalog.Model
	messages []*message
	writes   []versionWrite
	part     int
	parts    int
	// shared says the parts' populations are in one table (an endpoint or
	// AWS): each part checks its own slice of the items. Parts on their
	// own embedded engines each hold only their slice.
	shared bool
	// touched, when set, restricts the read to the items a run touched;
	// all reads the whole tables in parallel segments.
	touched *touched
	all     bool
}

// checkInvariants reads the tables and checks every invariant.
func checkInvariants(ctx context.Context, tg *endpoint.Target, tables map[string]string, invs []*catalog.Invariant, in invariantInput) ([]InvariantResult, map[string]map[string][3]float64, error) {
	if len(invs) == 0 {
		return nil, nil, nil
	}
	var cs []checker
	need := map[*catalog.Table]bool{}
	seen := map[*catalog.Entity]bool{} // the entities some checker looks at
	for _, v := range invs {
		c := newChecker(v, in)
		cs = append(cs, c)
		for _, e := range entitiesOf(v) {
			seen[e] = true
			if e.Table != nil {
				need[e.Table] = true
			}
		}
	}
	for _, tb := range in.m.Tables {
		if !need[tb] {
			continue
		}
		// Two stages: one goroutine reads the table and tells each item
		// its entity, this one hands the items to the checkers.
		ents := tb.Entities
		type seenItem struct {
			e         *catalog.Entity
			full, key attr.Item
		}
		batches := make(chan []seenItem, 4)
		var scanErr error
		go func() {
			defer close(batches)
			var batch []seenItem
			read := func(f func(attr.Item)) error { return scanTable(ctx, tg, tables[tb.Name], f) }
			switch {
			case in.touched != nil:
				read = func(f func(attr.Item)) error {
					return getKeys(ctx, tg, tables[tb.Name], in.touched.tableKeys(tb.Name), f)
				}
			case in.all && tg.Engine == nil:
				read = func(f func(attr.Item)) error { return scanParallel(ctx, tg, tables[tb.Name], f) }
			}
			scanErr = read(func(it attr.Item) {
				e := entityOf(tb, ents, it)
				if e == nil || !seen[e] {
					return
				}
				batch = append(batch, seenItem{e, withKeyAttrs(e, it), tableKey(e, it)})
				if len(batch) == 256 {
					batches <- batch
					batch = nil
				}
			})
			if len(batch) > 0 {
				batches <- batch
			}
		}()
		for batch := range batches {
			for _, si := range batch {
				for _, c := range cs {
					c.see(si.e, si.full, si.key)
				}
			}
		}
		if scanErr != nil {
			return nil, nil, fmt.Errorf("read %s for the invariants: %w", tb.Name, scanErr)
		}
	}
	var out []InvariantResult
	groups := map[string]map[string][3]float64{}
	for _, c := range cs {
		out = append(out, c.result())
		if sc, ok := c.(*sumChecker); ok && in.parts > 1 {
			groups[sc.inv.Name] = sc.partial()
		}
	}
	if len(groups) == 0 {
		groups = nil
	}
	return out, groups, nil
}

func entitiesOf(v *catalog.Invariant) []*catalog.Entity {
	switch {
	case v.Each != nil:
		return []*catalog.Entity{v.Each.Entity}
	case v.Sum != nil:
		out := []*catalog.Entity{v.Sum.Of.Entity}
		if v.Sum.Equals != nil {
			out = append(out, v.Sum.Equals.Entity)
		}
		return out
	case v.Ledger != nil:
		if v.Ledger.Exists != nil {
			return []*catalog.Entity{v.Ledger.Exists}
		}
		return []*catalog.Entity{v.Ledger.Forbid.Entity}
	case v.Versions != nil:
		return []*catalog.Entity{v.Versions.Entity}
	}
	return nil
}

// scanTable reads every item of a table, strongly consistent, outside the
// throughput limits on the embedded engine (the check is not part of the
// load).
func scanTable(ctx context.Context, tg *endpoint.Target, name string, f func(attr.Item)) error {
	if tg.Engine != nil {
		in := &engine.ScanInput{TableName: name, ConsistentRead: true}
		uctx := engine.Unmetered(ctx)
		for {
			out, err := tg.Engine.Scan(uctx, in)
			if err != nil {
				return err
			}
			for _, it := range out.Items {
				f(it)
			}
			if len(out.LastEvaluatedKey) == 0 {
				return nil
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	var start map[string]types.AttributeValue
	for {
		out, err := tg.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
		if err != nil {
			return err
		}
		for _, raw := range out.Items {
			it, err := attr.FromSDKItem(raw)
			if err != nil {
				return err
			}
			f(it)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		start = out.LastEvaluatedKey
	}
}

// entityOf tells an item's entity: by the table's discriminator, else by
// the entity whose key templates its keys match.
func entityOf(tb *catalog.Table, ents []*catalog.Entity, it attr.Item) *catalog.Entity {
	if tb.Discriminator != "" {
		if v, ok := it.Get(tb.Discriminator); ok {
			for _, e := range ents {
				if e.TypeValue == v.Str {
					return e
				}
			}
		}
	}
	for _, e := range ents {
		match := len(e.Key) > 0
		for _, k := range e.Key {
			v, ok := it.Get(k.Attribute)
			if !ok || v.Type != attr.S {
				match = false
				break
			}
			if _, ok := k.Template.Match(v.Str); !ok {
				match = false
				break
			}
		}
		if match {
			return e
		}
	}
	return nil
}

func newChecker(v *catalog.Invariant, in invariantInput) checker {
	switch {
	case v.Each != nil:
		return &eachChecker{inv: v, in: in}
	case v.Sum != nil:
		return &sumChecker{inv: v, in: in, groups: map[string]*group{}}
	case v.Ledger != nil && v.Ledger.Exists != nil:
		return newExistsChecker(v, in)
	case v.Ledger != nil:
		return newForbidChecker(v, in)
	case v.Versions != nil:
		return newVersionsChecker(v, in)
	}
	return nil
}

// base holds a result being built.
type base struct {
	res InvariantResult
}

func (b *base) violate(keys, format string, args ...any) {
	b.res.Violations++
	if len(b.res.Details) < maxDetails {
		b.res.Details = append(b.res.Details, Violation{Keys: keys, Message: fmt.Sprintf(format, args...)})
	}
}

// eachChecker: a condition on every item of an entity.
type eachChecker struct {
	base
	inv *catalog.Invariant
	in  invariantInput
}

func (c *eachChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	ei := c.inv.Each
	if e != ei.Entity {
		return
	}
	if c.in.shared && c.in.parts > 1 && int(hashString(keyString(key))%uint64(c.in.parts)) != c.in.part {
		return
	}
	if ei.Where != nil && !ei.Where.Holds(it) {
		return
	}
	c.res.Checked++
	if ei.Holds != nil && !ei.Holds.Holds(it) {
		c.violate(keyString(key), "%s item does not hold %s", e.Name, ei.Holds.Text)
	}
	for _, x := range ei.NotIn {
		in := true
		for _, a := range x.KeyAttributes() {
			if _, ok := it.Get(a); !ok {
				in = false
				break
			}
		}
		if in {
			var vals []string
			for _, a := range x.Partition {
				v, _ := it.Get(a)
				vals = append(vals, a+" "+valueText(v))
			}
			c.violate(keyString(key), "%s item is in index %s (%s)", e.Name, x.Name, strings.Join(vals, ", "))
		}
	}
}

func (c *eachChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	return c.res
}

// sumChecker: a join of two entities by key.
type sumChecker struct {
	base
	inv    *catalog.Invariant
	in     invariantInput
	groups map[string]*group
}

type group struct {
	of, eq float64
	hasEq  bool
	ofKey  string
	eqKey  string
}

func sideValue(s *catalog.Side, it attr.Item) (float64, bool) {
	if s.Value == "" {
		return 1, true
	}
	v, ok := it.Get(s.Value)
	if !ok {
		return 0, true
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	return f, err == nil
}

func (c *sumChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	if c.in.shared && c.in.parts > 1 && int(hashString(keyString(key))%uint64(c.in.parts)) != c.in.part {
		// Each part adds up its own slice of the items; merge adds the
		// parts' groups.
		return
	}
	si := c.inv.Sum
	for i, s := range []*catalog.Side{&si.Of, si.Equals} {
		if s == nil || e != s.Entity {
			continue
		}
		if s.Where != nil && !s.Where.Holds(it) {
			continue
		}
		k, err := s.Key.RenderItem(it)
		if err != nil {
			continue
		}
		g := c.groups[k]
		if g == nil {
			g = &group{}
			c.groups[k] = g
		}
		v, ok := sideValue(s, it)
		if !ok {
			c.violate(keyString(key), "%s.%s is not a number", e.Name, s.Value)
			continue
		}
		if i == 0 {
			g.of += v
			if g.ofKey == "" {
				g.ofKey = keyString(key)
			}
		} else {
			g.eq += v
			g.hasEq = true
			g.eqKey = keyString(key)
		}
	}
}

// constGroup marks a group compared with the invariant's constant.
const constGroup = 2

// partial are the groups as [of, equals, 1 when the equals side has an
// item, constGroup when equals is the invariant's constant, else 0], for
// merge to add up.
func (c *sumChecker) partial() map[string][3]float64 {
	out := make(map[string][3]float64, len(c.groups))
	for k, g := range c.groups {
		switch {
		case c.inv.Sum.Const != nil:
			out[k] = [3]float64{g.of, *c.inv.Sum.Const, constGroup}
		case g.hasEq:
			out[k] = [3]float64{g.of, g.eq, 1}
		default:
			out[k] = [3]float64{g.of, 0, 0}
		}
	}
	return out
}

func (c *sumChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	judgeGroups(&c.base, c.inv, func(f func(k string, g *group)) {
		keys := sortedNames(c.groups)
		for _, k := range keys {
			f(k, c.groups[k])
		}
	})
	return c.res
}

// judgeGroups compares every group: with an equals side, the groups of
// its items; with a constant, every group of the summed side.
func judgeGroups(b *base, inv *catalog.Invariant, each func(func(k string, g *group))) {
	si := inv.Sum
	what := "count"
	if si.Of.Value != "" {
		what = "sum of " + si.Of.Value
	}
	each(func(k string, g *group) {
		switch {
		case si.Const != nil:
			b.res.Checked++
			if math.Abs(g.of-*si.Const) > 1e-9 {
				b.violate(g.ofKey, "%s %s: %s of %s is %s, not %s", si.Of.Key.Text, k, what, si.Of.Entity.Name, num(g.of), num(*si.Const))
			}
		case g.hasEq:
			b.res.Checked++
			if math.Abs(g.of-g.eq) > 1e-9 {
				ev := "count"
				if si.Equals.Value != "" {
					ev = si.Equals.Value
				}
				b.violate(g.eqKey, "%s %s: %s %s is %s, the %s of its %s items %s", si.Equals.Entity.Name, k, si.Equals.Entity.Name, ev, num(g.eq), what, si.Of.Entity.Name, num(g.of))
			}
		}
	})
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// existsChecker: every message left exactly one item keyed by its values.
type existsChecker struct {
	base
	inv    *catalog.Invariant
	expect map[string][]*message
}

func newExistsChecker(v *catalog.Invariant, in invariantInput) *existsChecker {
	c := &existsChecker{inv: v, expect: map[string][]*message{}}
	for _, m := range in.messages {
		if m.load.op != v.Ledger.Operation || m.values == nil {
			continue
		}
		if m.refused != "" && !m.applied {
			// The operation refused the message by a stop the model
			// declares: it is not expected to leave an item.
			c.res.Refused++
			continue
		}
		key, err := v.Ledger.Exists.KeyOf(m.values)
		if err != nil {
			continue
		}
		k := keyString(key)
		c.expect[k] = append(c.expect[k], m)
	}
	return c
}

func (c *existsChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	if e != c.inv.Ledger.Exists {
		return
	}
	k := keyString(key)
	if ms, ok := c.expect[k]; ok {
		c.res.Checked += int64(len(ms))
		delete(c.expect, k)
	}
}

func (c *existsChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	for _, k := range sortedNames(c.expect) {
		for _, m := range c.expect[k] {
			c.res.Checked++
			state := "outcome " + m.outcome
			if m.dead {
				state += ", dead-lettered and not applied"
			}
			c.violate(k, "message %d of %s (%s) left no %s item", m.k, m.load.name, state, c.inv.Ledger.Exists.Name)
		}
	}
	return c.res
}

// forbidChecker: no item matching a message comes after it.
type forbidChecker struct {
	base
	inv   *catalog.Invariant
	index map[string][]*message
	n     int64
}

func forbidKey(pairs []catalog.PathPair, get func(p catalog.PathPair) (attr.Value, bool)) (string, bool) {
	var b strings.Builder
	for _, p := range pairs {
		v, ok := get(p)
		if !ok {
			return "", false
		}
		b.WriteString(valueText(v))
		b.WriteByte(0)
	}
	return b.String(), true
}

func newForbidChecker(v *catalog.Invariant, in invariantInput) *forbidChecker {
	c := &forbidChecker{inv: v, index: map[string][]*message{}}
	fr := v.Ledger.Forbid
	for _, m := range in.messages {
		if m.load.op != v.Ledger.Operation || m.values == nil {
			continue
		}
		c.n++
		k, ok := forbidKey(fr.Match, func(p catalog.PathPair) (attr.Value, bool) { v, ok := m.values[p.Path.Param]; return v, ok })
		if ok {
			c.index[k] = append(c.index[k], m)
		}
	}
	return c
}

func (c *forbidChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	fr := c.inv.Ledger.Forbid
	if e != fr.Entity {
		return
	}
	k, ok := forbidKey(fr.Match, func(p catalog.PathPair) (attr.Value, bool) { return it.Get(p.Attr) })
	if !ok {
		return
	}
	for _, m := range c.index[k] {
		later := true
		var what []string
		for _, p := range fr.Later {
			iv, ok1 := it.Get(p.Attr)
			mv, ok2 := m.values[p.Path.Param]
			if !ok1 || !ok2 {
				later = false
				break
			}
			ti, ok1 := parseTime(iv, nil)
			tm, ok2 := parseTime(mv, nil)
			if !ok1 || !ok2 || !ti.After(tm) {
				later = false
				break
			}
			what = append(what, fmt.Sprintf("%s %s after %s %s", p.Attr, valueText(iv), p.Path.Param, valueText(mv)))
		}
		if later {
			var match []string
			for _, p := range fr.Match {
				v, _ := it.Get(p.Attr)
				match = append(match, p.Attr+" "+valueText(v))
			}
			c.violate(keyString(key), "%s item of %s at %s comes after message %d of %s (%s, outcome %s)", e.Name, strings.Join(match, ", "), strings.Join(what, ", "), m.k, m.load.name, dlWord(m), m.outcome)
		}
	}
}

func dlWord(m *message) string {
	if m.dead {
		return "dead-lettered"
	}
	if m.applied {
		return "applied"
	}
	return "received"
}

func (c *forbidChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	c.res.Checked = c.n
	return c.res
}

// versionsChecker: no lost update.
type versionsChecker struct {
	base
	inv    *catalog.Invariant
	writes map[string][]versionWrite
	final  map[string]string
}

func newVersionsChecker(v *catalog.Invariant, in invariantInput) *versionsChecker {
	c := &versionsChecker{inv: v, writes: map[string][]versionWrite{}, final: map[string]string{}}
	for _, w := range in.writes {
		if w.inv == v.Versions {
			c.writes[w.key] = append(c.writes[w.key], w)
		}
	}
	return c
}

func (c *versionsChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	if e != c.inv.Versions.Entity {
		return
	}
	k := keyString(key)
	if _, ok := c.writes[k]; !ok {
		return
	}
	if v, ok := it.Get(c.inv.Versions.Attribute); ok {
		c.final[k] = v.Str
	} else {
		c.final[k] = ""
	}
}

func (c *versionsChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	attrName := c.inv.Versions.Attribute
	for _, k := range sortedNames(c.writes) {
		ws := c.writes[k]
		c.res.Checked++
		var vs []float64
		seen := map[float64][]string{}
		bad := false
		for _, w := range ws {
			f, err := strconv.ParseFloat(w.expected, 64)
			if err != nil {
				continue
			}
			if prev, dup := seen[f]; dup {
				c.violate(k, "two applied writes read %s %s (%s and %s): one update is lost", attrName, w.expected, prev[0], w.load)
				bad = true
			}
			seen[f] = append(seen[f], w.load)
			vs = append(vs, f)
		}
		if bad || len(vs) == 0 {
			continue
		}
		sort.Float64s(vs)
		fin, ok := c.final[k]
		if !ok {
			c.violate(k, "the item the run wrote %s is gone", digits.Count(len(vs), "time"))
			continue
		}
		f, err := strconv.ParseFloat(fin, 64)
		if err != nil {
			c.violate(k, "%s is %q, not a number", attrName, fin)
			continue
		}
		if want := vs[0] + float64(len(vs)); f != want {
			c.violate(k, "%s is %s; the run applied %s from %s %s, which leave %s", attrName, fin, digits.Count(len(vs), "write"), attrName, num(vs[0]), num(want))
		}
	}
	return c.res
}
