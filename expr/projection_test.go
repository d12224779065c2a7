package expr

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectionApply(t *testing.T) {
	it := item(
		"pk", str("k"),
		"a", num("1"),
		"m", attr.MapOf(item("x", num("1"), "y", num("2"), "z", attr.MapOf(item("q", num("3"))))),
		"l", attr.ListOf(str("l0"), attr.MapOf(item("f", str("g"), "h", str("i"))), str("l2"), str("l3")),
	)
	cases := []struct {
		src  string
		want attr.Item
	}{
		{"a", item("a", num("1"))},
		{"pk, a, absent", item("pk", str("k"), "a", num("1"))},
		{"a, pk", item("pk", str("k"), "a", num("1"))},
		{"m.x", item("m", attr.MapOf(item("x", num("1"))))},
		{"m.z.q, m.y", item("m", attr.MapOf(item("y", num("2"), "z", attr.MapOf(item("q", num("3"))))))},
		{"m.nope", item()},
		{"m.x.deeper", item()},
		{"l[0]", item("l", attr.ListOf(str("l0")))},
		{"l[3], l[0]", item("l", attr.ListOf(str("l0"), str("l3")))},
		{"l[1].h", item("l", attr.ListOf(attr.MapOf(item("h", str("i")))))},
		{"l[9]", item()},
		{"a[0]", item()},
		{"#m.#x, #l[2]", item("m", attr.MapOf(item("x", num("1"))), "l", attr.ListOf(str("l2")))},
	}
	names := map[string]string{"#m": "m", "#x": "x", "#l": "l"}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			s := NewScope(names, nil)
			p, err := s.Projection(tc.src)
			require.NoError(t, err)
			got := p.Apply(it)
			if len(tc.want) == 0 {
				assert.NotNil(t, got, "an existing item projects to an empty item, not to none")
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestProjectionErrors(t *testing.T) {
	cases := []struct{ src, msg string }{
		{"", "The expression can not be empty;"},
		{"!!! INVALID !!!", `Syntax error; token: "!", near: "!!"`},
		{"a,", `Syntax error; token: "<EOF>", near: ","`},
		{"a b", `Syntax error; token: "b", near: "a b"`},
		{"a, :v", `Syntax error; token: ":v", near: ", :v"`},
		{"size(a)", `Syntax error; token: "(", near: "size(a"`},
		{"first-name", `Syntax error; token: "-", near: "first-name"`},
		{"name", "Attribute name is a reserved keyword; reserved keyword: name"},
		{"#n", "An expression attribute name used in the document path is not defined; attribute name: #n"},
		{"a, a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"a.b, a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{"a[1], a.b", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [1]], path two: [a, b]"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := NewScope(nil, nil).Projection(tc.src)
			requireExprError(t, err, "Invalid ProjectionExpression: "+tc.msg)
		})
	}
}

func TestProjectionAttrs(t *testing.T) {
	p, err := NewScope(nil, nil).Projection("b.c, a, b.d[1]")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, p.Attrs())
	assert.Len(t, p.Paths(), 3)
}
