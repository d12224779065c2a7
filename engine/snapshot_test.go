package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// versionedTable creates table Ver (pk S, sk N) with a GSI ByG on g (S) /
// sk and an LSI ByL on pk / l (S) projecting keys only, and puts version
// 0 of parts partitions of per items.
func versionedTable(t testing.TB, e *Engine, parts, per int) {
	t.Helper()
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName: "Ver",
		AttributeDefinitions: []AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "g", AttributeType: "S"}, {AttributeName: "l", AttributeType: "S"},
		},
		KeySchema:   []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		BillingMode: "PAY_PER_REQUEST",
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "ByG",
			KeySchema:  []KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "ALL"}}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByL",
			KeySchema:  []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "KEYS_ONLY"}}},
	})
	require.NoError(t, err)
	for p := range parts {
		for s := range per {
			_, err := e.PutItem(ctx, &PutItemInput{TableName: "Ver", Item: versioned(p, s, 0)})
			require.NoError(t, err)
		}
	}
}

// versioned is version v of item (p, s): v is written twice (v and w),
// its index keys and its size change with it, so that a page showing
// parts of two versions, or an item under an index key it no longer
// has, is seen.
func versioned(p, s, v int) attr.Item {
	return attr.Sorted([]attr.Field{
		{Name: "pk", Value: attr.Str(fmt.Sprint("p", p))},
		{Name: "sk", Value: attr.Num(strconv.Itoa(s))},
		{Name: "v", Value: attr.Num(strconv.Itoa(v))},
		{Name: "w", Value: attr.Str(fmt.Sprint("v", v))},
		{Name: "g", Value: attr.Str(fmt.Sprint("g", v%3))},
		{Name: "l", Value: attr.Str(fmt.Sprintf("l%06d-%06d", v, s))},
		{Name: "pad", Value: attr.Str(strings.Repeat("x", 1+(v*37)%400))},
	})
}

// whole checks that it is one version of a versioned item, whole, and
// returns its coordinates and version.
func whole(t *testing.T, it attr.Item) (p string, s, v int) {
	t.Helper()
	pk, _ := it.Get("pk")
	sk, _ := it.Get("sk")
	vv, _ := it.Get("v")
	s, _ = strconv.Atoi(sk.Str)
	v, _ = strconv.Atoi(vv.Str)
	w, _ := it.Get("w")
	g, _ := it.Get("g")
	l, _ := it.Get("l")
	pad, _ := it.Get("pad")
	ok := w.Str == fmt.Sprint("v", v) && g.Str == fmt.Sprint("g", v%3) && l.Str == fmt.Sprintf("l%06d-%06d", v, s) && len(pad.Str) == 1+(v*37)%400
	assert.True(t, ok, "a torn item: %v", it)
	return pk.Str, s, v
}

// TestConcurrentPagesReadOneVersion runs writers rewriting items (their
// index keys and sizes change with each version) while readers scan the
// table, query its partitions both ways and query both indexes, in pages
// larger than the part read under the lock and in small ones. Every item
// read is one version, whole; a strongly consistent page holds every
// item of the range once, at a version no older than what was
// acknowledged before it began; an index page holds only items that
// have its key.
func TestConcurrentPagesReadOneVersion(t *testing.T) {
	const parts, per, writers, writes = 3, 300, 3, 1500
	e := New(Options{})
	versionedTable(t, e, parts, per)
	acked := make([]atomic.Int64, parts*per)
	var done atomic.Bool
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Writer w owns items i with i%writers == w: their versions
			// grow by one at each write.
			ver := make(map[int]int)
			for n := range writes {
				i := (n*7919)%(parts*per/writers)*writers + w
				ver[i]++
				_, err := e.PutItem(ctx, &PutItemInput{TableName: "Ver", Item: versioned(i/per, i%per, ver[i])})
				if !assert.NoError(t, err) {
					return
				}
				acked[i].Store(int64(ver[i]))
			}
		}()
	}
	floor := func() []int64 {
		f := make([]int64, len(acked))
		for i := range acked {
			f[i] = acked[i].Load()
		}
		return f
	}
	readers := []func(){
		func() { // the whole table in one strongly consistent page
			before := floor()
			out, err := e.Scan(ctx, &ScanInput{TableName: "Ver", ConsistentRead: true})
			require.NoError(t, err)
			require.Nil(t, out.LastEvaluatedKey)
			seen := map[int]bool{}
			for _, it := range out.Items {
				p, s, v := whole(t, it)
				pi, _ := strconv.Atoi(p[1:])
				i := pi*per + s
				assert.False(t, seen[i], "read twice: %v", it)
				seen[i] = true
				assert.GreaterOrEqual(t, int64(v), before[i], "an acknowledged write not seen: %v", it)
			}
			assert.Len(t, seen, parts*per)
		},
		func() { // a partition each way, in pages of 200 and 100
			for _, fwd := range []bool{true, false} {
				before := floor()
				var start attr.Item
				var sks []int
				for {
					out, err := e.Query(ctx, &QueryInput{TableName: "Ver", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p1")),
						ScanIndexForward: ptr(fwd), Limit: ptr(200), ConsistentRead: true, ExclusiveStartKey: start})
					require.NoError(t, err)
					for _, it := range out.Items {
						_, s, v := whole(t, it)
						assert.GreaterOrEqual(t, int64(v), before[per+s], "an acknowledged write not seen: %v", it)
						sks = append(sks, s)
					}
					if start = out.LastEvaluatedKey; start == nil {
						break
					}
				}
				require.Len(t, sks, per)
				for j, s := range sks {
					want := j
					if !fwd {
						want = per - 1 - j
					}
					assert.Equal(t, want, s, "in key order, each once")
				}
			}
		},
		func() { // the GSI: only items with its key, in its order
			for _, g := range []string{"g0", "g1", "g2"} {
				out, err := e.Query(ctx, &QueryInput{TableName: "Ver", IndexName: "ByG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: vals(":g", attr.Str(g)),
					ScanIndexForward: ptr(false)})
				require.NoError(t, err)
				last := map[string]int{}
				for _, it := range out.Items {
					p, s, _ := whole(t, it)
					got, _ := it.Get("g")
					assert.Equal(t, g, got.Str, "an item under an index key it does not have")
					if prev, ok := last[p]; ok {
						assert.Less(t, s, prev, "in index order, each once")
					}
					last[p] = s
				}
			}
		},
		func() { // the LSI, fetching from the table: keys and items agree
			out, err := e.Query(ctx, &QueryInput{TableName: "Ver", IndexName: "ByL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p2")),
				Select: "ALL_ATTRIBUTES", ConsistentRead: true})
			require.NoError(t, err)
			require.Len(t, out.Items, per)
			prev := ""
			for _, it := range out.Items {
				whole(t, it)
				l, _ := it.Get("l")
				assert.Less(t, prev, l.Str, "in index order, each once")
				prev = l.Str
			}
		},
		func() { // the table in small pages: each under the lock alone
			var start attr.Item
			n := 0
			for {
				out, err := e.Scan(ctx, &ScanInput{TableName: "Ver", Limit: ptr(50), ExclusiveStartKey: start})
				require.NoError(t, err)
				for _, it := range out.Items {
					whole(t, it)
				}
				n += len(out.Items)
				if start = out.LastEvaluatedKey; start == nil {
					break
				}
			}
			assert.Equal(t, parts*per, n)
		},
	}
	var rg sync.WaitGroup
	for _, read := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			// At least twice, and on until the writers are done.
			for n := 0; n < 2 || !done.Load(); n++ {
				read()
				if t.Failed() {
					return
				}
			}
		}()
	}
	wg.Wait()
	done.Store(true)
	rg.Wait()
}

// TestSnapshotPagesAcrossTheLock reads pages longer than the part read
// under the lock, each way, from the table and an index, with and
// without a start key: the page goes on in the snapshot at the very
// key the locked walk stopped at.
func TestSnapshotPagesAcrossTheLock(t *testing.T) {
	const per = 3*lockedHits + 7
	e := New(Options{})
	versionedTable(t, e, 2, per)
	for _, index := range []string{"", "ByL"} {
		for _, fwd := range []bool{true, false} {
			for _, limit := range []int{lockedHits - 1, lockedHits, lockedHits + 1, 2*lockedHits + 3, per} {
				var start attr.Item
				var sks []int
				for pages := 0; ; pages++ {
					require.Less(t, pages, per)
					out, err := e.Query(ctx, &QueryInput{TableName: "Ver", IndexName: index, KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("p1")),
						ScanIndexForward: ptr(fwd), Limit: ptr(limit), ExclusiveStartKey: start})
					require.NoError(t, err)
					assert.LessOrEqual(t, len(out.Items), limit)
					for _, it := range out.Items {
						sk, _ := it.Get("sk")
						s, _ := strconv.Atoi(sk.Str)
						sks = append(sks, s)
					}
					if start = out.LastEvaluatedKey; start == nil {
						break
					}
				}
				require.Len(t, sks, per, "index %q forward %v limit %d", index, fwd, limit)
				for j, s := range sks {
					want := j
					if !fwd {
						want = per - 1 - j
					}
					require.Equal(t, want, s, "index %q forward %v limit %d", index, fwd, limit)
				}
			}
		}
	}
}

// TestSnapshotSharedUntilAWrite: pages read while nothing is written
// share one snapshot, and a write makes the next page take a new one
// that shows it. The old snapshot keeps its records: an item rewritten
// in place shows its latest version, a deleted one its last; an index
// entry the write moved shows the version it stood for, under its key.
func TestSnapshotSharedUntilAWrite(t *testing.T) {
	e := New(Options{})
	versionedTable(t, e, 1, 10)
	tb, err := e.table("Ver")
	require.NoError(t, err)
	byG := tb.findIndex("ByG")
	tb.mu.RLock()
	a, b := tb.items.snapshot(), tb.items.snapshot()
	ga := byG.tree.snapshot()
	tb.mu.RUnlock()
	assert.Same(t, a.bt, b.bt, "no write between them: one clone")
	// Version 3 keeps the item in the GSI's partition g0, version 5
	// moves it to g2.
	for _, v := range []int{3, 5} {
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Ver", Item: versioned(0, 3, v)})
		require.NoError(t, err)
	}
	_, err = e.DeleteItem(ctx, &DeleteItemInput{TableName: "Ver", Key: item("p0", 4)})
	require.NoError(t, err)
	tb.mu.RLock()
	c := tb.items.snapshot()
	gc := byG.tree.snapshot()
	tb.mu.RUnlock()
	assert.NotSame(t, a.bt, c.bt)
	versionOf := func(v version) int {
		it, err := tb.decode(v)
		require.NoError(t, err)
		n, _ := strconv.Atoi(strAttr(it, "v"))
		return n
	}
	at := func(tr *tree[*rec], s int) (int, bool) {
		k, _ := tb.tableKey(nil, item("p0", s))
		r, ok := tr.get(k)
		if !ok {
			return -1, false
		}
		return versionOf(r.load()), true
	}
	v, _ := at(a, 3)
	assert.Equal(t, 5, v, "an item rewritten in place: its latest version")
	v, ok := at(a, 4)
	assert.True(t, ok, "the old snapshot keeps the deleted item")
	assert.Equal(t, 0, v)
	assert.Equal(t, 10, a.len())
	v, _ = at(c, 3)
	assert.Equal(t, 5, v)
	_, ok = at(c, 4)
	assert.False(t, ok)
	assert.Equal(t, 9, c.len())
	inG := func(tr *tree[*entry], g string) map[int]int {
		out := map[int]int{}
		tr.ascend(nil, nil, func(en *entry) bool {
			v := en.load()
			it, err := tb.decode(v)
			require.NoError(t, err)
			if strAttr(it, "g") == g {
				sk, _ := strconv.Atoi(strAttr(it, "sk"))
				out[sk] = versionOf(v)
			}
			return true
		})
		return out
	}
	assert.Equal(t, 3, inG(ga, "g0")[3], "the moved entry, sealed: the last version under its key")
	_, ok = inG(ga, "g2")[3]
	assert.False(t, ok, "never the item under a key it did not have then")
	assert.Equal(t, 5, inG(gc, "g2")[3])
	_, ok = inG(gc, "g0")[3]
	assert.False(t, ok)
}

// strAttr is the text of a string or number attribute of it.
func strAttr(it attr.Item, name string) string {
	v, _ := it.Get(name)
	return v.Str
}
