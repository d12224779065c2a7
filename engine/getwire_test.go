package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestGetWireMatchesDecoded holds GetItem's wire path, which encodes an
// item from its stored bytes, to the bytes of the response encoded from
// the decoded item: every type, nested maps and lists, the key's values,
// projections (which take the decoding path), consumed capacity, a
// missing item.
func TestGetWireMatchesDecoded(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	items := []attr.Item{
		item("a", 1),
		item("a\"\\\u00e9\u2028<b>", -2, attr.Field{Name: "s", Value: attr.Str("x\ny\t\"z\"")}),
		item("c", 3,
			attr.Field{Name: "b", Value: attr.Bin([]byte{0, 1, 2, 255})},
			attr.Field{Name: "bool", Value: attr.Bool(true)},
			attr.Field{Name: "null", Value: attr.Null()},
			attr.Field{Name: "n", Value: attr.Num("-12.5e3")},
			attr.Field{Name: "ss", Value: attr.StrSet("b", "a")},
			attr.Field{Name: "ns", Value: attr.NumSet("2", "1")},
			attr.Field{Name: "bs", Value: attr.BinSet("x", "y")},
			attr.Field{Name: "l", Value: attr.ListOf(attr.Str("v"), attr.Num("1"), attr.ListOf(), attr.MapOf(attr.Item{}))},
			attr.Field{Name: "m", Value: attr.MapOf(attr.Item{{Name: "a", Value: attr.MapOf(attr.Item{{Name: "k", Value: attr.Num("0")}})}, {Name: "z", Value: attr.Str("1")}})},
			attr.Field{Name: "gpk", Value: attr.Str("g")}, attr.Field{Name: "gsk", Value: attr.Num("7")},
			attr.Field{Name: "\u00fcnicode name", Value: attr.Str("")},
		),
		// A nested map out of name order is decoded, then encoded.
		item("d", 4, attr.Field{Name: "m", Value: attr.MapOf(attr.Item{{Name: "z", Value: attr.Str("1")}, {Name: "a", Value: attr.Num("2")}})}),
	}
	for _, it := range items {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: it})
		require.NoError(t, err)
	}
	keys := append([]attr.Item{item("missing", 0)}, items...)
	for _, k := range keys {
		pk, _ := k.Get("pk")
		sk, _ := k.Get("sk")
		key := attr.Item{{Name: "pk", Value: pk}, {Name: "sk", Value: sk}}
		for _, in := range []GetItemInput{
			{TableName: "Tab", Key: key},
			{TableName: "Tab", Key: key, ReturnConsumedCapacity: "TOTAL", ConsistentRead: true},
			{TableName: "Tab", Key: key, ProjectionExpression: "m.a, l[2], n"},
			{TableName: "Tab", Key: key, AttributesToGet: []string{"sk", "b"}},
		} {
			want, err := e.GetItem(ctx, &in)
			require.NoError(t, err)
			wantJSON, err := want.MarshalJSON()
			require.NoError(t, err)
			got, err := e.getWire(ctx, &in)
			require.NoError(t, err)
			gotJSON, err := got.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(wantJSON), string(gotJSON), "%+v", in)
			if in.ProjectionExpression == "" && in.AttributesToGet == nil && want.Item != nil && pk.Str != "d" {
				assert.NotNil(t, got.wire, "an item read whole is encoded from its bytes")
				again, _ := got.MarshalJSON()
				assert.Equal(t, string(gotJSON), string(again), "encoding twice")
			}
		}
	}
}
