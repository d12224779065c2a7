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
