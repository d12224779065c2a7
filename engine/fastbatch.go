package engine

import "github.com/cardapio/cardapio/attr"

// decodeBatchWriteFast decodes a BatchWriteItem body of RequestItems
// (tables, each a non-empty list of PutRequest Item or DeleteRequest Key
// objects) and the two Return members, written as the SDKs write them,
// without encoding/json's reflection. Anything else (other or duplicate
// members, escaped names, nulls, empty lists, malformed JSON) reports ok
// false, and the general decoder takes the body and words any error.
func decodeBatchWriteFast(body []byte, in *BatchWriteItemInput) (ok bool) {
	i, ok := expect(body, skipSpace(body, 0), '{')
	if !ok {
		return false
	}
	var seen [3]bool
	for {
		key, j, ok := member(body, i)
		if !ok {
			return false
		}
		i = j
		switch string(key) {
		case "RequestItems":
			if seen[0] {
				return false
			}
			seen[0] = true
			if i, ok = requestItems(body, i, in); !ok {
				return false
			}
		case "ReturnConsumedCapacity", "ReturnItemCollectionMetrics":
			slot, dst := 1, &in.ReturnConsumedCapacity
			if key[6] == 'I' {
				slot, dst = 2, &in.ReturnItemCollectionMetrics
			}
			if seen[slot] || i >= len(body) || body[i] != '"' {
				return false
			}
			seen[slot] = true
			v, j, ok := plainString(body, i)
			if !ok {
				return false
			}
			*dst, i = string(v), j
		default:
			return false
		}
		i = skipSpace(body, i)
		if i >= len(body) {
			return false
		}
		if body[i] == '}' {
			return seen[0] && skipSpace(body, i+1) == len(body)
		}
		if body[i] != ',' {
			return false
		}
		i++
	}
}

// expect checks that b[i] is c and returns the index after it, spaces
// skipped.
func expect(b []byte, i int, c byte) (int, bool) {
	if i >= len(b) || b[i] != c {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

// member reads `"name" :` at b[i] (spaces before it skipped) and returns
// the name (plain: no escapes) and the index of the value.
func member(b []byte, i int) ([]byte, int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	key, j, ok := plainString(b, i)
	if !ok {
		return nil, 0, false
	}
	j, ok = expect(b, skipSpace(b, j), ':')
	return key, j, ok
}

// requestItems reads the RequestItems object at b[i].
func requestItems(b []byte, i int, in *BatchWriteItemInput) (int, bool) {
	i, ok := expect(b, i, '{')
	if !ok {
		return 0, false
	}
	in.RequestItems = map[string][]WriteRequest{}
	for {
		name, j, ok := member(b, i)
		if !ok {
			return 0, false
		}
		if _, dup := in.RequestItems[string(name)]; dup {
			return 0, false
		}
		if i, ok = expect(b, j, '['); !ok {
			return 0, false
		}
		var reqs []WriteRequest
		for {
			var w WriteRequest
			if i, ok = writeRequest(b, i, &w); !ok {
				return 0, false
			}
			reqs = append(reqs, w)
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ']' {
				break
			}
			if i, ok = expect(b, i, ','); !ok {
				return 0, false
			}
		}
		in.RequestItems[string(name)] = reqs
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		if i, ok = expect(b, i, ','); !ok {
			return 0, false
		}
	}
}

// writeRequest reads one {"PutRequest":{"Item":{...}}} or
// {"DeleteRequest":{"Key":{...}}} at b[i].
func writeRequest(b []byte, i int, w *WriteRequest) (int, bool) {
	i, ok := expect(b, i, '{')
	if !ok {
		return 0, false
	}
	kind, i, ok := member(b, i)
	if !ok || (string(kind) != "PutRequest" && string(kind) != "DeleteRequest") {
		return 0, false
	}
	if i, ok = expect(b, i, '{'); !ok {
		return 0, false
	}
	inner, i, ok := member(b, i)
	put := string(kind) == "PutRequest"
	if !ok || put && string(inner) != "Item" || !put && string(inner) != "Key" {
		return 0, false
	}
	var it attr.Item
	end, ok := fastItem(b, i, &it)
	if !ok {
		return 0, false
	}
	if put {
		w.PutRequest = &struct{ Item attr.Item }{Item: it}
	} else {
		w.DeleteRequest = &struct{ Key attr.Item }{Key: it}
	}
	for range 2 { // the inner object, then the request's
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != '}' {
			return 0, false
		}
		end = i + 1
	}
	return end, true
}
