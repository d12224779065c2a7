package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/expr"
)

// keyCond is a key condition resolved against an index's key schema:
// equality on every partition attribute, equality on the first sort
// attributes, and at most one trailing range condition.
type keyCond struct {
	hash   []attr.Value // one per partition attribute, in schema order
	sortEq []attr.Value // equalities on the leading sort attributes
	op     string       // "", "=", "<", "<=", ">", ">=", "BETWEEN", "BEGINS_WITH"
	v1, v2 attr.Value
}

// bounds returns the key range [lo, hi) the condition selects; hi is nil
// when the range runs to the end of the key space.
func (k *keyCond) bounds() (lo, hi []byte) {
	base := partitionPrefix(k.hash...)
	for _, v := range k.sortEq {
		base = appendPart(base, v)
	}
	all := successor(base)
	with := func(v attr.Value) []byte { return appendPart(append([]byte(nil), base...), v) }
	switch k.op {
	case "":
		return base, all
	case "=":
		p := with(k.v1)
		return p, successor(p)
	case "<":
		return base, with(k.v1)
	case "<=":
		return base, successor(with(k.v1))
	case ">":
		return successor(with(k.v1)), all
	case ">=":
		return with(k.v1), all
	case "BETWEEN":
		return with(k.v1), successor(with(k.v2))
	case "BEGINS_WITH":
		p := appendPrefixPart(append([]byte(nil), base...), k.v1.Str)
		return p, successor(p)
	}
	return base, all
}

// source is what a Query or Scan reads: the table or one of its indexes.
type source struct {
	t  *table
	ix *index // nil for the table
}

// treeView is the tree a read walks: the source's own (under the table's read
// lock) or a snapshot of it (without any lock).
type treeView struct {
	items   *tree[*rec]
	entries *tree[*entry] // nil when the table is read
}

// live is the source's own tree; the caller holds the table's read lock.
func (s source) live() treeView {
	if s.ix == nil {
		return treeView{items: s.t.items}
	}
	return treeView{entries: s.ix.tree}
}

// snapshot is a snapshot of the source's tree; the caller holds the
// table's read lock.
func (s source) snapshot() treeView {
	if s.ix == nil {
		return treeView{items: s.t.items.snapshot()}
	}
	return treeView{entries: s.ix.tree.snapshot()}
}

// visit visits keys in [lo, hi) in order (hi nil: to the end), or in
// reverse order when forward is false, until fn returns false, with the
// version of the item each shows (loaded once) and what a read of it
// counts (the item's size, or the index entry's).
func (v treeView) visit(lo, hi []byte, forward bool, fn func(key []byte, it version, size int32) bool) {
	if v.entries == nil {
		f := func(r *rec) bool {
			it := r.load()
			return fn(it.key(), it, it.size)
		}
		if forward {
			v.items.ascend(lo, hi, f)
		} else {
			v.items.descend(lo, hi, f)
		}
		return
	}
	f := func(e *entry) bool {
		it := e.load()
		return fn(e.key, it, e.billed(it))
	}
	if forward {
		v.entries.ascend(lo, hi, f)
	} else {
		v.entries.descend(lo, hi, f)
	}
}

// keyOfItem is the source key of a stored item (for ExclusiveStartKey).
func (s source) keyOfItem(it attr.Item) ([]byte, bool) {
	tk, ok := s.t.tableKey(nil, it)
	if !ok {
		return nil, false
	}
	if s.ix == nil {
		return tk, true
	}
	k := s.ix.entryKey(it, tk)
	return k, k != nil
}

// keyNames lists the key attributes of what s reads: the table's, or the
// index's.
func (s source) keyNames() []string {
	var out []string
	if s.ix == nil {
		for _, k := range s.t.keyAttrs() {
			out = append(out, k.name)
		}
		return out
	}
	for _, side := range [2][]keyAttr{s.ix.hash, s.ix.rng} {
		for _, k := range side {
			out = append(out, k.name)
		}
	}
	return out
}

// lastKey is the LastEvaluatedKey of an item read through s: the table
// key plus the index key attributes.
func (s source) lastKey(it attr.Item) attr.Item {
	names := []string{s.t.hash.name}
	if s.t.rng != nil {
		names = append(names, s.t.rng.name)
	}
	if s.ix != nil {
		for _, k := range s.ix.hash {
			names = append(names, k.name)
		}
		for _, k := range s.ix.rng {
			names = append(names, k.name)
		}
	}
	var out []attr.Field
	for _, n := range names {
		if v, ok := it.Get(n); ok {
			out = append(out, attr.Field{Name: n, Value: v})
		}
	}
	return attr.Sorted(out)
}

// readRequest is what Query and Scan share once validated.
type readRequest struct {
	src     source
	lo, hi  []byte
	forward bool
	start   []byte // ExclusiveStartKey as a source key, or nil
	limit   int
	filter  *expr.Condition
	proj    projector
	count   bool
	fetch   bool // an LSI read asking for attributes it does not project
	consist capacity.Consistency
	wantCap bool
	level   capacity.Level
	hash    []attr.Value // a Query's partition key values (for IAM's dynamodb:LeadingKeys)
}

// parseSelect validates Select against the projection parameters and the
// index, returning whether only a count is wanted and whether an LSI read
// must fetch from the table.
func parseSelect(sel string, hasProjection bool, s source) (count, all bool, err error) {
	switch sel {
	case "":
		return false, s.ix == nil && !hasProjection, nil
	case "COUNT":
		if hasProjection {
			return false, false, validationf("Cannot specify the AttributesToGet or ProjectionExpression when choosing to get only the Count")
		}
		return true, false, nil
	case "ALL_ATTRIBUTES":
		if hasProjection {
			return false, false, validationf("Cannot specify the AttributesToGet or ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		}
		if s.ix != nil && !s.ix.local && s.ix.projection.ProjectionType != "ALL" {
			return false, false, invalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", s.ix.name)
		}
		return false, true, nil
	case "ALL_PROJECTED_ATTRIBUTES":
		if s.ix == nil {
			return false, false, invalidParam("Select type ALL_PROJECTED_ATTRIBUTES can only be used when querying an index")
		}
		if hasProjection {
			return false, false, validationf("Cannot specify the AttributesToGet or ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
		return false, false, nil
	case "SPECIFIC_ATTRIBUTES":
		if !hasProjection {
			return false, false, validationf("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
		return false, false, nil
	}
	return false, false, validationf("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", sel)
}

// resolveSource finds the table and optional index of a Query or Scan.
func (e *Engine) resolveSource(name, index string, consistent bool) (source, error) {
	t, err := e.table(name)
	if err != nil {
		return source{}, err
	}
	s := source{t: t}
	if index != "" {
		if err := checkIndexName(index, "indexName"); err != nil {
			return s, err
		}
		t.mu.RLock()
		s.ix = t.findIndex(index)
		t.mu.RUnlock()
		if s.ix == nil {
			return s, validationf("The table does not have the specified index: %s", index)
		}
		if consistent && !s.ix.local {
			return s, validationf("Consistent reads are not supported on global secondary indexes")
		}
	}
	return s, nil
}

// checkLimitAt is checkLimit worded as Scan words it, with the value.
func checkLimitAt(l *int, field string) (int, error) {
	if l != nil && *l < 1 {
		return 0, validationf("1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to 1", *l, field)
	}
	return checkLimit(l)
}

func checkLimit(l *int) (int, error) {
	if l == nil {
		return 0, nil
	}
	if *l < 1 {
		return 0, validationf("1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	}
	return *l, nil
}

// startKey turns an ExclusiveStartKey into a source key.
func (s source) startKey(esk attr.Item) ([]byte, error) {
	if esk == nil {
		return nil, nil
	}
	bad := validationf("The provided starting key is invalid: The provided key element does not match the schema")
	want := len(s.lastKey(esk))
	if want != len(esk) {
		return nil, bad
	}
	for _, k := range s.t.keyAttrs() {
		if _, ok := esk.Get(k.name); !ok {
			return nil, bad
		}
	}
	n, err := normalizeItem(esk)
	if err != nil {
		return nil, err
	}
	k, ok := s.keyOfItem(n)
	if !ok {
		return nil, bad
	}
	return k, nil
}

// hit is one item a page reads: its version and the size it counts.
type hit struct {
	v    version
	size int32
}

// lockedHits is how many items a page finds under the table's read lock
// before it goes on in a snapshot of the tree: a small page (most Query
// pages) costs writers no copies, and a large one holds the lock no
// longer than this walk.
const lockedHits = 128

// run reads one page. The table's read lock is held only while the first
// lockedHits records are found; if the page goes on, a snapshot of the
// tree is taken in the same hold, and the rest of the page is found and
// cut (by the stored sizes) in the snapshot, without the lock, so that
// writers wait for a short walk, not for a page. Both parts see the tree
// at one instant: the page reads every item as it was then, and every
// write acknowledged before the request. The records are decoded,
// filtered and encoded after the lock is released, as records are never
// modified. With wire, the items are written in DynamoDB JSON straight
// from their stored form (QueryOutput.wire) instead of being built.
func (rq *readRequest) run(ctx context.Context, e *Engine, wire bool) (*QueryOutput, error) {
	s := rq.src
	t := s.t
	out := &QueryOutput{Items: []attr.Item{}}
	lo, hi := rq.lo, rq.hi
	if rq.start != nil {
		if rq.forward {
			after := append(append([]byte(nil), rq.start...), 0)
			if bytes.Compare(after, lo) > 0 {
				lo = after
			}
		} else if hi == nil || bytes.Compare(rq.start, hi) < 0 {
			hi = rq.start
		}
	}
	if s.ix != nil && !s.ix.local {
		e.settle(t)
	}
	pager := capacity.Pager{Limit: rq.limit}
	total := 0
	var fetched []int
	more := false
	var hash uint64
	var hkey []byte
	if len(lo) >= 8 {
		hash, hkey = be64(lo), lo[8:]
	}
	first := true
	hits := make([]hit, 0, 64)
	stored := 0
	var at []byte // where the locked walk stopped short of the page
	add := func(k []byte, it version, size int32) bool {
		if first {
			hash, hkey, first = be64(k), k[8:], false
		}
		if rq.fetch {
			fetched = append(fetched, int(it.size))
		}
		hits = append(hits, hit{v: it, size: size})
		// About the item's JSON less some 10 bytes a value (its names
		// and values, and its body's lengths and types).
		stored += int(it.size) + len(it.body())
		total += int(size)
		more = pager.Add(int(size))
		return !more
	}
	var rest treeView
	t.mu.RLock()
	s.live().visit(lo, hi, rq.forward, func(k []byte, it version, size int32) bool {
		if len(hits) == lockedHits {
			at = k
			return false
		}
		return add(k, it, size)
	})
	if at != nil {
		rest = s.snapshot()
	}
	t.mu.RUnlock()
	if at != nil {
		// The snapshot holds the tree as the locked walk saw it: the
		// page goes on at the key it stopped at.
		if rq.forward {
			lo = at
		} else {
			hi = append(append(make([]byte, 0, len(at)+1), at...), 0)
		}
		rest.visit(lo, hi, rq.forward, add)
	}
	out.ScannedCount = len(hits)
	if wire && !rq.count {
		// The JSON of an item is its stored form and some 10 bytes a
		// value more; the buffer is sized once rather than grown
		// page-long, and a large one is reused (pageBuffer).
		out.wire = append(pageBuffer(stored+stored/2+16*len(hits)+256), `{"Items":[`...)
	}
	keep := rq.keep()
	for _, h := range hits {
		var it attr.Item
		if rq.filter != nil || (!wire && !rq.count) || !rq.proj.empty() {
			var err error
			if it, err = t.decode(h.v); err != nil {
				return nil, &Error{Type: ErrInternal, Message: err.Error()}
			}
			if rq.filter != nil && !rq.filter.Eval(it) {
				continue
			}
		}
		out.Count++
		if rq.count {
			continue
		}
		if !wire {
			out.Items = append(out.Items, rq.proj.apply(rq.visible(it)))
			continue
		}
		if out.Count > 1 {
			out.wire = append(out.wire, ',')
		}
		if rq.proj.empty() {
			var ok bool
			mark := len(out.wire)
			if out.wire, ok = t.appendJSON(out.wire, h.v, keep); ok {
				continue
			}
			out.wire = out.wire[:mark]
			if it == nil {
				var err error
				if it, err = t.decode(h.v); err != nil {
					return nil, &Error{Type: ErrInternal, Message: err.Error()}
				}
			}
		}
		out.wire = attr.AppendItemJSON(out.wire, rq.proj.apply(rq.visible(it)))
	}
	if more {
		last, err := t.decode(hits[len(hits)-1].v)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: err.Error()}
		}
		out.LastEvaluatedKey = s.lastKey(last)
	}
	if rq.count {
		out.Items = nil
	} else if wire {
		out.Items = nil
		out.wire = append(out.wire, ']')
	}
	if rq.wantCap || e.admits() {
		op := capacity.ReadOp{Kind: capacity.Page, Consistency: rq.consist, Bytes: total, Count: out.ScannedCount, Fetched: fetched}
		index := ""
		if s.ix != nil {
			op.Index = s.ix.name
			if !s.ix.local {
				index = s.ix.name
			}
		}
		c, err := t.rules.Read(&t.desc, op)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: err.Error()}
		}
		if err := e.admitRead(ctx, t, index, hash, hkey, c); err != nil {
			return nil, err
		}
		out.ConsumedCapacity = consumed(rq.wantCap, rq.level, c)
	}
	return out, nil
}

// pageBuffers holds the output buffers of large pages once their answer
// is written (releasePage), so that a scan's pages do not each allocate,
// and clear, a megabyte or two.
var pageBuffers sync.Pool

// pooledPage is the size from which a page's buffer comes from, and goes
// back to, pageBuffers.
const pooledPage = 64 << 10

// pageBuffer returns an empty buffer of at least n bytes.
func pageBuffer(n int) []byte {
	if n >= pooledPage {
		if p, ok := pageBuffers.Get().(*[]byte); ok && cap(*p) >= n {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, n)
}

// releasePage gives a page's buffer back once nothing refers to it any
// more (its answer written).
func releasePage(b []byte) {
	if cap(b) >= pooledPage {
		b = b[:0]
		pageBuffers.Put(&b)
	}
}

// keep selects the attributes an item read through the source shows
// (nil: all of them): an index's projection, unless an LSI read fetches
// the item.
func (rq *readRequest) keep() func(string) bool {
	ix := rq.src.ix
	if ix == nil || rq.fetch || ix.projection.ProjectionType == "ALL" {
		return nil
	}
	return func(name string) bool { return ix.projects(rq.src.t, name) }
}

// visible is what an item read through the source shows before any
// projection expression: the whole item from the table, the projected
// attributes from an index (the whole item when an LSI read fetches).
func (rq *readRequest) visible(it attr.Item) attr.Item {
	ix := rq.src.ix
	if ix == nil || rq.fetch || ix.projection.ProjectionType == "ALL" {
		return it
	}
	out := make(attr.Item, 0, len(it))
	for _, f := range it {
		if ix.projects(rq.src.t, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// projects reports whether the index holds attribute name.
func (ix *index) projects(t *table, name string) bool {
	if ix.projection.ProjectionType == "ALL" || name == t.hash.name || t.rng != nil && name == t.rng.name {
		return true
	}
	for _, side := range [2][]keyAttr{ix.hash, ix.rng} {
		for _, k := range side {
			if k.name == name {
				return true
			}
		}
	}
	if ix.projection.ProjectionType == "INCLUDE" {
		for _, n := range ix.projection.NonKeyAttributes {
			if n == name {
				return true
			}
		}
	}
	return false
}

// Query reads the items of one partition of the table or an index, in
// sort-key order, one page (Limit items or 1 MB) at a time.
func (e *Engine) Query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	rq, err := e.prepareQuery(in)
	if err != nil {
		return nil, err
	}
	return rq.run(ctx, e, false)
}

// queryWire is Query for the wire: the page's items are encoded as read.
func (e *Engine) queryWire(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	rq, err := e.prepareQuery(in)
	if err != nil {
		return nil, err
	}
	return rq.run(ctx, e, true)
}

func (e *Engine) prepareQuery(in *QueryInput) (*readRequest, error) {
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if in.KeyConditions != nil || in.QueryFilter != nil || in.ConditionalOperator != "" {
		leg := present("KeyConditions", in.KeyConditions != nil, "QueryFilter", in.QueryFilter != nil, "ConditionalOperator", in.ConditionalOperator != "")
		ex := present("KeyConditionExpression", in.KeyConditionExpression != "", "FilterExpression", in.FilterExpression != "", "ProjectionExpression", in.ProjectionExpression != "")
		if len(ex) > 0 {
			return nil, mixing(leg, ex)
		}
		if err := placeholdersWithoutExpressions(in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
			return nil, err
		}
		cp := *in
		in = &cp
		var l legacy
		if in.KeyConditions != nil {
			if in.KeyConditionExpression, err = l.filter(in.KeyConditions, ""); err != nil {
				return nil, err
			}
		}
		if in.QueryFilter != nil {
			if in.FilterExpression, err = l.filter(in.QueryFilter, in.ConditionalOperator); err != nil {
				return nil, err
			}
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = l.names, l.values
	}
	s, err := e.resolveSource(in.TableName, in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	limit, err := checkLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if in.KeyConditionExpression == "" {
		return nil, validationf("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	hasProj := in.ProjectionExpression != "" || len(in.AttributesToGet) > 0
	count, all, err := parseSelect(in.Select, hasProj, s)
	if err != nil {
		return nil, err
	}
	rq := &readRequest{src: s, forward: in.ScanIndexForward == nil || *in.ScanIndexForward, limit: limit, count: count, wantCap: want, level: level}
	rq.consist = capacity.Eventual
	if in.ConsistentRead {
		rq.consist = capacity.Strong
	}
	values, err := normalizeValues(in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	sc := expr.NewScope(in.ExpressionAttributeNames, values)
	s.t.mu.RLock()
	kc, err := keyCondition(sc, in.KeyConditionExpression, s)
	s.t.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	if in.FilterExpression != "" {
		if rq.filter, err = sc.Filter(in.FilterExpression); err != nil {
			return nil, exprError(err)
		}
		// A query's filter may not test the key it queries by.
		for _, a := range rq.filter.Attrs() {
			for _, k := range s.keyNames() {
				if a == k {
					return nil, validationf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", a)
				}
			}
		}
	}
	if rq.proj, err = scopeProjection(sc, in.ProjectionExpression, in.AttributesToGet); err != nil {
		return nil, err
	}
	if err := checkPlaceholders(sc, in.ExpressionAttributeNames, in.ExpressionAttributeValues, true); err != nil {
		return nil, err
	}
	if s.ix != nil && s.ix.local && (all || rq.proj.needsFetch(s)) {
		rq.fetch = true
	}
	if s.ix != nil && !s.ix.local && rq.proj.needsFetch(s) {
		// A GSI answers only with what it projects; other attributes are
		// simply absent, as on DynamoDB.
		rq.fetch = false
	}
	rq.lo, rq.hi = kc.bounds()
	rq.hash = kc.hash
	if rq.start, err = s.startKey(in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	if rq.start != nil && !bytes.HasPrefix(rq.start, partitionPrefix(kc.hash...)) {
		return nil, validationf("The provided starting key is outside query boundaries based on provided conditions")
	}
	return rq, nil
}

// Scan reads the whole table or index (or one segment of it) in key order.
func (e *Engine) Scan(ctx context.Context, in *ScanInput) (*ScanOutput, error) {
	return e.scan(ctx, in, false)
}

// scanWire is Scan for the wire: the page's items are encoded as read.
func (e *Engine) scanWire(ctx context.Context, in *ScanInput) (*ScanOutput, error) {
	return e.scan(ctx, in, true)
}

func (e *Engine) scan(ctx context.Context, in *ScanInput, wire bool) (*ScanOutput, error) {
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if in.ScanFilter != nil || in.ConditionalOperator != "" {
		leg := present("ScanFilter", in.ScanFilter != nil, "ConditionalOperator", in.ConditionalOperator != "")
		ex := present("FilterExpression", in.FilterExpression != "", "ProjectionExpression", in.ProjectionExpression != "")
		if len(ex) > 0 {
			return nil, mixing(leg, ex)
		}
		if err := placeholdersWithoutExpressions(in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
			return nil, err
		}
		cp := *in
		in = &cp
		var l legacy
		if in.FilterExpression, err = l.filter(in.ScanFilter, in.ConditionalOperator); err != nil {
			return nil, err
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = l.names, l.values
	}
	s, err := e.resolveSource(in.TableName, in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	limit, err := checkLimitAt(in.Limit, "limit")
	if err != nil {
		return nil, err
	}
	hasProj := in.ProjectionExpression != "" || len(in.AttributesToGet) > 0
	count, all, err := parseSelect(in.Select, hasProj, s)
	if err != nil {
		return nil, err
	}
	rq := &readRequest{src: s, forward: true, limit: limit, count: count, wantCap: want, level: level, consist: capacity.Eventual}
	if in.ConsistentRead {
		rq.consist = capacity.Strong
	}
	values, err := normalizeValues(in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	sc := expr.NewScope(in.ExpressionAttributeNames, values)
	if in.FilterExpression != "" {
		if rq.filter, err = sc.Filter(in.FilterExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if rq.proj, err = scopeProjection(sc, in.ProjectionExpression, in.AttributesToGet); err != nil {
		return nil, err
	}
	if err := checkPlaceholders(sc, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.FilterExpression != "" || in.ProjectionExpression != ""); err != nil {
		return nil, err
	}
	if s.ix != nil && s.ix.local && (all || rq.proj.needsFetch(s)) {
		rq.fetch = true
	}
	rq.lo = []byte{}
	if in.Segment != nil || in.TotalSegments != nil {
		if in.TotalSegments == nil {
			return nil, validationf("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
		}
		if in.Segment == nil {
			return nil, validationf("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
		}
		n, seg := *in.TotalSegments, *in.Segment
		if n < 1 || n > 1000000 {
			return nil, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value %s", n, map[bool]string{true: "greater than or equal to 1", false: "less than or equal to 1000000"}[n < 1])
		}
		if seg < 0 {
			return nil, validationf("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0", seg)
		}
		if seg >= n {
			return nil, validationf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", seg, n)
		}
		rq.lo, rq.hi = segmentBounds(seg, n)
	}
	if rq.start, err = s.startKey(in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	return rq.run(ctx, e, wire)
}

// segmentBounds splits the hash space evenly: segment i of n covers the
// partitions whose hash lies in [i*2^64/n, (i+1)*2^64/n).
func segmentBounds(i, n int) (lo, hi []byte) {
	bound := func(i int) []byte {
		// floor(i * 2^64 / n), exact in 128 bits.
		q, _ := bits.Div64(uint64(i), 0, uint64(n))
		return binary.BigEndian.AppendUint64(nil, q)
	}
	lo = bound(i)
	if i+1 < n {
		hi = bound(i + 1)
	}
	if i == 0 {
		lo = []byte{}
	}
	return lo, hi
}
