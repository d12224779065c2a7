package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// ttlHorizon: DynamoDB ignores TTL values more than five years in the
// past (they are probably in the wrong unit).
const ttlHorizon = 5 * 365 * 24 * time.Hour

// UpdateTimeToLive enables or disables expiry on an attribute.
func (e *Engine) UpdateTimeToLive(ctx context.Context, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	out, err := e.updateTimeToLive(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) updateTimeToLive(_ context.Context, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	if spec.Enabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null")
	}
	if spec.AttributeName == "" {
		return nil, validationf("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if *spec.Enabled {
		if t.ttlEnabled {
			return nil, validationf("TimeToLive is already enabled")
		}
		t.ttlEnabled, t.ttlAttr = true, spec.AttributeName
	} else {
		if !t.ttlEnabled {
			return nil, validationf("TimeToLive is already disabled")
		}
		if spec.AttributeName != t.ttlAttr {
			return nil, validationf("The attribute name provided (%s) does not match the attribute name of the current TimeToLive configuration (%s)", spec.AttributeName, t.ttlAttr)
		}
		t.ttlEnabled, t.ttlAttr = false, ""
	}
	e.logDef(t)
	return &UpdateTimeToLiveOutput{TimeToLiveSpecification: spec}, nil
}

// DescribeTimeToLive reports whether expiry is on, and on which attribute.
func (e *Engine) DescribeTimeToLive(_ context.Context, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	d := &TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}
	if t.ttlEnabled {
		d.TimeToLiveStatus, d.AttributeName = "ENABLED", t.ttlAttr
	}
	return &DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

// expired reports whether an item's TTL attribute (a number of seconds
// since the epoch) lies in the past, but not so far back that DynamoDB
// would ignore it.
func expired(v attr.Value, now time.Time) bool {
	if v.Type != attr.N {
		return false
	}
	n, err := attr.ParseNumber(v.Str)
	if err != nil {
		return false
	}
	nowN, _ := attr.ParseNumber(strconv.FormatInt(now.Unix(), 10))
	oldest, _ := attr.ParseNumber(strconv.FormatInt(now.Add(-ttlHorizon).Unix(), 10))
	return n.Cmp(nowN) <= 0 && n.Cmp(oldest) >= 0
}

// SweepExpired deletes every expired item of every table with TTL on, as
// DynamoDB's background process does: without consuming capacity and
// without conditions. It returns how many items it deleted. Until a
// sweep, expired items remain readable, as on DynamoDB.
func (e *Engine) SweepExpired(now time.Time) int {
	e.mu.RLock()
	tables := make([]*table, 0, len(e.tables))
	for _, t := range e.tables {
		tables = append(tables, t)
	}
	e.mu.RUnlock()
	n := 0
	for _, t := range tables {
		n += t.sweep(now)
	}
	return n
}

// sweepBatch bounds how many deletions one hold of a table's write lock
// makes, so that a sweep of a large table does not stall its traffic.
const sweepBatch = 512

// sweep finds expired items in a snapshot of the table, then deletes them in
// batches under the write lock, checking each again (it may have been
// rewritten, deleted or be in a transaction meanwhile).
func (t *table) sweep(now time.Time) int {
	t.mu.RLock()
	if !t.ttlEnabled || t.deleted {
		t.mu.RUnlock()
		return 0
	}
	attrName := t.ttlAttr
	// The walk reads a snapshot of the table, without the lock: writers
	// wait for none of it.
	items := t.items.snapshot()
	t.mu.RUnlock()
	var doomed [][]byte
	items.ascend(nil, nil, func(r *rec) bool {
		if v, ok := t.lookup(r.load(), attrName); ok && expired(v, now) {
			doomed = append(doomed, r.key())
		}
		return true
	})
	n := 0
	for len(doomed) > 0 {
		batch := doomed[:min(sweepBatch, len(doomed))]
		doomed = doomed[len(batch):]
		t.mu.Lock()
		for _, k := range batch {
			r := t.get(k)
			if r == nil || t.deleted || !t.ttlEnabled {
				continue
			}
			if _, busy := t.pending[string(k)]; busy {
				continue
			}
			v, ok := t.lookup(r.load(), t.ttlAttr)
			if !ok || !expired(v, now) {
				continue
			}
			it, err := t.decode(r.load())
			if err != nil {
				continue
			}
			t.applyAs(r.key(), r, it, nil, 0, ttlIdentity)
			n++
		}
		t.mu.Unlock()
	}
	return n
}

// RunTTL sweeps expired items every Options.TTLSweep until ctx ends.
func (e *Engine) RunTTL(ctx context.Context) {
	tick := time.NewTicker(e.opts.TTLSweep)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			e.SweepExpired(e.opts.Now())
		}
	}
}
