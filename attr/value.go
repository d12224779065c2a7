package attr

import "sort"

// Type is the type tag of an attribute value, as on the wire.
type Type uint8

// The attribute types of DynamoDB. Invalid is the zero value, so that a
// Value that was never set is recognisable.
const (
	Invalid Type = iota
	S
	N
	B
	BOOL
	NULL
	M
	L
	SS
	NS
	BS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the wire tag ("S", "NS", ...), or "" for Invalid.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// ParseType maps a wire tag to its Type; ok is false for an unknown tag.
func ParseType(tag string) (t Type, ok bool) {
	for i, n := range typeNames {
		if i > 0 && n == tag {
			return Type(i), true
		}
	}
	return Invalid, false
}

// IsScalar reports whether t may be a key attribute type (S, N or B).
func (t Type) IsScalar() bool { return t == S || t == N || t == B }

// IsSet reports whether t is one of the set types.
func (t Type) IsSet() bool { return t == SS || t == NS || t == BS }

// Value is one attribute value. Only the fields of its Type are meaningful:
//
//	S     Str holds the string
//	N     Str holds the number's text (as sent; see the number helpers)
//	B     Str holds the raw bytes (not base64)
//	BOOL  Bool
//	NULL  nothing (always null)
//	M     Map
//	L     List
//	SS/NS/BS  Set holds the members (strings, number texts, raw bytes)
//
// Binary data lives in a string so that values are immutable and cheap to
// copy and compare.
type Value struct {
	Type Type
	Bool bool
	Str  string
	List []Value
	Map  Item
	Set  []string
}

// Constructors, named after the wire tags.

// Str returns an S value.
func Str(s string) Value { return Value{Type: S, Str: s} }

// Num returns an N value from its decimal text.
func Num(text string) Value { return Value{Type: N, Str: text} }

// Bin returns a B value holding the raw bytes b.
func Bin(b []byte) Value { return Value{Type: B, Str: string(b)} }

// Bool returns a BOOL value.
func Bool(b bool) Value { return Value{Type: BOOL, Bool: b} }

// Null returns the NULL value.
func Null() Value { return Value{Type: NULL, Bool: true} }

// ListOf returns an L value.
func ListOf(vs ...Value) Value { return Value{Type: L, List: vs} }

// MapOf returns an M value.
func MapOf(it Item) Value { return Value{Type: M, Map: it} }

// StrSet, NumSet and BinSet return set values.
func StrSet(ms ...string) Value { return Value{Type: SS, Set: ms} }

// NumSet returns an NS value.
func NumSet(ms ...string) Value { return Value{Type: NS, Set: ms} }

// BinSet returns a BS value from raw byte strings.
func BinSet(ms ...string) Value { return Value{Type: BS, Set: ms} }

// Field is one named attribute of an item or map.
type Field struct {
	Name  string
	Value Value
}

// Item is an item or a map value: fields sorted by Name, names unique.
// A slice rather than a Go map: items are small, iteration dominates
// (sizing, encoding), and a sorted slice gives a deterministic order.
// Build one with Sorted or Set, which keep the invariant.
type Item []Field

// Sorted sorts fields by name and keeps the last of duplicate names,
// returning the resulting Item.
func Sorted(fields []Field) Item {
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	out := fields[:0]
	for i, f := range fields {
		if i+1 < len(fields) && fields[i+1].Name == f.Name {
			continue
		}
		out = append(out, f)
	}
	return Item(out)
}

func (it Item) search(name string) int {
	if len(it) <= 8 {
		for i := range it {
			if it[i].Name >= name {
				return i
			}
		}
		return len(it)
	}
	lo, hi := 0, len(it)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if it[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Get returns the named attribute.
func (it Item) Get(name string) (Value, bool) {
	i := it.search(name)
	if i < len(it) && it[i].Name == name {
		return it[i].Value, true
	}
	return Value{}, false
}

// With returns a copy of it with name set to v; it itself is not changed.
func (it Item) With(name string, v Value) Item {
	i := it.search(name)
	if i < len(it) && it[i].Name == name {
		out := make(Item, len(it))
		copy(out, it)
		out[i].Value = v
		return out
	}
	out := make(Item, 0, len(it)+1)
	out = append(out, it[:i]...)
	out = append(out, Field{name, v})
	return append(out, it[i:]...)
}

// Without returns a copy of it without name; it itself is not changed.
func (it Item) Without(name string) Item {
	i := it.search(name)
	if i >= len(it) || it[i].Name != name {
		return it
	}
	out := make(Item, 0, len(it)-1)
	out = append(out, it[:i]...)
	return append(out, it[i+1:]...)
}
