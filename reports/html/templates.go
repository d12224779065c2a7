package html

import (
	"embed"
	"html/template"
	"strconv"
)

// The page is written by html/template from the files under templates/:
// every name, question and description a model gives is escaped in the
// context it lands in (text, an attribute, an SVG title), so no
// renderer escapes by hand. The templates receive views laid out by the
// functions of this package and only format figures.

//go:embed templates/*.html
var files embed.FS

// funcs format figures: f0, f1 and f2 write a number with that many
// decimals, num with prec decimals (one when prec is 0).
var funcs = template.FuncMap{
	"f0":  func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
	"f1":  func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"num": func(prec int, v float64) string { return strconv.FormatFloat(v, 'f', max(prec, 1), 64) },
}

var pages = template.Must(template.New("report").Funcs(funcs).ParseFS(files, "templates/*.html"))
