package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
)

// Limits of the batch operations.
const (
	maxBatchWrite     = 25
	maxBatchGet       = 100
	maxBatchGetBytes  = 16 << 20
	maxTransactItems  = 100
	maxTransactBytes  = 4 << 20
	transactTokenLife = 10 * 60 // seconds
)

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BatchWriteItem puts and deletes up to 25 items across tables. Each write
// stands alone (no conditions, not atomic); writes refused by admission
// (throttled) come back in UnprocessedItems.
func (e *Engine) BatchWriteItem(ctx context.Context, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	out, err := e.batchWriteItem(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) batchWriteItem(ctx context.Context, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	var c constraints
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumConsumed...)
	c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumMetrics...)
	if err := c.err(); err != nil {
		return nil, err
	}
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validationf("The requestItems parameter is required for BatchWriteItem")
	}
	n := 0
	for name, reqs := range in.RequestItems {
		n += len(reqs)
		if len(reqs) == 0 || len(reqs) > maxBatchWrite {
			return nil, validationf("1 validation error detected: Value '{%s=[%s]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]", name, writeListing(reqs))
		}
	}
	if n > maxBatchWrite {
		return nil, validationf("Too many items requested for the BatchWriteItem call")
	}
	names := sortedKeys(in.RequestItems)
	for _, name := range names {
		if err := checkTableName(name, "requestItems.key"); err != nil {
			return nil, err
		}
	}
	if err := e.writable(); err != nil {
		return nil, err
	}
	tables, unlock, err := e.lockTables(names)
	if err != nil {
		return nil, err
	}
	defer unlock()
	type pending struct {
		w   *write
		req WriteRequest
	}
	var writes []pending
	for _, name := range names {
		t := tables[name]
		seen := map[string]bool{}
		for _, req := range in.RequestItems[name] {
			var w *write
			switch {
			case req.PutRequest != nil && req.DeleteRequest == nil:
				w, err = e.prepareWrite(t, putKind, req.PutRequest.Item, nil, "", "", nil, nil, "")
			case req.DeleteRequest != nil && req.PutRequest == nil:
				w, err = e.prepareWrite(t, deleteKind, nil, req.DeleteRequest.Key, "", "", nil, nil, "")
			default:
				err = validationf("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
				if req.PutRequest == nil {
					err = validationf("1 validation error detected: Value null at 'requestItems.%s.member.1.member' failed to satisfy constraint: Member must have either PutRequest or DeleteRequest", name)
				}
			}
			if err != nil {
				return nil, err
			}
			if seen[string(w.tkey)] {
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(w.tkey)] = true
			writes = append(writes, pending{w, req})
		}
	}
	out := &BatchWriteItemOutput{UnprocessedItems: map[string][]WriteRequest{}}
	var per capacity.PerTable
	var lastErr error
	done := 0
	for _, p := range writes {
		if err := p.w.run(); err != nil {
			return nil, err
		}
		c := e.writeCharge(p.w, false)
		if err := e.admitWrite(ctx, p.w, c); err != nil {
			lastErr = err
			out.UnprocessedItems[p.w.t.name] = append(out.UnprocessedItems[p.w.t.name], p.req)
			continue
		}
		p.w.commit()
		done++
		per = per.Add(c)
	}
	if done == 0 && lastErr != nil {
		return nil, lastErr
	}
	out.ConsumedCapacity = consumedList(want, level, per)
	return out, nil
}

// BatchGetItem reads up to 100 items across tables. Beyond 16 MB of
// response the remaining keys come back in UnprocessedKeys, and so do
// reads refused by admission (throttled); when every read is refused the
// request fails with the throttling error.
func (e *Engine) BatchGetItem(ctx context.Context, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	var c constraints
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumConsumed...)
	if err := c.err(); err != nil {
		return nil, err
	}
	want, level, err := parseConsumed(in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validationf("The requestItems parameter is required for BatchGetItem")
	}
	n := 0
	for _, name := range sortedKeys(in.RequestItems) {
		ka := in.RequestItems[name]
		if ka == nil || len(ka.Keys) == 0 {
			return nil, validationf("1 validation error detected: Value null at 'requestItems.%s.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1", name)
		}
		if len(ka.Keys) > maxBatchGet {
			return nil, validationf("1 validation error detected: Value at 'RequestItems.%s.member.Keys' failed to satisfy constraint: Member must have length less than or equal to %d", name, maxBatchGet)
		}
		n += len(ka.Keys)
	}
	if n > maxBatchGet {
		return nil, validationf("Too many items requested for the BatchGetItem call")
	}
	names := sortedKeys(in.RequestItems)
	type get struct {
		t    *table
		key  []byte
		proj projector
		cons capacity.Consistency
		item attr.Item
		ka   *KeysAndAttributes
		k    attr.Item
	}
	var gets []get
	for _, name := range names {
		if err := checkTableName(name, "requestItems.key"); err != nil {
			return nil, err
		}
		ka := in.RequestItems[name]
		t, err := e.table(name)
		if err != nil {
			return nil, err
		}
		proj, err := parseProjection(ka.ProjectionExpression, ka.AttributesToGet, ka.ExpressionAttributeNames)
		if err != nil {
			return nil, err
		}
		cons := capacity.Eventual
		if ka.ConsistentRead {
			cons = capacity.Strong
		}
		seen := map[string]bool{}
		t.mu.RLock()
		for _, k := range ka.Keys {
			nk, err := t.checkKey(k)
			if err != nil {
				t.mu.RUnlock()
				return nil, err
			}
			tk, _ := t.tableKey(nil, nk)
			if seen[string(tk)] {
				t.mu.RUnlock()
				return nil, validationf("Provided list of item keys contains duplicates")
			}
			seen[string(tk)] = true
			gets = append(gets, get{t: t, key: tk, proj: proj, cons: cons, ka: ka, k: k})
		}
		t.mu.RUnlock()
	}
	out := &BatchGetItemOutput{Responses: map[string][]attr.Item{}, UnprocessedKeys: map[string]*KeysAndAttributes{}}
	var per capacity.PerTable
	bytes := 0
	var lastErr error
	done := 0
	for _, g := range gets {
		if _, ok := out.Responses[g.t.name]; !ok {
			out.Responses[g.t.name] = []attr.Item{}
		}
		unprocessed := func() {
			u := out.UnprocessedKeys[g.t.name]
			if u == nil {
				u = &KeysAndAttributes{ProjectionExpression: g.ka.ProjectionExpression, AttributesToGet: g.ka.AttributesToGet,
					ExpressionAttributeNames: g.ka.ExpressionAttributeNames, ConsistentRead: g.ka.ConsistentRead}
				out.UnprocessedKeys[g.t.name] = u
			}
			u.Keys = append(u.Keys, g.k)
		}
		if bytes >= maxBatchGetBytes {
			unprocessed()
			continue
		}
		g.t.mu.RLock()
		r := g.t.get(g.key)
		var val version
		found := r != nil
		size := 0
		if found {
			val = r.load()
			size = int(val.size)
		}
		g.t.mu.RUnlock()
		c := e.readCharge(g.t, size, g.cons)
		if err := e.admitRead(ctx, g.t, "", be64(g.key), g.key[8:], c); err != nil {
			lastErr = err
			unprocessed()
			continue
		}
		done++
		per = per.Add(c)
		if !found {
			continue
		}
		it, err := g.t.decode(val)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: err.Error()}
		}
		bytes += size
		out.Responses[g.t.name] = append(out.Responses[g.t.name], g.proj.apply(it))
	}
	if done == 0 && lastErr != nil {
		return nil, lastErr
	}
	out.ConsumedCapacity = consumedList(want, level, per)
	return out, nil
}

// writeListing renders write requests the way DynamoDB echoes them in
// constraint messages.
func writeListing(reqs []WriteRequest) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		switch {
		case r.PutRequest != nil:
			parts[i] = "WriteRequest(putRequest=PutRequest(item=" + string(attr.AppendItemJSON(nil, r.PutRequest.Item)) + "))"
		case r.DeleteRequest != nil:
			parts[i] = "WriteRequest(deleteRequest=DeleteRequest(key=" + string(attr.AppendItemJSON(nil, r.DeleteRequest.Key)) + "))"
		default:
			parts[i] = "WriteRequest()"
		}
	}
	return strings.Join(parts, ", ")
}
