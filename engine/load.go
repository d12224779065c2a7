package engine

import (
	"context"

	"github.com/cardapio/cardapio/attr"
)

// loadChunk is how many items Load writes under one hold of a table's
// lock: large enough that the lock is not taken per item, small enough
// that a read waits for a few milliseconds at most.
const loadChunk = 512

// Load puts items into a table, as BatchWriteItem's puts would leave it:
// each item validated and normalised as a PutItem's, replacing any item
// of its key, indexes, the stream and the data log kept by the one path
// that changes stored state. It is for setting up the state a run then
// measures (a runner's seed, a dataset), so it is neither billed nor
// admitted: no capacity is computed, the Admit hook and the throughput
// model do not see it, and the table's lock is taken once per chunk of
// items rather than once per request of 25. An invalid item stops the
// load with the error PutItem would return; the items before it stay.
func (e *Engine) Load(ctx context.Context, table string, items []attr.Item) error {
	return e.afterWrite(e.load(ctx, table, items))
}

func (e *Engine) load(ctx context.Context, table string, items []attr.Item) error {
	if err := checkTableName(table, "tableName"); err != nil {
		return err
	}
	t, err := e.table(table)
	if err != nil {
		return err
	}
	for len(items) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.writable(); err != nil {
			return err
		}
		n := min(loadChunk, len(items))
		if err := e.loadChunk(t, items[:n]); err != nil {
			return err
		}
		items = items[n:]
	}
	return nil
}

func (e *Engine) loadChunk(t *table, items []attr.Item) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return tableNotFound()
	}
	for _, it := range items {
		w, err := e.prepareWrite(t, putKind, it, nil, "", "", nil, nil, "")
		if err != nil {
			return err
		}
		if err := w.run(); err != nil {
			return err
		}
		w.commit()
	}
	return nil
}
