package attr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSDKRoundTrip(t *testing.T) {
	it, err := DecodeItem([]byte(sampleItem + ``))
	require.NoError(t, err)
	it = it.With("ns", NumSet("1", "2.5")).
		With("bs", BinSet("\x00", "\xff")).
		With("e", ListOf()).
		With("em", MapOf(nil)).
		With("deep", MapOf(Item{{"l", ListOf(MapOf(Item{{"x", Bool(false)}}))}}))

	m := ToSDKItem(it)
	require.Len(t, m, len(it))
	assert.Equal(t, &types.AttributeValueMemberS{Value: "T#t042"}, m["PK"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "12.5"}, m["n"])
	assert.Equal(t, &types.AttributeValueMemberB{Value: []byte("hi")}, m["b"])
	assert.Equal(t, &types.AttributeValueMemberBOOL{Value: true}, m["f"])
	assert.Equal(t, &types.AttributeValueMemberNULL{Value: true}, m["z"])
	assert.Equal(t, &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, m["ss"])
	assert.Equal(t, &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}}, m["ns"])
	assert.Equal(t, &types.AttributeValueMemberBS{Value: [][]byte{{0}, {0xff}}}, m["bs"])
	assert.Equal(t, &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1"}}}, m["l"])
	assert.Equal(t, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{Value: "x"}}}, m["m"])
	assert.Equal(t, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, m["e"])
	assert.Equal(t, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, m["em"])

	back, err := FromSDKItem(m)
	require.NoError(t, err)
	assert.Equal(t, it, back)
	assert.True(t, EqualItems(it, back))

	v, err := FromSDK(ToSDK(NumSet("3")))
	require.NoError(t, err)
	assert.Equal(t, NumSet("3"), v)
	assert.Nil(t, ToSDK(Value{}))
	assert.NotNil(t, ToSDKItem(nil))
	empty, err := FromSDKItem(nil)
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func TestSDKDoesNotAlias(t *testing.T) {
	raw := []byte("ab")
	v, err := FromSDK(&types.AttributeValueMemberB{Value: raw})
	require.NoError(t, err)
	raw[0] = 'X'
	assert.Equal(t, "ab", v.Str)
	ss := []string{"a"}
	v, err = FromSDK(&types.AttributeValueMemberSS{Value: ss})
	require.NoError(t, err)
	ss[0] = "X"
	assert.Equal(t, []string{"a"}, v.Set)
	out := ToSDK(v).(*types.AttributeValueMemberSS)
	out.Value[0] = "Y"
	assert.Equal(t, []string{"a"}, v.Set)
}

func TestFromSDKErrors(t *testing.T) {
	_, err := FromSDK(nil)
	assert.EqualError(t, err, "nil attribute value")
	_, err = FromSDK(&types.UnknownUnionMember{Tag: "X"})
	assert.EqualError(t, err, `unknown attribute value type "X"`)
	_, err = FromSDKItem(map[string]types.AttributeValue{
		"a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"b": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "ok"}, nil}},
		}},
	})
	assert.EqualError(t, err, "a: b: [1]: nil attribute value")

	var deep types.AttributeValue = &types.AttributeValueMemberS{Value: "x"}
	for range MaxDepth {
		deep = &types.AttributeValueMemberL{Value: []types.AttributeValue{deep}}
	}
	_, err = FromSDK(deep)
	assert.NoError(t, err, "32 levels are allowed")
	_, err = FromSDK(&types.AttributeValueMemberL{Value: []types.AttributeValue{deep}})
	assert.ErrorContains(t, err, "nesting exceeds 32 levels")
}
