package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestParseTemplate(t *testing.T) {
	tm, err := ParseTemplate("CT#{contractId}#IN#{seq:03}")
	require.NoError(t, err)
	assert.Equal(t, []Part{{Literal: "CT#"}, {Attr: "contractId"}, {Literal: "#IN#"}, {Attr: "seq", Width: 3}}, tm.Parts)
	assert.Equal(t, []string{"contractId", "seq"}, tm.Placeholders())
	assert.Equal(t, "CT#", tm.Prefix())
	assert.False(t, tm.IsConstant())

	c, err := ParseTemplate("PROFILE")
	require.NoError(t, err)
	assert.True(t, c.IsConstant())

	for _, bad := range []string{"T#{tenantId", "T#}x", "{}", "{seq:3}", "{seq:abc}", "{1x}", "{a b}", "{seq:00}", "{seq:099}"} {
		_, err := ParseTemplate(bad)
		assert.Error(t, err, bad)
	}
}

func TestRender(t *testing.T) {
	pk := MustTemplate("T#{tenantId}#D#{debtorKey}")
	s, err := pk.Render(map[string]attr.Value{"tenantId": attr.Str("t042"), "debtorKey": attr.Str("9f2c1a7e4b0d3e61")})
	require.NoError(t, err)
	assert.Equal(t, "T#t042#D#9f2c1a7e4b0d3e61", s)

	sk := MustTemplate("CT#{contractId}#IN#{seq:03}")
	s, err = sk.Render(map[string]attr.Value{"contractId": attr.Str("C-2026-004512"), "seq": attr.Num("7")})
	require.NoError(t, err)
	assert.Equal(t, "CT#C-2026-004512#IN#007", s)

	_, err = sk.Render(map[string]attr.Value{"contractId": attr.Str("C"), "seq": attr.Num("1000")})
	assert.ErrorContains(t, err, "does not fit in 3 digits")
	_, err = sk.Render(map[string]attr.Value{"contractId": attr.Str("C"), "seq": attr.Num("-1")})
	assert.ErrorContains(t, err, "non-negative integer")
	_, err = sk.Render(map[string]attr.Value{"contractId": attr.Str("C"), "seq": attr.Str("7")})
	assert.ErrorContains(t, err, "needs a number")
	_, err = sk.Render(map[string]attr.Value{"seq": attr.Num("7")})
	assert.ErrorContains(t, err, "no value for {contractId}")
	_, err = pk.RenderSep(map[string]attr.Value{"tenantId": attr.Str("t#1"), "debtorKey": attr.Str("x")}, "#")
	assert.ErrorContains(t, err, "contains the key separator")
	_, err = pk.Render(map[string]attr.Value{"tenantId": attr.Bool(true), "debtorKey": attr.Str("x")})
	assert.Error(t, err)

	it := attr.Item{{Name: "contractId", Value: attr.Str("C1")}, {Name: "seq", Value: attr.Num("12")}}
	s, err = sk.RenderItem(it)
	require.NoError(t, err)
	assert.Equal(t, "CT#C1#IN#012", s)
}

func TestMatch(t *testing.T) {
	sk := MustTemplate("CT#{contractId}#IN#{seq:03}")
	got, ok := sk.Match("CT#C-2026-004512#IN#007")
	require.True(t, ok)
	assert.Equal(t, map[string]string{"contractId": "C-2026-004512", "seq": "007"}, got)
	_, ok = sk.Match("CT#C-2026-004512#EV#007")
	assert.False(t, ok)
	_, ok = sk.Match("CT#C#IN#07")
	assert.False(t, ok, "width is part of the shape")
}

func TestShardHash(t *testing.T) {
	// FNV-1a 32 test vectors: the offset basis for "", and "a".
	assert.Equal(t, uint32(2166136261), FNV1a32(""))
	assert.Equal(t, uint32(0xe40c292c), FNV1a32("a"))
	assert.Equal(t, uint32(3866459722), FNV1a32("C-2026-004512"))
	assert.Equal(t, 10, HashMod("C-2026-004512", 16))
	assert.Equal(t, 0, HashMod("x", 0))
	for _, id := range []string{"C-1", "C-2", "contrato-é-utf8"} {
		n := HashMod(id, 16)
		assert.True(t, n >= 0 && n < 16)
		assert.Equal(t, n, HashMod(id, 16), "deterministic")
	}
}

func TestDebtorKey(t *testing.T) {
	// RFC 4231, test case 2: the HMAC itself.
	assert.Equal(t, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", HMACHex([]byte("Jefe"), "what do ya want for nothing?", 0))

	// The article's worked example with a documented test secret (the
	// article's own secret is unknown): CPF 123.456.789-09 of tenant t042.
	assert.Equal(t, "12345678909", NormalizeDigits("123.456.789-09"))
	secret := []byte("lastro-test-secret-t042")
	c := &Computed{Kind: KindHMAC, Algorithm: "sha256", Input: "document", Normalize: "digits", HexLength: 16}
	v, err := c.Eval(map[string]attr.Value{"document": attr.Str("123.456.789-09")}, secret)
	require.NoError(t, err)
	assert.Equal(t, attr.Str("dc8b8f7b1567886a"), v)
	// Same CPF, another tenant's secret: an unrelated key.
	v2, err := c.Eval(map[string]attr.Value{"document": attr.Str("12345678909")}, []byte("lastro-test-secret-t043"))
	require.NoError(t, err)
	assert.Equal(t, attr.Str("283281ddb3480158"), v2)

	shard := &Computed{Kind: KindHashMod, Hash: "fnv1a32", Input: "contractId", Modulo: 16}
	s, err := shard.Eval(map[string]attr.Value{"contractId": attr.Str("C-2026-004512")}, nil)
	require.NoError(t, err)
	assert.Equal(t, attr.Num("10"), s)
	_, err = shard.Eval(nil, nil)
	assert.Error(t, err)
}

func TestEditDistanceHint(t *testing.T) {
	assert.Equal(t, "shard", nearest("shrd", []string{"shard", "seq", "status"}))
	assert.Equal(t, "", nearest("completelydifferent", []string{"shard"}))
	assert.Equal(t, `did you mean "partition"?`, didYouMean("partiton", []string{"partition", "sort"}))
	// A transposition is one edit.
	assert.Equal(t, "name", nearest("nmae", []string{"name", "PK"}))
	assert.Equal(t, "tenantId", nearest("tenant", []string{"tenantId", "PK"}))
	// Nothing of a short name survives: no hint.
	assert.Equal(t, "", nearest("to", []string{"PK", "SK"}))
	assert.Equal(t, "", nearest("A", []string{"B"}))
	assert.Equal(t, "", nearest("from", []string{"PK", "SK", "type"}))
}

// FuzzParseTemplate: no template panics; a parsed template written back
// from its parts parses to the same parts, and rendering it with every
// placeholder filled gives a key that starts with its prefix.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"CT#{contractId}#IN#{seq:03}", "T#{tenantId}#D#{debtorKey}", "PROFILE", "{a}{b}", "{seq:038}", "{seq:039}", "x{", "}", "{a:}", "{:03}", "{é}", "{a:0x3}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tm, err := ParseTemplate(text)
		if err != nil {
			assert.NotEmpty(t, err.Error())
			return
		}
		var b strings.Builder
		values := map[string]attr.Value{}
		for _, p := range tm.Parts {
			switch {
			case p.Attr == "":
				b.WriteString(p.Literal)
			case p.Width > 0:
				fmt.Fprintf(&b, "{%s:0%d}", p.Attr, p.Width)
				values[p.Attr] = attr.Num("7")
			default:
				fmt.Fprintf(&b, "{%s}", p.Attr)
				values[p.Attr] = attr.Str("v")
			}
		}
		again, err := ParseTemplate(b.String())
		require.NoError(t, err, b.String())
		assert.Equal(t, tm.Parts, again.Parts)
		key, err := tm.Render(values)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(key, tm.Prefix()))
	})
}
