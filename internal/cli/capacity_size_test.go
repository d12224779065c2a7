package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file checks `capacity item` against a second, deliberately naive
// sizer written from capacity-rules.md section 1 alone. It shares no code
// with the capacity or attr packages: values are plain trees, numbers are
// sized from their digits by string handling, and the JSON is written by
// hand (with random escapes and spacing) so that the decoder is exercised
// too. Every figure the command prints must agree.

// rv is a value of the reference model: the DynamoDB type tag and its
// content (string, bool, []rv, []rmember, []string).
type rv struct {
	tag  string
	str  string    // S, N (text as written), B (raw bytes)
	b    bool      // BOOL
	list []rv      // L
	m    []rmember // M, in the order written
	set  []string  // SS, NS (texts), BS (raw bytes)
}

type rmember struct {
	name string
	val  rv
}

// refNumber splits a number's text into its significant digits, the
// position of the decimal point among them and the sign; ok is false for
// text DynamoDB refuses (over 38 significant digits, magnitude out of
// 1E-130 .. 9.99E+125).
func refNumber(text string) (digits string, point int, neg, ok bool) {
	s := text
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		fmt.Sscan(s[i+1:], &exp)
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits, point = whole+frac, len(whole)+exp
	for strings.HasPrefix(digits, "0") {
		digits, point = digits[1:], point-1
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "", 0, false, true // zero
	}
	// value = 0.digits × 10^point
	ok = len(digits) <= 38 && point >= -129 && point <= 126
	return digits, point, neg, ok
}

// refNumberSize is section 1.3's measured rule: 1 + ceil(intSig/2) +
// ceil(fracSig/2), + 1 if negative; zero is 1; at most 20 (21 negative).
func refNumberSize(text string) int {
	digits, point, neg, _ := refNumber(text)
	if digits == "" {
		return 1
	}
	intSig := min(max(point, 0), len(digits))
	fracSig := len(digits) - intSig
	n := min(1+(intSig+1)/2+(fracSig+1)/2, 20)
	if neg {
		n++
	}
	return n
}

// refSize is sections 1.2 to 1.5: UTF-8 bytes, raw bytes, 1 for BOOL and
// NULL, 3 + Σ(1 + element) for lists and maps (map keys counted), the sum
// of the members for sets.
func refSize(v rv) int {
	switch v.tag {
	case "S", "B":
		return len(v.str)
	case "N":
		return refNumberSize(v.str)
	case "BOOL", "NULL":
		return 1
	case "L":
		n := 3
		for _, e := range v.list {
			n += 1 + refSize(e)
		}
		return n
	case "M":
		n := 3
		for _, e := range v.m {
			n += 1 + len(e.name) + refSize(e.val)
		}
		return n
	case "NS":
		n := 0
		for _, x := range v.set {
			n += refNumberSize(x)
		}
		return n
	}
	n := 0 // SS, BS
	for _, x := range v.set {
		n += len(x)
	}
	return n
}

func refItemSize(item []rmember) int {
	n := 0
	for _, a := range item {
		n += len(a.name) + refSize(a.val)
	}
	return n
}

// refFigures is what `capacity item --format json` must print for size
// (section 2: 1 KB write units with a minimum of 1, 4 KB read units,
// eventual half, transactions double).
func refFigures(size int) map[string]float64 {
	wu := max(1, (size+1023)/1024)
	ru := max(1, (size+4095)/4096)
	return map[string]float64{
		"sizeBytes": float64(size), "writeUnits": float64(wu), "readUnitsStrong": float64(ru),
		"readUnitsEventual": float64(ru) / 2, "transactWriteUnits": float64(2 * wu), "transactReadUnits": float64(2 * ru),
	}
}

// gen makes random items; every choice is drawn from r so that a failing
// seed can be replayed.
type gen struct{ r *rand.Rand }

var runePools = [][]rune{
	[]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 #_-./:"),
	[]rune("\"\\\n\t\r\x01\x1f\u007f/<>&"),    // escaped or awkward in JSON
	[]rune("ãçéíóúñüßøåÆŒ©°±µ"),               // 2 bytes
	[]rune("€₹中文日本語한국어ไทย\u2028\u2029\ufeff"), // 3 bytes
	[]rune("😀🚀𝄞𐍈🀄🧾\U0010FFFF"),                // 4 bytes
}

func (g gen) text(maxLen int) string {
	n := g.r.IntN(maxLen + 1)
	var b strings.Builder
	for range n {
		pool := runePools[g.r.IntN(len(runePools))]
		b.WriteRune(pool[g.r.IntN(len(pool))])
	}
	return b.String()
}

func (g gen) name() string {
	for {
		if s := g.text(12); s != "" {
			return s
		}
	}
}

func (g gen) digits(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + g.r.IntN(10)))
	}
	return b.String()
}

// number writes a number in one of many shapes: signs, leading and
// trailing zeros, fractions, exponents in either case and sign. Some are
// out of DynamoDB's range on purpose; refNumber tells which.
func (g gen) number() string {
	var b strings.Builder
	if g.r.IntN(3) == 0 {
		b.WriteByte('-')
	}
	switch g.r.IntN(6) {
	case 0: // small integer
		b.WriteString(fmt.Sprint(g.r.IntN(1000)))
		return b.String()
	case 1: // the worked examples' neighbourhood
		ex := []string{"27", "461", "1.5", "100.5", "0.0000001", "1786461547", "1E125", "0", "110", "11000", "10010", "1001000", "9.9999999999999999999999999999999999999E+125", "1E-130"}
		b.WriteString(ex[g.r.IntN(len(ex))])
		return b.String()
	}
	b.WriteString(strings.Repeat("0", g.r.IntN(3)))
	b.WriteString(g.digits(1 + g.r.IntN(22)))
	if g.r.IntN(2) == 0 {
		b.WriteByte('.')
		b.WriteString(g.digits(1 + g.r.IntN(22)))
		b.WriteString(strings.Repeat("0", g.r.IntN(3)))
	}
	if g.r.IntN(3) == 0 {
		b.WriteString([]string{"e", "E", "e+", "E-", "e-"}[g.r.IntN(5)])
		b.WriteString(fmt.Sprint(g.r.IntN(140)))
	}
	return b.String()
}

func (g gen) value(depth int) rv {
	tags := []string{"S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS"}
	if depth < 4 {
		tags = append(tags, "L", "M", "L", "M")
	}
	switch tag := tags[g.r.IntN(len(tags))]; tag {
	case "S":
		return rv{tag: tag, str: g.text(40)}
	case "N":
		return rv{tag: tag, str: g.number()}
	case "B":
		raw := make([]byte, g.r.IntN(30))
		for i := range raw {
			raw[i] = byte(g.r.IntN(256))
		}
		return rv{tag: tag, str: string(raw)}
	case "BOOL":
		return rv{tag: tag, b: g.r.IntN(2) == 0}
	case "NULL":
		return rv{tag: tag}
	case "L":
		v := rv{tag: tag, list: []rv{}}
		for range g.r.IntN(5) {
			v.list = append(v.list, g.value(depth+1))
		}
		return v
	case "M":
		return rv{tag: tag, m: g.members(g.r.IntN(5), depth+1)}
	default: // sets: distinct members, at least one
		seen := map[string]bool{}
		v := rv{tag: tag}
		for range 1 + g.r.IntN(5) {
			var x, key string
			switch tag {
			case "SS":
				x = g.text(10)
				key = x
			case "NS":
				x = g.number()
				d, p, neg, _ := refNumber(x)
				key = fmt.Sprint(d, p, neg && d != "")
			case "BS":
				raw := make([]byte, g.r.IntN(8))
				for i := range raw {
					raw[i] = byte(g.r.IntN(256))
				}
				x = string(raw)
				key = x
			}
			if !seen[key] {
				seen[key] = true
				v.set = append(v.set, x)
			}
		}
		return v
	}
}

func (g gen) members(n, depth int) []rmember {
	seen := map[string]bool{}
	var out []rmember
	for range n {
		name := g.name()
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, rmember{name, g.value(depth)})
	}
	return out
}

// valid reports whether DynamoDB accepts the value: numbers in range and
// of at most 38 significant digits (sets were built without duplicates).
func refValid(v rv) bool {
	switch v.tag {
	case "N":
		_, _, _, ok := refNumber(v.str)
		return ok
	case "NS":
		for _, x := range v.set {
			if _, _, _, ok := refNumber(x); !ok {
				return false
			}
		}
	case "L":
		for _, e := range v.list {
			if !refValid(e) {
				return false
			}
		}
	case "M":
		for _, e := range v.m {
			if !refValid(e.val) {
				return false
			}
		}
	}
	return true
}

// writer writes DynamoDB JSON by hand: random blanks between tokens, and
// characters escaped at random (\uXXXX, surrogate pairs, short escapes).
type writer struct {
	g gen
	b bytes.Buffer
}

func (w *writer) space() {
	if w.g.r.IntN(4) == 0 {
		w.b.WriteString([]string{" ", "\n", "\t", "\r\n  ", "  "}[w.g.r.IntN(5)])
	}
}

func (w *writer) str(s string) {
	w.b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			w.b.WriteByte('\\')
			w.b.WriteRune(c)
		case c == '\n' && w.g.r.IntN(2) == 0:
			w.b.WriteString(`\n`)
		case c < 0x20 || w.g.r.IntN(6) == 0:
			if c > 0xffff {
				hi, lo := utf16.EncodeRune(c)
				fmt.Fprintf(&w.b, `\u%04x\u%04X`, hi, lo)
			} else {
				fmt.Fprintf(&w.b, `\u%04x`, c)
			}
		default:
			w.b.WriteRune(c)
		}
	}
	w.b.WriteByte('"')
}

func (w *writer) value(v rv) {
	w.b.WriteByte('{')
	w.space()
	w.str(v.tag)
	w.space()
	w.b.WriteByte(':')
	w.space()
	switch v.tag {
	case "S", "N":
		w.str(v.str)
	case "B":
		w.str(base64.StdEncoding.EncodeToString([]byte(v.str)))
	case "BOOL":
		fmt.Fprint(&w.b, v.b)
	case "NULL":
		w.b.WriteString("true")
	case "L":
		w.b.WriteByte('[')
		for i, e := range v.list {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.space()
			w.value(e)
		}
		w.b.WriteByte(']')
	case "M":
		w.members(v.m)
	default:
		w.b.WriteByte('[')
		for i, x := range v.set {
			if i > 0 {
				w.b.WriteByte(',')
				w.space()
			}
			if v.tag == "BS" {
				x = base64.StdEncoding.EncodeToString([]byte(x))
			}
			w.str(x)
		}
		w.b.WriteByte(']')
	}
	w.space()
	w.b.WriteByte('}')
}

func (w *writer) members(ms []rmember) {
	w.b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.space()
		w.str(m.name)
		w.b.WriteByte(':')
		w.space()
		w.value(m.val)
	}
	w.space()
	w.b.WriteByte('}')
}

// itemFigures runs `capacity item --format json -` through Main.
func itemFigures(t *testing.T, doc []byte) (map[string]float64, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main([]string{"capacity", "item", "--format", "json", "-"}, bytes.NewReader(doc), &out, &errb)
	if code != ExitOK {
		return nil, errb.String(), code
	}
	var got map[string]float64
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	require.Len(t, got, 6, out.String())
	return got, errb.String(), code
}

func TestCapacityItemAgreesWithReferenceSizer(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(2026, 11))}
	var sizes []int
	var stream bytes.Buffer
	valid, invalid := 0, 0
	for i := range 3000 {
		item := g.members(1+g.r.IntN(8), 0)
		if i%250 == 0 { // large items around the 400 KB limit
			fill := 409600 - refItemSize(item) - 5 + g.r.IntN(11)
			item = append(item, rmember{"big", rv{tag: "S", str: strings.Repeat("x", max(fill-3, 0))}})
		}
		w := &writer{g: g}
		w.members(item)
		ok := true
		for _, a := range item {
			ok = ok && refValid(a.val)
		}
		size := refItemSize(item)
		got, stderr, code := itemFigures(t, w.b.Bytes())
		if !ok || size > 409600 {
			invalid++
			assert.Equal(t, ExitBadInput, code, "item %d should be refused (size %d):\n%s", i, size, w.b.String())
			assert.NotContains(t, stderr, "panic")
			continue
		}
		valid++
		require.Equal(t, ExitOK, code, "item %d: %s\n%s", i, stderr, w.b.String())
		if !assert.Equal(t, refFigures(size), got, "item %d:\n%s", i, w.b.String()) {
			return
		}
		sizes = append(sizes, size)
		w2 := &writer{g: g}
		w2.members(item)
		stream.Write(bytes.ReplaceAll(bytes.ReplaceAll(w2.b.Bytes(), []byte("\r\n"), nil), []byte("\n"), nil))
		stream.WriteByte('\n')
	}
	t.Logf("%d items sized alike, %d refused alike", valid, invalid)
	require.Greater(t, valid, 2000)
	require.Greater(t, invalid, 100)

	// The same items as one --jsonl stream: count, total, nearest-rank
	// percentiles and units rounded per item.
	var out, errb bytes.Buffer
	code := Main([]string{"capacity", "item", "--jsonl", "--format", "json", "-"}, &stream, &out, &errb)
	require.Equal(t, ExitOK, code, errb.String())
	var st map[string]float64
	require.NoError(t, json.Unmarshal(out.Bytes(), &st))
	sort.Ints(sizes)
	rank := func(p int) float64 { return float64(sizes[(p*len(sizes)+99)/100-1]) }
	want := map[string]float64{"items": float64(len(sizes)), "badLines": 0, "p50": rank(50), "p90": rank(90), "p99": rank(99), "max": float64(sizes[len(sizes)-1])}
	var total, wu, ru float64
	for _, s := range sizes {
		f := refFigures(s)
		total += f["sizeBytes"]
		wu += f["writeUnits"]
		ru += f["readUnitsStrong"]
	}
	want["totalBytes"], want["writeUnits"], want["readUnitsStrong"] = total, wu, ru
	want["readUnitsEventual"], want["transactWriteUnits"], want["transactReadUnits"] = ru/2, 2*wu, 2*ru
	assert.Equal(t, want, st)
}

// TestCapacityItemWorkedExamples: the numbers of capacity-rules.md 1.3 and
// the item of section 10, through the command and through the reference.
func TestCapacityItemWorkedExamples(t *testing.T) {
	for _, c := range []struct {
		n    string
		size int
	}{
		{"27", 2}, {"-27", 3}, {"461", 3}, {"1.5", 3}, {"100.5", 4}, {"0.0000001", 2},
		{"1786461547", 6}, {"1E125", 2}, {"0", 1}, {"-0", 1}, {"0.000", 1},
		{"99999999999999999999999999999999999999", 20}, {"-99999999999999999999999999999999999999", 21},
		{"9.9999999999999999999999999999999999999E+125", 20}, {"1E-130", 2},
		{"110", 2}, {"11000", 2}, {"10010", 3}, {"1001000", 3},
	} {
		assert.Equal(t, c.size, refNumberSize(c.n), "reference sizer, %s", c.n)
		got, stderr, code := itemFigures(t, []byte(`{"n":{"N":"`+c.n+`"}}`))
		require.Equal(t, ExitOK, code, "%s: %s", c.n, stderr)
		assert.Equal(t, float64(1+c.size), got["sizeBytes"], "cardapio, %s", c.n)
	}
	for _, n := range []string{"1E-131", "1E126", "-1E126", "999999999999999999999999999999999999999", "1e", "--1", "1..2", "NaN", ""} {
		_, stderr, code := itemFigures(t, []byte(`{"n":{"N":"`+n+`"}}`))
		assert.Equal(t, ExitBadInput, code, "%q should be refused", n)
		assert.Contains(t, stderr, "stdin:1:", "%q: positioned", n)
	}

	// Section 10: pk 10 + sk 9 + age 5 + tags 7 + addr 22 + flags 12 = 65 B.
	item := []rmember{
		{"pk", rv{tag: "S", str: "USER#123"}},
		{"sk", rv{tag: "S", str: "PROFILE"}},
		{"age", rv{tag: "N", str: "42"}},
		{"tags", rv{tag: "SS", set: []string{"a", "bb"}}},
		{"addr", rv{tag: "M", m: []rmember{{"city", rv{tag: "S", str: "Oslo"}}, {"zip", rv{tag: "N", str: "15"}}}}},
		{"flags", rv{tag: "L", list: []rv{{tag: "BOOL", b: true}, {tag: "NULL"}}}},
	}
	require.Equal(t, 65, refItemSize(item))
	got, stderr, code := itemFigures(t, []byte(`{"pk":{"S":"USER#123"},"sk":{"S":"PROFILE"},"age":{"N":"42"},"tags":{"SS":["a","bb"]},`+
		`"addr":{"M":{"city":{"S":"Oslo"},"zip":{"N":"15"}}},"flags":{"L":[{"BOOL":true},{"NULL":true}]}}`))
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, refFigures(65), got)
	assert.Equal(t, 0.5, got["readUnitsEventual"])
}

// fromJSON reads a decoded DynamoDB JSON value into the reference model;
// encoding/json is a third, independent reader of the wire format.
func fromJSON(v any) (rv, bool) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return rv{}, false
	}
	for tag, x := range obj {
		out := rv{tag: tag}
		switch tag {
		case "S", "N":
			out.str, ok = x.(string)
		case "B":
			s, _ := x.(string)
			raw, err := base64.StdEncoding.DecodeString(s)
			out.str, ok = string(raw), err == nil
		case "BOOL":
			out.b, ok = x.(bool)
		case "NULL":
			ok = x == true
		case "L":
			l, isList := x.([]any)
			ok = isList
			for _, e := range l {
				ev, eok := fromJSON(e)
				ok = ok && eok
				out.list = append(out.list, ev)
			}
		case "M":
			m, isMap := x.(map[string]any)
			ok = isMap
			for k, e := range m {
				ev, eok := fromJSON(e)
				ok = ok && eok
				out.m = append(out.m, rmember{k, ev})
			}
		case "SS", "NS", "BS":
			l, isList := x.([]any)
			ok = isList
			for _, e := range l {
				s, isStr := e.(string)
				ok = ok && isStr
				if tag == "BS" {
					raw, err := base64.StdEncoding.DecodeString(s)
					s, ok = string(raw), ok && err == nil
				}
				out.set = append(out.set, s)
			}
		default:
			ok = false
		}
		return out, ok
	}
	return rv{}, false
}

// FuzzCapacityItem: any input through `capacity item --format json -`
// exits 0 or 2, prints results only on success and errors only on
// failure, and an accepted item has the size the reference sizer gives it
// when encoding/json reads it.
func FuzzCapacityItem(f *testing.F) {
	for _, s := range []string{
		`{"pk":{"S":"USER#123"},"sk":{"S":"PROFILE"},"age":{"N":"42"},"tags":{"SS":["a","bb"]},"addr":{"M":{"city":{"S":"Oslo"},"zip":{"N":"15"}}},"flags":{"L":[{"BOOL":true},{"NULL":true}]}}`,
		`{"n":{"N":"-0.000120E+3"},"b":{"B":"AAEC"},"bs":{"BS":["YQ==","Yg=="]},"ns":{"NS":["1","2.5"]}}`,
		`{"s":{"S":"\ud83d\ude00 \u00e9 \n"}}`, `{}`, `{"a":{"X":1}}`, `{"a":{"N":"1E126"}}`, ``, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var out, errb bytes.Buffer
		code := Main([]string{"capacity", "item", "--format", "json", "-"}, bytes.NewReader(doc), &out, &errb)
		if code != ExitOK {
			require.Equal(t, ExitBadInput, code, errb.String())
			require.Empty(t, out.String())
			require.True(t, strings.HasPrefix(errb.String(), "cardapio: stdin"), errb.String())
			return
		}
		require.Empty(t, errb.String())
		var got map[string]float64
		require.NoError(t, json.Unmarshal(out.Bytes(), &got))
		var top map[string]any
		require.NoError(t, json.Unmarshal(doc, &top), "accepted, but not JSON to encoding/json")
		size := 0
		for name, v := range top {
			val, ok := fromJSON(v)
			require.True(t, ok, "accepted, but not DynamoDB JSON to the reference: %s", doc)
			size += len(name) + refSize(val)
		}
		require.Equal(t, refFigures(size), got, "%s", doc)
	})
}
