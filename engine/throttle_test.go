package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/throughput"
)

// modelled returns an engine with the throughput model at scale 0.01 (a
// partition takes 10 write and 30 read units a second) on a manual clock
// shared by the engine and the model.
func modelled(t testing.TB, opts Options) (*Engine, *throughput.ManualClock) {
	t.Helper()
	clk := throughput.NewManualClock(time.Date(2026, 12, 1, 3, 7, 0, 0, time.UTC))
	m, err := throughput.New(throughput.Config{Scale: 0.01, Now: clk.Now})
	require.NoError(t, err)
	opts.Throughput, opts.Now = m, clk.Now
	return New(opts), clk
}

const tabARN = "arn:aws:dynamodb:us-east-1:000000000000:table/Tab"

// elsewhere is a partition key whose hash falls in another eighth of the
// key space than k's, hence on another partition of a table with 8.
func elsewhere(k string) string {
	top := func(k string) uint64 { return hashParts(appendPart(nil, attr.Str(k))) >> 61 }
	for i := 0; ; i++ {
		if c := fmt.Sprint("cold", i); top(c) != top(k) {
			return c
		}
	}
}

// provisionedTable creates table Tab (pk S, sk N) with units RCU and WCU.
func provisionedTable(t *testing.T, e *Engine, units int64) {
	t.Helper()
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName:             "Tab",
		AttributeDefinitions:  []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		KeySchema:             []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: &units, WriteCapacityUnits: &units},
	})
	require.NoError(t, err)
}

func withGSI(pk string, sk int) []attr.Field {
	return []attr.Field{{Name: "gpk", Value: attr.Str(pk)}, {Name: "gsk", Value: attr.Num(fmt.Sprint(sk))}}
}

func TestThrottledHotKeyOnDemand(t *testing.T) {
	e, clk := modelled(t, Options{})
	newTable(t, e)
	for i := range 10 {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", i)})
		require.NoError(t, err, "write %d", i)
	}
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", 10)})
	te := errType(t, err, ErrThrottling)
	assert.Equal(t, []ThrottlingReason{{Reason: "TableWriteKeyRangeThroughputExceeded", Resource: tabARN}}, te.ThrottlingReasons)
	assert.Contains(t, te.Message, "automatically scaling")
	// Another partition key, elsewhere in the key space, still passes.
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(elsewhere("hot"), 1)})
	require.NoError(t, err)
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("hot", 10)})
	require.NoError(t, err)
	assert.Nil(t, got.Item, "a throttled write is not applied")

	clk.Advance(time.Second)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", 10)})
	require.NoError(t, err)

	s, ok := e.Throughput()
	require.True(t, ok)
	r := s.Table("Tab").Resource("")
	require.NotNil(t, r)
	assert.Equal(t, 12.0, r.Totals.WriteConsumed)
	assert.Equal(t, 1.0, r.Totals.WriteThrottled)
	assert.Equal(t, int64(1), s.Table("Tab").Reasons[throughput.TableWriteKeyRangeThroughputExceeded])
	require.NotEmpty(t, r.TopThrottled)
	assert.Equal(t, "hot", r.TopThrottled[0].Key)
}

func TestThrottledHotKeyProvisioned(t *testing.T) {
	e, _ := modelled(t, Options{})
	provisionedTable(t, e, 4000)
	for i := range 10 {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", i)})
		require.NoError(t, err)
	}
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", 10)})
	te := errType(t, err, ErrProvisionedExceeded)
	assert.Equal(t, []ThrottlingReason{{Reason: "TableWriteKeyRangeThroughputExceeded", Resource: tabARN}}, te.ThrottlingReasons)
}

func TestIndexBackPressure(t *testing.T) {
	e, _ := modelled(t, Options{})
	newTable(t, e)
	// Contracts spread over the table, all moving to one index key: the
	// index partition refuses the base writes.
	var err error
	n := 0
	for ; n < 20 && err == nil; n++ {
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(fmt.Sprint("c", n), 1, withGSI("T1#2026-12-01", n)...)})
	}
	te := errType(t, err, ErrThrottling)
	assert.Equal(t, 11, n, "ten index writes a second pass")
	assert.Equal(t, []ThrottlingReason{{Reason: "IndexWriteKeyRangeThroughputExceeded", Resource: tabARN + "/index/GSI1"}}, te.ThrottlingReasons)
	assert.Contains(t, te.Message, "global secondary indexes")
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item(fmt.Sprint("c", n-1), 1)})
	require.NoError(t, err)
	assert.Nil(t, got.Item, "the base write is refused with its index")
}

func TestThrottledReads(t *testing.T) {
	e, clk := modelled(t, Options{})
	newTable(t, e)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", 1, withGSI("g", 1)...)})
	require.NoError(t, err)
	clk.Advance(time.Second)
	// 30 read units a second: 60 eventually consistent reads of a small
	// item, then a refusal.
	n := 0
	for ; n < 100 && err == nil; n++ {
		_, err = e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("hot", 1)})
	}
	te := errType(t, err, ErrThrottling)
	assert.Equal(t, 61, n)
	assert.Equal(t, "TableReadKeyRangeThroughputExceeded", te.ThrottlingReasons[0].Reason)

	// BatchGetItem: the throttled keys come back unprocessed; all
	// throttled is the error.
	clk.Advance(time.Second)
	keys := []attr.Item{item("hot", 1)}
	for i := 2; i <= 70; i++ {
		keys = append(keys, item("hot", i))
	}
	out, err := e.BatchGetItem(ctx, &BatchGetItemInput{RequestItems: map[string]*KeysAndAttributes{"Tab": {Keys: keys}}})
	require.NoError(t, err)
	assert.Len(t, out.Responses["Tab"], 1)
	require.NotNil(t, out.UnprocessedKeys["Tab"])
	assert.Len(t, out.UnprocessedKeys["Tab"].Keys, 10)
	_, err = e.BatchGetItem(ctx, &BatchGetItemInput{RequestItems: map[string]*KeysAndAttributes{"Tab": {Keys: keys[:5]}}})
	errType(t, err, ErrThrottling)

	// A query of the index is charged to the index's partition.
	for n = 0; n < 100 && err == nil || n == 0; n++ {
		_, err = e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "GSI1", KeyConditionExpression: "gpk = :g",
			ExpressionAttributeValues: vals(":g", attr.Str("g"))})
	}
	te = errType(t, err, ErrThrottling)
	assert.Equal(t, []ThrottlingReason{{Reason: "IndexReadKeyRangeThroughputExceeded", Resource: tabARN + "/index/GSI1"}}, te.ThrottlingReasons)

	// TransactGetItems: cancelled with the throttled action's code.
	_, err = e.TransactGetItems(ctx, &TransactGetItemsInput{TransactItems: []TransactGetItem{
		txGet("Tab", item(elsewhere("hot"), 1)), txGet("Tab", item("hot", 1))}})
	te = errType(t, err, ErrTransactionCanceled)
	require.Len(t, te.CancellationReasons, 2)
	assert.Equal(t, "None", te.CancellationReasons[0].Code)
	assert.Equal(t, "ThrottlingError", te.CancellationReasons[1].Code)
}

func TestThrottledTransactionAndBatch(t *testing.T) {
	e, clk := modelled(t, Options{})
	newTable(t, e)
	for i := range 10 {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", i)})
		require.NoError(t, err)
	}
	_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{TableName: "Tab", Item: item(elsewhere("hot"), 1)}},
		{Put: &TransactPut{TableName: "Tab", Item: item("hot", 10)}},
	}})
	te := errType(t, err, ErrTransactionCanceled)
	assert.Equal(t, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ThrottlingError]", te.Message)
	require.Len(t, te.CancellationReasons, 2)
	assert.Contains(t, te.CancellationReasons[1].Message, "Throughput exceeds")
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item(elsewhere("hot"), 1)})
	require.NoError(t, err)
	assert.Nil(t, got.Item, "nothing of a cancelled transaction is applied")

	clk.Advance(time.Second)
	var reqs []WriteRequest
	for i := range 25 {
		reqs = append(reqs, WriteRequest{PutRequest: &struct{ Item attr.Item }{item("hot", 100+i)}})
	}
	out, err := e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{"Tab": reqs}})
	require.NoError(t, err)
	assert.Len(t, out.UnprocessedItems["Tab"], 15, "ten writes a second on one partition")
	_, err = e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{"Tab": out.UnprocessedItems["Tab"]}})
	te = errType(t, err, ErrThrottling)
	assert.Equal(t, "TableWriteKeyRangeThroughputExceeded", te.ThrottlingReasons[0].Reason)
}

func TestProvisionedTransactionCode(t *testing.T) {
	e, clk := modelled(t, Options{})
	provisionedTable(t, e, 100)
	// 100 WCU at 1/100 is one unit a second, one second banked at first:
	// a transactional put costs two.
	_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{TableName: "Tab", Item: item("a", 1)}}}})
	te := errType(t, err, ErrTransactionCanceled)
	clk.Advance(time.Second)
	_, err = e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{TableName: "Tab", Item: item("a", 1)}}}})
	require.NoError(t, err)
	_, err = e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{TableName: "Tab", Item: item("a", 2)}}}})
	te = errType(t, err, ErrTransactionCanceled)
	assert.Equal(t, "ProvisionedThroughputExceeded", te.CancellationReasons[0].Code)
	assert.Contains(t, te.CancellationReasons[0].Message, "provisioned throughput for the table was exceeded")
}

func TestWarmThroughputFromModel(t *testing.T) {
	e, _ := modelled(t, Options{WarmRead: 6000, WarmWrite: 2000})
	newTable(t, e)
	d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, int64(6000), d.Table.WarmThroughput.ReadUnitsPerSecond)
	assert.Equal(t, int64(2000), d.Table.WarmThroughput.WriteUnitsPerSecond)
	// Pre-warming raises it, in the model too: at 1/100, 100 writes a
	// second on distinct keys now pass where 20 did.
	_, err = e.UpdateTable(ctx, &UpdateTableInput{TableName: "Tab", WarmThroughput: &WarmThroughput{WriteUnitsPerSecond: ptr(int64(10000))}})
	require.NoError(t, err)
	d, err = e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, int64(10000), d.Table.WarmThroughput.WriteUnitsPerSecond)
	assert.Equal(t, int64(2000), d.Table.GlobalSecondaryIndexes[0].WarmThroughput.WriteUnitsPerSecond)
	s, _ := e.Throughput()
	assert.InDelta(t, 100, s.Table("Tab").Resource("").WriteRate, 1e-9)
	assert.InDelta(t, 20, s.Table("Tab").Resource("GSI1").WriteRate, 1e-9)

	// Dropped with its table.
	_, err = e.DeleteTable(ctx, &DeleteTableInput{TableName: "Tab"})
	require.NoError(t, err)
	s, _ = e.Throughput()
	assert.Nil(t, s.Table("Tab"))
}

// The 00h07 shape in miniature: a batch moves contracts' next action
// date, moving each contract's GSI1 entry from an old-date key to a
// new-date key. With one shard every move lands on two index partitions;
// with 16 shards the moves spread over many.
func TestShardsSpreadIndexMoves(t *testing.T) {
	const contracts, perSecond, seconds = 600, 60, 10
	run := func(shards int) (fraction float64) {
		e, clk := modelled(t, Options{})
		_, err := e.CreateTable(ctx, &CreateTableInput{
			TableName:            "Tab",
			AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
			KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
			BillingMode:          "PAY_PER_REQUEST",
			WarmThroughput:       &WarmThroughput{WriteUnitsPerSecond: ptr(int64(16000))},
		})
		require.NoError(t, err)
		key := func(date string, c int) attr.Value { return attr.Str(fmt.Sprintf("T1#%s#%d", date, c%shards)) }
		for c := range contracts {
			// Loaded before the index exists: the backfill is not charged.
			_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(fmt.Sprint("contract#", c), 1,
				attr.Field{Name: "gpk", Value: key("2026-12-01", c)}, attr.Field{Name: "gsk", Value: attr.Num(fmt.Sprint(c))})})
			require.NoError(t, err)
			if c%10 == 9 {
				clk.Advance(time.Second)
			}
		}
		_, err = e.UpdateTable(ctx, &UpdateTableInput{TableName: "Tab",
			AttributeDefinitions: []AttributeDefinition{{AttributeName: "gpk", AttributeType: "S"}, {AttributeName: "gsk", AttributeType: "N"}},
			GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &GlobalSecondaryIndex{IndexName: "GSI1",
				KeySchema:  []KeySchemaElement{{AttributeName: "gpk", KeyType: "HASH"}, {AttributeName: "gsk", KeyType: "RANGE"}},
				Projection: &Projection{ProjectionType: "KEYS_ONLY"},
				// Pre-warmed like the table, as a batch like this one calls
				// for: each then has 20 partitions and takes 160 writes a
				// second (at 1/100), so that what limits the moves is where
				// their index keys land.
				WarmThroughput: &WarmThroughput{WriteUnitsPerSecond: ptr(int64(16000))}}}}})
		require.NoError(t, err)
		clk.Advance(time.Minute)
		throttled := 0
		for s := range seconds {
			for i := range perSecond {
				c := s*perSecond + i
				_, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item(fmt.Sprint("contract#", c), 1),
					UpdateExpression: "SET gpk = :d", ExpressionAttributeValues: vals(":d", key("2026-12-02", c))})
				if err != nil {
					te := errType(t, err, ErrThrottling)
					require.Equal(t, "IndexWriteKeyRangeThroughputExceeded", te.ThrottlingReasons[0].Reason)
					throttled++
				}
			}
			clk.Advance(time.Second)
		}
		return float64(throttled) / (perSecond * seconds)
	}
	one, sixteen := run(1), run(16)
	t.Logf("throttled fraction of %d moves at %d/s (x100 on AWS): 1 shard %.2f, 16 shards %.2f", perSecond*seconds, perSecond, one, sixteen)
	assert.Greater(t, one, 0.5)
	assert.Less(t, sixteen, one/2)
}

func txGet(table string, key attr.Item) TransactGetItem {
	var g TransactGetItem
	g.Get = &struct {
		TableName                string
		Key                      attr.Item
		ProjectionExpression     string
		ExpressionAttributeNames map[string]string
	}{TableName: table, Key: key}
	return g
}

func TestLocalIndexReadsAreTheTables(t *testing.T) {
	e, _ := modelled(t, Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName: "Tab",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "at", AttributeType: "S"}},
		KeySchema:   []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode: "PAY_PER_REQUEST",
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByAt",
			KeySchema:  []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "at", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "ALL"}}},
	})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("p", 1, attr.Field{Name: "at", Value: attr.Str("x")})})
	require.NoError(t, err)
	n := 0
	for ; n < 100 && err == nil; n++ {
		_, err = e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "ByAt", KeyConditionExpression: "pk = :p",
			ExpressionAttributeValues: vals(":p", attr.Str("p"))})
	}
	te := errType(t, err, ErrThrottling)
	assert.Equal(t, 61, n, "half a unit a query, 30 units a second")
	assert.Equal(t, []ThrottlingReason{{Reason: "TableReadKeyRangeThroughputExceeded", Resource: tabARN}}, te.ThrottlingReasons)
}

func TestFailedConditionsAndMaxOnDemand(t *testing.T) {
	e, clk := modelled(t, Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName:            "Tab",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode:          "PAY_PER_REQUEST",
		OnDemandThroughput:   &OnDemandThroughput{MaxWriteRequestUnits: ptr(int64(500))},
	})
	require.NoError(t, err)
	// 500 WRU at 1/100: five units a second for the whole table, wherever
	// the keys land.
	n := 0
	for ; n < 20 && err == nil; n++ {
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(fmt.Sprint("k", n), 1)})
	}
	te := errType(t, err, ErrThrottling)
	assert.Equal(t, 6, n)
	assert.Equal(t, []ThrottlingReason{{Reason: "TableWriteMaxOnDemandThroughputExceeded", Resource: tabARN}}, te.ThrottlingReasons)
	assert.Contains(t, te.Message, "maximum OnDemandThroughput")

	// A failed conditional write consumes units too: it is throttled
	// first when there are none left.
	clk.Advance(time.Second)
	for range 5 {
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k0", 1), ConditionExpression: "attribute_not_exists(pk)"})
		errType(t, err, ErrConditionalCheckFailed)
	}
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k0", 1), ConditionExpression: "attribute_not_exists(pk)"})
	errType(t, err, ErrThrottling)
}

// keysPerEighth returns n partition keys in each eighth of the key space
// (each partition of a table with 8).
func keysPerEighth(n int) []string {
	var out []string
	count := [8]int{}
	for i := 0; len(out) < 8*n; i++ {
		k := fmt.Sprint("k", i)
		top := hashParts(appendPart(nil, attr.Str(k))) >> 61
		if count[top] < n {
			count[top]++
			out = append(out, k)
		}
	}
	return out
}

func TestWarmThroughputAdapts(t *testing.T) {
	e, clk := modelled(t, Options{})
	newTable(t, e)
	// 24 writes in one second, 3 per partition: 2,400 WRU on AWS.
	for _, k := range keysPerEighth(3) {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(k, 1)})
		require.NoError(t, err)
	}
	clk.Advance(29 * time.Minute)
	d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, int64(4000), d.Table.WarmThroughput.WriteUnitsPerSecond, "not adapted within the window")
	clk.Advance(2 * time.Minute)
	d, err = e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, int64(4800), d.Table.WarmThroughput.WriteUnitsPerSecond, "twice the previous peak")
}
