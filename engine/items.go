package engine

import (
	"context"
	"math"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/expr"
)

// write is one prepared single-item write: a Put, Update, Delete or (in a
// transaction) a ConditionCheck. Preparing parses and validates
// everything that does not depend on stored state; run then evaluates the
// condition against the current item and computes the new one, and commit
// stores it. Single-item operations run and commit under one lock;
// transactions run every action before committing any.
type write struct {
	t       *table
	kind    writeKind
	key     attr.Item // the table key attributes
	tkey    []byte
	item    attr.Item // Put: the new item
	cond    *expr.Condition
	update  *expr.Update
	rvFail  bool // return the item when the condition fails
	wantCap bool // the request asked for ConsumedCapacity
	// lean marks a put that nothing asks the replaced item of: no
	// condition, no ReturnValues, no capacity figure or admission, and
	// (single decides, under the lock) no index or stream to maintain.
	// Its old item is not decoded. The data log needs only the new
	// version (see observe), so a logged table's puts are lean too.
	lean    bool
	metrics *ItemCollectionMetrics // filled after commit when asked (tables with LSIs)
	wantICM bool

	// Filled by run.
	old     *rec
	oldItem attr.Item
	newItem attr.Item // nil: the item is deleted (or unchanged for checks)
	newSize int
}

type writeKind uint8

const (
	putKind writeKind = iota
	updateKind
	deleteKind
	checkKind
)

// parseConsumed reads ReturnConsumedCapacity.
func parseConsumed(s string) (want bool, level capacity.Level, err error) {
	switch s {
	case "", "NONE":
		return false, 0, nil
	case "TOTAL":
		return true, capacity.LevelTotal, nil
	case "INDEXES":
		return true, capacity.LevelIndexes, nil
	}
	return false, 0, validationf("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", s)
}

func parseRVFail(s string) (bool, error) {
	switch s {
	case "", "NONE":
		return false, nil
	case "ALL_OLD":
		return true, nil
	}
	return false, validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", s)
}

func parseReturnValues(s string, update bool) (string, error) {
	switch s {
	case "":
		return "NONE", nil
	case "NONE", "ALL_OLD":
		return s, nil
	case "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW":
		if update {
			return s, nil
		}
		return "", validationf("ReturnValues can only be ALL_OLD or NONE")
	}
	return "", validationf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]", s)
}

// exprError maps an expression error to a ValidationException.
func exprError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return validationf("%s", err.Error())
}

// prepareWrite validates one write request against its table.
func (e *Engine) prepareWrite(t *table, kind writeKind, item, key attr.Item, cond, update string, names map[string]string, values map[string]attr.Value, rvFail string) (*write, error) {
	w := &write{t: t, kind: kind}
	var err error
	if w.rvFail, err = parseRVFail(rvFail); err != nil {
		return nil, err
	}
	if kind == putKind {
		if item == nil {
			return nil, validationf("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
		}
		if err := t.checkItemKeys(item); err != nil {
			return nil, err
		}
		if w.item, err = normalizeItem(item); err != nil {
			return nil, err
		}
		if err := t.checkSize(w.item); err != nil {
			return nil, err
		}
		w.key = keyOf(t, w.item)
	} else {
		if w.key, err = t.checkKey(key); err != nil {
			return nil, err
		}
	}
	w.tkey, _ = t.tableKey(nil, w.key)
	if cond == "" && update == "" && names == nil && values == nil {
		return w, nil
	}
	if values, err = normalizeValues(values); err != nil {
		return nil, err
	}
	sc := expr.NewScope(names, values)
	if update != "" {
		if w.update, err = sc.Update(update); err != nil {
			return nil, exprError(err)
		}
		for _, a := range w.update.Attrs() {
			for _, k := range t.keyAttrs() {
				if a == k.name {
					return nil, invalidParam("Cannot update attribute %s. This attribute is part of the key", a)
				}
			}
		}
	}
	if cond != "" {
		if w.cond, err = sc.Condition(cond); err != nil {
			return nil, exprError(err)
		}
	} else if kind == checkKind {
		return nil, validationf("1 validation error detected: Value null at 'conditionExpression' failed to satisfy constraint: Member must not be null")
	}
	if cond == "" && update == "" && kind != updateKind && (names != nil || values != nil) {
		which := "ExpressionAttributeValues"
		if names != nil {
			which = "ExpressionAttributeNames"
		}
		return nil, validationf("%s can only be specified when using expressions: ConditionExpression is null", which)
	}
	if err := checkPlaceholders(sc, names, values, cond != "" || update != ""); err != nil {
		return nil, err
	}
	return w, nil
}

// checkPlaceholders rejects placeholder maps that no expression used, and
// maps given without any expression, as DynamoDB does.
func checkPlaceholders(sc *expr.Scope, names map[string]string, values map[string]attr.Value, any bool) error {
	if !any {
		if names != nil {
			return validationf("ExpressionAttributeNames can only be specified when using expressions")
		}
		if values != nil {
			return validationf("ExpressionAttributeValues can only be specified when using expressions")
		}
		return nil
	}
	if names != nil && len(names) == 0 {
		return validationf("ExpressionAttributeNames must not be empty")
	}
	if values != nil && len(values) == 0 {
		return validationf("ExpressionAttributeValues must not be empty")
	}
	return exprError(sc.Check())
}

// keyOf extracts the table key attributes of an item.
func keyOf(t *table, it attr.Item) attr.Item {
	pk, _ := it.Get(t.hash.name)
	if t.rng == nil {
		return attr.Item{{Name: t.hash.name, Value: pk}}
	}
	sk, _ := it.Get(t.rng.name)
	if t.rng.name < t.hash.name {
		return attr.Item{{Name: t.rng.name, Value: sk}, {Name: t.hash.name, Value: pk}}
	}
	return attr.Item{{Name: t.hash.name, Value: pk}, {Name: t.rng.name, Value: sk}}
}

// run evaluates the write against the stored state; the caller holds the
// table's write lock. A failed condition returns
// ConditionalCheckFailedException (with the item when asked).
func (w *write) run() error {
	t := w.t
	if _, busy := t.pending[string(w.tkey)]; busy {
		return errInFlight
	}
	w.old = t.get(w.tkey)
	if w.old != nil && !w.lean {
		it, err := t.decode(w.old.load())
		if err != nil {
			return &Error{Type: ErrInternal, Message: err.Error()}
		}
		w.oldItem = it
	}
	if w.cond != nil && !w.cond.Eval(w.oldItem) {
		var item attr.Item
		if w.rvFail && w.old != nil {
			item = w.oldItem
		}
		return conditionFailed(item)
	}
	switch w.kind {
	case putKind:
		w.newItem = w.item
	case deleteKind, checkKind:
		w.newItem = nil
	case updateKind:
		base := w.oldItem
		if base == nil {
			base = w.key
		}
		if w.update == nil {
			w.newItem = base
			break
		}
		n, err := w.update.Apply(base)
		if err != nil {
			return exprError(err)
		}
		if n, err = w.checkUpdated(n); err != nil {
			return err
		}
		w.newItem = n
	}
	if w.newItem != nil {
		w.newSize = t.rules.ItemSize(w.newItem)
		if len(t.lsis) > 0 {
			d := t.collectionDelta(w.oldItem, w.newItem, w.newSize)
			if d > 0 && t.collections[t.collectionOf(w.oldItem, w.newItem)]+d > t.collectionLimit {
				return &Error{Type: ErrItemCollectionTooLarge, Message: "Collection size exceeded."}
			}
		}
	}
	return nil
}

// checkUpdated validates an item produced by an update expression.
// checkUpdated validates an item produced by an update expression and
// returns it with numbers in canonical form.
func (w *write) checkUpdated(n attr.Item) (attr.Item, error) {
	t := w.t
	for _, k := range t.keyAttrs() {
		a, _ := w.key.Get(k.name)
		b, ok := n.Get(k.name)
		if !ok || b.Type != a.Type || b.Str != a.Str {
			return nil, invalidParam("Cannot update attribute %s. This attribute is part of the key", k.name)
		}
	}
	n, err := normalizeItem(n)
	if err != nil {
		return nil, err
	}
	if err := t.checkItemKeys(n); err != nil {
		return nil, err
	}
	return n, t.checkSize(n)
}

// commit stores the result of run; the caller holds the write lock.
func (w *write) commit() {
	if w.kind == checkKind {
		return
	}
	if w.kind == deleteKind {
		w.t.apply(w.tkey, w.old, w.oldItem, nil, 0)
		return
	}
	w.t.apply(w.tkey, w.old, w.oldItem, w.newItem, w.newSize)
}

// itemRequest is what PutItem, UpdateItem and DeleteItem have in common.
type itemRequest struct {
	kind               writeKind
	table              string
	item, key          attr.Item
	cond, update       string
	names              map[string]string
	values             map[string]attr.Value
	rv, rcc, ricm, rvf string
	expected           map[string]ExpectedAttributeValue
	condOp             string
	updates            map[string]AttributeValueUpdate
}

// writeItem validates and runs a single-item write. w is nil when the
// request was refused before reaching the item; otherwise c is its charge
// (also when the condition failed) and rv the ReturnValues to apply.
func (e *Engine) writeItem(ctx context.Context, r itemRequest) (w *write, rv string, c *Consumed, err error) {
	if err := writeConstraints(r.table, r.rv, r.rcc, r.ricm, r.rvf); err != nil {
		return nil, "", nil, err
	}
	if rv, err = parseReturnValues(r.rv, r.kind == updateKind); err != nil {
		return nil, "", nil, err
	}
	want, level, err := parseConsumed(r.rcc)
	if err != nil {
		return nil, "", nil, err
	}
	if r.expected != nil || r.condOp != "" || r.updates != nil {
		if err := legacyWrite(r.expected, r.condOp, r.updates, r.kind == updateKind, &r.cond, &r.update, &r.names, &r.values); err != nil {
			return nil, "", nil, err
		}
	}
	t, err := e.table(r.table)
	if err != nil {
		return nil, "", nil, err
	}
	if err := e.writable(); err != nil {
		return nil, "", nil, err
	}
	t.mu.RLock()
	w, err = e.prepareWrite(t, r.kind, r.item, r.key, r.cond, r.update, r.names, r.values, r.rvf)
	t.mu.RUnlock()
	if err != nil {
		return nil, "", nil, err
	}
	w.wantCap = want
	w.wantICM = r.ricm == "SIZE"
	w.lean = r.kind == putKind && w.cond == nil && rv == "NONE" && !want && !e.admits()
	charge, err := e.single(ctx, w)
	if err == nil {
		err = e.durable()
	}
	return w, rv, consumed(want, level, charge), err
}

// PutItem creates or replaces an item.
func (e *Engine) PutItem(ctx context.Context, in *PutItemInput) (*PutItemOutput, error) {
	w, rv, c, err := e.writeItem(ctx, itemRequest{kind: putKind, table: in.TableName, item: in.Item,
		cond: in.ConditionExpression, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		rv: in.ReturnValues, rcc: in.ReturnConsumedCapacity, ricm: in.ReturnItemCollectionMetrics, rvf: in.ReturnValuesOnConditionCheckFailure,
		expected: in.Expected, condOp: in.ConditionalOperator})
	if w == nil {
		return nil, err
	}
	out := &PutItemOutput{ConsumedCapacity: c, ItemCollectionMetrics: w.metrics}
	if err == nil && rv == "ALL_OLD" {
		out.Attributes = w.oldItem
	}
	return out, err
}

// DeleteItem deletes an item.
func (e *Engine) DeleteItem(ctx context.Context, in *DeleteItemInput) (*DeleteItemOutput, error) {
	w, rv, c, err := e.writeItem(ctx, itemRequest{kind: deleteKind, table: in.TableName, key: in.Key,
		cond: in.ConditionExpression, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		rv: in.ReturnValues, rcc: in.ReturnConsumedCapacity, ricm: in.ReturnItemCollectionMetrics, rvf: in.ReturnValuesOnConditionCheckFailure,
		expected: in.Expected, condOp: in.ConditionalOperator})
	if w == nil {
		return nil, err
	}
	out := &DeleteItemOutput{ConsumedCapacity: c, ItemCollectionMetrics: w.metrics}
	if err == nil && rv == "ALL_OLD" {
		out.Attributes = w.oldItem
	}
	return out, err
}

// UpdateItem edits an item, creating it when absent.
func (e *Engine) UpdateItem(ctx context.Context, in *UpdateItemInput) (*UpdateItemOutput, error) {
	w, rv, c, err := e.writeItem(ctx, itemRequest{kind: updateKind, table: in.TableName, key: in.Key,
		cond: in.ConditionExpression, update: in.UpdateExpression, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
		rv: in.ReturnValues, rcc: in.ReturnConsumedCapacity, ricm: in.ReturnItemCollectionMetrics, rvf: in.ReturnValuesOnConditionCheckFailure,
		expected: in.Expected, condOp: in.ConditionalOperator, updates: in.AttributeUpdates})
	if w == nil {
		return nil, err
	}
	out := &UpdateItemOutput{ConsumedCapacity: c, ItemCollectionMetrics: w.metrics}
	if err != nil {
		return out, err
	}
	switch rv {
	case "ALL_OLD":
		out.Attributes = w.oldItem
	case "ALL_NEW":
		out.Attributes = w.newItem
	case "UPDATED_OLD":
		out.Attributes = w.updated(w.oldItem)
	case "UPDATED_NEW":
		out.Attributes = w.updated(w.newItem)
	}
	return out, nil
}

// updated projects it on the paths the update expression changed.
func (w *write) updated(it attr.Item) attr.Item {
	if w.update == nil || it == nil {
		return nil
	}
	p := pathsProjection(w.update.Paths())
	if p == nil {
		return nil
	}
	out := p.Apply(it)
	if len(out) == 0 {
		return nil
	}
	return out
}

// single runs and commits one write under its table's lock, charging
// capacity and asking admission. The returned charge is set even when the
// write fails its condition (DynamoDB bills failed conditional writes).
func (e *Engine) single(ctx context.Context, w *write) (capacity.Consumed, error) {
	t := w.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return capacity.Consumed{}, tableNotFound()
	}
	w.lean = w.lean && len(t.gsis) == 0 && len(t.lsis) == 0 && t.stream == nil
	if err := w.run(); err != nil {
		if IsType(err, ErrConditionalCheckFailed) {
			c := e.failedCharge(w)
			// A failed conditional write consumes the table's units (and
			// no index's), so it passes admission like any write.
			if e.admits() {
				a := Admission{Table: t.name, Hash: be64(w.tkey), Key: keyText(w.tkey[8:]), Write: c.Table.Write}
				if aerr := e.admitOne(ctx, a); aerr != nil {
					return capacity.Consumed{}, aerr
				}
			}
			return c, err
		}
		return capacity.Consumed{}, err
	}
	var c capacity.Consumed
	if w.wantCap || e.admits() {
		c = e.writeCharge(w, false)
		if err := e.admitWrite(ctx, w, c); err != nil {
			return capacity.Consumed{}, err
		}
	}
	w.commit()
	if w.wantICM && len(t.lsis) > 0 {
		w.metrics = t.collectionMetrics(w.key)
	}
	return c, nil
}

// collectionMetrics sizes the item collection of key's partition; the
// caller holds the table's lock.
func (t *table) collectionMetrics(key attr.Item) *ItemCollectionMetrics {
	pk, _ := key.Get(t.hash.name)
	size := t.collections[string(partitionPrefix(pk))]
	gb := math.Floor(float64(size) / (1 << 30))
	return &ItemCollectionMetrics{ItemCollectionKey: attr.Item{{Name: t.hash.name, Value: pk}}, SizeEstimateRangeGB: []float64{gb, gb + 1}}
}

// GetItem reads one item.
func (e *Engine) GetItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	return e.getItem(ctx, in, false)
}

// getWire is GetItem for the wire: an item read whole is encoded from
// its stored bytes into the response (GetItemOutput.wire) instead of
// being decoded into an attr.Item that the response encoder would then
// walk, which made a get's largest share of garbage.
func (e *Engine) getWire(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	return e.getItem(ctx, in, true)
}

func (e *Engine) getItem(ctx context.Context, in *GetItemInput, wire bool) (*GetItemOutput, error) {
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	proj, err := parseProjection(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	key, err := t.checkKey(in.Key)
	if err != nil {
		t.mu.RUnlock()
		return nil, err
	}
	tkey, _ := t.tableKey(nil, key)
	r := t.get(tkey)
	var val version
	found := r != nil
	size := 0
	if found {
		val = r.load()
		size = int(val.size)
	}
	t.mu.RUnlock()
	out := &GetItemOutput{}
	if found && wire && proj.empty() {
		// The item's JSON is about twice its stored bytes (type tags,
		// quotes and names written out).
		b := append(make([]byte, 0, 2*len(val.b)+96), `{"Item":`...)
		if b, ok := t.appendJSON(b, val, nil); ok {
			out.wire = b
		}
	}
	if found && out.wire == nil {
		it, err := t.decode(val)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: err.Error()}
		}
		out.Item = proj.apply(it)
	}
	cons := capacity.Eventual
	if in.ConsistentRead {
		cons = capacity.Strong
	}
	c := e.readCharge(t, size, cons)
	if err := e.admitRead(ctx, t, "", be64(tkey), tkey[8:], c); err != nil {
		return nil, err
	}
	out.ConsumedCapacity = consumed(want, level, c)
	return out, nil
}
