package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// directiveRe finds the comments the go command or the compiler obey:
// //go:generate runs a command, //go:linkname, //line, //export and cgo's
// lines change what is compiled. The generator writes none.
var directiveRe = regexp.MustCompile(`(?m)^[ \t]*//(go:|line |export |extern )|/\*line |#cgo`)

// inert checks a generated Go file for what model text would do had it
// escaped the literals and comments it is written into: the file holds
// no directive, no init function, and only printable characters, tabs
// and newlines. The generator writes model text only as quoted literals
// and sanitised comments, so a failure here is a bug in it; the check
// keeps such a bug from reaching a package that someone then builds.
func inert(name string, src []byte) error {
	if !utf8.Valid(src) {
		return fmt.Errorf("%s is not UTF-8", name)
	}
	for i, r := range string(src) {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return fmt.Errorf("%s holds %U at byte %d", name, r, i)
		}
	}
	if loc := directiveRe.FindIndex(src); loc != nil {
		return fmt.Errorf("%s holds a directive at byte %d", name, loc[0])
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
			return fmt.Errorf("%s declares an init function", name)
		}
	}
	return nil
}
