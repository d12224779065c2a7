package expr

import (
	"errors"
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSamplesSkipValueChecks(t *testing.T) {
	values := map[string]attr.Value{":lo": num("10"), ":hi": num("1"), ":t": str("nope")}
	for _, src := range []string{"a BETWEEN :lo AND :hi", "attribute_type(a, :t)"} {
		_, err := NewScope(nil, values).Condition(src)
		require.Error(t, err, "without samples %s is judged on its values", src)
		_, err = NewScope(nil, values).Samples(":lo", ":hi", ":t").Condition(src)
		assert.NoError(t, err, src)
	}
	// One sample bound is enough: its value says nothing of the order.
	_, err := NewScope(nil, values).Samples(":hi").Condition("a BETWEEN :lo AND :hi")
	assert.NoError(t, err)
}

func TestSamplesKeepTypeChecks(t *testing.T) {
	values := map[string]attr.Value{":s": str("x"), ":n": num("1"), ":l": attr.ListOf()}
	s := NewScope(nil, values).Samples(":s", ":n", ":l")
	_, err := s.Condition("a BETWEEN :s AND :n")
	requireExprError(t, err, "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {S:x}, upper bound operand: AttributeValue: {N:1}")
	_, err = s.Update("SET a = a + :s")
	requireExprError(t, err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S")
	_, err = s.Condition("attribute_type(a, :n)")
	requireExprError(t, err, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N")
	_, err = s.Update("ADD a :l")
	requireExprError(t, err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST")
}

func TestUnused(t *testing.T) {
	s := NewScope(map[string]string{"#a": "a", "#z": "z", "#b": "b"}, map[string]attr.Value{":v": num("1"), ":w": num("2")})
	_, err := s.Update("SET #a = :w")
	require.NoError(t, err)
	names, values := s.Unused()
	assert.Equal(t, []string{"#b", "#z"}, names)
	assert.Equal(t, []string{":v"}, values)
	names, values = NewScope(nil, nil).Unused()
	assert.Empty(t, names)
	assert.Empty(t, values)
}

func TestErrorSubject(t *testing.T) {
	for _, c := range []struct{ src, subject string }{
		{"SET Status = :v", "Status"},
		{"SET #nope = :v", "#nope"},
		{"SET a = :nope", ":nope"},
		{"SET a = :v +", ""},
	} {
		_, err := NewScope(nil, map[string]attr.Value{":v": num("1")}).Update(c.src)
		var e *Error
		require.True(t, errors.As(err, &e), c.src)
		assert.Equal(t, c.subject, e.Subject, c.src)
	}
}

func TestUpdateReads(t *testing.T) {
	u, err := NewScope(map[string]string{"#v": "version"}, map[string]attr.Value{":one": num("1"), ":l": attr.ListOf()}).
		Update("SET a = b + :one, c = if_not_exists(d.e, :one), f = list_append(:l, g[1]), #v = #v - :one, h = :one REMOVE x ADD y :one")
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "d", "g", "version"}, u.Reads())
	u, err = NewScope(nil, map[string]attr.Value{":one": num("1")}).Update("SET a = :one REMOVE b")
	require.NoError(t, err)
	assert.Empty(t, u.Reads())
}
