package attr

import (
	"slices"
	"strings"
)

// Compare orders two values of the same scalar type as DynamoDB orders
// keys: S by the bytes of their UTF-8 encoding, N numerically, B as
// unsigned bytes. ok is false when the types differ or are not scalar,
// since DynamoDB defines no order for them.
func Compare(a, b Value) (c int, ok bool) {
	if a.Type != b.Type {
		return 0, false
	}
	switch a.Type {
	case S, B:
		return strings.Compare(a.Str, b.Str), true
	case N:
		return CompareNumbers(a.Str, b.Str), true
	}
	return 0, false
}

// Equal reports whether a and b are the same DynamoDB value: numbers are
// equal by value ("1.0" = "1"), sets by membership regardless of order,
// maps by content, lists element by element.
func Equal(a, b Value) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case S, B:
		return a.Str == b.Str
	case N:
		return CompareNumbers(a.Str, b.Str) == 0
	case BOOL:
		return a.Bool == b.Bool
	case NULL, Invalid:
		return true
	case L:
		if len(a.List) != len(b.List) {
			return false
		}
		for i := range a.List {
			if !Equal(a.List[i], b.List[i]) {
				return false
			}
		}
		return true
	case M:
		return EqualItems(a.Map, b.Map)
	case SS, BS:
		return sameSet(a.Set, b.Set, strings.Compare)
	case NS:
		return sameSet(a.Set, b.Set, CompareNumbers)
	}
	return false
}

// EqualItems reports whether two items (or maps) hold the same names with
// Equal values. Items built by hand out of order are still compared by
// name.
func EqualItems(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name == b[i].Name {
			if !Equal(a[i].Value, b[i].Value) {
				return false
			}
			continue
		}
		j := slices.IndexFunc(b, func(f Field) bool { return f.Name == a[i].Name })
		if j < 0 || !Equal(a[i].Value, b[j].Value) {
			return false
		}
	}
	return true
}

// sameSet compares sets as unordered collections of distinct members.
// Small sets are compared pairwise; large ones through sorted copies.
func sameSet(a, b []string, cmp func(x, y string) int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) <= 16 {
		for _, x := range a {
			if !slices.ContainsFunc(b, func(y string) bool { return cmp(x, y) == 0 }) {
				return false
			}
		}
		return true
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.SortFunc(x, cmp)
	slices.SortFunc(y, cmp)
	for i := range x {
		if cmp(x[i], y[i]) != 0 {
			return false
		}
	}
	return true
}
