package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// throttledServer serves an engine with the throughput model at 1/100 on
// a manual clock over loopback, and returns an SDK client that does not
// retry (so that the tests see the throttling errors themselves).
func throttledServer(t *testing.T) (*dynamodb.Client, *Engine, func(time.Duration)) {
	t.Helper()
	e, clk := modelled(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c := dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String("http://" + ln.Addr().String()),
		Credentials:      credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		RetryMaxAttempts: 1,
	})
	return c, e, clk.Advance
}

func sdkThrottleTable(t *testing.T, c *dynamodb.Client, name string, provisioned bool) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("next"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("next"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		BillingMode: types.BillingModePayPerRequest,
	}
	if provisioned {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4000), WriteCapacityUnits: aws.Int64(4000)}
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput = in.ProvisionedThroughput
	}
	_, err := c.CreateTable(context.Background(), in)
	require.NoError(t, err)
}

func sdkItem(pk string, sk int, more ...string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: fmt.Sprint(sk)},
	}
	for i := 0; i+1 < len(more); i += 2 {
		it[more[i]] = &types.AttributeValueMemberS{Value: more[i+1]}
	}
	return it
}

// putUntilRefused writes items of one partition key until one is refused.
func putUntilRefused(t *testing.T, c *dynamodb.Client, table string) (int, error) {
	t.Helper()
	for i := range 100 {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sdkItem("hot", i)}); err != nil {
			return i, err
		}
	}
	return 100, nil
}

func reasonsOf(rs []types.ThrottlingReason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, aws.ToString(r.Reason)+" "+aws.ToString(r.Resource))
	}
	return out
}

func TestSDKThrottling(t *testing.T) {
	c, e, advance := throttledServer(t)
	ctx := context.Background()
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/"

	t.Run("on-demand hot key", func(t *testing.T) {
		sdkThrottleTable(t, c, "OnDemand", false)
		n, err := putUntilRefused(t, c, "OnDemand")
		assert.Equal(t, 10, n, "1,000 WCU a second on one partition, at 1/100")
		var te *types.ThrottlingException
		require.ErrorAs(t, err, &te)
		assert.Equal(t, []string{"TableWriteKeyRangeThroughputExceeded " + arn + "OnDemand"}, reasonsOf(te.ThrottlingReasons))
	})

	t.Run("provisioned hot key", func(t *testing.T) {
		sdkThrottleTable(t, c, "Provisioned", true)
		n, err := putUntilRefused(t, c, "Provisioned")
		assert.Equal(t, 10, n)
		var pe *types.ProvisionedThroughputExceededException
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, []string{"TableWriteKeyRangeThroughputExceeded " + arn + "Provisioned"}, reasonsOf(pe.ThrottlingReasons))
	})

	t.Run("index back-pressure on a key move", func(t *testing.T) {
		sdkThrottleTable(t, c, "Moves", false)
		for i := range 11 {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Moves"), Item: sdkItem(fmt.Sprint("contract#", i), 1, "next", "T1#2026-12-01")})
			require.NoError(t, err)
			if i%5 == 4 {
				advance(time.Second)
			}
		}
		advance(time.Second)
		move := func(i int) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Moves"), Key: sdkItem(fmt.Sprint("contract#", i), 1),
				UpdateExpression:          aws.String("SET #n = :d"),
				ExpressionAttributeNames:  map[string]string{"#n": "next"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":d": &types.AttributeValueMemberS{Value: "T1#2026-12-02"}}})
			return err
		}
		for i := range 10 {
			require.NoError(t, move(i), "move %d", i)
		}
		err := move(10) // both the old and the new key's partitions are spent
		var te *types.ThrottlingException
		require.ErrorAs(t, err, &te)
		assert.Equal(t, []string{"IndexWriteKeyRangeThroughputExceeded " + arn + "Moves/index/GSI1"}, reasonsOf(te.ThrottlingReasons))
	})

	t.Run("transaction cancelled", func(t *testing.T) {
		sdkThrottleTable(t, c, "Txn", false)
		_, err := putUntilRefused(t, c, "Txn")
		require.Error(t, err)
		cold := elsewhere("hot")
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("Txn"), Item: sdkItem(cold, 1)}},
			{Put: &types.Put{TableName: aws.String("Txn"), Item: sdkItem("hot", 1000)}},
		}})
		var ce *types.TransactionCanceledException
		require.ErrorAs(t, err, &ce)
		require.Len(t, ce.CancellationReasons, 2)
		assert.Equal(t, "None", aws.ToString(ce.CancellationReasons[0].Code))
		assert.Equal(t, "ThrottlingError", aws.ToString(ce.CancellationReasons[1].Code))
	})

	t.Run("batch write unprocessed", func(t *testing.T) {
		sdkThrottleTable(t, c, "Batch", false)
		var reqs []types.WriteRequest
		for i := range 25 {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: sdkItem("hot", i)}})
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Batch": reqs}})
		require.NoError(t, err)
		assert.Len(t, out.UnprocessedItems["Batch"], 15)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
		var te *types.ThrottlingException
		require.ErrorAs(t, err, &te)
		assert.NotEmpty(t, te.ThrottlingReasons)
	})

	s, ok := e.Throughput()
	require.True(t, ok)
	ix := s.Table("Moves").Resource("GSI1")
	assert.Equal(t, 2.0, ix.Totals.WriteThrottled, "the refused move's two index charges")
	assert.Equal(t, 2, ix.Busy(), "the old and the new key's partitions")
}
