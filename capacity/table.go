package capacity

import (
	"fmt"
	"slices"

	"github.com/cardapio/cardapio/attr"
)

// Projection is what a secondary index copies from the table besides keys.
type Projection uint8

// Projection types. The zero value is ALL.
const (
	ProjectAll      Projection = iota // the whole item
	ProjectKeysOnly                   // table keys and index keys only
	ProjectInclude                    // keys plus the attributes of Index.Include
)

// String returns the wire name (ALL, KEYS_ONLY, INCLUDE).
func (p Projection) String() string {
	switch p {
	case ProjectKeysOnly:
		return "KEYS_ONLY"
	case ProjectInclude:
		return "INCLUDE"
	}
	return "ALL"
}

// Table describes what the billing rules need of a table: its name, its
// key attributes and its secondary indexes.
type Table struct {
	Name   string
	PK, SK string // SK is "" for a table without a sort key
	GSIs   []Index
	LSIs   []Index // an LSI's PK is the table's and may be left empty
}

// Index is a global or local secondary index. A GSI key may have up to four
// partition and four sort attributes (multi-attribute keys); an LSI has
// one sort attribute.
type Index struct {
	Name       string
	PK, SK     []string
	Projection Projection
	Include    []string // projected non-key attributes, for ProjectInclude
}

// Index finds an index of t by name, and whether it is local.
func (t *Table) Index(name string) (ix *Index, local bool, ok bool) {
	for i := range t.GSIs {
		if t.GSIs[i].Name == name {
			return &t.GSIs[i], false, true
		}
	}
	for i := range t.LSIs {
		if t.LSIs[i].Name == name {
			return &t.LSIs[i], true, true
		}
	}
	return nil, false, false
}

// Member reports whether an item appears in the index: every index key
// attribute is present and holds a scalar (S, N or B). An item lacking
// one is not written to the index at all (a sparse index).
func (ix *Index) Member(it attr.Item) bool {
	if it == nil {
		return false
	}
	for _, names := range [2][]string{ix.PK, ix.SK} {
		for _, n := range names {
			v, ok := it.Get(n)
			if !ok || !v.Type.IsScalar() {
				return false
			}
		}
	}
	return true
}

// isKey reports whether name is an index key attribute.
func (ix *Index) isKey(name string) bool {
	return slices.Contains(ix.PK, name) || slices.Contains(ix.SK, name)
}

// projects reports whether the index entry holds the attribute name.
func (ix *Index) projects(t *Table, name string) bool {
	switch {
	case ix.Projection == ProjectAll:
		return true
	case name == t.PK || (t.SK != "" && name == t.SK) || ix.isKey(name):
		return true
	case ix.Projection == ProjectInclude:
		return slices.Contains(ix.Include, name)
	}
	return false
}

// EntrySize returns the size of the item's entry in the index: table keys,
// index key attributes (each counted once) and projected attributes, sized
// like item attributes. ok is false when the item is not in the index.
// The 100 B storage overhead of an index entry is not included: write and
// read units are computed without it (capacity-rules.md 1.8).
func (r Rules) EntrySize(t *Table, ix *Index, it attr.Item) (size int, ok bool) {
	if !ix.Member(it) {
		return 0, false
	}
	if ix.Projection == ProjectAll {
		return r.ItemSize(it), true
	}
	for i := range it {
		if ix.projects(t, it[i].Name) {
			size += len(it[i].Name) + r.ValueSize(it[i].Value)
		}
	}
	return size, true
}

// LimitError reports an item, key or index entry over one of DynamoDB's
// size limits.
type LimitError struct {
	What  string // "item", "partition key PK", "item with its LSI entries" ...
	Size  int
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is %s B, over the %s B limit", e.What, group(e.Size), group(e.Limit))
}

// CheckItem applies DynamoDB's size limits to an item of t: the item is at
// most 400 KB, a partition key value at most 2,048 B, a sort key value at
// most 1,024 B (table keys and the key attributes of every GSI), and with
// LSIs the item plus all its LSI entries at most 400 KB. Missing table keys
// are reported too. With a nil table only the item's size is checked.
func (r Rules) CheckItem(t *Table, it attr.Item) error {
	size := r.ItemSize(it)
	if size > MaxItemSize {
		return &LimitError{What: "item", Size: size, Limit: MaxItemSize}
	}
	if t == nil {
		return nil
	}
	if err := r.checkKey(it, t.PK, "partition key", MaxPartitionKeySize, true); err != nil {
		return err
	}
	if t.SK != "" {
		if err := r.checkKey(it, t.SK, "sort key", MaxSortKeySize, true); err != nil {
			return err
		}
	}
	for i := range t.GSIs {
		ix := &t.GSIs[i]
		for _, n := range ix.PK {
			if err := r.checkKey(it, n, ix.Name+" partition key", MaxPartitionKeySize, false); err != nil {
				return err
			}
		}
		for _, n := range ix.SK {
			if err := r.checkKey(it, n, ix.Name+" sort key", MaxSortKeySize, false); err != nil {
				return err
			}
		}
	}
	if len(t.LSIs) > 0 {
		total := size
		for i := range t.LSIs {
			ix := &t.LSIs[i]
			for _, n := range ix.SK {
				if err := r.checkKey(it, n, ix.Name+" sort key", MaxSortKeySize, false); err != nil {
					return err
				}
			}
			if e, ok := r.EntrySize(t, ix, it); ok {
				total += e
			}
		}
		if total > MaxItemSize {
			return &LimitError{What: "item with its LSI entries", Size: total, Limit: MaxItemSize}
		}
	}
	return nil
}

func (r Rules) checkKey(it attr.Item, name, role string, limit int, required bool) error {
	v, ok := it.Get(name)
	if !ok {
		if required {
			return fmt.Errorf("%s %s is missing", role, name)
		}
		return nil
	}
	if !v.Type.IsScalar() {
		if required {
			return fmt.Errorf("%s %s is of type %s, not S, N or B", role, name, v.Type)
		}
		return nil
	}
	if size := r.ValueSize(v); size > limit {
		return &LimitError{What: role + " " + name, Size: size, Limit: limit}
	}
	return nil
}

// Stored returns the bytes billed as storage for one item of itemBytes
// with index entries of entryBytes: each counts 100 B more, and a global
// table adds 48 B per item (capacity-rules.md 1.7, 1.8).
func Stored(itemBytes int, entryBytes []int, global bool) int {
	n := itemBytes + ItemOverhead
	if global {
		n += GlobalTableOverhead
	}
	for _, e := range entryBytes {
		n += e + ItemOverhead
	}
	return n
}

// StoredBytes returns the bytes billed as storage for it in table t: the
// item and its entry in every index it belongs to, each with its overhead.
func (r Rules) StoredBytes(t *Table, it attr.Item, global bool) int {
	n := r.ItemSize(it) + ItemOverhead
	if global {
		n += GlobalTableOverhead
	}
	for _, ixs := range [2][]Index{t.GSIs, t.LSIs} {
		for i := range ixs {
			if e, ok := r.EntrySize(t, &ixs[i], it); ok {
				n += e + ItemOverhead
			}
		}
	}
	return n
}

// GSIStoredBytes returns the part of StoredBytes that is it's entries in
// t's global secondary indexes, each with its overhead. Point-in-time
// recovery and exports to S3 are billed on the rest, the table's data and
// its local secondary indexes (AWS: "DynamoDB charges for PITR based on
// the size of each DynamoDB table, including table data and local
// secondary indexes"); an export writes the table's items, never a GSI.
func (r Rules) GSIStoredBytes(t *Table, it attr.Item) int {
	n := 0
	for i := range t.GSIs {
		if e, ok := r.EntrySize(t, &t.GSIs[i], it); ok {
			n += e + ItemOverhead
		}
	}
	return n
}

// PutFigures are what a new item weighs and costs to write: its size,
// the write units of putting it where no item was (the table's, and each
// index entry's rounded on its own), and the bytes it is billed for as
// storage. Computed in one pass over the item's attributes.
type PutFigures struct {
	Size        int
	WriteUnits  float64
	StoredBytes int
}

// Put returns the figures of a new item of t: the same as Write(t,
// WriteOp{Kind: Put, After: it}).Total().Write and StoredBytes(t, it,
// false), without sizing the item and its entries twice (a synthetic
// population sizes hundreds of millions of items).
func (r Rules) Put(t *Table, it attr.Item) PutFigures {
	size := r.ItemSize(it)
	f := PutFigures{Size: size, WriteUnits: WriteUnits(size), StoredBytes: size + ItemOverhead}
	for _, ixs := range [2][]Index{t.GSIs, t.LSIs} {
		for i := range ixs {
			if e, ok := r.EntrySize(t, &ixs[i], it); ok {
				f.WriteUnits += WriteUnits(e)
				f.StoredBytes += e + ItemOverhead
			}
		}
	}
	return f
}
