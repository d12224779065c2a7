package expr

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyCondition(t *testing.T) {
	pk, sk := []string{"pk"}, []string{"sk"}
	cases := []struct {
		src    string
		pk, sk []string
		want   KeyCondition
	}{
		{"pk = :s", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}}},
		{"pk = :s", pk, nil, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}}},
		{":s = pk", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}}},
		{"pk = :s AND sk = :n", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortEq, Value: num("5")}}}},
		{"sk < :n AND pk = :s", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortLt, Value: num("5")}}}},
		{"pk = :s AND :n < sk", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortGt, Value: num("5")}}}},
		{"pk = :s AND :n >= sk", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortLe, Value: num("5")}}}},
		{"pk = :s AND sk BETWEEN :n AND :n2", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortBetween, Value: num("5"), Upper: num("10")}}}},
		{"pk = :s AND begins_with(sk, :pre)", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortBeginsWith, Value: str("ab")}}}},
		{"(#p = :s) AND (#q = :n)", []string{"p k"}, []string{"q"}, KeyCondition{Partition: []KeyEq{{"p k", str("abc")}}, Sort: []SortCond{{Name: "q", Op: SortEq, Value: num("5")}}}},
		{"(pk = :s AND sk > :n)", pk, sk, KeyCondition{Partition: []KeyEq{{"pk", str("abc")}}, Sort: []SortCond{{Name: "sk", Op: SortGt, Value: num("5")}}}},
		// several attributes per key: every partition attribute, sort
		// attributes from the left, a range only last
		{"p2 = :n AND p1 = :s", []string{"p1", "p2"}, []string{"s1", "s2", "s3"},
			KeyCondition{Partition: []KeyEq{{"p1", str("abc")}, {"p2", num("5")}}}},
		{"p1 = :s AND p2 = :n AND s2 > :n AND s1 = :s2", []string{"p1", "p2"}, []string{"s1", "s2", "s3"},
			KeyCondition{Partition: []KeyEq{{"p1", str("abc")}, {"p2", num("5")}}, Sort: []SortCond{{Name: "s1", Op: SortEq, Value: str("abd")}, {Name: "s2", Op: SortGt, Value: num("5")}}}},
		{"p1 = :s AND s1 = :s2 AND s2 = :n AND begins_with(s3, :pre)", []string{"p1"}, []string{"s1", "s2", "s3"},
			KeyCondition{Partition: []KeyEq{{"p1", str("abc")}}, Sort: []SortCond{{Name: "s1", Op: SortEq, Value: str("abd")}, {Name: "s2", Op: SortEq, Value: num("5")}, {Name: "s3", Op: SortBeginsWith, Value: str("ab")}}}},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			s := NewScope(map[string]string{"#p": "p k", "#q": "q"}, testValues)
			k, err := s.KeyCondition(tc.src, tc.pk, tc.sk)
			require.NoError(t, err)
			assert.Equal(t, tc.want, *k)
		})
	}
}

func TestKeyConditionErrors(t *testing.T) {
	pk, sk := []string{"pk"}, []string{"sk"}
	multiP, multiS := []string{"p1", "p2"}, []string{"s1", "s2", "s3"}
	const inv = "Invalid KeyConditionExpression: "
	cases := []struct {
		src    string
		pk, sk []string
		msg    string
	}{
		{"", pk, sk, inv + "The expression can not be empty;"},
		{"pk = ", pk, sk, inv + `Syntax error; token: "<EOF>", near: "="`},
		{"pk = :s OR sk = :n", pk, sk, inv + "Invalid operator used in KeyConditionExpression: OR"},
		{"NOT pk = :s", pk, sk, inv + "Invalid operator used in KeyConditionExpression: NOT"},
		{"pk IN (:s)", pk, sk, inv + "Invalid operator used in KeyConditionExpression: IN"},
		{"pk <> :s", pk, sk, inv + "Invalid operator used in KeyConditionExpression: <>"},
		{"pk = :s AND attribute_exists(sk)", pk, sk, inv + "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"pk = :s AND contains(sk, :s)", pk, sk, inv + "Invalid operator used in KeyConditionExpression: contains"},
		{"pk = :s AND size(sk) = :n", pk, sk, inv + "KeyConditionExpressions cannot contain nested operations"},
		{"pk = sk", pk, sk, inv + "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{":s = :s2", pk, sk, inv + "Invalid condition in KeyConditionExpression: No key attribute specified"},
		{"pk.a = :s", pk, sk, inv + "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"pk = :s AND pk = :s2", pk, sk, inv + "KeyConditionExpressions must only contain one condition per key"},
		{"pk = :s AND begins_with(sk, :n)", pk, sk, inv + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"pk = :s AND sk BETWEEN :n2 AND :n", pk, sk, inv + "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:5}"},
		{"sk = :s", pk, sk, "Query condition missed key schema element: pk"},
		{"pk < :s", pk, sk, "Query key condition not supported"},
		{"pk = :s AND foo = :n", pk, sk, "Query condition missed key schema element: sk"},
		{"pk = :s AND foo = :n", pk, nil, "Query key condition not supported"},
		{"p1 = :s", multiP, multiS, "Query condition missed key schema element: p2"},
		{"p1 = :s AND p2 > :n", multiP, multiS, "Query key condition not supported"},
		{"p1 = :s AND p2 = :n AND s2 = :n", multiP, multiS, "Query condition missed key schema element: s1"},
		{"p1 = :s AND p2 = :n AND s1 = :n AND s3 = :n", multiP, multiS, "Query condition missed key schema element: s2"},
		{"p1 = :s AND p2 = :n AND s1 > :n AND s2 = :n", multiP, multiS, "Query key condition not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := NewScope(nil, testValues).KeyCondition(tc.src, tc.pk, tc.sk)
			requireExprError(t, err, tc.msg)
		})
	}
}

func TestSortCondMatch(t *testing.T) {
	cases := []struct {
		c    SortCond
		v    attr.Value
		want bool
	}{
		{SortCond{Op: SortEq, Value: num("5")}, num("5.00"), true},
		{SortCond{Op: SortLt, Value: num("5")}, num("4"), true},
		{SortCond{Op: SortLe, Value: num("5")}, num("6"), false},
		{SortCond{Op: SortGt, Value: str("b")}, str("ba"), true},
		{SortCond{Op: SortGe, Value: str("b")}, str("a"), false},
		{SortCond{Op: SortBetween, Value: num("1"), Upper: num("3")}, num("3"), true},
		{SortCond{Op: SortBetween, Value: num("1"), Upper: num("3")}, num("0"), false},
		{SortCond{Op: SortBeginsWith, Value: str("ab")}, str("abc"), true},
		{SortCond{Op: SortBeginsWith, Value: str("ab")}, attr.Bin([]byte("abc")), false},
		{SortCond{Op: SortEq, Value: num("5")}, str("5"), false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.c.Match(tc.v), "%s %v", tc.c.Op, tc.v)
	}
	k := KeyCondition{Partition: []KeyEq{{"pk", str("a")}}, Sort: []SortCond{{Name: "sk", Op: SortGt, Value: num("1")}}}
	assert.True(t, k.Match(item("pk", str("a"), "sk", num("2"))))
	assert.False(t, k.Match(item("pk", str("a"), "sk", num("1"))))
	assert.False(t, k.Match(item("pk", str("b"), "sk", num("2"))))
	assert.False(t, k.Match(item("pk", str("a"))))
}
