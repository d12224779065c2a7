package attr

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b Value
		want int
		ok   bool
	}{
		{Str("a"), Str("b"), -1, true},
		{Str("b"), Str("a"), 1, true},
		{Str("a"), Str("a"), 0, true},
		{Str("a"), Str("ab"), -1, true},
		{Str("Z"), Str("a"), -1, true},      // byte order, not case-folded
		{Str("é"), Str("z"), 1, true},       // UTF-8 bytes: 0xC3 > 'z'
		{Str("\uFFFF"), Str("😀"), -1, true}, // 0xEF < 0xF0 (UTF-16 order would differ)
		{Num("10"), Num("9"), 1, true},      // numeric, not textual
		{Num("-10"), Num("-9"), -1, true},
		{Num("1.0"), Num("1"), 0, true},
		{Num("1E2"), Num("99.9"), 1, true},
		{Bin([]byte{0x80}), Bin([]byte{0x7f}), 1, true}, // unsigned bytes
		{Bin([]byte{0x00}), Bin([]byte{0x00, 0x00}), -1, true},
		{Bin(nil), Bin([]byte{0}), -1, true},
		{Str("1"), Num("1"), 0, false},
		{Bool(true), Bool(true), 0, false},
		{Null(), Null(), 0, false},
		{StrSet("a"), StrSet("a"), 0, false},
		{ListOf(), ListOf(), 0, false},
		{Value{}, Value{}, 0, false},
	}
	for _, c := range cases {
		got, ok := Compare(c.a, c.b)
		assert.Equal(t, c.ok, ok, "%v %v", c.a, c.b)
		assert.Equal(t, c.want, got, "%v %v", c.a, c.b)
	}
}

func TestEqual(t *testing.T) {
	bigSet := func(off int, asNum bool) Value {
		ms := make([]string, 40)
		for i := range ms {
			ms[i] = strconv.Itoa((i + off) % 40)
			if asNum && i%2 == 0 {
				ms[i] += ".0"
			}
		}
		if asNum {
			return NumSet(ms...)
		}
		return StrSet(ms...)
	}
	equal := [][2]Value{
		{Str("x"), Str("x")},
		{Num("1.50"), Num("1.5")},
		{Num("-0"), Num("0")},
		{Num("1E2"), Num("100")},
		{Bin([]byte("ab")), Bin([]byte("ab"))},
		{Bool(false), Bool(false)},
		{Null(), Null()},
		{Value{}, Value{}},
		{StrSet("a", "b", "c"), StrSet("c", "a", "b")},
		{NumSet("1", "2.0"), NumSet("2", "1.00")},
		{BinSet("\x00", "\x01"), BinSet("\x01", "\x00")},
		{bigSet(0, false), bigSet(7, false)},
		{bigSet(0, true), bigSet(13, false).withType(NS)},
		{ListOf(Num("1"), Str("a")), ListOf(Num("1.0"), Str("a"))},
		{ListOf(), ListOf()},
		{ListOf(), Value{Type: L, List: []Value{}}},
		{MapOf(Item{{"a", Num("1")}, {"b", ListOf(Null())}}), MapOf(Item{{"a", Num("1.0")}, {"b", ListOf(Null())}})},
		{MapOf(nil), MapOf(Item{})},
		// Hand-built maps out of name order still compare by name.
		{MapOf(Item{{"b", Str("2")}, {"a", Str("1")}}), MapOf(Item{{"a", Str("1")}, {"b", Str("2")}})},
	}
	for _, c := range equal {
		assert.True(t, Equal(c[0], c[1]), "%v = %v", c[0], c[1])
		assert.True(t, Equal(c[1], c[0]), "%v = %v", c[1], c[0])
	}
	different := [][2]Value{
		{Str("x"), Str("y")},
		{Str("1"), Num("1")},
		{Num("1"), Num("1.000000001")},
		{Bin([]byte("a")), Str("a")},
		{Bool(true), Bool(false)},
		{Null(), Bool(true)},
		{StrSet("a", "b"), StrSet("a", "c")},
		{StrSet("a", "b"), StrSet("a")},
		{StrSet("1"), NumSet("1")},
		{NumSet("1", "2"), NumSet("1", "3")},
		{bigSet(0, false), bigSet(0, false).withMember(0, "x")},
		{bigSet(0, true), bigSet(0, true).withMember(3, "41")},
		{ListOf(Str("a"), Str("b")), ListOf(Str("b"), Str("a"))},
		{ListOf(Str("a")), ListOf(Str("a"), Str("a"))},
		{MapOf(Item{{"a", Num("1")}}), MapOf(Item{{"a", Num("2")}})},
		{MapOf(Item{{"a", Num("1")}}), MapOf(Item{{"b", Num("1")}})},
		{MapOf(Item{{"a", Num("1")}}), MapOf(Item{{"a", Num("1")}, {"b", Num("1")}})},
		{MapOf(Item{{"b", Str("2")}, {"a", Str("1")}}), MapOf(Item{{"a", Str("1")}, {"c", Str("2")}})},
		{MapOf(nil), ListOf()},
	}
	for _, c := range different {
		assert.False(t, Equal(c[0], c[1]), "%v != %v", c[0], c[1])
		assert.False(t, Equal(c[1], c[0]), "%v != %v", c[1], c[0])
	}
}

func (v Value) withType(t Type) Value { v.Type = t; return v }

func (v Value) withMember(i int, m string) Value {
	v.Set = append([]string(nil), v.Set...)
	v.Set[i] = m
	return v
}
