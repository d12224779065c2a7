package endpoint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/engine"
)

// TestDeferStreams: tables created with DeferStreams have no stream until
// EnableStreams turns on the model's; what was loaded before makes no
// stream record, a write after makes one.
func TestDeferStreams(t *testing.T) {
	ctx := context.Background()
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	var streamed *catalog.Table
	for _, tb := range m.Tables {
		if tb.Stream != nil && tb.Stream.View != "" {
			streamed = tb
		}
	}
	require.NotNil(t, streamed, "the reference model declares a stream")
	tg, err := Open(ctx, Options{})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, TableOptions{Prefix: "d-", OnDemand: true, DeferStreams: true})
	require.NoError(t, err)
	name := ts.Name(streamed.Name)
	describe := func() *types.TableDescription {
		out, err := tg.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		return out.Table
	}
	assert.Nil(t, describe().LatestStreamArn)

	key := func(v string) attr.Item {
		var it attr.Item
		for _, k := range streamed.KeyAttributes() {
			it = it.With(k, attr.Str(v))
		}
		return it
	}
	require.NoError(t, tg.Load(ctx, name, []attr.Item{key("seeded")}))
	require.NoError(t, ts.EnableStreams(ctx))
	require.NoError(t, ts.EnableStreams(ctx), "nothing left to enable")
	d := describe()
	require.NotNil(t, d.StreamSpecification)
	assert.True(t, aws.ToBool(d.StreamSpecification.StreamEnabled))
	assert.Equal(t, streamed.Stream.View, string(d.StreamSpecification.StreamViewType))
	require.NotNil(t, d.LatestStreamArn)

	_, err = tg.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: attr.ToSDKItem(key("measured"))})
	require.NoError(t, err)
	st, err := tg.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.LatestStreamArn})
	require.NoError(t, err)
	var keys []string
	for _, sh := range st.StreamDescription.Shards {
		it, err := tg.Streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.LatestStreamArn,
			ShardId: sh.ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
		require.NoError(t, err)
		recs, err := tg.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		require.NoError(t, err)
		for _, r := range recs.Records {
			k := r.Dynamodb.Keys[streamed.KeyAttributes()[0]].(*stypes.AttributeValueMemberS)
			keys = append(keys, k.Value)
		}
	}
	assert.Equal(t, []string{"measured"}, keys)
	require.NoError(t, ts.Delete(ctx))
}

// TestDeleteRetriesWhatFailed: a table whose deletion failed (a dropped
// request, a cancelled context) is deleted by the next Delete; one whose
// creation was cancelled in flight is known to Delete too.
func TestDeleteRetriesWhatFailed(t *testing.T) {
	ctx := context.Background()
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	e := engine.New(engine.Options{})
	var fail atomic.Bool
	h := e.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() && r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.DeleteTable" {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"try again"}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	tg, err := Open(ctx, Options{EndpointURL: srv.URL})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, TableOptions{Prefix: "r-", Keys: catalog.KeysNative, OnDemand: true})
	require.NoError(t, err)
	list := func() []string {
		out, err := tg.Client.ListTables(ctx, &dynamodb.ListTablesInput{})
		require.NoError(t, err)
		return out.TableNames
	}
	require.Len(t, list(), len(m.Tables))
	fail.Store(true)
	require.Error(t, ts.Delete(ctx))
	fail.Store(false)
	require.NoError(t, ts.Delete(ctx))
	assert.Empty(t, list())

	// Cancelled before its tables are active: none is left behind.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = tg.CreateTables(cctx, m, TableOptions{Prefix: "c-", Keys: catalog.KeysNative, OnDemand: true})
	require.Error(t, err)
	assert.Empty(t, list())
}
