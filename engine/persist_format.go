package engine

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The data directory's files are sequences of frames, each checked by a
// CRC-32C, so that a torn write (a kill -9 or a power cut in the middle
// of one) and damage are told from data:
//
//	file    = header frame*
//	header  = magic(8) be64(segment) crc32c(the 16 bytes before)
//	frame   = le32(len) le32(crc32c(payload)) payload
//	payload = kind body
//
// The log (log-N.cdl) holds, in commit order:
//
//	'D' JSON tableDef    a table's whole definition, after each change
//	'X' uvarint(no)      a table dropped
//	'S' JSON streamDef   a stream's definition and shards, after each change
//	'C' change           one item change, and its stream record
//	'T' uvarint(n) (uvarint(len) change)*   a transaction's changes
//
// A snapshot (snap-N.cds) holds the state that log segment N starts
// from: 'D' and 'S' frames, 'I' frames of items, 'R' frames of stream
// records, and an 'E' frame whose counts prove it whole.
//
//	change  = uvarint(table no) flags [uvarint(seq) varint(ms) kind
//	          [uvarint(len) old]] item
//	flags   = 1 delete (item is the key) | 2 stream record | 4 by TTL
//	          | 8 old image
//	item    = the stored item encoding (codec.go)
//
// Items are logged in the engine's item encoding and their keys rebuilt
// from it on replay, so that the log does not depend on how keys are
// laid out in memory.

const (
	logMagic  = "CRDPLOG1"
	snapMagic = "CRDPSNP1"

	fileHeader  = 20
	frameHeader = 8
	// maxFrame bounds one frame: a transaction of 100 items of 400 KB
	// with their old images fits.
	maxFrame = 128 << 20
)

// Payload kinds.
const (
	recDefine  = 'D'
	recDrop    = 'X'
	recStream  = 'S'
	recChange  = 'C'
	recGroup   = 'T'
	recItems   = 'I'
	recRecords = 'R'
	recEnd     = 'E'
)

// Change flags.
const (
	chDelete  = 1
	chStream  = 2
	chService = 4
	chOld     = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func appendFileHeader(b []byte, magic string, seg uint64) []byte {
	b = append(b, magic...)
	b = binary.BigEndian.AppendUint64(b, seg)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(b)-16:], castagnoli))
}

// parseFileHeader checks a file's header and returns its segment number.
func parseFileHeader(h []byte, magic string) (uint64, error) {
	if len(h) < fileHeader {
		return 0, errors.New("the file is shorter than its header")
	}
	if string(h[:8]) != magic {
		return 0, errors.New("the file does not start with the expected header")
	}
	if crc32.Checksum(h[:16], castagnoli) != binary.LittleEndian.Uint32(h[16:20]) {
		return 0, errors.New("the header's checksum does not match")
	}
	return binary.BigEndian.Uint64(h[8:16]), nil
}

// beginFrame reserves a frame's header; endFrame fills it once the
// payload is appended.
func beginFrame(b []byte) ([]byte, int) {
	return append(b, 0, 0, 0, 0, 0, 0, 0, 0), len(b)
}

func endFrame(b []byte, start int) []byte {
	p := b[start+frameHeader:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(p)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(p, castagnoli))
	return b
}

// frameReader reads the frames of a file after its header, telling a
// clean end from a frame that is torn or damaged.
type frameReader struct {
	r    *bufio.Reader
	off  int64 // offset of the next frame
	size int64 // the file's size
	buf  []byte
}

func newFrameReader(r io.Reader, off, size int64) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 1<<16), off: off, size: size}
}

// errEnd is the clean end of a file.
var errEnd = errors.New("end of file")

// next returns the next frame's payload (valid until the next call), or
// errEnd, or an error saying what is wrong with the frame at r.off.
func (fr *frameReader) next() ([]byte, error) {
	left := fr.size - fr.off
	if left == 0 {
		return nil, errEnd
	}
	if left < frameHeader {
		return nil, fmt.Errorf("a torn frame: %d bytes where a header takes %d", left, frameHeader)
	}
	var h [frameHeader]byte
	if _, err := io.ReadFull(fr.r, h[:]); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	n := int64(binary.LittleEndian.Uint32(h[:4]))
	if n == 0 || n > maxFrame {
		return nil, fmt.Errorf("a frame length of %d bytes, out of range", n)
	}
	if n > left-frameHeader {
		return nil, fmt.Errorf("a torn frame: %d bytes of payload announced, %d in the file", n, left-frameHeader)
	}
	if int64(cap(fr.buf)) < n {
		fr.buf = make([]byte, n)
	}
	p := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, errors.New("a frame whose checksum does not match")
	}
	fr.off += frameHeader + n
	return p, nil
}

// parser reads the body of a payload; any read past its end or of an
// impossible length sets err (it never panics on damaged input).
type parser struct {
	b   []byte
	err error
}

func (p *parser) fail(what string) {
	if p.err == nil {
		p.err = errors.New(what)
	}
	p.b = nil
}

func (p *parser) uvarint() uint64 {
	v, k := binary.Uvarint(p.b)
	if k <= 0 {
		p.fail("a truncated number")
		return 0
	}
	p.b = p.b[k:]
	return v
}

func (p *parser) varint() int64 {
	v, k := binary.Varint(p.b)
	if k <= 0 {
		p.fail("a truncated number")
		return 0
	}
	p.b = p.b[k:]
	return v
}

func (p *parser) byte1() byte {
	if len(p.b) == 0 {
		p.fail("a truncated record")
		return 0
	}
	c := p.b[0]
	p.b = p.b[1:]
	return c
}

func (p *parser) bytes(n uint64) []byte {
	if n > uint64(len(p.b)) {
		p.fail("a length past the end of the record")
		return nil
	}
	s := p.b[:n]
	p.b = p.b[n:]
	return s
}

func (p *parser) no() uint32 {
	v := p.uvarint()
	if v == 0 || v > 1<<32-1 {
		p.fail("a table number out of range")
		return 0
	}
	return uint32(v)
}

// change is a decoded 'C' body. Its byte strings alias the payload.
type change struct {
	no   uint32
	del  bool
	item []byte
	ev   *streamRecord // seq, at, kind, service and old only
}

// appendChange encodes an item change; ev, when set, is its stream
// record, whose old image is logged when keepOld.
func appendChange(b []byte, no uint32, del bool, item []byte, ev *streamRecord, keepOld bool) []byte {
	b = binary.AppendUvarint(b, uint64(no))
	var flags byte
	if del {
		flags |= chDelete
	}
	if ev != nil {
		flags |= chStream
		if ev.service {
			flags |= chService
		}
		if keepOld && ev.old != nil {
			flags |= chOld
		}
	}
	b = append(b, flags)
	if ev != nil {
		b = binary.AppendUvarint(b, ev.seq)
		b = binary.AppendVarint(b, ev.at)
		b = append(b, byte(ev.kind))
		if flags&chOld != 0 {
			b = binary.AppendUvarint(b, uint64(len(ev.old)))
			b = append(b, ev.old...)
		}
	}
	return append(b, item...)
}

func parseChange(body []byte) (change, error) {
	p := parser{b: body}
	c := change{no: p.no()}
	flags := p.byte1()
	if flags&^(chDelete|chStream|chService|chOld) != 0 {
		p.fail("unknown change flags")
	}
	c.del = flags&chDelete != 0
	if flags&chStream != 0 {
		ev := &streamRecord{seq: p.uvarint(), at: p.varint(), kind: eventKind(p.byte1()), service: flags&chService != 0}
		if ev.kind < evInsert || ev.kind > evRemove || ev.seq == 0 {
			p.fail("a stream record of an unknown kind")
		}
		if flags&chOld != 0 {
			ev.old = p.bytes(p.uvarint())
		}
		c.ev = ev
	} else if flags&(chService|chOld) != 0 {
		p.fail("stream flags without a stream record")
	}
	if p.err != nil {
		return change{}, p.err
	}
	if len(p.b) == 0 {
		return change{}, errors.New("a change without its item")
	}
	c.item = p.b
	return c, nil
}

// appendLen appends a byte string that may be absent (nil): its length
// plus one, or 0.
func appendOptional(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

func (p *parser) optional() []byte {
	n := p.uvarint()
	if n == 0 {
		return nil
	}
	return p.bytes(n - 1)
}

// appendStreamRecord encodes a retained stream record (snapshots).
func appendStreamRecord(b []byte, r *streamRecord) []byte {
	b = binary.AppendUvarint(b, r.seq)
	b = binary.AppendVarint(b, r.at)
	var svc byte
	if r.service {
		svc = 1
	}
	b = append(b, byte(r.kind), svc)
	b = binary.AppendVarint(b, r.size)
	b = appendOptional(b, r.keys)
	b = appendOptional(b, r.old)
	return appendOptional(b, r.new)
}

func (p *parser) streamRecord() streamRecord {
	r := streamRecord{seq: p.uvarint(), at: p.varint(), kind: eventKind(p.byte1())}
	svc := p.byte1()
	r.service = svc == 1
	r.size = p.varint()
	r.keys, r.old, r.new = clone(p.optional()), clone(p.optional()), clone(p.optional())
	if p.err == nil && (r.kind < evInsert || r.kind > evRemove || svc > 1 || r.keys == nil || r.seq == 0 || r.size < 0) {
		p.fail("a damaged stream record")
	}
	return r
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// tableDef is a table's whole definition as the data log keeps it.
type tableDef struct {
	No         uint32
	Name       string
	ARN        string
	ID         string
	Created    int64 // unix milliseconds
	Attrs      []AttributeDefinition
	KeySchema  []KeySchemaElement
	Billing    string
	Throughput ProvisionedThroughputDescription
	OnDemand   *OnDemandThroughput `json:",omitempty"`
	Warm       *WarmThroughput     `json:",omitempty"`
	Class      string              `json:",omitempty"`
	Protect    bool                `json:",omitempty"`
	Tags       []Tag               `json:",omitempty"`
	GSIs       []indexDef          `json:",omitempty"`
	LSIs       []indexDef          `json:",omitempty"`
	TTLAttr    string              `json:",omitempty"`
	TTLOn      bool                `json:",omitempty"`
	Stream     string              `json:",omitempty"` // the enabled stream's ARN
	Latest     string              `json:",omitempty"` // the latest stream's ARN
}

// indexDef is one secondary index of a tableDef.
type indexDef struct {
	Name       string
	KeySchema  []KeySchemaElement
	Projection Projection
	Throughput ProvisionedThroughputDescription
	OnDemand   *OnDemandThroughput `json:",omitempty"`
	Warm       *WarmThroughput     `json:",omitempty"`
	Created    int64
}

// def captures t's definition; the caller holds t.mu.
func (t *table) def() *tableDef {
	d := &tableDef{No: t.no, Name: t.name, ARN: t.arn, ID: t.id, Created: unixMs(t.created), Attrs: t.attrs, KeySchema: t.keySchema,
		Billing: t.billing, Throughput: t.throughput, OnDemand: t.onDemand, Warm: t.warm, Class: t.tableClass, Protect: t.protect,
		Tags: t.tags, TTLAttr: t.ttlAttr, TTLOn: t.ttlEnabled}
	for _, list := range [2][]*index{t.gsis, t.lsis} {
		for _, ix := range list {
			x := indexDef{Name: ix.name, KeySchema: keySchemaOf(ix.hash, ix.rng), Projection: ix.projection, Throughput: ix.throughput,
				OnDemand: ix.onDemand, Warm: ix.warm, Created: unixMs(ix.created)}
			if ix.local {
				d.LSIs = append(d.LSIs, x)
			} else {
				d.GSIs = append(d.GSIs, x)
			}
		}
	}
	if t.stream != nil {
		d.Stream = t.stream.arn
	}
	if t.latest != nil {
		d.Latest = t.latest.arn
	}
	return d
}

// streamDef is a stream's definition and shards as the data log keeps
// them (records travel in changes, and in snapshots' 'R' frames).
type streamDef struct {
	ARN      string
	Label    string
	Table    string
	TableNo  uint32
	View     string
	Keys     []KeySchemaElement
	Created  int64
	Enabled  bool
	Disabled int64 `json:",omitempty"`
	Next     uint64
	NShards  uint32
	Shards   []shardDef
}

type shardDef struct {
	N       uint32
	ID      string
	Parent  string `json:",omitempty"`
	Created int64
	Start   uint64
	End     uint64 `json:",omitempty"`
	Trimmed uint64 `json:",omitempty"`
}

// def captures s's definition; the caller holds s.mu.
func (s *stream) def() *streamDef {
	d := &streamDef{ARN: s.arn, Label: s.label, Table: s.table, TableNo: s.tableNo, View: s.view, Keys: s.keys,
		Created: s.created, Enabled: s.enabled, Disabled: s.disabled, Next: s.next, NShards: s.nshards}
	for _, sh := range s.shards {
		d.Shards = append(d.Shards, shardDef{N: sh.n, ID: sh.id, Parent: sh.parent, Created: sh.created, Start: sh.start, End: sh.end, Trimmed: sh.trimmed})
	}
	return d
}

// appendJSONPayload appends kind and v's JSON.
func appendJSONPayload(b []byte, kind byte, v any) []byte {
	j, err := json.Marshal(v)
	if err != nil {
		// The definitions are plain data: this cannot fail.
		panic(err)
	}
	return append(append(b, kind), j...)
}
