package generator

import (
	"slices"
	"strings"
)

// helper is a piece of support code a generated package carries when it
// calls it: small, private, dependency-free functions, so that the
// generated code imports only the standard library and aws-sdk-go-v2.
type helper struct {
	deps []string
	src  string
}

// helpers are the support functions, by name.
var helpers = map[string]helper{
	"stringValue": {src: `
// stringValue encodes a string (or a named string type) as an S value.
func stringValue[T ~string](s T) types.AttributeValue {
	return &types.AttributeValueMemberS{Value: string(s)}
}`},
	"intValue": {src: `
// intValue encodes an integer as an N value.
func intValue(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}`},
	"floatValue": {src: `
// floatValue encodes a number as an N value, in the shortest decimal form
// that reads back the same float64.
func floatValue(f float64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatFloat(f, 'f', -1, 64)}
}`},
	"bytesValue": {src: `
// bytesValue encodes bytes as a B value.
func bytesValue(b []byte) types.AttributeValue {
	return &types.AttributeValueMemberB{Value: b}
}`},
	"boolValue": {src: `
// boolValue encodes a boolean as a BOOL value.
func boolValue(b bool) types.AttributeValue {
	return &types.AttributeValueMemberBOOL{Value: b}
}`},
	"listValue": {src: `
// listValue returns the encoder of a list whose elements enc encodes.
func listValue[T any](enc func(T) types.AttributeValue) func([]T) types.AttributeValue {
	return func(xs []T) types.AttributeValue {
		l := make([]types.AttributeValue, len(xs))
		for i, x := range xs {
			l[i] = enc(x)
		}
		return &types.AttributeValueMemberL{Value: l}
	}
}`},
	"mapValue": {src: `
// mapValue returns the encoder of a map whose values enc encodes.
func mapValue[T any](enc func(T) types.AttributeValue) func(map[string]T) types.AttributeValue {
	return func(m map[string]T) types.AttributeValue {
		out := make(map[string]types.AttributeValue, len(m))
		for k, x := range m {
			out[k] = enc(x)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
}`},
	"stringSetValue": {src: `
// stringSetValue encodes a string set (SS).
func stringSetValue(s []string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: s}
}`},
	"intSetValue": {src: `
// intSetValue encodes a number set (NS) of integers.
func intSetValue(s []int64) types.AttributeValue {
	ns := make([]string, len(s))
	for i, n := range s {
		ns[i] = strconv.FormatInt(n, 10)
	}
	return &types.AttributeValueMemberNS{Value: ns}
}`},
	"floatSetValue": {src: `
// floatSetValue encodes a number set (NS).
func floatSetValue(s []float64) types.AttributeValue {
	ns := make([]string, len(s))
	for i, f := range s {
		ns[i] = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return &types.AttributeValueMemberNS{Value: ns}
}`},
	"bytesSetValue": {src: `
// bytesSetValue encodes a binary set (BS).
func bytesSetValue(s [][]byte) types.AttributeValue {
	return &types.AttributeValueMemberBS{Value: s}
}`},
	"rawListValue": {src: `
// rawListValue encodes a list whose elements are already attribute values.
func rawListValue(l []types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: l}
}`},
	"rawMapValue": {src: `
// rawMapValue encodes a map whose values are already attribute values.
func rawMapValue(m map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: m}
}`},
	"rawValue": {src: `
// rawValue passes an attribute value through.
func rawValue(v types.AttributeValue) types.AttributeValue { return v }`},

	"typeName": {src: `
// typeName names the DynamoDB type of a value, for errors.
func typeName(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberM:
		return "M"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	}
	return "unknown"
}`},
	"asString": {deps: []string{"typeName"}, src: `
// asString decodes an S value.
func asString[T ~string](av types.AttributeValue) (T, error) {
	v, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("want a string (S), got %s", typeName(av))
	}
	return T(v.Value), nil
}`},
	"asInt": {deps: []string{"typeName"}, src: `
// asInt decodes an N value holding an integer.
func asInt(av types.AttributeValue) (int64, error) {
	v, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("want a number (N), got %s", typeName(av))
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %s", v.Value)
	}
	return n, nil
}`},
	"asFloat": {deps: []string{"typeName"}, src: `
// asFloat decodes an N value.
func asFloat(av types.AttributeValue) (float64, error) {
	v, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("want a number (N), got %s", typeName(av))
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	if err != nil {
		return 0, fmt.Errorf("want a number, got %s", v.Value)
	}
	return f, nil
}`},
	"asBytes": {deps: []string{"typeName"}, src: `
// asBytes decodes a B value.
func asBytes(av types.AttributeValue) ([]byte, error) {
	v, ok := av.(*types.AttributeValueMemberB)
	if !ok {
		return nil, fmt.Errorf("want binary (B), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asBool": {deps: []string{"typeName"}, src: `
// asBool decodes a BOOL value.
func asBool(av types.AttributeValue) (bool, error) {
	v, ok := av.(*types.AttributeValueMemberBOOL)
	if !ok {
		return false, fmt.Errorf("want a boolean (BOOL), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asList": {deps: []string{"typeName"}, src: `
// asList returns the decoder of a list whose elements dec decodes.
func asList[T any](dec func(types.AttributeValue) (T, error)) func(types.AttributeValue) ([]T, error) {
	return func(av types.AttributeValue) ([]T, error) {
		v, ok := av.(*types.AttributeValueMemberL)
		if !ok {
			return nil, fmt.Errorf("want a list (L), got %s", typeName(av))
		}
		out := make([]T, len(v.Value))
		for i, e := range v.Value {
			x, err := dec(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = x
		}
		return out, nil
	}
}`},
	"asMap": {deps: []string{"typeName"}, src: `
// asMap returns the decoder of a map whose values dec decodes.
func asMap[T any](dec func(types.AttributeValue) (T, error)) func(types.AttributeValue) (map[string]T, error) {
	return func(av types.AttributeValue) (map[string]T, error) {
		v, ok := av.(*types.AttributeValueMemberM)
		if !ok {
			return nil, fmt.Errorf("want a map (M), got %s", typeName(av))
		}
		out := make(map[string]T, len(v.Value))
		for k, e := range v.Value {
			x, err := dec(e)
			if err != nil {
				return nil, fmt.Errorf("member %s: %w", k, err)
			}
			out[k] = x
		}
		return out, nil
	}
}`},
	"asStringSet": {deps: []string{"typeName"}, src: `
// asStringSet decodes an SS value.
func asStringSet(av types.AttributeValue) ([]string, error) {
	v, ok := av.(*types.AttributeValueMemberSS)
	if !ok {
		return nil, fmt.Errorf("want a string set (SS), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asIntSet": {deps: []string{"typeName"}, src: `
// asIntSet decodes an NS value of integers.
func asIntSet(av types.AttributeValue) ([]int64, error) {
	v, ok := av.(*types.AttributeValueMemberNS)
	if !ok {
		return nil, fmt.Errorf("want a number set (NS), got %s", typeName(av))
	}
	out := make([]int64, len(v.Value))
	for i, s := range v.Value {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want integers, got %s", s)
		}
		out[i] = n
	}
	return out, nil
}`},
	"asFloatSet": {deps: []string{"typeName"}, src: `
// asFloatSet decodes an NS value.
func asFloatSet(av types.AttributeValue) ([]float64, error) {
	v, ok := av.(*types.AttributeValueMemberNS)
	if !ok {
		return nil, fmt.Errorf("want a number set (NS), got %s", typeName(av))
	}
	out := make([]float64, len(v.Value))
	for i, s := range v.Value {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("want numbers, got %s", s)
		}
		out[i] = f
	}
	return out, nil
}`},
	"asBytesSet": {deps: []string{"typeName"}, src: `
// asBytesSet decodes a BS value.
func asBytesSet(av types.AttributeValue) ([][]byte, error) {
	v, ok := av.(*types.AttributeValueMemberBS)
	if !ok {
		return nil, fmt.Errorf("want a binary set (BS), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asRawList": {deps: []string{"typeName"}, src: `
// asRawList decodes a list, keeping its elements as attribute values.
func asRawList(av types.AttributeValue) ([]types.AttributeValue, error) {
	v, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		return nil, fmt.Errorf("want a list (L), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asRawMap": {deps: []string{"typeName"}, src: `
// asRawMap decodes a map, keeping its values as attribute values.
func asRawMap(av types.AttributeValue) (map[string]types.AttributeValue, error) {
	v, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return nil, fmt.Errorf("want a map (M), got %s", typeName(av))
	}
	return v.Value, nil
}`},
	"asRaw": {src: `
// asRaw keeps a value as it is.
func asRaw(av types.AttributeValue) (types.AttributeValue, error) { return av, nil }`},

	"decoder": {src: `
// decoder reads the attributes of one item, keeping the first error.
type decoder struct {
	item map[string]types.AttributeValue
	what string // the item's entity, named in errors
	err  error
}

func (d *decoder) fail(name string, err error) {
	if d.err == nil {
		d.err = fmt.Errorf("%s: %s: %w", d.what, name, err)
	}
}`},
	"required": {deps: []string{"decoder"}, src: `
// required decodes an attribute every item carries.
func required[T any](d *decoder, name string, dec func(types.AttributeValue) (T, error)) T {
	var zero T
	av, ok := d.item[name]
	if !ok {
		d.fail(name, errors.New("missing"))
		return zero
	}
	x, err := dec(av)
	if err != nil {
		d.fail(name, err)
		return zero
	}
	return x
}`},
	"optional": {deps: []string{"decoder"}, src: `
// optional decodes an attribute some items carry: nil when absent.
func optional[T any](d *decoder, name string, dec func(types.AttributeValue) (T, error)) *T {
	av, ok := d.item[name]
	if !ok {
		return nil
	}
	x, err := dec(av)
	if err != nil {
		d.fail(name, err)
		return nil
	}
	return &x
}`},
	"maybe": {deps: []string{"decoder"}, src: `
// maybe decodes an attribute some items carry into a type whose zero
// value (nil) means absent.
func maybe[T any](d *decoder, name string, dec func(types.AttributeValue) (T, error)) T {
	var zero T
	av, ok := d.item[name]
	if !ok {
		return zero
	}
	x, err := dec(av)
	if err != nil {
		d.fail(name, err)
		return zero
	}
	return x
}`},

	"keyBuilder": {src: `
// keyBuilder prints values into keys, keeping the first error: an empty
// value, a value holding the separator (the key would read back wrong),
// a number wider than its zero padding.
type keyBuilder struct{ err error }

func (k *keyBuilder) text(name, s string) string {
	switch {
	case k.err != nil:
	case s == "":
		k.err = fmt.Errorf("%s is empty", name)
	case strings.Contains(s, Separator):
		k.err = fmt.Errorf("%s %q contains the key separator %q", name, s, Separator)
	}
	return s
}

func (k *keyBuilder) padded(name string, n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	switch {
	case k.err != nil:
	case n < 0:
		k.err = fmt.Errorf("%s %d is negative: a zero-padded key part holds 0 or more", name, n)
	case len(s) > width:
		k.err = fmt.Errorf("%s %d does not fit in %d digits", name, n, width)
	}
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

func (k *keyBuilder) int(n int64) string { return strconv.FormatInt(n, 10) }

func (k *keyBuilder) float(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }`},
	"keyParser": {src: `
// keyParser reads numbers back from key parts, keeping the first error.
type keyParser struct{ err error }

func (p *keyParser) padded(name, s string, width int) int64 {
	if len(s) != width {
		p.fail(fmt.Errorf("%s %q is not %d digits", name, s, width))
		return 0
	}
	return p.int(name, s)
}

func (p *keyParser) int(name, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.fail(fmt.Errorf("%s %q is not an integer", name, s))
	}
	return n
}

func (p *keyParser) float(name, s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail(fmt.Errorf("%s %q is not a number", name, s))
	}
	return f
}

func (p *keyParser) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}`},
	"matchKey": {src: `
// matchKey splits a key along a template's literal texts (one more than
// its placeholders) and returns the placeholders' values, or false when
// the key does not have the template's shape. A value is never empty and
// never holds the separator, as the key builders guarantee.
func matchKey(key string, literals ...string) ([]string, bool) {
	rest, ok := strings.CutPrefix(key, literals[0])
	if !ok {
		return nil, false
	}
	values := make([]string, 0, len(literals)-1)
	for i, lit := range literals[1:] {
		var v string
		if i == len(literals)-2 {
			if v, ok = strings.CutSuffix(rest, lit); !ok {
				return nil, false
			}
			rest = ""
		} else {
			j := strings.Index(rest, lit)
			if j < 0 {
				return nil, false
			}
			v, rest = rest[:j], rest[j+len(lit):]
		}
		if v == "" || strings.Contains(v, Separator) {
			return nil, false
		}
		values = append(values, v)
	}
	return values, true
}`},

	"checks": {src: `
// checks collects everything wrong with a value, to report it at once.
type checks struct{ errs []error }

func (c *checks) add(err error) {
	if err != nil {
		c.errs = append(c.errs, err)
	}
}

func (c *checks) err(what string) error {
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", what, errors.Join(c.errs...))
}`},
	"checkEnum": {src: `
// checkEnum checks a value of an enum type.
func checkEnum[T interface {
	~string
	Valid() bool
}](name string, v T) error {
	if v.Valid() {
		return nil
	}
	return fmt.Errorf("%s %q is not one of its values", name, string(v))
}`},
	"checkCivilDate": {src: `
// checkCivilDate checks a civil date: YYYY-MM-DD, a real day.
func checkCivilDate(name, s string) error {
	if len(s) != len("2006-01-02") {
		return fmt.Errorf("%s %q is not a civil date YYYY-MM-DD", name, s)
	}
	if _, err := time.Parse("2006-01-02", s); err != nil {
		return fmt.Errorf("%s %q is not a civil date YYYY-MM-DD", name, s)
	}
	return nil
}`},
	"checkInstant": {src: `
// checkInstant checks an RFC 3339 instant such as 2026-09-23T03:12:44Z.
func checkInstant(name, s string) error {
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("%s %q is not an RFC 3339 instant such as 2026-09-23T03:12:44Z", name, s)
	}
	return nil
}`},
	"checkInstantFormat": {src: `
// checkInstantFormat checks an instant written in the model's one form: a
// fixed offset (Z or ±HH:MM) and digits fractional digits, so that the
// text order of two instants is their time order.
func checkInstantFormat(name, s, offset string, digits int) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%s %q is not an RFC 3339 instant", name, s)
	}
	layout := "2006-01-02T15:04:05"
	if digits > 0 {
		layout += "." + strings.Repeat("0", digits)
	}
	want := ""
	if offset == "Z" {
		want = t.UTC().Format(layout) + "Z"
	} else if z, err := time.Parse("-07:00", offset); err == nil {
		_, secs := z.Zone()
		want = t.In(time.FixedZone(offset, secs)).Format(layout + "-07:00")
	}
	if want != s {
		return fmt.Errorf("%s %q is not written in the instant format (offset %s, %d fractional digits): %q", name, s, offset, digits, want)
	}
	return nil
}`},
	"checkLength": {src: `
// checkLength checks the characters of a string (Unicode code points)
// against its bounds; -1 is no bound.
func checkLength(name, s string, lo, hi int) error {
	n := utf8.RuneCountInString(s)
	switch {
	case lo >= 0 && n < lo:
		return fmt.Errorf("%s %q has %d characters, fewer than the %d it needs", name, s, n, lo)
	case hi >= 0 && n > hi:
		return fmt.Errorf("%s has %d characters, more than the %d it allows", name, n, hi)
	}
	return nil
}`},
	"checkPattern": {src: `
// checkPattern checks that the whole of a string matches its pattern.
func checkPattern(name, s string, re *regexp.Regexp) error {
	if re.MatchString(s) {
		return nil
	}
	return fmt.Errorf("%s %q does not match its pattern %s", name, s, re)
}`},
	"checkRange": {src: `
// checkRange checks a number against its bounds (inclusive).
func checkRange(name string, x, lo, hi float64) error {
	switch {
	case x < lo:
		return fmt.Errorf("%s %v is below its minimum %v", name, x, lo)
	case x > hi:
		return fmt.Errorf("%s %v is above its maximum %v", name, x, hi)
	}
	return nil
}`},
	"checkOneOf": {src: `
// checkOneOf checks a number against the values its attribute allows.
func checkOneOf(name string, x float64, values []float64) error {
	if slices.Contains(values, x) {
		return nil
	}
	return fmt.Errorf("%s %v is not one of %v", name, x, values)
}`},
	"checkCount": {src: `
// checkCount checks how many elements a list, map or set holds; -1 is no
// bound.
func checkCount(name string, n, lo, hi int) error {
	switch {
	case lo >= 0 && n < lo:
		return fmt.Errorf("%s holds %d elements, fewer than the %d it needs", name, n, lo)
	case hi >= 0 && n > hi:
		return fmt.Errorf("%s holds %d elements, more than the %d it allows", name, n, hi)
	}
	return nil
}`},
	"deref": {src: `
// deref returns the value p points at, or the zero value.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}`},

	"fnv1a32": {src: `
// fnv1a32 is the 32-bit FNV-1a hash of the UTF-8 bytes of s.
func fnv1a32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}`},
	"digitsOnly": {src: `
// digitsOnly keeps the ASCII digits of s: "123.456.789-09" -> "12345678909".
func digitsOnly(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b = append(b, s[i])
		}
	}
	return string(b)
}`},
	"hmacHex": {src: `
// hmacHex returns the first n hex characters of HMAC-SHA256(secret, s).
func hmacHex(secret []byte, s string, n int) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(s))
	h := hex.EncodeToString(m.Sum(nil))
	if n > 0 && n < len(h) {
		h = h[:n]
	}
	return h
}`},

	"compareAttr": {src: `
// compareAttr orders two key attribute values as DynamoDB sorts them:
// strings and binary byte by byte, numbers by value. A missing value
// sorts first.
func compareAttr(a, b types.AttributeValue) int {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		if y, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(x.Value, y.Value)
		}
	case *types.AttributeValueMemberN:
		if y, ok := b.(*types.AttributeValueMemberN); ok {
			var rx, ry big.Rat
			if _, ok := rx.SetString(x.Value); !ok {
				return strings.Compare(x.Value, y.Value)
			}
			if _, ok := ry.SetString(y.Value); !ok {
				return strings.Compare(x.Value, y.Value)
			}
			return rx.Cmp(&ry)
		}
	case *types.AttributeValueMemberB:
		if y, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(x.Value, y.Value)
		}
	}
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return 0
}`},

	"failed": {src: `
// failed is an iterator that yields err and stops.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}`},
	"readOptions": {src: `
// readOptions are the options of one access-pattern read.
type readOptions struct {
	limit   int32
	start   map[string]types.AttributeValue
	workers int
}

// ReadOption adjusts a read: its page size, where it starts, how many
// shards it reads at once.
type ReadOption func(*readOptions)

// PageSize sets the number of items a request evaluates (DynamoDB's
// Limit), replacing the model's page size. A page may still end earlier,
// at 1 MB.
func PageSize(n int) ReadOption {
	return func(o *readOptions) { o.limit = int32(min(max(n, 1), math.MaxInt32)) }
}

// StartAt resumes a read after the page whose Next it is. A read over
// several shards cannot resume this way: it starts over.
func StartAt(next map[string]types.AttributeValue) ReadOption {
	return func(o *readOptions) { o.start = next }
}

// Workers bounds how many shards a fan-out read queries at once.
func Workers(n int) ReadOption {
	return func(o *readOptions) { o.workers = max(n, 1) }
}

func readWith(opts []ReadOption, limit, workers int) readOptions {
	o := readOptions{limit: int32(limit), workers: workers}
	for _, f := range opts {
		f(&o)
	}
	return o
}`},
	"readPage": {src: `
// readPage sends one query and decodes its page.
func readPage[T any](ctx context.Context, db DynamoDB, q *dynamodb.QueryInput, decode func(map[string]types.AttributeValue) (T, error)) (Page[T], error) {
	var page Page[T]
	out, err := db.Query(ctx, q)
	if err != nil {
		return page, err
	}
	page.Capacity.add(out.ConsumedCapacity)
	page.Next = out.LastEvaluatedKey
	page.Items = make([]T, 0, len(out.Items))
	for _, it := range out.Items {
		x, err := decode(it)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, x)
	}
	return page, nil
}`},
	"queryPages": {deps: []string{"readOptions", "readPage"}, src: `
// queryPages runs a query page by page.
func queryPages[T any](ctx context.Context, db DynamoDB, q *dynamodb.QueryInput, o readOptions, decode func(map[string]types.AttributeValue) (T, error)) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		in := *q
		if o.limit > 0 {
			in.Limit = aws.Int32(o.limit)
		}
		in.ExclusiveStartKey = o.start
		for {
			page, err := readPage(ctx, db, &in, decode)
			if err != nil {
				yield(page, err)
				return
			}
			if !yield(page, nil) || page.Next == nil {
				return
			}
			in.ExclusiveStartKey = page.Next
		}
	}
}`},
	"shardRead": {src: `
// shardPage is one page of one shard, raw, for merging.
type shardPage struct {
	items    []map[string]types.AttributeValue
	capacity Capacity
	last     bool // no page follows on the channel
	more     bool // the shard has more items (LastEvaluatedKey)
	err      error
}

// readShard queries one shard page by page into pages, holding a slot of
// sem for each request, until the shard ends, ctx is done or a request
// fails.
func readShard(ctx context.Context, db DynamoDB, q *dynamodb.QueryInput, sem chan struct{}, pages chan<- shardPage, all bool) {
	in := *q
	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		out, err := db.Query(ctx, &in)
		<-sem
		var p shardPage
		if err != nil {
			p.err, p.last = err, true
		} else {
			p.capacity.add(out.ConsumedCapacity)
			p.items = out.Items
			p.more = out.LastEvaluatedKey != nil
			p.last = !p.more || !all
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		select {
		case pages <- p:
		case <-ctx.Done():
			return
		}
		if p.last {
			return
		}
	}
}`},
	"scatterPages": {deps: []string{"readOptions", "shardRead"}, src: `
// scatterPages reads every shard of a sharded index, at most o.workers
// requests at a time, and merges their items in the index's order
// (compare; reversed when descending). Each page holds o.limit merged
// items (or what is left), with the capacity of the requests finished
// since the last page.
func scatterPages[T any](ctx context.Context, db DynamoDB, qs []*dynamodb.QueryInput, o readOptions, decode func(map[string]types.AttributeValue) (T, error), compare func(a, b map[string]types.AttributeValue) int, descending bool) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		sem := make(chan struct{}, max(o.workers, 1))
		type shard struct {
			pages chan shardPage
			items []map[string]types.AttributeValue
			done  bool
		}
		shards := make([]*shard, len(qs))
		for i, q := range qs {
			in := *q
			if o.limit > 0 {
				in.Limit = aws.Int32(o.limit)
			}
			s := &shard{pages: make(chan shardPage, 1)}
			shards[i] = s
			go readShard(ctx, db, &in, sem, s.pages, true)
		}
		var page Page[T]
		// fill waits for the next page of a shard whose items ran out.
		fill := func(s *shard) error {
			for len(s.items) == 0 && !s.done {
				p := <-s.pages
				page.Capacity = page.Capacity.plus(p.capacity)
				if p.err != nil {
					return p.err
				}
				s.items, s.done = p.items, p.last
			}
			return nil
		}
		size := int(o.limit)
		if size <= 0 {
			size = 100
		}
		for {
			var best *shard
			for _, s := range shards {
				if err := fill(s); err != nil {
					yield(page, err)
					return
				}
				if len(s.items) == 0 {
					continue
				}
				if best == nil {
					best = s
					continue
				}
				c := compare(s.items[0], best.items[0])
				if descending {
					c = -c
				}
				if c < 0 {
					best = s
				}
			}
			if best == nil {
				if len(page.Items) > 0 || page.Capacity.ReadUnits > 0 {
					yield(page, nil)
				}
				return
			}
			x, err := decode(best.items[0])
			if err != nil {
				yield(page, err)
				return
			}
			best.items = best.items[1:]
			page.Items = append(page.Items, x)
			if len(page.Items) == size {
				if !yield(page, nil) {
					return
				}
				page = Page[T]{}
			}
		}
	}
}`},
	"readShards": {deps: []string{"shardRead"}, src: `
// shardsPage is the first page of every shard of a query, merged.
type shardsPage[T any] struct {
	Items    []T
	Capacity Capacity
	more     bool // a shard had more items
	// first is the first item of the first shard (in shard order) that
	// returned any: what a step binds from.
	first map[string]types.AttributeValue
}

// readShards sends the first page of each query (one per shard, or one
// alone), at most workers at a time, and merges their items in the
// index's order (compare; nil keeps the shards' order).
func readShards[T any](ctx context.Context, db DynamoDB, qs []*dynamodb.QueryInput, workers int, decode func(map[string]types.AttributeValue) (T, error), compare func(a, b map[string]types.AttributeValue) int, descending bool) (shardsPage[T], error) {
	var res shardsPage[T]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(workers, 1))
	chans := make([]chan shardPage, len(qs))
	for i, q := range qs {
		chans[i] = make(chan shardPage, 1)
		go readShard(ctx, db, q, sem, chans[i], false)
	}
	var raw []map[string]types.AttributeValue
	var firstErr error
	for _, ch := range chans {
		p := <-ch
		res.Capacity = res.Capacity.plus(p.capacity)
		if p.err != nil && firstErr == nil {
			firstErr = p.err
		}
		if res.first == nil && len(p.items) > 0 {
			res.first = p.items[0]
		}
		res.more = res.more || p.more
		raw = append(raw, p.items...)
	}
	if firstErr != nil {
		return res, firstErr
	}
	if compare != nil {
		slices.SortStableFunc(raw, func(a, b map[string]types.AttributeValue) int {
			if descending {
				return compare(b, a)
			}
			return compare(a, b)
		})
	}
	for _, it := range raw {
		x, err := decode(it)
		if err != nil {
			return res, err
		}
		res.Items = append(res.Items, x)
	}
	return res, nil
}`},

	"asItem": {src: `
// asItem returns a decoded entity as an Item.
func asItem[T Item](x T, err error) (Item, error) {
	if err != nil {
		return nil, err
	}
	return x, nil
}`},
	"failure": {src: `
// failure is a declared failure of one step of a business operation.
type failure struct {
	op, step, meaning, outcome string
	err                        error
}

func (f *failure) with(cause error, reasons []types.CancellationReason) *Failure {
	return &Failure{Operation: f.op, Step: f.step, Meaning: f.meaning, Outcome: f.outcome, Err: f.err, Cause: cause, Reasons: reasons}
}`},
	"failureWith": {deps: []string{"failure"}},
	"writeError": {deps: []string{"failure"}, src: `
// writeError turns the error of a conditional write into the step's
// failure when its condition failed, and wraps any other error.
func writeError(err error, f failure) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return f.with(err, nil)
	}
	return fmt.Errorf("%s: %s: %w", f.op, f.step, err)
}`},
	"transactionError": {deps: []string{"failure"}, src: `
// transactionError turns a cancelled transaction into the failure of its
// first action whose condition failed (actions lists each action's
// failure in request order, nil for an action without a condition), and
// wraps any other error (a conflict with another transaction, a
// throttle).
func transactionError(op, step string, err error, actions []*failure) error {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" && i < len(actions) && actions[i] != nil {
				return actions[i].with(err, tce.CancellationReasons)
			}
		}
	}
	return fmt.Errorf("%s: %s: %w", op, step, err)
}`},
}

// helperSource returns the source of the helpers in use, with their
// dependencies, sorted by name.
func (p *plan) helperSource() string {
	need := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if need[n] {
			return
		}
		need[n] = true
		for _, d := range helpers[n].deps {
			visit(d)
		}
	}
	for n := range p.used {
		visit(n)
	}
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		if src := helpers[n].src; src != "" {
			b.WriteString(src)
			b.WriteString("\n")
		}
	}
	return b.String()
}
