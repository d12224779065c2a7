package engine

import (
	"bytes"
	"sync"

	"github.com/google/btree"
)

// keyed is what the trees hold: records (table) and entries (indexes),
// each knowing its key.
type keyed interface {
	*rec | *entry
	key8() []byte
}

func (r *rec) key8() []byte   { return r.key() }
func (e *entry) key8() []byte { return e.key }

// slot is one element of a tree: the key's leading 8 bytes (the partition
// hash) copied beside the pointer, so that most comparisons of a B-tree
// search are settled without following the pointer to the key bytes.
type slot[T keyed] struct {
	h uint64
	v T
}

func slotLess[T keyed](a, b slot[T]) bool {
	if a.h != b.h {
		return a.h < b.h
	}
	return bytes.Compare(a.v.key8()[8:], b.v.key8()[8:]) < 0
}

// tree is an ordered set of records or entries by key. Keys are at least
// 8 bytes (they start with the partition hash).
//
// A tree can hand out snapshots: read-only trees frozen at the moment they
// were taken, which a reader walks without the table's lock while writers
// go on. The B-tree is copy on write (btree's Clone): taking a snapshot
// is O(1), and a write after it copies the nodes on its path the first
// time it touches them, so the snapshot's nodes never change. What the
// nodes point at (records, entries) is never modified once stored
// either, which makes a snapshot a consistent picture of the tree.
type tree[T keyed] struct {
	bt    *btree.BTreeG[slot[T]]
	probe func(key []byte) T

	// snap is the latest snapshot, handed to every reader until the
	// tree changes (a write drops it), so that pages read while nothing
	// is written share one clone and cost writers no copies. smu
	// serialises the readers that take it; writers, holding the table's
	// write lock, exclude them all.
	smu  sync.Mutex
	snap *btree.BTreeG[slot[T]]
}

func newTree[T keyed](probe func([]byte) T) *tree[T] {
	return &tree[T]{bt: btree.NewG(32, slotLess[T]), probe: probe}
}

func newRecTree() *tree[*rec] { return newTree(probeRec) }

// probeRec is a record standing for key in a search: a version of the
// key alone, in one allocation with the record when the key is short. A
// key longer than any stored one (a read refused later for its size) is
// cut to maxKey bytes, which orders it against every stored key as the
// whole key would.
func probeRec(key []byte) *rec {
	key = key[:min(len(key), maxKey)]
	if len(key) > len(probe{}.b)-versionHeader {
		r := &rec{}
		r.p.Store(keyVersion(key))
		return r
	}
	p := &probe{}
	putHeader(p.b[:], len(key), len(key), 0)
	copy(p.b[versionHeader:], key)
	p.r.p.Store(&p.b[0])
	return &p.r
}

// probe holds a search's record and its version together.
type probe struct {
	r rec
	b [86]byte
}

func newEntryTree() *tree[*entry] {
	return newTree(func(k []byte) *entry { return &entry{key: k} })
}

// at builds the slot standing for key; short keys (range bounds) are
// padded so that they compare as the smallest key with that prefix.
func (t *tree[T]) at(key []byte) slot[T] {
	if len(key) < 8 {
		pad := make([]byte, 8)
		copy(pad, key)
		key = pad
	}
	return slot[T]{h: be64(key), v: t.probe(key)}
}

func (t *tree[T]) get(key []byte) (T, bool) {
	s, ok := t.bt.Get(t.at(key))
	return s.v, ok
}

// put stores v, replacing (and returning) the element with its key; the
// caller holds the table's write lock.
func (t *tree[T]) put(v T) (old T, replaced bool) {
	t.drop()
	s, replaced := t.bt.ReplaceOrInsert(slot[T]{h: be64(v.key8()), v: v})
	return s.v, replaced
}

// del removes (and returns) the element with key; the caller holds the
// table's write lock.
func (t *tree[T]) del(key []byte) (old T, found bool) {
	t.drop()
	s, found := t.bt.Delete(t.at(key))
	return s.v, found
}

// drop forgets the latest snapshot, which a write makes stale; the tree
// is written only when there is one, so that readers on other
// processors keep its cache line.
func (t *tree[T]) drop() {
	if t.snap != nil {
		t.snap = nil
	}
}

// snapshot returns a read-only copy of the tree as it is now, to be read
// without the table's lock. The caller holds the table's read lock (no
// write is under way), which a reader takes only for this O(1) step.
func (t *tree[T]) snapshot() *tree[T] {
	t.smu.Lock()
	if t.snap == nil {
		t.snap = t.bt.Clone()
	}
	s := &tree[T]{bt: t.snap, probe: t.probe}
	t.smu.Unlock()
	return s
}

func (t *tree[T]) len() int { return t.bt.Len() }

// ascend visits [lo, hi) in order (hi nil: to the end).
func (t *tree[T]) ascend(lo, hi []byte, fn func(T) bool) {
	f := func(s slot[T]) bool { return fn(s.v) }
	if hi == nil {
		t.bt.AscendGreaterOrEqual(t.at(lo), f)
		return
	}
	t.bt.AscendRange(t.at(lo), t.at(hi), f)
}

// descend visits [lo, hi) in reverse order (hi nil: from the end).
func (t *tree[T]) descend(lo, hi []byte, fn func(T) bool) {
	g := func(s slot[T]) bool {
		k := s.v.key8()
		if hi != nil && bytes.Compare(k, hi) >= 0 {
			return true
		}
		if bytes.Compare(k, lo) < 0 {
			return false
		}
		return fn(s.v)
	}
	if hi == nil {
		t.bt.Descend(g)
		return
	}
	t.bt.DescendLessOrEqual(t.at(hi), g)
}
