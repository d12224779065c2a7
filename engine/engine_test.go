package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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

func vals(kv ...any) map[string]attr.Value {
	m := map[string]attr.Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(attr.Value)
	}
	return m
}

func errType(t *testing.T, err error, typ string) *Error {
	t.Helper()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, typ, e.Type, e.Message)
	return e
}

func TestUpdateItemReturnValues(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("a", 1, attr.Field{Name: "n", Value: attr.Num("1")}, attr.Field{Name: "m", Value: attr.MapOf(attr.Item{{Name: "x", Value: attr.Str("old")}})})})
	require.NoError(t, err)
	up := func(rv string) attr.Item {
		out, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("a", 1), UpdateExpression: "SET n = n + :one, m.x = :v",
			ExpressionAttributeValues: vals(":one", attr.Num("1"), ":v", attr.Str("new")), ReturnValues: rv})
		require.NoError(t, err)
		return out.Attributes
	}
	old := up("UPDATED_OLD")
	assert.Equal(t, attr.Item{{Name: "m", Value: attr.MapOf(attr.Item{{Name: "x", Value: attr.Str("old")}})}, {Name: "n", Value: attr.Num("1")}}, old)
	nw := up("UPDATED_NEW")
	n, _ := nw.Get("n")
	assert.Equal(t, "3", n.Str)
	all := up("ALL_NEW")
	assert.Len(t, all, 4)
	assert.Nil(t, up("NONE"))

	// Upsert creates the item from its key.
	out, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("b", 2), UpdateExpression: "SET c = :v", ExpressionAttributeValues: vals(":v", attr.Str("x")), ReturnValues: "ALL_NEW"})
	require.NoError(t, err)
	assert.Len(t, out.Attributes, 3)

	// Key attributes cannot be updated.
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("b", 2), UpdateExpression: "SET pk = :v", ExpressionAttributeValues: vals(":v", attr.Str("x"))})
	errType(t, err, ErrValidation)
	// Unused values are rejected.
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("b", 2), UpdateExpression: "SET c = :v", ExpressionAttributeValues: vals(":v", attr.Str("x"), ":w", attr.Str("y"))})
	errType(t, err, ErrValidation)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("a", 1), ReturnValues: "ALL_NEW"})
	errType(t, err, ErrValidation)
}

func TestConditionsAndDelete(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("a", 1, attr.Field{Name: "v", Value: attr.Num("5")})})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("a", 1), ConditionExpression: "attribute_not_exists(pk)", ReturnConsumedCapacity: "TOTAL"})
	ce := errType(t, err, ErrConditionalCheckFailed)
	assert.Nil(t, ce.Item)
	_, err = e.DeleteItem(ctx, &DeleteItemInput{TableName: "Tab", Key: item("a", 1), ConditionExpression: "v > :x", ExpressionAttributeValues: vals(":x", attr.Num("9")), ReturnValuesOnConditionCheckFailure: "ALL_OLD"})
	ce = errType(t, err, ErrConditionalCheckFailed)
	assert.Len(t, ce.Item, 3)
	del, err := e.DeleteItem(ctx, &DeleteItemInput{TableName: "Tab", Key: item("a", 1), ConditionExpression: "v < :x", ExpressionAttributeValues: vals(":x", attr.Num("9")), ReturnValues: "ALL_OLD", ReturnConsumedCapacity: "TOTAL"})
	require.NoError(t, err)
	assert.Len(t, del.Attributes, 3)
	assert.Equal(t, 1.0, del.ConsumedCapacity.Units())
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("a", 1)})
	require.NoError(t, err)
	assert.Nil(t, got.Item)
}

func TestValidation(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for name, it := range map[string]attr.Item{
		"missing sort key":   {{Name: "pk", Value: attr.Str("a")}},
		"wrong key type":     item("a", 1).With("pk", attr.Num("1")),
		"empty key":          item("", 1),
		"empty set":          item("a", 1).With("s", attr.StrSet()),
		"duplicate set":      item("a", 1).With("s", attr.NumSet("1", "1.0")),
		"bad number":         item("a", 1).With("n", attr.Num("1e999")),
		"39 digits":          item("a", 1).With("n", attr.Num("123456789012345678901234567890123456789")),
		"index key type":     item("a", 1).With("gpk", attr.Num("1")),
		"empty index key":    item("a", 1).With("gpk", attr.Str("")),
		"item over 400 KB":   item("a", 1).With("big", attr.Str(string(make([]byte, 400*1024)))),
		"hash key over 2 KB": item(string(make([]byte, 2049)), 1),
	} {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
		var ee *Error
		if assert.ErrorAs(t, err, &ee, name) {
			assert.Equal(t, ErrValidation, ee.Type, name+": "+ee.Message)
		}
	}
	_, err := e.GetItem(ctx, &GetItemInput{TableName: "Nope", Key: item("a", 1)})
	errType(t, err, ErrResourceNotFound)
	_, err = e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: attr.Item{{Name: "pk", Value: attr.Str("a")}}})
	errType(t, err, ErrValidation)
	_, err = e.CreateTable(ctx, &CreateTableInput{TableName: "Tab", AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}, BillingMode: "PAY_PER_REQUEST"})
	errType(t, err, ErrResourceInUse)
	_, err = e.CreateTable(ctx, &CreateTableInput{TableName: "Other", AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}})
	errType(t, err, ErrValidation)
}

func TestNumbersNormalisedAndOrdered(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for _, n := range []string{"10", "-2.5", "0", "1e2", "0.001", "-100", "3"} {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Num(n)}}})
		require.NoError(t, err)
	}
	// 1e2 and 100 are the same key.
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Num("100.0")}}})
	require.NoError(t, err)
	q, err := e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p"))})
	require.NoError(t, err)
	var got []string
	for _, it := range q.Items {
		v, _ := it.Get("sk")
		got = append(got, v.Str)
	}
	assert.Equal(t, []string{"-100", "-2.5", "0", "0.001", "3", "10", "100"}, got)
	q, err = e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p")), ScanIndexForward: ptr(false), Limit: ptr(2)})
	require.NoError(t, err)
	require.Len(t, q.Items, 2)
	v, _ := q.Items[0].Get("sk")
	assert.Equal(t, "100", v.Str)
	require.NotNil(t, q.LastEvaluatedKey)
	q, err = e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p")), ScanIndexForward: ptr(false), ExclusiveStartKey: q.LastEvaluatedKey})
	require.NoError(t, err)
	assert.Len(t, q.Items, 5)
	assert.Nil(t, q.LastEvaluatedKey)
}

func TestStringOrderIsByteOrder(t *testing.T) {
	e := New(Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Str", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}})
	require.NoError(t, err)
	for _, s := range []string{"b", "a\x00b", "a", "ab", "é", "Z", "a\x00"} {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Str", Item: attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Str(s)}}})
		require.NoError(t, err)
	}
	q, err := e.Query(ctx, &QueryInput{TableName: "Str", KeyConditionExpression: "pk = :p AND begins_with(sk, :a)", ExpressionAttributeValues: vals(":p", attr.Str("p"), ":a", attr.Str("a"))})
	require.NoError(t, err)
	var got []string
	for _, it := range q.Items {
		v, _ := it.Get("sk")
		got = append(got, v.Str)
	}
	assert.Equal(t, []string{"a", "a\x00", "a\x00b", "ab"}, got)
}

func TestScanSegmentsCoverTheTable(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for i := 0; i < 200; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(fmt.Sprint("p", i), i)})
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	for seg := 0; seg < 3; seg++ {
		var start attr.Item
		for {
			out, err := e.Scan(ctx, &ScanInput{TableName: "Tab", Segment: ptr(seg), TotalSegments: ptr(3), Limit: ptr(17), ExclusiveStartKey: start})
			require.NoError(t, err)
			for _, it := range out.Items {
				v, _ := it.Get("pk")
				assert.False(t, seen[v.Str])
				seen[v.Str] = true
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	assert.Len(t, seen, 200)
	_, err := e.Scan(ctx, &ScanInput{TableName: "Tab", Segment: ptr(3), TotalSegments: ptr(3)})
	errType(t, err, ErrValidation)
	out, err := e.Scan(ctx, &ScanInput{TableName: "Tab", Select: "COUNT", FilterExpression: "sk < :n", ExpressionAttributeValues: vals(":n", attr.Num("10"))})
	require.NoError(t, err)
	assert.Equal(t, 10, out.Count)
	assert.Equal(t, 200, out.ScannedCount)
	assert.Nil(t, out.Items)
}

func TestUpdateTableBackfillsAndSparse(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for i := 0; i < 20; i++ {
		it := item("a", i)
		if i%2 == 0 {
			it = it.With("kind", attr.Str("even"))
		}
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
		require.NoError(t, err)
	}
	_, err := e.UpdateTable(ctx, &UpdateTableInput{TableName: "Tab",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "kind", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &GlobalSecondaryIndex{IndexName: "ByKind",
			KeySchema: []KeySchemaElement{{AttributeName: "kind", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}, Projection: &Projection{ProjectionType: "KEYS_ONLY"}}}}})
	require.NoError(t, err)
	q, err := e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "ByKind", KeyConditionExpression: "kind = :k", ExpressionAttributeValues: vals(":k", attr.Str("even"))})
	require.NoError(t, err)
	assert.Equal(t, 10, q.Count)
	d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	require.Len(t, d.Table.GlobalSecondaryIndexes, 2)
	assert.Equal(t, int64(10), d.Table.GlobalSecondaryIndexes[1].ItemCount)
	_, err = e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "ByKind", Select: "ALL_ATTRIBUTES", KeyConditionExpression: "kind = :k", ExpressionAttributeValues: vals(":k", attr.Str("even"))})
	errType(t, err, ErrValidation)
	_, err = e.UpdateTable(ctx, &UpdateTableInput{TableName: "Tab", GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &struct{ IndexName string }{"ByKind"}}}})
	require.NoError(t, err)
	_, err = e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "ByKind", KeyConditionExpression: "kind = :k", ExpressionAttributeValues: vals(":k", attr.Str("even"))})
	errType(t, err, ErrValidation)
}

func TestBatches(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	var reqs []WriteRequest
	for i := 0; i < 25; i++ {
		reqs = append(reqs, WriteRequest{PutRequest: &struct{ Item attr.Item }{item("b", i)}})
	}
	out, err := e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{"Tab": reqs}, ReturnConsumedCapacity: "TOTAL"})
	require.NoError(t, err)
	assert.Empty(t, out.UnprocessedItems)
	require.Len(t, out.ConsumedCapacity, 1)
	assert.Equal(t, 25.0, out.ConsumedCapacity[0].Units())
	_, err = e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{"Tab": append(reqs, reqs[0])}})
	errType(t, err, ErrValidation)
	_, err = e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{"Tab": {reqs[0], reqs[0]}}})
	errType(t, err, ErrValidation)

	var keys []attr.Item
	for i := 0; i < 30; i++ {
		keys = append(keys, item("b", i))
	}
	got, err := e.BatchGetItem(ctx, &BatchGetItemInput{RequestItems: map[string]*KeysAndAttributes{"Tab": {Keys: keys, ProjectionExpression: "sk"}}, ReturnConsumedCapacity: "TOTAL"})
	require.NoError(t, err)
	assert.Len(t, got.Responses["Tab"], 25)
	assert.Len(t, got.Responses["Tab"][0], 1)
	assert.Equal(t, 15.0, got.ConsumedCapacity[0].Units())
	_, err = e.BatchGetItem(ctx, &BatchGetItemInput{RequestItems: map[string]*KeysAndAttributes{"Tab": {Keys: []attr.Item{keys[0], keys[0]}}}})
	errType(t, err, ErrValidation)
}

func TestTransactions(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	put := func(pk string, sk int) TransactWriteItem {
		return TransactWriteItem{Put: &TransactPut{TableName: "Tab", Item: item(pk, sk)}}
	}
	_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{put("t", 1), put("t", 1)}})
	errType(t, err, ErrValidation)
	in := &TransactWriteItemsInput{ClientRequestToken: "tok-1", ReturnConsumedCapacity: "TOTAL", TransactItems: []TransactWriteItem{put("t", 1), put("t", 2),
		{Update: &TransactUpdate{TableName: "Tab", Key: item("t", 3), UpdateExpression: "ADD c :one", ExpressionAttributeValues: vals(":one", attr.Num("1"))}}}}
	out, err := e.TransactWriteItems(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, 6.0, out.ConsumedCapacity[0].Units())
	// The same token and request: not applied again (c stays 1).
	_, err = e.TransactWriteItems(ctx, in)
	require.NoError(t, err)
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("t", 3)})
	require.NoError(t, err)
	c, _ := got.Item.Get("c")
	assert.Equal(t, "1", c.Str)
	// The same token, another request.
	_, err = e.TransactWriteItems(ctx, &TransactWriteItemsInput{ClientRequestToken: "tok-1", TransactItems: []TransactWriteItem{put("t", 9)}})
	errType(t, err, ErrIdempotentMismatch)

	_, err = e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
		put("t", 4),
		{Delete: &TransactDelete{TableName: "Tab", Key: item("t", 1), ConditionExpression: "attribute_not_exists(pk)"}},
	}})
	te := errType(t, err, ErrTransactionCanceled)
	require.Len(t, te.CancellationReasons, 2)
	assert.Equal(t, "None", te.CancellationReasons[0].Code)
	assert.Equal(t, "ConditionalCheckFailed", te.CancellationReasons[1].Code)
	got, err = e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("t", 4)})
	require.NoError(t, err)
	assert.Nil(t, got.Item)

	tg, err := e.TransactGetItems(ctx, &TransactGetItemsInput{ReturnConsumedCapacity: "TOTAL", TransactItems: []TransactGetItem{
		{Get: &struct {
			TableName                string
			Key                      attr.Item
			ProjectionExpression     string
			ExpressionAttributeNames map[string]string
		}{TableName: "Tab", Key: item("t", 1)}},
		{Get: &struct {
			TableName                string
			Key                      attr.Item
			ProjectionExpression     string
			ExpressionAttributeNames map[string]string
		}{TableName: "Tab", Key: item("t", 7)}},
	}})
	require.NoError(t, err)
	require.Len(t, tg.Responses, 2)
	assert.NotNil(t, tg.Responses[0].Item)
	assert.Nil(t, tg.Responses[1].Item)
	assert.Equal(t, 4.0, tg.ConsumedCapacity[0].Units())
}

func TestTTL(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	e := New(Options{Now: func() time.Time { return now }})
	newTable(t, e)
	d, err := e.DescribeTimeToLive(ctx, &DescribeTimeToLiveInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, "DISABLED", d.TimeToLiveDescription.TimeToLiveStatus)
	_, err = e.UpdateTimeToLive(ctx, &UpdateTimeToLiveInput{TableName: "Tab", TimeToLiveSpecification: &TimeToLiveSpecification{AttributeName: "exp", Enabled: ptr(true)}})
	require.NoError(t, err)
	_, err = e.UpdateTimeToLive(ctx, &UpdateTimeToLiveInput{TableName: "Tab", TimeToLiveSpecification: &TimeToLiveSpecification{AttributeName: "exp", Enabled: ptr(true)}})
	errType(t, err, ErrValidation)
	for i, exp := range []int64{now.Unix() - 10, now.Unix() + 10, 1000} {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("x", i).With("exp", attr.Num(fmt.Sprint(exp)))})
		require.NoError(t, err)
	}
	// Expired but not yet swept: still readable.
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("x", 0)})
	require.NoError(t, err)
	assert.NotNil(t, got.Item)
	assert.Equal(t, 1, e.SweepExpired(now))
	got, err = e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("x", 0)})
	require.NoError(t, err)
	assert.Nil(t, got.Item)
}

func TestListAndDeleteTables(t *testing.T) {
	e := New(Options{})
	for _, n := range []string{"ccc", "aaa", "bbb"} {
		_, err := e.CreateTable(ctx, &CreateTableInput{TableName: n, BillingMode: "PAY_PER_REQUEST",
			AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}})
		require.NoError(t, err)
	}
	l, err := e.ListTables(ctx, &ListTablesInput{Limit: ptr(2)})
	require.NoError(t, err)
	assert.Equal(t, []string{"aaa", "bbb"}, l.TableNames)
	assert.Equal(t, "bbb", l.LastEvaluatedTableName)
	l, err = e.ListTables(ctx, &ListTablesInput{ExclusiveStartTableName: l.LastEvaluatedTableName})
	require.NoError(t, err)
	assert.Equal(t, []string{"ccc"}, l.TableNames)
	_, err = e.DeleteTable(ctx, &DeleteTableInput{TableName: "aaa"})
	require.NoError(t, err)
	_, err = e.DescribeTable(ctx, &DescribeTableInput{TableName: "aaa"})
	errType(t, err, ErrResourceNotFound)
}

func TestExpressionValuesValidatedAndNormalised(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	out, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("n", 1), UpdateExpression: "SET v = :v",
		ExpressionAttributeValues: vals(":v", attr.Num("01.50")), ReturnValues: "ALL_NEW"})
	require.NoError(t, err)
	v, _ := out.Attributes.Get("v")
	assert.Equal(t, "1.5", v.Str)
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("n", 1), UpdateExpression: "SET v = :v",
		ExpressionAttributeValues: vals(":v", attr.StrSet())})
	ee := errType(t, err, ErrValidation)
	assert.Contains(t, ee.Message, "ExpressionAttributeValues contains invalid value")
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("n", 1), UpdateExpression: "SET sk = :v",
		ExpressionAttributeValues: vals(":v", attr.Num("1"))})
	ee = errType(t, err, ErrValidation)
	assert.Contains(t, ee.Message, "Cannot update attribute sk")
}

func TestNumberSetsNormalised(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("s", 1).With("ns", attr.NumSet("1.50", "002", "1e2")).With("l", attr.ListOf(attr.Num("3.0")))})
	require.NoError(t, err)
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("s", 1)})
	require.NoError(t, err)
	ns, _ := got.Item.Get("ns")
	assert.Equal(t, []string{"1.5", "2", "100"}, ns.Set)
	l, _ := got.Item.Get("l")
	assert.Equal(t, "3", l.List[0].Str)
}

func TestCancelledTransactionTokenCanBeRetried(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	in := &TransactWriteItemsInput{ClientRequestToken: "retry-me", TransactItems: []TransactWriteItem{
		{Put: &TransactPut{TableName: "Tab", Item: item("r", 1), ConditionExpression: "attribute_exists(pk)"}}}}
	_, err := e.TransactWriteItems(ctx, in)
	errType(t, err, ErrTransactionCanceled)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("r", 1)})
	require.NoError(t, err)
	_, err = e.TransactWriteItems(ctx, in)
	require.NoError(t, err, "a cancelled transaction leaves its token free")
}

func TestOversizedKeysInReads(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	huge := strings.Repeat("k", 70000)
	_, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item(huge, 1)})
	errType(t, err, ErrValidation)
	q, err := e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str(huge))})
	if err == nil {
		assert.Equal(t, 0, q.Count)
	}
	_, err = e.Scan(ctx, &ScanInput{TableName: "Tab", ExclusiveStartKey: item(huge, 1)})
	_ = err // refused or empty, never a panic
}
