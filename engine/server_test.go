package engine

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startServer serves a fresh engine on a loopback port and returns an SDK
// client for it.
func startServer(t testing.TB) (*dynamodb.Client, *Engine) {
	t.Helper()
	e := New(Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: e.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sdkClient("http://" + ln.Addr().String()), e
}

// sdkClient is the client the tests and benchmarks use: fake static
// credentials, enough idle connections for 32 goroutines.
func sdkClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient:   &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
		// The CRC32 of responses is checked by TestServerRejectsBadRequests;
		// here it would cost CPU the engine shares with the client.
		DisableValidateResponseChecksum: true,
	})
}

func sdkTable(t testing.TB, c *dynamodb.Client) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("region"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("day"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("ByStatus"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("region"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("day"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	require.NoError(t, err)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestSDKEndToEnd(t *testing.T) {
	c, _ := startServer(t)
	ctx := context.Background()
	sdkTable(t, c)

	// A put that creates an index entry is charged on the table and the GSI.
	put, err := c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:              aws.String("Orders"),
		Item:                   map[string]types.AttributeValue{"pk": s("o#1"), "sk": s("v1"), "status": s("OPEN"), "region": s("eu"), "day": n("3"), "note": s(strings.Repeat("x", 1500))},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
	})
	require.NoError(t, err)
	require.NotNil(t, put.ConsumedCapacity)
	assert.Equal(t, 3.0, aws.ToFloat64(put.ConsumedCapacity.CapacityUnits))
	assert.Equal(t, 2.0, aws.ToFloat64(put.ConsumedCapacity.Table.CapacityUnits))
	assert.Equal(t, 1.0, aws.ToFloat64(put.ConsumedCapacity.GlobalSecondaryIndexes["ByStatus"].CapacityUnits))

	// A sparse item (no region) is not in the index: no index charge.
	put, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:              aws.String("Orders"),
		Item:                   map[string]types.AttributeValue{"pk": s("o#2"), "sk": s("v1"), "status": s("OPEN"), "day": n("4")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
	})
	require.NoError(t, err)
	assert.Empty(t, put.ConsumedCapacity.GlobalSecondaryIndexes)

	// Multi-attribute GSI query: both partition attributes, a range on the sort.
	q, err := c.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String("Orders"),
		IndexName:                 aws.String("ByStatus"),
		KeyConditionExpression:    aws.String("#s = :s AND #r = :r AND #d >= :d"),
		ExpressionAttributeNames:  map[string]string{"#s": "status", "#r": "region", "#d": "day"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("OPEN"), ":r": s("eu"), ":d": n("1")},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityIndexes,
	})
	require.NoError(t, err)
	require.Len(t, q.Items, 1)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "o#1"}, q.Items[0]["pk"])
	assert.NotContains(t, q.Items[0], "note", "KEYS_ONLY index")
	assert.Equal(t, 0.5, aws.ToFloat64(q.ConsumedCapacity.GlobalSecondaryIndexes["ByStatus"].CapacityUnits))

	// Conditional failure returns the item when asked.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String("Orders"),
		Item:                                map[string]types.AttributeValue{"pk": s("o#2"), "sk": s("v1")},
		ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)
	assert.Equal(t, s("OPEN"), ccf.Item["status"])

	// A cancelled transaction lists its reasons in order.
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": s("o#3"), "sk": s("v1")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": s("o#1"), "sk": s("v1")},
			ConditionExpression: aws.String("#s = :c"), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":c": s("CLOSED")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 2)
	assert.Equal(t, "None", aws.ToString(tce.CancellationReasons[0].Code))
	assert.Equal(t, "ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[1].Code))
	assert.Equal(t, s("OPEN"), tce.CancellationReasons[1].Item["status"])
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": s("o#3"), "sk": s("v1")}})
	require.NoError(t, err)
	assert.Nil(t, got.Item, "nothing of a cancelled transaction is applied")

	// A transaction that succeeds is charged twice on the table.
	tw, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": s("o#3"), "sk": s("v1")}}},
		}})
	require.NoError(t, err)
	require.Len(t, tw.ConsumedCapacity, 1)
	assert.Equal(t, 2.0, aws.ToFloat64(tw.ConsumedCapacity[0].CapacityUnits))

	// An item whose projection keeps nothing is still there: "Item":{}.
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": s("o#1"), "sk": s("v1")}, ProjectionExpression: aws.String("nothere")})
	require.NoError(t, err)
	assert.NotNil(t, got.Item)
	assert.Empty(t, got.Item)

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	var rnf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf)

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ValidationException")

	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, d.Table.TableStatus)
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/Orders", aws.ToString(d.Table.TableArn))
	assert.Equal(t, int64(3), aws.ToInt64(d.Table.ItemCount))
	assert.Equal(t, types.BillingModePayPerRequest, d.Table.BillingModeSummary.BillingMode)
}

func TestServerRejectsBadRequests(t *testing.T) {
	e := New(Options{})
	h := e.Handler()
	for _, tc := range []struct{ target, body, typ string }{
		{"DynamoDB_20120810.PutItem", `{"TableName": 5}`, ErrSerialization},
		{"DynamoDB_20120810.PutItem", `{"TableName": "abc", "Item": {"a": {"S": 1}}}`, ErrSerialization},
		{"DynamoDB_20120810.PutItem", `{"TableName": "abc", "Item": {"a": {"SS": []}}}`, ErrValidation},
		{"DynamoDB_20120810.PutItem", `{"TableName": "abc", "Item": {"a": {"N": "x"}}}`, ErrValidation},
		{"DynamoDB_20120810.PutItem", `{`, ErrSerialization},
		{"DynamoDB_20120810.Nope", `{}`, ErrUnknownOperation},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		req.Header.Set("X-Amz-Target", tc.target)
		placeholderSign(req)
		h.ServeHTTP(rec, req)
		assert.Equal(t, 400, rec.Code, tc.body)
		assert.Contains(t, rec.Body.String(), "#"+tc.typ, tc.body)
		assert.Equal(t, strconv.FormatUint(uint64(crc32.ChecksumIEEE(rec.Body.Bytes())), 10), rec.Header().Get("X-Amz-Crc32"))
		assert.NotEmpty(t, rec.Header().Get("X-Amzn-Requestid"))
	}
}

func sdkQuery50() *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String("Bench"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("hot")},
	}
}

// BenchmarkPutItemHTTPRaw32 is BenchmarkPutItemHTTP32 with a bare
// net/http client sending prepared bodies instead of the SDK, to show
// what the server itself sustains when the client is cheap.
func BenchmarkPutItemHTTPRaw32(b *testing.B) {
	c, _ := startServer(b)
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("Bench"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(b, err)
	rawPuts32(b, *c.Options().BaseEndpoint)
}

// rawPuts32 puts b.N items into table Bench (pk S) at url, from 32
// goroutines with a plain HTTP client, and reports puts/s.
func rawPuts32(b *testing.B, url string) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	pad := strings.Repeat("p", 230)
	var seq atomic.Int64
	var failed atomic.Int64
	per := b.N/32 + 1
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				body := fmt.Sprintf(`{"TableName":"Bench","Item":{"pk":{"S":"user#%012d"},"name":{"S":"someone"},"n":{"N":"12345"},"pad":{"S":"%s"}}}`, seq.Add(1), pad)
				req, _ := http.NewRequest("POST", url, strings.NewReader(body))
				req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
				placeholderSign(req)
				req.Header.Set("Content-Type", "application/x-amz-json-1.0")
				resp, err := hc.Do(req)
				if err != nil || resp.StatusCode != 200 {
					failed.Add(1)
				}
				if resp != nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d puts failed", failed.Load())
	}
	b.ReportMetric(float64(per*32)/b.Elapsed().Seconds(), "puts/s")
}
