package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzDecodeBatchWriteFast checks the fast BatchWriteItem decoder against
// the general one: whatever it accepts, the general decoder accepts too,
// with the same result.
func FuzzDecodeBatchWriteFast(f *testing.F) {
	for _, s := range []string{
		`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]}}`,
		` { "ReturnConsumedCapacity" : "INDEXES" , "RequestItems" : { "A" : [ { "PutRequest" : { "Item" : {"l":{"L":[{"M":{"x":{"S":"}]"}}}]}} } } ] , "B":[{"PutRequest":{"Item":{}}}] } , "ReturnItemCollectionMetrics":"SIZE" } `,
		`{"RequestItems":{"Tab":[]}}`,
		`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{}}}],"Tab":[{"PutRequest":{"Item":{}}}]}}`,
		`{"RequestItems":{"Tab":[{"PutRequest":{"Key":{}}}]}}`,
		`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{}},"DeleteRequest":{"Key":{}}}]}}`,
		`{"RequestItems":{"T\u0061b":[{"PutRequest":{"Item":{}}}]}}`,
		`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"a":{"S":"x"}}}}]}} trailing`,
		`{"RequestItems":null}`,
		`{"ReturnConsumedCapacity":"TOTAL"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fast BatchWriteItemInput
		if !decodeBatchWriteFast([]byte(body), &fast) {
			return
		}
		var general BatchWriteItemInput
		if err := decodeRequest([]byte(body), &general); err != nil {
			t.Fatalf("fast decoder accepted %q, general refused it: %v", body, err)
		}
		assert.Equal(t, general, fast, "%q", body)
	})
}

// TestDecodeBatchWriteFast: the bodies the SDKs send take the fast path;
// the others go to the general decoder.
func TestDecodeBatchWriteFast(t *testing.T) {
	var in BatchWriteItemInput
	require.True(t, decodeBatchWriteFast([]byte(`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]},"ReturnConsumedCapacity":"TOTAL"}`), &in))
	require.Len(t, in.RequestItems["Tab"], 2)
	assert.Equal(t, "a", in.RequestItems["Tab"][0].PutRequest.Item[0].Value.Str)
	assert.Equal(t, "b", in.RequestItems["Tab"][1].DeleteRequest.Key[0].Value.Str)
	assert.Equal(t, "TOTAL", in.ReturnConsumedCapacity)
	for _, body := range []string{
		`{"RequestItems":{"Tab":[]}}`,
		`{"requestitems":{"Tab":[{"PutRequest":{"Item":{}}}]}}`,
		`{"RequestItems":{"Tab":[{"PutRequest":{"Item":{}}}],"Tab":[{"PutRequest":{"Item":{}}}]}}`,
		`{"ReturnConsumedCapacity":"TOTAL"}`,
	} {
		assert.False(t, decodeBatchWriteFast([]byte(body), &BatchWriteItemInput{}), body)
	}
}
