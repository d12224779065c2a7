package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestConsumedCapacityPerIndex checks the engine's ConsumedCapacity
// against the worked examples of DynamoDB's published rules: a 1,126 B
// item costs 2 WCU, its new GSI entry 1 more; in a transaction the table
// charge doubles and the index charge does not; moving the index key
// costs the old and the new entry.
func TestConsumedCapacityPerIndex(t *testing.T) {
	e := New(Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Cap", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "ByG", KeySchema: []KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &Projection{ProjectionType: "KEYS_ONLY"}}}})
	require.NoError(t, err)
	// pk (2+1) + g (1+1) + pad (3+1118) = 1,126 bytes.
	it := func(pk, g string) attr.Item {
		return attr.Item{{Name: "g", Value: attr.Str(g)}, {Name: "pad", Value: attr.Str(strings.Repeat("x", 1118))}, {Name: "pk", Value: attr.Str(pk)}}
	}
	put, err := e.PutItem(ctx, &PutItemInput{TableName: "Cap", Item: it("a", "x"), ReturnConsumedCapacity: "INDEXES"})
	require.NoError(t, err)
	assert.Equal(t, 3.0, put.ConsumedCapacity.Units())
	assert.Equal(t, 2.0, put.ConsumedCapacity.Table.Write)
	assert.Equal(t, 1.0, put.ConsumedCapacity.GSIs["ByG"].Write)

	tx, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{ReturnConsumedCapacity: "INDEXES",
		TransactItems: []TransactWriteItem{{Put: &TransactPut{TableName: "Cap", Item: it("b", "x")}}}})
	require.NoError(t, err)
	require.Len(t, tx.ConsumedCapacity, 1)
	assert.Equal(t, 5.0, tx.ConsumedCapacity[0].Units())
	assert.Equal(t, 1.0, tx.ConsumedCapacity[0].GSIs["ByG"].Write)

	up, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Cap", Key: attr.Item{{Name: "pk", Value: attr.Str("a")}},
		UpdateExpression: "SET g = :g", ExpressionAttributeValues: vals(":g", attr.Str("y")), ReturnConsumedCapacity: "INDEXES"})
	require.NoError(t, err)
	assert.Equal(t, 4.0, up.ConsumedCapacity.Units())
	assert.Equal(t, 2.0, up.ConsumedCapacity.GSIs["ByG"].Write)

	// A write that leaves the index untouched does not mention it.
	up, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Cap", Key: attr.Item{{Name: "pk", Value: attr.Str("a")}},
		UpdateExpression: "SET #p = :p", ExpressionAttributeNames: map[string]string{"#p": "pad"}, ExpressionAttributeValues: vals(":p", attr.Str("short")), ReturnConsumedCapacity: "INDEXES"})
	require.NoError(t, err)
	assert.NotContains(t, up.ConsumedCapacity.GSIs, "ByG")

	// A failed condition is still charged on the table.
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Cap", Item: it("a", "x"), ConditionExpression: "attribute_not_exists(pk)", ReturnConsumedCapacity: "TOTAL"})
	errType(t, err, ErrConditionalCheckFailed)
}

func TestItemCollectionLimit(t *testing.T) {
	e := New(Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Col", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}, {AttributeName: "l", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByL", KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "ALL"}}}})
	require.NoError(t, err)
	tab, _ := e.table("Col")
	tab.collectionLimit = 3000 // stands for 10 GB
	big := func(pk string, sk int) attr.Item {
		return item(pk, sk, attr.Field{Name: "l", Value: attr.Str("x")}, attr.Field{Name: "pad", Value: attr.Str(strings.Repeat("p", 600))})
	}
	out, err := e.PutItem(ctx, &PutItemInput{TableName: "Col", Item: big("a", 1), ReturnItemCollectionMetrics: "SIZE"})
	require.NoError(t, err)
	require.NotNil(t, out.ItemCollectionMetrics)
	assert.Equal(t, []float64{0, 1}, out.ItemCollectionMetrics.SizeEstimateRangeGB)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Col", Item: big("a", 2)})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Col", Item: big("a", 3)})
	errType(t, err, ErrItemCollectionTooLarge)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Col", Item: big("b", 3)})
	require.NoError(t, err, "another partition is another collection")
	_, err = e.DeleteItem(ctx, &DeleteItemInput{TableName: "Col", Key: item("a", 1)})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Col", Item: big("a", 3)})
	require.NoError(t, err, "deleting made room")
}

func TestFailedUpdateChargedOnWhatItWouldHaveWritten(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("f", 1)})
	require.NoError(t, err)
	out, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("f", 1), UpdateExpression: "SET big = :b", ConditionExpression: "attribute_not_exists(pk)",
		ExpressionAttributeValues: vals(":b", attr.Str(strings.Repeat("b", 3000))), ReturnConsumedCapacity: "TOTAL"})
	errType(t, err, ErrConditionalCheckFailed)
	require.NotNil(t, out)
	assert.Equal(t, 3.0, out.ConsumedCapacity.Units(), "the larger of the stored item and the update's result")
}
