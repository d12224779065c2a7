package engine

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/cardapio/cardapio/attr"
)

// The stored form of an item is a compact byte string, not an attr.Item
// tree: a million 300-byte items must fit in twice their raw size, which
// Go maps or slices of Values cannot do. Items are decoded when read.
//
//	item   = uvarint(count) field*          fields in name order
//	field  = uvarint(len) name value
//	value  = type-byte payload
//	  S, N, B        uvarint(len) bytes     (N holds the canonical text)
//	  BOOL           one byte, 0 or 1
//	  NULL           nothing
//	  L              uvarint(count) value*
//	  M              uvarint(count) field*
//	  SS, NS, BS     uvarint(count) (uvarint(len) bytes)*

var errCorrupt = errors.New("engine: corrupt stored item")

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func uvarintLen(n int) int {
	k := 1
	for n >= 0x80 {
		n >>= 7
		k++
	}
	return k
}

// encodedSize is the length of the stored form of it, so that encoding
// allocates once.
func encodedSize(it attr.Item) int {
	n := uvarintLen(len(it))
	for i := range it {
		n += uvarintLen(len(it[i].Name)) + len(it[i].Name) + valueSize(&it[i].Value)
	}
	return n
}

func valueSize(v *attr.Value) int {
	switch v.Type {
	case attr.S, attr.N, attr.B:
		return 1 + uvarintLen(len(v.Str)) + len(v.Str)
	case attr.BOOL:
		return 2
	case attr.L:
		n := 1 + uvarintLen(len(v.List))
		for i := range v.List {
			n += valueSize(&v.List[i])
		}
		return n
	case attr.M:
		return 1 + encodedSize(v.Map)
	case attr.SS, attr.NS, attr.BS:
		n := 1 + uvarintLen(len(v.Set))
		for _, m := range v.Set {
			n += uvarintLen(len(m)) + len(m)
		}
		return n
	}
	return 1
}

// appendItem appends the stored form of it to dst.
func appendItem(dst []byte, it attr.Item) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(it)))
	for _, f := range it {
		dst = appendString(dst, f.Name)
		dst = appendValue(dst, f.Value)
	}
	return dst
}

func appendValue(dst []byte, v attr.Value) []byte {
	dst = append(dst, byte(v.Type))
	switch v.Type {
	case attr.S, attr.N, attr.B:
		dst = appendString(dst, v.Str)
	case attr.BOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case attr.L:
		dst = binary.AppendUvarint(dst, uint64(len(v.List)))
		for _, e := range v.List {
			dst = appendValue(dst, e)
		}
	case attr.M:
		dst = appendItem(dst, v.Map)
	case attr.SS, attr.NS, attr.BS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Set)))
		for _, m := range v.Set {
			dst = appendString(dst, m)
		}
	}
	return dst
}

// reader walks a stored item. It never panics on corrupt input: every
// read checks bounds and sets err.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() int {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return int(n)
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > len(r.b) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) byte1() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) item() attr.Item {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	it := make(attr.Item, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		name := string(r.bytes())
		it = append(it, attr.Field{Name: name, Value: r.value()})
	}
	return it
}

func (r *reader) value() attr.Value {
	t := attr.Type(r.byte1())
	v := attr.Value{Type: t}
	switch t {
	case attr.S, attr.N, attr.B:
		v.Str = string(r.bytes())
	case attr.BOOL:
		v.Bool = r.byte1() == 1
	case attr.NULL:
		v.Bool = true
	case attr.L:
		n := r.uvarint()
		v.List = make([]attr.Value, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			v.List = append(v.List, r.value())
		}
	case attr.M:
		v.Map = r.item()
	case attr.SS, attr.NS, attr.BS:
		n := r.uvarint()
		v.Set = make([]string, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			v.Set = append(v.Set, string(r.bytes()))
		}
	default:
		r.fail()
	}
	return v
}

// skipValue advances past one value without building it.
func (r *reader) skipValue() {
	switch attr.Type(r.byte1()) {
	case attr.S, attr.N, attr.B:
		r.bytes()
	case attr.BOOL:
		r.byte1()
	case attr.NULL:
	case attr.L:
		n := r.uvarint()
		for i := 0; i < n && r.err == nil; i++ {
			r.skipValue()
		}
	case attr.M:
		n := r.uvarint()
		for i := 0; i < n && r.err == nil; i++ {
			r.bytes()
			r.skipValue()
		}
	case attr.SS, attr.NS, attr.BS:
		n := r.uvarint()
		for i := 0; i < n && r.err == nil; i++ {
			r.bytes()
		}
	default:
		r.fail()
	}
}

// decodeItem rebuilds the item stored in b.
func decodeItem(b []byte) (attr.Item, error) {
	r := reader{b: b}
	it := r.item()
	return it, r.err
}

// lookup returns the named top-level attribute of a stored item without
// decoding the others; key extraction for indexes uses it on every write.
func lookup(b []byte, name string) (attr.Value, bool) {
	r := reader{b: b}
	n := r.uvarint()
	for i := 0; i < n && r.err == nil; i++ {
		fn := r.bytes()
		if string(fn) == name {
			v := r.value()
			return v, r.err == nil
		}
		if string(fn) > name {
			return attr.Value{}, false
		}
		r.skipValue()
	}
	return attr.Value{}, false
}

// errUnsorted marks a stored map whose fields are not in name order, which
// appendStoredJSON does not write (the decoded item's encoder sorts them).
var errUnsorted = errors.New("engine: stored map out of name order")

// appendStoredJSON appends the DynamoDB JSON of the item stored in b, the
// bytes attr.AppendItemJSON writes for the decoded item, without building
// it: strings are read in place (stored bytes are never modified) and no
// value is allocated but a set's members. keep, when set, selects the
// top-level attributes written. ok is false for corrupt bytes or a map
// out of name order; the caller then decodes.
func appendStoredJSON(dst, b []byte, keep func(name string) bool) ([]byte, bool) {
	r := reader{b: b}
	dst = r.itemJSON(dst, keep)
	return dst, r.err == nil
}

// view is a string over stored bytes, which are never modified while a
// reader can see them; it must not outlive the read.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (r *reader) itemJSON(dst []byte, keep func(string) bool) []byte {
	n := r.uvarint()
	dst = append(dst, '{')
	var prev string
	wrote := false
	for i := 0; i < n && r.err == nil; i++ {
		name := view(r.bytes())
		if i > 0 && name < prev {
			r.err, r.b = errUnsorted, nil
			return dst
		}
		prev = name
		if keep != nil && !keep(name) {
			r.skipValue()
			continue
		}
		if wrote {
			dst = append(dst, ',')
		}
		wrote = true
		dst = attr.AppendJSONString(dst, name)
		dst = append(dst, ':')
		dst = r.valueJSON(dst)
	}
	return append(dst, '}')
}

func (r *reader) valueJSON(dst []byte) []byte {
	t := attr.Type(r.byte1())
	switch t {
	case attr.S, attr.N, attr.B:
		return attr.AppendValueJSON(dst, attr.Value{Type: t, Str: view(r.bytes())})
	case attr.BOOL:
		return attr.AppendValueJSON(dst, attr.Value{Type: t, Bool: r.byte1() == 1})
	case attr.NULL:
		return attr.AppendValueJSON(dst, attr.Value{Type: t, Bool: true})
	case attr.L:
		n := r.uvarint()
		dst = append(dst, `{"L":[`...)
		for i := 0; i < n && r.err == nil; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = r.valueJSON(dst)
		}
		return append(dst, "]}"...)
	case attr.M:
		dst = append(dst, `{"M":`...)
		dst = r.itemJSON(dst, nil)
		return append(dst, '}')
	case attr.SS, attr.NS, attr.BS:
		v := attr.Value{Type: t}
		n := r.uvarint()
		v.Set = make([]string, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			v.Set = append(v.Set, view(r.bytes()))
		}
		return attr.AppendValueJSON(dst, v)
	}
	r.fail()
	return dst
}
