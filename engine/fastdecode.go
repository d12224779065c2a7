package engine

import (
	"bytes"
	"unicode/utf8"

	"github.com/cardapio/cardapio/attr"
)

// decodePutFast decodes the PutItem bodies that dominate load, an object
// of a few string members and the Item, without encoding/json's
// reflection. Anything else (other members, escaped strings, duplicate or
// malformed members) reports ok false, and the request goes to the
// general decoder, which also words any error.
func decodePutFast(body []byte, in *PutItemInput) (ok bool) {
	var seen [7]bool
	return fastObject(body, func(key []byte, i int) (int, bool) {
		slot := -1
		var dst *string
		switch string(key) {
		case "TableName":
			slot, dst = 0, &in.TableName
		case "ReturnValues":
			slot, dst = 1, &in.ReturnValues
		case "ReturnConsumedCapacity":
			slot, dst = 2, &in.ReturnConsumedCapacity
		case "ReturnItemCollectionMetrics":
			slot, dst = 3, &in.ReturnItemCollectionMetrics
		case "ReturnValuesOnConditionCheckFailure":
			slot, dst = 4, &in.ReturnValuesOnConditionCheckFailure
		case "ConditionExpression":
			slot, dst = 5, &in.ConditionExpression
		case "Item":
			slot = 6
		default:
			return 0, false
		}
		if seen[slot] {
			return 0, false
		}
		seen[slot] = true
		if dst != nil {
			return fastString(body, i, dst)
		}
		return fastItem(body, i, &in.Item)
	})
}

// decodeGetFast is decodePutFast for GetItem: TableName, Key,
// ConsistentRead, ProjectionExpression and ReturnConsumedCapacity (with
// ExpressionAttributeNames or AttributesToGet the general decoder takes
// the body).
func decodeGetFast(body []byte, in *GetItemInput) (ok bool) {
	var seen [5]bool
	return fastObject(body, func(key []byte, i int) (int, bool) {
		slot := -1
		var dst *string
		switch string(key) {
		case "TableName":
			slot, dst = 0, &in.TableName
		case "ProjectionExpression":
			slot, dst = 1, &in.ProjectionExpression
		case "ReturnConsumedCapacity":
			slot, dst = 2, &in.ReturnConsumedCapacity
		case "ConsistentRead":
			slot = 3
		case "Key":
			slot = 4
		default:
			return 0, false
		}
		if seen[slot] {
			return 0, false
		}
		seen[slot] = true
		switch {
		case dst != nil:
			return fastString(body, i, dst)
		case slot == 3:
			return fastBool(body, i, &in.ConsistentRead)
		}
		return fastItem(body, i, &in.Key)
	})
}

// fastObject walks the members of the JSON object that is the whole of
// body: member gets each one's name (a plain string) and the index of its
// value, and returns the index just past the value, or ok false to give
// up, as fastObject then does.
func fastObject(body []byte, member func(name []byte, i int) (int, bool)) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(body, i)
		if i >= len(body) || body[i] != '"' {
			return false
		}
		key, j, ok := plainString(body, i)
		if !ok {
			return false
		}
		i = skipSpace(body, j)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		if i, ok = member(key, skipSpace(body, i+1)); !ok {
			return false
		}
		i = skipSpace(body, i)
		if i >= len(body) {
			return false
		}
		if body[i] == '}' {
			return skipSpace(body, i+1) == len(body)
		}
		if body[i] != ',' {
			return false
		}
		i++
	}
}

// fastString reads the plain JSON string at body[i] into dst.
func fastString(body []byte, i int, dst *string) (int, bool) {
	if i >= len(body) || body[i] != '"' {
		return 0, false
	}
	v, j, ok := plainString(body, i)
	if !ok {
		return 0, false
	}
	*dst = string(v)
	return j, true
}

// fastBool reads the JSON true or false at body[i] into dst.
func fastBool(body []byte, i int, dst *bool) (int, bool) {
	switch {
	case bytes.HasPrefix(body[i:], []byte("true")):
		*dst = true
		return i + 4, true
	case bytes.HasPrefix(body[i:], []byte("false")):
		*dst = false
		return i + 5, true
	}
	return 0, false
}

// fastItem reads the item (an object of attribute values) at body[i]
// into dst.
func fastItem(body []byte, i int, dst *attr.Item) (int, bool) {
	j, ok := objectEnd(body, i)
	if !ok {
		return 0, false
	}
	it, err := attr.DecodeItem(body[i:j])
	if err != nil {
		return 0, false
	}
	*dst = it
	return j, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the JSON string at b[i] (a quote); ok is false when it
// has escapes or control characters or is unterminated.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return nil, 0, false
	}
	s = b[i+1 : i+1+end]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, 0, false
		}
	}
	if !utf8.Valid(s) {
		return nil, 0, false
	}
	return s, i + end + 2, true
}

// objectEnd returns the index just past the JSON object starting at b[i],
// skipping strings (with their escapes); ok is false when b[i] is not '{'
// or the object does not close.
func objectEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, b[i] == '}'
			}
		}
	}
	return 0, false
}
