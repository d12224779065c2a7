package capacity

// Cancelled returns what one action of a TransactWriteItems request that
// was cancelled by a failed condition consumes. DynamoDB returns no
// ConsumedCapacity for a cancelled transaction and does not document its
// bill (capacity-rules.md 3.6), so every action, the failing one and those
// whose conditions held, is charged as an upper bound: the prepare phase
// read and locked its item, so the action costs its failed-write units
// (the FailedWrite rule) doubled as every transactional write is, with no
// index charge (nothing was written).
//
// The engine reports this figure for cancelled transactions, the static
// estimate charges it, and a runner computes it where a target reports
// nothing: one rule, so all three agree.
func (r Rules) Cancelled(t *Table, op WriteOp) Consumed {
	c, _ := r.cancelled(t, op, false, false)
	return c
}

// ExplainCancelled is Cancelled with its reason in words; failing tells
// whether this action is the one whose condition failed.
func (r Rules) ExplainCancelled(t *Table, op WriteOp, failing bool) (Consumed, []Reason) {
	return r.cancelled(t, op, failing, true)
}

func (r Rules) cancelled(t *Table, op WriteOp, failing, explain bool) (Consumed, []Reason) {
	op.Txn, op.Failed = false, true
	f := r.write(t, op, nil)
	c := Consumed{TableName: t.Name, Txn: true, Table: Capacity{Write: 2 * f.Table.Write}}
	if !explain {
		return c, nil
	}
	label := op.Label
	if label == "" {
		label = "item"
	}
	what := "its condition holds, but another action's fails, which cancels the transaction"
	if failing {
		what = "its condition fails, which cancels the transaction"
	}
	bs, as := r.ItemSize(op.Before), r.ItemSize(op.After)
	var why []Reason
	tellRule(&why, RuleCancelled, max(bs, as), "table", c.Table.Write, "%s of %s: %s; DynamoDB reports nothing and does not document the bill: charged as an upper bound, 2 x %s WRU (the %q rule, %s) = %s WRU, no index charge",
		op.Kind, label, what, units(f.Table.Write), r.FailedWrite, r.failedNote(op.Before, op.After, bs, as), units(c.Table.Write))
	return c, why
}
