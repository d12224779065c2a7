package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/throughput"
)

// lagged returns an engine whose GSIs lag 50 ms behind the table, on a
// manual clock, with the throughput model on at a scale that throttles
// nothing here (so that admission runs beside the lag, under -race too).
func lagged(t testing.TB) (*Engine, *throughput.ManualClock) {
	clk := throughput.NewManualClock(time.Date(2026, 12, 1, 0, 7, 0, 0, time.UTC))
	m, err := throughput.New(throughput.Config{Scale: 1000, Now: clk.Now})
	require.NoError(t, err)
	e := New(Options{IndexLag: 50 * time.Millisecond, Now: clk.Now, Throughput: m})
	newTable(t, e)
	return e, clk
}

func queryGSI(t *testing.T, e *Engine, gpk string) []attr.Item {
	t.Helper()
	out, err := e.Query(ctx, &QueryInput{TableName: "Tab", IndexName: "GSI1", KeyConditionExpression: "gpk = :g",
		ExpressionAttributeValues: vals(":g", attr.Str(gpk))})
	require.NoError(t, err)
	return out.Items
}

func TestIndexLag(t *testing.T) {
	e, clk := lagged(t)
	it := item("a", 1, append(withGSI("g", 1), attr.Field{Name: "v", Value: attr.Num("1")})...)
	_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
	require.NoError(t, err)
	assert.Empty(t, queryGSI(t, e, "g"), "the index has not seen the write yet")
	got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("a", 1)})
	require.NoError(t, err)
	assert.Equal(t, it, got.Item, "the table has, at once")
	q, err := e.Query(ctx, &QueryInput{TableName: "Tab", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: vals(":p", attr.Str("a"))})
	require.NoError(t, err)
	assert.Len(t, q.Items, 1, "so has a query of the table")

	clk.Advance(49 * time.Millisecond)
	assert.Empty(t, queryGSI(t, e, "g"))
	clk.Advance(time.Millisecond)
	assert.Equal(t, []attr.Item{it}, queryGSI(t, e, "g"))

	// A change of a projected attribute propagates with the lag too.
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("a", 1), UpdateExpression: "SET v = :v", ExpressionAttributeValues: vals(":v", attr.Num("2"))})
	require.NoError(t, err)
	v, _ := queryGSI(t, e, "g")[0].Get("v")
	assert.Equal(t, "1", v.Str)
	clk.Advance(50 * time.Millisecond)
	v, _ = queryGSI(t, e, "g")[0].Get("v")
	assert.Equal(t, "2", v.Str)

	// A key move: the old key keeps the entry and the new one lacks it
	// until the lag has passed.
	_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("a", 1), UpdateExpression: "SET gpk = :g", ExpressionAttributeValues: vals(":g", attr.Str("h"))})
	require.NoError(t, err)
	assert.Len(t, queryGSI(t, e, "g"), 1)
	assert.Empty(t, queryGSI(t, e, "h"))
	clk.Advance(50 * time.Millisecond)
	assert.Empty(t, queryGSI(t, e, "g"))
	assert.Len(t, queryGSI(t, e, "h"), 1)

	// A delete.
	_, err = e.DeleteItem(ctx, &DeleteItemInput{TableName: "Tab", Key: item("a", 1)})
	require.NoError(t, err)
	assert.Len(t, queryGSI(t, e, "h"), 1)
	clk.Advance(50 * time.Millisecond)
	assert.Empty(t, queryGSI(t, e, "h"))
}

// With concurrent writers of every kind, the lagged index converges on
// exactly the entries the table calls for: none lost, none duplicated,
// each with the item's latest values.
func TestIndexLagConverges(t *testing.T) {
	e, clk := lagged(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 400 {
				pk := fmt.Sprint("p", rng.IntN(30))
				var err error
				switch rng.IntN(5) {
				case 0:
					_, err = e.DeleteItem(ctx, &DeleteItemInput{TableName: "Tab", Key: item(pk, 1)})
				case 1:
					_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(pk, 1)}) // not in the index
				case 2:
					_, err = e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item(pk, 1), UpdateExpression: "SET v = :v",
						ExpressionAttributeValues: vals(":v", attr.Num(fmt.Sprint(i)))})
				default:
					_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item(pk, 1, append(withGSI(fmt.Sprint("g", rng.IntN(4)), rng.IntN(3)),
						attr.Field{Name: "v", Value: attr.Num(fmt.Sprint(i))})...)})
				}
				if !assert.NoError(t, err) {
					return
				}
				if i%10 == 0 {
					clk.Advance(time.Duration(rng.IntN(20)) * time.Millisecond)
				}
				if i%25 == 0 {
					_, err := e.Scan(ctx, &ScanInput{TableName: "Tab", IndexName: "GSI1"})
					assert.NoError(t, err)
				}
			}
		}()
	}
	wg.Wait()
	clk.Advance(50 * time.Millisecond)
	table, err := e.Scan(ctx, &ScanInput{TableName: "Tab"})
	require.NoError(t, err)
	var want []string
	for _, it := range table.Items {
		if _, ok := it.Get("gpk"); ok {
			want = append(want, string(attr.AppendItemJSON(nil, it)))
		}
	}
	index, err := e.Scan(ctx, &ScanInput{TableName: "Tab", IndexName: "GSI1"})
	require.NoError(t, err)
	var got []string
	for _, it := range index.Items {
		got = append(got, string(attr.AppendItemJSON(nil, it)))
	}
	sort.Strings(want)
	sort.Strings(got)
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
	d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Tab"})
	require.NoError(t, err)
	assert.Equal(t, int64(len(want)), d.Table.GlobalSecondaryIndexes[0].ItemCount)
}
