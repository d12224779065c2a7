package capacity

import (
	"fmt"
)

// ReadKind is the kind of a read request.
type ReadKind uint8

// Read kinds. BatchGetItem is a series of GetItem reads, each rounded on
// its own; TransactGetItems is the same with Transactional consistency.
// Scan is read like Query: one Page per request.
const (
	GetItem ReadKind = iota + 1
	Page             // one page of a Query or Scan
)

// ReadOp describes one read by the sizes it touches: the caller sizes the
// items (ItemSize) or index entries (EntrySize) it reads.
type ReadOp struct {
	Kind        ReadKind
	Consistency Consistency
	// Index is the secondary index a Page reads; "" for the table.
	Index string
	// Bytes is the item's size for GetItem (0 when the item is missing),
	// or for a Page the sum of the sizes of every item or index entry the
	// request read: evaluated, not returned, since filters and
	// projections do not reduce the charge.
	Bytes int
	// Count is how many items a Page read (for the explanation only).
	Count int
	// Fetched holds, for a Page of an LSI that asks for non-projected
	// attributes, the size of each base item fetched; each is rounded on
	// its own and charged to the table.
	Fetched []int
	// Label names the item in reasons; "item" when empty.
	Label string
}

// Read returns what op consumes on table t (capacity-rules.md 4). It fails
// for an unknown index, a strong or transactional read of a GSI, and a
// transactional Page.
func (r Rules) Read(t *Table, op ReadOp) (Consumed, error) { return r.read(t, op, nil) }

// ExplainRead is Read with its reasons in words.
func (r Rules) ExplainRead(t *Table, op ReadOp) (Consumed, []Reason, error) {
	var why []Reason
	c, err := r.read(t, op, &why)
	return c, why, err
}

func (r Rules) read(t *Table, op ReadOp, why *[]Reason) (Consumed, error) {
	c := Consumed{TableName: t.Name, Txn: op.Consistency == Transactional}
	label := op.Label
	if label == "" {
		label = "item"
	}
	switch op.Kind {
	case GetItem:
		u := ReadUnits(op.Bytes, op.Consistency)
		c.Table.Read = u
		if why != nil {
			if op.Bytes == 0 {
				tellRule(why, RuleReadSize, 0, "table", u, "%s get of a missing %s: %s RRU", op.Consistency, label, units(u))
			} else {
				tellRule(why, RuleReadSize, op.Bytes, "table", u, "%s get of %s %s: %s RRU", op.Consistency, label, sizeNote(op.Bytes, ReadUnitBytes), units(u))
			}
		}
		return c, nil
	case Page:
	default:
		return c, fmt.Errorf("unknown read kind %d", op.Kind)
	}
	if op.Consistency == Transactional {
		return c, fmt.Errorf("a query or scan page cannot be transactional")
	}
	var ix *Index
	local := false
	if op.Index != "" {
		var ok bool
		ix, local, ok = t.Index(op.Index)
		if !ok {
			return c, fmt.Errorf("table %s has no index %s", t.Name, op.Index)
		}
		if !local && op.Consistency != Eventual {
			return c, fmt.Errorf("index %s is global: its reads are eventually consistent only", ix.Name)
		}
	}
	if len(op.Fetched) > 0 && !local {
		return c, fmt.Errorf("only a local secondary index fetches non-projected attributes from the table")
	}
	u := ReadUnits(op.Bytes, op.Consistency)
	c.charge(ix, local, Capacity{Read: u})
	if why != nil {
		target := "table"
		if ix != nil {
			target = ix.Name
		}
		tellRule(why, RulePage, op.Bytes, target, u, "%s page of %d %ss, summed once: %s: %s RRU", op.Consistency, op.Count, label, sizeNote(op.Bytes, ReadUnitBytes), units(u))
	}
	var fetch float64
	for _, b := range op.Fetched {
		fetch += ReadUnits(b, op.Consistency)
	}
	if fetch > 0 {
		c.Table.Read += fetch
		if why != nil {
			tellRule(why, RuleFetch, 0, "table", fetch, "%d %ss fetched for non-projected attributes, each rounded to 4 KB: %s RRU", len(op.Fetched), label, units(fetch))
		}
	}
	return c, nil
}

// PageBytes is the most data one Query or Scan request reads: 1 MB.
const PageBytes = 1 << 20

// Pager finds where Query and Scan pages end as items are read. DynamoDB
// reads items until it has read 1 MB or Limit items, whichever is first:
// the item that brings the data read to 1 MB or beyond is still part of
// the page (it was read, and it is charged), and the next page starts
// after it. Sizes are of what the request reads: items for the table,
// entries for an index.
type Pager struct {
	Limit int // items per page; 0 for no limit
	n     int
	bytes int
}

// Add counts an item of the given size into the current page and reports
// whether the page is now complete; the next Add starts a new page.
func (p *Pager) Add(size int) (full bool) {
	p.n++
	p.bytes += size
	if p.bytes >= PageBytes || p.Limit > 0 && p.n >= p.Limit {
		p.n, p.bytes = 0, 0
		return true
	}
	return false
}

// PageLen returns how many of the items, in order, the first page reads.
func PageLen(sizes []int, limit int) int {
	p := Pager{Limit: limit}
	for i, s := range sizes {
		if p.Add(s) {
			return i + 1
		}
	}
	return len(sizes)
}
