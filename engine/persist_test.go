package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/throughput"
)

// openData opens an engine on dir, failing the test on error.
func openData(t testing.TB, dir string, opts Options, d Data) *Engine {
	t.Helper()
	d.Dir = dir
	e, err := Open(opts, d)
	require.NoError(t, err)
	return e
}

// dump renders everything a client can see of an engine: tables with
// their definitions, items (in key order), index contents, TTL, and every
// stream with its shards and records.
func dump(t testing.TB, e *Engine) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	lt, err := e.ListTables(ctx, &ListTablesInput{})
	require.NoError(t, err)
	for _, name := range lt.TableNames {
		d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: name})
		require.NoError(t, err)
		td := *d.Table
		td.TableStatus = ""
		j, _ := json.Marshal(td)
		fmt.Fprintf(&b, "table %s\n", j)
		ttl, err := e.DescribeTimeToLive(ctx, &DescribeTimeToLiveInput{TableName: name})
		require.NoError(t, err)
		fmt.Fprintf(&b, "  ttl %s %s\n", ttl.TimeToLiveDescription.TimeToLiveStatus, ttl.TimeToLiveDescription.AttributeName)
		if tags, err := e.ListTagsOfResource(ctx, &ListTagsOfResourceInput{ResourceArn: td.TableArn}); err != nil {
			fmt.Fprintf(&b, "  tags %v\n", err)
		} else {
			fmt.Fprintf(&b, "  tags %v\n", tags.Tags)
		}
		scan := func(index string) {
			var start attr.Item
			for {
				out, err := e.Scan(ctx, &ScanInput{TableName: name, IndexName: index, ExclusiveStartKey: start})
				require.NoError(t, err)
				for _, it := range out.Items {
					fmt.Fprintf(&b, "  %s %s\n", index, attr.AppendItemJSON(nil, it))
				}
				if out.LastEvaluatedKey == nil {
					break
				}
				start = out.LastEvaluatedKey
			}
		}
		scan("")
		for _, g := range td.GlobalSecondaryIndexes {
			scan(g.IndexName)
		}
		for _, l := range td.LocalSecondaryIndexes {
			scan(l.IndexName)
		}
	}
	ls, err := e.ListStreams(ctx, &ListStreamsInput{})
	require.NoError(t, err)
	for _, s := range ls.Streams {
		d, err := e.DescribeStream(ctx, &DescribeStreamInput{StreamArn: s.StreamArn})
		require.NoError(t, err)
		sd := d.StreamDescription
		fmt.Fprintf(&b, "stream %s %s %s %s\n", sd.StreamArn, sd.StreamStatus, sd.StreamViewType, sd.TableName)
		for _, sh := range sd.Shards {
			fmt.Fprintf(&b, "  shard %s parent=%s %+v\n", sh.ShardId, sh.ParentShardId, *sh.SequenceNumberRange)
			it, err := e.GetShardIterator(ctx, &GetShardIteratorInput{StreamArn: s.StreamArn, ShardId: sh.ShardId, ShardIteratorType: "TRIM_HORIZON"})
			require.NoError(t, err)
			iter := it.ShardIterator
			for iter != "" {
				r, err := e.GetRecords(ctx, &GetRecordsInput{ShardIterator: iter})
				require.NoError(t, err)
				for _, rec := range r.Records {
					j, _ := rec.Dynamodb, 0
					fmt.Fprintf(&b, "    %s %s %v %s %s %s size=%d\n", rec.EventName, j.SequenceNumber, rec.UserIdentity,
						attr.AppendItemJSON(nil, j.Keys), attr.AppendItemJSON(nil, j.OldImage), attr.AppendItemJSON(nil, j.NewImage), j.SizeBytes)
				}
				if len(r.Records) == 0 {
					break
				}
				iter = r.NextShardIterator
			}
		}
	}
	return b.String()
}

// workload exercises every kind of change the log records.
func workload(t testing.TB, e *Engine, clk *throughput.ManualClock) {
	t.Helper()
	ctx := context.Background()
	must := func(_ any, err error) {
		t.Helper()
		require.NoError(t, err)
	}
	must(e.CreateTable(ctx, &CreateTableInput{TableName: "Hot", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "g1", AttributeType: "S"}, {AttributeName: "g2", AttributeType: "N"}, {AttributeName: "l", AttributeType: "S"}},
		KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "ByG", KeySchema: []KeySchemaElement{{AttributeName: "g1", KeyType: "HASH"}, {AttributeName: "g2", KeyType: "HASH"}},
			Projection: &Projection{ProjectionType: "KEYS_ONLY"}}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByL", KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"v"}}}},
		StreamSpecification: &StreamSpecification{StreamEnabled: ptr(true), StreamViewType: ViewNewAndOldImgs},
		Tags:                []Tag{{Key: "team", Value: "a"}},
	}))
	must(e.UpdateTimeToLive(ctx, &UpdateTimeToLiveInput{TableName: "Hot", TimeToLiveSpecification: &TimeToLiveSpecification{AttributeName: "exp", Enabled: ptr(true)}}))
	must(e.CreateTable(ctx, &CreateTableInput{TableName: "Cold", BillingMode: "PROVISIONED",
		ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: ptr[int64](5), WriteCapacityUnits: ptr[int64](7)},
		AttributeDefinitions:  []AttributeDefinition{{AttributeName: "id", AttributeType: "B"}},
		KeySchema:             []KeySchemaElement{{AttributeName: "id", KeyType: "HASH"}}}))
	must(e.CreateTable(ctx, &CreateTableInput{TableName: "Gone", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "id", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "id", KeyType: "HASH"}},
		StreamSpecification:  &StreamSpecification{StreamEnabled: ptr(true), StreamViewType: ViewKeysOnly}}))
	must(e.PutItem(ctx, &PutItemInput{TableName: "Gone", Item: attr.Item{{Name: "id", Value: attr.Str("x")}}}))
	must(e.DeleteTable(ctx, &DeleteTableInput{TableName: "Gone"}))
	hot := func(pk string, sk int, more ...attr.Field) attr.Item {
		return attr.Sorted(append([]attr.Field{{Name: "pk", Value: attr.Str(pk)}, {Name: "sk", Value: attr.Num(strconv.Itoa(sk))}}, more...))
	}
	for i := 0; i < 40; i++ {
		must(e.PutItem(ctx, &PutItemInput{TableName: "Hot", Item: hot("p"+strconv.Itoa(i%7), i,
			attr.Field{Name: "g1", Value: attr.Str("g" + strconv.Itoa(i%3))}, attr.Field{Name: "g2", Value: attr.Num(strconv.Itoa(i % 2))},
			attr.Field{Name: "l", Value: attr.Str("l" + strconv.Itoa(i))}, attr.Field{Name: "v", Value: attr.Str(strings.Repeat("v", i))},
			attr.Field{Name: "exp", Value: attr.Num(strconv.FormatInt(clk.Now().Unix()+int64(i%4)-2, 10))})}))
	}
	must(e.UpdateItem(ctx, &UpdateItemInput{TableName: "Hot", Key: hot("p1", 1), UpdateExpression: "SET v = :v ADD n :one REMOVE l",
		ExpressionAttributeValues: map[string]attr.Value{":v": attr.Str("updated"), ":one": attr.Num("1")}}))
	must(e.DeleteItem(ctx, &DeleteItemInput{TableName: "Hot", Key: hot("p2", 2)}))
	must(e.BatchWriteItem(ctx, &BatchWriteItemInput{RequestItems: map[string][]WriteRequest{
		"Hot":  {{PutRequest: &struct{ Item attr.Item }{hot("b", 1)}}, {DeleteRequest: &struct{ Key attr.Item }{hot("p3", 3)}}},
		"Cold": {{PutRequest: &struct{ Item attr.Item }{attr.Item{{Name: "id", Value: attr.Value{Type: attr.B, Str: "\x00\x01"}}}}}},
	}}))
	must(e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{TableName: "Hot", Item: hot("t", 1, attr.Field{Name: "v", Value: attr.Str("tx")})}},
		{Delete: &TransactDelete{TableName: "Hot", Key: hot("p4", 4)}},
		{Update: &TransactUpdate{TableName: "Cold", Key: attr.Item{{Name: "id", Value: attr.Value{Type: attr.B, Str: "\x00\x01"}}}, UpdateExpression: "SET c = :c",
			ExpressionAttributeValues: map[string]attr.Value{":c": attr.Num("3")}}},
	}}))
	require.Positive(t, e.SweepExpired(clk.Now()))
	must(e.UpdateTable(ctx, &UpdateTableInput{TableName: "Hot", AttributeDefinitions: []AttributeDefinition{{AttributeName: "v", AttributeType: "S"}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &GlobalSecondaryIndex{IndexName: "ByV",
			KeySchema: []KeySchemaElement{{AttributeName: "v", KeyType: "HASH"}}, Projection: &Projection{ProjectionType: "ALL"}}}}}))
	must(e.UpdateTable(ctx, &UpdateTableInput{TableName: "Cold", ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: ptr[int64](9), WriteCapacityUnits: ptr[int64](9)}}))
	must(e.TagResource(ctx, &TagResourceInput{ResourceArn: e.arn("Hot"), Tags: []Tag{{Key: "tier", Value: "1"}}}))
	clk.Advance(5 * time.Hour) // the next write opens a second shard
	must(e.PutItem(ctx, &PutItemInput{TableName: "Hot", Item: hot("late", 1)}))
	must(e.UpdateTable(ctx, &UpdateTableInput{TableName: "Cold", StreamSpecification: &StreamSpecification{StreamEnabled: ptr(true), StreamViewType: ViewOldImage}}))
	must(e.PutItem(ctx, &PutItemInput{TableName: "Cold", Item: attr.Item{{Name: "id", Value: attr.Value{Type: attr.B, Str: "k"}}}}))
	must(e.UpdateTable(ctx, &UpdateTableInput{TableName: "Cold", StreamSpecification: &StreamSpecification{StreamEnabled: ptr(false)}}))
	must(e.UpdateTable(ctx, &UpdateTableInput{TableName: "Hot", GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &struct{ IndexName string }{"ByG"}}}}))
}

// TestPersistRoundTrip restores, after a clean close, exactly what a
// client saw: definitions, items, indexes, TTL, tags, streams and their
// records; and goes on from there.
func TestPersistRoundTrip(t *testing.T) {
	for _, mode := range []SyncMode{SyncInterval, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			clk := newClock()
			e := openData(t, dir, Options{Now: clk.Now}, Data{Sync: mode})
			workload(t, e, clk)
			before := dump(t, e)
			require.NoError(t, e.Close())
			_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Hot", Item: item("after", 1)})
			assert.Equal(t, "the engine is closed", errType(t, err, ErrInternal).Message)

			e2 := openData(t, dir, Options{Now: clk.Now}, Data{Sync: mode})
			assert.Equal(t, before, dump(t, e2))
			rec := e2.Recovered()
			assert.Equal(t, 2, rec.Tables)
			assert.Empty(t, rec.Cut)
			assert.Positive(t, rec.Records)
			// Life goes on: new tables are numbered past the old ones,
			// new stream records follow the old ones.
			ctx := context.Background()
			_, err = e2.PutItem(ctx, &PutItemInput{TableName: "Hot", Item: item("again", 1)})
			require.NoError(t, err)
			newTable(t, e2)
			after := dump(t, e2)
			require.NoError(t, e2.Close())
			e3 := openData(t, dir, Options{Now: clk.Now}, Data{Sync: mode})
			assert.Equal(t, after, dump(t, e3))
			require.NoError(t, e3.Close())
		})
	}
}

// TestPersistSnapshots forces many snapshots while writers run, and
// checks that the state survives whole and the directory stays compact.
func TestPersistSnapshots(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	e := openData(t, dir, Options{Now: clk.Now}, Data{SnapshotBytes: 8 << 10})
	workload(t, e, clk)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				it := item("w"+strconv.Itoa(w), i, attr.Field{Name: "pad", Value: attr.Str(strings.Repeat("x", 64))})
				if i%10 == 9 {
					_, err := e.DeleteItem(ctx, &DeleteItemInput{TableName: "Hot", Key: item("w"+strconv.Itoa(w), i-1)})
					assert.NoError(t, err)
					continue
				}
				_, err := e.PutItem(ctx, &PutItemInput{TableName: "Hot", Item: it})
				assert.NoError(t, err)
			}
		}(w)
	}
	wg.Wait()
	e.data.snaps.Wait()
	before := dump(t, e)
	require.NoError(t, e.Close())
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	var snaps, logs int
	for _, f := range files {
		switch {
		case strings.HasSuffix(f.Name(), ".cds"):
			snaps++
		case strings.HasSuffix(f.Name(), ".cdl"):
			logs++
		}
	}
	assert.Equal(t, 1, snaps, "older snapshots are removed")
	assert.LessOrEqual(t, logs, 2, "the segments a snapshot covers are removed")
	e2 := openData(t, dir, Options{Now: clk.Now}, Data{})
	assert.NotEmpty(t, e2.Recovered().Snapshot)
	assert.Equal(t, before, dump(t, e2))
	require.NoError(t, e2.Close())
}

// segmentFrames returns the offsets where the frames of a segment end.
func segmentFrames(t *testing.T, path string) []int64 {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(t, err)
	_, err = f.Seek(fileHeader, 0)
	require.NoError(t, err)
	fr := newFrameReader(f, fileHeader, st.Size())
	var ends []int64
	for {
		_, err := fr.next()
		if err == errEnd {
			return ends
		}
		require.NoError(t, err)
		ends = append(ends, fr.off)
	}
}

// lastSegment returns the path of the highest log segment in dir.
func lastSegment(t *testing.T, dir string) string {
	m, err := filepath.Glob(filepath.Join(dir, "log-*.cdl"))
	require.NoError(t, err)
	require.NotEmpty(t, m)
	sort.Strings(m)
	return m[len(m)-1]
}

func copyDir(t *testing.T, from string) string {
	to := t.TempDir()
	files, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, f := range files {
		if f.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, f.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, f.Name()), b, 0o644))
	}
	return to
}

// TestPersistTornTail cuts the log at every byte of its last records:
// recovery keeps exactly the records before the cut, says so, and the
// same directory then reopens cleanly.
func TestPersistTornTail(t *testing.T) {
	dir := t.TempDir()
	e := openData(t, dir, Options{}, Data{})
	newTable(t, e)
	ctx := context.Background()
	const n = 6
	var states []string
	states = append(states, dump(t, e))
	for i := 0; i < n; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k", i, attr.Field{Name: "v", Value: attr.Str(strings.Repeat("z", i*3))})})
		require.NoError(t, err)
		states = append(states, dump(t, e))
	}
	require.NoError(t, e.Close())
	seg := lastSegment(t, dir)
	ends := segmentFrames(t, seg)
	full, err := os.ReadFile(seg)
	require.NoError(t, err)
	first := ends[len(ends)-n-1] // the end of the table's definition
	for cut := first; cut < int64(len(full)); cut++ {
		work := copyDir(t, dir)
		require.NoError(t, os.Truncate(filepath.Join(work, filepath.Base(seg)), cut))
		var logged []string
		e, err := Open(Options{}, Data{Dir: work, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
		require.NoError(t, err, "cut at %d", cut)
		whole := sort.Search(len(ends), func(i int) bool { return ends[i] > cut }) // frames intact
		puts := whole - (len(ends) - n)
		assert.Equal(t, states[puts], dump(t, e), "cut at %d", cut)
		if cut == ends[whole-1] {
			assert.Empty(t, e.Recovered().Cut, "cut at %d, a frame boundary", cut)
		} else {
			assert.Contains(t, e.Recovered().Cut, "a torn frame", "cut at %d", cut)
			require.Len(t, logged, 1)
			assert.Contains(t, logged[0], fmt.Sprintf("at byte %d", ends[whole-1]))
		}
		// Writing on, and opening again, works from the cut.
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k", 99)})
		require.NoError(t, err)
		want := dump(t, e)
		require.NoError(t, e.Close())
		e = openData(t, work, Options{}, Data{})
		assert.Equal(t, want, dump(t, e))
		assert.Empty(t, e.Recovered().Cut)
		require.NoError(t, e.Close())
	}
}

// TestPersistDamage flips bytes: in the last segment the log is cut at
// the damaged record; in a snapshot, or in a segment that others follow,
// Open refuses with a message naming the file.
func TestPersistDamage(t *testing.T) {
	dir := t.TempDir()
	e := openData(t, dir, Options{}, Data{})
	newTable(t, e)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k", i)})
		require.NoError(t, err)
	}
	require.NoError(t, e.Close())
	seg := lastSegment(t, dir)
	ends := segmentFrames(t, seg)

	work := copyDir(t, dir)
	b, _ := os.ReadFile(filepath.Join(work, filepath.Base(seg)))
	b[ends[2]+12] ^= 0x40 // inside the third put
	require.NoError(t, os.WriteFile(filepath.Join(work, filepath.Base(seg)), b, 0o644))
	e, err := Open(Options{}, Data{Dir: work})
	require.NoError(t, err)
	assert.Contains(t, e.Recovered().Cut, "checksum does not match")
	assert.Contains(t, e.Recovered().Cut, fmt.Sprintf("at byte %d", ends[2]))
	out, err := e.Scan(ctx, &ScanInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, 2, out.Count, "the puts before the damaged one")
	kept, err := filepath.Glob(filepath.Join(work, "*.damaged-*"))
	require.NoError(t, err)
	assert.Len(t, kept, 1, "the bytes cut are kept")
	require.NoError(t, e.Close())

	// Damage in a segment that another follows.
	work = copyDir(t, dir)
	b, _ = os.ReadFile(filepath.Join(work, filepath.Base(seg)))
	b[ends[2]+12] ^= 0x40
	require.NoError(t, os.WriteFile(filepath.Join(work, filepath.Base(seg)), b, 0o644))
	next := filepath.Join(work, segmentName(fileNumber(filepath.Base(seg), "log-", ".cdl")+1))
	require.NoError(t, os.WriteFile(next, appendFileHeader(nil, logMagic, fileNumber(filepath.Base(next), "log-", ".cdl")), 0o644))
	_, err = Open(Options{}, Data{Dir: work})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is damaged at byte")
	assert.Contains(t, err.Error(), "later segments follow it")

	// A damaged snapshot.
	e = openData(t, dir, Options{}, Data{SnapshotBytes: 1})
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k", 50)})
	require.NoError(t, err)
	e.data.snaps.Wait()
	require.NoError(t, e.Close())
	snaps, _ := filepath.Glob(filepath.Join(dir, "snap-*.cds"))
	require.Len(t, snaps, 1)
	b, _ = os.ReadFile(snaps[0])
	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(snaps[0], b, 0o644))
	_, err = Open(Options{}, Data{Dir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "snapshot "+snaps[0]+" is damaged")
}

// TestLogBuffersNeverShared: the buffer writers append to is never the
// one the flusher is writing, whatever the sizes of the flushes before.
func TestLogBuffersNeverShared(t *testing.T) {
	s := &store{}
	s.buf = append(s.buf, make([]byte, 10)...)
	s.recycle(s.swap()) // small: kept as the spare
	s.buf = append(s.buf, make([]byte, 2*maxSpare)...)
	s.recycle(s.swap()) // large: not kept
	s.buf = append(s.buf, 'x')
	b := s.swap()              // the flusher writes b...
	s.buf = append(s.buf, 'y') // ...while a writer appends
	assert.Equal(t, []byte("x"), b, "a writer's append overwrote the bytes being written")
	// Every buffer the flusher takes, whatever became of the ones
	// before, is distinct from the one writers then append to.
	for _, n := range []int{1, flushEarly, maxSpare, maxSpare + 1, 3 * maxSpare, 10} {
		s.buf = append(s.buf, make([]byte, n)...)
		taken := s.swap()
		if cap(s.buf) > 0 {
			assert.NotSame(t, &taken[:1][0], &s.buf[:1][0], "after %d bytes: the buffer being written handed to writers", n)
		}
		first := taken[0]
		s.buf = append(s.buf, ^first)
		assert.Equal(t, first, taken[0], "after %d bytes: a writer's append overwrote the bytes being written", n)
		s.recycle(taken)
	}
}

// TestPersistLargeRecordsReopen writes records that make flushes too
// large to recycle, from concurrent writers, and reopens: the log is
// whole (no cut) and holds every item.
func TestPersistLargeRecordsReopen(t *testing.T) {
	for _, mode := range []SyncMode{SyncAlways, SyncInterval} {
		dir := t.TempDir()
		e := openData(t, dir, Options{}, Data{Sync: mode})
		newTable(t, e)
		ctx := context.Background()
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 12; i++ {
					_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("k", w*100+i, attr.Field{Name: "v", Value: attr.Str(strings.Repeat(string(rune('a'+w)), 300<<10))})})
					assert.NoError(t, err)
				}
			}()
		}
		wg.Wait()
		want := dump(t, e)
		require.NoError(t, e.Close())
		e = openData(t, dir, Options{}, Data{Sync: mode})
		assert.Empty(t, e.Recovered().Cut, "%v", mode)
		got := dump(t, e)
		assert.True(t, want == got, "%v: the reopened tables differ (%d bytes of dump, %d before)", mode, len(got), len(want))
		require.NoError(t, e.Close())
	}
}

// TestPersistLocked refuses a second engine on a directory in use.
func TestPersistLocked(t *testing.T) {
	dir := t.TempDir()
	e := openData(t, dir, Options{}, Data{})
	_, err := Open(Options{}, Data{Dir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in use by another engine")
	require.NoError(t, e.Close())
	e = openData(t, dir, Options{}, Data{})
	require.NoError(t, e.Close())
}

// crashCopy copies the directory of a running engine as a kill -9 would
// leave it at one instant: every file as the writes made so far left it
// (the engine's changes to its files wait for the copy). during runs
// once the files are held, before they are copied.
func crashCopy(t *testing.T, e *Engine, during func()) string {
	t.Helper()
	e.data.files.Lock()
	defer e.data.files.Unlock()
	during()
	return copyDir(t, e.data.dir)
}

// TestPersistCrashCopy copies the directory of an engine under load, as
// a crash would leave it, again and again until copies have been taken
// while the log grew and after snapshots: each copy
// opens without damage to a state whose every item is one a writer
// wrote, whose transactions are whole, and, under SyncAlways, holding
// every transaction acknowledged before the copy. Copies are taken after
// so many acknowledged transactions, not after a time, and the engine's
// file changes wait during a copy, so what a copy holds is a state the
// directory was in whatever the machine's load.
func TestPersistCrashCopy(t *testing.T) {
	for _, mode := range []SyncMode{SyncInterval, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			e := openData(t, dir, Options{}, Data{Sync: mode, Interval: time.Millisecond, SnapshotBytes: 16 << 10})
			newTable(t, e)
			ctx := context.Background()
			const writers, keys = 2, 50
			var mu sync.Mutex
			progress := sync.NewCond(&mu)
			var acked [writers]int // per writer: transactions acknowledged, the i-th writing value i
			total := 0
			stop := make(chan struct{})
			var wg sync.WaitGroup
			defer func() {
				close(stop)
				mu.Lock()
				progress.Broadcast()
				mu.Unlock()
				wg.Wait()
				require.NoError(t, e.Close())
			}()
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					ws := strconv.Itoa(w)
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						v := attr.Str(strconv.Itoa(i))
						// Two items written together, always with the same value.
						_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
							{Put: &TransactPut{TableName: "Tab", Item: item("a"+ws, i%keys, attr.Field{Name: "v", Value: v})}},
							{Put: &TransactPut{TableName: "Tab", Item: item("b"+ws, i%keys, attr.Field{Name: "v", Value: v})}},
						}})
						if err != nil {
							t.Errorf("writer %d: %v", w, err)
							return
						}
						mu.Lock()
						acked[w] = i + 1
						total++
						progress.Broadcast()
						mu.Unlock()
					}
				}(w)
			}
			var copies, fromSnapshot, segments int
			for copies < 8 || fromSnapshot < 2 {
				mu.Lock()
				for want := (copies + 1) * 150; total < want && !t.Failed(); {
					progress.Wait()
				}
				mu.Unlock()
				require.False(t, t.Failed())
				var before [writers]int
				work := crashCopy(t, e, func() {
					mu.Lock()
					before = acked
					mu.Unlock()
				})
				copies++
				e2, err := Open(Options{}, Data{Dir: work})
				require.NoError(t, err)
				rec := e2.Recovered()
				assert.Empty(t, rec.Cut, "copy %d: a log cut, though every write was whole", copies)
				if rec.Snapshot != "" {
					fromSnapshot++
				}
				segments = max(segments, rec.Segments)
				out, err := e2.Scan(ctx, &ScanInput{TableName: "Tab"})
				var nf *Error
				if mode == SyncInterval && errors.As(err, &nf) && nf.Type == ErrResourceNotFound {
					// Under interval a copy taken in the first
					// milliseconds may precede the table's creation on
					// disk: a kill -9 then loses it, as documented.
					out, err = &ScanOutput{}, nil
				}
				require.NoError(t, err)
				require.Nil(t, out.LastEvaluatedKey)
				vals := map[string]int{}
				for _, it := range out.Items {
					pk, _ := it.Get("pk")
					sk, _ := it.Get("sk")
					v, _ := it.Get("v")
					n, err := strconv.Atoi(v.Str)
					require.NoError(t, err)
					vals[pk.Str+"/"+sk.Str] = n
				}
				mu.Lock()
				now := acked
				mu.Unlock()
				for w := 0; w < writers; w++ {
					ws := strconv.Itoa(w)
					for k := 0; k < keys; k++ {
						a, aok := vals["a"+ws+"/"+strconv.Itoa(k)]
						b, bok := vals["b"+ws+"/"+strconv.Itoa(k)]
						require.Equal(t, aok, bok, "copy %d: writer %d key %d: a transaction half applied", copies, w, k)
						if aok {
							require.Equal(t, a, b, "copy %d: writer %d key %d: a transaction half applied", copies, w, k)
							require.Equal(t, k, a%keys, "copy %d: writer %d key %d holds a value never written there", copies, w, k)
							require.LessOrEqual(t, a, now[w], "copy %d: writer %d key %d holds a value not yet written", copies, w, k)
						}
						if mode != SyncAlways {
							continue
						}
						// The last transaction acknowledged before the copy
						// that wrote key k.
						last := before[w] - 1 - ((before[w]-1-k)%keys+keys)%keys
						if last >= 0 {
							require.True(t, aok, "copy %d: writer %d key %d: acknowledged transaction %d lost", copies, w, k, last)
							require.GreaterOrEqual(t, a, last, "copy %d: writer %d key %d: acknowledged transaction %d lost", copies, w, k, last)
						}
					}
				}
				require.NoError(t, e2.Close())
				require.NoError(t, os.RemoveAll(work))
			}
			mu.Lock()
			n := total
			mu.Unlock()
			t.Logf("%d copies, %d from a snapshot, up to %d segments replayed, %d transactions", copies, fromSnapshot, segments, n)
		})
	}
}

// TestPersistCompactsAcrossRestarts: the log replayed at start counts
// toward the next snapshot, so that a server restarted before it has
// written Data.SnapshotBytes each time still compacts its log (before,
// each start counted from zero: the log and the time to start grew
// without bound, 82 MB and 5 s after eight restarts of a few seconds).
func TestPersistCompactsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	ctx := context.Background()
	const snapAt = 16 << 10
	files := func() (snaps, logBytes int64) {
		m, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, f := range m {
			info, err := f.Info()
			require.NoError(t, err)
			switch {
			case strings.HasSuffix(f.Name(), ".cds"):
				snaps++
			case strings.HasSuffix(f.Name(), ".cdl"):
				logBytes += info.Size()
			}
		}
		return snaps, logBytes
	}
	for session := 0; session < 6; session++ {
		e := openData(t, dir, Options{Now: clk.Now}, Data{SnapshotBytes: snapAt})
		if session == 0 {
			_, err := e.CreateTable(ctx, &CreateTableInput{TableName: "Hot", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"}},
				KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}})
			require.NoError(t, err)
		}
		// About half of snapAt of log in each session.
		for i := 0; i < 16; i++ {
			_, err := e.PutItem(ctx, &PutItemInput{TableName: "Hot", Item: item("s"+strconv.Itoa(session), i,
				attr.Field{Name: "pad", Value: attr.Str(strings.Repeat("x", 400))})})
			require.NoError(t, err)
		}
		e.data.snaps.Wait()
		require.NoError(t, e.Close())
	}
	snaps, logBytes := files()
	assert.GreaterOrEqual(t, snaps, int64(1), "the log is compacted though no session wrote a snapshot's worth")
	assert.Less(t, logBytes, int64(2*snapAt), "the log after the last snapshot stays below two snapshots' worth")
	e := openData(t, dir, Options{Now: clk.Now}, Data{})
	out, err := e.Scan(ctx, &ScanInput{TableName: "Hot", Select: "COUNT"})
	require.NoError(t, err)
	assert.Equal(t, 6*16, out.Count)
	require.NoError(t, e.Close())
}

// TestPersistItemsEncodedInPlace: items logged by a table without a
// stream are written straight into the log's buffer (single writes) or
// through the transaction's scratch (one buffer reused for each change
// of a group): after many writes of different sizes, in both ways, the
// reopened engine holds each item exactly; a put that leaves its item
// as it was is not logged, one that changes it is.
func TestPersistItemsEncodedInPlace(t *testing.T) {
	dir := t.TempDir()
	e := openData(t, dir, Options{}, Data{Sync: SyncAlways})
	newTable(t, e)
	ctx := context.Background()
	val := func(i int) attr.Field {
		return attr.Field{Name: "v", Value: attr.Str(strings.Repeat(string(rune('a'+i%26)), 1+(i*37)%900))}
	}
	for i := 0; i < 200; i++ {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("p", i, val(i), attr.Field{Name: "n" + strconv.Itoa(i%5), Value: attr.Num(strconv.Itoa(i))})})
		require.NoError(t, err)
	}
	for i := 0; i < 20; i++ {
		var items []TransactWriteItem
		for j := 0; j < 10; j++ {
			k := i*10 + j
			items = append(items, TransactWriteItem{Put: &TransactPut{TableName: "Tab", Item: item("t", k, val(1000-k))}})
		}
		items = append(items, TransactWriteItem{Delete: &TransactDelete{TableName: "Tab", Key: item("p", i)}})
		_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: items})
		require.NoError(t, err)
	}
	e.data.mu.Lock()
	before := e.data.appended
	e.data.mu.Unlock()
	again := item("p", 150, val(150), attr.Field{Name: "n0", Value: attr.Num("150")})
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: again})
	require.NoError(t, err)
	e.data.mu.Lock()
	assert.Equal(t, before, e.data.appended, "a put leaving its item as it was was logged")
	e.data.mu.Unlock()
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("p", 150, val(151))})
	require.NoError(t, err)
	e.data.mu.Lock()
	assert.Greater(t, e.data.appended, before, "a put changing its item was not logged")
	e.data.mu.Unlock()
	want := dump(t, e)
	require.NoError(t, e.Close())
	e = openData(t, dir, Options{}, Data{Sync: SyncAlways})
	defer e.Close()
	assert.Empty(t, e.Recovered().Cut)
	assert.Equal(t, want, dump(t, e))
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("t", 57)})
	require.NoError(t, err)
	assert.True(t, attr.EqualItems(item("t", 57, val(1000-57)), got.Item), "%v", got.Item)
}

// TestPersistLeanPuts: on a logged table without an index or a stream a
// put that asks nothing of the item it replaces does not decode it (the
// log takes the new version alone), and what is logged restores exactly:
// replaced items, an unchanged put (not logged) and a delete among them.
func TestPersistLeanPuts(t *testing.T) {
	dir := t.TempDir()
	e := openData(t, dir, Options{}, Data{Sync: SyncAlways})
	tb := recordTable(t, e, "Lean", "S", "N")
	ctx := context.Background()
	put := func(i, v int) {
		it := attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str("p" + strconv.Itoa(i%7))}, {Name: "sk", Value: attr.Num(strconv.Itoa(i))},
			{Name: "v", Value: attr.Str(strings.Repeat("v", v%300))}, {Name: "n" + strconv.Itoa(v%3), Value: attr.Num(strconv.Itoa(v))}})
		w, err := e.prepareWrite(tb, putKind, it, nil, "", "", nil, nil, "")
		require.NoError(t, err)
		w.lean = true
		_, err = e.single(ctx, w)
		require.NoError(t, err)
		assert.Nil(t, w.oldItem, "a lean put decodes nothing")
		require.NoError(t, e.durable())
	}
	for round := 0; round < 4; round++ {
		for i := 0; i < 50; i++ {
			put(i, i*round+round)
		}
	}
	e.data.mu.Lock()
	before := e.data.appended
	e.data.mu.Unlock()
	put(10, 10*3+3) // as it is
	e.data.mu.Lock()
	assert.Equal(t, before, e.data.appended, "an unchanged lean put was logged")
	e.data.mu.Unlock()
	_, err := e.DeleteItem(ctx, &DeleteItemInput{TableName: "Lean", Key: attr.Item{{Name: "pk", Value: attr.Str("p3")}, {Name: "sk", Value: attr.Num("10")}}})
	require.NoError(t, err)
	_, err = e.PutItem(ctx, &PutItemInput{TableName: "Lean", Item: attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str("p1")}, {Name: "sk", Value: attr.Num("1")}, {Name: "w", Value: attr.Bool(true)}})})
	require.NoError(t, err)
	want := dump(t, e)
	require.NoError(t, e.Close())
	e = openData(t, dir, Options{}, Data{Sync: SyncAlways})
	defer e.Close()
	assert.Empty(t, e.Recovered().Cut)
	assert.Equal(t, want, dump(t, e))
	out, err := e.Scan(ctx, &ScanInput{TableName: "Lean", Select: "COUNT"})
	require.NoError(t, err)
	assert.Equal(t, 49, out.Count)
}
