package engine

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/engine/auth"
)

// TestStoredCountsWhatTablesHold checks Stored against DescribeTable's
// own figures: items, a GSI's entries and a stream's retained records,
// summed over tables and spaces.
func TestStoredCountsWhatTablesHold(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	benchTable(t, e, "Plain")
	on := true
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName:            "Indexed",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		BillingMode:          "PAY_PER_REQUEST",
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &Projection{ProjectionType: "ALL"}}},
		StreamSpecification: &StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"},
	})
	require.NoError(t, err)
	assert.Equal(t, Stored{}, e.Stored())
	for i := range 50 {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Plain", Item: item300("a", i)})
		require.NoError(t, err)
		it := item300("b", i).With("pk", attr.Str("k"+string(rune('a'+i%26))+string(rune('a'+i/26)))).With("g", attr.Str("x"))
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Indexed", Item: it})
		require.NoError(t, err)
	}
	st := e.Stored()
	var items, indexes int64
	for _, n := range []string{"Plain", "Indexed"} {
		d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: n})
		require.NoError(t, err)
		items += d.Table.TableSizeBytes
		for _, g := range d.Table.GlobalSecondaryIndexes {
			indexes += g.IndexSizeBytes
		}
	}
	assert.Equal(t, items, st.Items)
	assert.Equal(t, int64(100), st.Count)
	assert.Equal(t, indexes, st.Indexes)
	assert.Greater(t, st.Indexes, int64(50*250), "50 entries projecting the whole item")
	assert.Greater(t, st.Streams, int64(50*250), "50 records with a new image")
	assert.Equal(t, st.Items+st.Indexes+st.Streams, st.Total())

	s, err := NewServer(ServerOptions{Spaces: []Space{{Region: "us-east-1", Account: "000000000000", Engine: e},
		{Region: "eu-west-1", Account: "000000000000", Engine: e}}})
	require.NoError(t, err)
	assert.Equal(t, 2*st.Total(), s.Stored().Total(), "every space's tables")
}

func TestMemoryLimitFollowsTheTables(t *testing.T) {
	m := MemoryLimit{}.withDefaults()
	assert.Equal(t, int64(DefaultMemoryFloor), m.limitFor(0, 0, 0))
	assert.Equal(t, int64(1.5*(1<<30))+DefaultMemoryFloor, m.limitFor(1<<30, 1<<30, 0))
	live := int64(4 << 30)
	assert.Equal(t, int64(1.25*float64(live)), m.limitFor(1<<30, live, 0), "never below 1.25 x the live heap")
	assert.Equal(t, int64(1.25*float64(live))+100<<20, m.limitFor(1<<30, live, 100<<20), "plus what the runtime holds beside it")
	assert.Equal(t, int64(5<<30), MemoryLimit{Fixed: 5 << 30}.withDefaults().limitFor(1<<40, 1<<40, 0))
	assert.Equal(t, int64(math.MaxInt64), m.limitFor(math.MaxInt64, 0, 0))

	// The runner sets the runtime's limit from the tables, recomputes it
	// as they grow, and puts the previous one back when it stops.
	before := debug.SetMemoryLimit(-1)
	e := New(Options{})
	benchTable(t, e, "Mem")
	s, err := NewServer(ServerOptions{Engine: e})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.RunMemoryLimit(ctx, MemoryLimit{Factor: 1000, Floor: 1 << 40, Every: 5 * time.Millisecond})
		close(done)
	}()
	require.Eventually(t, func() bool { return debug.SetMemoryLimit(-1) == 1<<40 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, int64(1<<40), s.Memory().Limit)
	assert.Contains(t, s.Memory().Rule, "1000 x stored")
	for i := range 10 {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Mem", Item: item300("a", i)})
		require.NoError(t, err)
	}
	want := int64(1000*float64(e.Stored().Total())) + 1<<40
	require.Eventually(t, func() bool { return debug.SetMemoryLimit(-1) == want }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	assert.Equal(t, before, debug.SetMemoryLimit(-1))
}

func TestMemoryFigures(t *testing.T) {
	e := New(Options{})
	benchTable(t, e, "Mem")
	_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Mem", Item: item300("a", 1)})
	require.NoError(t, err)
	_, url := serveTest(t, ServerOptions{Engine: e})
	resp, err := http.Get(url + MemoryPath)
	require.NoError(t, err)
	var ms MemoryStats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ms))
	resp.Body.Close()
	assert.Equal(t, int64(1), ms.Stored.Count)
	assert.Equal(t, e.Stored().Total(), ms.StoredTotal)
	assert.Positive(t, ms.LiveHeap)
	assert.Positive(t, ms.Total)
	assert.GreaterOrEqual(t, ms.PeakRSS, ms.RSS)
	assert.Positive(t, ms.RSS)

	// Under credentials the figures (every account's) need a signature.
	k, err := auth.ParseKeys("keys.json", []byte(`{"keys":[{"accessKeyId":"AKIAONE","secretAccessKey":"secret-one"}]}`))
	require.NoError(t, err)
	_, url = serveTest(t, ServerOptions{Keys: k})
	resp, err = http.Get(url + MemoryPath)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, string(b), "MissingAuthenticationTokenException")
}
