package executor

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCutItems(t *testing.T) {
	for _, c := range []struct {
		in, want string
		n        int
		ok       bool
	}{
		{`{"Count":2,"Items":[{"a":{"S":"x]}"}},{"b":{"L":[{"N":"1"}]}}],"ScannedCount":2}`, `{"Count":2,"Items":[{"a":{"S":"x]}"}}],"ScannedCount":2}`, 2, true},
		{`{"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5},"Count":0,"Items":[],"ScannedCount":0}`, `{"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5},"Count":0,"Items":[],"ScannedCount":0}`, 0, true},
		{` { "Items" : [ {"k":{"S":"a\"b"}} , {"k":{"S":"c"}} , {"k":{"S":"d"}} ] , "LastEvaluatedKey":{"k":{"S":"d"}} } `, ` { "Items" : [ {"k":{"S":"a\"b"}}] , "LastEvaluatedKey":{"k":{"S":"d"}} } `, 3, true},
		{`{"Items":[{"k":{"S":"a"}}]}`, `{"Items":[{"k":{"S":"a"}}]}`, 1, true},
		{`{"Count":1}`, "", 0, false},
		{`{"Items":{"k":1}}`, "", 0, false},
		{`{"Items":[{"k":{"S":"a"}],{}]}`, "", 0, false},
		{`{"Items":[{"k":"a"}`, "", 0, false},
		{`["Items"]`, "", 0, false},
		{``, "", 0, false},
	} {
		got, n, ok := cutItems([]byte(c.in))
		assert.Equal(t, c.ok, ok, c.in)
		if c.ok {
			assert.Equal(t, c.want, string(got), c.in)
			assert.Equal(t, c.n, n, c.in)
		}
	}
}

// FuzzCutItems: whatever is cut is valid JSON when the answer was, holds
// the answer's first item and every other member, and counts its items.
func FuzzCutItems(f *testing.F) {
	f.Add([]byte(`{"Count":2,"Items":[{"a":{"S":"x"}},{"b":{"N":"1"}}],"ScannedCount":2}`))
	f.Add([]byte(`{"Items":[],"LastEvaluatedKey":{"k":{"S":"\u005d"}}}`))
	f.Add([]byte(`{"Items":[1,"two",[3],{"4":null}],"x":true}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cut, n, ok := cutItems(body)
		if !ok {
			return
		}
		var whole map[string]json.RawMessage
		if json.Unmarshal(body, &whole) != nil {
			return // not JSON: the SDK rejects the answer, cut or not
		}
		var items []json.RawMessage
		require.NoError(t, json.Unmarshal(whole["Items"], &items), "Items is an array when cut")
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(cut, &got), "%s", cut)
		require.Equal(t, len(items), n)
		var first []json.RawMessage
		require.NoError(t, json.Unmarshal(got["Items"], &first))
		if len(items) == 0 {
			require.Empty(t, first)
		} else {
			require.Len(t, first, 1)
			require.JSONEq(t, string(items[0]), string(first[0]))
		}
		for k, v := range whole {
			if k != "Items" {
				require.JSONEq(t, string(v), string(got[k]), k)
			}
		}
	})
}
