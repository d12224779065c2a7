package expr

import (
	"errors"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// fuzzNames and fuzzValues give fuzzed expressions placeholders to hit.
var (
	fuzzNames  = map[string]string{"#a": "a", "#s": "status", "#n": "m.n", "#e": ""}
	fuzzValues = map[string]attr.Value{
		":s": str("ab"), ":n": num("5"), ":b": attr.Bin([]byte{1}), ":l": attr.ListOf(num("1")),
		":m": attr.MapOf(item("k", str("v"))), ":ss": attr.StrSet("a"), ":ns": attr.NumSet("1"),
		":t": attr.Bool(true), ":z": attr.Null(), ":ty": str("S"), ":big": num("9E+125"),
	}
	fuzzItem = item(
		"a", num("5"), "s", str("abc"), "b", attr.Bin([]byte{1, 2}), "l", attr.ListOf(num("1"), attr.MapOf(item("x", str("y")))),
		"m", attr.MapOf(item("n", num("1"), "l", attr.ListOf(str("p"), str("q")))), "ss", attr.StrSet("a", "b"), "ns", attr.NumSet("1", "2"),
		"big", num("9E+125"),
	)
)

// checkErr fails unless err is nil or an *Error.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if err != nil && (!errors.As(err, &e) || e.Msg == "") {
		t.Fatalf("error %T %v is not an *expr.Error", err, err)
	}
}

var conditionSeeds = []string{
	"attribute_not_exists(PK)", "a = :n AND (s < :s OR NOT contains(ss, :s))", "a BETWEEN :n AND :big",
	"size(l) IN (:n, :n)", "((a = :n))", "(a) = :n", "#a.#n[0] = :l", "begins_with(s, :s)", "attribute_type(a, :ty)",
	"a = ", "!!!", "f(a)", "a IN ()", "l[99999999999] = :n", "NOT NOT NOT a <> :n", "size(size(a)) > :n",
}

func FuzzCondition(f *testing.F) {
	for _, s := range conditionSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s := NewScope(fuzzNames, fuzzValues)
		c, err := s.Condition(src)
		checkErr(t, err)
		if err == nil {
			c.Eval(fuzzItem)
			c.Eval(nil)
			checkErr(t, s.Check())
		}
	})
}

func FuzzKeyCondition(f *testing.F) {
	for _, s := range append(conditionSeeds, "pk = :s AND sk > :n", "p1 = :s AND p2 = :n AND begins_with(s1, :s)", ":n = pk") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, schema := range [][2][]string{{{"pk"}, {"sk"}}, {{"a"}, nil}, {{"p1", "p2"}, {"s1", "s2"}}} {
			k, err := NewScope(fuzzNames, fuzzValues).KeyCondition(src, schema[0], schema[1])
			checkErr(t, err)
			if err == nil {
				k.Match(fuzzItem)
			}
		}
	})
}

func FuzzUpdate(f *testing.F) {
	for _, s := range []string{
		"SET a = a + :n, s = list_append(l, :l) REMOVE l[0], m.n ADD ss :ss DELETE ns :ns",
		"SET m.l[5] = if_not_exists(m.l[5], :s)", "SET big = big + :big", "REMOVE l[1], l[0]", "ADD a :s", "SET a = :n SET b = :n",
		"SET a.b = :n, a = :n", "INVALID SYNTAX", "DELETE ss :ss", "SET #e = :n", "SET x.y.z = :n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s := NewScope(fuzzNames, fuzzValues)
		u, err := s.Update(src)
		checkErr(t, err)
		if err != nil {
			return
		}
		before := clone(fuzzItem)
		_, err = u.Apply(fuzzItem)
		checkErr(t, err)
		_, err = u.Apply(nil)
		checkErr(t, err)
		if !attr.EqualItems(before, fuzzItem) {
			t.Fatal("Apply changed its input")
		}
	})
}

func FuzzProjection(f *testing.F) {
	for _, s := range []string{"a, s", "m.l[1], l[0].x", "#a, #n", "a, a", "a[0], a.b", "!!", "a.", "l[1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := NewScope(fuzzNames, fuzzValues).Projection(src)
		checkErr(t, err)
		if err == nil {
			p.Apply(fuzzItem)
		}
	})
}
