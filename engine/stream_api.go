package engine

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// The streams API (DynamoDBStreams_20120810): ListStreams, DescribeStream,
// GetShardIterator and GetRecords, with DynamoDB Streams' shapes, limits
// and exceptions. The server answers it on the same port as the tables
// API, told apart by the X-Amz-Target prefix.

// The streams API's own exceptions.
const (
	ErrExpiredIterator   = "ExpiredIteratorException"
	ErrTrimmedDataAccess = "TrimmedDataAccessException"
)

// StreamSpecification turns a table's stream on or off (CreateTable,
// UpdateTable) and reports it (DescribeTable).
type StreamSpecification struct {
	StreamEnabled  *bool  `json:",omitempty"`
	StreamViewType string `json:",omitempty"`
}

var streamViews = []string{ViewNewImage, ViewOldImage, ViewNewAndOldImgs, ViewKeysOnly}

// checkStreamSpec validates a StreamSpecification as CreateTable
// (create) or UpdateTable words its refusals.
func checkStreamSpec(sp *StreamSpecification, create bool) (enable bool, view string, err error) {
	var c constraints
	if sp.StreamEnabled == nil {
		c.add("Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
	}
	if sp.StreamViewType != "" {
		c.enum("streamSpecification.streamViewType", sp.StreamViewType, streamViews...)
	}
	if err := c.err(); err != nil {
		return false, "", err
	}
	enable, view = *sp.StreamEnabled, sp.StreamViewType
	switch {
	case create && enable && view == "":
		return false, "", invalidParam("Table is being created with a stream enabled, UpdateViewType is required")
	case create && !enable && view != "":
		return false, "", invalidParam("Table is being created with a stream disabled, UpdateViewType should not be specified")
	case enable && view == "":
		return false, "", invalidParam("If stream is being enabled then UpdateViewType is required")
	case !enable && view != "":
		return false, "", invalidParam("If stream is being disabled, then UpdateViewType must not be specified")
	}
	return enable, view, nil
}

// StreamSummary is one stream of ListStreams.
type StreamSummary struct {
	StreamArn   string
	TableName   string
	StreamLabel string
}

// ListStreamsInput is ListStreams' request.
type ListStreamsInput struct {
	TableName               string `json:",omitempty"`
	Limit                   *int   `json:",omitempty"`
	ExclusiveStartStreamArn string `json:",omitempty"`
}

// ListStreamsOutput is ListStreams' response.
type ListStreamsOutput struct {
	Streams                []StreamSummary
	LastEvaluatedStreamArn string `json:",omitempty"`
}

// SequenceNumberRange is the sequence numbers a shard holds; Ending is
// empty while the shard is open.
type SequenceNumberRange struct {
	StartingSequenceNumber string
	EndingSequenceNumber   string `json:",omitempty"`
}

// Shard is one shard of DescribeStream.
type Shard struct {
	ShardId             string
	SequenceNumberRange *SequenceNumberRange
	ParentShardId       string `json:",omitempty"`
}

// ShardFilter asks DescribeStream for the children of a shard.
type ShardFilter struct {
	Type    string
	ShardId string `json:",omitempty"`
}

// DescribeStreamInput is DescribeStream's request.
type DescribeStreamInput struct {
	StreamArn             string
	Limit                 *int         `json:",omitempty"`
	ExclusiveStartShardId string       `json:",omitempty"`
	ShardFilter           *ShardFilter `json:",omitempty"`
}

// StreamDescription describes a stream and a page of its shards.
type StreamDescription struct {
	StreamArn               string
	StreamLabel             string
	StreamStatus            string
	StreamViewType          string
	CreationRequestDateTime float64
	TableName               string
	KeySchema               []KeySchemaElement
	Shards                  []Shard
	LastEvaluatedShardId    string `json:",omitempty"`
}

// DescribeStreamOutput is DescribeStream's response.
type DescribeStreamOutput struct{ StreamDescription *StreamDescription }

// GetShardIteratorInput is GetShardIterator's request.
type GetShardIteratorInput struct {
	StreamArn         string
	ShardId           string
	ShardIteratorType string
	SequenceNumber    string `json:",omitempty"`
}

// GetShardIteratorOutput is GetShardIterator's response.
type GetShardIteratorOutput struct {
	ShardIterator string `json:",omitempty"`
}

// GetRecordsInput is GetRecords' request.
type GetRecordsInput struct {
	ShardIterator string
	Limit         *int `json:",omitempty"`
}

// StreamRecord is the change a Record carries.
type StreamRecord struct {
	ApproximateCreationDateTime float64
	Keys                        attr.Item
	NewImage                    attr.Item `json:",omitempty"`
	OldImage                    attr.Item `json:",omitempty"`
	SequenceNumber              string
	SizeBytes                   int64
	StreamViewType              string
}

// Record is one stream record, with the wire's member names.
type Record struct {
	AwsRegion    string        `json:"awsRegion"`
	Dynamodb     *StreamRecord `json:"dynamodb"`
	EventID      string        `json:"eventID"`
	EventName    string        `json:"eventName"`
	EventSource  string        `json:"eventSource"`
	EventVersion string        `json:"eventVersion"`
	UserIdentity *Identity     `json:"userIdentity,omitempty"`
}

// GetRecordsOutput is GetRecords' response. NextShardIterator is empty
// once a closed shard has been read to its end.
type GetRecordsOutput struct {
	Records           []Record
	NextShardIterator string `json:",omitempty"`
}

// Limits of the streams API.
const (
	maxListStreams   = 100
	maxShardsPage    = 100
	maxRecordsPage   = 1000
	maxRecordsBytes  = 1 << 20
	minStreamARN     = 37
	maxStreamARN     = 1024
	minShardID       = 28
	maxShardID       = 65
	maxShardIterator = 2048
)

func checkPage(c *constraints, v *int, max int) {
	if v == nil {
		return
	}
	if *v < 1 {
		c.add("Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *v)
	} else if *v > max {
		c.add("Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d", *v, max)
	}
}

func checkLength(c *constraints, field, v string, min, max int) {
	switch {
	case len(v) < min:
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to %d", v, field, min)
	case len(v) > max:
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", v, field, max)
	}
}

// inScope reports whether a stream ARN names this engine's region and
// account.
func (e *Engine) inScope(arn string) bool {
	return strings.HasPrefix(arn, "arn:aws:dynamodb:"+e.opts.Region+":"+e.opts.Account+":")
}

// lookupStream finds a stream by ARN: ValidationException for what is
// not a stream ARN, ResourceNotFoundException for a stream that does not
// exist (or no longer does).
func (e *Engine) lookupStream(arn string) (*stream, error) {
	if _, _, _, _, ok := parseStreamARN(arn); !ok {
		return nil, validationf("Invalid StreamArn: %s", arn)
	}
	s := e.streams.get(arn)
	if s != nil {
		s.mu.RLock()
		gone := s.expired(unixMs(e.opts.Now()))
		s.mu.RUnlock()
		if gone {
			s = nil
		}
	}
	if s == nil || !e.inScope(arn) {
		return nil, notFound("Requested resource not found: Stream: " + arn + " not found")
	}
	return s, nil
}

// ListStreams lists the streams of every table, or of one, in ARN order,
// at most Limit (1..100) a page; streams disabled or of deleted tables
// are listed for their retention period.
func (e *Engine) ListStreams(_ context.Context, in *ListStreamsInput) (*ListStreamsOutput, error) {
	var c constraints
	checkPage(&c, in.Limit, maxListStreams)
	if in.ExclusiveStartStreamArn != "" {
		checkLength(&c, "exclusiveStartStreamArn", in.ExclusiveStartStreamArn, minStreamARN, maxStreamARN)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if in.TableName != "" {
		if err := checkTableName(in.TableName, "tableName"); err != nil {
			return nil, err
		}
	}
	if in.ExclusiveStartStreamArn != "" {
		if _, _, _, _, ok := parseStreamARN(in.ExclusiveStartStreamArn); !ok {
			return nil, validationf("Invalid ExclusiveStartStreamArn: %s", in.ExclusiveStartStreamArn)
		}
	}
	limit := maxListStreams
	if in.Limit != nil {
		limit = *in.Limit
	}
	out := &ListStreamsOutput{Streams: []StreamSummary{}}
	for _, s := range e.streams.all(unixMs(e.opts.Now())) {
		if !e.inScope(s.arn) || s.arn <= in.ExclusiveStartStreamArn || in.TableName != "" && s.table != tableName(in.TableName) {
			continue
		}
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, StreamSummary{StreamArn: s.arn, TableName: s.table, StreamLabel: s.label})
	}
	return out, nil
}

// DescribeStream describes a stream and its shards, in ShardId order, at
// most Limit (1..100) a page, or the children of one shard.
func (e *Engine) DescribeStream(_ context.Context, in *DescribeStreamInput) (*DescribeStreamOutput, error) {
	var c constraints
	if in.StreamArn == "" {
		c.add("Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	} else {
		checkLength(&c, "streamArn", in.StreamArn, minStreamARN, maxStreamARN)
	}
	checkPage(&c, in.Limit, maxShardsPage)
	if in.ExclusiveStartShardId != "" {
		checkLength(&c, "exclusiveStartShardId", in.ExclusiveStartShardId, minShardID, maxShardID)
	}
	if f := in.ShardFilter; f != nil {
		if f.Type == "" {
			c.add("Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null")
		} else {
			c.enum("shardFilter.type", f.Type, "CHILD_SHARDS")
		}
		if f.ShardId != "" {
			checkLength(&c, "shardFilter.shardId", f.ShardId, minShardID, maxShardID)
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if f := in.ShardFilter; f != nil && f.ShardId == "" {
		return nil, validationf("ShardFilter of type CHILD_SHARDS requires a ShardId")
	}
	s, err := e.lookupStream(in.StreamArn)
	if err != nil {
		return nil, err
	}
	limit := maxShardsPage
	if in.Limit != nil {
		limit = *in.Limit
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trim(unixMs(e.opts.Now()))
	d := &StreamDescription{StreamArn: s.arn, StreamLabel: s.label, StreamStatus: s.status(), StreamViewType: s.view,
		CreationRequestDateTime: float64(s.created) / 1000, TableName: s.table, KeySchema: s.keys, Shards: []Shard{}}
	for _, sh := range s.shards {
		if sh.id <= in.ExclusiveStartShardId || in.ShardFilter != nil && sh.parent != in.ShardFilter.ShardId {
			continue
		}
		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = d.Shards[limit-1].ShardId
			break
		}
		r := &SequenceNumberRange{StartingSequenceNumber: formatSeq(sh.start)}
		if sh.end != 0 {
			r.EndingSequenceNumber = formatSeq(sh.end)
		}
		d.Shards = append(d.Shards, Shard{ShardId: sh.id, SequenceNumberRange: r, ParentShardId: sh.parent})
	}
	return &DescribeStreamOutput{StreamDescription: d}, nil
}

// Iterator types.
const (
	iterTrimHorizon = "TRIM_HORIZON"
	iterLatest      = "LATEST"
	iterAt          = "AT_SEQUENCE_NUMBER"
	iterAfter       = "AFTER_SEQUENCE_NUMBER"
)

// A shard iterator is the stream's ARN, "|1|", and a checksummed
// position: the shard, the next sequence number to read and when the
// iterator was issued (it lasts 15 minutes, by the engine's clock).
type iterator struct {
	arn    string
	shard  uint32
	pos    uint64
	issued int64 // unix milliseconds
}

func (it iterator) String() string {
	b := binary.AppendUvarint(nil, uint64(it.shard))
	b = binary.AppendUvarint(b, it.pos)
	b = binary.AppendVarint(b, it.issued)
	b = binary.LittleEndian.AppendUint32(b, crc32.Update(crc32.ChecksumIEEE([]byte(it.arn)), crc32.IEEETable, b))
	return it.arn + "|1|" + base64.RawURLEncoding.EncodeToString(b)
}

func parseIterator(s string) (iterator, bool) {
	i := strings.LastIndex(s, "|1|")
	if i <= 0 {
		return iterator{}, false
	}
	arn := s[:i]
	b, err := base64.RawURLEncoding.DecodeString(s[i+3:])
	if err != nil || len(b) < 4 {
		return iterator{}, false
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Update(crc32.ChecksumIEEE([]byte(arn)), crc32.IEEETable, body) != sum {
		return iterator{}, false
	}
	n, k := binary.Uvarint(body)
	if k <= 0 || n > 1<<32-1 {
		return iterator{}, false
	}
	body = body[k:]
	pos, k := binary.Uvarint(body)
	if k <= 0 {
		return iterator{}, false
	}
	body = body[k:]
	issued, k := binary.Varint(body)
	if k <= 0 || k != len(body) {
		return iterator{}, false
	}
	return iterator{arn: arn, shard: uint32(n), pos: pos, issued: issued}, true
}

func trimmedError() *Error {
	return &Error{Type: ErrTrimmedDataAccess, Message: "The data you are trying to access has been trimmed."}
}

// GetShardIterator returns an iterator on a shard: at its oldest
// retained record (TRIM_HORIZON), after its newest (LATEST), or at or
// after a sequence number the shard holds.
func (e *Engine) GetShardIterator(_ context.Context, in *GetShardIteratorInput) (*GetShardIteratorOutput, error) {
	var c constraints
	if in.StreamArn == "" {
		c.add("Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	} else {
		checkLength(&c, "streamArn", in.StreamArn, minStreamARN, maxStreamARN)
	}
	if in.ShardId == "" {
		c.add("Value null at 'shardId' failed to satisfy constraint: Member must not be null")
	} else {
		checkLength(&c, "shardId", in.ShardId, minShardID, maxShardID)
	}
	if in.ShardIteratorType == "" {
		c.add("Value null at 'shardIteratorType' failed to satisfy constraint: Member must not be null")
	} else {
		c.enum("shardIteratorType", in.ShardIteratorType, iterTrimHorizon, iterLatest, iterAt, iterAfter)
	}
	if in.SequenceNumber != "" {
		checkLength(&c, "sequenceNumber", in.SequenceNumber, 21, 40)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	bySeq := in.ShardIteratorType == iterAt || in.ShardIteratorType == iterAfter
	var seq uint64
	switch {
	case bySeq && in.SequenceNumber == "":
		return nil, validationf("Must specify a sequence number when the ShardIteratorType is %s", in.ShardIteratorType)
	case !bySeq && in.SequenceNumber != "":
		return nil, validationf("Cannot specify a sequence number when the ShardIteratorType is %s", in.ShardIteratorType)
	case bySeq:
		var ok bool
		if seq, ok = parseSeq(in.SequenceNumber); !ok {
			return nil, validationf("Invalid SequenceNumber: %s", in.SequenceNumber)
		}
	}
	s, err := e.lookupStream(in.StreamArn)
	if err != nil {
		return nil, err
	}
	now := unixMs(e.opts.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trim(now)
	sh := s.shardByID(in.ShardId)
	if sh == nil {
		return nil, notFound("Requested resource not found: Shard does not exist")
	}
	it := iterator{arn: s.arn, shard: sh.n, issued: now}
	switch in.ShardIteratorType {
	case iterTrimHorizon:
		it.pos = max(sh.start, sh.trimmed+1)
	case iterLatest:
		it.pos = s.next
		if sh.end != 0 {
			it.pos = sh.end + 1
		}
	default:
		hi := s.next
		if sh.end != 0 {
			hi = sh.end
		}
		if seq < sh.start || seq > hi {
			return nil, validationf("Invalid SequenceNumber: %s is not in the range of shard %s", in.SequenceNumber, sh.id)
		}
		if seq <= sh.trimmed {
			return nil, trimmedError()
		}
		it.pos = seq
		if in.ShardIteratorType == iterAfter {
			it.pos++
		}
	}
	return &GetShardIteratorOutput{ShardIterator: it.String()}, nil
}

// GetRecords reads up to Limit (1..1000) records, and at most 1 MB,
// from an iterator's position, with the iterator for what follows (none
// once a closed shard is read to its end).
func (e *Engine) GetRecords(_ context.Context, in *GetRecordsInput) (*GetRecordsOutput, error) {
	var c constraints
	if in.ShardIterator == "" {
		c.add("Value null at 'shardIterator' failed to satisfy constraint: Member must not be null")
	} else {
		checkLength(&c, "shardIterator", in.ShardIterator, 1, maxShardIterator)
	}
	checkPage(&c, in.Limit, maxRecordsPage)
	if err := c.err(); err != nil {
		return nil, err
	}
	it, ok := parseIterator(in.ShardIterator)
	if !ok {
		return nil, validationf("Invalid ShardIterator")
	}
	s, err := e.lookupStream(it.arn)
	if err != nil {
		return nil, err
	}
	now := unixMs(e.opts.Now())
	if now-it.issued > iteratorLife.Milliseconds() {
		return nil, &Error{Type: ErrExpiredIterator, Message: "The provided iterator exceeds the maximum age allowed."}
	}
	limit := maxRecordsPage
	if in.Limit != nil {
		limit = *in.Limit
	}
	s.mu.Lock()
	s.trim(now)
	sh := s.shardByN(it.shard)
	if sh == nil {
		s.mu.Unlock()
		if it.shard < s.nshards {
			return nil, trimmedError()
		}
		return nil, validationf("Invalid ShardIterator")
	}
	if it.pos <= sh.trimmed {
		s.mu.Unlock()
		return nil, trimmedError()
	}
	i := sort.Search(len(sh.recs), func(i int) bool { return sh.recs[i].seq >= it.pos })
	var page []streamRecord
	bytes := int64(0)
	for ; i < len(sh.recs) && len(page) < limit; i++ {
		r := sh.recs[i]
		if len(page) > 0 && bytes+r.size > maxRecordsBytes {
			break
		}
		bytes += r.size
		page = append(page, r)
	}
	next := it.pos
	if len(page) > 0 {
		next = page[len(page)-1].seq + 1
	}
	closed := sh.end != 0 && next > sh.end
	view, arn := s.view, s.arn
	s.mu.Unlock()

	region := e.opts.Region
	if r, _, _, _, ok := parseStreamARN(arn); ok {
		region = r
	}
	out := &GetRecordsOutput{Records: make([]Record, 0, len(page))}
	for i := range page {
		r, err := page[i].wire(arn, region, view)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: err.Error()}
		}
		out.Records = append(out.Records, r)
	}
	if !closed {
		out.NextShardIterator = iterator{arn: arn, shard: it.shard, pos: next, issued: now}.String()
	}
	return out, nil
}

// wire decodes a record into its API shape.
func (r *streamRecord) wire(arn, region, view string) (Record, error) {
	sr := &StreamRecord{ApproximateCreationDateTime: float64(r.at / 1000), SequenceNumber: formatSeq(r.seq), SizeBytes: r.size, StreamViewType: view}
	var err error
	if sr.Keys, err = decodeItem(r.keys); err != nil {
		return Record{}, err
	}
	if r.old != nil {
		if sr.OldImage, err = decodeItem(r.old); err != nil {
			return Record{}, err
		}
	}
	if r.new != nil {
		if sr.NewImage, err = decodeItem(r.new); err != nil {
			return Record{}, err
		}
	}
	h := fnv.New64a()
	h.Write([]byte(arn))
	out := Record{AwsRegion: region, Dynamodb: sr, EventName: r.kind.String(), EventSource: "aws:dynamodb", EventVersion: "1.1",
		EventID: strconv.FormatUint(h.Sum64()|1<<63, 16) + strconv.FormatUint(r.seq|1<<63, 16)}
	if r.service {
		out.UserIdentity = ttlIdentity
	}
	return out, nil
}

// MarshalJSON encodes GetRecords' response, appending the images'
// DynamoDB JSON directly.
func (o *GetRecordsOutput) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 256+512*len(o.Records)), `{"Records":[`...)
	for i, r := range o.Records {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"awsRegion":`...)
		b = strconv.AppendQuote(b, r.AwsRegion)
		b = append(b, `,"dynamodb":{"ApproximateCreationDateTime":`...)
		d := r.Dynamodb
		b = strconv.AppendFloat(b, d.ApproximateCreationDateTime, 'f', -1, 64)
		b = append(b, `,"Keys":`...)
		b = attr.AppendItemJSON(b, d.Keys)
		if d.NewImage != nil {
			b = append(b, `,"NewImage":`...)
			b = attr.AppendItemJSON(b, d.NewImage)
		}
		if d.OldImage != nil {
			b = append(b, `,"OldImage":`...)
			b = attr.AppendItemJSON(b, d.OldImage)
		}
		b = append(b, `,"SequenceNumber":"`...)
		b = append(b, d.SequenceNumber...)
		b = append(b, `","SizeBytes":`...)
		b = strconv.AppendInt(b, d.SizeBytes, 10)
		b = append(b, `,"StreamViewType":"`...)
		b = append(b, d.StreamViewType...)
		b = append(b, `"},"eventID":"`...)
		b = append(b, r.EventID...)
		b = append(b, `","eventName":"`...)
		b = append(b, r.EventName...)
		b = append(b, `","eventSource":"aws:dynamodb","eventVersion":"`...)
		b = append(b, r.EventVersion...)
		b = append(b, '"')
		if u := r.UserIdentity; u != nil {
			b = append(b, `,"userIdentity":{"PrincipalId":`...)
			b = appendJSONString(b, u.PrincipalId)
			b = append(b, `,"Type":`...)
			b = appendJSONString(b, u.Type)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if o.NextShardIterator != "" {
		b = append(b, `,"NextShardIterator":`...)
		b = appendJSONString(b, o.NextShardIterator)
	}
	return append(b, '}'), nil
}
