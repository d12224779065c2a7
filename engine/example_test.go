package engine_test

import (
	"context"
	"fmt"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/engine"
)

// The engine runs in process: create a table, write, read back with the
// capacity the read consumed.
func Example() {
	ctx := context.Background()
	e := engine.New(engine.Options{})
	_, err := e.CreateTable(ctx, &engine.CreateTableInput{
		TableName:            "Orders",
		AttributeDefinitions: []engine.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []engine.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		BillingMode:          "PAY_PER_REQUEST",
	})
	if err != nil {
		panic(err)
	}
	_, err = e.PutItem(ctx, &engine.PutItemInput{TableName: "Orders", Item: attr.Item{
		{Name: "pk", Value: attr.Str("order#1")},
		{Name: "total", Value: attr.Num("12.50")},
	}})
	if err != nil {
		panic(err)
	}
	out, err := e.GetItem(ctx, &engine.GetItemInput{TableName: "Orders", Key: attr.Item{{Name: "pk", Value: attr.Str("order#1")}},
		ConsistentRead: true, ReturnConsumedCapacity: "TOTAL"})
	if err != nil {
		panic(err)
	}
	total, _ := out.Item.Get("total")
	fmt.Println(total.Str, out.ConsumedCapacity.Units())
	// Output: 12.5 1
}
