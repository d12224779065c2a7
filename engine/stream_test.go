package engine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/throughput"
)

// newClock is the engine's clock in tests: it moves only when told to.
func newClock() *throughput.ManualClock {
	return throughput.NewManualClock(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
}

// streamServer serves an engine with the given options on a loopback
// port and returns the Go SDK's clients of both APIs on it.
func streamServer(t *testing.T, opts Options) (*dynamodb.Client, *dynamodbstreams.Client, *Engine) {
	t.Helper()
	e := New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: e.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String()
	s := dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")})
	return sdkClient(url), s, e
}

func streamTable(t *testing.T, c *dynamodb.Client, name, view string) *types.TableDescription {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if view != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(view)}
	}
	out, err := c.CreateTable(context.Background(), in)
	require.NoError(t, err)
	return out.TableDescription
}

func av(kv ...string) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		if kv[i] == "sk" || kv[i] == "n" || kv[i] == "exp" {
			m[kv[i]] = &types.AttributeValueMemberN{Value: kv[i+1]}
		} else {
			m[kv[i]] = &types.AttributeValueMemberS{Value: kv[i+1]}
		}
	}
	return m
}

// readAll reads every record of a stream, shard by shard in ShardId
// order (parents first), from TRIM_HORIZON to the end of each shard.
func readAll(t *testing.T, s *dynamodbstreams.Client, arn string) []st.Record {
	t.Helper()
	ctx := context.Background()
	var shards []st.Shard
	var start *string
	for {
		d, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start, Limit: aws.Int32(1)})
		require.NoError(t, err)
		shards = append(shards, d.StreamDescription.Shards...)
		if d.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		start = d.StreamDescription.LastEvaluatedShardId
	}
	var out []st.Record
	for _, sh := range shards {
		it, err := s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
		require.NoError(t, err)
		iter := it.ShardIterator
		for iter != nil {
			r, err := s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(2)})
			require.NoError(t, err)
			out = append(out, r.Records...)
			if len(r.Records) == 0 && sh.SequenceNumberRange.EndingSequenceNumber == nil {
				break // the open shard, read to its end
			}
			iter = r.NextShardIterator
		}
	}
	return out
}

// event summarises a record: name, key, and the "v" attribute of each
// image ("-" when absent).
func event(r st.Record) string {
	img := func(m map[string]st.AttributeValue) string {
		if m == nil {
			return "-"
		}
		if v, ok := m["v"].(*st.AttributeValueMemberS); ok {
			return v.Value
		}
		return "{}"
	}
	d := r.Dynamodb
	k := d.Keys["pk"].(*st.AttributeValueMemberS).Value + "/" + d.Keys["sk"].(*st.AttributeValueMemberN).Value
	who := ""
	if r.UserIdentity != nil {
		who = " by " + *r.UserIdentity.Type + ":" + *r.UserIdentity.PrincipalId
	}
	return string(r.EventName) + " " + k + " " + img(d.OldImage) + "->" + img(d.NewImage) + who
}

func events(rs []st.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = event(r)
	}
	return out
}

// TestStreamEveryWritePath drives every write path through the Go SDK
// and reads the stream back with the Go SDK's streams client: one record
// per change, in order, none for writes that change nothing, and TTL
// deletions marked as the service's.
func TestStreamEveryWritePath(t *testing.T) {
	clk := newClock()
	c, s, e := streamServer(t, Options{Now: clk.Now})
	ctx := context.Background()
	created := streamTable(t, c, "Events", ViewNewAndOldImgs)
	require.NotNil(t, created.LatestStreamArn)
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/Events/stream/2026-03-02T12:00:00.000", *created.LatestStreamArn)
	assert.Equal(t, "2026-03-02T12:00:00.000", *created.LatestStreamLabel)
	assert.Equal(t, types.StreamViewTypeNewAndOldImages, created.StreamSpecification.StreamViewType)
	_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Events"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	arn := *created.LatestStreamArn

	put := func(kv ...string) {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Events"), Item: av(kv...)})
		require.NoError(t, err)
	}
	put("pk", "a", "sk", "1", "v", "a1")
	put("pk", "a", "sk", "1", "v", "a1") // the same item: no record
	put("pk", "a", "sk", "1", "v", "a2")
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Events"), Key: av("pk", "b", "sk", "1"),
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: av(":v", "b1")})
	require.NoError(t, err)
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Events"), Key: av("pk", "a", "sk", "1")})
	require.NoError(t, err)
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Events"), Key: av("pk", "a", "sk", "1")}) // absent: no record
	require.NoError(t, err)
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Events": {
		{PutRequest: &types.PutRequest{Item: av("pk", "c", "sk", "1", "v", "c1")}},
		{DeleteRequest: &types.DeleteRequest{Key: av("pk", "b", "sk", "1")}},
	}}})
	require.NoError(t, err)
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Events"), Item: av("pk", "d", "sk", "1", "v", "d1", "exp", strconv.FormatInt(clk.Now().Unix()-60, 10))}},
		{Update: &types.Update{TableName: aws.String("Events"), Key: av("pk", "c", "sk", "1"), UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: av(":v", "c2")}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("Events"), Key: av("pk", "e", "sk", "1"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	require.NoError(t, err)
	// A failed condition writes nothing.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Events"), Item: av("pk", "c", "sk", "1", "v", "nope"), ConditionExpression: aws.String("attribute_not_exists(pk)")})
	require.Error(t, err)
	require.Equal(t, 1, e.SweepExpired(clk.Now()))

	got := readAll(t, s, arn)
	assert.Equal(t, []string{
		"INSERT a/1 -->a1",
		"MODIFY a/1 a1->a2",
		"INSERT b/1 -->b1",
		"REMOVE a/1 a2->-",
		"INSERT c/1 -->c1",
		"REMOVE b/1 b1->-",
		"INSERT d/1 -->d1",
		"MODIFY c/1 c1->c2",
		"REMOVE d/1 d1->- by Service:dynamodb.amazonaws.com",
	}, events(got))
	var last int
	for i, r := range got {
		d := r.Dynamodb
		assert.Equal(t, "aws:dynamodb", *r.EventSource)
		assert.Equal(t, "us-east-1", *r.AwsRegion)
		assert.Equal(t, "1.1", *r.EventVersion)
		assert.Len(t, *r.EventID, 32)
		assert.Equal(t, st.StreamViewTypeNewAndOldImages, d.StreamViewType)
		assert.Equal(t, clk.Now().Unix(), d.ApproximateCreationDateTime.Unix())
		assert.Len(t, *d.SequenceNumber, 21)
		n, err := strconv.Atoi((*d.SequenceNumber)[1:])
		require.NoError(t, err)
		assert.Greater(t, n, last, "record %d", i)
		last = n
		assert.Positive(t, *d.SizeBytes)
	}
}

// TestStreamViewTypes checks what each view type carries.
func TestStreamViewTypes(t *testing.T) {
	c, s, _ := streamServer(t, Options{})
	ctx := context.Background()
	for _, view := range []string{ViewKeysOnly, ViewNewImage, ViewOldImage, ViewNewAndOldImgs} {
		d := streamTable(t, c, "T"+view, view)
		for _, v := range []string{"x", "y"} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("T" + view), Item: av("pk", "k", "sk", "1", "v", v)})
			require.NoError(t, err)
		}
		_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("T" + view), Key: av("pk", "k", "sk", "1")})
		require.NoError(t, err)
		want := map[string][]string{
			ViewKeysOnly:      {"INSERT k/1 -->-", "MODIFY k/1 -->-", "REMOVE k/1 -->-"},
			ViewNewImage:      {"INSERT k/1 -->x", "MODIFY k/1 -->y", "REMOVE k/1 -->-"},
			ViewOldImage:      {"INSERT k/1 -->-", "MODIFY k/1 x->-", "REMOVE k/1 y->-"},
			ViewNewAndOldImgs: {"INSERT k/1 -->x", "MODIFY k/1 x->y", "REMOVE k/1 y->-"},
		}[view]
		got := readAll(t, s, *d.LatestStreamArn)
		assert.Equal(t, want, events(got), view)
		for _, r := range got {
			assert.Equal(t, st.StreamViewType(view), r.Dynamodb.StreamViewType)
		}
	}
}

// TestStreamUpdateTable enables, disables and re-enables a stream: each
// enabling is a new stream, a disabled one stays readable and listed.
func TestStreamUpdateTable(t *testing.T) {
	clk := newClock()
	c, s, _ := streamServer(t, Options{Now: clk.Now})
	ctx := context.Background()
	d := streamTable(t, c, "Plain", "")
	assert.Nil(t, d.StreamSpecification)
	assert.Nil(t, d.LatestStreamArn)

	update := func(spec *types.StreamSpecification) (*types.TableDescription, error) {
		out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Plain"), StreamSpecification: spec})
		if err != nil {
			return nil, err
		}
		return out.TableDescription, nil
	}
	_, err := update(&types.StreamSpecification{StreamEnabled: aws.Bool(false)})
	assertAPIError(t, err, "ValidationException", "Table has no stream to disable: TableName: Plain")
	_, err = update(&types.StreamSpecification{StreamEnabled: aws.Bool(true)})
	assertAPIError(t, err, "ValidationException", "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required")
	_, err = update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: "Fisk"})
	assertAPIError(t, err, "ValidationException", "1 validation error detected: Value 'Fisk' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]")

	first, err := update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly})
	require.NoError(t, err)
	require.NotNil(t, first.LatestStreamArn)
	assert.Equal(t, types.StreamViewTypeKeysOnly, first.StreamSpecification.StreamViewType)
	_, err = update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage})
	assertAPIError(t, err, "ValidationException", "Table already has an enabled stream: TableName: Plain")
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Plain"), Item: av("pk", "a", "sk", "1")})
	require.NoError(t, err)

	off, err := update(&types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeKeysOnly})
	assert.Nil(t, off)
	assertAPIError(t, err, "ValidationException", "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified")
	off, err = update(&types.StreamSpecification{StreamEnabled: aws.Bool(false)})
	require.NoError(t, err)
	assert.Nil(t, off.StreamSpecification, "a disabled stream has no StreamSpecification")
	assert.Equal(t, *first.LatestStreamArn, *off.LatestStreamArn)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Plain"), Item: av("pk", "b", "sk", "1")})
	require.NoError(t, err)

	again, err := update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage})
	require.NoError(t, err)
	assert.NotEqual(t, *first.LatestStreamArn, *again.LatestStreamArn, "a new stream, even within the same millisecond")
	assert.Equal(t, types.StreamViewTypeNewImage, again.StreamSpecification.StreamViewType)

	ls, err := s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Plain")})
	require.NoError(t, err)
	require.Len(t, ls.Streams, 2)
	old, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: first.LatestStreamArn})
	require.NoError(t, err)
	assert.Equal(t, st.StreamStatusDisabled, old.StreamDescription.StreamStatus)
	assert.Equal(t, st.StreamViewTypeKeysOnly, old.StreamDescription.StreamViewType)
	for _, sh := range old.StreamDescription.Shards {
		assert.NotNil(t, sh.SequenceNumberRange.EndingSequenceNumber, "the shards of a disabled stream are closed")
	}
	assert.Equal(t, []string{"INSERT a/1 -->-"}, events(readAll(t, s, *first.LatestStreamArn)), "the record made while it was enabled, and only it")
	assert.Empty(t, readAll(t, s, *again.LatestStreamArn))

	// Changing the stream together with an index is refused.
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Plain"), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)},
		AttributeDefinitions:        []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("G1"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	assertAPIError(t, err, "ValidationException", "One or more parameter values were invalid: You cannot create or delete index while changing stream status")

	// A deleted table's stream is disabled and readable for 24 hours.
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Plain")})
	require.NoError(t, err)
	gone, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: again.LatestStreamArn})
	require.NoError(t, err)
	assert.Equal(t, st.StreamStatusDisabled, gone.StreamDescription.StreamStatus)
	clk.Advance(24*time.Hour + time.Second)
	_, err = s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: again.LatestStreamArn})
	var rnf *st.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf)
	assert.Equal(t, "Requested resource not found: Stream: "+*again.LatestStreamArn+" not found", rnf.ErrorMessage())
	ls, err = s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Plain")})
	require.NoError(t, err)
	assert.Empty(t, ls.Streams)
}

func assertAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, code, ae.ErrorCode())
	assert.Equal(t, msg, ae.ErrorMessage())
}

// TestStreamCreateTableSpec checks CreateTable's refusals of a stream
// specification, worded as DynamoDB words them.
func TestStreamCreateTableSpec(t *testing.T) {
	e := New(Options{})
	for _, tc := range []struct {
		spec *StreamSpecification
		msg  string
	}{
		{&StreamSpecification{}, "1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null"},
		{&StreamSpecification{StreamViewType: ViewKeysOnly}, "1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null"},
		{&StreamSpecification{StreamEnabled: ptr(true)}, "One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required"},
		{&StreamSpecification{StreamEnabled: ptr(false), StreamViewType: ViewKeysOnly}, "One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified"},
	} {
		_, err := e.CreateTable(context.Background(), &CreateTableInput{TableName: "Tab", BillingMode: "PAY_PER_REQUEST",
			AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}, StreamSpecification: tc.spec})
		assert.Equal(t, tc.msg, errType(t, err, ErrValidation).Message)
	}
	out, err := e.CreateTable(context.Background(), &CreateTableInput{TableName: "Tab", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}, StreamSpecification: &StreamSpecification{StreamEnabled: ptr(false)}})
	require.NoError(t, err)
	assert.Empty(t, out.TableDescription.LatestStreamArn, "StreamEnabled false: no stream")
}

// TestStreamShardsIteratorsRetention follows a stream through shard
// rotation, iterator expiry and retention, by the engine's clock.
func TestStreamShardsIteratorsRetention(t *testing.T) {
	clk := newClock()
	c, s, _ := streamServer(t, Options{Now: clk.Now})
	ctx := context.Background()
	arn := streamTable(t, c, "Rot", ViewNewImage).LatestStreamArn
	put := func(pk, v string) {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Rot"), Item: av("pk", pk, "sk", "1", "v", v)})
		require.NoError(t, err)
	}
	shards := func() []st.Shard {
		d, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
		require.NoError(t, err)
		return d.StreamDescription.Shards
	}
	iter := func(sh st.Shard, typ st.ShardIteratorType, seq *string) *string {
		out, err := s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: sh.ShardId, ShardIteratorType: typ, SequenceNumber: seq})
		require.NoError(t, err)
		return out.ShardIterator
	}
	first := shards()
	require.Len(t, first, 1)
	assert.Nil(t, first[0].ParentShardId)
	assert.Nil(t, first[0].SequenceNumberRange.EndingSequenceNumber)
	latest := iter(first[0], st.ShardIteratorTypeLatest, nil)
	put("k", "1")
	put("k", "2")
	r, err := s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: latest})
	require.NoError(t, err)
	require.Len(t, r.Records, 2, "LATEST, taken before the writes, sees them")
	seq1, seq2 := r.Records[0].Dynamodb.SequenceNumber, r.Records[1].Dynamodb.SequenceNumber
	r2, err := s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: r.NextShardIterator})
	require.NoError(t, err)
	assert.Empty(t, r2.Records)
	require.NotNil(t, r2.NextShardIterator, "an open shard always has a next iterator")

	at, err := s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter(first[0], st.ShardIteratorTypeAtSequenceNumber, seq2)})
	require.NoError(t, err)
	assert.Equal(t, []string{"MODIFY k/1 -->2"}, events(at.Records))
	after, err := s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter(first[0], st.ShardIteratorTypeAfterSequenceNumber, seq1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"MODIFY k/1 -->2"}, events(after.Records))
	atStart := iter(first[0], st.ShardIteratorTypeAtSequenceNumber, first[0].SequenceNumberRange.StartingSequenceNumber)
	r, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: atStart})
	require.NoError(t, err)
	assert.Len(t, r.Records, 2)

	// Four hours on, the next write goes to a child shard.
	clk.Advance(4 * time.Hour)
	put("k", "3")
	two := shards()
	require.Len(t, two, 2)
	assert.Equal(t, *two[0].ShardId, *two[1].ParentShardId)
	assert.Less(t, *two[0].ShardId, *two[1].ShardId)
	assert.Equal(t, *seq2, *two[0].SequenceNumberRange.EndingSequenceNumber)
	// The parent, read to its end, has no next iterator.
	r, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter(two[0], st.ShardIteratorTypeAfterSequenceNumber, seq2)})
	require.NoError(t, err)
	assert.Empty(t, r.Records)
	assert.Nil(t, r.NextShardIterator)
	children, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn, ShardFilter: &st.ShardFilter{Type: st.ShardFilterTypeChildShards, ShardId: two[0].ShardId}})
	require.NoError(t, err)
	require.Len(t, children.StreamDescription.Shards, 1)
	assert.Equal(t, *two[1].ShardId, *children.StreamDescription.Shards[0].ShardId)
	assert.Equal(t, []string{"INSERT k/1 -->1", "MODIFY k/1 -->2", "MODIFY k/1 -->3"}, events(readAll(t, s, *arn)), "a key's records in order across shards")

	// An iterator lasts 15 minutes.
	old := iter(two[1], st.ShardIteratorTypeTrimHorizon, nil)
	clk.Advance(15*time.Minute + time.Second)
	_, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: old})
	var expired *st.ExpiredIteratorException
	require.ErrorAs(t, err, &expired)
	assert.Equal(t, "The provided iterator exceeds the maximum age allowed.", expired.ErrorMessage())

	// 24 hours after the first records, they are trimmed, and their
	// shard, closed and empty, is gone.
	clk.Advance(19*time.Hour + 45*time.Minute)
	left := shards()
	require.Len(t, left, 1)
	assert.Equal(t, *two[1].ShardId, *left[0].ShardId)
	assert.Equal(t, []string{"MODIFY k/1 -->3"}, events(readAll(t, s, *arn)))
	seq3 := readAll(t, s, *arn)[0].Dynamodb.SequenceNumber
	put("k", "4")
	// An iterator left behind the trim point is refused.
	clk.Advance(3*time.Hour + 55*time.Minute)
	behind := iter(left[0], st.ShardIteratorTypeTrimHorizon, nil)
	clk.Advance(10 * time.Minute)
	_, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: behind})
	var trimmed *st.TrimmedDataAccessException
	require.ErrorAs(t, err, &trimmed)
	assert.Equal(t, "The data you are trying to access has been trimmed.", trimmed.ErrorMessage())
	assert.Equal(t, []string{"MODIFY k/1 -->4"}, events(readAll(t, s, *arn)))
	// The fourth record went to a third shard (the second had lived its
	// four hours); the second, closed and now empty, is gone too.
	now := shards()
	require.Len(t, now, 1)
	assert.Equal(t, *left[0].ShardId, *now[0].ParentShardId)
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: left[0].ShardId, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: seq3})
	assertAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Shard does not exist")
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: now[0].ShardId, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: seq2})
	assertAPIError(t, err, "ValidationException", "Invalid SequenceNumber: "+*seq2+" is not in the range of shard "+*now[0].ShardId)
}

// TestStreamMaxBytes trims the oldest records of a stream over its cap.
func TestStreamMaxBytes(t *testing.T) {
	e := New(Options{Streams: StreamOptions{MaxBytes: 4 << 10}})
	ctx := context.Background()
	_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Cap", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		StreamSpecification:  &StreamSpecification{StreamEnabled: ptr(true), StreamViewType: ViewNewImage}})
	require.NoError(t, err)
	d, _ := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Cap"})
	arn := d.Table.LatestStreamArn
	sh, err := e.DescribeStream(ctx, &DescribeStreamInput{StreamArn: arn})
	require.NoError(t, err)
	first, err := e.GetShardIterator(ctx, &GetShardIteratorInput{StreamArn: arn, ShardId: sh.StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON"})
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Cap", Item: item("p", i)})
		require.NoError(t, err)
	}
	s := e.streams.get(arn)
	assert.LessOrEqual(t, s.bytes, int64(4<<10))
	_, err = e.GetRecords(ctx, &GetRecordsInput{ShardIterator: first.ShardIterator})
	errType(t, err, ErrTrimmedDataAccess)
	_, err = e.GetShardIterator(ctx, &GetShardIteratorInput{StreamArn: arn, ShardId: sh.StreamDescription.Shards[0].ShardId, ShardIteratorType: "AT_SEQUENCE_NUMBER",
		SequenceNumber: sh.StreamDescription.Shards[0].SequenceNumberRange.StartingSequenceNumber})
	errType(t, err, ErrTrimmedDataAccess)
	it, err := e.GetShardIterator(ctx, &GetShardIteratorInput{StreamArn: arn, ShardId: sh.StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON"})
	require.NoError(t, err)
	r, err := e.GetRecords(ctx, &GetRecordsInput{ShardIterator: it.ShardIterator})
	require.NoError(t, err)
	require.NotEmpty(t, r.Records)
	assert.Equal(t, "99", r.Records[len(r.Records)-1].Dynamodb.Keys[1].Value.Str, "the newest records are kept")
}

// TestStreamListAndErrors covers ListStreams' pagination and the
// streams API's refusals.
func TestStreamListAndErrors(t *testing.T) {
	c, s, e := streamServer(t, Options{})
	ctx := context.Background()
	for _, n := range []string{"Li1", "Li2", "Li3"} {
		streamTable(t, c, n, ViewKeysOnly)
	}
	streamTable(t, c, "NoStream", "")
	var seen []string
	var start *string
	for {
		out, err := s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(1), ExclusiveStartStreamArn: start})
		require.NoError(t, err)
		for _, x := range out.Streams {
			seen = append(seen, *x.TableName)
		}
		if out.LastEvaluatedStreamArn == nil {
			break
		}
		start = out.LastEvaluatedStreamArn
	}
	assert.Equal(t, []string{"Li1", "Li2", "Li3"}, seen)
	one, err := s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Li2")})
	require.NoError(t, err)
	require.Len(t, one.Streams, 1)
	assert.Equal(t, "Li2", *one.Streams[0].TableName)
	none, err := s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("NoStream")})
	require.NoError(t, err)
	assert.Empty(t, none.Streams)

	arn := one.Streams[0].StreamArn
	d, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
	require.NoError(t, err)
	shard := d.StreamDescription.Shards[0].ShardId
	assert.Equal(t, "Li2", *d.StreamDescription.TableName)
	assert.Equal(t, st.StreamStatusEnabled, d.StreamDescription.StreamStatus)
	assert.Len(t, d.StreamDescription.KeySchema, 2)
	assert.NotNil(t, d.StreamDescription.CreationRequestDateTime)
	after, err := s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn, ExclusiveStartShardId: shard})
	require.NoError(t, err)
	assert.Empty(t, after.StreamDescription.Shards)

	code := func(err error) string {
		var ae smithy.APIError
		if errors.As(err, &ae) {
			return ae.ErrorCode()
		}
		return err.Error()
	}
	_, err = s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(0)})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(101)})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String("kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas")})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String("sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf")})
	assert.Equal(t, "ValidationException", code(err))
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/Li2/stream/2020-01-01T00:00:00.000"
	_, err = s.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(missing)})
	assert.Equal(t, "ResourceNotFoundException", code(err))
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: aws.String("shardId-00000000000000000000-ffffffff"), ShardIteratorType: st.ShardIteratorTypeLatest})
	assert.Equal(t, "ResourceNotFoundException", code(err))
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: "bulle"})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: st.ShardIteratorTypeLatest, SequenceNumber: aws.String("100000000000000000001")})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("sdfsafglldfngjdafnasdflgnaldklkafdsgklnasdlv")})
	assert.Equal(t, "ValidationException", code(err))
	_, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgasdasdgasdg")})
	assert.Equal(t, "ValidationException", code(err))
	it, err := s.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: st.ShardIteratorTypeLatest})
	require.NoError(t, err)
	_, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(1001)})
	assert.Equal(t, "ValidationException", code(err))
	tampered := []byte(*it.ShardIterator)
	tampered[len(tampered)-2] ^= 1
	_, err = s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(string(tampered))})
	assert.Equal(t, "ValidationException", code(err))
	// The tables API and the streams API do not answer each other's
	// operations.
	for _, target := range []string{"DynamoDB_20120810.ListStreams", "DynamoDBStreams_20120810.ListTables"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
		req.Header.Set("X-Amz-Target", target)
		e.Handler().ServeHTTP(rec, req)
		assert.Equal(t, 400, rec.Code, target)
		assert.Contains(t, rec.Body.String(), "UnknownOperationException", target)
	}
}
