package dataset

import (
	"encoding/binary"
	"unsafe"

	"github.com/cardapio/cardapio/attr"
)

// The items' DynamoDB JSON, written as attr.AppendItemJSON writes it
// (the same bytes: a test compares them) but with what an entity's items
// share worked out once: each attribute's `"name":` and each type's
// `{"S":`, and strings copied whole when no byte needs escaping (checked
// eight bytes at a time). Encoding was a fifth of a run's work.

// itemEncoder writes one entity's items.
type itemEncoder struct {
	names []string // the out fields' names, in name order
	heads [][]byte // per out field: `"name":`
	// per out field: `"name":{"S":` and `"name":{"N":`, written in one
	// copy for the two commonest types
	sHeads, nHeads [][]byte
}

func newItemEncoder(c *compiled) *itemEncoder {
	e := &itemEncoder{}
	for _, of := range c.out {
		h := append(attr.AppendJSONString(nil, of.name), ':')
		e.names = append(e.names, of.name)
		e.heads = append(e.heads, h)
		e.sHeads = append(e.sHeads, append(h[:len(h):len(h)], typeHeads[attr.S]...))
		e.nHeads = append(e.nHeads, append(h[:len(h):len(h)], typeHeads[attr.N]...))
	}
	return e
}

// typeHeads are `{"T":` per type.
var typeHeads = func() (h [32][]byte) {
	for t := range h {
		if s := attr.Type(t).String(); s != "" {
			h[t] = []byte(`{"` + s + `":`)
		}
	}
	return h
}()

// appendFields writes an item of the entity whose value of out field i
// is vals[i] (nil when the item lacks it): the item's fields straight
// from its frame's slots, in name order, with no attr.Item built.
func (e *itemEncoder) appendFields(dst []byte, vals []*attr.Value) []byte {
	dst = append(dst, '{')
	first := true
	for i, v := range vals {
		if v == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		switch v.Type {
		case attr.S:
			dst = append(dst, e.sHeads[i]...)
		case attr.N:
			dst = append(dst, e.nHeads[i]...)
		default:
			dst = append(dst, e.heads[i]...)
			dst = attr.AppendValueJSON(dst, *v)
			continue
		}
		dst = appendJSONString(dst, v.Str)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// clean reports whether no byte of x needs escaping in a JSON string
// (control bytes, '"', '\\') or is outside ASCII.
func clean(x uint64) bool {
	ctl := (x - 0x20*lows) &^ x
	quote := x ^ ('"' * lows)
	bs := x ^ ('\\' * lows)
	return ((ctl | ((quote - lows) &^ quote) | ((bs - lows) &^ bs) | x) & highs) == 0
}

// appendJSONString is attr.AppendJSONString, copying s whole when it is
// plain ASCII with nothing to escape.
func appendJSONString(dst []byte, s string) []byte {
	i := 0
	if len(s) >= 8 {
		p := unsafe.StringData(s)
		b := unsafe.Slice(p, len(s))
		for ; i+8 <= len(b); i += 8 {
			if !clean(binary.LittleEndian.Uint64(b[i:])) {
				return attr.AppendJSONString(dst, s)
			}
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return attr.AppendJSONString(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
