package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cardapio/cardapio/attr"
)

func TestCanonicalAgreesWithAttr(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "100", "1.5", "1.50", "0.5", "-0.5", "00", "01", "1.", ".5", "1e2", "-0.0", "12345678901234567890", "0.000001", "3.14159", "+1", "1E-5"} {
		c, err := attr.CanonicalNumber(s)
		if err != nil {
			continue
		}
		assert.Equal(t, c == s, canonical(s), s)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	it := attr.Item{
		{Name: "b", Value: attr.Bin([]byte{0, 1, 2})},
		{Name: "bs", Value: attr.BinSet("x", "y")},
		{Name: "f", Value: attr.Bool(false)},
		{Name: "l", Value: attr.ListOf(attr.Null(), attr.Num("-1.5"), attr.MapOf(attr.Item{{Name: "k", Value: attr.Str("v")}}))},
		{Name: "ns", Value: attr.NumSet("1", "2")},
		{Name: "s", Value: attr.Str("héllo")},
		{Name: "ss", Value: attr.StrSet("a")},
		{Name: "t", Value: attr.Bool(true)},
	}
	b := appendItem(nil, it)
	assert.Len(t, b, encodedSize(it))
	got, err := decodeItem(b)
	assert.NoError(t, err)
	assert.True(t, attr.EqualItems(it, got))
	v, ok := lookup(b, "ns")
	assert.True(t, ok)
	assert.Equal(t, []string{"1", "2"}, v.Set)
	_, ok = lookup(b, "nope")
	assert.False(t, ok)
	for i := range b {
		_, _ = decodeItem(b[:i]) // truncated input fails, never panics
	}
}

// TestStoredJSONAgreesWithAttr: the JSON written from an item's stored
// form is the JSON of the decoded item, byte for byte, for every type,
// escapes and nesting included, and with a projection of its fields.
func TestStoredJSONAgreesWithAttr(t *testing.T) {
	items := []attr.Item{
		{},
		{
			{Name: "a\"q", Value: attr.Str("tab\there \"quoted\" \\ \x01 é \xff")},
			{Name: "b", Value: attr.Bin([]byte{0, 1, 2, 255})},
			{Name: "bs", Value: attr.BinSet("x", "y")},
			{Name: "f", Value: attr.Bool(false)},
			{Name: "l", Value: attr.ListOf(attr.Null(), attr.Num("-1.5"), attr.MapOf(attr.Item{{Name: "k", Value: attr.Str("v")}, {Name: "z", Value: attr.ListOf()}}))},
			{Name: "m", Value: attr.MapOf(attr.Item{})},
			{Name: "n", Value: attr.Num("12345678901234567890")},
			{Name: "ns", Value: attr.NumSet("1", "2")},
			{Name: "s", Value: attr.Str("")},
			{Name: "ss", Value: attr.StrSet("a", "b<>&")},
			{Name: "t", Value: attr.Bool(true)},
			{Name: "ñ", Value: attr.Str("日本")},
		},
	}
	for _, it := range items {
		b := appendItem(nil, it)
		got, ok := appendStoredJSON([]byte("x"), b, nil)
		assert.True(t, ok)
		assert.Equal(t, "x"+string(attr.AppendItemJSON(nil, it)), string(got))
		keep := func(n string) bool { return n == "b" || n == "l" || n == "t" }
		got, ok = appendStoredJSON(nil, b, keep)
		assert.True(t, ok)
		var kept attr.Item
		for _, f := range it {
			if keep(f.Name) {
				kept = append(kept, f)
			}
		}
		assert.Equal(t, string(attr.AppendItemJSON(nil, kept)), string(got))
	}
	// A map out of name order is left to the decoder, which sorts it.
	unsorted := attr.Item{{Name: "m", Value: attr.MapOf(attr.Item{{Name: "z", Value: attr.Num("1")}, {Name: "a", Value: attr.Num("2")}})}}
	_, ok := appendStoredJSON(nil, appendItem(nil, unsorted), nil)
	assert.False(t, ok)
}

// FuzzStoredJSON: arbitrary bytes never make the stored-form encoder
// panic, and whenever it succeeds it writes what the decoder's item
// encodes to.
func FuzzStoredJSON(f *testing.F) {
	f.Add(appendItem(nil, attr.Item{{Name: "a", Value: attr.Str("x")}, {Name: "l", Value: attr.ListOf(attr.Num("1"), attr.StrSet("p"))}}))
	f.Add([]byte{1, 1, 'a', byte(attr.M), 2, 1, 'z', byte(attr.NULL), 1, 'b', byte(attr.BOOL), 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := appendStoredJSON(nil, b, nil)
		it, err := decodeItem(b)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("encoded %q from bytes the decoder refuses: %v", got, err)
		}
		if want := attr.AppendItemJSON(nil, it); string(want) != string(got) {
			t.Fatalf("stored form wrote %s, decoded item %s", got, want)
		}
	})
}
