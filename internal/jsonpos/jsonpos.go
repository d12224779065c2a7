// Package jsonpos positions the errors of encoding/json in the file they
// came from, as name:line:col, for the JSON files cardapio reads from its
// users (credentials, IAM policies, prices).
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Position is the 1-based line and column of byte offset off in data
// (columns count bytes).
func Position(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Wrap words a decoding error of the JSON in data, read from the file
// called name, as "name:line:col: message", without Go's type names;
// other errors get "name: " in front.
func Wrap(name string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "unexpected end") {
		err = io.ErrUnexpectedEOF
	} else if errors.As(err, &se) {
		l, c := Position(data, offending(data, se))
		return fmt.Errorf("%s:%d:%d: invalid JSON: %s", name, l, c, strings.TrimPrefix(se.Error(), "invalid character "))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		l, c := Position(data, valueStart(data, te.Offset))
		where := ""
		if te.Field != "" {
			where = te.Field + ": "
		}
		return fmt.Errorf("%s:%d:%d: %sgot a JSON %s, want %s", name, l, c, where, te.Value, Kind(te.Type.Kind().String()))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		l, c := Position(data, int64(len(data)))
		return fmt.Errorf("%s:%d:%d: invalid JSON: the document ends too early", name, l, c)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Kind names a Go kind as a JSON reader would think of it.
func Kind(goKind string) string {
	switch goKind {
	case "struct", "map", "interface":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	}
	return "another type"
}

// valueStart finds the start of the scalar JSON value that ends at off
// (encoding/json reports type errors after the value).
func valueStart(data []byte, off int64) int64 {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 && data[off-1] == '"' {
		for i := off - 2; i >= 0; i-- {
			if data[i] == '"' && (i == 0 || data[i-1] != '\\') {
				return i
			}
		}
		return off
	}
	for off > 0 && !bytes.ContainsRune([]byte(":,[{ \t\r\n"), rune(data[off-1])) {
		off--
	}
	return off
}

// offending finds the byte a syntax error is about: Unmarshal and Decode
// count it in Offset (the error comes after reading it).
func offending(data []byte, se *json.SyntaxError) int64 {
	off := se.Offset
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off--
	}
	return off
}

// WrapToken is Wrap for the errors of a Decoder's Token method, whose
// syntax errors report the offset before the offending byte.
func WrapToken(name string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset < int64(len(data)) {
		moved := *se
		moved.Offset++
		err = &moved
	}
	return Wrap(name, data, err)
}
