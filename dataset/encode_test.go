package dataset

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// The entity encoder writes what attr writes, for any string (escapes,
// control bytes, invalid UTF-8, every length around the 8-byte steps),
// any name, and any subset of the entity's fields.
func FuzzItemEncoder(f *testing.F) {
	for _, s := range []string{"", "a", "T#t001#D#9f2c1a7e4b0d3e61", "quote\"d", "back\\slash", "tab\there", "nul\x00", "ação", "\xff\xfe", "12345678", "1234567\"", "x\u2028y"} {
		f.Add(s, "name")
	}
	f.Fuzz(func(t *testing.T, s, extra string) {
		items := []attr.Item{
			{{Name: "a", Value: attr.Str(s)}, {Name: "n", Value: attr.Num("12")}, {Name: "s", Value: attr.Str(s + s)}},
			{{Name: "b\"q", Value: attr.Str(s)}, {Name: "s", Value: attr.Bool(true)}},
			{{Name: "a", Value: attr.Str(s)}, {Name: extra, Value: attr.Str(s)}},
			{{Name: "s", Value: attr.MapOf(attr.Item{{Name: s, Value: attr.Str(s)}})}},
			{{Name: "n", Value: attr.Num(s)}, {Name: s, Value: attr.StrSet(s, extra)}},
			{},
		}
		for _, it := range items {
			it = attr.Sorted(it)
			// The entity's fields: every name of the item, and more it lacks.
			c := &compiled{}
			names := map[string]bool{}
			for _, n := range []string{"a", "b\"q", "n", "s", extra, s} {
				names[n] = true
			}
			for _, f := range it {
				names[f.Name] = true
			}
			for n := range names {
				c.out = append(c.out, outField{name: n})
			}
			slices.SortFunc(c.out, func(x, y outField) int { return strings.Compare(x.name, y.name) })
			vals := make([]*attr.Value, len(c.out))
			for i := range it {
				j := slices.IndexFunc(c.out, func(o outField) bool { return o.name == it[i].Name })
				vals[j] = &it[i].Value
			}
			want := attr.AppendItemJSON([]byte("prefix"), it)
			got := newItemEncoder(c).appendFields([]byte("prefix"), vals)
			if string(got) != string(want) {
				t.Fatalf("item %v:\n got %q\nwant %q", it, got, want)
			}
		}
	})
}

// A pattern the generator calls exact draws only strings that match it,
// so its draws go unchecked: every draw of many patterns is checked here.
func TestExactRegexDrawsMatch(t *testing.T) {
	exact := 0
	for _, p := range []string{"t[0-9]{3}", "C-[0-9]{4}-[0-9]{6}", "[A-Z]{2}[0-9]+", "(ab|cd)*e?", "[^a]{3}", ".x.", "[a-c]{0,4}z", `\d{2}\.\w+`, "[\u00e0-\u00ff]{2}", "(?i)abc", "a|", "x{2,}"} {
		re := regexp.MustCompile(`^(?:` + p + `)$`)
		rx, ok := newRegexGen(p)
		require.True(t, ok, p)
		if !rx.exact {
			continue
		}
		exact++
		r := newRNG(hashString(p))
		for i := 0; i < 2000; i++ {
			s := string(rx.append(nil, &r))
			require.True(t, re.MatchString(s), "%s drew %q", p, s)
		}
	}
	require.Equal(t, 12, exact)
	for _, p := range []string{"^a$", `a\b`, `[\x{d800}-\x{dfff}]`} {
		if rx, ok := newRegexGen(p); ok {
			require.False(t, rx.exact, p)
		}
	}
}

// The compiled form of a pattern draws what appendRegex draws from the
// same stream, character for character.
func TestRegexProgMatchesAppendRegex(t *testing.T) {
	for _, p := range []string{"t[0-9]{3}", "C-[0-9]{4}-[0-9]{6}", "[A-Z]{2}[0-9]+", "(ab|cd)*e?", "[^a]{3}", ".x.", "[a-c]{0,4}z",
		`\d{2}\.\w+`, "[\u00e0-\u00ff]{2}", "(?i)abc", "a|", "x{2,}", "^a$", `a\b`, `[\x{d800}-\x{dfff}]`, "[ -~]{5}", "[\x00-\x20é]{4}",
		"çã[a-zà-ü]{1,3}", "(x|[0-9A-F]{2}|y+){2,5}", `[\s\S]`, "[^\x00-\x7f]{2}", "[a-a]", "[!-!~-~]{3}"} {
		rx, ok := newRegexGen(p)
		require.True(t, ok, p)
		r1, r2 := newRNG(hashString(p)), newRNG(hashString(p))
		for i := 0; i < 500; i++ {
			want := appendRegex(nil, rx.re, &r1)
			require.Equal(t, string(want), string(rx.append(nil, &r2)), p)
		}
		require.Equal(t, r1, r2, p)
	}
}

// appendRegex draws a pattern by walking its parsed form, as values were
// drawn before patterns were compiled: the oracle the compiled programs
// are held to.
func appendRegex(dst []byte, re *syntax.Regexp, r *rng) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			dst = utf8.AppendRune(dst, c)
		}
	case syntax.OpCharClass:
		dst = utf8.AppendRune(dst, classRune(re.Rune, r))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		dst = append(dst, alnum[r.Intn(int64(len(alnum)))])
	case syntax.OpCapture:
		dst = appendRegex(dst, re.Sub[0], r)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			dst = appendRegex(dst, s, r)
		}
	case syntax.OpAlternate:
		dst = appendRegex(dst, re.Sub[r.Intn(int64(len(re.Sub)))], r)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeats(re)
		n := r.Range(int64(lo), int64(hi))
		for i := int64(0); i < n; i++ {
			dst = appendRegex(dst, re.Sub[0], r)
		}
	}
	return dst
}
