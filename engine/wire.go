package engine

import (
	"strconv"

	"github.com/cardapio/cardapio/attr"
)

// Hand-written encoders for the responses that carry items: they append
// the items' DynamoDB JSON directly instead of letting encoding/json call
// each item's MarshalJSON and re-validate its output, and they tell an
// absent item from an empty projection ("Item":{}), as DynamoDB does.

func appendConsumed(b []byte, c *Consumed) []byte {
	b = append(b, `"ConsumedCapacity":`...)
	return c.AppendJSON(b, c.Level)
}

// MarshalJSON encodes GetItem's response.
func (o *GetItemOutput) MarshalJSON() ([]byte, error) {
	var b []byte
	if o.wire != nil {
		// The rest follows the item in its buffer; encoding again
		// rewrites the same tail.
		b = o.wire[:len(o.wire):cap(o.wire)]
	} else {
		b = append(make([]byte, 0, 512), '{')
	}
	if o.wire == nil && o.Item != nil {
		b = append(b, `"Item":`...)
		b = attr.AppendItemJSON(b, o.Item)
	}
	if o.ConsumedCapacity != nil {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendConsumed(b, o.ConsumedCapacity)
	}
	return append(b, '}'), nil
}

// MarshalJSON encodes Query's and Scan's response.
func (o *QueryOutput) MarshalJSON() ([]byte, error) {
	var b []byte
	if o.wire != nil {
		// The rest of the response follows the items in their buffer
		// (sized for it); encoding again rewrites the same tail.
		b = append(o.wire[:len(o.wire):cap(o.wire)], ',')
	} else {
		b = append(make([]byte, 0, 1024), '{')
	}
	if o.wire == nil && o.Items != nil {
		b = append(b, `"Items":[`...)
		for i, it := range o.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = attr.AppendItemJSON(b, it)
		}
		b = append(b, "],"...)
	}
	b = append(b, `"Count":`...)
	b = strconv.AppendInt(b, int64(o.Count), 10)
	b = append(b, `,"ScannedCount":`...)
	b = strconv.AppendInt(b, int64(o.ScannedCount), 10)
	if o.LastEvaluatedKey != nil {
		b = append(b, `,"LastEvaluatedKey":`...)
		b = attr.AppendItemJSON(b, o.LastEvaluatedKey)
	}
	if o.ConsumedCapacity != nil {
		b = append(b, ',')
		b = appendConsumed(b, o.ConsumedCapacity)
	}
	return append(b, '}'), nil
}
