package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBilledHeader checks the extension that reports what refused writes
// bill: a failed conditional write and a transaction cancelled by a
// condition carry BilledHeader when they asked for capacity, and nothing
// else changes in the response.
func TestBilledHeader(t *testing.T) {
	e := New(Options{})
	benchTable(t, e, "Bil")
	h := e.Handler()
	big := strings.Repeat("x", 1500)
	require.Equal(t, 200, post(h, "PutItem", `{"TableName":"Bil","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"`+big+`"}}}`).Code)

	put := func(rcc string) string {
		return `{"TableName":"Bil","Item":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"` + rcc + `}`
	}
	rec := post(h, "PutItem", put(`,"ReturnConsumedCapacity":"INDEXES"`))
	assert.Equal(t, 400, rec.Code)
	assert.Contains(t, rec.Body.String(), "ConditionalCheckFailedException")
	assert.NotContains(t, rec.Body.String(), "ConsumedCapacity", "the body stays DynamoDB's")
	assert.JSONEq(t, `{"TableName":"Bil","CapacityUnits":2.0,"Table":{"CapacityUnits":2.0}}`, rec.Header().Get(BilledHeader),
		"the larger of the existing 1.5 KB item and the new one")
	assert.Empty(t, post(h, "PutItem", put("")).Header().Get(BilledHeader), "not asked for")
	rec = post(h, "PutItem", put(`,"ReturnConsumedCapacity":"TOTAL"`))
	assert.JSONEq(t, `{"TableName":"Bil","CapacityUnits":2.0}`, rec.Header().Get(BilledHeader))

	tx := `{"ReturnConsumedCapacity":"INDEXES","TransactItems":[
		{"Put":{"TableName":"Bil","Item":{"pk":{"S":"b"},"sk":{"N":"1"}}}},
		{"Update":{"TableName":"Bil","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET w = :w","ConditionExpression":"attribute_not_exists(v)","ExpressionAttributeValues":{":w":{"S":"y"}}}}]}`
	rec = post(h, "TransactWriteItems", tx)
	assert.Equal(t, 400, rec.Code)
	assert.Contains(t, rec.Body.String(), "TransactionCanceledException")
	assert.JSONEq(t, `[{"TableName":"Bil","CapacityUnits":6.0,"WriteCapacityUnits":6.0,"Table":{"CapacityUnits":6.0,"WriteCapacityUnits":6.0}}]`, rec.Header().Get(BilledHeader),
		"the put's 2 x 1 and the failing update's 2 x 2")

	rec = post(h, "PutItem", `{"TableName":"Bil","Item":{"pk":{"S":"c"},"sk":{"N":"1"}},"ReturnConsumedCapacity":"INDEXES"}`)
	assert.Equal(t, 200, rec.Code)
	assert.Empty(t, rec.Header().Get(BilledHeader), "a success reports in its body")
}
