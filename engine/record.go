package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/cardapio/cardapio/attr"
)

// A stored item is one version (see rec): one allocation holding a
// header, the item's table key and its body, never modified once
// published. The body is the item in the value encoding of codec.go,
// made compact for memory, which a million small items make the
// engine's main cost (the reference model's average item is 169 bytes,
// half of them attribute names and the key):
//
//   - the key attributes of type S or B are not in the body: their
//     values are read back from the table key, which holds them
//     (escaped, see keys.go) in any case. Number keys stay in the body:
//     the key holds them in an order-preserving form, not as text;
//   - a top-level attribute name is a number in the table's
//     dictionary of names (names), not the name's bytes; past the
//     dictionary's bounds a name is written out.
//
//	version = header key body
//	header  = le24(len(key) + len(body)) le16(len(key)) le24(size)
//	body    = uvarint(count) field*       fields in name order, key attributes left out
//	field   = uvarint(id << 1) value       a name of the dictionary
//	        | uvarint(len << 1 | 1) name value
//	value   = as codec.go (nested maps write their names out)
//
// size is the item's size per capacity rules. What leaves the engine's
// memory (the data log, its snapshots, stream records) is the portable
// form of codec.go, which names every attribute and needs no table:
// (*table).portable writes it from a version without decoding it.

// versionHeader is the length of a version's header.
const versionHeader = 8

// maxKey bounds a version's key length; maxVersion its key and body.
const (
	maxKey     = 1<<16 - 1
	maxVersion = 1<<24 - 1
)

// version is one version of a stored item, as read from its bytes.
type version struct {
	b    []byte // the key, then the body
	klen uint32
	size int32
}

// key is the version's table key.
func (v version) key() []byte { return v.b[:v.klen:v.klen] }

// body is the version's compact item, without its S and B key values.
func (v version) body() []byte { return v.b[v.klen:] }

// mem is the memory a version takes: header, key and body (the
// allocator's rounding aside).
func (v version) mem() int { return versionHeader + len(v.b) }

func putHeader(h []byte, n, klen, size int) {
	h[0], h[1], h[2] = byte(n), byte(n>>8), byte(n>>16)
	binary.LittleEndian.PutUint16(h[3:], uint16(klen))
	h[5], h[6], h[7] = byte(size), byte(size>>8), byte(size>>16)
}

// versionAt reads the version whose first byte is p.
func versionAt(p *byte) version {
	h := unsafe.Slice(p, versionHeader)
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	return version{
		b:    unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p), versionHeader)), n),
		klen: uint32(binary.LittleEndian.Uint16(h[3:])),
		size: int32(int(h[5]) | int(h[6])<<8 | int(h[7])<<16),
	}
}

// keyAt is the table key of the version whose first byte is p, read
// without the rest of the header: what tree searches compare.
func keyAt(p *byte) []byte {
	klen := binary.LittleEndian.Uint16(unsafe.Slice(p, versionHeader)[3:])
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p), versionHeader)), klen)
}

// keyVersion builds a version holding key alone (a search's probe).
func keyVersion(key []byte) *byte {
	b := make([]byte, versionHeader+len(key))
	putHeader(b, len(key), len(key), 0)
	copy(b[versionHeader:], key)
	return &b[0]
}

// names is a table's dictionary of attribute names: a name's number is
// its place in the list. Names are added, never removed, by writers
// holding the table's write lock; readers, with or without the lock (a
// snapshot's), load the list atomically and find every name of every
// version published before.
type names struct {
	ids   map[string]uint32
	list  atomic.Pointer[[]string]
	bytes int
}

// maxRef bounds a field's reference (a name's number, or a written-out
// name's length, shifted).
const maxRef = 1 << 31

// Bounds of a dictionary: past them new names are written out in each
// item, so that a table whose items bring names without end (a name per
// item) holds them as it would without a dictionary.
const (
	maxNames     = 1 << 13
	maxNameBytes = 1 << 20
)

// id is the number of name, added when the dictionary has room; the
// caller holds the table's write lock.
func (n *names) id(name string) (uint32, bool) {
	if id, ok := n.ids[name]; ok {
		return id, true
	}
	if len(n.ids) >= maxNames || n.bytes+len(name) > maxNameBytes {
		return 0, false
	}
	if n.ids == nil {
		n.ids = map[string]uint32{}
	}
	var l []string
	if p := n.list.Load(); p != nil {
		l = *p
	}
	id := uint32(len(l))
	// Appending in place writes past every reader's length, and the new
	// length reaches readers with the pointer.
	l = append(l, name)
	n.list.Store(&l)
	n.ids[name] = id
	n.bytes += len(name)
	return id, true
}

// all is the list of names, for a reader.
func (n *names) all() []string {
	if p := n.list.Load(); p != nil {
		return *p
	}
	return nil
}

// stripped reports whether the attribute f of an item is left out of
// its body: a key attribute of type S or B, whose value the key holds.
func (t *table) stripped(f *attr.Field) bool {
	if f.Name == t.hash.name {
		return t.hash.typ != attr.N && f.Value.Type == t.hash.typ
	}
	return t.rng != nil && f.Name == t.rng.name && t.rng.typ != attr.N && f.Value.Type == t.rng.typ
}

// newVersion builds the version of the item it at key, whose size is
// size; the caller holds the table's write lock (names may grow).
func (t *table) newVersion(key []byte, it attr.Item, size int) *byte {
	if len(key) > maxKey {
		// Key attributes are validated long before (2 KB and 1 KB).
		panic(fmt.Sprintf("engine: a table key of %d bytes cannot be stored", len(key)))
	}
	var buf [24]int32
	refs := buf[:0]
	if len(it) > len(buf) {
		refs = make([]int32, 0, len(it))
	}
	n, count := uvarintLen(len(it)), 0
	for i := range it {
		f := &it[i]
		if t.stripped(f) {
			refs = append(refs, -2)
			continue
		}
		count++
		if id, ok := t.names.id(f.Name); ok {
			refs = append(refs, int32(id))
			n += uvarintLen(int(id) << 1)
		} else {
			refs = append(refs, -1)
			n += uvarintLen(len(f.Name)<<1|1) + len(f.Name)
		}
		n += valueSize(&f.Value)
	}
	n += len(key)
	if n > maxVersion || size > maxVersion {
		panic(fmt.Sprintf("engine: an item of %d bytes cannot be stored", n))
	}
	b := make([]byte, versionHeader+len(key), versionHeader+n)
	putHeader(b, n, len(key), size)
	copy(b[versionHeader:], key)
	b = binary.AppendUvarint(b, uint64(count))
	for i := range it {
		switch ref := refs[i]; ref {
		case -2:
			continue
		case -1:
			b = binary.AppendUvarint(b, uint64(len(it[i].Name))<<1|1)
			b = append(b, it[i].Name...)
		default:
			b = binary.AppendUvarint(b, uint64(ref)<<1)
		}
		b = appendValue(b, it[i].Value)
	}
	return &b[0]
}

// keyValues are the values of a version's key attributes left out of
// its body, in name order (at most two). Their strings are views of
// the key's bytes when no byte needed escaping.
type keyValues struct {
	f [2]attr.Field
	n int
}

// own makes the values' strings copies rather than views of the key.
func (kv *keyValues) own() {
	for i := 0; i < kv.n; i++ {
		kv.f[i].Value.Str = strings.Clone(kv.f[i].Value.Str)
	}
}

// keyValues reads back the S and B key values of key.
func (t *table) keyValues(key []byte) (kv keyValues, ok bool) {
	if len(key) < 8 {
		return kv, false
	}
	p := key[8:]
	n := partLen(p, t.hash.typ)
	if n < 0 {
		return kv, false
	}
	if t.hash.typ != attr.N {
		kv.f[0] = attr.Field{Name: t.hash.name, Value: attr.Value{Type: t.hash.typ, Str: unescapePart(p[:n])}}
		kv.n = 1
	}
	if t.rng != nil && t.rng.typ != attr.N {
		q := p[n:]
		m := partLen(q, t.rng.typ)
		if m < 0 {
			return kv, false
		}
		kv.f[kv.n] = attr.Field{Name: t.rng.name, Value: attr.Value{Type: t.rng.typ, Str: unescapePart(q[:m])}}
		kv.n++
		if kv.n == 2 && kv.f[1].Name < kv.f[0].Name {
			kv.f[0], kv.f[1] = kv.f[1], kv.f[0]
		}
	}
	return kv, true
}

// partLen is the length of the key part of type typ at the start of p
// (see keys.go), or -1 when p does not start with one.
func partLen(p []byte, typ attr.Type) int {
	if typ != attr.N {
		for i := 0; i+1 < len(p); i++ {
			if p[i] == 0 {
				if p[i+1] == 1 {
					return i + 2
				}
				i++ // 0x00 0xFF: an escaped zero
			}
		}
		return -1
	}
	if len(p) == 0 {
		return -1
	}
	var end byte
	switch p[0] {
	case 0x02:
		return 1
	case 0x03:
		end = 0x00
	case 0x01:
		end = 0xFF
	default:
		return -1
	}
	for i := 3; i < len(p); i++ {
		if p[i] == end {
			return i + 1
		}
	}
	return -1
}

// unescapePart is the value of an S or B part (its terminator
// included): a view of its bytes, or a copy without the escapes when
// the value holds zero bytes.
func unescapePart(p []byte) string {
	p = p[:len(p)-2]
	if bytes.IndexByte(p, 0) < 0 {
		return view(p)
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		out = append(out, p[i])
		if p[i] == 0 {
			i++
		}
	}
	return string(out)
}

// bodyReader walks the fields of a version's body.
type bodyReader struct {
	reader
	names  []string
	left   int
	inline bool // the last name read was written out (a view of the body)
}

func (t *table) bodyOf(v version) bodyReader {
	br := bodyReader{reader: reader{b: v.body()}, names: t.names.all()}
	br.left = br.uvarint()
	return br
}

// next reads the next field's name, its value left to read; ok is
// false at the end of the body (or on corrupt bytes, r.err).
func (br *bodyReader) next() (name string, ok bool) {
	if br.left == 0 || br.err != nil {
		return "", false
	}
	br.left--
	u, k := binary.Uvarint(br.b)
	if k <= 0 || u > maxRef {
		br.fail()
		return "", false
	}
	br.b = br.b[k:]
	ref := int(u)
	br.inline = ref&1 == 1
	if br.inline {
		n := ref >> 1
		if n > len(br.b) {
			br.fail()
			return "", false
		}
		name = view(br.b[:n])
		br.b = br.b[n:]
		return name, br.err == nil
	}
	if ref>>1 >= len(br.names) {
		br.fail()
		return "", false
	}
	return br.names[ref>>1], br.err == nil
}

// decode rebuilds the item of version v; read with or without the
// table's lock.
func (t *table) decode(v version) (attr.Item, error) {
	kv, ok := t.keyValues(v.key())
	if !ok {
		return nil, errCorrupt
	}
	kv.own()
	br := t.bodyOf(v)
	if br.err != nil {
		return nil, br.err
	}
	it := make(attr.Item, 0, br.left+kv.n)
	k := 0
	for {
		name, ok := br.next()
		if !ok {
			break
		}
		for k < kv.n && kv.f[k].Name < name {
			it = append(it, kv.f[k])
			k++
		}
		if br.inline {
			name = strings.Clone(name)
		}
		f := attr.Field{Name: name, Value: br.value()}
		it = append(it, f)
	}
	if br.err != nil {
		return nil, br.err
	}
	it = append(it, kv.f[k:kv.n]...)
	return it, nil
}

// lookup returns the named top-level attribute of version v without
// decoding the others.
func (t *table) lookup(v version, name string) (attr.Value, bool) {
	kv, ok := t.keyValues(v.key())
	if !ok {
		return attr.Value{}, false
	}
	for i := 0; i < kv.n; i++ {
		if kv.f[i].Name == name {
			val := kv.f[i].Value
			val.Str = strings.Clone(val.Str)
			return val, true
		}
	}
	br := t.bodyOf(v)
	for {
		fn, ok := br.next()
		if !ok {
			return attr.Value{}, false
		}
		if fn == name {
			val := br.value()
			return val, br.err == nil
		}
		if fn > name {
			return attr.Value{}, false
		}
		br.skipValue()
	}
}

// appendJSON appends the DynamoDB JSON of version v's item, the bytes
// attr.AppendItemJSON writes for the decoded item, without building it
// (see appendStoredJSON); keep, when set, selects the top-level
// attributes written. ok is false for corrupt bytes or a nested map out
// of name order; the caller then decodes.
func (t *table) appendJSON(dst []byte, v version, keep func(name string) bool) ([]byte, bool) {
	kv, ok := t.keyValues(v.key())
	if !ok {
		return dst, false
	}
	br := t.bodyOf(v)
	dst = append(dst, '{')
	wrote := false
	field := func(name string) bool {
		if keep != nil && !keep(name) {
			return false
		}
		if wrote {
			dst = append(dst, ',')
		}
		wrote = true
		dst = attr.AppendJSONString(dst, name)
		dst = append(dst, ':')
		return true
	}
	k := 0
	prev := ""
	for {
		name, ok := br.next()
		if !ok {
			break
		}
		if name < prev {
			// Out of name order, which the decoded item's encoder
			// writes sorted.
			return dst, false
		}
		prev = name
		for ; k < kv.n && kv.f[k].Name < name; k++ {
			if field(kv.f[k].Name) {
				dst = attr.AppendValueJSON(dst, kv.f[k].Value)
			}
		}
		if field(name) {
			dst = br.valueJSON(dst)
		} else {
			br.skipValue()
		}
	}
	for ; k < kv.n; k++ {
		if field(kv.f[k].Name) {
			dst = attr.AppendValueJSON(dst, kv.f[k].Value)
		}
	}
	return append(dst, '}'), br.err == nil
}

// portable appends version v's item in the portable stored form of
// codec.go (every name written out, the key values in place): what the
// data log, its snapshots and stream records keep. Values are copied as
// they are, not decoded.
func (t *table) portable(dst []byte, v version) []byte {
	kv, ok := t.keyValues(v.key())
	br := t.bodyOf(v)
	if !ok || br.err != nil {
		return appendItem(dst, nil)
	}
	dst = binary.AppendUvarint(dst, uint64(br.left+kv.n))
	k := 0
	for {
		name, ok := br.next()
		if !ok {
			break
		}
		for ; k < kv.n && kv.f[k].Name < name; k++ {
			dst = appendString(dst, kv.f[k].Name)
			dst = appendValue(dst, kv.f[k].Value)
		}
		dst = appendString(dst, name)
		start := br.b
		br.skipValue()
		dst = append(dst, start[:len(start)-len(br.b)]...)
	}
	for ; k < kv.n; k++ {
		dst = appendString(dst, kv.f[k].Name)
		dst = appendValue(dst, kv.f[k].Value)
	}
	return dst
}

// portableLen is the length of version v's portable form, as portable
// writes it.
func (t *table) portableLen(v version) int {
	kv, ok := t.keyValues(v.key())
	br := t.bodyOf(v)
	if !ok || br.err != nil {
		return 1
	}
	n := uvarintLen(br.left + kv.n)
	for i := 0; i < kv.n; i++ {
		n += uvarintLen(len(kv.f[i].Name)) + len(kv.f[i].Name) + valueSize(&kv.f[i].Value)
	}
	for {
		name, ok := br.next()
		if !ok {
			break
		}
		start := len(br.b)
		br.skipValue()
		n += uvarintLen(len(name)) + len(name) + start - len(br.b)
	}
	return n
}

// portableCopy is version v's portable form in a buffer of its own and
// of its exact length: what a stream record keeps.
func (t *table) portableCopy(v version) []byte {
	return t.portable(make([]byte, 0, t.portableLen(v)), v)
}
