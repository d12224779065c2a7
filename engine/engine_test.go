package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// newTable creates table T (pk S, sk N) with GSI G1 on gpk (S) / gsk (N),
// projecting ALL, on demand.
func newTable(t testing.TB, e *Engine) {
	t.Helper()
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName: "Tab",
		AttributeDefinitions: []AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "gpk", AttributeType: "S"}, {AttributeName: "gsk", AttributeType: "N"},
		},
		KeySchema:   []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode: "PAY_PER_REQUEST",
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{
			IndexName:  "GSI1",
			KeySchema:  []KeySchemaElement{{AttributeName: "gpk", KeyType: "HASH"}, {AttributeName: "gsk", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "ALL"},
		}},
	})
	require.NoError(t, err)
}

func item(pk string, sk int, more ...attr.Field) attr.Item {
	f := append([]attr.Field{{Name: "pk", Value: attr.Str(pk)}, {Name: "sk", Value: attr.Num(fmt.Sprint(sk))}}, more...)
	return attr.Sorted(f)
}

func TestPutGetQuery(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for i := 0; i < 10; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("a", i, attr.Field{Name: "gpk", Value: attr.Str("g")}, attr.Field{Name: "gsk", Value: attr.Num(fmt.Sprint(-i))})})
		require.NoError(t, err)
	}
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("a", 3)})
	require.NoError(t, err)
	v, _ := got.Item.Get("gsk")
	assert.Equal(t, "-3", v.Str)
	q, err := e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
		ExpressionAttributeValues: map[string]attr.Value{":p": attr.Str("a"), ":a": attr.Num("2"), ":b": attr.Num("5")}})
	require.NoError(t, err)
	assert.Equal(t, 4, q.Count)
	q, err = e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "GSI1", KeyConditionExpression: "gpk = :p AND gsk < :a",
		ExpressionAttributeValues: map[string]attr.Value{":p": attr.Str("g"), ":a": attr.Num("-7")}, ReturnConsumedCapacity: "INDEXES"})
	require.NoError(t, err)
	require.Equal(t, 2, q.Count)
	v, _ = q.Items[0].Get("gsk")
	assert.Equal(t, "-9", v.Str)
	b, _ := q.ConsumedCapacity.MarshalJSON()
	t.Log(string(b))
}
