package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestScanIndexPages(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for i := 0; i < 30; i++ {
		it := item(fmt.Sprint("p", i), i)
		if i%3 != 0 {
			it = it.With("gpk", attr.Str(fmt.Sprint("g", i%4))).With("gsk", attr.Num(fmt.Sprint(i)))
		}
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
		require.NoError(t, err)
	}
	seen := 0
	var start attr.Item
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		out, err := e.Scan(ctx, &ScanInput{TableName: "Tab", IndexName: "GSI1", Limit: ptr(7), ExclusiveStartKey: start})
		require.NoError(t, err)
		seen += out.Count
		if out.LastEvaluatedKey == nil {
			break
		}
		_, ok := out.LastEvaluatedKey.Get("gsk")
		assert.True(t, ok, "an index page's key names the index key")
		start = out.LastEvaluatedKey
	}
	assert.Equal(t, 20, seen, "only items with both index keys")
}

func TestLocalIndexFetchesFromTheTable(t *testing.T) {
	e := New(Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Loc", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}, {AttributeName: "l", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByL", KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "KEYS_ONLY"}}}})
	require.NoError(t, err)
	for i := 0; i < 4; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Loc", Item: item("p", i, attr.Field{Name: "l", Value: attr.Str(fmt.Sprint("l", 3-i))}, attr.Field{Name: "big", Value: attr.Str(strings.Repeat("b", 5000))})})
		require.NoError(t, err)
	}
	q := func(sel, proj string) *QueryOutput {
		out, err := e.Query(ctx, &QueryInput{TableName: "Loc", IndexName: "ByL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p")),
			Select: sel, ProjectionExpression: proj, ConsistentRead: true, ReturnConsumedCapacity: "INDEXES"})
		require.NoError(t, err)
		return out
	}
	keys := q("", "")
	require.Len(t, keys.Items, 4)
	assert.Len(t, keys.Items[0], 3, "keys only")
	v, _ := keys.Items[0].Get("l")
	assert.Equal(t, "l0", v.Str, "in index order")
	all := q("ALL_ATTRIBUTES", "")
	assert.Len(t, all.Items[0], 4, "fetched from the table")
	assert.Greater(t, all.ConsumedCapacity.Units(), keys.ConsumedCapacity.Units(), "fetches are charged")
}

func TestBatchGetStopsAt16MB(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	big := strings.Repeat("x", 399*1024)
	var keys []attr.Item
	for i := 0; i < 45; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("b", i, attr.Field{Name: "big", Value: attr.Str(big)})})
		require.NoError(t, err)
		keys = append(keys, item("b", i))
	}
	out, err := e.BatchGetItem(ctx, &BatchGetItemInput{RequestItems: map[string]*KeysAndAttributes{"Tab": {Keys: keys}}})
	require.NoError(t, err)
	got := len(out.Responses["Tab"])
	require.NotNil(t, out.UnprocessedKeys["Tab"])
	assert.Equal(t, 45, got+len(out.UnprocessedKeys["Tab"].Keys))
	assert.Less(t, got, 45)
	assert.GreaterOrEqual(t, got, 40)
}
