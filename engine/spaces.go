package engine

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
)

// ErrServiceUnavailable is DynamoDB's answer when it is too busy to take a
// request (HTTP 503); the SDKs retry it.
const ErrServiceUnavailable = "ServiceUnavailable"

// The exceptions of authentication, named as DynamoDB names them.
const (
	ErrMissingToken     = auth.ErrMissingToken
	ErrIncomplete       = auth.ErrIncomplete
	ErrInvalidSignature = auth.ErrInvalidSignature
	ErrUnrecognized     = auth.ErrUnrecognized
)

// coral lists the exceptions the service framework answers, before
// DynamoDB itself sees the request (their wire type is
// com.amazon.coral.service#Name).
var coral = map[string]bool{
	ErrMissingToken: true, ErrIncomplete: true, ErrInvalidSignature: true,
	ErrUnrecognized: true, ErrAccessDenied: true,
}

// ServerOptions configure a Server. The zero value serves a space per
// region with engines created as they are first used, any credentials
// accepted, no policies, and the default Limits.
type ServerOptions struct {
	// Engine, when set, serves every request whatever region and account
	// signed it: one shared space, as cardapio serve --shared.
	Engine *Engine
	// NewSpace creates the engine of a region and account on their first
	// request when Engine is nil; by default New(Options{Region: region,
	// Account: account}).
	NewSpace func(region, account string) (*Engine, error)
	// Spaces are engines to serve from the start (restored from disk, for
	// example), by region and account.
	Spaces []Space
	// MaxSpaces caps the spaces created; default DefaultMaxSpaces. Without Keys, a
	// client may sign for any region, each a space.
	MaxSpaces int
	// Keys, when set, are the credentials accepted: signatures are
	// verified and the account of the key scopes the tables. nil accepts
	// any credentials, as DynamoDB Local does, in the default account.
	Keys *auth.Keys
	// Policies, when set, returns the IAM policies attached to an
	// identity, and every request is authorized by them (see authz.go).
	Policies func(id *auth.Identity) []*iam.Policy
	// LoopbackHosts refuses requests whose Host is not a loopback name
	// (localhost, *.localhost, 127.0.0.0/8, [::1]), which is what a
	// server bound to a loopback address must do to stay out of reach of
	// web pages (DNS rebinding).
	LoopbackHosts bool
	// Limits bound the server's resources; the zero value is the default.
	Limits Limits
	// Region answers unsigned health checks; default us-east-1.
	Region string
	// Now is the clock of signature dates; default time.Now.
	Now func() time.Time

	// bare turns the trust features off: no Host check, no signature
	// read, Engine serving every request (no space per region), no ARN
	// check, no in-flight cap; Serve without the connection cap, the
	// timeouts or their sweeper. It exists to measure what those
	// features cost against the same code (the trust benchmarks); a
	// server people use never sets it.
	bare bool
}

// Space is the engine serving one region of one account.
type Space struct {
	Region, Account string
	Engine          *Engine
}

// Server serves DynamoDB's wire protocol (JSON 1.0 over HTTP POST) for
// one engine or one engine per region and account, with signatures, IAM
// policies and resource limits. It is an http.Handler; Serve runs it on
// a listener with its limits.
type Server struct {
	opts   ServerOptions
	limits Limits
	budget *budget
	seq    atomic.Uint64
	conns  atomic.Pointer[connLimit]

	mu      sync.Mutex // serialises the creation of spaces
	spaces  atomic.Pointer[map[spaceKey]*Engine]
	ordered []Space

	mem memState // the memory limit RunMemoryLimit keeps
}

type spaceKey struct{ region, account string }

// NewServer returns a server with the options.
func NewServer(o ServerOptions) (*Server, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSpaces <= 0 {
		o.MaxSpaces = DefaultMaxSpaces
	}
	if o.Region == "" {
		o.Region = "us-east-1"
		if o.Engine != nil {
			o.Region = o.Engine.opts.Region
		}
	}
	if o.NewSpace == nil {
		o.NewSpace = func(region, account string) (*Engine, error) {
			return New(Options{Region: region, Account: account}), nil
		}
	}
	l := o.Limits.withDefaults()
	s := &Server{opts: o, limits: l, budget: &budget{limit: l.MaxInflight}}
	m := map[spaceKey]*Engine{}
	for _, sp := range o.Spaces {
		k := spaceKey{sp.Region, sp.Account}
		if _, dup := m[k]; dup || sp.Engine == nil {
			return nil, fmt.Errorf("space %s/%s given twice or without an engine", sp.Account, sp.Region)
		}
		m[k] = sp.Engine
		s.ordered = append(s.ordered, sp)
	}
	s.spaces.Store(&m)
	return s, nil
}

// shared reports whether one engine serves every region and account.
func (s *Server) shared() bool { return s.opts.Engine != nil }

// Limits are the server's limits, defaults filled in.
func (s *Server) Limits() Limits { return s.limits }

// InflightPeak is the most request-body bytes the server has held at once.
func (s *Server) InflightPeak() int64 { return s.budget.peak.Load() }

// Spaces lists the spaces served so far, in the order they were created
// (with --shared, the one engine).
func (s *Server) Spaces() []Space {
	if s.shared() {
		return []Space{{Region: s.opts.Engine.opts.Region, Account: s.opts.Engine.opts.Account, Engine: s.opts.Engine}}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Space(nil), s.ordered...)
}

// regionName is what a region may be called when any credentials are
// accepted (DynamoDB Local takes any; clients send "local" and the like).
var regionName = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// space returns the engine of a region and account, creating it on first
// use. The lookup is one atomic load and a map read.
func (s *Server) space(region, account string) (*Engine, error) {
	if s.shared() {
		return s.opts.Engine, nil
	}
	if e := (*s.spaces.Load())[spaceKey{region, account}]; e != nil {
		return e, nil
	}
	if !regionName.MatchString(region) {
		return nil, &Error{Type: ErrInvalidSignature, Message: "Credential should be scoped to a valid region, not '" + region + "'. "}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := *s.spaces.Load()
	if e := cur[spaceKey{region, account}]; e != nil {
		return e, nil
	}
	if len(cur) >= s.opts.MaxSpaces {
		return nil, &Error{Type: ErrLimitExceeded, Message: fmt.Sprintf("Too many regions and accounts in use: this server serves at most %d", s.opts.MaxSpaces)}
	}
	e, err := s.opts.NewSpace(region, account)
	if err != nil {
		return nil, err
	}
	next := make(map[spaceKey]*Engine, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[spaceKey{region, account}] = e
	s.spaces.Store(&next)
	s.ordered = append(s.ordered, Space{Region: region, Account: account, Engine: e})
	return e, nil
}

// call is what one request carries through the server: its signature, the
// identity that signed it (nil when any credentials are accepted), and
// the engine of its space.
type call struct {
	sig    auth.Signature
	id     *auth.Identity
	e      *Engine
	remote string
}

// account is the account the request acts in.
func (c *call) account() string {
	if c.id != nil {
		return c.id.Account
	}
	return auth.DefaultAccount
}

// identity is who signed, for policies and messages.
func (c *call) identity() *auth.Identity {
	if c.id == nil {
		c.id = auth.Anonymous(c.sig.AccessKey)
	}
	return c.id
}

// authError turns an authentication failure into the wire's error.
func authError(e *auth.Error) *Error { return &Error{Type: e.Type, Message: e.Message} }

// refuseHost answers a request whose Host is not a loopback name on a
// server bound to loopback.
func (s *Server) refuseHost(w http.ResponseWriter, host string) {
	b := appendError(nil, &Error{Type: ErrAccessDenied, Message: fmt.Sprintf(
		"Host %q is not a loopback name: this server listens on a loopback address and answers only requests addressed to localhost (or a name under .localhost), an address of 127.0.0.0/8 or [::1] (a page on another site cannot reach it through DNS rebinding)", host)})
	w.Header()["Content-Type"] = jsonTypeHeader
	w.WriteHeader(http.StatusForbidden)
	w.Write(b)
}

// LoopbackHost reports whether a Host header names the local machine:
// localhost, a name under .localhost, an address in 127.0.0.0/8 or ::1,
// with or without a port.
func LoopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if h == "127.0.0.1" || h == "localhost" {
		return true
	}
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// get answers GET and HEAD: the throughput figures at ThroughputPath, the
// memory figures at MemoryPath, a health line elsewhere.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == MemoryPath {
		s.serveMemory(w, r)
		return
	}
	if r.URL.Path != ThroughputPath {
		w.Write([]byte("healthy: dynamodb." + s.opts.Region + ".amazonaws.com "))
		return
	}
	region, account := r.URL.Query().Get("region"), auth.DefaultAccount
	if region == "" {
		region = s.opts.Region
	}
	if s.opts.Keys != nil {
		// The figures show partition key values: only a verified
		// signature sees them, and only its own account's.
		sig, aerr := auth.Parse(r.Header, r.URL.RawQuery)
		if aerr == nil {
			var id *auth.Identity
			id, aerr = s.opts.Keys.Verify(r, nil, &sig, s.opts.Now())
			if aerr == nil {
				region, account = sig.Region, id.Account
				if s.opts.Policies != nil {
					c := &call{sig: sig, id: id}
					res := "arn:aws:dynamodb:" + region + ":" + account + ":table/*"
					if d := iam.Evaluate(s.opts.Policies(id), &iam.Request{Action: "dynamodb:DescribeTable", Resource: res, Context: c.globalContext()}); d != iam.Allowed {
						aerr = &auth.Error{Type: ErrAccessDenied, Message: denied(id, "dynamodb:DescribeTable", res, d)}
					}
				}
			}
		}
		if aerr != nil {
			refuseGet(w, aerr)
			return
		}
	} else if sig, aerr := auth.Parse(r.Header, r.URL.RawQuery); aerr == nil && r.URL.Query().Get("region") == "" {
		region = sig.Region
	}
	e, err := s.space(region, account)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.ThroughputHandler().ServeHTTP(w, r)
}

// checkARNs refuses a request that names, by ARN, a table of another
// region or account than the space it is served in: such a table is not
// here (ResourceNotFoundException); under verified credentials, another
// account's table is AccessDeniedException, as without a resource-based
// policy on AWS.
func (c *call) checkARNs(in any) error {
	var err error
	each := func(name string) {
		if err != nil || !strings.HasPrefix(name, "arn:") {
			return
		}
		err = c.checkARN(name, in)
	}
	switch x := in.(type) {
	case *PutItemInput:
		each(x.TableName)
	case *GetItemInput:
		each(x.TableName)
	case *UpdateItemInput:
		each(x.TableName)
	case *DeleteItemInput:
		each(x.TableName)
	case *QueryInput:
		each(x.TableName)
	case *ScanInput:
		each(x.TableName)
	case *BatchGetItemInput:
		for n := range x.RequestItems {
			each(n)
		}
	case *BatchWriteItemInput:
		for n := range x.RequestItems {
			each(n)
		}
	case *TransactGetItemsInput:
		for _, it := range x.TransactItems {
			if it.Get != nil {
				each(it.Get.TableName)
			}
		}
	case *TransactWriteItemsInput:
		for _, it := range x.TransactItems {
			for _, n := range transactTables(it) {
				each(n)
			}
		}
	case *TagResourceInput:
		each(x.ResourceArn)
	case *UntagResourceInput:
		each(x.ResourceArn)
	case *ListTagsOfResourceInput:
		each(x.ResourceArn)
	case *DescribeTableInput:
		each(x.TableName)
	case *DeleteTableInput:
		each(x.TableName)
	case *UpdateTableInput:
		each(x.TableName)
	case *UpdateTimeToLiveInput:
		each(x.TableName)
	case *DescribeTimeToLiveInput:
		each(x.TableName)
	case *DescribeStreamInput:
		each(x.StreamArn)
	case *GetShardIteratorInput:
		each(x.StreamArn)
	case *GetRecordsInput:
		if it, ok := parseIterator(x.ShardIterator); ok {
			each(it.arn)
		}
	case *CreateTableInput, *ListTablesInput, *DescribeLimitsInput, *DescribeEndpointsInput, *ListStreamsInput:
	default:
		if t, ok := tableNameOf(in); ok {
			each(t)
		}
	}
	return err
}

// checkARN checks one ARN's region and account against the space.
func (c *call) checkARN(arn string, in any) error {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 {
		return nil // not an ARN the engine resolves: it answers itself
	}
	region, account := parts[3], parts[4]
	if account != c.e.opts.Account && c.id != nil && c.id.Verified {
		id := c.identity()
		action := "dynamodb:" + opName(in)
		return &Error{Type: ErrAccessDenied, Message: "User: " + id.ARN + " is not authorized to perform: " + action +
			" on resource: " + arn + " because no resource-based policy allows the " + action + " action"}
	}
	if region != c.e.opts.Region || account != c.e.opts.Account {
		return tableNotFound()
	}
	return nil
}

// transactTables lists the tables one transaction item names.
func transactTables(it TransactWriteItem) []string {
	var out []string
	if it.Put != nil {
		out = append(out, it.Put.TableName)
	}
	if it.Update != nil {
		out = append(out, it.Update.TableName)
	}
	if it.Delete != nil {
		out = append(out, it.Delete.TableName)
	}
	if it.ConditionCheck != nil {
		out = append(out, it.ConditionCheck.TableName)
	}
	return out
}

// opNames maps input types to operation names, for messages.
var opNames = func() map[string]string {
	m := map[string]string{}
	for _, set := range []map[string]op{ops, streamOps} {
		for name := range set {
			m[name+"Input"] = name
		}
	}
	return m
}()

// opName is the operation an input is for.
func opName(in any) string {
	t := fmt.Sprintf("%T", in)
	return opNames[t[strings.LastIndexByte(t, '.')+1:]]
}

// tableNameOf reads the TableName member of inputs not listed above.
func tableNameOf(in any) (string, bool) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", false
	}
	var v struct{ TableName string }
	if json.Unmarshal(b, &v) != nil || v.TableName == "" {
		return "", false
	}
	return v.TableName, true
}
