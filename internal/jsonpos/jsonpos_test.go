package jsonpos

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWrapPositions checks each kind of error is placed at the byte a
// reader would point at: the offending character of a syntax error, the
// start of a mistyped value, the end for a truncated document.
func TestWrapPositions(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	for _, c := range []struct{ in, want string }{
		{`{"a": x}`, "f.json:1:7: invalid JSON: 'x' looking for beginning of value"},
		{"{\n  \"a\" 1}", "f.json:2:7: invalid JSON: '1' after object key"},
		{`{"a":1,}`, "f.json:1:8: invalid JSON: '}' looking for beginning of object key string"},
		{`{"a": "one"}`, "f.json:1:7: a: got a JSON string, want a number"},
		{"{\"a\":\n  true}", "f.json:2:3: a: got a JSON bool, want a number"},
		{`{"a": 1`, "f.json:1:8: invalid JSON: the document ends too early"},
	} {
		var d doc
		err := json.Unmarshal([]byte(c.in), &d)
		if err == nil {
			t.Fatalf("%q: no error", c.in)
		}
		got := Wrap("f.json", []byte(c.in), err).Error()
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestPositionClamps(t *testing.T) {
	data := []byte("ab\ncd")
	for _, c := range []struct {
		off       int64
		line, col int
	}{{-3, 1, 1}, {0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {99, 2, 3}} {
		l, col := Position(data, c.off)
		if l != c.line || col != c.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
	if !strings.Contains(Wrap("x", nil, json.Unmarshal(nil, new(any))).Error(), "x:") {
		t.Error("empty input not named")
	}
}

// TestWrapTokenOffsets checks the errors of a Decoder's Token API, whose
// offsets point before the offending byte, land on the same byte.
func TestWrapTokenOffsets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n  \"a\": \n}", "f.json:3:1:"},
		{`{"a"::1}`, "f.json:1:6:"},
	} {
		dec := json.NewDecoder(strings.NewReader(c.in))
		var err error
		for err == nil {
			_, err = dec.Token()
		}
		got := WrapToken("f.json", []byte(c.in), err).Error()
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: got %s, want prefix %s", c.in, got, c.want)
		}
	}
}
