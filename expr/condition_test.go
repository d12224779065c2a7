package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sample = item(
	"a", num("5"),
	"s", str("abc"),
	"b", attr.Bin([]byte{1, 2, 3}),
	"t", attr.Bool(true),
	"z", attr.Null(),
	"l", attr.ListOf(num("1"), str("x"), attr.MapOf(item("deep", str("abc")))),
	"m", attr.MapOf(item("k", str("v"), "n", num("10"), "in2", attr.MapOf(item("x", num("1"))))),
	"ss", attr.StrSet("a", "b", "c"),
	"ns", attr.NumSet("1", "2.0"),
	"bs", attr.BinSet("\x01", "\x02"),
	"status", str("open"),
	"u", str("héllo"),
	"emoji", str("\U0001F600"),
)

func TestConditionEval(t *testing.T) {
	names := map[string]string{"#st": "status", "#dot": "m.k", "#k": "k"}
	cases := []struct {
		src  string
		want bool
	}{
		// comparators on each scalar type
		{"a = :n", true},
		{"a = :n5", true}, // numbers compare by value
		{"a <> :n", false},
		{"a <> :n2", true},
		{"a < :n2", true},
		{"a <= :n", true},
		{"a > :n", false},
		{"a >= :n5", true},
		{"s < :s2", true},
		{"s > :pre", true},
		{"b > :bpre", true},
		{":n2 > a", true},
		// different types: false, never an error
		{"a = :s", false},
		{"a < :s", false},
		{"s > :n", false},
		{"a <> :s", true},
		{"absent = :n", false},
		{"absent <> :n", true},
		{"absent < :n", false},
		{"t = :t", true},
		{"z = :null", true},
		{"l = :l", false},
		{"ss = :ss", false},
		{"m.k = :x", false},
		// BETWEEN and IN
		{"a BETWEEN :n AND :n2", true},
		{"a BETWEEN :one AND :n", true},
		{"a between :one and :one", false},
		{"s BETWEEN :pre AND :s2", true},
		{"a BETWEEN :pre AND :s2", false},
		{"absent BETWEEN :one AND :n", false},
		{"a IN (:one, :n2, :n5)", true},
		{"a IN (:one)", false},
		{"s in (:s, :n)", true},
		{"absent IN (:n)", false},
		// logic and precedence: NOT > AND > OR
		{"a = :n OR a = :one AND a = :n2", true},
		{"(a = :n OR a = :one) AND a = :n2", false},
		{"NOT a = :one AND a = :n", true},
		{"NOT (a = :n AND a = :one)", true},
		{"NOT a = :n OR a = :n", true},
		{"not not a = :n", true},
		{"a = :one or a = :n2 or a = :n", true},
		{"(a = :n) AND (s = :s)", true},
		{"((a = :n) AND (s = :s)) OR a = :one", true},
		{"(a) = :n", true},
		// functions
		{"attribute_exists(a)", true},
		{"attribute_exists(absent)", false},
		{"attribute_not_exists(absent)", true},
		{"attribute_not_exists(a)", false},
		{"attribute_exists(m.in2.x)", true},
		{"attribute_exists(m.in2.y)", false},
		{"attribute_exists(l[2].deep)", true},
		{"attribute_exists(l[3])", false},
		{"attribute_exists(a.b)", false},
		{"attribute_exists(m[0])", false},
		{"attribute_type(a, :typeN)", true},
		{"attribute_type(a, :typeS)", false},
		{"attribute_type(l, :typeL)", true},
		{"attribute_type(absent, :typeS)", false},
		{"begins_with(s, :pre)", true},
		{"begins_with(s, :s2)", false},
		{"begins_with(b, :bpre)", true},
		{"begins_with(s, :bpre)", false},
		{"begins_with(a, :pre)", false},
		{"begins_with(l[2].deep, :pre)", true},
		{"contains(s, :pre)", true},
		{"contains(s, :x)", false},
		{"contains(ss, :x)", false},
		{"contains(ss, :pre)", false},
		{"contains(l, :x)", true},
		{"contains(l, :one)", true},
		{"contains(ns, :one)", true},
		{"contains(ns, :n)", false},
		{"contains(b, :bpre)", true},
		{"contains(a, :n)", false},
		{"size(s) = :n", false},
		{"size(s) < :n", true},
		{"size(u) = :n", true}, // UTF-16 code units, not bytes
		{"size(emoji) = :two", true},
		{"size(b) > :one", true},
		{"size(ss) > :one", true},
		{"size(l) BETWEEN :one AND :n", true},
		{"size(m) IN (:one, :n)", false},
		{"size(a) >= :one", false},
		{"size(absent) >= :one", false},
		{"size(m.in2) = :one", true},
		// placeholders and paths
		{"#st = :s", false},
		{"attribute_exists(#st)", true},
		{"attribute_exists(#dot)", false}, // a name placeholder is one name, dots included
		{"m.#k = :x", false},
		{"m . k <> :x", true},
		{"l[0] = :one", true},
		{"l [ 0 ] = :one", true},
		{"m.n = :n2", true},
		{"m.n > a", true},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			c, err := NewScope(names, testValues).Condition(tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Eval(sample))
		})
	}
}

func TestConditionOnMissingItem(t *testing.T) {
	c, err := NewScope(nil, nil).Condition("attribute_not_exists(PK)")
	require.NoError(t, err)
	assert.True(t, c.Eval(nil))
	assert.False(t, c.Eval(item("PK", str("x"))))
}

func TestConditionErrors(t *testing.T) {
	names := map[string]string{"#a": "a"}
	many := make([]string, 101)
	for i := range many {
		many[i] = ":n"
	}
	cases := []struct{ src, msg string }{
		{"", "The expression can not be empty;"},
		{"a = ", `Syntax error; token: "<EOF>", near: "="`},
		{"a", `Syntax error; token: "<EOF>", near: "a"`},
		{"a == :n", `Syntax error; token: "=", near: "== :n"`},
		{"a = :n AND", `Syntax error; token: "<EOF>", near: "AND"`},
		{"!!! INVALID !!!", `Syntax error; token: "!", near: "!!"`},
		{"a = :n b = :n", `Syntax error; token: "b", near: ":n b ="`},
		{"(a = :n", `Syntax error; token: "<EOF>", near: ":n"`},
		{"a = :n)", `Syntax error; token: ")", near: ":n)"`},
		{"1a = :n", `Syntax error; token: "1a", near: "1a ="`},
		{"a[x] = :n", `Syntax error; token: "x", near: "[x]"`},
		{"a BETWEEN :n OR :n2", `Syntax error; token: "OR", near: ":n OR :n2"`},
		{"a IN :n", `Syntax error; token: ":n", near: "IN :n"`},
		{"a IN ()", `Syntax error; token: ")", near: "()"`},
		{"a = # ", `Syntax error; token: "#", near: "= #"`},
		{"a = :n + :n", `Syntax error; token: "+", near: ":n + :n"`},
		{"((a = :n))", "The expression has redundant parentheses;"},
		{"((a)) = :n", "The expression has redundant parentheses;"},
		{"foo(a)", "Invalid function name; function: foo"},
		{"ATTRIBUTE_EXISTS(a)", "Invalid function name; function: ATTRIBUTE_EXISTS"},
		{"size(a)", "The function is not allowed to be used this way in an expression; function: size"},
		{"attribute_exists(a) = :n", "The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"if_not_exists(a, :n) = :n", "The function is not allowed to be used this way in an expression; function: if_not_exists"},
		{"status = :n", "Attribute name is a reserved keyword; reserved keyword: status"},
		{"a.Size = :n", "Attribute name is a reserved keyword; reserved keyword: Size"},
		{"#b = :n", "An expression attribute name used in the document path is not defined; attribute name: #b"},
		{"a = :nope", "An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"attribute_exists(a, a)", "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"begins_with(a)", "Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"size(a, a) = :n", "Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"},
		{"a = #a", "The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"a.b[1] BETWEEN :n AND a.b[1]", "The first operand must be distinct from the remaining operands for this operator or function; operator: BETWEEN, first operand: [a, b, [1]]"},
		{"contains(a, a)", "The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]"},
		{"begins_with(#a, a)", "The first operand must be distinct from the remaining operands for this operator or function; operator: begins_with, first operand: [a]"},
		{"a IN (:n, a)", "The first operand must be distinct from the remaining operands for this operator or function; operator: IN, first operand: [a]"},
		{"attribute_exists(:n)", "Operator or function requires a document path; operator or function: attribute_exists"},
		{"attribute_not_exists(size(a))", "Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"attribute_type(a, :n)", "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type(a, :bad)", "Invalid attribute type name found; type: XX, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{"begins_with(a, :n)", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"size(:n) > :n", "Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"a < :m", "Incorrect operand type for operator or function; operator or function: <, operand type: M"},
		{"a >= :ss", "Incorrect operand type for operator or function; operator or function: >=, operand type: SS"},
		{"a BETWEEN :l AND :n", "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"},
		{"a BETWEEN :n2 AND :n", "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:5}"},
		{"a BETWEEN :n AND :s", "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {S:abc}"},
		{"a IN (" + strings.Join(many, ", ") + ")", "The IN operator is provided with too many operands; number of operands: 101"},
		{strings.Repeat("a = :n OR ", 410) + "a = :n", "Expression size has exceeded the maximum allowed size; expression size: 4106"},
		// precedence among errors: parentheses, then functions, then names
		{"((status = :nope))", "The expression has redundant parentheses;"},
		{"foo(status) AND a = :nope", "Invalid function name; function: foo"},
		{"status = :nope", "Attribute name is a reserved keyword; reserved keyword: status"},
		{"a = :nope AND b = b", "An expression attribute value used in expression is not defined; attribute value: :nope"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := NewScope(names, testValues).Condition(tc.src)
			requireExprError(t, err, "Invalid ConditionExpression: "+tc.msg)
		})
	}
}

func TestFilterPrefix(t *testing.T) {
	_, err := NewScope(nil, nil).Filter("a = ")
	requireExprError(t, err, `Invalid FilterExpression: Syntax error; token: "<EOF>", near: "="`)
	f, err := NewScope(nil, testValues).Filter("a = :n")
	require.NoError(t, err)
	assert.True(t, f.Eval(sample))
}

func TestReservedWords(t *testing.T) {
	assert.Len(t, reserved, 573)
	for _, w := range []string{"status", "STATUS", "Name", "data", "ttl", "year", "zone", "abort"} {
		assert.True(t, IsReserved(w), w)
	}
	for _, w := range []string{"pk", "sk", "gsi1pk", "statuses", "", "a_very_long_attribute_name_that_is_not_reserved_at_all"} {
		assert.False(t, IsReserved(w), w)
	}
}

func TestDeepPath(t *testing.T) {
	var b strings.Builder
	b.WriteString("a")
	v := num("1")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "[0]")
		v = attr.ListOf(v)
	}
	c, err := NewScope(nil, testValues).Condition(b.String() + " = :one")
	require.NoError(t, err)
	assert.True(t, c.Eval(item("a", v)))
}

func TestConditionAttrs(t *testing.T) {
	c, err := NewScope(map[string]string{"#s": "status"}, testValues).Condition("#s = :s AND (size(l[0].x) > :n OR NOT contains(b, :b)) AND a BETWEEN :n AND m.n AND #s <> a")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "l", "m", "status"}, c.Attrs())
}

func TestDeepParentheses(t *testing.T) {
	// Nesting up to the expression size limit parses in linear passes and
	// fails cleanly; a backtracking parser would take exponential time.
	src := strings.Repeat("(", 2000) + "a" + strings.Repeat(")", 2000)
	_, err := NewScope(nil, nil).Condition(src)
	requireExprError(t, err, `Invalid ConditionExpression: Syntax error; token: ")", near: "a))"`)
	c, err := NewScope(nil, testValues).Condition("(" + strings.Repeat("(a = :n) AND ", 100) + "(a) = :n)")
	require.NoError(t, err)
	assert.True(t, c.Eval(sample))
}
