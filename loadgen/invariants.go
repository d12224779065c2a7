package loadgen

import (
	"context"
	"encoding/binary"
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
	m *catalog.Model
	// spill is the ledger on disk; without it, messages and writes are
	// the ledger.
	spill    *ledgerSpill
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
	defer func() {
		for _, c := range cs {
			if j, ok := c.(joined); ok {
				j.close()
			}
		}
	}()
	for _, v := range invs {
		c := newChecker(v, in)
		cs = append(cs, c)
		if j, ok := c.(joined); ok && j.failed() != nil {
			return nil, nil, j.failed()
		}
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
					return in.touched.tableKeys(tb.Name, func(keys []attr.Item) error {
						return getKeys(ctx, tg, tables[tb.Name], keys, f)
					})
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
		if j, ok := c.(joined); ok && j.failed() != nil {
			return nil, nil, j.failed()
		}
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

// The ledger's checkers read the run's messages (or writes) once, as
// they are built: into memory when they fit one bucket of the join, else
// into bucket files by the join's key (see ledgerjoin.go), the items
// they see then following them into buckets of their own.

// eachMessage hands f the ledger's messages in order.
func (in invariantInput) eachMessage(f func(ledgerMsg) error) error {
	if in.spill != nil {
		return in.spill.each(in.m, f, nil)
	}
	for i, m := range in.messages {
		if err := f(ledgerMsg{m, [3]int64{0, 0, int64(i)}}); err != nil {
			return err
		}
	}
	return nil
}

// eachWrite hands f the ledger's writes in order, with their place.
func (in invariantInput) eachWrite(f func(versionWrite, int64) error) error {
	if in.spill != nil {
		return in.spill.each(in.m, nil, f)
	}
	for i, w := range in.writes {
		if err := f(w, int64(i)); err != nil {
			return err
		}
	}
	return nil
}

// ledgerCounts is how many messages and writes the ledger holds.
func (in invariantInput) ledgerCounts() (int64, int64) {
	if in.spill != nil {
		return in.spill.messages, in.spill.writes
	}
	return int64(len(in.messages)), int64(len(in.writes))
}

// joined is a checker that may fail reading its ledger or its buckets,
// and holds buckets to remove.
type joined interface {
	failed() error
	close()
}

// existsChecker: every message left exactly one item keyed by its values.
type existsChecker struct {
	base
	inv    *catalog.Invariant
	lr     *ledgerReader
	expect map[string][]ledgerMsg
	// msgs and items are the join's buckets (nil: one, in memory).
	msgs, items *buckets
	err         error
}

func newExistsChecker(v *catalog.Invariant, in invariantInput) *existsChecker {
	c := &existsChecker{inv: v, lr: newLedgerReader(in.m), expect: map[string][]ledgerMsg{}}
	n, _ := in.ledgerCounts()
	if nb := bucketCount(n); nb > 1 {
		if c.msgs, c.err = newBuckets(nb); c.err != nil {
			return c
		}
		if c.items, c.err = newBuckets(nb); c.err != nil {
			return c
		}
	}
	c.err = in.eachMessage(func(m ledgerMsg) error {
		if m.load.op != v.Ledger.Operation || m.values == nil {
			return nil
		}
		if m.refused != "" && !m.applied {
			// The operation refused the message by a stop the model
			// declares: it is not expected to leave an item.
			c.res.Refused++
			return nil
		}
		key, err := v.Ledger.Exists.KeyOf(m.values)
		if err != nil {
			return nil
		}
		k := keyString(key)
		if c.msgs != nil {
			c.msgs.put(k, msgRecord(k, lean(m))...)
			return nil
		}
		c.expect[k] = append(c.expect[k], lean(m))
		return nil
	})
	return c
}

func (c *existsChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	if e != c.inv.Ledger.Exists || c.err != nil {
		return
	}
	k := keyString(key)
	if c.items != nil {
		c.items.put(k, []byte(k))
		return
	}
	c.found(k)
}

func (c *existsChecker) found(k string) {
	if ms, ok := c.expect[k]; ok {
		c.res.Checked += int64(len(ms))
		delete(c.expect, k)
	}
}

func (c *existsChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	var d details
	if c.msgs == nil {
		c.missing(&d)
	}
	if c.msgs != nil && c.err == nil {
		c.err = bucketJoin{
			fresh: func() { c.expect = map[string][]ledgerMsg{} },
			ledger: func(fs [][]byte) error {
				k, m, err := c.lr.msgFrom(fs)
				if err != nil {
					return err
				}
				c.expect[k] = append(c.expect[k], m)
				return nil
			},
			item: func(fs [][]byte) error {
				c.found(string(fs[0]))
				return nil
			},
			judge: func() { c.missing(&d) },
		}.run(c.msgs, c.items)
	}
	d.into(&c.base)
	c.close()
	return c.res
}

// missing reports the messages whose item the read did not find.
func (c *existsChecker) missing(d *details) {
	for _, k := range sortedNames(c.expect) {
		ms := c.expect[k]
		sortMsgs(ms)
		for _, m := range ms {
			c.res.Checked++
			state := "outcome " + m.outcome
			if m.dead {
				state += ", dead-lettered and not applied"
			}
			d.add(ranked{s: k, n: [4]int64{m.ord[0], m.ord[1], m.ord[2]},
				v: violation(k, "message %d of %s (%s) left no %s item", m.k, m.load.name, state, c.inv.Ledger.Exists.Name)})
		}
	}
	c.expect = nil
}

func (c *existsChecker) failed() error { return joinErr(c.inv.Name, c.err) }

func (c *existsChecker) close() {
	c.msgs.close()
	c.items.close()
	c.msgs, c.items = nil, nil
}

// forbidChecker: no item matching a message comes after it.
type forbidChecker struct {
	base
	inv   *catalog.Invariant
	lr    *ledgerReader
	index map[string][]ledgerMsg
	n     int64
	// later are the parameters the join compares (what it keeps of a
	// message's values).
	later []string
	// seq numbers the items seen, in the order they were.
	seq         int64
	d           details
	msgs, items *buckets
	err         error
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

// msgKey is a message's key in the forbid join.
func (c *forbidChecker) msgKey(m *message) (string, bool) {
	return forbidKey(c.inv.Ledger.Forbid.Match, func(p catalog.PathPair) (attr.Value, bool) { v, ok := m.values[p.Path.Param]; return v, ok })
}

func newForbidChecker(v *catalog.Invariant, in invariantInput) *forbidChecker {
	c := &forbidChecker{inv: v, lr: newLedgerReader(in.m), index: map[string][]ledgerMsg{}}
	for _, p := range v.Ledger.Forbid.Later {
		c.later = append(c.later, p.Path.Param)
	}
	n, _ := in.ledgerCounts()
	if nb := bucketCount(n); nb > 1 {
		if c.msgs, c.err = newBuckets(nb); c.err != nil {
			return c
		}
		if c.items, c.err = newBuckets(nb); c.err != nil {
			return c
		}
	}
	c.err = in.eachMessage(func(m ledgerMsg) error {
		if m.load.op != v.Ledger.Operation || m.values == nil {
			return nil
		}
		c.n++
		k, ok := c.msgKey(m.message)
		if !ok {
			return nil
		}
		m = lean(m, c.later...)
		if c.msgs != nil {
			c.msgs.put(k, msgRecord(k, m)...)
			return nil
		}
		c.index[k] = append(c.index[k], m)
		return nil
	})
	for _, ms := range c.index {
		sortMsgs(ms)
	}
	return c
}

func (c *forbidChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	fr := c.inv.Ledger.Forbid
	if e != fr.Entity || c.err != nil {
		return
	}
	k, ok := forbidKey(fr.Match, func(p catalog.PathPair) (attr.Value, bool) { return it.Get(p.Attr) })
	if !ok {
		return
	}
	seq := c.seq
	c.seq++
	if c.items != nil {
		var n [binary.MaxVarintLen64]byte
		c.items.put(k, []byte(k), attr.AppendItemJSON(nil, it), []byte(keyString(key)), n[:binary.PutVarint(n[:], seq)])
		return
	}
	c.match(k, it, keyString(key), seq)
}

// match checks an item against the messages of its key.
func (c *forbidChecker) match(k string, it attr.Item, keys string, seq int64) {
	fr := c.inv.Ledger.Forbid
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
			c.d.add(ranked{n: [4]int64{seq, m.ord[0], m.ord[1], m.ord[2]},
				v: violation(keys, "%s item of %s at %s comes after message %d of %s (%s, outcome %s)", fr.Entity.Name, strings.Join(match, ", "), strings.Join(what, ", "), m.k, m.load.name, dlWord(m.message), m.outcome)})
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
	if c.msgs != nil && c.err == nil {
		c.err = bucketJoin{
			fresh: func() { c.index = map[string][]ledgerMsg{} },
			ledger: func(fs [][]byte) error {
				k, m, err := c.lr.msgFrom(fs)
				if err != nil {
					return err
				}
				c.index[k] = append(c.index[k], m)
				return nil
			},
			ready: func() {
				for _, ms := range c.index {
					sortMsgs(ms)
				}
			},
			item: func(fs [][]byte) error {
				if len(fs) != 4 {
					return fmt.Errorf("the ledger's join: a bad record")
				}
				it, err := attr.DecodeItem(fs[1])
				if err != nil {
					return err
				}
				seq, _ := binary.Varint(fs[3])
				c.match(string(fs[0]), it, string(fs[2]), seq)
				return nil
			},
		}.run(c.msgs, c.items)
	}
	c.index = nil
	c.d.into(&c.base)
	c.close()
	return c.res
}

func (c *forbidChecker) failed() error { return joinErr(c.inv.Name, c.err) }

func (c *forbidChecker) close() {
	c.msgs.close()
	c.items.close()
	c.msgs, c.items = nil, nil
}

// versionsChecker: no lost update.
type versionsChecker struct {
	base
	inv    *catalog.Invariant
	writes map[string][]versionWrite
	final  map[string]string
	// ws and items are the join's buckets (nil: one, in memory).
	ws, items *buckets
	err       error
}

func newVersionsChecker(v *catalog.Invariant, in invariantInput) *versionsChecker {
	c := &versionsChecker{inv: v, writes: map[string][]versionWrite{}, final: map[string]string{}}
	_, n := in.ledgerCounts()
	if nb := bucketCount(n); nb > 1 {
		if c.ws, c.err = newBuckets(nb); c.err != nil {
			return c
		}
		if c.items, c.err = newBuckets(nb); c.err != nil {
			return c
		}
	}
	c.err = in.eachWrite(func(w versionWrite, _ int64) error {
		switch {
		case w.inv != v.Versions:
		case c.ws != nil:
			c.ws.put(w.key, []byte(w.key), []byte(w.expected), []byte(w.load))
		default:
			c.writes[w.key] = append(c.writes[w.key], w)
		}
		return nil
	})
	return c
}

func (c *versionsChecker) see(e *catalog.Entity, it attr.Item, key attr.Item) {
	if e != c.inv.Versions.Entity || c.err != nil {
		return
	}
	k := keyString(key)
	v, has := it.Get(c.inv.Versions.Attribute)
	if c.items != nil {
		c.items.put(k, []byte(k), []byte(v.Str))
		return
	}
	c.seen(k, v.Str, has)
}

func (c *versionsChecker) seen(k, v string, has bool) {
	if _, ok := c.writes[k]; !ok {
		return
	}
	if has {
		c.final[k] = v
	} else {
		c.final[k] = ""
	}
}

func (c *versionsChecker) result() InvariantResult {
	c.res.Name, c.res.Description = c.inv.Name, c.inv.Description
	var d details
	if c.ws == nil {
		c.judge(&d)
	}
	if c.ws != nil && c.err == nil {
		c.err = bucketJoin{
			fresh: func() { c.writes, c.final = map[string][]versionWrite{}, map[string]string{} },
			ledger: func(fs [][]byte) error {
				if len(fs) != 3 {
					return fmt.Errorf("the ledger's join: a bad record")
				}
				k := string(fs[0])
				c.writes[k] = append(c.writes[k], versionWrite{inv: c.inv.Versions, key: k, expected: string(fs[1]), load: string(fs[2])})
				return nil
			},
			item: func(fs [][]byte) error {
				if len(fs) != 2 {
					return fmt.Errorf("the ledger's join: a bad record")
				}
				c.seen(string(fs[0]), string(fs[1]), true)
				return nil
			},
			judge: func() { c.judge(&d) },
		}.run(c.ws, c.items)
	}
	d.into(&c.base)
	c.close()
	return c.res
}

// judge checks the writes of every key against the version its item
// holds.
func (c *versionsChecker) judge(d *details) {
	attrName := c.inv.Versions.Attribute
	for _, k := range sortedNames(c.writes) {
		ws := c.writes[k]
		c.res.Checked++
		j := int64(0)
		violate := func(format string, args ...any) {
			d.add(ranked{s: k, n: [4]int64{j}, v: violation(k, format, args...)})
			j++
		}
		var vs []float64
		seen := map[float64][]string{}
		bad := false
		for _, w := range ws {
			f, err := strconv.ParseFloat(w.expected, 64)
			if err != nil {
				continue
			}
			if prev, dup := seen[f]; dup {
				violate("two applied writes read %s %s (%s and %s): one update is lost", attrName, w.expected, prev[0], w.load)
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
			violate("the item the run wrote %s is gone", digits.Count(len(vs), "time"))
			continue
		}
		f, err := strconv.ParseFloat(fin, 64)
		if err != nil {
			violate("%s is %q, not a number", attrName, fin)
			continue
		}
		if want := vs[0] + float64(len(vs)); f != want {
			violate("%s is %s; the run applied %s from %s %s, which leave %s", attrName, fin, digits.Count(len(vs), "write"), attrName, num(vs[0]), num(want))
		}
	}
	c.writes, c.final = nil, nil
}

func (c *versionsChecker) failed() error { return joinErr(c.inv.Name, c.err) }

func (c *versionsChecker) close() {
	c.ws.close()
	c.items.close()
	c.ws, c.items = nil, nil
}
