package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/engine/auth"
)

// The wire protocol: JSON 1.0 over HTTP POST, the operation named by the
// X-Amz-Target header, errors as {"__type": "...#Name", "message": ...}.
// Authentication and authorization errors come from the service
// framework rather than DynamoDB, and are named so (coralPrefix).
const (
	targetPrefix = "DynamoDB_20120810."
	errPrefix    = "com.amazonaws.dynamodb.v20120810#"
	coralPrefix  = "com.amazon.coral.service#"
	jsonType     = "application/x-amz-json-1.0"
	maxBody      = 32 << 20
)

// op is one operation of the wire protocol: decode turns a request body
// into the operation's input, call runs it.
type op struct {
	decode func(body []byte) (any, error)
	call   func(e *Engine, ctx context.Context, in any) (any, error)
}

// handle adapts an Engine method to an op.
func handle[I, O any](f func(*Engine, context.Context, *I) (*O, error)) op {
	return op{
		decode: func(body []byte) (any, error) {
			in := new(I)
			if err := decodeRequest(body, in); err != nil {
				return nil, err
			}
			return in, nil
		},
		call: func(e *Engine, ctx context.Context, in any) (any, error) {
			// An output returned with an error carries what the refused
			// request billed (BilledHeader).
			return f(e, ctx, in.(*I))
		},
	}
}

// fast gives an op a reflection-free decoder of its common bodies
// (decodePutFast, decodeBatchWriteFast), falling back to the general one
// for anything it does not take.
func fast[I any](o op, decode func(body []byte, in *I) bool) op {
	general := o.decode
	o.decode = func(body []byte) (any, error) {
		in := new(I)
		if decode(body, in) {
			return in, nil
		}
		return general(body)
	}
	return o
}

// ops are the operations the server answers, by X-Amz-Target name.
var ops = map[string]op{
	"CreateTable":        handle((*Engine).CreateTable),
	"DeleteTable":        handle((*Engine).DeleteTable),
	"DescribeTable":      handle((*Engine).DescribeTable),
	"ListTables":         handle((*Engine).ListTables),
	"UpdateTable":        handle((*Engine).UpdateTable),
	"PutItem":            fast(handle((*Engine).PutItem), decodePutFast),
	"GetItem":            fast(handle((*Engine).getWire), decodeGetFast),
	"UpdateItem":         handle((*Engine).UpdateItem),
	"DeleteItem":         handle((*Engine).DeleteItem),
	"Query":              handle((*Engine).queryWire),
	"Scan":               handle((*Engine).scanWire),
	"BatchWriteItem":     fast(handle((*Engine).BatchWriteItem), decodeBatchWriteFast),
	"BatchGetItem":       handle((*Engine).BatchGetItem),
	"TransactWriteItems": handle((*Engine).TransactWriteItems),
	"TransactGetItems":   handle((*Engine).TransactGetItems),
	"UpdateTimeToLive":   handle((*Engine).UpdateTimeToLive),
	"DescribeTimeToLive": handle((*Engine).DescribeTimeToLive),
	"DescribeEndpoints":  handle((*Engine).DescribeEndpoints),
	"DescribeLimits":     handle((*Engine).DescribeLimits),
	"TagResource":        handle((*Engine).TagResource),
	"UntagResource":      handle((*Engine).UntagResource),
	"ListTagsOfResource": handle((*Engine).ListTagsOfResource),
}

// DescribeEndpointsInput is DescribeEndpoints' (empty) request.
type DescribeEndpointsInput struct{}

// Endpoint is one address of the service.
type Endpoint struct {
	Address              string
	CachePeriodInMinutes int64
}

// DescribeEndpointsOutput lists the service's endpoints.
type DescribeEndpointsOutput struct{ Endpoints []Endpoint }

// DescribeEndpoints answers with the engine itself, for SDKs that ask.
func (e *Engine) DescribeEndpoints(context.Context, *DescribeEndpointsInput) (*DescribeEndpointsOutput, error) {
	return &DescribeEndpointsOutput{Endpoints: []Endpoint{{Address: "dynamodb." + e.opts.Region + ".amazonaws.com", CachePeriodInMinutes: 1440}}}, nil
}

// DescribeLimitsInput is DescribeLimits' (empty) request.
type DescribeLimitsInput struct{}

// DescribeLimitsOutput reports the account's throughput quotas.
type DescribeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64
	AccountMaxWriteCapacityUnits int64
	TableMaxReadCapacityUnits    int64
	TableMaxWriteCapacityUnits   int64
}

// DescribeLimits reports DynamoDB's default quotas.
func (e *Engine) DescribeLimits(context.Context, *DescribeLimitsInput) (*DescribeLimitsOutput, error) {
	return &DescribeLimitsOutput{80000, 80000, 40000, 40000}, nil
}

// decodeRequest decodes a request body strictly: malformed JSON and
// members of the wrong JSON type are SerializationException, bad
// attribute values ValidationException, as DynamoDB answers them.
func decodeRequest(body []byte, in any) error {
	if len(body) == 0 {
		return &Error{Type: ErrSerialization, Message: "Start of structure or map found where not expected"}
	}
	err := json.Unmarshal(body, in)
	if err == nil {
		return nil
	}
	var se *attr.SyntaxError
	if errors.As(err, &se) {
		if strings.Contains(se.Msg, "contains duplicates") {
			if list, ok := dupSet(body); ok {
				return invalidParam("Input collection [%s] contains duplicates.", strings.Join(list, ", "))
			}
		}
		return attrError(se.Msg)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			// The body itself is not a JSON object.
			if te.Value == "array" {
				return &Error{Type: ErrSerialization, Message: "Start of list found where not expected"}
			}
			return &Error{Type: ErrSerialization, Message: "Unexpected value type in payload: " + te.Value + " found where a structure was expected"}
		}
		return &Error{Type: ErrSerialization, Message: "Unexpected value type in payload: " + te.Value + " found where " + shapeOf(te.Type) + " was expected at '" + te.Field + "'"}
	}
	return &Error{Type: ErrSerialization, Message: err.Error()}
}

// shapeOf names a Go type as DynamoDB's API model names shapes, so that
// no message shows the engine's Go types.
func shapeOf(t reflect.Type) string {
	if t == reflect.TypeFor[attr.Value]() {
		return "AttributeValue"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Pointer, reflect.Interface:
		return "structure"
	case reflect.Map:
		return "map"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "blob"
		}
		return "list"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "double"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t.Bits() == 64 {
			return "long"
		}
		return "integer"
	}
	return "value"
}

// needsTable lists the operations whose requests must name a table, with
// how DynamoDB words its absence (the table operations and the item
// operations word it differently).
var needsTable = map[string]string{
	"CreateTable": required, "DeleteTable": required, "DescribeTable": required, "UpdateTable": required,
	"UpdateTimeToLive": required, "DescribeTimeToLive": required,
	"PutItem": nullTable, "GetItem": nullTable, "UpdateItem": nullTable, "DeleteItem": nullTable, "Query": nullTable, "Scan": nullTable,
}

const (
	required  = "The parameter 'TableName' is required but was not present in the request"
	nullTable = "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"
)

var emptyExpr = regexp.MustCompile(`"(\w*Expression)"\s*:\s*""`)

// precheck finds what the typed request structs cannot tell apart from a
// member left out: a missing TableName and an expression sent empty.
func precheck(op string, body []byte) error {
	if msg := needsTable[op]; msg != "" && !bytes.Contains(body, []byte(`"TableName"`)) {
		return validationf("%s", msg)
	}
	if bytes.Contains(body, []byte(`Expression`)) {
		if m := emptyExpr.FindSubmatch(body); m != nil {
			return validationf("Invalid %s: The expression can not be empty;", m[1])
		}
	}
	return nil
}

// dupSet finds, in a request that was refused for a set with
// duplicates, the first such set, to echo it whole as DynamoDB does.
func dupSet(body []byte) ([]string, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil, false
	}
	var walk func(v any) ([]string, bool)
	walk = func(v any) ([]string, bool) {
		switch x := v.(type) {
		case map[string]any:
			for _, tag := range []string{"SS", "NS", "BS"} {
				if arr, ok := x[tag].([]any); ok && len(x) == 1 {
					seen := map[string]bool{}
					list := make([]string, 0, len(arr))
					dup := false
					for _, m := range arr {
						s, _ := m.(string)
						dup = dup || seen[s]
						seen[s] = true
						list = append(list, s)
					}
					if dup {
						return list, true
					}
				}
			}
			for _, k := range sortedKeys(x) {
				if l, ok := walk(x[k]); ok {
					return l, true
				}
			}
		case []any:
			for _, e := range x {
				if l, ok := walk(e); ok {
					return l, true
				}
			}
		}
		return nil, false
	}
	return walk(v)
}

// attrError words an attribute value decoding failure as DynamoDB does.
func attrError(msg string) *Error {
	switch {
	case strings.Contains(msg, "an empty set is not allowed"):
		t := attr.SS
		switch {
		case strings.HasPrefix(msg, "NS"):
			t = attr.NS
		case strings.HasPrefix(msg, "BS"):
			t = attr.BS
		}
		return emptySet(t)
	case strings.Contains(msg, "contains duplicates"):
		return invalidParam("Input collection contains duplicates.")
	case strings.Contains(msg, "invalid number"):
		for _, e := range []error{attr.ErrTooPrecise, attr.ErrOverflow, attr.ErrUnderflow} {
			if strings.Contains(msg, e.Error()) {
				return validationf("%s", e.Error())
			}
		}
		return validationf("%s", attr.ErrNotNumber.Error())
	case strings.Contains(msg, "no type tag"):
		return validationf("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	case strings.Contains(msg, "more than one type tag"):
		return validationf("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	case strings.Contains(msg, "NULL must be true"):
		return invalidParam("Null attribute value types must have the value of true")
	case strings.Contains(msg, "nesting exceeds"):
		return validationf("Nesting Levels have exceeded supported limits")
	case strings.Contains(msg, "duplicate attribute name"):
		return validationf("Supplied AttributeValue has duplicate attribute names")
	}
	return &Error{Type: ErrSerialization, Message: msg}
}

// Handler returns the engine's HTTP handler for DynamoDB's wire protocol:
// a Server with this engine as its one space for every region and
// account, any credentials accepted, and the default limits.
func (e *Engine) Handler() http.Handler {
	s, _ := NewServer(ServerOptions{Engine: e})
	return s
}

// ServeHTTP answers one request: the Host check, the signature's form (and
// with Keys its verification), the body read within the in-flight cap,
// the space of the signature's region and account, ARNs checked against
// it, IAM policies when attached, then the operation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bare := s.opts.bare
	if s.opts.LoopbackHosts && !bare && !LoopbackHost(r.Host) {
		s.refuseHost(w, r.Host)
		return
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		s.get(w, r)
		return
	}
	target := headerValue(r.Header, "X-Amz-Target")
	if r.Method != http.MethodPost {
		s.reply(w, nil, &Error{Type: ErrUnknownOperation, Message: "Only POST requests are supported"})
		return
	}
	name, f, ok := operation(target)
	if !ok {
		s.reply(w, nil, &Error{Type: ErrUnknownOperation, Message: ""})
		return
	}
	var sig auth.Signature
	budget := s.budget
	if !bare {
		var aerr *auth.Error
		if sig, aerr = auth.Parse(r.Header, r.URL.RawQuery); aerr != nil {
			s.reply(w, nil, authError(aerr))
			return
		}
	} else {
		budget = nil
	}
	x := exchanges.Get().(*exchange)
	defer x.done()
	bd := &x.body
	rerr := bd.read(r, budget)
	if rerr != nil {
		var ee *Error
		if !errors.As(rerr, &ee) {
			ee = &Error{Type: ErrSerialization, Message: rerr.Error()}
		}
		// What is left of the body is not read: the connection cannot
		// carry another request.
		w.Header()["Connection"] = closeHeader
		s.reply(w, nil, ee)
		return
	}
	bodyRead(r)
	body := *bd.buf
	// Decoding holds about as much again (strings, numbers and binaries
	// copied out of the body) until the request is answered.
	if !bd.reserve(int64(len(body))) {
		w.Header()["Connection"] = closeHeader
		s.reply(w, nil, errBusy)
		return
	}
	c := &x.call
	c.sig = sig
	if s.opts.Keys != nil {
		id, aerr := s.opts.Keys.Verify(r, body, &c.sig, s.opts.Now())
		if aerr != nil {
			s.reply(w, nil, authError(aerr))
			return
		}
		c.id = id
	}
	e, err := s.space(sig.Region, c.account())
	if err != nil {
		s.reply(w, nil, err)
		return
	}
	c.e, c.remote = e, r.RemoteAddr
	out, err := s.run(name, f, r.Context(), body, c)
	s.reply(w, out, err)
}

// exchange is what ServeHTTP holds for one request, in one allocation
// that later requests reuse (exchanges): nothing keeps it past the
// answer.
type exchange struct {
	body body
	call call
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

// done releases the body and gives the exchange back, cleared.
func (x *exchange) done() {
	x.body.release()
	*x = exchange{}
	exchanges.Put(x)
}

var closeHeader = []string{"close"}

// reply writes an operation's output or error in the wire shape.
func (s *Server) reply(w http.ResponseWriter, out any, err error) {
	status := http.StatusOK
	var body []byte
	if err != nil {
		var ee *Error
		if !errors.As(err, &ee) {
			ee = &Error{Type: ErrInternal, Message: err.Error()}
		}
		status = ee.Status()
		body = appendError(nil, ee)
	} else if body, err = encodeOutput(out); err != nil {
		status = http.StatusInternalServerError
		body = appendError(nil, &Error{Type: ErrInternal, Message: err.Error()})
	}
	// Headers are set straight into the map (their names are already
	// canonical), and the empty body's are computed once.
	h := w.Header()
	h["Content-Type"] = jsonTypeHeader
	if err != nil {
		if b := billed(out); b != nil {
			h[BilledHeader] = []string{string(b)}
		}
	}
	// The request ID, the checksum and the length are written into one
	// string, and their one-value slices share one array: two
	// allocations a response with a body where there were six.
	var buf [64]byte
	b := strconv.AppendUint(append(buf[:0], "CARDAPIO"...), s.seq.Add(1), 36)
	if len(body) == len(emptyBody) && string(body) == string(emptyBody) {
		h["X-Amzn-Requestid"] = []string{string(b)}
		h["X-Amz-Crc32"], h["Content-Length"] = emptyCRC, emptyLength
	} else {
		id := len(b)
		b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(body)), 10)
		sum := len(b)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		all := string(b)
		vals := &[3]string{all[:id], all[id:sum], all[sum:]}
		h["X-Amzn-Requestid"], h["X-Amz-Crc32"], h["Content-Length"] = vals[0:1:1], vals[1:2:2], vals[2:3:3]
	}
	w.WriteHeader(status)
	w.Write(body)
	if q, ok := out.(*QueryOutput); ok && err == nil && q.wire != nil {
		// The page's buffer (or the one its answer grew into) is no
		// longer referred to: Write does not keep it.
		releasePage(body)
		q.wire = nil
	}
}

// headerValue is the first value of a header, by canonical name.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// The header values shared by every response, or by every response with
// an empty body (the answer to most writes). net/http copies a handler's
// header map before writing it, so sharing the slices is safe.
var (
	jsonTypeHeader = []string{jsonType}
	emptyBody      = []byte("{}")
	emptyCRC       = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(emptyBody)), 10)}
	emptyLength    = []string{strconv.Itoa(len(emptyBody))}
)

// encodeOutput writes a response; the outputs of plain writes, which
// dominate load, are usually empty and skip reflection. The result may be
// shared (emptyBody): callers must not modify it.
func encodeOutput(out any) ([]byte, error) {
	switch o := out.(type) {
	case *PutItemOutput:
		if o.Attributes == nil && o.ConsumedCapacity == nil && o.ItemCollectionMetrics == nil {
			return emptyBody, nil
		}
	case *DeleteItemOutput:
		if o.Attributes == nil && o.ConsumedCapacity == nil && o.ItemCollectionMetrics == nil {
			return emptyBody, nil
		}
	}
	if m, ok := out.(interface{ MarshalJSON() ([]byte, error) }); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(out)
}

// run calls an operation, turning a panic into an internal error so that
// one bad request cannot bring the server down: the body is decoded, the
// ARNs it names checked against the space, the request authorized when
// policies are attached, then run.
func (s *Server) run(name string, f op, ctx context.Context, body []byte, c *call) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &Error{Type: ErrInternal, Message: "internal error"}
		}
	}()
	in, err := f.decode(body)
	if err != nil {
		return nil, err
	}
	if !s.shared() && !s.opts.bare {
		if err := c.checkARNs(in); err != nil {
			return nil, err
		}
	}
	if s.opts.Policies != nil {
		if err := s.authorize(name, in, c); err != nil {
			return nil, err
		}
	}
	if err := precheck(name, body); err != nil {
		return nil, err
	}
	return f.call(c.e, ctx, in)
}

// appendError writes an exception in the wire shape.
func appendError(dst []byte, e *Error) []byte {
	dst = append(dst, `{"__type":`...)
	if coral[e.Type] {
		dst = strconv.AppendQuote(dst, coralPrefix+e.Type)
	} else {
		dst = strconv.AppendQuote(dst, errPrefix+e.Type)
	}
	if e.Type == ErrAccessDenied {
		// AWS capitalises this one's member; the SDKs read either.
		dst = append(dst, `,"Message":`...)
	} else {
		dst = append(dst, `,"message":`...)
	}
	dst = appendJSONString(dst, e.Message)
	if e.Item != nil {
		dst = append(dst, `,"Item":`...)
		dst = attr.AppendItemJSON(dst, e.Item)
	}
	if e.CancellationReasons != nil {
		b, _ := json.Marshal(e.CancellationReasons)
		dst = append(dst, `,"CancellationReasons":`...)
		dst = append(dst, b...)
	}
	if e.ThrottlingReasons != nil {
		// DynamoDB's model names the member throttlingReasons in
		// ThrottlingException and ThrottlingReasons elsewhere; the SDKs
		// match member names exactly.
		b, _ := json.Marshal(e.ThrottlingReasons)
		if e.Type == ErrThrottling {
			dst = append(dst, `,"throttlingReasons":`...)
		} else {
			dst = append(dst, `,"ThrottlingReasons":`...)
		}
		dst = append(dst, b...)
	}
	return append(dst, '}')
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
