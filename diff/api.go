package diff

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// apiPackage is the package name the two APIs are generated under: the
// same on both sides, so that only the model's changes differ.
const apiPackage = "api"

// surface is a generated package's exported API: every exported
// function, method, type, struct field, constant and variable, by a name
// that says which ("Client.GetOrder", "Order.Status"), with its
// declaration as Go prints it.
type surface map[string]string

// apiOf generates model m's Go package in memory and reads its exported
// surface with go/parser.
func apiOf(m *catalog.Model) (surface, error) {
	files, err := generator.Generate(m, generator.Options{Package: apiPackage})
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", m.Source, err)
	}
	fset := token.NewFileSet()
	s := surface{}
	for _, name := range files.Names() {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("generated %s: %w", name, err)
		}
		s.file(fset, f)
	}
	return s, nil
}

func (s surface) file(fset *token.FileSet, f *ast.File) {
	text := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return b.String()
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				recv := receiverName(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			s[name] = "func" + strings.TrimPrefix(text(d.Type), "func")
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if !sp.Name.IsExported() {
						continue
					}
					s.typ(sp, text)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							v := d.Tok.String()
							if sp.Type != nil {
								v += " " + text(sp.Type)
							}
							s[n.Name] = v
						}
					}
				}
			}
		}
	}
}

// typ records a type: a struct by its exported fields, an interface by
// its methods, any other by its definition.
func (s surface) typ(sp *ast.TypeSpec, text func(ast.Node) string) {
	name := sp.Name.Name
	switch t := sp.Type.(type) {
	case *ast.StructType:
		s[name] = "struct"
		for _, f := range t.Fields.List {
			for _, n := range f.Names {
				if n.IsExported() {
					s[name+"."+n.Name] = text(f.Type)
				}
			}
			if len(f.Names) == 0 {
				s[name+"."+text(f.Type)] = "embedded"
			}
		}
	case *ast.InterfaceType:
		s[name] = "interface"
		for _, f := range t.Methods.List {
			for _, n := range f.Names {
				s[name+"."+n.Name] = text(f.Type)
			}
		}
	default:
		s[name] = "type " + text(sp.Type)
	}
}

func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// apiChanges compares the generated surfaces of base and head: what the
// code written against BASE's package stops compiling against in HEAD's
// (an identifier gone, a signature or field type changed) is breaking;
// what HEAD adds is not.
func (c *changes) api() error {
	sb, err := apiOf(c.base)
	if err != nil {
		return err
	}
	sh, err := apiOf(c.head)
	if err != nil {
		return err
	}
	owners := owners(c.base, c.head)
	for _, n := range union(sb, sh) {
		was, inB := sb[n]
		now, inH := sh[n]
		// A type's members are reported with it when it comes or goes.
		if i := strings.IndexByte(n, '.'); i > 0 {
			if _, ok := sb[n[:i]]; !ok && !inB {
				continue
			}
			if _, ok := sh[n[:i]]; !ok && !inH {
				continue
			}
		}
		at := owners.of(n)
		path := "api." + n
		switch {
		case !inB:
			c.addAt("api.added", false, path, at, "generated %s added: %s", n, now)
		case !inH:
			c.addAt("api.removed", true, path, at, "generated %s removed: code calling it no longer compiles (was %s)", n, was)
		case was != now:
			c.addAt("api.changed", true, path, at, "generated %s changed: %s -> %s", n, was, now)
		}
	}
	return nil
}

// addAt records a change whose path is not a place in the model, at the
// model element at.
func (c *changes) addAt(kind string, breaking bool, path string, at []string, format string, args ...any) {
	n := len(c.out)
	c.add(kind, breaking, at, format, args...)
	c.out[n].Path = path
	if breaking {
		c.out[n].Acknowledged = ""
		if a, _, ok := c.head.Acknowledges(path); ok {
			c.out[n].Acknowledged = a.Why
		}
	}
}

// ownerMap tells the model element a generated identifier comes from,
// by the generator's own naming (generator.Identifier).
type ownerMap map[string][]string

func owners(ms ...*catalog.Model) ownerMap {
	o := ownerMap{}
	for _, m := range ms {
		for _, e := range m.Entities {
			o[generator.Identifier(e.Name)] = []string{"entities", e.Name}
		}
		for _, x := range m.Indexes {
			o[generator.Identifier(x.Name)] = []string{"indexes", x.Name}
			o[generator.Identifier(x.Name)+"Entry"] = []string{"indexes", x.Name}
			if x.Alias != "" {
				o[generator.Identifier(x.Alias)+"Entry"] = []string{"indexes", x.Name}
			}
		}
		for _, p := range m.AccessPatterns {
			o[generator.Identifier(p.ID)] = []string{"accessPatterns", p.ID}
		}
		for _, op := range m.Operations {
			id := generator.Identifier(op.Name)
			for _, suffix := range []string{"", "Input", "Result"} {
				o[id+suffix] = []string{"operations", op.Name}
			}
		}
	}
	return o
}

// of returns the element that owns identifier n ("Client.GetOrder" is
// GetOrder's), or the top of the model.
func (o ownerMap) of(n string) []string {
	if strings.HasPrefix(n, "Prefix") {
		return []string{"prefixes"}
	}
	parts := strings.Split(n, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		if at, ok := o[parts[i]]; ok {
			return at
		}
	}
	return nil
}
