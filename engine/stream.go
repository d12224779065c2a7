package engine

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// A table's stream (DynamoDB Streams) is a log of its item changes,
// readable through the streams API (stream_api.go) for 24 hours. Each
// change that alters an item appends one record: INSERT, MODIFY or
// REMOVE, with the keys and, per the stream's view type, the item as it
// was and as it became. A write that leaves the item as it was (a put of
// the same item, a delete of an absent one) appends nothing, as on
// DynamoDB.
//
// Records are appended under the table's write lock, in commit order, to
// the stream's one open shard, so the records of every key (of every
// item, in fact) are in the order the changes were made. A shard takes
// records for StreamOptions.ShardLife (4 hours, about as on DynamoDB) and
// then closes: a child shard, whose ParentShardId names it, takes the
// next records. A disabled stream closes its open shard and stays
// readable for the retention period; so does the stream of a deleted
// table.
//
// The images are the stored item encodings (codec.go), shared with the
// table's records: a record costs its keys and a few words beyond the
// item versions it keeps alive. StreamOptions.MaxBytes bounds what a
// stream retains; beyond it the oldest records are trimmed early, and a
// reader that was still behind them gets TrimmedDataAccessException as
// for records past their retention.

// Stream view types: what each record carries besides the keys.
const (
	ViewKeysOnly      = "KEYS_ONLY"
	ViewNewImage      = "NEW_IMAGE"
	ViewOldImage      = "OLD_IMAGE"
	ViewNewAndOldImgs = "NEW_AND_OLD_IMAGES"
)

// StreamOptions bound the engine's streams. The zero value is DynamoDB's
// behaviour with a memory cap.
type StreamOptions struct {
	// Retention is how long a record stays readable, by the engine's
	// clock; default 24 hours, as on DynamoDB.
	Retention time.Duration
	// ShardLife is how long a shard takes records before it closes and
	// a child shard opens; default 4 hours.
	ShardLife time.Duration
	// MaxBytes caps the bytes of records one stream retains (keys,
	// images and bookkeeping); beyond it the oldest records are trimmed
	// before their retention ends. Default 256 MiB.
	MaxBytes int64
}

func (o StreamOptions) withDefaults() StreamOptions {
	if o.Retention <= 0 {
		o.Retention = 24 * time.Hour
	}
	if o.ShardLife <= 0 {
		o.ShardLife = 4 * time.Hour
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 256 << 20
	}
	return o
}

// iteratorLife is how long a shard iterator can be used.
const iteratorLife = 15 * time.Minute

// eventKind is a record's eventName.
type eventKind uint8

const (
	evInsert eventKind = iota + 1
	evModify
	evRemove
)

func (k eventKind) String() string {
	switch k {
	case evInsert:
		return "INSERT"
	case evModify:
		return "MODIFY"
	}
	return "REMOVE"
}

// Identity is who made a change, as a stream record's userIdentity shows
// it: set only for changes DynamoDB makes itself (TTL deletions).
type Identity struct {
	PrincipalId string
	Type        string
}

// ttlIdentity is the identity of TTL deletions, as on AWS.
var ttlIdentity = &Identity{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}

// streamRecord is one change in a stream. Its byte strings are never
// modified (they may be shared with stored records).
type streamRecord struct {
	seq     uint64
	at      int64 // unix milliseconds
	kind    eventKind
	service bool   // a TTL deletion
	keys    []byte // the key attributes, stored item encoding
	old     []byte // the item before (nil: none, or not in the view)
	new     []byte // the item after (nil: none, or not in the view)
	size    int64  // SizeBytes
}

// recordOverhead is what a record costs beyond its byte strings.
const recordOverhead = 96

func (r *streamRecord) mem() int64 {
	return int64(len(r.keys)+len(r.old)+len(r.new)) + recordOverhead
}

// shard is one shard of a stream: records in sequence order.
type shard struct {
	n       uint32 // position in the stream's shard lineage
	id      string
	parent  string
	created int64  // unix milliseconds
	start   uint64 // StartingSequenceNumber
	end     uint64 // EndingSequenceNumber; 0 while the shard is open
	recs    []streamRecord
	trimmed uint64 // the highest sequence number trimmed away, 0 none
}

// stream is one stream of a table. Its own lock guards it: writers take
// it under the table's lock, readers without.
type stream struct {
	mu sync.RWMutex

	arn, label, table, view string
	tableNo                 uint32 // the table's number in the data log
	keys                    []KeySchemaElement
	created                 int64 // unix milliseconds
	enabled                 bool
	disabled                int64 // when it was disabled, unix milliseconds

	shards  []*shard // live shards, oldest first (also in ShardId order)
	nshards uint32   // shards ever opened
	next    uint64   // the next sequence number
	bytes   int64    // retained record bytes

	opts *StreamOptions
	now  func() time.Time
	data *store // the data log, nil in memory
}

func unixMs(t time.Time) int64 { return t.UnixMilli() }

// wantsOld and wantsNew say which images the view keeps.
func (s *stream) wantsOld() bool { return s.view == ViewOldImage || s.view == ViewNewAndOldImgs }
func (s *stream) wantsNew() bool { return s.view == ViewNewImage || s.view == ViewNewAndOldImgs }

// Sequence numbers are decimal strings of 21 digits: "1" and the number
// zero-padded to 20 digits, so that they compare equally as numbers and
// as strings, as consumers do both.
func formatSeq(n uint64) string {
	var b [21]byte
	b[0] = '1'
	s := strconv.FormatUint(n, 10)
	for i := 1; i < 21-len(s); i++ {
		b[i] = '0'
	}
	copy(b[21-len(s):], s)
	return string(b[:])
}

func parseSeq(s string) (uint64, bool) {
	if len(s) != 21 || s[0] != '1' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 64)
	return n, err == nil
}

// shardID names a shard so that ids sort in the order shards open, as
// DynamoDB's do: the opening time, then the shard's position.
func shardID(created int64, n uint32) string {
	return fmt.Sprintf("shardId-%020d-%08x", created, n)
}

// openShard opens the next shard of the lineage; the caller holds s.mu.
func (s *stream) openShard(now int64) *shard {
	parent := ""
	if len(s.shards) > 0 {
		last := s.shards[len(s.shards)-1]
		parent = last.id
		if last.created > now {
			now = last.created // ids stay in order if the clock steps back
		}
	}
	if s.next == 0 {
		s.next = 1
	}
	sh := &shard{n: s.nshards, id: shardID(now, s.nshards), parent: parent, created: now, start: s.next}
	s.nshards++
	s.shards = append(s.shards, sh)
	return sh
}

// closeOpen closes the open shard, if any; the caller holds s.mu. An
// empty shard ends at its start, whose number is then never issued.
func (s *stream) closeOpen() {
	if len(s.shards) == 0 {
		return
	}
	sh := s.shards[len(s.shards)-1]
	if sh.end != 0 {
		return
	}
	if n := len(sh.recs); n > 0 {
		sh.end = sh.recs[n-1].seq
	} else if s.next > sh.start {
		sh.end = s.next - 1
	} else {
		sh.end = sh.start
		s.next = sh.start + 1
	}
}

// openShardFor returns the shard taking records now, closing the open
// one and opening its child when its life is over; rotated reports a
// change of the lineage (which the data log records).
func (s *stream) openShardFor(now int64) (sh *shard, rotated bool) {
	if n := len(s.shards); n > 0 {
		sh = s.shards[n-1]
		if sh.end == 0 && (len(sh.recs) == 0 || now-sh.created < s.opts.ShardLife.Milliseconds()) {
			return sh, false
		}
		s.closeOpen()
	}
	return s.openShard(now), true
}

// append adds a record, assigning its sequence number and time; the
// caller holds the table's write lock.
func (s *stream) append(r *streamRecord) {
	s.mu.Lock()
	now := unixMs(s.now())
	s.trim(now)
	sh, rotated := s.openShardFor(now)
	if rotated && s.data != nil {
		s.data.logStream(s)
	}
	r.seq, r.at = s.next, now
	s.next++
	sh.recs = append(sh.recs, *r)
	s.bytes += r.mem()
	if s.bytes > s.opts.MaxBytes {
		s.trim(now)
	}
	s.mu.Unlock()
}

// replay adds a record read from the data log, with its own sequence
// number and time, to the shard whose range holds it (a transaction's
// records may follow the shard change they straddle); a record whose
// shard is gone is dropped, as it would have been trimmed.
func (s *stream) replay(r streamRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.seq >= s.next {
		s.next = r.seq + 1
	}
	for i := len(s.shards) - 1; i >= 0; i-- {
		sh := s.shards[i]
		if r.seq < sh.start {
			continue
		}
		if sh.end != 0 && r.seq > sh.end || r.seq <= sh.trimmed || len(sh.recs) > 0 && r.seq <= sh.recs[len(sh.recs)-1].seq {
			return
		}
		sh.recs = append(sh.recs, r)
		s.bytes += r.mem()
		return
	}
}

// trim drops the records past retention, and the oldest records while
// the stream holds more than its byte cap, then the closed shards left
// empty; the caller holds s.mu for writing.
func (s *stream) trim(now int64) {
	horizon := now - s.opts.Retention.Milliseconds()
	for _, sh := range s.shards {
		i := 0
		for i < len(sh.recs) && (sh.recs[i].at < horizon || s.bytes > s.opts.MaxBytes) {
			s.bytes -= sh.recs[i].mem()
			sh.trimmed = sh.recs[i].seq
			sh.recs[i] = streamRecord{} // let the images go
			i++
		}
		if i > 0 {
			sh.recs = sh.recs[i:]
		}
		if len(sh.recs) > 0 {
			break // the later shards hold only newer records
		}
	}
	kept := s.shards[:0]
	for _, sh := range s.shards {
		if sh.end != 0 && len(sh.recs) == 0 && sh.trimmed != 0 {
			continue // closed, and everything it held is gone
		}
		if sh.end != 0 && len(sh.recs) == 0 && sh.created < horizon {
			continue // closed and empty for a whole retention period
		}
		kept = append(kept, sh)
	}
	for i := len(kept); i < len(s.shards); i++ {
		s.shards[i] = nil
	}
	s.shards = kept
}

// expired reports whether a disabled stream has outlived its retention
// (and is then forgotten); the caller holds s.mu.
func (s *stream) expired(now int64) bool {
	return !s.enabled && now-s.disabled >= s.opts.Retention.Milliseconds()
}

// shardByN finds a live shard by its position in the lineage.
func (s *stream) shardByN(n uint32) *shard {
	i := sort.Search(len(s.shards), func(i int) bool { return s.shards[i].n >= n })
	if i < len(s.shards) && s.shards[i].n == n {
		return s.shards[i]
	}
	return nil
}

func (s *stream) shardByID(id string) *shard {
	for _, sh := range s.shards {
		if sh.id == id {
			return sh
		}
	}
	return nil
}

// status is the stream's StreamStatus.
func (s *stream) status() string {
	if s.enabled {
		return "ENABLED"
	}
	return "DISABLED"
}

// streamSet is the engine's streams by ARN: a stream outlives the
// table's setting, and the table itself, by its retention period.
type streamSet struct {
	mu    sync.Mutex
	byARN map[string]*stream
}

func (ss *streamSet) get(arn string) *stream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byARN[arn]
}

func (ss *streamSet) put(s *stream) {
	ss.mu.Lock()
	if ss.byARN == nil {
		ss.byARN = map[string]*stream{}
	}
	ss.byARN[s.arn] = s
	ss.mu.Unlock()
}

// all returns the streams in ARN order, forgetting those whose retention
// after being disabled is over.
func (ss *streamSet) all(now int64) []*stream {
	ss.mu.Lock()
	out := make([]*stream, 0, len(ss.byARN))
	for arn, s := range ss.byARN {
		s.mu.RLock()
		gone := s.expired(now)
		s.mu.RUnlock()
		if gone {
			delete(ss.byARN, arn)
			continue
		}
		out = append(out, s)
	}
	ss.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].arn < out[j].arn })
	return out
}

// streamLabel is the label of a stream created at t, as DynamoDB forms
// it: the creation time to the millisecond, UTC.
func streamLabel(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000")
}

// enableStream gives t a new enabled stream with the view; the caller
// holds t.mu for writing (or owns t, not yet visible). Two streams of a
// table never share a label: the clock is stepped a millisecond on.
func (e *Engine) enableStream(t *table, view string) *stream {
	at := e.opts.Now()
	label := streamLabel(at)
	for e.streams.get(t.arn+"/stream/"+label) != nil {
		at = at.Add(time.Millisecond)
		label = streamLabel(at)
	}
	o := e.opts.Streams.withDefaults()
	s := &stream{arn: t.arn + "/stream/" + label, label: label, table: t.name, view: view, tableNo: t.no,
		keys: t.keySchema, created: unixMs(at), enabled: true, opts: &o, now: e.opts.Now, data: e.data}
	s.mu.Lock()
	s.openShard(unixMs(at))
	if e.data != nil {
		e.data.logStream(s)
	}
	s.mu.Unlock()
	e.streams.put(s)
	t.stream, t.latest = s, s
	return s
}

// disableStream closes t's stream; it stays readable for its retention.
// The caller holds t.mu for writing.
func (e *Engine) disableStream(t *table) {
	s := t.stream
	if s == nil {
		return
	}
	t.stream = nil
	s.mu.Lock()
	s.closeOpen()
	s.enabled = false
	s.disabled = unixMs(e.opts.Now())
	if s.data != nil {
		s.data.logStream(s)
	}
	s.mu.Unlock()
}

// streamKeys encodes the key attributes of a change's item.
func (t *table) streamKeys(it attr.Item) []byte {
	k := keyOf(t, it)
	return appendItem(make([]byte, 0, encodedSize(k)), k)
}

// changeRecord builds the stream record of a change to an item: ov and
// nv are its stored versions before and after (nil: absent). The images
// the view keeps are the portable form, each in a buffer of its own
// (the record keeps it).
func (t *table) changeRecord(s *stream, ov, nv *byte, oldItem, newItem attr.Item, newSize int, who *Identity) streamRecord {
	r := streamRecord{kind: evModify, service: who == ttlIdentity}
	switch {
	case ov == nil:
		r.kind = evInsert
	case nv == nil:
		r.kind = evRemove
	}
	ki := newItem
	if ki == nil {
		ki = oldItem
	}
	r.keys = t.streamKeys(ki)
	r.size = int64(t.rules.ItemSize(keyOf(t, ki)))
	if s.wantsOld() && ov != nil {
		r.old = t.portableCopy(versionAt(ov))
		r.size += int64(t.rules.ItemSize(oldItem))
	}
	if s.wantsNew() && nv != nil {
		r.new = t.portableCopy(versionAt(nv))
		r.size += int64(newSize)
	}
	return r
}

// streamARN reads a stream ARN:
// arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
func parseStreamARN(arn string) (region, account, table, label string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" {
		return "", "", "", "", false
	}
	res := parts[5]
	if !strings.HasPrefix(res, "table/") {
		return "", "", "", "", false
	}
	res = res[len("table/"):]
	i := strings.Index(res, "/stream/")
	if i <= 0 {
		return "", "", "", "", false
	}
	table, label = res[:i], res[i+len("/stream/"):]
	if checkTableName(table, "tableName") != nil || label == "" {
		return "", "", "", "", false
	}
	return parts[3], parts[4], table, label, true
}

// observe passes a stored change to the table's stream and to the data
// log: ov and nv are the item's stored versions before and after (nil:
// absent). A change that leaves the item as it was reaches neither: its
// versions then hold the same bytes (a version's body is a function of
// the item and of the table's dictionary of names, which only grows, so
// that a name written out once is written out in every later version
// too), which is what comparing their portable forms told, without
// writing either. The caller holds t.mu for writing.
func (t *table) observe(ov, nv *byte, oldItem, newItem attr.Item, newSize int, who *Identity) {
	if ov == nil && nv == nil || ov != nil && nv != nil && bytes.Equal(versionAt(ov).b, versionAt(nv).b) {
		return
	}
	var ev *streamRecord
	if s := t.stream; s != nil {
		sr := t.changeRecord(s, ov, nv, oldItem, newItem, newSize, who)
		s.append(&sr)
		ev = &sr
	}
	if t.data != nil {
		t.logChange(nv, oldItem, ev)
	}
}
