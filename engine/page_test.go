package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestWirePagesAgree: every shape of Query and Scan answers the wire with
// the bytes the in-process answer encodes to (items written from their
// stored form, or decoded where a filter or projection needs it), on the
// table, a GSI projecting some attributes, an LSI read that fetches,
// pages cut by Limit and by size, forwards and backwards, counts,
// segments; and after updates that change what an index projects.
func TestWirePagesAgree(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	_, err := e.CreateTable(ctx, &CreateTableInput{
		TableName: "Pages",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "g", AttributeType: "S"}, {AttributeName: "l", AttributeType: "S"}},
		KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "ByG", KeySchema: []KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"note"}}}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "ByL", KeySchema: []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
			Projection: &Projection{ProjectionType: "KEYS_ONLY"}}},
		BillingMode: "PAY_PER_REQUEST",
	})
	require.NoError(t, err)
	put := func(i int, note string) {
		it := attr.Sorted([]attr.Field{
			{Name: "pk", Value: attr.Str("p" + strconv.Itoa(i%3))},
			{Name: "sk", Value: attr.Num(strconv.Itoa(i))},
			{Name: "g", Value: attr.Str("g" + strconv.Itoa(i%2))},
			{Name: "l", Value: attr.Str(fmt.Sprintf("l%03d", 500-i))},
			{Name: "note", Value: attr.Str(note)},
			{Name: "tags", Value: attr.StrSet("a", "b\"")},
			{Name: "m", Value: attr.MapOf(attr.Item{{Name: "k", Value: attr.ListOf(attr.Num("1"), attr.Bool(i%2 == 0), attr.Null())}})},
			{Name: "bin", Value: attr.Bin([]byte{byte(i), 0, 255})},
		})
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Pages", Item: it})
		require.NoError(t, err)
	}
	for i := range 300 {
		put(i, strings.Repeat("n", i%50)+"é\t")
	}
	for i := 0; i < 300; i += 7 {
		put(i, strings.Repeat("x", 3000)) // the GSI entry grows, its key stays
	}
	n := func(v int) *int { return &v }
	back := false
	vals := map[string]attr.Value{":p": attr.Str("p1"), ":g": attr.Str("g0"), ":lo": attr.Num("20")}
	queries := []QueryInput{
		{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}},
		{KeyConditionExpression: "pk = :p AND sk > :lo", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"], ":lo": vals[":lo"]}, Limit: n(7)},
		{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}, ScanIndexForward: &back, Limit: n(11)},
		{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"], ":lo": vals[":lo"]}, FilterExpression: "size(note) > :lo"},
		{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}, ProjectionExpression: "note, m.k[1], tags"},
		{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}, Select: "COUNT"},
		{IndexName: "ByG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]attr.Value{":g": vals[":g"]}},
		{IndexName: "ByG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]attr.Value{":g": vals[":g"]}, Limit: n(5), ScanIndexForward: &back},
		{IndexName: "ByL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}},
		{IndexName: "ByL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]attr.Value{":p": vals[":p"]}, Select: "ALL_ATTRIBUTES", Limit: n(9)},
	}
	for i, q := range queries {
		q.TableName, q.ReturnConsumedCapacity = "Pages", "INDEXES"
		for page := 0; ; page++ {
			a, err := e.Query(ctx, &q)
			require.NoError(t, err)
			b, err := e.queryWire(ctx, &q)
			require.NoError(t, err)
			ja, _ := a.MarshalJSON()
			jb, _ := b.MarshalJSON()
			require.Equal(t, string(ja), string(jb), "query %d page %d", i, page)
			if a.LastEvaluatedKey == nil {
				break
			}
			q.ExclusiveStartKey = a.LastEvaluatedKey
		}
	}
	// An index page counts each entry's size as the billing rules size it
	// from the item, also after updates that grew an entry in place.
	tb, _ := e.table("Pages")
	ix := tb.findIndex("ByG")
	all, err := e.Scan(ctx, &ScanInput{TableName: "Pages"})
	require.NoError(t, err)
	want := 0
	for _, it := range all.Items {
		if g, _ := it.Get("g"); g.Str == "g0" {
			want += tb.entrySize(ix, it)
		}
	}
	got, err := e.queryWire(ctx, &QueryInput{TableName: "Pages", IndexName: "ByG", KeyConditionExpression: "g = :g",
		ExpressionAttributeValues: map[string]attr.Value{":g": vals[":g"]}, ReturnConsumedCapacity: "TOTAL"})
	require.NoError(t, err)
	units := float64((want+4095)/4096) / 2
	require.Equal(t, units, got.ConsumedCapacity.Total().Read)
	scans := []ScanInput{{}, {Limit: n(13)}, {IndexName: "ByG"}, {IndexName: "ByL", Limit: n(40)}, {Segment: n(1), TotalSegments: n(3)},
		{FilterExpression: "contains(tags, :a)", ExpressionAttributeValues: map[string]attr.Value{":a": attr.Str("a")}, Limit: n(50)}}
	for i, q := range scans {
		q.TableName = "Pages"
		for page := 0; ; page++ {
			a, err := e.Scan(ctx, &q)
			require.NoError(t, err)
			b, err := e.scanWire(ctx, &q)
			require.NoError(t, err)
			ja, _ := a.MarshalJSON()
			jb, _ := b.MarshalJSON()
			require.Equal(t, string(ja), string(jb), "scan %d page %d", i, page)
			if a.LastEvaluatedKey == nil {
				break
			}
			q.ExclusiveStartKey = a.LastEvaluatedKey
		}
	}
}
