package generator_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// hostile is text an attacker who edits a model puts in every string of
// it: line ends of every kind, a //go:generate directive and an init
// function that would run if they reached the code, the characters that
// end a raw string, a string or a block comment, bidi controls that
// reorder what a reviewer sees, a NUL and a byte order mark.
const hostile = "x\n//go:generate sh -c \"echo pwned >pwned\"\nfunc init() { panic(`injected`) }\r\n" +
	"/* */ \" ` \\ \u2028//go:generate touch u2028\u2029 \u0085 \u202efdp\u202c \u2066 \u200f \x00 \ufeff \x1b[31m */ var _ = 1 //"

// injection is hostile text that is valid Go once out of its comment or
// literal: the package would compile and run it.
const injection = "\nfunc init() { panic(`injected`) }\n//go:generate sh -c \"echo pwned >pwned\"\nvar _, _ = fmt.Println(`x`) //"

// hostileModels are the models every string of which is made hostile in
// turn; -hostile-examples adds the two examples (minutes: a check of the
// model per string).
var hostileModels = []string{"testdata/hostile-text.yaml", "testdata/hostile-names.yaml", "testdata/colliding-names.yaml", "testdata/keys-only.yaml"}

var hostileExamples = flag.Bool("hostile-examples", false, "make each string of model.yaml and examples/orders/model.yaml hostile in turn too")

// scalars lists the scalar nodes of a YAML tree: every value, and every
// mapping key (a name).
func scalars(n *yaml.Node, out []*yaml.Node) []*yaml.Node {
	if n.Kind == yaml.ScalarNode {
		return append(out, n)
	}
	for _, c := range n.Content {
		out = scalars(c, out)
	}
	return out
}

// skeleton is the code of a generated package with every literal and
// identifier blanked and comments dropped: the tokens model text could
// add if it escaped a literal or a comment.
func skeleton(t *testing.T, files generator.Files) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, name := range files.Names() {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		src := files[name]
		s.Init(fset.AddFile(name, -1, len(src)), src, func(pos token.Position, msg string) {
			t.Errorf("%s: %s", pos, msg)
		}, 0)
		var toks []string
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch {
			case tok == token.IDENT, tok.IsLiteral():
				toks = append(toks, tok.String())
			case tok == token.SEMICOLON:
				toks = append(toks, ";")
			default:
				toks = append(toks, tok.String()+lit)
			}
		}
		out[name] = toks
	}
	return out
}

var directive = regexp.MustCompile(`(?m)^\s*//(go:|line |export |extern )|/\*line |#cgo`)

// assertInert checks the Go files of a package for what model text could
// do if it reached them as code: every file parses, declares no init
// function, carries no directive, and holds only printable characters,
// tabs and newlines (model text reaches literals escaped, comments
// sanitised).
func assertInert(t *testing.T, what string, files generator.Files) {
	t.Helper()
	for _, name := range files.Names() {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		src := files[name]
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", what, name, err)
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: %s declares an init function", what, name)
			}
		}
		if m := directive.Find(src); m != nil {
			t.Errorf("%s: %s holds a directive %q", what, name, m)
		}
		if !utf8.Valid(src) {
			t.Errorf("%s: %s is not UTF-8", what, name)
		}
		for i, r := range string(src) {
			if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
				t.Errorf("%s: %s holds %U at byte %d", what, name, r, i)
				break
			}
		}
	}
}

// TestHostileText makes each string of the models hostile in turn (each
// value, each name, each sample, each expression): check refuses the
// model, or generate accepts it and its package has the same code as
// the clean model's, with no directive, no init function and no
// unprintable character anywhere.
func TestHostileText(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a package per string of the models")
	}
	models := hostileModels
	if *hostileExamples {
		models = append(models, "../examples/orders/model.yaml", "../model.yaml")
	}
	for _, path := range models {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var root yaml.Node
		require.NoError(t, yaml.Unmarshal(data, &root))
		clean, err := catalog.Parse(filepath.Base(path), data)
		require.NoError(t, err)
		files, err := generator.Generate(clean, generator.Options{Package: "p"})
		require.NoError(t, err)
		want := skeleton(t, files)
		nodes := scalars(&root, nil)
		var accepted, refused int
		for i, n := range nodes {
			if i == 0 && n.Value == "formatVersion" {
				continue
			}
			old, oldStyle := n.Value, n.Style
			oldTag := n.Tag
			n.Value, n.Style, n.Tag = old+hostile, yaml.DoubleQuotedStyle, "!!str"
			src, err := yaml.Marshal(&root)
			n.Value, n.Style, n.Tag = old, oldStyle, oldTag
			require.NoError(t, err)
			what := fmt.Sprintf("%s:%d (%q)", path, n.Line, old)
			m, err := catalog.Parse(filepath.Base(path), src)
			if err != nil {
				refused++
				continue
			}
			accepted++
			got, err := generator.Generate(m, generator.Options{Package: "p"})
			if err != nil {
				t.Errorf("%s: check accepts it, generate refuses it: %v", what, err)
				continue
			}
			assertInert(t, what, got)
			sk := skeleton(t, got)
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for k := range want {
					if !yield(k) {
						return
					}
				}
			}) {
				if !slices.Equal(sk[name], want[name]) {
					t.Errorf("%s: %s has other code than the clean model's: %s", what, name, firstDiff(sk[name], want[name]))
				}
			}
		}
		t.Logf("%s: %d strings made hostile, %d refused by check, %d generated inert", path, len(nodes), refused, accepted)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			lo := max(0, i-8)
			return fmt.Sprintf("token %d: %v against %v", i, a[lo:min(len(a), i+8)], b[lo:min(len(b), i+8)])
		}
	}
	return fmt.Sprintf("%d tokens against %d", len(a), len(b))
}

// hostileModel returns the model at path with as many of its strings
// made hostile as check accepts, each added in turn and kept when the
// model still loads.
func hostileModel(t *testing.T, path, hostile string) (*catalog.Model, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &root))
	kept := 0
	for _, n := range scalars(&root, nil) {
		old, oldStyle, oldTag := n.Value, n.Style, n.Tag
		n.Value, n.Style, n.Tag = old+hostile, yaml.DoubleQuotedStyle, "!!str"
		src, err := yaml.Marshal(&root)
		require.NoError(t, err)
		if _, err := catalog.Parse(filepath.Base(path), src); err != nil {
			n.Value, n.Style, n.Tag = old, oldStyle, oldTag
			continue
		}
		kept++
	}
	src, err := yaml.Marshal(&root)
	require.NoError(t, err)
	m, err := catalog.Parse(filepath.Base(path), src)
	require.NoError(t, err)
	return m, kept
}

// TestHostilePackagesBuild generates the packages of models holding
// hostile text in every string check lets through, at once: they compile
// and vet, and go generate finds nothing to run in them.
func TestHostilePackagesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages")
	}
	pkgs := map[string]generator.Files{}
	for i, path := range []string{"testdata/hostile-text.yaml", "testdata/hostile-names.yaml"} {
		for j, hostile := range []string{hostile, injection} {
			m, kept := hostileModel(t, path, hostile)
			require.Positive(t, kept, path)
			t.Logf("%s: %d strings hostile at once", path, kept)
			for _, keys := range []catalog.KeyMode{catalog.KeysNative, catalog.KeysSynthetic} {
				pkg := fmt.Sprintf("hostile%d%d%s", i, j, keys)
				// The file name is the model's too.
				files, err := generator.Generate(m, generator.Options{Package: pkg, Keys: keys, Source: "model" + hostile + ".yaml"})
				require.NoError(t, err, "%s (%s keys)", path, keys)
				assertInert(t, pkg, files)
				pkgs[pkg] = files
			}
		}
	}
	dir := vetOutside(t, pkgs)
	for _, args := range [][]string{{"generate", "-n", "./..."}, {"generate", "./..."}} {
		require.Empty(t, runGo(t, dir, args...), "go %v runs commands", args)
	}
	for _, f := range []string{"pwned", "u2028"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "*", f))
		require.Empty(t, matches, "go generate wrote %s", f)
	}
}

// declCounts counts the top-level declarations of each Go file: what
// model text would add if it escaped into code.
func declCounts(t *testing.T, files generator.Files) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, name := range files.Names() {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s does not parse: %v", name, err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				out[name]++
			case *ast.GenDecl:
				out[name] += len(d.Specs)
			}
		}
	}
	return out
}

// FuzzGenerateText appends fuzzed text to two strings of a model (any
// value or name, by index): check refuses the model, or generate writes
// a package that parses, is inert and declares what the clean model's
// does.
func FuzzGenerateText(f *testing.F) {
	const path = "testdata/hostile-text.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	clean, err := catalog.Parse("model.yaml", data)
	if err != nil {
		f.Fatal(err)
	}
	files, err := generator.Generate(clean, generator.Options{Package: "p"})
	if err != nil {
		f.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		f.Fatal(err)
	}
	n := len(scalars(&root, nil))
	for i := range uint16(n) {
		f.Add(i, hostile, uint16(0), "")
		f.Add(i, injection, i+1, "`")
	}
	f.Add(uint16(0), "", uint16(0), "")
	f.Fuzz(func(t *testing.T, i uint16, a string, j uint16, b string) {
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			t.Fatal(err)
		}
		nodes := scalars(&root, nil)
		for _, m := range []struct {
			k uint16
			s string
		}{{i, a}, {j, b}} {
			node := nodes[int(m.k)%len(nodes)]
			node.Value, node.Style, node.Tag = node.Value+m.s, yaml.DoubleQuotedStyle, "!!str"
		}
		src, err := yaml.Marshal(&root)
		if err != nil {
			return // text YAML cannot hold (invalid UTF-8)
		}
		m, err := catalog.Parse("model.yaml", src)
		if err != nil {
			return
		}
		got, err := generator.Generate(m, generator.Options{Package: "p", Source: a + ".yaml"})
		if err != nil {
			t.Fatalf("check accepts the model, generate refuses it: %v\n%s", err, src)
		}
		assertInert(t, "fuzzed", got)
		if want, have := declCounts(t, files), declCounts(t, got); !maps.Equal(want, have) {
			t.Fatalf("declarations %v, the clean model's %v\n%s", have, want, src)
		}
	})
}

// mutateStrings calls f with v after appending text to each of its
// strings in turn (values and object keys), restoring each after.
func mutateStrings(v any, text string, f func()) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			val := x[k]
			if s, ok := val.(string); ok {
				x[k] = s + text
				f()
				x[k] = s
			} else {
				mutateStrings(val, text, f)
			}
			delete(x, k)
			x[k+text] = val
			f()
			delete(x, k+text)
			x[k] = val
		}
	case []any:
		for i, val := range x {
			if s, ok := val.(string); ok {
				x[i] = s + text
				f()
				x[i] = s
			} else {
				mutateStrings(val, text, f)
			}
		}
	}
}

// TestHostileWorkbench makes each string of a NoSQL Workbench model
// hostile in turn (table, attribute and facet names, key aliases, item
// values, metadata): the importer refuses it, or the model it writes
// loads and generates an inert package.
func TestHostileWorkbench(t *testing.T) {
	var doc any
	require.NoError(t, json.Unmarshal([]byte(handMade), &doc))
	for _, text := range []string{hostile, injection} {
		var imported, generated int
		mutateStrings(doc, text, func() {
			data, err := json.Marshal(doc)
			require.NoError(t, err)
			y, err := generator.ImportWorkbench("wb.json", data)
			if err != nil {
				require.True(t, generator.IsImportError(err), "%v\n%s", err, data)
				return
			}
			imported++
			m, err := catalog.Parse("wb.yaml", y)
			require.NoError(t, err, "the imported model does not load:\n%s", y)
			files, err := generator.Generate(m, generator.Options{Package: "wb"})
			require.NoError(t, err, "check accepts the imported model, generate refuses it:\n%s", y)
			assertInert(t, "imported", files)
			generated++
		})
		require.Positive(t, generated)
		t.Logf("%d hostile Workbench models imported, %d generated inert", imported, generated)
	}
}
