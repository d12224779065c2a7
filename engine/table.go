package engine

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/throughput"
)

// rec is one stored item, the place it keeps in the table's tree and in
// its index entries across writes. Its content is a version (see
// version): a write of the item builds a new version and publishes it in
// the rec, atomically, and never changes a version once published. A
// reader holding a rec, from a snapshot of a tree read without the
// table's lock, thus sees one version of the item, whole: the latest
// when it loads it, so never older than the tree it walks.
type rec struct {
	p atomic.Pointer[byte] // the first byte of the current version
}

// load is the record's current version.
func (r *rec) load() version { return versionAt(r.p.Load()) }

// key is the record's table key, the same in every version.
func (r *rec) key() []byte { return keyAt(r.p.Load()) }

// frozen is a record that keeps the current version of r: what a
// delayed index entry points at, while the live record moves on with
// later writes until they propagate.
func frozen(r *rec) *rec {
	f := &rec{}
	f.p.Store(r.p.Load())
	return f
}

// entry is one index entry: the index key and the base item it stands for,
// with the entry's size per capacity rules (what a page of the index
// counts), or -1 where it is the item's own size (an index projecting
// everything), so that an update keeping the entry's key and size
// changes nothing in the index. A page is thus cut without decoding its
// items.
//
// An entry leaves the index (or is replaced) when a write changes the
// item's key in the index or the entry's size; the entry is then sealed
// with the version it stood for before the write publishes the new one,
// so that a snapshot of the index, which still holds the entry, shows
// that version under its key and never the item under a key it no
// longer has.
type entry struct {
	key    []byte
	r      *rec
	size   int32
	sealed atomic.Pointer[byte] // the version the entry stands for, once it left the index
}

// load is the version a read of the entry shows: the record's current
// one, unless the entry was sealed. The record is loaded first: a
// reader that sees a version published after the seal sees the seal.
func (e *entry) load() version {
	p := e.r.p.Load()
	if s := e.sealed.Load(); s != nil {
		p = s
	}
	return versionAt(p)
}

// billed is the size a read of the entry's version v counts.
func (e *entry) billed(v version) int32 {
	if e.size < 0 {
		return v.size
	}
	return e.size
}

// newEntry builds the entry of key for r, whose item's entry size is n.
func (ix *index) newEntry(key []byte, r *rec, n int) *entry {
	if ix.projection.ProjectionType == "ALL" {
		return &entry{key: key, r: r, size: -1}
	}
	return &entry{key: key, r: r, size: int32(n)}
}

// keyAttr is one key attribute with its declared type.
type keyAttr struct {
	name string
	typ  attr.Type
}

// index is a GSI or LSI with its entries.
type index struct {
	name       string
	local      bool
	hash, rng  []keyAttr
	projection Projection
	cap        *capacity.Index // the billing description of this index
	tree       *tree[*entry]
	size       int64 // sum of entry sizes
	created    time.Time
	throughput ProvisionedThroughputDescription
	onDemand   *OnDemandThroughput
	warm       *WarmThroughput // as requested; nil: the default
	arn        string
}

// table is one table: its definition, its items and its indexes, all
// guarded by mu.
type table struct {
	mu sync.RWMutex

	name    string
	arn     string
	id      string
	created time.Time
	deleted bool

	attrs      []AttributeDefinition
	keySchema  []KeySchemaElement
	hash       keyAttr
	rng        *keyAttr
	billing    string
	throughput ProvisionedThroughputDescription
	onDemand   *OnDemandThroughput
	warm       *WarmThroughput // as requested; nil: the default
	defWarm    [2]int64        // the default warm read and write throughput
	tableClass string
	protect    bool
	tags       []Tag

	gsis []*index
	lsis []*index
	desc capacity.Table // the billing description, rebuilt when indexes change

	items *tree[*rec]
	size  int64 // sum of item sizes
	names names // the items' attribute names (see record.go)

	ttlAttr    string
	ttlEnabled bool

	// stream is the enabled stream (nil: none) and latest the most
	// recent one, enabled or not (DescribeTable's LatestStreamArn).
	stream, latest *stream

	// no numbers the table in the data log; data is the log (nil in
	// memory) and group, while a transaction commits, collects its
	// changes so that the log records them as one.
	no    uint32
	data  *store
	group *logGroup

	// collections sizes each item collection (a partition's items and
	// their LSI entries) of a table with LSIs, which may not outgrow
	// collectionLimit (10 GB).
	collections     map[string]int64
	collectionLimit int64

	// pending holds the table keys of items that a transaction has
	// prepared and not yet committed: other writes to them conflict.
	pending map[string]struct{}

	// lag, when the engine delays index propagation, holds the changes
	// to global secondary indexes not yet visible; they are applied in
	// order, under mu, once due.
	lag *throughput.Lag[indexOp]

	rules *capacity.Rules
}

// indexOp is a delayed change to a global secondary index: the removal of
// the entry keyed del, or the placement of put (replacing any entry with
// its key).
type indexOp struct {
	ix  *index
	del []byte
	put *entry
}

// applyIndexOp applies a delayed index change; the caller holds t.mu for
// writing.
func applyIndexOp(op indexOp) {
	if op.put != nil {
		op.ix.tree.put(op.put)
		return
	}
	op.ix.tree.del(op.del)
}

// indexes returns all secondary indexes, GSIs first. The slice is not to
// be modified: with one kind of index it is the table's own.
func (t *table) indexes() []*index {
	if len(t.lsis) == 0 {
		return t.gsis[:len(t.gsis):len(t.gsis)]
	}
	if len(t.gsis) == 0 {
		return t.lsis[:len(t.lsis):len(t.lsis)]
	}
	out := make([]*index, 0, len(t.gsis)+len(t.lsis))
	out = append(out, t.gsis...)
	return append(out, t.lsis...)
}

func (t *table) findIndex(name string) *index {
	for _, ix := range t.gsis {
		if ix.name == name {
			return ix
		}
	}
	for _, ix := range t.lsis {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// rebuildDesc refreshes the capacity description after index changes and
// points each index at its entry in it.
func (t *table) rebuildDesc() {
	d := capacity.Table{Name: t.name, PK: t.hash.name}
	if t.rng != nil {
		d.SK = t.rng.name
	}
	for _, list := range [2][]*index{t.gsis, t.lsis} {
		for _, ix := range list {
			ci := capacity.Index{Name: ix.name, Projection: capProjection(ix.projection.ProjectionType), Include: ix.projection.NonKeyAttributes}
			for _, k := range ix.hash {
				ci.PK = append(ci.PK, k.name)
			}
			for _, k := range ix.rng {
				ci.SK = append(ci.SK, k.name)
			}
			if ix.local {
				d.LSIs = append(d.LSIs, ci)
			} else {
				d.GSIs = append(d.GSIs, ci)
			}
		}
	}
	t.desc = d
	for i, ix := range t.gsis {
		ix.cap = &t.desc.GSIs[i]
	}
	for i, ix := range t.lsis {
		ix.cap = &t.desc.LSIs[i]
	}
}

func capProjection(p string) capacity.Projection {
	switch p {
	case "KEYS_ONLY":
		return capacity.ProjectKeysOnly
	case "INCLUDE":
		return capacity.ProjectInclude
	}
	return capacity.ProjectAll
}

// tableKey builds the table key of an item or key; ok is false when a key
// attribute is missing or not of its declared type.
func (t *table) tableKey(dst []byte, it attr.Item) ([]byte, bool) {
	pk, ok := it.Get(t.hash.name)
	if !ok || pk.Type != t.hash.typ {
		return nil, false
	}
	start := len(dst)
	if dst == nil {
		n := 8 + len(pk.Str) + 2 + 24
		if t.rng != nil {
			sk, _ := it.Get(t.rng.name)
			n += len(sk.Str) + 2
		}
		dst = make([]byte, 0, n)
	}
	dst = append(dst, make([]byte, 8)...)
	dst = appendPart(dst, pk)
	h := hashParts(dst[start+8:])
	putBE64(dst[start:], h)
	if t.rng != nil {
		sk, ok := it.Get(t.rng.name)
		if !ok || sk.Type != t.rng.typ {
			return nil, false
		}
		dst = appendPart(dst, sk)
	}
	return dst, true
}

func putBE64(b []byte, v uint64) {
	_ = b[7]
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

func be64(b []byte) uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// partitionPrefix is the key prefix shared by every item of a partition.
func partitionPrefix(parts ...attr.Value) []byte {
	var p []byte
	for _, v := range parts {
		p = appendPart(p, v)
	}
	out := make([]byte, 8, 8+len(p))
	putBE64(out, hashParts(p))
	return append(out, p...)
}

// entryKey builds the index key of an item, or nil when the item is not in
// the index (a key attribute is missing or not scalar: a sparse index).
func (ix *index) entryKey(it attr.Item, tkey []byte) []byte {
	var parts []byte
	for _, k := range ix.hash {
		v, ok := it.Get(k.name)
		if !ok || v.Type != k.typ {
			return nil
		}
		parts = appendPart(parts, v)
	}
	hashLen := len(parts)
	for _, k := range ix.rng {
		v, ok := it.Get(k.name)
		if !ok || v.Type != k.typ {
			return nil
		}
		parts = appendPart(parts, v)
	}
	key := make([]byte, 8, 8+len(parts)+len(tkey))
	putBE64(key, hashParts(parts[:hashLen]))
	key = append(key, parts...)
	// The table key, without its hash, makes the entry unique.
	return append(key, tkey[8:]...)
}

// get returns the record with the given table key.
func (t *table) get(key []byte) *rec {
	r, _ := t.items.get(key)
	return r
}

// apply writes newItem (or deletes, when newItem is nil) at key, whose
// current record is old (nil if none), maintaining every index. It is the
// single place where stored state changes; callers hold t.mu for writing
// and have already validated and admitted the write.
func (t *table) apply(key []byte, old *rec, oldItem, newItem attr.Item, newSize int) {
	t.applyAs(key, old, oldItem, newItem, newSize, nil)
}

// applyAs is apply for a change made by who (nil: a user; ttlIdentity:
// a TTL deletion). The change then reaches the table's stream and the
// data log, when the table has them (see observe).
func (t *table) applyAs(key []byte, old *rec, oldItem, newItem attr.Item, newSize int, who *Identity) {
	var ov *byte
	if old != nil {
		ov = old.p.Load()
	}
	r := t.store(key, old, oldItem, newItem, newSize)
	if t.stream != nil || t.data != nil {
		var nv *byte
		if r != nil {
			nv = r.p.Load()
		}
		t.observe(ov, nv, oldItem, newItem, newSize, who)
	}
}

// store changes the stored state and returns the item's record (nil
// when it is deleted or was absent).
func (t *table) store(key []byte, old *rec, oldItem, newItem attr.Item, newSize int) *rec {
	if t.lag != nil {
		// Changes whose time has come propagate before this one queues,
		// which also keeps the queue to one lag's worth of writes.
		t.lag.Drain(applyIndexOp)
	}
	if len(t.lsis) > 0 {
		if d := t.collectionDelta(oldItem, newItem, newSize); d != 0 {
			p := t.collectionOf(oldItem, newItem)
			if n := t.collections[p] + d; n > 0 {
				t.collections[p] = n
			} else {
				delete(t.collections, p)
			}
		}
	}
	if newItem == nil {
		if old == nil {
			return nil
		}
		// The record keeps its last version: a snapshot still holding
		// it (or its entries) shows the item as it was before.
		t.items.del(old.key())
		t.size -= int64(old.load().size)
		for _, ix := range t.indexes() {
			if k := ix.entryKey(oldItem, old.key()); k != nil {
				if t.lag != nil && !ix.local {
					t.lag.Push(indexOp{ix: ix, del: k})
				} else {
					ix.tree.del(k)
				}
				ix.size -= int64(t.entrySize(ix, oldItem))
			}
		}
		return nil
	}
	nv := t.newVersion(key, newItem, newSize)
	r := old
	var ov *byte // the version this write replaces
	if r == nil {
		r = &rec{}
		r.p.Store(nv)
		t.items.put(r)
	} else {
		ov = old.p.Load()
		t.size -= int64(versionAt(ov).size)
	}
	t.size += int64(newSize)
	var snap *rec // the frozen record delayed GSI entries point at
	for _, ix := range t.indexes() {
		var ok []byte
		if old != nil {
			ok = ix.entryKey(oldItem, key)
		}
		nk := ix.entryKey(newItem, key)
		lagged := t.lag != nil && !ix.local
		oldSize := 0
		if ok != nil {
			oldSize = t.entrySize(ix, oldItem)
			ix.size -= int64(oldSize)
			if nk == nil || !bytes.Equal(ok, nk) {
				if lagged {
					t.lag.Push(indexOp{ix: ix, del: ok})
				} else if en, found := ix.tree.del(ok); found {
					en.sealed.Store(ov)
				}
			}
		}
		if nk != nil {
			n := t.entrySize(ix, newItem)
			ix.size += int64(n)
			switch {
			case lagged:
				// Even when the entry's key stays, its projected
				// attributes change: the new version propagates too.
				if snap == nil {
					snap = &rec{}
					snap.p.Store(nv)
				}
				t.lag.Push(indexOp{ix: ix, put: ix.newEntry(nk, snap, n)})
			case ok == nil || !bytes.Equal(ok, nk):
				ix.tree.put(ix.newEntry(nk, r, n))
			case n != oldSize && ix.projection.ProjectionType != "ALL":
				// The key stays, the projected attributes grew or
				// shrank: a new entry with its new size takes the
				// place of the old, which is sealed.
				if en, found := ix.tree.put(ix.newEntry(nk, r, n)); found {
					en.sealed.Store(ov)
				}
			}
		}
	}
	if old != nil {
		// Published once the entries it leaves are sealed.
		r.p.Store(nv)
	}
	return r
}

// collectionOf is the collection key (partition prefix) of a write's
// item.
func (t *table) collectionOf(oldItem, newItem attr.Item) string {
	it := newItem
	if it == nil {
		it = oldItem
	}
	pk, _ := it.Get(t.hash.name)
	return string(partitionPrefix(pk))
}

// collectionDelta is how much a write grows its item collection: the item
// and its LSI entries, after minus before.
func (t *table) collectionDelta(oldItem, newItem attr.Item, newSize int) int64 {
	var d int64
	if newItem != nil {
		d += int64(newSize)
		for _, ix := range t.lsis {
			d += int64(t.entrySize(ix, newItem))
		}
	}
	if oldItem != nil {
		d -= int64(t.rules.ItemSize(oldItem))
		for _, ix := range t.lsis {
			d -= int64(t.entrySize(ix, oldItem))
		}
	}
	return d
}

func (t *table) entrySize(ix *index, it attr.Item) int {
	n, _ := t.rules.EntrySize(&t.desc, ix.cap, it)
	return n
}

// backfill fills a new index from the table's items.
func (t *table) backfill(ix *index) {
	t.items.ascend(nil, nil, func(r *rec) bool {
		it, err := t.decode(r.load())
		if err != nil {
			return true
		}
		if k := ix.entryKey(it, r.key()); k != nil {
			if t.lag != nil {
				r = frozen(r) // later versions reach the index with the lag
			}
			n := t.entrySize(ix, it)
			ix.tree.put(ix.newEntry(k, r, n))
			ix.size += int64(n)
		}
		return true
	})
}
