package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestAdmissionHook(t *testing.T) {
	var mu sync.Mutex
	var seen [][]Admission
	refuse := false
	e := New(Options{Admit: func(_ context.Context, reqs []Admission) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, reqs)
		if refuse {
			return &Error{Type: ErrThrottling, Message: "Throughput exceeds the current capacity of your table or index.",
				ThrottlingReasons: []ThrottlingReason{{Reason: "TableWriteKeyRangeThroughputExceeded", Resource: "arn:aws:dynamodb:us-east-1:000000000000:table/Tab"}}}
		}
		return nil
	}})
	newTable(t, e)
	g := func(pk string, sk int) attr.Item {
		return item("a", 1, attr.Field{Name: "gpk", Value: attr.Str(pk)}, attr.Field{Name: "gsk", Value: attr.Num("1")})
	}
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: g("x", 1)})
	require.NoError(t, err)
	require.Len(t, seen, 1)
	a := seen[0][0]
	assert.Equal(t, "Tab", a.Table)
	assert.Equal(t, 1.0, a.Write)
	require.Len(t, a.Indexes, 1)
	assert.Equal(t, "GSI1", a.Indexes[0].Name)

	// Moving the index key charges the old and the new partition.
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: g("y", 1)})
	require.NoError(t, err)
	a = seen[1][0]
	require.Len(t, a.Indexes, 2)
	assert.NotEqual(t, a.Indexes[0].Hash, a.Indexes[1].Hash)
	assert.Equal(t, 2.0, a.Indexes[0].Write+a.Indexes[1].Write)

	refuse = true
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: g("z", 1)})
	te := errType(t, err, ErrThrottling)
	assert.Len(t, te.ThrottlingReasons, 1)
	_, err = e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{TableName: "Tab", Item: item("b", 1)}}, {Put: &TransactPut{TableName: "Tab", Item: item("b", 2)}}}})
	errType(t, err, ErrThrottling)
	assert.Len(t, seen[len(seen)-1], 2, "a transaction is admitted as a whole")
	_, err = e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("a", 1)})
	errType(t, err, ErrThrottling)
	refuse = false
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("a", 1)})
	require.NoError(t, err)
	v, _ := got.Item.Get("gpk")
	assert.Equal(t, "y", v.Str, "refused writes are not applied")
}

func TestOnSchema(t *testing.T) {
	var events []string
	e := New(Options{OnSchema: func(d *TableDescription, deleted bool) {
		events = append(events, fmt.Sprintf("%s %s %d %v", d.TableName, d.BillingModeSummary.BillingMode, len(d.GlobalSecondaryIndexes), deleted))
	}})
	newTable(t, e)
	_, err := e.UpdateTable(ctx, &UpdateTableInput{TableName: "Tab", GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &struct{ IndexName string }{"GSI1"}}}})
	require.NoError(t, err)
	_, err = e.DeleteTable(ctx, &DeleteTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Tab PAY_PER_REQUEST 1 false", "Tab PAY_PER_REQUEST 0 false", "Tab PAY_PER_REQUEST 0 true"}, events)
}
