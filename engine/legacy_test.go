package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestLegacyParameters(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	v := func(x attr.Value) *attr.Value { return &x }
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("l", 1, attr.Field{Name: "n", Value: attr.Num("10")}),
		Expected: map[string]ExpectedAttributeValue{"pk": {Exists: ptr(false)}}})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("l", 1),
		Expected: map[string]ExpectedAttributeValue{"pk": {Exists: ptr(false)}}})
	errType(t, err, ErrConditionalCheckFailed)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("l", 1), ConditionExpression: "attribute_exists(pk)",
		Expected: map[string]ExpectedAttributeValue{"pk": {Exists: ptr(false)}}})
	errType(t, err, ErrValidation)

	out, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("l", 1), ReturnValues: "ALL_NEW",
		Expected:         map[string]ExpectedAttributeValue{"n": {ComparisonOperator: "GE", AttributeValueList: []attr.Value{attr.Num("5")}}},
		AttributeUpdates: map[string]AttributeValueUpdate{"n": {Action: "ADD", Value: v(attr.Num("5"))}, "s": {Value: v(attr.StrSet("a", "b"))}}})
	require.NoError(t, err)
	n, _ := out.Attributes.Get("n")
	assert.Equal(t, "15", n.Str)

	q, err := e.Query(ctx, &QueryInput{TableName: "Tab",
		KeyConditions: map[string]Condition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{attr.Str("l")}}},
		QueryFilter:   map[string]Condition{"s": {ComparisonOperator: "CONTAINS", AttributeValueList: []attr.Value{attr.Str("b")}}}})
	require.NoError(t, err)
	assert.Equal(t, 1, q.Count)
	s, err := e.Scan(ctx, &ScanInput{TableName: "Tab", ScanFilter: map[string]Condition{"n": {ComparisonOperator: "LT", AttributeValueList: []attr.Value{attr.Num("15")}}}})
	require.NoError(t, err)
	assert.Equal(t, 0, s.Count)
	_, err = e.Scan(ctx, &ScanInput{TableName: "Tab", ScanFilter: map[string]Condition{"n": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{attr.Num("15")}}}})
	errType(t, err, ErrValidation)
}

func TestTags(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Tab"
	_, err := e.TagResource(ctx, &TagResourceInput{ResourceArn: arn, Tags: []Tag{{Key: "b", Value: "1"}, {Key: "a", Value: "2"}}})
	require.NoError(t, err)
	_, err = e.UntagResource(ctx, &UntagResourceInput{ResourceArn: arn, TagKeys: []string{"b"}})
	require.NoError(t, err)
	l, err := e.ListTagsOfResource(ctx, &ListTagsOfResourceInput{ResourceArn: arn})
	require.NoError(t, err)
	assert.Equal(t, []Tag{{Key: "a", Value: "2"}}, l.Tags)
	_, err = e.ListTagsOfResource(ctx, &ListTagsOfResourceInput{ResourceArn: "not-an-arn"})
	errType(t, err, ErrValidation)
	_, err = e.ListTagsOfResource(ctx, &ListTagsOfResourceInput{ResourceArn: arn + "x"})
	errType(t, err, ErrAccessDenied)
}
