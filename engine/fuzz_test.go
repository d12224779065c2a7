package engine

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cardapio/cardapio/attr"
)

// FuzzDecodeRequest sends arbitrary bodies to every operation of a server
// holding one table: the answer must be a success or a client error
// (never a panic, never a 500), and a request that cannot be decoded must
// be a ValidationException or SerializationException.
func FuzzDecodeRequest(f *testing.F) {
	seeds := []struct{ op, body string }{
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"m":{"M":{"x":{"L":[{"NULL":true},{"BOOL":false}]}}}}}`},
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}`},
		{"GetItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"pk"}}`},
		{"UpdateItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET c = :v ADD n :one","ExpressionAttributeValues":{":v":{"SS":["a","b"]},":one":{"N":"1"}},"ReturnValues":"ALL_NEW"}`},
		{"DeleteItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ReturnValues":"ALL_OLD"}`},
		{"Query", `{"TableName":"Tab","IndexName":"GSI1","KeyConditionExpression":"gpk = :p AND gsk > :n","ExpressionAttributeValues":{":p":{"S":"g"},":n":{"N":"0"}},"Limit":5}`},
		{"Scan", `{"TableName":"Tab","Segment":0,"TotalSegments":2,"FilterExpression":"size(pk) > :n","ExpressionAttributeValues":{":n":{"N":"0"}}}`},
		{"BatchWriteItem", `{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}}]}}`},
		{"BatchGetItem", `{"RequestItems":{"Tab":{"Keys":[{"pk":{"S":"b"},"sk":{"N":"2"}}]}}}`},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"Tab","Item":{"pk":{"S":"c"},"sk":{"N":"3"}}}},{"ConditionCheck":{"TableName":"Tab","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"ConditionExpression":"attribute_exists(pk)"}}],"ClientRequestToken":"x"}`},
		{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"Tab","Key":{"pk":{"S":"c"},"sk":{"N":"3"}}}}]}`},
		{"CreateTable", `{"TableName":"New","AttributeDefinitions":[{"AttributeName":"a","AttributeType":"B"}],"KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`},
		{"UpdateTable", `{"TableName":"Tab","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`},
		{"DescribeTable", `{"TableName":"Tab"}`},
		{"ListTables", `{"Limit":1}`},
		{"UpdateTimeToLive", `{"TableName":"Tab","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`},
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":1}}}`},
		{"PutItem", `{"TableName":["Tab"]}`},
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"NS":[]}}}`},
	}
	for _, s := range seeds {
		f.Add(s.op, s.body)
	}
	f.Fuzz(func(t *testing.T, op, body string) {
		e := New(Options{})
		newTable(t, e)
		h := e.Handler()
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", targetPrefix+op)
		placeholderSign(req)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", op, body, rec.Code, rec.Body.String())
		}
		if f, ok := ops[op]; ok {
			if _, err := f.decode([]byte(body)); err != nil {
				if !IsType(err, ErrValidation) && !IsType(err, ErrSerialization) {
					t.Fatalf("%s %q: decoding failed with %v", op, body, err)
				}
			}
		}
	})
}

// FuzzDecodePutFast checks the fast PutItem decoder against the general
// one: whatever it accepts, the general decoder accepts too, with the
// same result.
func FuzzDecodePutFast(f *testing.F) {
	for _, s := range []string{
		`{"TableName":"Tab","Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`,
		`{ "Item" : {"pk":{"S":"a\"}"},"l":{"L":[{"M":{"x":{"S":"}"}}}]}} , "TableName":"Tab", "ReturnValues":"ALL_OLD"}`,
		`{"TableName":"Tab","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"Tab","TableName":"Other","Item":{}}`,
		`{"TableName":"T\u0061b","Item":{}}`,
		`{"TableName":"Tab","Item":{"a":{"S":"x"}}} trailing`,
		`{"TableName":"Tab","Item":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fast PutItemInput
		if !decodePutFast([]byte(body), &fast) {
			return
		}
		var general PutItemInput
		if err := decodeRequest([]byte(body), &general); err != nil {
			t.Fatalf("fast decoder accepted %q, general refused it: %v", body, err)
		}
		assert.Equal(t, general.TableName, fast.TableName)
		assert.Equal(t, general.ReturnValues, fast.ReturnValues)
		assert.Equal(t, general.ConditionExpression, fast.ConditionExpression)
		assert.Equal(t, general.ReturnConsumedCapacity, fast.ReturnConsumedCapacity)
		assert.True(t, attr.EqualItems(general.Item, fast.Item), "%q", body)
	})
}

// FuzzDecodeGetFast checks the fast GetItem decoder against the general
// one, as FuzzDecodePutFast does the PutItem one.
func FuzzDecodeGetFast(f *testing.F) {
	for _, s := range []string{
		`{"TableName":"Tab","Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}`,
		`{ "Key" : {"pk":{"S":"a\"}"}} , "TableName":"Tab", "ConsistentRead":true}`,
		`{"TableName":"Tab","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a, b","ReturnConsumedCapacity":"TOTAL","ConsistentRead":false}`,
		`{"TableName":"Tab","Key":{"pk":{"S":"a"}},"ConsistentRead":truex}`,
		`{"TableName":"Tab","Key":{"pk":{"S":"a"}},"ConsistentRead":null}`,
		`{"TableName":"Tab","Key":{}}`,
		`{"TableName":"Tab","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"#a":"a"}}`,
		`{"TableName":"Tab","Key":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fast GetItemInput
		if !decodeGetFast([]byte(body), &fast) {
			return
		}
		var general GetItemInput
		if err := decodeRequest([]byte(body), &general); err != nil {
			t.Fatalf("fast decoder accepted %q, general refused it: %v", body, err)
		}
		assert.Equal(t, general.TableName, fast.TableName)
		assert.Equal(t, general.ConsistentRead, fast.ConsistentRead)
		assert.Equal(t, general.ProjectionExpression, fast.ProjectionExpression)
		assert.Equal(t, general.ReturnConsumedCapacity, fast.ReturnConsumedCapacity)
		assert.Nil(t, fast.ExpressionAttributeNames)
		assert.Nil(t, fast.AttributesToGet)
		assert.True(t, attr.EqualItems(general.Key, fast.Key), "%q", body)
	})
}
