package expr

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScopeSharesPlaceholders(t *testing.T) {
	names := map[string]string{"#s": "status", "#p": "pk", "#d": "data"}
	values := map[string]attr.Value{":v": str("x"), ":w": str("y")}
	s := NewScope(names, values)
	_, err := s.Condition("attribute_exists(#p) AND #s = :v")
	require.NoError(t, err)
	requireExprError(t, s.Check(), "Value provided in ExpressionAttributeNames unused in expressions: keys: {#d}")
	_, err = s.Projection("#d, #s")
	require.NoError(t, err)
	requireExprError(t, s.Check(), "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}")
	_, err = s.Update("SET #d = :w")
	require.NoError(t, err)
	assert.NoError(t, s.Check())
}

func TestScopeUnusedListsAllKeys(t *testing.T) {
	s := NewScope(nil, map[string]attr.Value{":b": str("x"), ":a": str("y"), ":c": str("z")})
	_, err := s.Condition("a = :c")
	require.NoError(t, err)
	requireExprError(t, s.Check(), "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b}")
}

func TestScopeWithoutPlaceholders(t *testing.T) {
	s := NewScope(nil, nil)
	_, err := s.Condition("attribute_not_exists(pk)")
	require.NoError(t, err)
	assert.NoError(t, s.Check())
}

func TestKindNames(t *testing.T) {
	assert.Equal(t, "ConditionExpression", ConditionKind.String())
	assert.Equal(t, "KeyConditionExpression", KeyConditionKind.String())
	assert.Equal(t, "ProjectionExpression", ProjectionKind.String())
}
