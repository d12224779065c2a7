package engine

import (
	"bytes"

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
type tree[T keyed] struct {
	bt    *btree.BTreeG[slot[T]]
	probe func(key []byte) T
}

func newTree[T keyed](probe func([]byte) T) *tree[T] {
	return &tree[T]{bt: btree.NewG(32, slotLess[T]), probe: probe}
}

func newRecTree() *tree[*rec] {
	return newTree(func(k []byte) *rec { return &rec{b: k, klen: uint32(len(k))} })
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

func (t *tree[T]) put(v T) { t.bt.ReplaceOrInsert(slot[T]{h: be64(v.key8()), v: v}) }

func (t *tree[T]) del(key []byte) { t.bt.Delete(t.at(key)) }

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
