package capacity

import (
	"fmt"

	"github.com/cardapio/cardapio/attr"
)

// WriteKind is the kind of a single-item write or transaction action.
type WriteKind uint8

// Write kinds. BatchWriteItem is a series of Put and Delete writes, each
// rounded on its own: add their Consumed together.
const (
	Put WriteKind = iota + 1
	Update
	Delete
	ConditionCheck // a TransactWriteItems action that only checks an item
	Expire         // a deletion by TTL: free (capacity-rules.md 3.8)
)

// String returns the operation's name.
func (k WriteKind) String() string {
	switch k {
	case Put:
		return "put"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case ConditionCheck:
		return "condition check"
	case Expire:
		return "TTL delete"
	}
	return "write"
}

// WriteOp describes one write by the images of its item. A nil image is
// an absent item: Before is nil for a new item, After is ignored for
// Delete and ConditionCheck.
type WriteOp struct {
	Kind   WriteKind
	Before attr.Item // the stored item before the write, nil if none
	After  attr.Item // the item a Put or Update leaves (or would have left)
	// Txn marks an action of TransactWriteItems: the base-table charge is
	// doubled (prepare + commit).
	Txn bool
	// Failed marks a write whose condition failed. Alone it is charged by
	// Rules.FailedWrite with no index charge; in a transaction the whole
	// transaction is cancelled and DynamoDB reports nothing.
	Failed bool
	// Label names the item in reasons ("CONTRACT"); "item" when empty.
	Label string
}

// Reason is one line of explanation of a charge.
type Reason struct {
	Target string // "table" or an index name
	Units  float64
	Text   string
	// Rule names the billing rule that gave the units, for programs
	// that act on an explanation (the budget gate points a reviewer at
	// the part of a model a rule depends on); Text is for people.
	Rule Rule
	// Bytes is the size the rule rounded: the item, the index entry (the
	// larger of two), or a page's sum; 0 when no size is involved.
	Bytes int
}

// Rule names one of the billing rules of capacity-rules.md.
type Rule string

// Rules behind reasons.
const (
	RuleWriteSize        Rule = "write-size"            // a write's units: the item's size in 1 KB units
	RuleReadSize         Rule = "read-size"             // a GetItem's units: the item's size in 4 KB units
	RulePage             Rule = "page"                  // a Query or Scan page: sizes summed, then 4 KB units
	RuleFetch            Rule = "lsi-fetch"             // base items an LSI query fetches, each rounded
	RuleTransaction      Rule = "transaction"           // a transactional write: x2 (prepare + commit)
	RuleFailedCondition  Rule = "failed-condition"      // a write whose condition failed is still billed
	RuleCancelled        Rule = "cancelled-transaction" // a transaction cancelled by a failed condition
	RuleConditionCheck   Rule = "condition-check"       // a transaction's ConditionCheck action
	RuleTTL              Rule = "ttl-delete"            // deletions by TTL are free
	RuleIndexPut         Rule = "index-put"             // an entry enters an index
	RuleIndexDelete      Rule = "index-delete"          // an entry leaves an index
	RuleIndexKeyChange   Rule = "index-key-change"      // an index key changes: delete + put
	RuleIndexRewrite     Rule = "index-rewrite"         // a projected attribute changes: the entry is rewritten
	RuleIndexUnchanged   Rule = "index-unchanged"       // nothing the index projects changes: no charge
	RuleIndexTransaction Rule = "index-transaction"     // index charges doubled in a transaction, by option
)

// String returns "target: text".
func (r Reason) String() string { return r.Target + ": " + r.Text }

// Write returns what op consumes on table t: the base-table charge
// (capacity-rules.md 3) and each secondary index's (section 5).
func (r Rules) Write(t *Table, op WriteOp) Consumed { return r.write(t, op, nil) }

// ExplainWrite is Write with the reasons behind each figure, in words.
func (r Rules) ExplainWrite(t *Table, op WriteOp) (Consumed, []Reason) {
	var why []Reason
	c := r.write(t, op, &why)
	return c, why
}

// tell records a reason when reasons are wanted. Callers check why first
// so that building the text costs nothing otherwise.
func tell(why *[]Reason, target string, u float64, format string, args ...any) {
	*why = append(*why, Reason{Target: target, Units: u, Text: fmt.Sprintf(format, args...)})
}

// tellRule is tell with the rule behind the reason and the size it
// rounded.
func tellRule(why *[]Reason, rule Rule, bytes int, target string, u float64, format string, args ...any) {
	*why = append(*why, Reason{Target: target, Units: u, Text: fmt.Sprintf(format, args...), Rule: rule, Bytes: bytes})
}

func (r Rules) write(t *Table, op WriteOp, why *[]Reason) Consumed {
	c := Consumed{TableName: t.Name, Txn: op.Txn}
	label := op.Label
	if label == "" {
		label = "item"
	}
	before, after := op.Before, op.After
	switch op.Kind {
	case Delete, ConditionCheck:
		after = nil
	case Update:
		if after == nil {
			after = before // an update always leaves an item
		}
	}
	bs, as := r.ItemSize(before), r.ItemSize(after)

	if op.Failed && op.Txn {
		if why != nil {
			tellRule(why, RuleCancelled, 0, "table", 0, "condition failed: the transaction is cancelled and reports no consumed capacity (its billing is undocumented)")
		}
		return c
	}
	if op.Failed {
		u := r.failedUnits(op.Kind, before, after, bs, as)
		c.Table.Write = u
		if why != nil {
			tellRule(why, RuleFailedCondition, max(bs, as), "table", u, "%s of %s failed its condition: %s WRU by the %q rule (%s); no index charge",
				op.Kind, label, units(u), r.FailedWrite, r.failedNote(before, after, bs, as))
		}
		return c
	}

	var base float64
	switch op.Kind {
	case Expire:
		if why != nil {
			tellRule(why, RuleTTL, 0, "table", 0, "TTL deletes consume no write capacity, on the table or its indexes")
		}
		return c
	case ConditionCheck:
		c.Txn = true
		c.Table.Write = 2 * WriteUnits(bs)
		if why != nil {
			tellRule(why, RuleConditionCheck, bs, "table", c.Table.Write, "condition check on %s %s: 2 x %s = %s WRU; no index charge",
				label, sizeNote(bs, WriteUnitBytes), units(WriteUnits(bs)), units(c.Table.Write))
		}
		return c
	case Delete:
		base = WriteUnits(bs)
		if why != nil {
			if before == nil {
				tellRule(why, RuleWriteSize, 0, "table", base, "delete of a missing %s: 1 WRU", label)
			} else {
				tellRule(why, RuleWriteSize, bs, "table", base, "delete %s %s: %s WRU", label, sizeNote(bs, WriteUnitBytes), units(base))
			}
		}
	default:
		size := as
		if before != nil && bs > as {
			size = bs
		}
		base = WriteUnits(size)
		if why != nil {
			switch {
			case before == nil:
				tellRule(why, RuleWriteSize, as, "table", base, "%s new %s %s: %s WRU", op.Kind, label, sizeNote(as, WriteUnitBytes), units(base))
			default:
				tellRule(why, RuleWriteSize, size, "table", base, "%s %s, larger of before %s B and after %s B: %s: %s WRU",
					op.Kind, label, group(bs), group(as), sizeNote(size, WriteUnitBytes), units(base))
			}
		}
	}
	if op.Txn {
		base *= 2
		if why != nil {
			tellRule(why, RuleTransaction, 0, "table", base, "in a transaction: x2 (prepare + commit) = %s WRU", units(base))
		}
	}
	c.Table.Write = base
	for i := range t.GSIs {
		r.indexWrite(t, &t.GSIs[i], false, before, after, op.Txn, &c, why)
	}
	for i := range t.LSIs {
		r.indexWrite(t, &t.LSIs[i], true, before, after, op.Txn, &c, why)
	}
	return c
}

// failedUnits applies r.FailedWrite (capacity-rules.md 3.5).
func (r Rules) failedUnits(k WriteKind, before, after attr.Item, bs, as int) float64 {
	switch r.FailedWrite {
	case FailedNewItem:
		switch {
		case before == nil:
			return 1
		case after == nil:
			return WriteUnits(bs)
		}
		return WriteUnits(as)
	case FailedExisting:
		switch {
		case before != nil:
			return WriteUnits(bs)
		case k == Put:
			return WriteUnits(as)
		}
		return 1
	}
	if before == nil {
		return 1
	}
	return max(WriteUnits(bs), WriteUnits(as))
}

func (r Rules) failedNote(before, after attr.Item, bs, as int) string {
	switch {
	case before == nil:
		return "no existing item"
	case after == nil:
		return "existing " + group(bs) + " B"
	}
	return "existing " + group(bs) + " B, new " + group(as) + " B"
}

// indexWrite charges one secondary index for a write whose item goes from
// before to after (the table of capacity-rules.md section 5).
func (r Rules) indexWrite(t *Table, ix *Index, local bool, before, after attr.Item, txn bool, c *Consumed, why *[]Reason) {
	os, oin := r.EntrySize(t, ix, before)
	ns, nin := r.EntrySize(t, ix, after)
	var u float64
	switch {
	case !oin && !nin:
		return // not in the index before or after: omitted
	case !oin:
		u = WriteUnits(ns)
		if why != nil {
			tellRule(why, RuleIndexPut, ns, ix.Name, u, "entry enters the index, put %s: %s WRU", sizeNote(ns, WriteUnitBytes), units(u))
		}
	case !nin:
		u = WriteUnits(os)
		if why != nil {
			tellRule(why, RuleIndexDelete, os, ix.Name, u, "entry leaves the index, delete %s: %s WRU", sizeNote(os, WriteUnitBytes), units(u))
		}
	case !sameKeys(ix, before, after):
		u = WriteUnits(os) + WriteUnits(ns)
		if why != nil {
			tellRule(why, RuleIndexKeyChange, max(os, ns), ix.Name, u, "key changes: delete %s B (%s) + put %s B (%s) = %s WRU",
				group(os), units(WriteUnits(os)), group(ns), units(WriteUnits(ns)), units(u))
		}
	case sameEntry(t, ix, before, after):
		if why != nil {
			tellRule(why, RuleIndexUnchanged, max(os, ns), ix.Name, 0, "no projected attribute changes: no charge, absent from the response")
		}
		return
	default:
		u = max(WriteUnits(os), WriteUnits(ns))
		if why != nil {
			tellRule(why, RuleIndexRewrite, max(os, ns), ix.Name, u, "projected attributes change, entry %s B -> %s B: one write of the larger, %s WRU",
				group(os), group(ns), units(u))
		}
	}
	switch {
	case txn && r.DoubleIndexInTxn:
		u *= 2
		if why != nil {
			tellRule(why, RuleIndexTransaction, 0, ix.Name, u, "in a transaction, doubled by option: %s WRU", units(u))
		}
	case txn && why != nil:
		(*why)[len(*why)-1].Text += "; index charges are not doubled in a transaction"
	}
	c.charge(ix, local, Capacity{Write: u})
}

// sameKeys reports whether both images hold equal index key values.
func sameKeys(ix *Index, a, b attr.Item) bool {
	for _, names := range [2][]string{ix.PK, ix.SK} {
		for _, n := range names {
			x, _ := a.Get(n)
			y, _ := b.Get(n)
			if !attr.Equal(x, y) {
				return false
			}
		}
	}
	return true
}

// sameEntry reports whether the index entries of a and b hold the same
// attributes with equal values (sets compared without order). Items are
// sorted by name, so one merge pass compares them.
func sameEntry(t *Table, ix *Index, a, b attr.Item) bool {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Name < b[j].Name:
			if ix.projects(t, a[i].Name) {
				return false
			}
			i++
		case i == len(a) || b[j].Name < a[i].Name:
			if ix.projects(t, b[j].Name) {
				return false
			}
			j++
		default:
			if ix.projects(t, a[i].Name) && !attr.Equal(a[i].Value, b[j].Value) {
				return false
			}
			i++
			j++
		}
	}
	return true
}

// Replay returns what replaying a TransactWriteItems action with the same
// ClientRequestToken (within 10 minutes) consumes: read units, 2 x
// ceil(max(old, new) / 4 KB) per action (capacity-rules.md 3.7).
func (r Rules) Replay(t *Table, op WriteOp) Consumed {
	size := max(r.ItemSize(op.Before), r.ItemSize(op.After))
	return Consumed{TableName: t.Name, Txn: true, Table: Capacity{Read: 2 * float64(blocks(size, ReadUnitBytes))}}
}
