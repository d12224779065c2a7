package expr

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateApply(t *testing.T) {
	base := item(
		"pk", str("k"),
		"n", num("5"),
		"s", str("abc"),
		"l", attr.ListOf(num("0"), num("1"), num("2"), num("3")),
		"m", attr.MapOf(item("a", num("1"), "l", attr.ListOf(str("x"), str("y")))),
		"ss", attr.StrSet("a", "b"),
		"ns", attr.NumSet("1", "2"),
	)
	cases := []struct {
		src  string
		want attr.Item
	}{
		{"SET n = :one", base.With("n", num("1"))},
		{"SET x = :s, y = :l", base.With("x", str("abc")).With("y", attr.ListOf(num("1"), str("x")))},
		{"SET n = n + :one", base.With("n", num("6"))},
		{"SET n = n - :n2", base.With("n", num("-5"))},
		{"SET n = :n2 - n", base.With("n", num("5"))},
		{"SET n = (n + :one)", base.With("n", num("6"))},
		{"SET n = (n) - (:one)", base.With("n", num("4"))},
		{"SET x = :n2 + :n2", base.With("x", num("20"))},
		{"SET n = if_not_exists(n, :one)", base},
		{"SET x = if_not_exists(x, :one)", base.With("x", num("1"))},
		{"SET x = if_not_exists(x, n) + :one", base.With("x", num("6"))},
		{"SET l = list_append(l, :l)", base.With("l", attr.ListOf(num("0"), num("1"), num("2"), num("3"), num("1"), str("x")))},
		{"SET l = list_append(:l, l)", base.With("l", attr.ListOf(num("1"), str("x"), num("0"), num("1"), num("2"), num("3")))},
		{"SET x = list_append(if_not_exists(x, :l), :l)", base.With("x", attr.ListOf(num("1"), str("x"), num("1"), str("x")))},
		{"SET m.a = :n2", base.With("m", attr.MapOf(item("a", num("10"), "l", attr.ListOf(str("x"), str("y")))))},
		{"SET m.b = :n2", base.With("m", attr.MapOf(item("a", num("1"), "b", num("10"), "l", attr.ListOf(str("x"), str("y")))))},
		{"SET m.l[1] = :s", base.With("m", attr.MapOf(item("a", num("1"), "l", attr.ListOf(str("x"), str("abc")))))},
		{"SET m.l[9] = :s", base.With("m", attr.MapOf(item("a", num("1"), "l", attr.ListOf(str("x"), str("y"), str("abc")))))},
		{"SET n = s, s = n", base.With("n", str("abc")).With("s", num("5"))},                                                      // operands read the old item
		{"SET l[9] = :s, l[7] = :one", base.With("l", attr.ListOf(num("0"), num("1"), num("2"), num("3"), num("1"), str("abc")))}, // appended by index
		{"REMOVE s", base.Without("s")},
		{"REMOVE absent", base},
		{"REMOVE m.a, m.zz", base.With("m", attr.MapOf(item("l", attr.ListOf(str("x"), str("y")))))},
		{"REMOVE l[1]", base.With("l", attr.ListOf(num("0"), num("2"), num("3")))},
		{"REMOVE l[1], l[2]", base.With("l", attr.ListOf(num("0"), num("3")))}, // indexes of the list before removal
		{"REMOVE l[2], l[0]", base.With("l", attr.ListOf(num("1"), num("3")))},
		{"REMOVE l[7]", base},
		{"REMOVE l[0] SET l[1] = :s", base.With("l", attr.ListOf(str("abc"), num("2"), num("3")))},
		{"ADD n :one", base.With("n", num("6"))},
		{"ADD x :one", base.With("x", num("1"))},
		{"ADD ss :ss", base},
		{"ADD ss :sc", base.With("ss", attr.StrSet("a", "b", "c"))},
		{"ADD ns :ns3", base.With("ns", attr.NumSet("1", "2", "3"))},
		{"ADD xs :ss", base.With("xs", attr.StrSet("a", "b"))},
		{"ADD m.c :one", base.With("m", attr.MapOf(item("a", num("1"), "c", num("1"), "l", attr.ListOf(str("x"), str("y")))))},
		{"DELETE ss :sa", base.With("ss", attr.StrSet("b"))},
		{"DELETE ss :ss", base.Without("ss")}, // empty sets are never stored
		{"DELETE ns :ns1", base.With("ns", attr.NumSet("2"))},
		{"DELETE xs :ss", base},
		{"DELETE m.zz :ss", base},
		{"REMOVE m.l[5]", base},
		{"set n = :one remove s add x :one delete ss :sa", base.With("n", num("1")).Without("s").With("x", num("1")).With("ss", attr.StrSet("b"))},
		{"SET #n = :one", base.With("n", num("1"))},
	}
	values := map[string]attr.Value{
		":one": num("1"), ":n2": num("10"), ":s": str("abc"), ":l": attr.ListOf(num("1"), str("x")),
		":ss": attr.StrSet("a", "b"), ":sc": attr.StrSet("c", "a"), ":sa": attr.StrSet("a"),
		":ns3": attr.NumSet("3", "1.0"), ":ns1": attr.NumSet("1.00"),
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			u, err := NewScope(map[string]string{"#n": "n"}, values).Update(tc.src)
			require.NoError(t, err)
			before := clone(base)
			got, err := u.Apply(base)
			require.NoError(t, err)
			assert.True(t, attr.EqualItems(tc.want, got), "got %v", got)
			assert.Equal(t, before, base, "the input item must not change")
		})
	}
}

// clone copies an item deeply, to detect mutation.
func clone(it attr.Item) attr.Item {
	out := make(attr.Item, len(it))
	for i, f := range it {
		out[i] = attr.Field{Name: f.Name, Value: cloneValue(f.Value)}
	}
	return out
}

func cloneValue(v attr.Value) attr.Value {
	switch v.Type {
	case attr.L:
		l := make([]attr.Value, len(v.List))
		for i := range v.List {
			l[i] = cloneValue(v.List[i])
		}
		v.List = l
	case attr.M:
		v.Map = clone(v.Map)
	case attr.SS, attr.NS, attr.BS:
		v.Set = append([]string(nil), v.Set...)
	}
	return v
}

func TestUpdateOnNewItem(t *testing.T) {
	u, err := NewScope(nil, map[string]attr.Value{":one": num("1"), ":l": attr.ListOf(str("x"))}).
		Update("ADD c :one SET l = list_append(if_not_exists(l, :l), :l)")
	require.NoError(t, err)
	got, err := u.Apply(nil)
	require.NoError(t, err)
	assert.Equal(t, item("c", num("1"), "l", attr.ListOf(str("x"), str("x"))), got)
}

func TestUpdateApplyErrors(t *testing.T) {
	base := item("n", num("5"), "s", str("abc"), "l", attr.ListOf(num("1")), "m", attr.MapOf(nil), "ss", attr.StrSet("a"),
		"big", num("9E+125"))
	values := map[string]attr.Value{":one": num("1"), ":s": str("x"), ":l": attr.ListOf(), ":ns": attr.NumSet("1"), ":big": num("9E+125")}
	cases := []struct{ src, msg string }{
		{"SET x.y = :one", msgInvalidPath},
		{"SET n.y = :one", msgInvalidPath},
		{"SET s[0] = :one", msgInvalidPath},
		{"SET m.a.b = :one", msgInvalidPath},
		{"SET l[3].a = :one", msgInvalidPath},
		{"ADD x.y :one", msgInvalidPath},
		{"REMOVE n[0]", msgInvalidPath},
		{"REMOVE x.y", msgInvalidPath},
		{"REMOVE m.x.y", msgInvalidPath},
		{"REMOVE l[5].a", msgInvalidPath},
		{"DELETE x.y :ns", msgInvalidPath},
		{"DELETE n.y :ns", msgInvalidPath},
		{"REMOVE s.a", msgInvalidPath},
		{"SET n = s + :one", msgOperandType},
		{"SET n = list_append(n, :l)", msgOperandType},
		{"ADD s :one", msgOperandType},
		{"ADD ss :ns", msgOperandType},
		{"DELETE ss :ns", msgOperandType},
		{"DELETE n :ns", msgOperandType},
		{"SET n = x + :one", msgMissingValue},
		{"SET n = x", msgMissingValue},
		{"SET n = list_append(x, :l)", msgMissingValue},
		{"SET big = big + :big", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			u, err := NewScope(nil, values).Update(tc.src)
			require.NoError(t, err)
			_, err = u.Apply(base)
			requireExprError(t, err, tc.msg)
		})
	}
}

func TestUpdateErrors(t *testing.T) {
	values := map[string]attr.Value{":one": num("1"), ":s": str("x"), ":l": attr.ListOf(), ":m": attr.MapOf(nil), ":t": attr.Bool(true),
		":null": attr.Null(), ":b": attr.Bin([]byte("x")), ":ss": attr.StrSet("a")}
	cases := []struct{ src, msg string }{
		{"", "The expression can not be empty;"},
		{"INVALID SYNTAX HERE", `Syntax error; token: "INVALID", near: "INVALID SYNTAX"`},
		{"SET", `Syntax error; token: "<EOF>", near: "SET"`},
		{"SET a", `Syntax error; token: "<EOF>", near: "a"`},
		{"SET a = :one,", `Syntax error; token: "<EOF>", near: ","`},
		{"SET a = :one REMOVE", `Syntax error; token: "<EOF>", near: "REMOVE"`},
		{"ADD a b", `Syntax error; token: "b", near: "a b"`},
		{"SET a = :one + :one + :one", `Syntax error; token: "+", near: ":one + :one"`},
		{"SET a = :one SET b = :one", `The "SET" section can only be used once in an update expression;`},
		{"remove a Remove b", `The "REMOVE" section can only be used once in an update expression;`},
		{"SET a = :one, a = :s", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET a.b = :one REMOVE a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{"SET a[0] = :one REMOVE a.b", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"},
		{"SET a[0] = :one, a[1] = :one", ""},
		{"ADD a :s", "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{"ADD a :l", "Incorrect operand type for operator or function; operator: ADD, operand type: LIST"},
		{"ADD a :m", "Incorrect operand type for operator or function; operator: ADD, operand type: MAP"},
		{"ADD a :t", "Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"},
		{"ADD a :null", "Incorrect operand type for operator or function; operator: ADD, operand type: NULL"},
		{"ADD a :b", "Incorrect operand type for operator or function; operator: ADD, operand type: BINARY"},
		{"DELETE a :one", "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
		{"SET a = b + :s", "Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"SET a = list_append(a, :s)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{"SET a = if_not_exists(:one, :one)", "Operator or function requires a document path; operator or function: if_not_exists"},
		{"SET a = if_not_exists(a)", "Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"SET a = foo(a)", "Invalid function name; function: foo"},
		{"SET a = size(a)", "Invalid function name; function: size"},
		{"SET status = :one", "Attribute name is a reserved keyword; reserved keyword: status"},
		{"SET #x = :one", "An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"SET a = :x", "An expression attribute value used in expression is not defined; attribute value: :x"},
		// precedence: reserved words before undefined placeholders and overlaps
		{"SET status = :x, status = :x", "Attribute name is a reserved keyword; reserved keyword: status"},
		{"SET a = :x, a = :one", "An expression attribute value used in expression is not defined; attribute value: :x"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := NewScope(nil, values).Update(tc.src)
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			requireExprError(t, err, "Invalid UpdateExpression: "+tc.msg)
		})
	}
}

func TestUpdateAttrs(t *testing.T) {
	u, err := NewScope(nil, map[string]attr.Value{":one": num("1"), ":ss": attr.StrSet("a")}).
		Update("SET b.c = :one, a = :one REMOVE d[0] ADD b2 :one DELETE c :ss")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "b2", "c", "d"}, u.Attrs())
	paths := u.Paths()
	require.Len(t, paths, 5)
	assert.Equal(t, "b.c", paths[0].String())
	assert.Equal(t, "d[0]", paths[2].String())
}
