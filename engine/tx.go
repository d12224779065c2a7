package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/capacity"
)

// tokenCache remembers TransactWriteItems requests by ClientRequestToken
// for ten minutes, so that a retried request is not applied twice.
type tokenCache struct {
	mu        sync.Mutex
	entries   map[string]tokenEntry
	lastPurge time.Time
}

type tokenEntry struct {
	digest   [32]byte
	at       time.Time
	inFlight bool // the first request with the token has not finished
	replay   capacity.PerTable
}

// reserve returns the live entry of a token, or, when there is none,
// records the token as in flight for the caller (reserved true).
func (c *tokenCache) reserve(token string, d [32]byte, now time.Time) (en tokenEntry, reserved bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	life := transactTokenLife * time.Second
	if now.Sub(c.lastPurge) > time.Second {
		c.lastPurge = now
		for k, v := range c.entries {
			if !v.inFlight && now.Sub(v.at) > life {
				delete(c.entries, k)
			}
		}
	}
	if en, ok := c.entries[token]; ok && (en.inFlight || now.Sub(en.at) <= life) {
		return en, false
	}
	c.entries[token] = tokenEntry{digest: d, at: now, inFlight: true}
	return tokenEntry{}, true
}

// finish records a token's transaction as applied, with what a replay
// consumes.
func (c *tokenCache) finish(token string, en tokenEntry) {
	c.mu.Lock()
	c.entries[token] = en
	c.mu.Unlock()
}

// release forgets a token whose transaction was not applied, so that the
// request may be retried.
func (c *tokenCache) release(token string) {
	c.mu.Lock()
	delete(c.entries, token)
	c.mu.Unlock()
}

// digest identifies a request's parameters for idempotency checks.
func digest(in *TransactWriteItemsInput) [32]byte {
	b, _ := json.Marshal(in.TransactItems)
	return sha256.Sum256(b)
}

// TransactWriteItems applies up to 100 writes and condition checks on
// distinct items atomically: either every condition holds and every write
// is applied, or nothing is and TransactionCanceledException lists a
// reason per action, in request order.
func (e *Engine) TransactWriteItems(ctx context.Context, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if err := checkActions(len(in.TransactItems)); err != nil {
		return nil, err
	}
	if len(in.ClientRequestToken) > 36 {
		return nil, validationf("1 validation error detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36", in.ClientRequestToken)
	}
	var d [32]byte
	if in.ClientRequestToken != "" {
		d = digest(in)
		en, reserved := e.tokens.reserve(in.ClientRequestToken, d, e.opts.Now())
		switch {
		case !reserved && en.digest != d:
			return nil, &Error{Type: ErrIdempotentMismatch, Message: "The request with the client token " + in.ClientRequestToken + " was different from the original request"}
		case !reserved && en.inFlight:
			return nil, &Error{Type: ErrTransactionInProgress, Message: "The transaction with the given request token is already in progress."}
		case !reserved:
			return &TransactWriteItemsOutput{ConsumedCapacity: consumedList(want, level, en.replay)}, nil
		}
		applied := false
		defer func() {
			if !applied {
				e.tokens.release(in.ClientRequestToken)
			}
		}()
		out, err := e.transactWrite(ctx, in, want, level, d)
		applied = err == nil
		return out, e.afterWrite(err)
	}
	out, err := e.transactWrite(ctx, in, want, level, d)
	return out, e.afterWrite(err)
}

// transactWrite runs a TransactWriteItems request once its token, if any,
// is reserved.
func (e *Engine) transactWrite(ctx context.Context, in *TransactWriteItemsInput, want bool, level capacity.Level, d [32]byte) (*TransactWriteItemsOutput, error) {
	names, err := txTableNames(in)
	if err != nil {
		return nil, err
	}
	if err := e.writable(); err != nil {
		return nil, err
	}
	tables, unlock, err := e.lockTables(names)
	if err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	writes := make([]*write, len(in.TransactItems))
	seen := map[string]bool{}
	for i, a := range in.TransactItems {
		t := tables[names[i]]
		var w *write
		switch {
		case a.ConditionCheck != nil:
			c := a.ConditionCheck
			w, err = e.prepareWrite(t, checkKind, nil, c.Key, c.ConditionExpression, "", c.ExpressionAttributeNames, c.ExpressionAttributeValues, c.ReturnValuesOnConditionCheckFailure)
		case a.Put != nil:
			p := a.Put
			w, err = e.prepareWrite(t, putKind, p.Item, nil, p.ConditionExpression, "", p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)
		case a.Delete != nil:
			p := a.Delete
			w, err = e.prepareWrite(t, deleteKind, nil, p.Key, p.ConditionExpression, "", p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)
		case a.Update != nil:
			p := a.Update
			if p.UpdateExpression == "" {
				return nil, validationf("1 validation error detected: Value null at 'transactItems.%d.member.update.updateExpression' failed to satisfy constraint: Member must not be null", i+1)
			}
			w, err = e.prepareWrite(t, updateKind, nil, p.Key, p.ConditionExpression, p.UpdateExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)
		}
		if err != nil {
			return nil, err
		}
		id := t.name + "\x00" + string(w.tkey)
		if seen[id] {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		writes[i] = w
	}
	total := 0
	for _, w := range writes {
		if w.item != nil {
			total += w.t.rules.ItemSize(w.item)
		}
	}
	if total > maxTransactBytes {
		return nil, validationf("Transaction request size of %d bytes exceeds the maximum allowed size of %d bytes", total, maxTransactBytes)
	}
	reasons, failed, err := runTx(writes)
	if err != nil {
		return nil, err
	}
	if failed {
		// The output carries what the cancelled transaction billed, for
		// BilledHeader; SDK clients see the error alone.
		var out *TransactWriteItemsOutput
		if p, ok := e.cancelledCharge(writes, reasons); ok && want {
			out = &TransactWriteItemsOutput{ConsumedCapacity: consumedList(want, level, p)}
		}
		return out, cancelled(reasons)
	}
	var per, replay capacity.PerTable
	charges := make([]capacity.Consumed, len(writes))
	var adm []Admission
	for i, w := range writes {
		charges[i] = e.writeCharge(w, true)
		if e.admits() {
			adm = append(adm, e.admission(w, charges[i]))
		}
	}
	if err := e.admitTxn(ctx, adm); err != nil {
		return nil, err
	}
	// Prepared: the items are marked in flight and the tables unlocked, so
	// that, as on DynamoDB, other requests arriving before the commit
	// conflict on these items (and only on these) instead of waiting.
	for _, w := range writes {
		if w.t.pending == nil {
			w.t.pending = map[string]struct{}{}
		}
		w.t.pending[string(w.tkey)] = struct{}{}
	}
	unlock()
	locked = false
	relock := lockSet(tables)
	defer relock()
	// The data log records the transaction's changes as one entry, so
	// that a crash never leaves part of it.
	g := e.beginGroup(tables)
	for i, w := range writes {
		delete(w.t.pending, string(w.tkey))
		w.commit()
		per = per.Add(charges[i])
		replay = replay.Add(e.rules.Replay(&w.t.desc, capacity.WriteOp{Kind: w.capKind(), Before: w.oldItem, After: w.newItem, Txn: true}))
	}
	e.endGroup(g, tables)
	if in.ClientRequestToken != "" {
		e.tokens.finish(in.ClientRequestToken, tokenEntry{digest: d, at: e.opts.Now(), replay: replay})
	}
	return &TransactWriteItemsOutput{ConsumedCapacity: consumedList(want, level, per)}, nil
}

// txTableNames checks that each action of a transaction is one of
// check, put, update or delete, and returns the table names they name.
func txTableNames(in *TransactWriteItemsInput) ([]string, error) {
	var names []string
	for i, a := range in.TransactItems {
		n := 0
		for _, set := range []bool{a.ConditionCheck != nil, a.Put != nil, a.Delete != nil, a.Update != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, validationf("TransactItems can only contain one of Check, Put, Update or Delete (action %d)", i+1)
		}
		switch {
		case a.ConditionCheck != nil:
			names = append(names, a.ConditionCheck.TableName)
		case a.Put != nil:
			names = append(names, a.Put.TableName)
		case a.Delete != nil:
			names = append(names, a.Delete.TableName)
		case a.Update != nil:
			names = append(names, a.Update.TableName)
		}
	}
	for i := range names {
		if err := checkTableName(names[i], "transactItems.member.tableName"); err != nil {
			return nil, err
		}
		names[i] = tableName(names[i])
	}
	return names, nil
}

// runTx runs a transaction's prepared writes, each against its condition,
// and returns why each would cancel it ("None" for the ones that hold).
// An error other than a failed condition, a validation or a conflict
// ends it at once.
func runTx(writes []*write) ([]CancellationReason, bool, error) {
	reasons := make([]CancellationReason, len(writes))
	failed := false
	for i, w := range writes {
		reasons[i].Code = "None"
		err := w.run()
		if err == nil {
			continue
		}
		failed = true
		var ee *Error
		if !asError(err, &ee) {
			return nil, false, err
		}
		switch ee.Type {
		case ErrConditionalCheckFailed:
			reasons[i] = CancellationReason{Code: "ConditionalCheckFailed", Message: ee.Message, Item: ee.Item}
		case ErrValidation:
			reasons[i] = CancellationReason{Code: "ValidationError", Message: ee.Message}
		case ErrTransactionConflict:
			reasons[i] = CancellationReason{Code: "TransactionConflict", Message: ee.Message}
		default:
			return nil, false, err
		}
	}
	return reasons, failed, nil
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// TransactGetItems reads up to 100 items as one consistent snapshot.
func (e *Engine) TransactGetItems(ctx context.Context, in *TransactGetItemsInput) (*TransactGetItemsOutput, error) {
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if err := checkActions(len(in.TransactItems)); err != nil {
		return nil, err
	}
	names := make([]string, len(in.TransactItems))
	for i, g := range in.TransactItems {
		if g.Get == nil {
			return nil, validationf("1 validation error detected: Value null at 'transactItems.%d.member.get' failed to satisfy constraint: Member must not be null", i+1)
		}
		if err := checkTableName(g.Get.TableName, "transactItems.member.get.tableName"); err != nil {
			return nil, err
		}
		names[i] = tableName(g.Get.TableName)
	}
	tables, unlock, err := e.lockTables(names)
	if err != nil {
		return nil, err
	}
	defer unlock()
	type get struct {
		t    *table
		key  []byte
		proj projector
	}
	gets := make([]get, len(in.TransactItems))
	seen := map[string]bool{}
	reasons := make([]CancellationReason, len(gets))
	invalid := false
	for i, g := range in.TransactItems {
		t := tables[names[i]]
		proj, err := parseProjection(g.Get.ProjectionExpression, nil, g.Get.ExpressionAttributeNames)
		if err != nil {
			return nil, err
		}
		reasons[i].Code = "None"
		k, err := t.checkKey(g.Get.Key)
		if err == nil {
			tk, _ := t.tableKey(nil, k)
			if _, busy := t.pending[string(tk)]; busy {
				reasons[i] = CancellationReason{Code: "TransactionConflict", Message: errInFlight.Message}
				invalid = true
				continue
			}
		}
		if err != nil {
			// A bad key is the action's fault: the transaction is
			// cancelled with a reason, not refused as a whole.
			reasons[i] = CancellationReason{Code: "ValidationError", Message: err.(*Error).Message}
			invalid = true
			continue
		}
		tk, _ := t.tableKey(nil, k)
		id := t.name + "\x00" + string(tk)
		if seen[id] {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		gets[i] = get{t: t, key: tk, proj: proj}
	}
	if invalid {
		return nil, cancelled(reasons)
	}
	out := &TransactGetItemsOutput{Responses: make([]ItemResponse, len(gets))}
	var per capacity.PerTable
	var adm []Admission
	for i, g := range gets {
		r := g.t.get(g.key)
		size := 0
		if r != nil {
			v := r.load()
			it, err := g.t.decode(v)
			if err != nil {
				return nil, &Error{Type: ErrInternal, Message: err.Error()}
			}
			out.Responses[i].Item = g.proj.apply(it)
			size = int(v.size)
		}
		c := e.readCharge(g.t, size, capacity.Transactional)
		per = per.Add(c)
		if e.admits() {
			adm = append(adm, Admission{Table: g.t.name, Hash: be64(g.key), Key: keyText(g.key[8:]), Read: c.Table.Read})
		}
	}
	if err := e.admitTxn(ctx, adm); err != nil {
		return nil, err
	}
	out.ConsumedCapacity = consumedList(want, level, per)
	return out, nil
}

// checkActions applies the 1 to 100 actions limit of both transaction
// operations.
func checkActions(n int) error {
	switch {
	case n == 0:
		return validationf("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case n > maxTransactItems:
		return validationf("1 validation error detected: Value '[...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d", maxTransactItems)
	}
	return nil
}

// cancelled is the TransactionCanceledException for the given reasons.
func cancelled(reasons []CancellationReason) *Error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	return &Error{Type: ErrTransactionCanceled,
		Message:             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
		CancellationReasons: reasons}
}
