package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestUses(t *testing.T) {
	vals := map[string]attr.Value{
		":s": attr.Str("IN_PROGRESS"), ":n": attr.Num("1"), ":l": attr.ListOf(attr.Str("x")),
		":d": attr.Str("2026-01-01"), ":e": attr.Str("2026-02-01"), ":p": attr.Str("A"), ":t": attr.StrSet("x"),
		":a": attr.Str("a"), ":b": attr.Str("b"), ":c": attr.Str("c"),
	}
	sc := NewScope(map[string]string{"#st": "status"}, vals)
	u, err := sc.Update("SET #st = :s, n = n + :n, notes = list_append(if_not_exists(notes, :l), :l), c = if_not_exists(c, :c) ADD tags :t, hits :n DELETE gone :t")
	require.NoError(t, err)
	var got []string
	for _, x := range u.Uses() {
		got = append(got, x.Value+" "+x.Path.String()+" "+[...]string{"assigned", "equal", "ordered", "elements", "prefix", "member", "amount"}[x.How])
	}
	assert.Equal(t, []string{":s status assigned", ":n n amount", ":l notes elements", ":c c assigned", ":t tags elements", ":n hits amount", ":t gone elements"}, got)

	c, err := sc.Condition("#st IN (:a, :b) AND d BETWEEN :d AND :e AND begins_with(sku, :p) AND contains(tags, :c) AND :n < n")
	require.NoError(t, err)
	got = nil
	for _, x := range c.Uses() {
		got = append(got, x.Value+" "+x.Path.String()+" "+[...]string{"assigned", "equal", "ordered", "elements", "prefix", "member", "amount"}[x.How])
	}
	assert.Equal(t, []string{":a status equal", ":b status equal", ":d d ordered", ":e d ordered", ":p sku prefix", ":c tags member", ":n n ordered"}, got)
}
