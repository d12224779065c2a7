package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/jsonpos"
)

// jnode is a JSON value with the offset it starts at, so that errors
// about a document read from a user point at the line to fix.
type jnode struct {
	kind   byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	off    int64
	fields []jfield // objects, in document order
	elems  []*jnode // arrays
	str    string   // strings, number texts
	b      bool
}

type jfield struct {
	key string
	val *jnode
}

// Limits of a document read from outside.
const (
	maxJSONDepth = 64
	maxJSONNodes = 2_000_000
)

// parseTree reads data as one JSON document into a positioned tree.
func parseTree(name string, data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	nodes := 0
	var value func(depth int) (*jnode, error)
	start := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(data)) {
			switch data[off] {
			case ' ', '\t', '\r', '\n', ':', ',':
				off++
				continue
			}
			break
		}
		return off
	}
	value = func(depth int) (*jnode, error) {
		if depth > maxJSONDepth {
			return nil, fmt.Errorf("nesting deeper than %d levels", maxJSONDepth)
		}
		nodes++
		if nodes > maxJSONNodes {
			return nil, fmt.Errorf("more than %d values", maxJSONNodes)
		}
		off := start()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n := &jnode{off: off}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				n.kind = 'o'
				seen := map[string]bool{}
				for dec.More() {
					koff := start()
					kt, err := dec.Token()
					if err != nil {
						return nil, err
					}
					key, _ := kt.(string)
					if seen[key] {
						return nil, posErr(name, data, koff, "duplicate key %q", key)
					}
					seen[key] = true
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					n.fields = append(n.fields, jfield{key, v})
				}
			case '[':
				n.kind = 'a'
				for dec.More() {
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					n.elems = append(n.elems, v)
				}
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return nil, err
			}
		case string:
			n.kind, n.str = 's', t
		case json.Number:
			n.kind, n.str = 'n', string(t)
		case bool:
			n.kind, n.b = 'b', t
		case nil:
			n.kind = 'z'
		}
		return n, nil
	}
	root, err := value(0)
	if err != nil {
		var pe *catalog.Error
		if errors.As(err, &pe) {
			return nil, catalog.ErrorList{pe}
		}
		if errors.Is(err, io.EOF) {
			return nil, catalog.ErrorList{{Pos: pos(name, data, 0), Msg: "the file is empty: want a NoSQL Workbench model (a JSON object)"}}
		}
		if w := jsonpos.WrapToken(name, data, err); w != nil {
			return nil, &plainError{w.Error()}
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, catalog.ErrorList{{Pos: pos(name, data, dec.InputOffset()), Msg: "text after the JSON document"}}
	}
	return root, nil
}

// plainError is an error already worded with its position.
type plainError struct{ msg string }

func (e *plainError) Error() string { return e.msg }

func pos(name string, data []byte, off int64) catalog.Pos {
	l, c := jsonpos.Position(data, off)
	return catalog.Pos{File: name, Line: l, Col: c}
}

func posErr(name string, data []byte, off int64, format string, args ...any) *catalog.Error {
	return &catalog.Error{Pos: pos(name, data, off), Msg: fmt.Sprintf(format, args...)}
}

// get returns the field of an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for _, f := range n.fields {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

func kindName(k byte) string {
	switch k {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "true or false"
	}
	return "null"
}
