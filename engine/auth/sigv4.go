package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The exceptions of authentication, as DynamoDB names them (in the wire
// "__type" they follow "com.amazon.coral.service#").
const (
	ErrMissingToken      = "MissingAuthenticationTokenException"
	ErrIncomplete        = "IncompleteSignatureException"
	ErrInvalidSignature  = "InvalidSignatureException"
	ErrUnrecognized      = "UnrecognizedClientException"
	algorithm            = "AWS4-HMAC-SHA256"
	amzDateLayout        = "20060102T150405Z"
	terminator           = "aws4_request"
	service              = "dynamodb"
	unrecognizedMessage  = "The security token included in the request is invalid."
	missingTokenMessage  = "Request is missing Authentication Token"
	signatureMismatchMsg = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)

// MaxSkew is how far a request's date may be from the server's clock.
const MaxSkew = 15 * time.Minute

// Error is an authentication failure: Type is the exception name.
type Error struct {
	Type    string
	Message string
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

func fail(typ, msg string) *Error { return &Error{Type: typ, Message: msg} }

// Signature is what a request's Authorization header (or its query
// string, for a presigned request) says. Its strings share the header's
// memory.
type Signature struct {
	Algorithm     string
	AccessKey     string
	Date          string // the credential scope's day, YYYYMMDD
	Region        string
	Service       string
	Terminator    string
	SignedHeaders string // lower-case names joined by ';', as sent
	Signature     string // hex
	AmzDate       string // X-Amz-Date (or the Date header), as sent
	query         bool   // presigned: the parameters are in the query string
	// expires is a presigned request's X-Amz-Expires, when it has one
	// (hasExpires): the request is refused once that long past its
	// X-Amz-Date.
	expires    time.Duration
	hasExpires bool
}

// MaxExpires is the longest X-Amz-Expires a presigned request may give:
// a week, as SigV4 allows.
const MaxExpires = 7 * 24 * 60 * 60

// Parse reads the signature of a request from its headers (or its query
// string) and checks its form, as DynamoDB does before looking at the
// key: present, complete, dated, with a five-part credential scope. It
// does not check the signature itself (Keys.Verify does).
func Parse(h http.Header, rawQuery string) (Signature, *Error) {
	authz := headerValue(h, "Authorization")
	query := strings.Contains(rawQuery, "X-Amz-Algorithm=")
	if authz != "" && query {
		return Signature{}, fail(ErrInvalidSignature, "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header.")
	}
	if query {
		return parseQuery(rawQuery)
	}
	trimmed := strings.TrimSpace(authz)
	if len(trimmed) < 5 || trimmed[:5] != "AWS4-" {
		return Signature{}, fail(ErrMissingToken, missingTokenMessage)
	}
	var s Signature
	alg, params, _ := strings.Cut(trimmed, " ")
	s.Algorithm = alg
	var credential string
	var haveCred, haveSig, haveSigned bool
	for params != "" {
		var p string
		p, params, _ = cutAny(params, ", ")
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "Credential":
			credential, haveCred = v, v != ""
		case "Signature":
			s.Signature, haveSig = v, v != ""
		case "SignedHeaders":
			s.SignedHeaders, haveSigned = v, v != ""
		}
	}
	s.AmzDate = headerValue(h, "X-Amz-Date")
	if s.AmzDate == "" {
		s.AmzDate = headerValue(h, "Date")
	}
	if !haveCred || !haveSig || !haveSigned || s.AmzDate == "" {
		var msg strings.Builder
		for _, p := range []struct {
			name string
			ok   bool
		}{{"Credential", haveCred}, {"Signature", haveSig}, {"SignedHeaders", haveSigned}} {
			if !p.ok {
				msg.WriteString("Authorization header requires '" + p.name + "' parameter. ")
			}
		}
		if s.AmzDate == "" {
			msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
		}
		msg.WriteString("Authorization=" + authz)
		return Signature{}, fail(ErrIncomplete, msg.String())
	}
	if err := s.finish(credential); err != nil {
		return Signature{}, err
	}
	return s, nil
}

// parseQuery reads a presigned request's parameters.
func parseQuery(rawQuery string) (Signature, *Error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return Signature{}, fail(ErrIncomplete, "AWS query-string parameters must be well formed. Re-examine the query-string parameters.")
	}
	var msg strings.Builder
	for _, p := range []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"} {
		if q.Get(p) == "" {
			msg.WriteString("AWS query-string parameters must include '" + p + "'. ")
		}
	}
	if msg.Len() > 0 {
		msg.WriteString("Re-examine the query-string parameters.")
		return Signature{}, fail(ErrIncomplete, msg.String())
	}
	s := Signature{Algorithm: q.Get("X-Amz-Algorithm"), Signature: q.Get("X-Amz-Signature"),
		SignedHeaders: q.Get("X-Amz-SignedHeaders"), AmzDate: q.Get("X-Amz-Date"), query: true}
	if v, ok := q["X-Amz-Expires"]; ok {
		n, err := strconv.ParseInt(v[0], 10, 64)
		switch {
		case err != nil || n < 0:
			return Signature{}, fail(ErrIncomplete, "X-Amz-Expires must be a non-negative integer number of seconds, got '"+v[0]+"'. Re-examine the query-string parameters.")
		case n > MaxExpires:
			return Signature{}, fail(ErrIncomplete, "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds. Re-examine the query-string parameters.")
		}
		s.expires, s.hasExpires = time.Duration(n)*time.Second, true
	}
	if ferr := s.finish(q.Get("X-Amz-Credential")); ferr != nil {
		return Signature{}, ferr
	}
	return s, nil
}

// finish checks the date's form, the algorithm and the credential scope's
// shape, and splits the scope.
func (s *Signature) finish(credential string) *Error {
	if !basicDate(s.AmzDate) {
		if _, err := http.ParseTime(s.AmzDate); err != nil {
			return fail(ErrIncomplete, "Date must be in ISO-8601 'basic format'. Got '"+s.AmzDate+"'. See http://en.wikipedia.org/wiki/ISO_8601")
		}
	}
	if s.Algorithm != algorithm {
		return fail(ErrIncomplete, "Unsupported AWS 'algorithm': '"+s.Algorithm+"' (only AWS4-HMAC-SHA256 for now). ")
	}
	scope := strings.TrimRight(credential, "/")
	parts := [5]string{}
	n := 0
	for rest := scope; ; n++ {
		part, after, more := strings.Cut(rest, "/")
		if n < 5 {
			parts[n] = part
		}
		if !more {
			n++
			break
		}
		rest = after
	}
	if n != 5 {
		return fail(ErrIncomplete, "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+scope+"'")
	}
	s.AccessKey, s.Date, s.Region, s.Service, s.Terminator = parts[0], parts[1], parts[2], parts[3], parts[4]
	return nil
}

// Scope is the signature's credential scope without the key.
func (s *Signature) Scope() string {
	return s.Date + "/" + s.Region + "/" + s.Service + "/" + s.Terminator
}

// basicDate reports whether v is an ISO 8601 basic date-time in UTC,
// 20060102T150405Z.
func basicDate(v string) bool {
	if len(v) != 16 || v[8] != 'T' || v[15] != 'Z' {
		return false
	}
	for i := 0; i < 15; i++ {
		if i != 8 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// signedAt is the time the signature claims.
func (s *Signature) signedAt() (time.Time, bool) {
	if t, err := time.Parse(amzDateLayout, s.AmzDate); err == nil {
		return t, true
	}
	t, err := http.ParseTime(s.AmzDate)
	return t.UTC(), err == nil
}

// validRegion is the shape of AWS region names (us-east-1,
// us-gov-west-1, cn-north-1, eu-central-2, ...).
var validRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)

// ValidRegion reports whether name has the shape of an AWS region.
func ValidRegion(name string) bool { return validRegion.MatchString(name) }

// checkScope checks the credential scope's parts and the request's date
// against the server's clock, as DynamoDB does before looking up the key.
func (s *Signature) checkScope(now time.Time) *Error {
	t, ok := s.signedAt()
	if !ok {
		return fail(ErrIncomplete, "Date must be in ISO-8601 'basic format'. Got '"+s.AmzDate+"'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	now = now.UTC()
	if t.Before(now.Add(-MaxSkew)) {
		return fail(ErrInvalidSignature, "Signature expired: "+t.Format(amzDateLayout)+" is now earlier than "+
			now.Add(-MaxSkew).Format(amzDateLayout)+" ("+now.Format(amzDateLayout)+" - 15 min.)")
	}
	if s.hasExpires && now.After(t.Add(s.expires)) {
		// A presigned request past its X-Amz-Expires, worded as one
		// past the skew allowed.
		return fail(ErrInvalidSignature, "Signature expired: "+t.Format(amzDateLayout)+" is now earlier than "+
			now.Add(-s.expires).Format(amzDateLayout)+" ("+now.Format(amzDateLayout)+" - "+
			strconv.FormatInt(int64(s.expires/time.Second), 10)+" sec.)")
	}
	if t.After(now.Add(MaxSkew)) {
		return fail(ErrInvalidSignature, "Signature not yet current: "+t.Format(amzDateLayout)+" is still later than "+
			now.Add(MaxSkew).Format(amzDateLayout)+" ("+now.Format(amzDateLayout)+" + 15 min.)")
	}
	if !hasHeader(s.SignedHeaders, "host") {
		return fail(ErrInvalidSignature, "'Host' must be a 'SignedHeader' in the AWS Authorization.")
	}
	var msg strings.Builder
	if !ValidRegion(s.Region) {
		msg.WriteString("Credential should be scoped to a valid region, not '" + s.Region + "'. ")
	}
	if s.Service != service {
		msg.WriteString("Credential should be scoped to correct service: '" + service + "'. ")
	}
	if s.Terminator != terminator {
		msg.WriteString("Credential should be scoped with a valid terminator: '" + terminator + "', not '" + s.Terminator + "'. ")
	}
	if day := dayOf(s.AmzDate, t); s.Date != day {
		msg.WriteString("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" + s.Date + "' != '" + day + "', from '" + s.AmzDate + "'.")
	}
	if msg.Len() > 0 {
		return fail(ErrInvalidSignature, strings.TrimSpace(msg.String()))
	}
	return nil
}

// dayOf is the YYYYMMDD day of a request's date, without formatting
// when it is already in basic format.
func dayOf(amzDate string, t time.Time) string {
	if basicDate(amzDate) {
		return amzDate[:8]
	}
	return t.Format("20060102")
}

func hasHeader(signed, name string) bool {
	for signed != "" {
		var h string
		h, signed, _ = strings.Cut(signed, ";")
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// writer is what the canonical request is written to: a hash on the
// path of every request, a builder when a refusal must show it.
type writer interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// writeCanonical writes the canonical request of r as SigV4 defines it,
// from the headers the signature names, the path, the query string and
// bodyHash, the hex SHA-256 of the body.
func (s *Signature) writeCanonical(w writer, r *http.Request, bodyHash []byte) {
	w.WriteString(r.Method)
	w.WriteByte('\n')
	w.WriteString(canonicalPath(r.URL.EscapedPath()))
	w.WriteByte('\n')
	w.WriteString(canonicalQuery(r.URL.RawQuery, s.query))
	w.WriteByte('\n')
	for rest := s.SignedHeaders; rest != ""; {
		var name string
		name, rest, _ = strings.Cut(rest, ";")
		w.WriteString(name)
		w.WriteByte(':')
		writeHeader(w, r, name)
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
	w.WriteString(s.SignedHeaders)
	w.WriteByte('\n')
	w.Write(bodyHash)
}

// writeToSign writes the string to sign, given the hex hash of the
// canonical request.
func (s *Signature) writeToSign(w writer, creqHash []byte) {
	w.WriteString(algorithm)
	w.WriteByte('\n')
	w.WriteString(s.AmzDate)
	w.WriteByte('\n')
	w.WriteString(s.Date)
	w.WriteByte('/')
	w.WriteString(s.Region)
	w.WriteByte('/')
	w.WriteString(s.Service)
	w.WriteByte('/')
	w.WriteString(s.Terminator)
	w.WriteByte('\n')
	w.Write(creqHash)
}

// canonical builds the canonical request and the string to sign as
// strings, for the message of a refusal.
func (s *Signature) canonical(r *http.Request, body []byte) (creq, toSign string) {
	var bh, ch [64]byte
	sum := sha256.Sum256(body)
	hex.Encode(bh[:], sum[:])
	var b strings.Builder
	s.writeCanonical(&b, r, bh[:])
	creq = b.String()
	h := sha256.Sum256([]byte(creq))
	hex.Encode(ch[:], h[:])
	var t strings.Builder
	s.writeToSign(&t, ch[:])
	return creq, t.String()
}

// appender is a writer that appends to a reusable buffer.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error)       { a.b = append(a.b, p...); return len(p), nil }
func (a *appender) WriteString(s string) (int, error) { a.b = append(a.b, s...); return len(s), nil }
func (a *appender) WriteByte(c byte) error            { a.b = append(a.b, c); return nil }

var appenders = sync.Pool{New: func() any { return &appender{b: make([]byte, 0, 1024)} }}

// signature computes the request's signature with a signing key: the
// canonical request and the string to sign are written into one reused
// buffer and hashed, so that a request that verifies allocates nothing
// here.
func (s *Signature) signature(r *http.Request, body []byte, key *signingKeys, out *[32]byte) {
	a := appenders.Get().(*appender)
	defer appenders.Put(a)
	var bh, ch [64]byte
	sum := sha256.Sum256(body)
	hex.Encode(bh[:], sum[:])
	a.b = a.b[:0]
	s.writeCanonical(a, r, bh[:])
	sum = sha256.Sum256(a.b)
	hex.Encode(ch[:], sum[:])
	// HMAC-SHA256 of the string to sign, from the key's padded blocks.
	a.b = append(a.b[:0], key.inner[:]...)
	s.writeToSign(a, ch[:])
	sum = sha256.Sum256(a.b)
	var outer [sha256.BlockSize + sha256.Size]byte
	copy(outer[:], key.outer[:])
	copy(outer[sha256.BlockSize:], sum[:])
	*out = sha256.Sum256(outer[:])
}

// signingKeys is a derived signing key as the HMAC blocks it keys: the
// key XOR ipad and XOR opad.
type signingKeys struct {
	inner, outer [sha256.BlockSize]byte
}

func newSigningKeys(key []byte) *signingKeys {
	k := &signingKeys{}
	copy(k.inner[:], key)
	copy(k.outer[:], key)
	for i := range k.inner {
		k.inner[i] ^= 0x36
		k.outer[i] ^= 0x5c
	}
	return k
}

// writeHeader writes the canonical value of one signed header: every
// value sent under the name, trimmed, inner runs of spaces collapsed,
// joined by commas; Host and Content-Length as the request carried them.
func writeHeader(w writer, r *http.Request, name string) {
	switch name {
	case "host":
		w.WriteString(r.Host)
		return
	case "content-length":
		if v := r.Header.Get("Content-Length"); v != "" {
			w.WriteString(v)
			return
		}
		if r.ContentLength >= 0 {
			var buf [20]byte
			w.Write(strconv.AppendInt(buf[:0], r.ContentLength, 10))
			return
		}
	case "transfer-encoding":
		w.WriteString(strings.Join(r.TransferEncoding, ","))
		return
	}
	key, ok := canonicalNames[name]
	if !ok {
		key = http.CanonicalHeaderKey(name)
	}
	for i, v := range r.Header[key] {
		if i > 0 {
			w.WriteByte(',')
		}
		space, first := false, true
		for j := 0; j < len(v); j++ {
			c := v[j]
			if c == ' ' || c == '\t' {
				space = true
				continue
			}
			if space && !first {
				w.WriteByte(' ')
			}
			space, first = false, false
			w.WriteByte(c)
		}
	}
}

// canonicalNames are the canonical forms of the headers SDKs sign, so
// that reading them allocates nothing.
var canonicalNames = map[string]string{}

func init() {
	for _, h := range []string{"Content-Type", "X-Amz-Date", "X-Amz-Target", "X-Amz-Content-Sha256", "X-Amz-Security-Token",
		"Amz-Sdk-Invocation-Id", "Amz-Sdk-Request", "X-Amz-User-Agent", "User-Agent", "Accept-Encoding", "Content-Encoding"} {
		canonicalNames[strings.ToLower(h)] = h
	}
}

// canonicalPath URI-encodes an escaped path once more, as SigV4 asks of
// every service but S3; the empty path is "/".
func canonicalPath(p string) string {
	if p == "" || p == "/" {
		return "/"
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if unreserved(c) || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// canonicalQuery sorts the query's parameters by name and value, each
// encoded per RFC 3986; a presigned request's signature is left out.
func canonicalQuery(raw string, presigned bool) string {
	if raw == "" {
		return ""
	}
	q, _ := url.ParseQuery(raw)
	var pairs []string
	for k, vs := range q {
		if presigned && k == "X-Amz-Signature" {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, encode(k)+"="+encode(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

func encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if unreserved(s[i]) {
			b.WriteByte(s[i])
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{s[i]})))
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// signingKey derives SigV4's key for one secret, day and region.
func signingKey(secret, day, region, svc string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), day)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, svc)
	return hmacSHA256(k, terminator)
}

// headerValue is the first value of a header, without allocating.
func headerValue(h http.Header, canonicalName string) string {
	if v := h[canonicalName]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// cutAny is strings.Cut at the first of any byte of seps. It looks for
// each byte in turn with strings.IndexByte, within what precedes the
// first found so far, rather than with strings.IndexAny, which tests
// every byte against a set: Parse runs it on every request, and with
// IndexAny it took 60% of Parse.
func cutAny(s, seps string) (before, after string, found bool) {
	i := len(s)
	for k := 0; k < len(seps); k++ {
		if j := strings.IndexByte(s[:i], seps[k]); j >= 0 {
			i = j
		}
	}
	if i < len(s) {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}
