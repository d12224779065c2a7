package engine

import (
	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
)

// BilledHeader is the response header in which the engine reports what a
// request it refused still billed, where DynamoDB's response carries no
// ConsumedCapacity: a write whose condition failed
// (ConditionalCheckFailedException) and a transaction cancelled by a
// failed condition (TransactionCanceledException). Its value is the
// ConsumedCapacity the request would have carried, in DynamoDB's wire
// shape and at the level it asked for: an object for a single-item
// write, a list (one entry per table) for a transaction. It is sent only
// when the request asked for ReturnConsumedCapacity TOTAL or INDEXES.
//
// SDKs ignore headers they do not know, so clients see DynamoDB's
// response unchanged; a runner that reads the header measures those
// charges instead of computing them.
//
// A failed conditional write is charged by capacity's FailedWrite rule
// on the table alone; a cancelled transaction by capacity's Cancelled
// rule, every action's failed-write units doubled, no index charge.
const BilledHeader = "X-Cardapio-Consumed-Capacity"

// billed returns the value of BilledHeader for the output an operation
// returned with its error, or nil when there is nothing to report.
func billed(out any) []byte {
	switch o := out.(type) {
	case *PutItemOutput:
		if o != nil && o.ConsumedCapacity != nil {
			return o.ConsumedCapacity.AppendJSON(nil, o.ConsumedCapacity.Level)
		}
	case *UpdateItemOutput:
		if o != nil && o.ConsumedCapacity != nil {
			return o.ConsumedCapacity.AppendJSON(nil, o.ConsumedCapacity.Level)
		}
	case *DeleteItemOutput:
		if o != nil && o.ConsumedCapacity != nil {
			return o.ConsumedCapacity.AppendJSON(nil, o.ConsumedCapacity.Level)
		}
	case *TransactWriteItemsOutput:
		if o != nil && o.ConsumedCapacity != nil {
			b := []byte{'['}
			for i, c := range o.ConsumedCapacity {
				if i > 0 {
					b = append(b, ',')
				}
				b = c.AppendJSON(b, c.Level)
			}
			return append(b, ']')
		}
	}
	return nil
}

// afterImage is the item a write leaves, or would have left had its
// condition held.
func afterImage(w *write) attr.Item {
	if w.newItem != nil || w.kind == deleteKind || w.kind == checkKind {
		return w.newItem
	}
	if w.kind == updateKind && w.update != nil {
		base := w.oldItem
		if base == nil {
			base = w.key
		}
		if n, err := w.update.Apply(base); err == nil {
			return n
		}
		return base
	}
	return w.item
}

// cancelledCharge is what a transaction cancelled by a failed condition
// bills: each action by capacity's Cancelled rule. ok is false when the
// transaction was cancelled for another reason than conditions (a
// conflict, a validation error), whose billing is not modelled.
func (e *Engine) cancelledCharge(writes []*write, reasons []CancellationReason) (p capacity.PerTable, ok bool) {
	for _, r := range reasons {
		if r.Code != "None" && r.Code != "ConditionalCheckFailed" {
			return nil, false
		}
	}
	for _, w := range writes {
		p = p.Add(e.rules.Cancelled(&w.t.desc, capacity.WriteOp{Kind: w.capKind(), Before: w.oldItem, After: afterImage(w)}))
	}
	return p, true
}
