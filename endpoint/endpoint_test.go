package endpoint

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine"
)

func createAndPut(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("things"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "7"}}})
	require.NoError(t, err)
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("things"), ConsistentRead: aws.Bool(true),
		Key:                    map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	assert.Equal(t, "7", out.Item["n"].(*types.AttributeValueMemberN).Value)
	assert.Equal(t, 1.0, *out.ConsumedCapacity.CapacityUnits)
}

func TestEmbedded(t *testing.T) {
	tg, err := Open(context.Background(), Options{})
	require.NoError(t, err)
	defer tg.Close()
	assert.Equal(t, Embedded, tg.Kind)
	require.NotNil(t, tg.Engine)
	createAndPut(t, tg.Client)
	// The client's errors are the engine's, decoded by the SDK.
	_, err = tg.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("missing"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	var nf *types.ResourceNotFoundException
	assert.True(t, errors.As(err, &nf), "%v", err)
}

func TestEndpoint(t *testing.T) {
	e := engine.New(engine.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	tg, err := Open(context.Background(), Options{EndpointURL: "http://" + ln.Addr().String(), Retry: Standard})
	require.NoError(t, err)
	assert.Equal(t, Endpoint, tg.Kind)
	assert.Nil(t, tg.Engine)
	createAndPut(t, tg.Client)
}

func TestBadOptions(t *testing.T) {
	_, err := Open(context.Background(), Options{AWS: true, EndpointURL: "http://x"})
	assert.Error(t, err)
	for _, u := range []string{"localhost:8000", "ftp://x", "http://", "::"} {
		_, err := Open(context.Background(), Options{EndpointURL: u})
		assert.Error(t, err, u)
	}
}

func TestRetryString(t *testing.T) {
	assert.Equal(t, "no retries (1 attempt)", NoRetry.String())
	assert.Equal(t, "3 attempts, backoff capped at 20s, retry quota 500 tokens", Standard.String())
	assert.Equal(t, 4, Retry{MaxAttempts: 4}.Retryer().MaxAttempts())
	assert.Equal(t, 1, Retry{}.Retryer().MaxAttempts())
}
