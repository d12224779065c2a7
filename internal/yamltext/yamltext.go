// Package yamltext holds what the model's parser and its format migration
// both do to YAML text: a line break YAML sees is one the lines see too,
// and every document of a stream is decoded.
package yamltext

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// LFBreaks returns data with every lone CR turned into LF.
func LFBreaks(data []byte) []byte {
	out := bytes.Clone(data)
	for i, c := range out {
		if c == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// DecodeAll parses every document of data and returns the first error.
func DecodeAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
