package iam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cardapio/cardapio/internal/jsonpos"
)

// node is a JSON value with the offset it starts at, so that errors about
// a policy's elements can say where they are.
type node struct {
	off  int64
	kind byte // '{', '[', 's' string, 'n' number, 'b' bool, '0' null
	str  string
	obj  []member
	arr  []*node
}

type member struct {
	key string
	off int64
	val *node
}

// errSyntax marks a document that is not JSON.
var errSyntax = errors.New("invalid JSON")

// parseTree reads one JSON document into nodes.
func parseTree(name string, data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, treeError(name, data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		l, c := jsonpos.Position(data, dec.InputOffset())
		return nil, fmt.Errorf("%s:%d:%d: %w: more than one JSON document", name, l, c, errSyntax)
	}
	return n, nil
}

func treeError(name string, data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		off := dec.InputOffset()
		if se != nil {
			off = se.Offset
		}
		l, c := jsonpos.Position(data, off)
		msg := "the document ends too early"
		if se != nil {
			msg = se.Error()
		}
		return fmt.Errorf("%s:%d:%d: %w: %s", name, l, c, errSyntax, msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func readNode(dec *json.Decoder) (*node, error) {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	// InputOffset before Token points before any whitespace; the value's
	// own first byte is found after it.
	n := &node{off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = '{'
			for dec.More() {
				koff := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.obj = append(n.obj, member{key: k, off: koff, val: v})
			}
		case '[':
			n.kind = '['
			for dec.More() {
				v, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.str = 'n', t.String()
	case bool:
		n.kind, n.str = 'b', fmt.Sprint(t)
	case nil:
		n.kind = '0'
	}
	return n, nil
}

// what names a node's kind for error messages.
func (n *node) what() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}
