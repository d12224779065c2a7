package engine

import (
	"context"

	"github.com/cardapio/cardapio/capacity"
)

// Consumed is a response's ConsumedCapacity: the charge computed by the
// capacity package and the level (TOTAL or INDEXES) the request asked
// for, which decides what the wire form shows.
type Consumed struct {
	capacity.Consumed
	Level capacity.Level
}

// MarshalJSON writes DynamoDB's ConsumedCapacity shape at c's level.
func (c *Consumed) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil, c.Level), nil }

// consumed wraps a charge for a response, or returns nil when the request
// did not ask for ConsumedCapacity.
func consumed(want bool, level capacity.Level, c capacity.Consumed) *Consumed {
	if !want || c.TableName == "" {
		return nil
	}
	return &Consumed{Consumed: c, Level: level}
}

// consumedList wraps per-table charges for batch and transaction
// responses.
func consumedList(want bool, level capacity.Level, p capacity.PerTable) []*Consumed {
	if !want {
		return nil
	}
	out := make([]*Consumed, 0, len(p))
	for _, c := range p {
		out = append(out, &Consumed{Consumed: c, Level: level})
	}
	return out
}

func (w *write) capKind() capacity.WriteKind {
	switch w.kind {
	case updateKind:
		return capacity.Update
	case deleteKind:
		return capacity.Delete
	case checkKind:
		return capacity.ConditionCheck
	}
	return capacity.Put
}

// writeCharge is what a successful write consumes.
func (e *Engine) writeCharge(w *write, txn bool) capacity.Consumed {
	return e.rules.Write(&w.t.desc, capacity.WriteOp{Kind: w.capKind(), Before: w.oldItem, After: w.newItem, Txn: txn})
}

// failedCharge is what a write whose condition failed consumes. The
// after-image is what the write would have left.
func (e *Engine) failedCharge(w *write) capacity.Consumed {
	return e.rules.Write(&w.t.desc, capacity.WriteOp{Kind: w.capKind(), Before: w.oldItem, After: afterImage(w), Failed: true})
}

// readCharge is what a GetItem of an item of size bytes consumes (0 for a
// missing item).
func (e *Engine) readCharge(t *table, size int, c capacity.Consistency) capacity.Consumed {
	out, err := e.rules.Read(&t.desc, capacity.ReadOp{Kind: capacity.GetItem, Consistency: c, Bytes: size})
	if err != nil {
		return capacity.Consumed{}
	}
	return out
}

// admission describes a write's charge c for the admission hook: the
// table's units at the item's partition and each touched GSI's at the
// partitions of its old and new entries.
func (e *Engine) admission(w *write, c capacity.Consumed) Admission {
	a := Admission{Table: w.t.name, Hash: be64(w.tkey), Key: keyText(w.tkey[8:]), Write: c.Table.Write + c.Table.Read}
	for _, ix := range w.t.gsis {
		u, ok := c.GSIs[ix.name]
		if !ok {
			continue
		}
		oldKey, newKey := ix.entryKey(w.oldItem, w.tkey), ix.entryKey(w.newItem, w.tkey)
		switch {
		case oldKey != nil && newKey != nil && be64(oldKey) != be64(newKey):
			// A key move: the old entry's removal is charged where it was,
			// the rest where the new entry goes.
			del := e.rules.Write(&w.t.desc, capacity.WriteOp{Kind: capacity.Delete, Before: w.oldItem}).GSIs[ix.name].Write
			a.Indexes = append(a.Indexes, IndexAdmission{Name: ix.name, Hash: be64(oldKey), Key: keyText(oldKey[8:]), Write: del},
				IndexAdmission{Name: ix.name, Hash: be64(newKey), Key: keyText(newKey[8:]), Write: u.Write - del})
		case newKey != nil:
			a.Indexes = append(a.Indexes, IndexAdmission{Name: ix.name, Hash: be64(newKey), Key: keyText(newKey[8:]), Write: u.Write})
		case oldKey != nil:
			a.Indexes = append(a.Indexes, IndexAdmission{Name: ix.name, Hash: be64(oldKey), Key: keyText(oldKey[8:]), Write: u.Write})
		}
	}
	return a
}

// admitWrite asks the admission hook about one write.
func (e *Engine) admitWrite(ctx context.Context, w *write, c capacity.Consumed) error {
	if !e.admits() {
		return nil
	}
	return e.admitOne(ctx, e.admission(w, c))
}

// admitRead asks the admission hook about a read of the table or of a
// global secondary index (index), at the partition with the given hash.
// A local secondary index lives on its table's partitions: its reads are
// the table's.
func (e *Engine) admitRead(ctx context.Context, t *table, index string, hash uint64, key []byte, c capacity.Consumed) error {
	if !e.admits() {
		return nil
	}
	u := c.Total().Read
	return e.admitOne(ctx, Admission{Table: t.name, Index: index, Hash: hash, Key: keyText(key), Read: u})
}
