package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/throughput"
)

// models are the models the history pattern is shown on: the examples,
// and one unlike them. A model's hot table is one with a stream carrying
// old images (and its TTL, or one the test enables); its history table
// is another table keyed alike, or one the test creates so.
var models = []string{"../model.yaml", "../examples/orders/model.yaml", "testdata/sessions.yaml"}

// modelName names a model's subtest: lastro for the reference, the
// example's directory otherwise.
func modelName(path string) string {
	switch filepath.Base(filepath.Dir(path)) {
	case "..":
		return "lastro"
	case "testdata":
		return strings.TrimSuffix(filepath.Base(path), ".yaml")
	}
	return filepath.Base(filepath.Dir(path))
}

// historyPair finds, in a model, the hot table (a stream with old
// images, preferably a TTL) and its history table (another table with
// the same key attributes, nil when the model declares none).
func historyPair(m *catalog.Model) (hot, history *catalog.Table) {
	for _, t := range m.Tables {
		if t.Stream == nil || (t.Stream.View != engine.ViewOldImage && t.Stream.View != engine.ViewNewAndOldImgs) {
			continue
		}
		if hot != nil && hot.TTL != "" {
			break
		}
		hot, history = t, nil
		for _, h := range m.Tables {
			if h != t && h.PartitionKey == t.PartitionKey && h.SortKey == t.SortKey {
				history = h
			}
		}
	}
	return hot, history
}

// fixture is a model's tables on the embedded engine, with its clock.
type fixture struct {
	t        *testing.T
	clk      *throughput.ManualClock
	tg       *endpoint.Target
	m        *catalog.Model
	hot      *catalog.Table
	ttl      string // the hot table's TTL attribute
	from, to string
}

func newFixture(t *testing.T, path string) *fixture {
	t.Helper()
	m, err := catalog.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is not written yet", path)
	}
	require.NoError(t, err)
	hot, history := historyPair(m)
	if hot == nil {
		t.Skipf("%s declares no table with a stream carrying old images", path)
	}
	clk := throughput.NewManualClock(time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC))
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{Engine: engine.Options{Now: clk.Now}})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "t-", OnDemand: true})
	require.NoError(t, err)
	f := &fixture{t: t, clk: clk, tg: tg, m: m, hot: hot, ttl: hot.TTL, from: ts.Name(hot.Name)}
	if history != nil {
		f.to = ts.Name(history.Name)
	} else {
		// A model without a history table of its own: one keyed as the
		// hot table, as the pattern would add.
		f.to = f.from + "-history"
		in, err := endpoint.CreateTableInput(m, hot, f.to, ts.Keys, true)
		require.NoError(t, err)
		in.StreamSpecification, in.GlobalSecondaryIndexes, in.LocalSecondaryIndexes = nil, nil, nil
		// Without the indexes, only the table's key attributes are defined.
		keys := map[string]bool{}
		for _, k := range in.KeySchema {
			keys[aws.ToString(k.AttributeName)] = true
		}
		defs := in.AttributeDefinitions[:0]
		for _, d := range in.AttributeDefinitions {
			if keys[aws.ToString(d.AttributeName)] {
				defs = append(defs, d)
			}
		}
		in.AttributeDefinitions = defs
		_, err = tg.Client.CreateTable(ctx, in)
		require.NoError(t, err)
	}
	if f.ttl == "" {
		f.ttl = "archiveExpiresAt"
		_, err := tg.Client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(f.from),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(f.ttl), Enabled: aws.Bool(true)}})
		require.NoError(t, err)
	}
	return f
}

// keyValue is a value of a key attribute's declared type.
func (f *fixture) keyValue(name, text string) types.AttributeValue {
	switch a := f.m.Attribute(name); {
	case a != nil && a.Type == attr.N:
		n := 0
		for _, c := range text {
			n = n*31 + int(c)
		}
		return &types.AttributeValueMemberN{Value: strconv.Itoa(n % 1000000007)}
	case a != nil && a.Type == attr.B:
		return &types.AttributeValueMemberB{Value: []byte(text)}
	}
	return &types.AttributeValueMemberS{Value: text}
}

// item is one item of the hot table, expiring at exp.
func (f *fixture) item(i int, exp time.Time, note string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		f.hot.PartitionKey: f.keyValue(f.hot.PartitionKey, "P#"+strconv.Itoa(i)),
		f.ttl:              &types.AttributeValueMemberN{Value: strconv.FormatInt(exp.Unix(), 10)},
		"archiveNote":      &types.AttributeValueMemberS{Value: note},
		"archiveList":      &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: strconv.Itoa(i)}, &types.AttributeValueMemberBOOL{Value: true}}},
	}
	if f.hot.SortKey != "" {
		it[f.hot.SortKey] = f.keyValue(f.hot.SortKey, "S#"+strconv.Itoa(i%3))
	}
	return it
}

func (f *fixture) key(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	k := map[string]types.AttributeValue{f.hot.PartitionKey: it[f.hot.PartitionKey]}
	if f.hot.SortKey != "" {
		k[f.hot.SortKey] = it[f.hot.SortKey]
	}
	return k
}

func (f *fixture) put(it map[string]types.AttributeValue) {
	_, err := f.tg.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.from), Item: it})
	require.NoError(f.t, err)
}

// notes lists the archiveNote of every item of a table, sorted.
func (f *fixture) notes(table string) []string {
	var out []string
	p := dynamodb.NewScanPaginator(f.tg.Client, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		require.NoError(f.t, err)
		for _, it := range page.Items {
			out = append(out, it["archiveNote"].(*types.AttributeValueMemberS).Value)
		}
	}
	sort.Strings(out)
	return out
}

// TestArchiveHistoryPattern runs the reference's history pattern on the
// embedded engine, for each example model: items of the hot table expire
// by the engine's clock and its TTL sweep deletes them; the archiver,
// reading the stream, copies exactly those into the history table, not
// the items a user deleted nor those alive; run again with its
// checkpoint, it archives only what expired since, across shards.
func TestArchiveHistoryPattern(t *testing.T) {
	for _, path := range models {
		t.Run(modelName(path), func(t *testing.T) {
			f := newFixture(t, path)
			ctx := context.Background()
			t0 := f.clk.Now()
			var want []string
			for i := 0; i < 40; i++ {
				switch i % 4 {
				case 0: // expires, changed once before
					f.put(f.item(i, t0.Add(time.Hour), "first"))
					f.put(f.item(i, t0.Add(time.Hour), "expired-"+strconv.Itoa(i)))
					want = append(want, "expired-"+strconv.Itoa(i))
				case 1: // would expire, but a user deletes it first
					it := f.item(i, t0.Add(time.Hour), "user-deleted")
					f.put(it)
					_, err := f.tg.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.from), Key: f.key(it)})
					require.NoError(t, err)
				default: // alive for a month
					f.put(f.item(i, t0.Add(30*24*time.Hour), "alive"))
				}
			}
			f.clk.Advance(2 * time.Hour)
			require.Equal(t, 10, f.tg.Engine.SweepExpired(f.clk.Now()))
			cp := filepath.Join(t.TempDir(), "archive.json")
			res, err := Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: cp})
			require.NoError(t, err)
			sort.Strings(want)
			assert.Equal(t, want, f.notes(f.to), "exactly the items TTL deleted, as they were")
			assert.Equal(t, 10, res.Archived)
			assert.Equal(t, 10, res.UserDeletes)
			assert.Equal(t, 10*2+10+20, res.Changes, "the puts of every item")
			assert.Equal(t, 10*3+10*2+20, res.Records)

			// An item archived whole: every attribute of its last version.
			got, err := f.tg.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.to), Key: f.key(f.item(0, t0, ""))})
			require.NoError(t, err)
			assert.Equal(t, f.item(0, t0.Add(time.Hour), "expired-0"), got.Item)

			// Five hours on (a new shard), more expire: a second run with the
			// checkpoint archives only those.
			f.clk.Advance(5 * time.Hour)
			t1 := f.clk.Now()
			for i := 100; i < 106; i++ {
				f.put(f.item(i, t1.Add(time.Minute), "late-"+strconv.Itoa(i)))
				want = append(want, "late-"+strconv.Itoa(i))
			}
			f.clk.Advance(time.Hour)
			require.Equal(t, 6, f.tg.Engine.SweepExpired(f.clk.Now()))
			res, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: cp})
			require.NoError(t, err)
			assert.Equal(t, 6, res.Archived, "only what expired since the last run")
			assert.Equal(t, 12, res.Records)
			assert.GreaterOrEqual(t, res.Shards, 1)
			sort.Strings(want)
			assert.Equal(t, want, f.notes(f.to))
			d, err := f.tg.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: streamARN(t, f)})
			require.NoError(t, err)
			assert.Len(t, d.StreamDescription.Shards, 2, "the records span two shards")

			// Without the checkpoint, a run reads everything again and
			// writes the same items (idempotent).
			res, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to})
			require.NoError(t, err)
			assert.Equal(t, 16, res.Archived)
			assert.Equal(t, want, f.notes(f.to))
		})
	}
}

func streamARN(t *testing.T, f *fixture) *string {
	d, err := f.tg.Client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(f.from)})
	require.NoError(t, err)
	return d.Table.LatestStreamArn
}

// failing makes GetRecords fail after a number of calls, as a crash of
// the archiver would stop it.
type failing struct {
	Streams
	left int
}

var errCrash = errors.New("the archiver was stopped")

func (s *failing) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, o ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	if s.left == 0 {
		return nil, errCrash
	}
	s.left--
	return s.Streams.GetRecords(ctx, in, o...)
}

// TestArchiveResumes stops the archiver after each page in turn: the
// next run, from the checkpoint, completes the history, every TTL
// deletion in it once.
func TestArchiveResumes(t *testing.T) {
	f := newFixture(t, models[0])
	ctx := context.Background()
	t0 := f.clk.Now()
	var want []string
	for i := 0; i < 2500; i++ { // three pages of 1,000 records
		f.put(f.item(i, t0.Add(time.Minute), "x-"+strconv.Itoa(i)))
		want = append(want, "x-"+strconv.Itoa(i))
	}
	f.clk.Advance(time.Hour)
	require.Equal(t, 2500, f.tg.Engine.SweepExpired(f.clk.Now()))
	cp := filepath.Join(t.TempDir(), "archive.json")
	archived := 0
	for pages := 0; ; pages++ {
		res, err := Run(ctx, f.tg.Client, &failing{Streams: f.tg.Streams, left: 2}, Options{From: f.from, To: f.to, Checkpoint: cp})
		archived += res.Archived
		if err == nil {
			break
		}
		require.ErrorIs(t, err, errCrash)
		require.Less(t, pages, 10)
	}
	assert.Equal(t, 2500, archived, "each TTL deletion archived once across the runs")
	sort.Strings(want)
	assert.Equal(t, want, f.notes(f.to))
}

// TestArchiveRefusals covers what the archiver refuses, and gaps.
func TestArchiveRefusals(t *testing.T) {
	f := newFixture(t, models[0])
	ctx := context.Background()
	var ie *input.Error
	_, err := Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: "t-nothing"})
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "table t-nothing does not exist", err.Error())
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.to, To: f.from})
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "has no stream")
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.from})
	require.ErrorAs(t, err, &ie)

	// A checkpoint of another run, and one that is not a checkpoint.
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"version":1,"from":"a-table","to":"b-table","streams":{}}`), 0o644))
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: other})
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "records the archive of a-table into b-table")
	junk := filepath.Join(dir, "junk.json")
	require.NoError(t, os.WriteFile(junk, []byte("PK\x03\x04"), 0o644))
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: junk})
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "not a checkpoint file")

	// A checkpoint left behind the trim point: an error, or with
	// SkipGaps a gap counted and the rest archived.
	cp := filepath.Join(dir, "cp.json")
	f.put(f.item(1, f.clk.Now().Add(time.Minute), "early"))
	f.clk.Advance(time.Hour)
	f.tg.Engine.SweepExpired(f.clk.Now())
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: cp})
	require.NoError(t, err)
	f.put(f.item(2, f.clk.Now().Add(time.Minute), "missed"))
	f.clk.Advance(25 * time.Hour) // the archiver did not run for a day
	f.put(f.item(3, f.clk.Now().Add(time.Minute), "kept"))
	f.clk.Advance(time.Hour)
	f.tg.Engine.SweepExpired(f.clk.Now())
	_, err = Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: cp})
	require.ErrorIs(t, err, ErrGap)
	res, err := Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Checkpoint: cp, SkipGaps: true})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Gaps)
	assert.Contains(t, f.notes(f.to), "kept")
}

// TestArchiveFollow follows the stream until its context ends.
func TestArchiveFollow(t *testing.T) {
	f := newFixture(t, models[0])
	ctx, cancel := context.WithCancel(context.Background())
	reports := make(chan Result, 100)
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, f.tg.Client, f.tg.Streams, Options{From: f.from, To: f.to, Follow: true, Poll: time.Millisecond,
			Report: func(r Result) { reports <- r }})
		done <- err
	}()
	f.put(f.item(7, f.clk.Now().Add(time.Minute), "followed"))
	f.clk.Advance(time.Hour)
	require.Equal(t, 1, f.tg.Engine.SweepExpired(f.clk.Now()))
	for r := range reports {
		if r.Archived == 1 {
			break
		}
	}
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, []string{"followed"}, f.notes(f.to))
}
