package reports

import (
	"encoding/json"
	"io"
)

// JSON writes v as an indented JSON document followed by a newline. HTML
// escaping is off: messages quote "<<" and "->", and this is not HTML.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
