package attr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleItem = `{"PK":{"S":"T#t042"},"n":{"N":"12.5"},"b":{"B":"aGk="},"f":{"BOOL":true},"z":{"NULL":true},"m":{"M":{"a":{"S":"x"}}},"l":{"L":[{"N":"1"}]},"ss":{"SS":["a","b"]}}`

func TestDecodeItemAllTypes(t *testing.T) {
	it, err := DecodeItem([]byte(sampleItem))
	require.NoError(t, err)
	want := Item{
		{"PK", Str("T#t042")},
		{"b", Bin([]byte("hi"))},
		{"f", Bool(true)},
		{"l", ListOf(Num("1"))},
		{"m", MapOf(Item{{"a", Str("x")}})},
		{"n", Num("12.5")},
		{"ss", StrSet("a", "b")},
		{"z", Null()},
	}
	assert.Equal(t, want, it)

	v, err := DecodeValue([]byte(` { "NS" : [ "1" , "2.5", "-3E2" ] } `))
	require.NoError(t, err)
	assert.Equal(t, NumSet("1", "2.5", "-3E2"), v)
	v, err = DecodeValue([]byte(`{"BS":["AAE=","/w=="]}`))
	require.NoError(t, err)
	assert.Equal(t, BinSet("\x00\x01", "\xff"), v)
	v, err = DecodeValue([]byte(`{"BOOL":false}`))
	require.NoError(t, err)
	assert.Equal(t, Bool(false), v)
	v, err = DecodeValue([]byte(`{"M":{}}`))
	require.NoError(t, err)
	assert.Equal(t, MapOf(nil), v)
	v, err = DecodeValue([]byte(`{"L":[]}`))
	require.NoError(t, err)
	assert.Equal(t, ListOf(), v)
	v, err = DecodeValue([]byte(`{"B":""}`))
	require.NoError(t, err)
	assert.Equal(t, Bin(nil), v)
	it, err = DecodeItem([]byte("{}"))
	require.NoError(t, err)
	assert.Empty(t, it)
}

func TestDecodeStrings(t *testing.T) {
	cases := map[string]string{
		`"plain"`:                    "plain",
		`"a\"b\\c\/d"`:               `a"b\c/d`,
		`"\b\f\n\r\t"`:               "\b\f\n\r\t",
		`"\u0041\u00e9\u20AC"`:       "Aé€",
		`"\ud83d\ude00"`:             "😀",
		`"x\ud83d"`:                  "x\uFFFD",
		`"\ude00y"`:                  "\uFFFDy",
		`"\ud83d\u0041"`:             "\uFFFDA",
		`"héllo wörld 日本"`:           "héllo wörld 日本",
		`"mixed é\n"`:                "mixed é\n",
		`"\u0000"`:                   "\x00",
		`"` + "\u2028" + `"`:         "\u2028",
		`"` + "tab\u007f" + `"`:      "tab\x7f",
		`"esc \"quotes\" and é"`:     `esc "quotes" and é`,
		`"emoji 😀 raw"`:              "emoji 😀 raw",
		`"\uD83D\uDE00\uD83D\uDE01"`: "😀😁",
	}
	for in, want := range cases {
		v, err := DecodeValue([]byte(`{"S":` + in + `}`))
		if assert.NoError(t, err, in) {
			assert.Equal(t, Str(want), v, in)
		}
		// Attribute names go through the same scanner.
		it, err := DecodeItem([]byte(`{` + in + `:{"NULL":true}}`))
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, it[0].Name, in)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat(`{"L":[`, n) + `{"S":"x"}` + strings.Repeat(`]}`, n)
	}
	cases := []struct {
		in        string
		line, col int
		msg       string
	}{
		{``, 1, 1, "unexpected end of input"},
		{`   `, 1, 4, "unexpected end of input"},
		{`[]`, 1, 1, "expected an item object, found array"},
		{`{"a":{"SX":"x"}}`, 1, 7, `unknown type tag "SX"`},
		{`{"a":{"s":"x"}}`, 1, 7, `unknown type tag "s"`},
		{"{\n  \"a\": {\"N\": 5}\n}", 2, 14, "N wants a JSON string, found number"},
		{`{"a":{"S":["x"]}}`, 1, 11, "S wants a JSON string, found array"},
		{`{"a":{"M":[]}}`, 1, 11, "M wants a JSON object, found array"},
		{`{"a":{"L":{}}}`, 1, 11, "L wants a JSON array, found object"},
		{`{"a":{"SS":"x"}}`, 1, 12, "SS wants a JSON array, found string"},
		{`{"a":{"N":"abc"}}`, 1, 11, `invalid number "abc": A value provided cannot be converted into a number`},
		{`{"a":{"N":"1E200"}}`, 1, 11, "Number overflow"},
		{`{"a":{"N":"1E-200"}}`, 1, 11, "Number underflow"},
		{`{"a":{"N":"1234567890123456789012345678901234567890"}}`, 1, 11, "more than 38 significant digits"},
		{`{"a":{"NS":["1","x"]}}`, 1, 17, `invalid number "x"`},
		{`{"a":{"B":"@@@@"}}`, 1, 11, "invalid base64 in B value"},
		{`{"a":{"B":"aGk"}}`, 1, 11, "invalid base64 in B value"},
		{`{"a":{"BS":["aGk=","!"]}}`, 1, 20, "invalid base64 in BS value"},
		{`{"a":{"SS":[]}}`, 1, 12, "SS: an empty set is not allowed"},
		{`{"a":{"NS":[ ]}}`, 1, 12, "NS: an empty set is not allowed"},
		{`{"a":{"SS":["x","y","x"]}}`, 1, 21, `SS: input collection contains duplicates ("x")`},
		{`{"a":{"NS":["1","1.0"]}}`, 1, 17, `NS: input collection contains duplicates ("1.0")`},
		{`{"a":{"BS":["AA==","AA=="]}}`, 1, 20, `BS: input collection contains duplicates`},
		{`{"a":{"SS":[1]}}`, 1, 13, "SS members must be JSON strings, found number"},
		{`{"a":{"NULL":false}}`, 1, 14, "NULL must be true"},
		{`{"a":{"NULL":null}}`, 1, 14, "NULL wants true, found null"},
		{`{"a":{"BOOL":"true"}}`, 1, 14, "BOOL wants true or false, found string"},
		{`{"a":{"BOOL":tru}}`, 1, 14, "BOOL wants true or false, found boolean"},
		{`{"a":{}}`, 1, 6, "attribute value has no type tag"},
		{`{"a":{"S":"x","N":"1"}}`, 1, 15, "attribute value has more than one type tag"},
		{`{"a":"x"}`, 1, 6, "attribute value must be an object with one type tag, found string"},
		{`{"a":{"S":"x"},"a":{"S":"y"}}`, 1, 16, `duplicate attribute name "a"`},
		{`{"a":{"S":"x"}} x`, 1, 17, `unexpected character 'x' after the end of the value`},
		{`{"a":{"S":"x"}}{}`, 1, 16, `unexpected object after the end of the value`},
		{`{"a":{"S":"x"}`, 1, 15, "unexpected end of input"},
		{`{"a":{"S":"x`, 1, 13, "unexpected end of input"},
		{`{"a" {"S":"x"}}`, 1, 6, "expected ':' after attribute name, found object"},
		{`{"a":{"S":"x"};`, 1, 15, "expected ',' or '}' after attribute value, found character ';'"},
		{`{a:1}`, 1, 2, "expected an attribute name, found character 'a'"},
		{`{"a":{"S":"x"},}`, 1, 16, "expected an attribute name, found character '}'"},
		{`{"a":{"L":[{"S":"x"} {"S":"y"}]}}`, 1, 22, "expected ',' or ']' in list, found object"},
		{`{"a":{"SS":["x" "y"]}}`, 1, 17, "expected ',' or ']' in SS, found string"},
		{`{"a":{"S":"x"]}`, 1, 14, "expected '}' after S value, found character ']'"},
		{`{"a":{"S":"\x"}}`, 1, 12, `invalid escape "\\x" in string`},
		{`{"a":{"S":"\u12G4"}}`, 1, 12, `invalid \u escape in string`},
		{"{\"a\":{\"S\":\"tab\there\"}}", 1, 15, `control character '\t' in string must be escaped`},
		{"{\"a\":{\"S\":\"bad \xff utf8\"}}", 1, 16, "invalid UTF-8 in string"},
		{"{\"a\":{\"S\":\"ok\"}}\n\n  \xef", 3, 3, "unexpected character"},
		{`{"a":` + nest(MaxDepth+1) + `}`, 1, 6 + 6*MaxDepth + 5, "nesting exceeds 32 levels"},
		{`{"a":` + strings.Repeat(`{"M":{"b":`, 40) + `{"S":"x"}` + strings.Repeat(`}}`, 40) + `}`, 1, 6 + 10*MaxDepth + 5, "nesting exceeds 32 levels"},
	}
	for _, c := range cases {
		_, err := DecodeItem([]byte(c.in))
		var se *SyntaxError
		if !assert.ErrorAs(t, err, &se, "%s", c.in) {
			continue
		}
		assert.Contains(t, se.Msg, c.msg, c.in)
		assert.Equal(t, []int{c.line, c.col}, []int{se.Line, se.Column}, "%s: %v", c.in, err)
		assert.True(t, strings.HasPrefix(err.Error(), "line "), err.Error())
	}
	_, err := DecodeItem([]byte(`{"a":{"NS":["1","1E999"]}}`))
	assert.ErrorIs(t, err, ErrOverflow, "number errors are kept for errors.Is")
	_, err = DecodeItem([]byte(`{"a":{"N":"x"}}`))
	assert.ErrorIs(t, err, ErrNotNumber)
	_, err = DecodeItem([]byte(`{"a":` + nest(MaxDepth) + `}`))
	assert.NoError(t, err, "32 levels are allowed")
	// Depth is a limit, never a stack overflow.
	_, err = DecodeItem([]byte(`{"a":` + strings.Repeat(`{"L":[`, 100000)))
	assert.ErrorContains(t, err, "nesting exceeds")

	_, err = DecodeValue([]byte(`{"S":"x"} 1`))
	assert.ErrorContains(t, err, "line 1, column 11: unexpected number after the end of the value")
	_, err = DecodeValue([]byte(`"x"`))
	assert.ErrorContains(t, err, "line 1, column 1: attribute value must be an object")
}

func TestDecodeUnsortedAndLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 99; i >= 0; i-- {
		if i != 99 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":{"N":"1"}`)
	}
	b.WriteString("}")
	it, err := DecodeItem([]byte(b.String()))
	require.NoError(t, err)
	require.Len(t, it, 100)
	for i := 1; i < len(it); i++ {
		assert.Less(t, it[i-1].Name, it[i].Name)
	}
	// A duplicate in a large object is found too.
	_, err = DecodeItem([]byte(b.String()[:b.Len()-1] + `,"kaa":{"S":"x"}}`))
	assert.ErrorContains(t, err, `duplicate attribute name "kaa"`)

	members := make([]string, 40)
	for i := range members {
		members[i] = `"` + strconv.Itoa(7*i) + `"`
	}
	_, err = DecodeValue([]byte(`{"NS":[` + strings.Join(members, ",") + `]}`))
	require.NoError(t, err)
	_, err = DecodeValue([]byte(`{"NS":[` + strings.Join(members, ",") + `,"7.0"]}`))
	assert.ErrorContains(t, err, `NS: input collection contains duplicates ("7.0")`)
	_, err = DecodeValue([]byte(`{"SS":[` + strings.Join(members, ",") + `,"14"]}`))
	assert.ErrorContains(t, err, `SS: input collection contains duplicates ("14")`)
}

func TestEncode(t *testing.T) {
	it := Item{
		{"z", Null()},
		{"PK", Str("T#t042")},
		{"b", Bin([]byte("hi"))},
		{"bs", BinSet("\x00", "\xff")},
		{"f", Bool(false)},
		{"l", ListOf(Num("1"), Str("q\"\\\n\t\x01é"))},
		{"m", MapOf(Item{{"a", Str("x")}})},
		{"ns", NumSet("1", "2")},
	}
	got := string(AppendItemJSON(nil, it))
	want := `{"PK":{"S":"T#t042"},"b":{"B":"aGk="},"bs":{"BS":["AA==","/w=="]},"f":{"BOOL":false},` +
		`"l":{"L":[{"N":"1"},{"S":"q\"\\\n\t\u0001é"}]},"m":{"M":{"a":{"S":"x"}}},"ns":{"NS":["1","2"]},"z":{"NULL":true}}`
	assert.Equal(t, want, got)
	assert.True(t, json.Valid([]byte(got)))
	assert.Equal(t, `{"S":"bad\ufffd"}`, string(AppendValueJSON(nil, Str("bad\xff"))))
	assert.Equal(t, `null`, string(AppendValueJSON(nil, Value{})))
	assert.Equal(t, `{}`, string(AppendItemJSON(nil, nil)))

	back, err := DecodeItem([]byte(got))
	require.NoError(t, err)
	assert.True(t, EqualItems(Sorted(it), back))
	assert.Equal(t, Sorted(it), back)
}

func TestJSONInterfaces(t *testing.T) {
	type request struct {
		Table string
		Item  Item
		Key   Item  `json:",omitempty"`
		Val   Value `json:"V"`
		Opt   *Value
	}
	in := request{Table: "t", Item: Item{{"PK", Str("a")}, {"n", Num("1")}}, Val: NumSet("7")}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Table":"t","Item":{"PK":{"S":"a"},"n":{"N":"1"}},"V":{"NS":["7"]},"Opt":null}`, string(data))
	var out request
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)

	err = json.Unmarshal([]byte(`{"Item":{"PK":{"SX":"a"}}}`), &out)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, `unknown type tag "SX"`, se.Msg)
	err = json.Unmarshal([]byte(`{"V":{"N":"x"}}`), &out)
	assert.ErrorContains(t, err, "invalid number")
}

func TestDecoderStream(t *testing.T) {
	input := sampleItem + "\n\n" + `{"PK":{"S":"2"}}` + "\r\n" + "{\n \"PK\": {\"S\": \"3\"}\n}\n   " + `{"PK":{"S":"4"}} {"PK":{"S":"5"}}` + "\n"
	readers := map[string]func() *Decoder{
		"bytes":   func() *Decoder { return NewBytesDecoder([]byte(input)) },
		"reader":  func() *Decoder { return NewDecoder(strings.NewReader(input)) },
		"onebyte": func() *Decoder { return NewDecoder(iotest.OneByteReader(strings.NewReader(input))) },
	}
	for name, mk := range readers {
		d := mk()
		var pks []string
		var lines []int
		for {
			it, err := d.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, name)
			pk, _ := it.Get("PK")
			pks = append(pks, pk.Str)
			lines = append(lines, d.Line())
		}
		assert.Equal(t, []string{"T#t042", "2", "3", "4", "5"}, pks, name)
		assert.Equal(t, []int{1, 3, 4, 7, 7}, lines, name)
		_, err := d.Next()
		assert.Equal(t, io.EOF, err)
	}

	bad := `{"PK":{"S":"1"}}` + "\n" + `{"PK":{"S":"2"}}` + "\n" + `{"PK":{"SX":"3"}}` + "\n"
	for _, d := range []*Decoder{NewBytesDecoder([]byte(bad)), NewDecoder(iotest.OneByteReader(strings.NewReader(bad)))} {
		for range 2 {
			_, err := d.Next()
			require.NoError(t, err)
		}
		_, err := d.Next()
		var se *SyntaxError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, 3, se.Line)
		assert.Equal(t, 8, se.Column)
		assert.Equal(t, int64(2*17+7), se.Offset)
		_, again := d.Next()
		assert.Equal(t, err, again, "errors are sticky")
	}

	// A truncated stream reports where it ends.
	d := NewDecoder(strings.NewReader(`{"PK":{"S":"1"}}` + "\n" + `{"PK":`))
	_, err := d.Next()
	require.NoError(t, err)
	_, err = d.Next()
	assert.EqualError(t, err, "line 2, column 7: unexpected end of input")

	// Read errors are reported as such.
	boom := errors.New("boom")
	d = NewDecoder(io.MultiReader(strings.NewReader(`{"PK":`), iotest.ErrReader(boom)))
	_, err = d.Next()
	assert.ErrorIs(t, err, boom)

	// Items larger than the initial buffer.
	big := `{"PK":{"S":"` + strings.Repeat("x", 200<<10) + `"}}`
	d = NewDecoder(strings.NewReader(big + "\n" + big))
	for range 2 {
		it, err := d.Next()
		require.NoError(t, err)
		assert.Len(t, it[0].Value.Str, 200<<10)
	}
}

func TestDecoderLimit(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"a":{"S":"x"}}` + "\n" + `{"a":{"S":"` + strings.Repeat("y", 300<<10)))
	d.limit = 256 << 10
	_, err := d.Next()
	require.NoError(t, err)
	_, err = d.Next()
	assert.EqualError(t, err, "line 2, column 1: item text exceeds 262144 bytes")
}

func TestDecoderDoesNotWaitForMoreThanALine(t *testing.T) {
	r, w := io.Pipe()
	d := NewDecoder(r)
	go func() {
		_, _ = w.Write([]byte(`{"a":{"S":"1"}}` + "\n"))
	}()
	it, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, "1", it[0].Value.Str)
	go func() {
		_, _ = w.Write([]byte(`{"a":{"S"`))
		_, _ = w.Write([]byte(`:"2"}}` + "\n"))
	}()
	it, err = d.Next()
	require.NoError(t, err)
	assert.Equal(t, "2", it[0].Value.Str)
	require.NoError(t, w.Close())
	_, err = d.Next()
	assert.Equal(t, io.EOF, err)
}

func TestDecoderItemsAreIndependent(t *testing.T) {
	d := NewBytesDecoder([]byte(`{"a":{"L":[{"S":"x"},{"M":{"k":{"S":"1"}}}]}} {"a":{"L":[{"S":"y"},{"M":{"k":{"S":"2"}}}]}}`))
	first, err := d.Next()
	require.NoError(t, err)
	second, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, `{"a":{"L":[{"S":"x"},{"M":{"k":{"S":"1"}}}]}}`, string(AppendItemJSON(nil, first)))
	assert.Equal(t, `{"a":{"L":[{"S":"y"},{"M":{"k":{"S":"2"}}}]}}`, string(AppendItemJSON(nil, second)))
}

func FuzzDecodeItem(f *testing.F) {
	seeds := []string{
		sampleItem,
		`{}`,
		`{"a":{"NS":["1","2.50","-3E-5"]},"b":{"BS":["AAE=","/w=="]}}`,
		`{"a":{"M":{"b":{"L":[{"NULL":true},{"BOOL":false},{"SS":["\u00e9","\ud83d\ude00"]}]}}}}`,
		`{"a":{"S":"x"},"a":{"S":"y"}}`,
		`{"a":{"SS":[]}}`,
		`{"a":{"N":5}}`,
		"{\"a\":\n{\"S\":\"x\"}}",
		`{"a":{"S":"\ud800"}}`,
		`{"a":{"SX":"x"}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := DecodeItem(data)
		if err != nil {
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.GreaterOrEqual(t, se.Line, 1)
			assert.GreaterOrEqual(t, se.Column, 1)
			assert.LessOrEqual(t, se.Offset, int64(len(data)))
			return
		}
		enc := AppendItemJSON(nil, it)
		require.True(t, json.Valid(enc), "%s", enc)
		back, err := DecodeItem(enc)
		require.NoError(t, err, "%s", enc)
		assert.Equal(t, it, back)
		assert.True(t, EqualItems(it, back))
		assert.Equal(t, enc, AppendItemJSON(nil, back))
		// The stream decoder agrees with DecodeItem.
		d := NewDecoder(iotest.HalfReader(bytes.NewReader(data)))
		streamed, err := d.Next()
		require.NoError(t, err)
		assert.Equal(t, it, streamed)
		// So does NextInto over a used buffer.
		dirty := Item{{"stale", Str("x")}, {"old", Null()}, {"z", Bool(true)}}
		reused, err := NewBytesDecoder(data).NextInto(dirty)
		require.NoError(t, err)
		if len(it) == 0 {
			assert.Empty(t, reused)
		} else {
			assert.Equal(t, it, reused)
		}
	})
}

// item300 is a typical ~300-byte item of a single-table design.
const item300 = `{"PK":{"S":"TENANT#t042"},"SK":{"S":"ORDER#2026-11-30T08:15:00Z#000123"},"GSI1PK":{"S":"CUSTOMER#c-98765"},` +
	`"GSI1SK":{"S":"2026-11-30T08:15:00Z"},"status":{"S":"SHIPPED"},"total":{"N":"1234.56"},"items":{"N":"3"},` +
	`"paid":{"BOOL":true},"tags":{"SS":["gift","priority"]},"addr":{"M":{"city":{"S":"Oslo"},"zip":{"N":"150"}}},"ttl":{"N":"1798675200"}}`

func BenchmarkDecodeItem300B(b *testing.B) {
	data := []byte(item300)
	b.Run("DecodeItem", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeItem(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	const n = 1024
	stream := bytes.Repeat(append(data, '\n'), n)
	b.Run("Decoder", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var d *Decoder
		for i := 0; b.Loop(); i++ {
			if i%n == 0 {
				d = NewDecoder(bytes.NewReader(stream))
			}
			if _, err := d.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecoderNextInto", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var d *Decoder
		var it Item
		for i := 0; b.Loop(); i++ {
			if i%n == 0 {
				d = NewDecoder(bytes.NewReader(stream))
			}
			var err error
			if it, err = d.NextInto(it); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestDecoderNextInto(t *testing.T) {
	d := NewBytesDecoder([]byte(`{"b":{"S":"1"},"a":{"N":"1"}} {"c":{"S":"2"}} {} {"x":{"S":"3"},"y":{"S":"4"},"z":{"S":"5"}}`))
	buf := make(Item, 0, 2)
	it, err := d.NextInto(buf)
	require.NoError(t, err)
	assert.Equal(t, Item{{"a", Num("1")}, {"b", Str("1")}}, it)
	assert.Same(t, &buf[:1][0], &it[0], "the buffer is reused")
	it, err = d.NextInto(it)
	require.NoError(t, err)
	assert.Equal(t, Item{{"c", Str("2")}}, it)
	it, err = d.NextInto(it)
	require.NoError(t, err)
	assert.Empty(t, it)
	assert.Equal(t, 2, cap(it))
	it, err = d.NextInto(it)
	require.NoError(t, err)
	assert.Len(t, it, 3, "a buffer too small is replaced")
	_, err = d.NextInto(it)
	assert.Equal(t, io.EOF, err)
}

func BenchmarkAppendItemJSON300B(b *testing.B) {
	it, err := DecodeItem([]byte(item300))
	require.NoError(b, err)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
}

// valueFrom builds a value tree from fuzz bytes, so that the encoder is
// exercised on values no JSON text produced.
func valueFrom(data []byte, depth int) (Value, []byte) {
	if len(data) == 0 {
		return Null(), nil
	}
	kind, data := data[0], data[1:]
	take := func() string {
		if len(data) == 0 {
			return ""
		}
		n := min(int(data[0]%16), len(data)-1)
		s := string(data[1 : 1+n])
		data = data[1+n:]
		return s
	}
	valid := func(s string) string { return strings.ToValidUTF8(s, "?") }
	switch t := kind % 10; {
	case t == 0:
		return Str(valid(take())), data
	case t == 1:
		return Num(strconv.Itoa(int(kind)) + "." + strconv.Itoa(len(data))), data
	case t == 2:
		return Bin([]byte(take())), data
	case t == 3:
		return Bool(kind&0x80 != 0), data
	case t == 4:
		return Null(), data
	case t == 5 && depth < 5:
		var fields []Field
		for range int(kind>>4) % 4 {
			var v Value
			name := valid(take())
			v, data = valueFrom(data, depth+1)
			fields = append(fields, Field{name, v})
		}
		return MapOf(Sorted(fields)), data
	case t == 6 && depth < 5:
		var list []Value
		for range int(kind>>4) % 4 {
			var v Value
			v, data = valueFrom(data, depth+1)
			list = append(list, v)
		}
		return ListOf(list...), data
	case t == 7 || t == 9:
		seen := map[string]bool{}
		var set []string
		for range 1 + int(kind>>4)%4 {
			s := take()
			if t == 7 {
				s = valid(s)
			}
			if !seen[s] {
				seen[s] = true
				set = append(set, s)
			}
		}
		if t == 7 {
			return StrSet(set...), data
		}
		return BinSet(set...), data
	}
	return NumSet("1", "-2.5E3", strconv.Itoa(len(data)+10)), data
}

func FuzzValueRoundTrip(f *testing.F) {
	f.Add([]byte{5 | 3<<4, 2, 'a', 'b', 0, 3, 'x', '"', '\n', 6 | 2<<4, 2, 1, 0xff, 9, 0})
	f.Add([]byte{7 | 2<<4, 1, 'a', 1, 'b', 2, 0xc3, 0xa9})
	f.Add([]byte{8})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _ := valueFrom(data, 0)
		enc := AppendValueJSON(nil, v)
		require.True(t, json.Valid(enc), "%s", enc)
		back, err := DecodeValue(enc)
		require.NoError(t, err, "%s", enc)
		assert.True(t, Equal(v, back), "%s", enc)
		assert.Equal(t, enc, AppendValueJSON(nil, back))
		sdk, err := FromSDK(ToSDK(v))
		require.NoError(t, err)
		assert.True(t, Equal(v, sdk))
	})
}
