package archive

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/cardapio/cardapio/internal/input"
)

// Tables is what the archiver needs of the tables API; *dynamodb.Client
// has it.
type Tables interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// Streams is what the archiver needs of the streams API;
// *dynamodbstreams.Client has it.
type Streams interface {
	ListStreams(context.Context, *dynamodbstreams.ListStreamsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Options say what to archive.
type Options struct {
	// From is the table whose TTL deletions are archived; To the table
	// they are written to.
	From, To string
	// Checkpoint, when set, is the file where the position reached in
	// every shard is kept, so that a later run resumes there; without
	// one every run reads the streams from their oldest record.
	Checkpoint string
	// Follow keeps reading, Poll apart when nothing is new, until the
	// context ends; otherwise the run stops once every shard is read to
	// its end.
	Follow bool
	Poll   time.Duration // default 1 s
	// SkipGaps goes on from the oldest record kept when a checkpoint is
	// behind the stream's trim point (records were trimmed before they
	// were archived), counting the gap; otherwise that is an error.
	SkipGaps bool
	// Report, when set, is told the totals after each pass that archived
	// something (Follow), and at the end.
	Report func(Result)
}

// Result is what a run read and wrote.
type Result struct {
	Streams  int // streams of From read
	Shards   int // shards read
	Records  int // stream records read
	Archived int // TTL deletions written to To
	// UserDeletes are deletions made by a user, left alone; Changes the
	// inserts and modifications passed over.
	UserDeletes, Changes int
	Gaps                 int // shards whose records were trimmed before they were read (SkipGaps)
}

func inputf(format string, args ...any) error {
	return input.Errorf(format, args...)
}

// ErrGap reports records trimmed before they were archived.
var ErrGap = errors.New("records were trimmed from the stream before they were archived")

// isService reports whether a record is a deletion DynamoDB made itself.
func isService(r st.Record) bool {
	u := r.UserIdentity
	return r.EventName == st.OperationTypeRemove && u != nil && aws.ToString(u.Type) == "Service" && aws.ToString(u.PrincipalId) == "dynamodb.amazonaws.com"
}

// run is one archiving run.
type run struct {
	db   Tables
	st   Streams
	o    Options
	cp   *checkpoint
	res  Result
	seen map[string]bool // shards read, by stream ARN and id
}

// Run archives the TTL deletions of o.From into o.To.
func Run(ctx context.Context, db Tables, s Streams, o Options) (*Result, error) {
	if o.From == "" || o.To == "" {
		return nil, inputf("name the table to archive from and the table to archive to")
	}
	if o.From == o.To {
		return nil, inputf("the history table must be another table than %s", o.From)
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	for _, name := range []string{o.From, o.To} {
		if _, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
			var nf *types.ResourceNotFoundException
			if errors.As(err, &nf) {
				return nil, inputf("table %s does not exist", name)
			}
			return nil, err
		}
	}
	cp, err := loadCheckpoint(o.Checkpoint, o.From, o.To)
	if err != nil {
		return nil, err
	}
	r := &run{db: db, st: s, o: o, cp: cp, seen: map[string]bool{}}
	for {
		moved, err := r.pass(ctx)
		if err != nil && o.Follow && ctx.Err() != nil {
			err = nil // followed until told to stop
			if o.Report != nil {
				o.Report(r.res)
			}
			return &r.res, r.cp.save()
		}
		if err != nil {
			return &r.res, err
		}
		if moved > 0 && o.Report != nil && o.Follow {
			o.Report(r.res)
		}
		if !o.Follow {
			if moved == 0 {
				break
			}
			continue // drain: until a pass finds nothing new
		}
		if moved == 0 {
			select {
			case <-ctx.Done():
				if o.Report != nil {
					o.Report(r.res)
				}
				return &r.res, nil
			case <-time.After(o.Poll):
			}
		}
	}
	if o.Report != nil {
		o.Report(r.res)
	}
	return &r.res, nil
}

// pass reads every stream of the table once, to the end of each shard,
// and returns how many records it read.
func (r *run) pass(ctx context.Context) (int, error) {
	arns, err := r.streams(ctx)
	if err != nil {
		return 0, err
	}
	r.res.Streams = max(r.res.Streams, len(arns))
	read := 0
	for _, arn := range arns {
		n, err := r.stream(ctx, arn)
		read += n
		if err != nil {
			return read, err
		}
	}
	r.cp.keep(arns)
	return read, r.cp.save()
}

// streams lists the table's streams, oldest first.
func (r *run) streams(ctx context.Context) ([]string, error) {
	var arns []string
	var start *string
	for {
		out, err := r.st.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(r.o.From), ExclusiveStartStreamArn: start})
		if err != nil {
			return nil, fmt.Errorf("list the streams of %s: %w", r.o.From, err)
		}
		for _, s := range out.Streams {
			arns = append(arns, aws.ToString(s.StreamArn))
		}
		if out.LastEvaluatedStreamArn == nil {
			break
		}
		start = out.LastEvaluatedStreamArn
	}
	if len(arns) == 0 {
		return nil, inputf("table %s has no stream: enable one with the view OLD_IMAGE or NEW_AND_OLD_IMAGES", r.o.From)
	}
	// Labels are creation times: the ARN order is the age order.
	sort.Strings(arns)
	return arns, nil
}

// stream reads one stream's shards, each after its parent.
func (r *run) stream(ctx context.Context, arn string) (int, error) {
	var shards []st.Shard
	var start *string
	var view st.StreamViewType
	for {
		out, err := r.st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start})
		if err != nil {
			var nf *st.ResourceNotFoundException
			if errors.As(err, &nf) {
				return 0, nil // past its retention since it was listed
			}
			return 0, fmt.Errorf("describe stream %s: %w", arn, err)
		}
		d := out.StreamDescription
		view = d.StreamViewType
		shards = append(shards, d.Shards...)
		if d.LastEvaluatedShardId == nil {
			break
		}
		start = d.LastEvaluatedShardId
	}
	if view != st.StreamViewTypeOldImage && view != st.StreamViewTypeNewAndOldImages {
		return 0, inputf("stream %s of %s has the view %s: the archiver needs the items' old images (OLD_IMAGE or NEW_AND_OLD_IMAGES)", arn, r.o.From, view)
	}
	listed := map[string]bool{}
	for _, sh := range shards {
		listed[aws.ToString(sh.ShardId)] = true
	}
	read := 0
	for progress := true; progress; {
		progress = false
		for _, sh := range shards {
			id := aws.ToString(sh.ShardId)
			if r.cp.done(arn, id) {
				continue
			}
			if p := aws.ToString(sh.ParentShardId); p != "" && listed[p] && !r.cp.done(arn, p) {
				continue // its parent first: a key's changes in order
			}
			n, closed, err := r.shard(ctx, arn, id)
			read += n
			if err != nil {
				return read, err
			}
			if closed {
				r.cp.finish(arn, id)
				progress = true
			}
		}
	}
	r.cp.keepShards(arn, listed)
	return read, nil
}

// shard reads a shard from the checkpoint (or its oldest record) to its
// end, archiving page by page; closed reports that it will hold no more.
func (r *run) shard(ctx context.Context, arn, id string) (read int, closed bool, err error) {
	iter, err := r.iterator(ctx, arn, id)
	if err != nil {
		return 0, false, err
	}
	if !r.seen[arn+" "+id] {
		r.seen[arn+" "+id] = true
		r.res.Shards++
	}
	for iter != nil {
		out, err := r.st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
		var expired *st.ExpiredIteratorException
		var trimmed *st.TrimmedDataAccessException
		switch {
		case errors.As(err, &expired):
			if iter, err = r.iterator(ctx, arn, id); err != nil {
				return read, false, err
			}
			continue
		case errors.As(err, &trimmed):
			if !r.o.SkipGaps {
				return read, false, fmt.Errorf("shard %s of %s: %w (the checkpoint is at %s); run again with gaps skipped to go on from the oldest record kept", id, arn, ErrGap, r.cp.seq(arn, id))
			}
			r.res.Gaps++
			r.cp.set(arn, id, "")
			if iter, err = r.trimHorizon(ctx, arn, id); err != nil {
				return read, false, err
			}
			continue
		case err != nil:
			return read, false, fmt.Errorf("read shard %s of %s: %w", id, arn, err)
		}
		if err := r.archive(ctx, out.Records); err != nil {
			return read, false, err
		}
		read += len(out.Records)
		if n := len(out.Records); n > 0 {
			r.cp.set(arn, id, aws.ToString(out.Records[n-1].Dynamodb.SequenceNumber))
			if err := r.cp.save(); err != nil {
				return read, false, err
			}
		}
		if out.NextShardIterator == nil {
			return read, true, nil
		}
		if len(out.Records) == 0 {
			return read, false, nil // read to its end, for now
		}
		iter = out.NextShardIterator
	}
	return read, true, nil
}

// iterator starts after the checkpoint, or at the oldest record.
func (r *run) iterator(ctx context.Context, arn, id string) (*string, error) {
	seq := r.cp.seq(arn, id)
	if seq == "" {
		return r.trimHorizon(ctx, arn, id)
	}
	out, err := r.st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
		ShardIteratorType: st.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: aws.String(seq)})
	var trimmed *st.TrimmedDataAccessException
	var nf *st.ResourceNotFoundException
	switch {
	case errors.As(err, &trimmed), errors.As(err, &nf):
		if !r.o.SkipGaps {
			return nil, fmt.Errorf("shard %s of %s: %w (the checkpoint is at %s); run again with gaps skipped to go on from the oldest record kept", id, arn, ErrGap, seq)
		}
		r.res.Gaps++
		r.cp.set(arn, id, "")
		return r.trimHorizon(ctx, arn, id)
	case err != nil:
		return nil, fmt.Errorf("shard iterator of %s of %s: %w", id, arn, err)
	}
	return out.ShardIterator, nil
}

func (r *run) trimHorizon(ctx context.Context, arn, id string) (*string, error) {
	out, err := r.st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
		ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		return nil, fmt.Errorf("shard iterator of %s of %s: %w", id, arn, err)
	}
	return out.ShardIterator, nil
}

// maxBatch is BatchWriteItem's limit.
const maxBatch = 25

// archive writes the old images of a page's TTL deletions to To.
func (r *run) archive(ctx context.Context, recs []st.Record) error {
	var items []map[string]types.AttributeValue
	index := map[string]int{}
	for _, rec := range recs {
		r.res.Records++
		switch {
		case isService(rec):
			if rec.Dynamodb == nil || rec.Dynamodb.OldImage == nil {
				return inputf("a TTL deletion of %s without its old image: the stream must carry old images", r.o.From)
			}
			// The SDK's converter (its two packages each have their own
			// AttributeValue) refuses a member it does not know rather than
			// archive a value it would have to invent.
			item, err := attributevalue.FromDynamoDBStreamsMap(rec.Dynamodb.OldImage)
			if err != nil {
				return fmt.Errorf("the old image of a TTL deletion of %s: %w", r.o.From, err)
			}
			// A batch may not write one key twice: the later deletion wins.
			k := keyString(rec.Dynamodb.Keys)
			if i, ok := index[k]; ok {
				items[i] = item
			} else {
				index[k] = len(items)
				items = append(items, item)
			}
		case rec.EventName == st.OperationTypeRemove:
			r.res.UserDeletes++
		default:
			r.res.Changes++
		}
	}
	for len(items) > 0 {
		n := min(maxBatch, len(items))
		if err := r.write(ctx, items[:n]); err != nil {
			return err
		}
		r.res.Archived += n
		items = items[n:]
	}
	return nil
}

// write puts a batch, sending unprocessed items again with backoff.
func (r *run) write(ctx context.Context, items []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	wait := 50 * time.Millisecond
	for attempt := 0; len(reqs) > 0; attempt++ {
		out, err := r.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{r.o.To: reqs}})
		if err != nil {
			var ve interface{ ErrorCode() string }
			if errors.As(err, &ve) && ve.ErrorCode() == "ValidationException" {
				return inputf("write to %s: %v (is it keyed as %s is?)", r.o.To, err, r.o.From)
			}
			return fmt.Errorf("write to %s: %w", r.o.To, err)
		}
		reqs = out.UnprocessedItems[r.o.To]
		if len(reqs) == 0 {
			return nil
		}
		if attempt == 10 {
			return fmt.Errorf("write to %s: %d items still unprocessed after %d attempts", r.o.To, len(reqs), attempt+1)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
	return nil
}

// keyString identifies an item by its key, for one batch.
func keyString(keys map[string]st.AttributeValue) string {
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%q=%s;", n, scalar(keys[n]))
	}
	return b.String()
}

func scalar(v st.AttributeValue) string {
	switch x := v.(type) {
	case *st.AttributeValueMemberS:
		return "S" + x.Value
	case *st.AttributeValueMemberN:
		return "N" + x.Value
	case *st.AttributeValueMemberB:
		return fmt.Sprintf("B%x", x.Value)
	}
	return fmt.Sprintf("%T", v)
}
