package expr_test

import (
	"fmt"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// A request's expressions are parsed through one scope, which then checks
// that every placeholder was used.
func ExampleScope() {
	s := expr.NewScope(
		map[string]string{"#s": "status"},
		map[string]attr.Value{":open": attr.Str("open"), ":one": attr.Num("1")},
	)
	cond, err := s.Condition("attribute_exists(pk) AND #s = :open")
	if err != nil {
		fmt.Println(err)
		return
	}
	upd, err := s.Update("SET hits = if_not_exists(hits, :one) + :one")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Check(); err != nil {
		fmt.Println(err)
		return
	}
	it := attr.Item{{Name: "pk", Value: attr.Str("a")}, {Name: "status", Value: attr.Str("open")}}
	if cond.Eval(it) {
		it, _ = upd.Apply(it)
	}
	v, _ := it.Get("hits")
	fmt.Println(v.Str, upd.Attrs())

	_, err = expr.NewScope(nil, nil).Condition("status = :x")
	fmt.Println(err)
	// Output:
	// 2 [hits]
	// Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status
}
