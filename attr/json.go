package attr

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is how deeply DynamoDB lets lists and maps nest.
const MaxDepth = 32

// SyntaxError is a positioned error in DynamoDB JSON input. Line and
// Column are 1-based (Column counts bytes); Offset is the 0-based byte
// offset from the start of the input.
type SyntaxError struct {
	Line, Column int
	Offset       int64
	Msg          string
	// Err is the underlying error when there is one, such as ErrOverflow
	// for a number out of range; errors.Is sees it.
	Err error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// DecodeItem decodes one item in DynamoDB JSON, an object of attribute
// names to typed values: {"PK":{"S":"a"},"n":{"N":"1"}}.
func DecodeItem(data []byte) (Item, error) {
	p := getParser(data)
	defer putParser(p)
	it, err := p.item(nil)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, positioned(data, 0, 1, 0, err)
	}
	return it, nil
}

// DecodeValue decodes one typed value such as {"N":"12.5"}.
func DecodeValue(data []byte) (Value, error) {
	p := getParser(data)
	defer putParser(p)
	var v Value
	err := p.value(1, &v)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return Value{}, positioned(data, 0, 1, 0, err)
	}
	return v, nil
}

// parsers keeps the scanners of DecodeItem and DecodeValue with their
// grown stacks and name cache, so that one-shot decoding (request bodies)
// does not start from scratch every time.
var parsers = sync.Pool{New: func() any { return new(parser) }}

func getParser(data []byte) *parser {
	p := parsers.Get().(*parser)
	p.data, p.pos = data, 0
	// Decoded text is never longer than its JSON form, so one exactly
	// sized block holds all strings of the value.
	p.arena, p.chunk = nil, len(data)
	return p
}

func putParser(p *parser) {
	p.data, p.arena = nil, nil
	// Drop what the stacks still point to, so that pooled parsers do not
	// keep decoded values alive.
	clear(p.fields[:cap(p.fields)])
	clear(p.vals[:cap(p.vals)])
	clear(p.members[:cap(p.members)])
	parsers.Put(p)
}

// streamChunk is the arena block size of a Decoder: large enough to hold
// the strings of many typical items, small enough that an item kept
// alive retains little else.
const streamChunk = 4 << 10

// Decoder reads a stream of items: JSON objects separated by whitespace,
// typically one per line (JSONL). It reuses its buffers and stacks
// between items; the items it returns never point into them, though the
// strings of neighbouring items share storage blocks of a few KiB.
type Decoder struct {
	r    io.Reader
	rerr error // first read error; io.EOF once the reader is drained
	err  error // sticky decoding error

	buf   []byte // buf[:n] is buffered input; buf[0] is at offset base
	n     int
	start int // next item starts at buf[start]
	base  int64

	// Newlines are counted up to buf[counted]; line is the line there and
	// lineStart the offset where that line begins.
	counted   int
	line      int
	lineStart int64

	limit    int // most bytes of JSON text per item
	itemLine int // line on which the last item began

	p parser
}

// NewDecoder returns a Decoder reading items from r.
func NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{r: r, buf: make([]byte, 64<<10), line: 1, limit: maxItemText}
	d.p.chunk = streamChunk
	return d
}

// NewBytesDecoder returns a Decoder over items held in memory.
func NewBytesDecoder(data []byte) *Decoder {
	d := &Decoder{buf: data, n: len(data), rerr: io.EOF, line: 1}
	d.p.chunk = streamChunk
	return d
}

// Next returns the next item, or io.EOF after the last one. After a
// syntax error the stream cannot be resynchronised: Next keeps returning
// that error.
func (d *Decoder) Next() (Item, error) { return d.NextInto(nil) }

// NextInto is Next storing the item's fields in dst when it has room,
// for pipelines that are done with one item before decoding the next
// (decode, size, discard): the item's own slice is most of what decoding
// allocates. Nested maps, lists and sets are still allocated afresh. The
// previous contents of dst are overwritten.
func (d *Decoder) NextInto(dst Item) (Item, error) {
	if d.err != nil {
		return nil, d.err
	}
	for {
		for d.start < d.n && isSpace(d.buf[d.start]) {
			d.start++
		}
		if d.start == d.n {
			if d.rerr != nil {
				if d.rerr == io.EOF {
					return nil, io.EOF
				}
				d.err = fmt.Errorf("read items: %w", d.rerr)
				return nil, d.err
			}
			d.fill()
			continue
		}
		d.p.data = d.buf[:d.n]
		d.p.pos = d.start
		it, err := d.p.item(dst)
		if err == errShort && d.rerr == nil {
			if d.n-d.start >= d.limit {
				err = &perr{pos: d.start, msg: fmt.Sprintf("item text exceeds %d bytes", d.limit)}
			} else {
				d.more()
				continue
			}
		}
		if err == errShort && d.rerr != nil && d.rerr != io.EOF {
			d.err = fmt.Errorf("read items: %w", d.rerr)
			return nil, d.err
		}
		if err != nil {
			d.advanceLines(d.start)
			d.err = positioned(d.buf[:d.n], d.counted, d.line, d.lineStart-d.base, err)
			if se, ok := d.err.(*SyntaxError); ok {
				se.Offset += d.base
			}
			return nil, d.err
		}
		d.advanceLines(d.start)
		d.itemLine = d.line
		d.start = d.p.pos
		return it, nil
	}
}

// Line returns the 1-based line on which the item last returned by Next
// begins, for messages about items that decoded but fail later checks.
func (d *Decoder) Line() int { return d.itemLine }

// advanceLines counts newlines up to buf[to].
func (d *Decoder) advanceLines(to int) {
	for i := d.counted; i < to; {
		k := bytes.IndexByte(d.buf[i:to], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		d.line++
		d.lineStart = d.base + int64(i)
	}
	d.counted = to
}

// maxItemText bounds the JSON text of one item in a stream, so that a
// runaway input fails instead of exhausting memory. DynamoDB items are at
// most 400 KB; their JSON can be several times larger (base64, escapes).
const maxItemText = 64 << 20

// more reads after an item was found incomplete. Parsing again from the
// item's start after every short read would cost quadratic time on large
// items, so it waits for a newline (the end of a JSONL record), a grown
// buffer or the end of the input. It never waits for data beyond the
// line being read, so interactive streams do not stall.
func (d *Decoder) more() {
	for {
		from, grew := d.fill()
		if d.rerr != nil || grew || bytes.IndexByte(d.buf[from:d.n], '\n') >= 0 {
			return
		}
	}
}

// fill drops consumed input and reads more, growing the buffer when an
// item does not fit. It returns where the new bytes start and whether
// the buffer grew.
func (d *Decoder) fill() (from int, grew bool) {
	d.advanceLines(d.start)
	copy(d.buf, d.buf[d.start:d.n])
	d.base += int64(d.start)
	d.n -= d.start
	d.counted -= d.start
	d.start = 0
	if d.n == len(d.buf) {
		d.buf = append(d.buf, make([]byte, len(d.buf))...)
		grew = true
	}
	from = d.n
	m, err := d.r.Read(d.buf[d.n:])
	d.n += m
	if err != nil {
		d.rerr = err
	}
	return from, grew
}

// errShort reports input that ends in the middle of a value.
var errShort = errors.New("unexpected end of input")

// perr is a parse error at a byte index of the parser's data.
type perr struct {
	pos int
	msg string
	err error
}

func (e *perr) Error() string { return e.msg }

// positioned turns a parser error into a *SyntaxError. Lines are counted
// from data[from], which is on line line starting at index lineStart.
func positioned(data []byte, from, line int, lineStart int64, err error) error {
	pos := len(data)
	msg := err.Error()
	var cause error
	if pe, ok := err.(*perr); ok {
		pos, cause = pe.pos, pe.err
	}
	for i := from; i < pos; i++ {
		if data[i] == '\n' {
			line++
			lineStart = int64(i) + 1
		}
	}
	return &SyntaxError{Line: line, Column: int(int64(pos)-lineStart) + 1, Offset: int64(pos), Msg: msg, Err: cause}
}

// parser is a hand-written scanner for DynamoDB JSON. Its stacks hold the
// fields, list elements and set members of the values being built and are
// reused from item to item; each finished value gets its own exactly
// sized slice.
type parser struct {
	data    []byte
	pos     int
	fields  []Field
	vals    []Value
	members []string
	at      []int    // positions of set members, for duplicate errors
	nums    []Number // parsed NS members, for duplicate checks
	order   []int32  // field order while sorting
	scratch []byte   // unescaped strings
	bin     []byte   // decoded base64
	arena   []byte   // storage of decoded strings, see text
	chunk   int      // arena growth
	names   [256]string
}

// text returns b as a string stored in the parser's arena. The arena is
// append-only: bytes once handed out are never written again, so the
// strings stay immutable, and one allocation serves many strings. Strings
// of one item share arena blocks, which live as long as any of them.
func (p *parser) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(p.arena)-len(p.arena) < len(b) {
		p.arena = make([]byte, 0, max(p.chunk, len(b)))
	}
	off := len(p.arena)
	p.arena = append(p.arena, b...)
	return unsafe.String(&p.arena[off], len(b))
}

// name returns an attribute name, from a small cache when it was seen
// before: items of one stream repeat the same names.
func (p *parser) name(raw []byte) string {
	h := uint32(2166136261)
	for _, c := range raw {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &p.names[h%uint32(len(p.names))]
	if *slot == string(raw) {
		return *slot
	}
	if len(raw) > 64 {
		return p.text(raw)
	}
	s := string(raw)
	*slot = s
	return s
}

func (p *parser) fail(pos int, format string, args ...any) error {
	return &perr{pos: pos, msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && isSpace(p.data[p.pos]) {
		p.pos++
	}
}

// end checks that nothing but whitespace follows.
func (p *parser) end() error {
	p.skipSpace()
	if p.pos < len(p.data) {
		return p.fail(p.pos, "unexpected %s after the end of the value", p.describe(p.pos))
	}
	return nil
}

// describe names the JSON token at pos for error messages.
func (p *parser) describe(pos int) string {
	if pos >= len(p.data) {
		return "end of input"
	}
	switch c := p.data[pos]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	case c < utf8.RuneSelf:
		return fmt.Sprintf("character %q", c)
	default:
		r, _ := utf8.DecodeRune(p.data[pos:])
		return fmt.Sprintf("character %q", r)
	}
}

// expect consumes c after optional whitespace.
func (p *parser) expect(c byte, what string) error {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return errShort
	}
	if p.data[p.pos] != c {
		return p.fail(p.pos, "expected %s, found %s", what, p.describe(p.pos))
	}
	p.pos++
	return nil
}

// item parses an object of attribute names to typed values.
func (p *parser) item(dst Item) (Item, error) {
	if err := p.expect('{', "an item object"); err != nil {
		return nil, err
	}
	return p.fieldsUntilBrace(1, dst)
}

// fieldsUntilBrace parses the members of an item or map after its '{'.
// depth is the nesting depth of the values; the fields are stored in
// dst when it has room.
func (p *parser) fieldsUntilBrace(depth int, dst Item) (Item, error) {
	base := len(p.fields)
	defer func() { p.fields = p.fields[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return dst[:0], nil
	}
	var seen map[string]struct{} // only for large objects
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errShort
		}
		at := p.pos
		if p.data[at] != '"' {
			return nil, p.fail(at, "expected an attribute name, found %s", p.describe(at))
		}
		raw, err := p.str()
		if err != nil {
			return nil, err
		}
		name := p.name(raw)
		// Duplicate names: a linear scan while the object is small.
		cur := p.fields[base:]
		dup := false
		if seen == nil && len(cur) < 32 {
			for i := range cur {
				if cur[i].Name == name {
					dup = true
					break
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(cur))
				for _, f := range cur {
					seen[f.Name] = struct{}{}
				}
			}
			_, dup = seen[name]
			seen[name] = struct{}{}
		}
		if dup {
			return nil, p.fail(at, "duplicate attribute name %s", quoteShort(name))
		}
		if err := p.expect(':', "':' after attribute name"); err != nil {
			return nil, err
		}
		var v Value
		if err := p.value(depth, &v); err != nil {
			return nil, err
		}
		p.fields = append(p.fields, Field{Name: name, Value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errShort
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return p.sortedFields(base, dst), nil
		default:
			return nil, p.fail(p.pos, "expected ',' or '}' after attribute value, found %s", p.describe(p.pos))
		}
	}
}

func byName(a, b Field) int { return strings.Compare(a.Name, b.Name) }

// sortedFields copies p.fields[base:] in name order into dst, or a new
// Item when dst is too small. Fields are large, so an insertion sort of
// their indices is cheaper than sorting the fields themselves.
func (p *parser) sortedFields(base int, dst Item) Item {
	fs := p.fields[base:]
	out := dst[:0]
	if cap(out) < len(fs) {
		out = make(Item, len(fs))
	} else {
		out = out[:len(fs)]
	}
	if slices.IsSortedFunc(fs, byName) {
		copy(out, fs)
		return out
	}
	order := p.order[:0]
	for i := range fs {
		j := len(order)
		order = append(order, int32(i))
		for ; j > 0 && fs[order[j-1]].Name > fs[i].Name; j-- {
			order[j] = order[j-1]
		}
		order[j] = int32(i)
	}
	for k, i := range order {
		out[k] = fs[i]
	}
	p.order = order
	return out
}

// value parses one typed value {"TAG": content}.
func (p *parser) value(depth int, v *Value) error {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return errShort
	}
	open := p.pos
	if p.data[open] != '{' {
		return p.fail(open, "attribute value must be an object with one type tag, found %s", p.describe(open))
	}
	p.pos++
	p.skipSpace()
	if p.pos >= len(p.data) {
		return errShort
	}
	tagAt := p.pos
	switch p.data[tagAt] {
	case '}':
		return p.fail(open, "attribute value has no type tag")
	case '"':
	default:
		return p.fail(tagAt, "expected a type tag, found %s", p.describe(tagAt))
	}
	raw, err := p.str()
	if err != nil {
		return err
	}
	t := tagOf(raw)
	if t == Invalid {
		return p.fail(tagAt, "unknown type tag %s", quoteShort(string(raw)))
	}
	if err := p.expect(':', "':' after type tag"); err != nil {
		return err
	}
	if err := p.content(t, depth, v); err != nil {
		return err
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return errShort
	}
	switch p.data[p.pos] {
	case '}':
		p.pos++
		return nil
	case ',':
		p.skipSpaceAfter(p.pos + 1)
		return p.fail(p.pos, "attribute value has more than one type tag")
	}
	return p.fail(p.pos, "expected '}' after %s value, found %s", t, p.describe(p.pos))
}

func (p *parser) skipSpaceAfter(pos int) {
	p.pos = pos
	p.skipSpace()
}

func tagOf(raw []byte) Type {
	switch string(raw) {
	case "S":
		return S
	case "N":
		return N
	case "B":
		return B
	case "BOOL":
		return BOOL
	case "NULL":
		return NULL
	case "M":
		return M
	case "L":
		return L
	case "SS":
		return SS
	case "NS":
		return NS
	case "BS":
		return BS
	}
	return Invalid
}

// want checks that the token at the current position opens the JSON type
// a tag requires.
func (p *parser) want(t Type, c byte, kind string) error {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return errShort
	}
	if p.data[p.pos] != c {
		return p.fail(p.pos, "%s wants a JSON %s, found %s", t, kind, p.describe(p.pos))
	}
	return nil
}

// open consumes the '{' or '[' of a map or list at the given depth.
func (p *parser) open(t Type, c byte, kind string, depth int) error {
	if err := p.want(t, c, kind); err != nil {
		return err
	}
	if depth > MaxDepth {
		return p.fail(p.pos, "nesting exceeds %d levels", MaxDepth)
	}
	p.pos++
	return nil
}

// content parses what follows "TAG":.
func (p *parser) content(t Type, depth int, v *Value) error {
	switch t {
	case S, N, B:
		if err := p.want(t, '"', "string"); err != nil {
			return err
		}
		at := p.pos
		s, err := p.scalar(t, at)
		v.Type, v.Str = t, s
		return err
	case BOOL:
		b, err := p.boolean(t)
		v.Type, v.Bool = BOOL, b
		return err
	case NULL:
		at := p.pos
		b, err := p.boolean(t)
		if err == nil && !b {
			return p.fail(at, "NULL must be true")
		}
		v.Type, v.Bool = NULL, true
		return err
	case M:
		if err := p.open(t, '{', "object", depth); err != nil {
			return err
		}
		it, err := p.fieldsUntilBrace(depth+1, nil)
		v.Type, v.Map = M, it
		return err
	case L:
		if err := p.open(t, '[', "array", depth); err != nil {
			return err
		}
		list, err := p.list(depth + 1)
		v.Type, v.List = L, list
		return err
	}
	if err := p.want(t, '[', "array"); err != nil {
		return err
	}
	set, err := p.set(t)
	v.Type, v.Set = t, set
	return err
}

// scalar parses the string content of S, N and B (or of a set member).
func (p *parser) scalar(t Type, at int) (string, error) {
	raw, err := p.str()
	if err != nil {
		return "", err
	}
	switch t {
	case S, SS:
		return p.text(raw), nil
	case N, NS:
		s := p.text(raw)
		if err := ValidNumber(s); err != nil {
			return "", &perr{pos: at, msg: fmt.Sprintf("invalid number %s: %v", quoteShort(s), err), err: err}
		}
		return s, nil
	}
	n := base64.StdEncoding.DecodedLen(len(raw))
	if cap(p.bin) < n {
		p.bin = make([]byte, n)
	}
	n, err = base64.StdEncoding.Decode(p.bin[:n], raw)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return "", p.fail(at, "invalid base64 in %s value at byte %d", t, int64(ce))
		}
		return "", p.fail(at, "invalid base64 in %s value", t)
	}
	return p.text(p.bin[:n]), nil
}

// boolean parses true or false.
func (p *parser) boolean(t Type) (bool, error) {
	p.skipSpace()
	rest := p.data[p.pos:]
	for _, lit := range [...]string{"true", "false"} {
		if bytes.HasPrefix(rest, []byte(lit)) {
			p.pos += len(lit)
			return lit == "true", nil
		}
		if len(rest) < len(lit) && strings.HasPrefix(lit, string(rest)) && len(rest) > 0 {
			return false, errShort
		}
	}
	if len(rest) == 0 {
		return false, errShort
	}
	if t == NULL {
		return false, p.fail(p.pos, "NULL wants true, found %s", p.describe(p.pos))
	}
	return false, p.fail(p.pos, "%s wants true or false, found %s", t, p.describe(p.pos))
}

// list parses the elements of an L value after its '['.
func (p *parser) list(depth int) ([]Value, error) {
	base := len(p.vals)
	defer func() { p.vals = p.vals[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil, nil
	}
	for {
		var v Value
		if err := p.value(depth, &v); err != nil {
			return nil, err
		}
		p.vals = append(p.vals, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errShort
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			out := make([]Value, len(p.vals)-base)
			copy(out, p.vals[base:])
			return out, nil
		default:
			return nil, p.fail(p.pos, "expected ',' or ']' in list, found %s", p.describe(p.pos))
		}
	}
}

// set parses the members of SS, NS or BS after the '[' and rejects empty
// sets and duplicates, as DynamoDB does.
func (p *parser) set(t Type) ([]string, error) {
	open := p.pos
	p.pos++
	p.members, p.at = p.members[:0], p.at[:0]
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		return nil, p.fail(open, "%s: an empty set is not allowed", t)
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errShort
		}
		at := p.pos
		if p.data[at] != '"' {
			return nil, p.fail(at, "%s members must be JSON strings, found %s", t, p.describe(at))
		}
		s, err := p.scalar(t, at)
		if err != nil {
			return nil, err
		}
		p.members = append(p.members, s)
		p.at = append(p.at, at)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errShort
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			continue
		case ']':
			p.pos++
		default:
			return nil, p.fail(p.pos, "expected ',' or ']' in %s, found %s", t, p.describe(p.pos))
		}
		break
	}
	if i := p.duplicate(t); i >= 0 {
		return nil, p.fail(p.at[i], "%s: input collection contains duplicates (%s)", t, quoteShort(p.members[i]))
	}
	return slices.Clone(p.members), nil
}

// duplicate returns the index of the first member that repeats an
// earlier one, or -1. NS members are compared as numbers ("1" = "1.0").
func (p *parser) duplicate(t Type) int {
	ms := p.members
	if t == NS {
		p.nums = p.nums[:0]
		for _, m := range ms {
			n, _ := ParseNumber(m) // validated by scalar
			p.nums = append(p.nums, n)
		}
		return firstRepeat(p.nums)
	}
	return firstRepeat(ms)
}

func firstRepeat[T comparable](xs []T) int {
	if len(xs) <= 16 {
		for i := 1; i < len(xs); i++ {
			for j := 0; j < i; j++ {
				if xs[i] == xs[j] {
					return i
				}
			}
		}
		return -1
	}
	seen := make(map[T]struct{}, len(xs))
	for i, x := range xs {
		if _, ok := seen[x]; ok {
			return i
		}
		seen[x] = struct{}{}
	}
	return -1
}

// plain marks bytes that stand for themselves inside a JSON string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str parses a JSON string at p.pos (which holds '"') and returns its
// content, either a slice of the input or of p.scratch; valid until the
// next call.
func (p *parser) str() ([]byte, error) {
	start := p.pos + 1
	i := start
	data := p.data
	for i < len(data) {
		c := data[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	if i < len(data) && data[i] == '"' {
		p.pos = i + 1
		return data[start:i], nil
	}
	// Slow path: escapes, non-ASCII or the end of the input.
	buf := append(p.scratch[:0], data[start:i]...)
	for {
		if i >= len(data) {
			return nil, errShort
		}
		c := data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.scratch = buf
			return buf, nil
		case c == '\\':
			var err error
			buf, i, err = p.escape(buf, i)
			if err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, p.fail(i, "control character %q in string must be escaped", c)
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				if !utf8.FullRune(data[i:]) {
					return nil, errShort
				}
				return nil, p.fail(i, "invalid UTF-8 in string")
			}
			buf = append(buf, data[i:i+size]...)
			i += size
		}
	}
}

// escape decodes the escape sequence at data[i] ('\\'), appending to buf.
func (p *parser) escape(buf []byte, i int) ([]byte, int, error) {
	data := p.data
	if i+1 >= len(data) {
		return nil, 0, errShort
	}
	switch c := data[i+1]; c {
	case '"', '\\', '/':
		return append(buf, c), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
		r, err := p.hex4(i)
		if err != nil {
			return nil, 0, err
		}
		i += 6
		if utf16.IsSurrogate(r) {
			// A high surrogate must be followed by an escaped low one;
			// a lone surrogate decodes to U+FFFD, as encoding/json does.
			if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
				r2, err := p.hex4(i)
				if err != nil {
					return nil, 0, err
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return utf8.AppendRune(buf, dec), i + 6, nil
				}
			} else if i+1 >= len(data) {
				return nil, 0, errShort
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(buf, r), i, nil
	default:
		return nil, 0, p.fail(i, "invalid escape %q in string", "\\"+string(rune(c)))
	}
}

// hex4 reads the four hex digits of the \u escape at data[i].
func (p *parser) hex4(i int) (rune, error) {
	var r rune
	for k := i + 2; k < i+6; k++ {
		if k >= len(p.data) {
			return 0, errShort
		}
		c := p.data[k]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, p.fail(i, "invalid \\u escape in string")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// AppendItemJSON appends it in DynamoDB JSON, fields in name order.
func AppendItemJSON(dst []byte, it Item) []byte {
	if !slices.IsSortedFunc(it, byName) {
		it = slices.SortedStableFunc(slices.Values(it), byName)
	}
	dst = append(dst, '{')
	for i, f := range it {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Name)
		dst = append(dst, ':')
		dst = AppendValueJSON(dst, f.Value)
	}
	return append(dst, '}')
}

// AppendValueJSON appends v in DynamoDB JSON. The zero Value (type
// Invalid) has no wire form and is written as JSON null.
func AppendValueJSON(dst []byte, v Value) []byte {
	if v.Type == Invalid || int(v.Type) >= len(typeNames) {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"`...)
	dst = append(dst, v.Type.String()...)
	dst = append(dst, `":`...)
	switch v.Type {
	case S, N:
		dst = appendString(dst, v.Str)
	case B:
		dst = appendBase64(dst, v.Str)
	case BOOL:
		dst = appendBool(dst, v.Bool)
	case NULL:
		dst = append(dst, "true"...)
	case M:
		dst = AppendItemJSON(dst, v.Map)
	case L:
		dst = append(dst, '[')
		for i, e := range v.List {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValueJSON(dst, e)
		}
		dst = append(dst, ']')
	case SS, NS, BS:
		dst = append(dst, '[')
		for i, m := range v.Set {
			if i > 0 {
				dst = append(dst, ',')
			}
			if v.Type == BS {
				dst = appendBase64(dst, m)
			} else {
				dst = appendString(dst, m)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

func appendBase64(dst []byte, raw string) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, []byte(raw))
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as every encoder of
// this package escapes it (invalid UTF-8 becomes U+FFFD), so that an
// encoder writing items from another form produces the same bytes.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD
// so that the output is always valid JSON.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// MarshalJSON encodes the item in DynamoDB JSON.
func (it Item) MarshalJSON() ([]byte, error) { return AppendItemJSON(nil, it), nil }

// UnmarshalJSON decodes an item in DynamoDB JSON; null leaves it nil.
func (it *Item) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*it = nil
		return nil
	}
	return decodeInto(it, data, DecodeItem)
}

// MarshalJSON encodes the value in DynamoDB JSON.
func (v Value) MarshalJSON() ([]byte, error) { return AppendValueJSON(nil, v), nil }

// UnmarshalJSON decodes a typed value; null leaves it unchanged, as
// encoding/json does for other types.
func (v *Value) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	return decodeInto(v, data, DecodeValue)
}

// decodeInto stores the decoded value only on success.
func decodeInto[T any](dst *T, data []byte, decode func([]byte) (T, error)) error {
	x, err := decode(data)
	if err != nil {
		return err
	}
	*dst = x
	return nil
}

// quoteShort quotes s for an error message, cut to its first 40
// characters: a bad value may be 400 KB long, and the message is read by
// a person.
func quoteShort(s string) string {
	const keep = 40
	n := 0
	for i := range s {
		if n == keep {
			return strconv.Quote(s[:i]) + fmt.Sprintf("... (%d bytes)", len(s))
		}
		n++
	}
	return strconv.Quote(s)
}
