package expr

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
)

var benchItem = item("PK", str("user#1"), "SK", str("profile"), "n", num("42"), "status", str("active"),
	"tags", attr.StrSet("a", "b"), "m", attr.MapOf(item("x", num("1"))))

// BenchmarkParseCondition measures a conditional put's parse: a fresh
// scope and the typical attribute_not_exists guard.
func BenchmarkParseCondition(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s := NewScope(nil, nil)
		if _, err := s.Condition("attribute_not_exists(PK)"); err != nil {
			b.Fatal(err)
		}
		if err := s.Check(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseComplexCondition(b *testing.B) {
	names := map[string]string{"#s": "status"}
	values := map[string]attr.Value{":a": str("active"), ":n": num("10"), ":t": str("a")}
	b.ReportAllocs()
	for b.Loop() {
		s := NewScope(names, values)
		if _, err := s.Condition("attribute_exists(PK) AND (#s = :a OR n < :n) AND NOT contains(tags, :t) AND m.x BETWEEN :n AND :n"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseUpdate(b *testing.B) {
	values := map[string]attr.Value{":one": num("1"), ":l": attr.ListOf(str("x")), ":t": attr.StrSet("c")}
	b.ReportAllocs()
	for b.Loop() {
		s := NewScope(nil, values)
		if _, err := s.Update("SET n = n + :one, l = list_append(if_not_exists(l, :l), :l) REMOVE m.x ADD tags :t"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalNotExists(b *testing.B) {
	c, err := NewScope(nil, nil).Condition("attribute_not_exists(PK)")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if c.Eval(benchItem) {
			b.Fatal("PK exists")
		}
	}
}

func BenchmarkEvalComparison(b *testing.B) {
	c, err := NewScope(map[string]string{"#s": "status"}, map[string]attr.Value{":a": str("active"), ":n": num("10")}).
		Condition("#s = :a AND n > :n AND m.x < :n")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !c.Eval(benchItem) {
			b.Fatal("condition false")
		}
	}
}

func BenchmarkApplyUpdate(b *testing.B) {
	u, err := NewScope(nil, map[string]attr.Value{":one": num("1"), ":s": str("x")}).Update("SET n = n + :one, s = :s")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Apply(benchItem); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProjection(b *testing.B) {
	p, err := NewScope(nil, nil).Projection("PK, n, m.x")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Apply(benchItem)
	}
}
