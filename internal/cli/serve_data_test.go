package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets a test run the real command in a child process: the
// test binary, started with CARDAPIO_TEST_MAIN=1, is cardapio.
func TestMain(m *testing.M) {
	if os.Getenv("CARDAPIO_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child is cardapio serve running in its own process.
type child struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	done   chan error
}

// startServe starts `cardapio serve args...` in a child process on a
// free loopback port and waits until it listens.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "CARDAPIO_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &child{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if _, url, ok := strings.Cut(lines.Text(), "listening on "); ok {
			c.url = url
			break
		}
	}
	go io.Copy(io.Discard, out)
	go func() { c.done <- cmd.Wait() }()
	if c.url == "" {
		<-c.done
		t.Fatalf("the server did not start: %s", c.stderr)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	return c
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// stop sends SIGTERM and returns the exit code.
func (c *child) stop(t *testing.T) int {
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	err := <-c.done
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		return xe.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// clients returns SDK clients of both APIs on url, with the given
// attempts per request: writers send each request once, so that an
// answer is exactly what the server acknowledged; readers retry (the
// SDK, now and then, reads a response on a connection its own request
// writer has just closed: aws/aws-sdk-go-v2 issues 1825 and 2737).
func clients(url string, attempts int) (*dynamodb.Client, *dynamodbstreams.Client) {
	creds := credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	r := func() aws.Retryer { return retry.AddWithMaxAttempts(retry.NewStandard(), attempts) }
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), Credentials: creds, HTTPClient: hc, Retryer: r()}),
		dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), Credentials: creds, HTTPClient: hc, Retryer: r()})
}

// acked is what the writers were told succeeded, and what they tried.
type acked struct {
	mu      sync.Mutex
	puts    map[string]string // key -> value of the last acknowledged put
	deleted map[string]bool   // keys whose last acknowledged change is a delete
	tried   map[string]map[string]bool
	incs    map[string][2]int // counter -> acknowledged, attempted
	pairs   map[string]string // transaction pairs acknowledged: key -> value
	// uncertain are the keys of the requests that failed (the kill, or a
	// connection lost): applied or not, the client cannot know, until a
	// later change of the key is acknowledged.
	uncertain map[string]bool
	n         atomic.Int64
	killed    atomic.Bool
}

// TestServeDataSurvivesKill runs cardapio serve --data in a child
// process, writes to it from 8 clients (puts, updates, deletes,
// transactions, on a table with an index and a stream), kills it with
// SIGKILL in the middle of the load, and restarts it on the same
// directory. Under --sync always every acknowledged write must be there;
// under interval what is there must be a consistent prefix (every item
// one that was written, transactions whole). The stream survives too.
func TestServeDataSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, mode := range []string{"always", "interval"} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			srv := startChild(t, "--data", dir, "--sync", mode, "--sync-interval", "20ms")
			db, _ := clients(srv.url, 1)
			ctx := context.Background()
			_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName:            aws.String("Ledger"),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("w"), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("ByWriter"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("w"), KeyType: types.KeyTypeHash}},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
				BillingMode:         types.BillingModePayPerRequest,
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
			})
			require.NoError(t, err)

			a := &acked{puts: map[string]string{}, deleted: map[string]bool{}, tried: map[string]map[string]bool{}, incs: map[string][2]int{}, pairs: map[string]string{}, uncertain: map[string]bool{}}
			const target = 1500
			var wg sync.WaitGroup
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					ws := strconv.Itoa(w)
					for i := 0; ; i++ {
						key, val := "k-"+ws+"-"+strconv.Itoa(i%200), strconv.Itoa(i)
						a.mu.Lock()
						if a.tried[key] == nil {
							a.tried[key] = map[string]bool{}
						}
						a.tried[key][val] = true
						a.mu.Unlock()
						var err error
						switch i % 10 {
						case 3: // a counter
							ctr := "ctr-" + ws
							a.mu.Lock()
							c := a.incs[ctr]
							c[1]++
							a.incs[ctr] = c
							a.mu.Unlock()
							key = ctr
							_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Ledger"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: ctr}},
								UpdateExpression: aws.String("ADD n :one SET w = :w"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":w": &types.AttributeValueMemberS{Value: ws}}})
							if err == nil {
								a.mu.Lock()
								c := a.incs[ctr]
								c[0]++
								a.incs[ctr] = c
								a.mu.Unlock()
							}
						case 7: // a delete
							_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Ledger"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}}})
							if err == nil {
								a.mu.Lock()
								delete(a.puts, key)
								delete(a.uncertain, key)
								a.deleted[key] = true
								a.mu.Unlock()
							}
						case 9: // a transaction of two items
							pa, pb := "ta-"+ws+"-"+strconv.Itoa(i%50), "tb-"+ws+"-"+strconv.Itoa(i%50)
							key = pa
							item := func(pk string) map[string]types.AttributeValue {
								return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: val}, "w": &types.AttributeValueMemberS{Value: ws}}
							}
							_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
								{Put: &types.Put{TableName: aws.String("Ledger"), Item: item(pa)}}, {Put: &types.Put{TableName: aws.String("Ledger"), Item: item(pb)}}}})
							if err == nil {
								a.mu.Lock()
								a.pairs[pa] = val
								a.mu.Unlock()
							}
						default:
							_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Ledger"), Item: map[string]types.AttributeValue{
								"pk": &types.AttributeValueMemberS{Value: key}, "v": &types.AttributeValueMemberS{Value: val}, "w": &types.AttributeValueMemberS{Value: ws},
								"pad": &types.AttributeValueMemberS{Value: strings.Repeat("p", 100)}}})
							if err == nil {
								a.mu.Lock()
								a.puts[key] = val
								delete(a.uncertain, key)
								delete(a.deleted, key)
								a.mu.Unlock()
							}
						}
						if err != nil {
							a.mu.Lock()
							a.uncertain[key] = true
							a.mu.Unlock()
							if a.killed.Load() {
								return // the server is gone
							}
							continue
						}
						if a.n.Add(1) == target {
							a.killed.Store(true)
							srv.kill() // in the middle of the other writers' requests
						}
					}
				}(w)
			}
			wg.Wait()
			require.GreaterOrEqual(t, a.n.Load(), int64(target))

			again := startChild(t, "--data", dir, "--sync", mode)
			db, streams := clients(again.url, 5)
			got := map[string]map[string]types.AttributeValue{}
			p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String("Ledger")})
			for p.HasMorePages() {
				page, err := p.NextPage(ctx)
				require.NoError(t, err)
				for _, it := range page.Items {
					got[it["pk"].(*types.AttributeValueMemberS).Value] = it
				}
			}
			value := func(it map[string]types.AttributeValue, name string) string {
				switch v := it[name].(type) {
				case *types.AttributeValueMemberS:
					return v.Value
				case *types.AttributeValueMemberN:
					return v.Value
				}
				return ""
			}
			lost := 0
			for key, val := range a.puts {
				it, ok := got[key]
				switch {
				case a.uncertain[key]:
				case !ok:
					lost++
				case mode == "always":
					assert.Equal(t, val, value(it, "v"), "%s: the last acknowledged put", key)
				}
			}
			for key := range a.deleted {
				if _, ok := got[key]; ok && mode == "always" && !a.uncertain[key] {
					t.Errorf("%s: an acknowledged delete lost", key)
				}
			}
			for key, it := range got {
				switch {
				case strings.HasPrefix(key, "k-"):
					assert.True(t, a.tried[key][value(it, "v")], "%s holds %q, never written", key, value(it, "v"))
				case strings.HasPrefix(key, "ctr-"):
					n, _ := strconv.Atoi(value(it, "n"))
					c := a.incs[key]
					assert.LessOrEqual(t, n, c[1], "%s counts more increments than were sent", key)
					if mode == "always" {
						assert.GreaterOrEqual(t, n, c[0], "%s lost acknowledged increments", key)
					}
				case strings.HasPrefix(key, "ta-"):
					other := got["tb-"+strings.TrimPrefix(key, "ta-")]
					require.NotNil(t, other, "%s without its pair: a transaction half applied", key)
					assert.Equal(t, value(it, "v"), value(other, "v"), "%s: a transaction half applied", key)
				}
			}
			for pa, val := range a.pairs {
				if mode == "always" {
					require.Contains(t, got, pa)
					v, _ := strconv.Atoi(value(got[pa], "v"))
					want, _ := strconv.Atoi(val)
					assert.GreaterOrEqual(t, v, want, "%s: an acknowledged transaction lost", pa)
				}
			}
			if mode == "always" {
				assert.Zero(t, lost, "acknowledged puts lost under --sync always")
			}
			t.Logf("sync %s: %d writes acknowledged before and during the kill; %d of %d acknowledged puts missing after the restart",
				mode, a.n.Load(), lost, len(a.puts))

			// The index was rebuilt, and the stream kept its records.
			q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Ledger"), IndexName: aws.String("ByWriter"),
				KeyConditionExpression: aws.String("w = :w"), ExpressionAttributeValues: map[string]types.AttributeValue{":w": &types.AttributeValueMemberS{Value: "0"}}})
			require.NoError(t, err, "server: %s", again.stderr)
			want := 0
			for _, it := range got {
				if value(it, "w") == "0" {
					want++
				}
			}
			assert.Equal(t, int32(want), q.Count)
			ls, err := streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Ledger")})
			require.NoError(t, err)
			require.Len(t, ls.Streams, 1)
			d, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: ls.Streams[0].StreamArn})
			require.NoError(t, err)
			last := map[string]string{}
			for _, sh := range d.StreamDescription.Shards {
				it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: ls.Streams[0].StreamArn, ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
				require.NoError(t, err)
				for iter := it.ShardIterator; iter != nil; {
					r, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
					require.NoError(t, err)
					for _, rec := range r.Records {
						k := rec.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value
						if v, ok := rec.Dynamodb.NewImage["v"].(*st.AttributeValueMemberS); ok {
							last[k] = v.Value
						} else {
							last[k] = ""
						}
					}
					if len(r.Records) == 0 {
						break
					}
					iter = r.NextShardIterator
				}
			}
			for key, it := range got {
				if strings.HasPrefix(key, "k-") {
					assert.Equal(t, value(it, "v"), last[key], "%s: the stream's last record is the item", key)
				}
			}
			assert.Equal(t, 0, again.stop(t), again.stderr.String())
		})
	}
}

// TestServeDataFlags checks --data's flags and what serve says of them.
func TestServeDataFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--sync", "always"},
		{"--sync-interval", "1s"},
		{"--data", t.TempDir(), "--sync", "sometimes"},
		{"--data", t.TempDir(), "--sync-interval", "0s"},
	} {
		var stderr bytes.Buffer
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), nil, io.Discard, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v: %s", args, stderr.String())
		assert.NotEmpty(t, stderr.String())
	}
	var help bytes.Buffer
	Main([]string{"serve", "--help"}, nil, &help, io.Discard)
	assert.Contains(t, help.String(), "every table, item and stream is\nlost when the server stops")
	assert.Contains(t, help.String(), "kill -9, or a power cut, loses no acknowledged write")

	// A directory another server holds is refused (exit 1).
	dir := t.TempDir()
	first := startChild(t, "--data", dir)
	var stderr bytes.Buffer
	code := Main([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, nil, io.Discard, &stderr)
	assert.Equal(t, ExitInternal, code)
	assert.Contains(t, stderr.String(), "in use by another engine")
	assert.Equal(t, 0, first.stop(t))
}

// TestServeDataSharedSwitch: a data directory kept with --shared, served
// later without it (or the other way round), shows none of its tables:
// the server says so on stderr instead of starting silently empty, and
// the tables are still there with the flag given again.
func TestServeDataSharedSwitch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	create := func(url, name string) {
		db, _ := clients(url, 3)
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}}})
		require.NoError(t, err)
	}
	tables := func(url string) []string {
		db, _ := clients(url, 3)
		out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
		require.NoError(t, err)
		return out.TableNames
	}
	s := startChild(t, "--data", dir, "--shared")
	create(s.url, "SharedOne")
	require.Equal(t, 0, s.stop(t))

	s = startChild(t, "--data", dir)
	assert.Empty(t, tables(s.url))
	create(s.url, "SpacedOne")
	require.Equal(t, 0, s.stop(t))
	assert.Contains(t, s.stderr.String(), "holds the tables of a server started with --shared")

	s = startChild(t, "--data", dir, "--shared")
	assert.Equal(t, []string{"SharedOne"}, tables(s.url))
	require.Equal(t, 0, s.stop(t))
	assert.Contains(t, s.stderr.String(), "also holds 1 spaces kept without --shared")
	assert.Contains(t, s.stderr.String(), "000000000000/us-east-1")
}

// TestServeDataDescriptors: with --data, the default connection cap
// leaves descriptors for the data logs of every space. Under ulimit -n
// 512, with 40 spaces kept (a lock and a log segment each) and 600 idle
// connections, the server never runs out of descriptors (before, the cap
// left 64 of them, the spaces took 80: accept4 failed with "too many
// open files" and new clients waited for idle ones to time out).
func TestServeDataDescriptors(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set ulimit -n")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `ulimit -n 512 && exec "$0" serve --addr 127.0.0.1:0 --data "$1"`, os.Args[0], dir)
	cmd.Env = append(os.Environ(), "CARDAPIO_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	url := ""
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "listening on "); ok {
			url = u
			break
		}
	}
	go io.Copy(io.Discard, out)
	require.NotEmpty(t, url, "the server did not start: %s", stderr.String())
	ctx := context.Background()
	creds := credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")
	for i := 0; i < 40; i++ {
		region := "us-east-1"
		if i > 0 {
			region = "eu-west-" + strconv.Itoa(i)
		}
		db := dynamodb.New(dynamodb.Options{Region: region, BaseEndpoint: aws.String(url), Credentials: creds})
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Tab"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}}})
		require.NoError(t, err)
	}
	addr := strings.TrimPrefix(url, "http://")
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for i := 0; i < 600; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		idle = append(idle, c)
	}
	db, _ := clients(url, 10)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Tab"),
		Item: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "x"}}})
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	_ = cmd.Wait()
	assert.NotContains(t, stderr.String(), "too many open files")
}
