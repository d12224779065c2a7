package generator

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"text/template"
	"unicode"

	"github.com/cardapio/cardapio/catalog"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// goFiles are the Go files of a generated package, in rendering order:
// codec.go comes last, as it holds the support helpers the others use.
var goFiles = []string{"client.go", "keys.go", "entities.go", "patterns.go", "operations.go", "errors.go", "tables.go", "iam.go", "codec.go"}

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"quote": quote,
	"join":  strings.Join,
	"trimdot": func(s string) string {
		return strings.TrimSuffix(prose(s), ".")
	},
	"prose": prose,
	"doc": func(prefix, text string) string {
		return comment(prefix, text)
	},
	"indentList": func(s string) string {
		// Continuation lines of a list item align under its text.
		return strings.ReplaceAll(s, "\n//   - ", "\n//     ")
	},
	"header":  func() string { return "" },
	"article": article,
	"enumDesc": func(d string) string {
		d = strings.TrimSuffix(prose(d), ".")
		if d == "" {
			return "."
		}
		return ": " + lowerFirst(d) + "."
	},
	// Replaced at render time by the plan's own (see render).
	"encode":       func(*gotype, string) string { return "" },
	"decoder":      func(*gotype) string { return "" },
	"keyParams":    keyParams,
	"enumConsts":   enumConsts,
	"computedNote": func(*entityPlan) string { return "" },
	"entityNames":  entityNames,
	"unionBody":    func(*tablePlan) string { return "" },
}).ParseFS(templateFS, "templates/*.tmpl"))

// view is what the templates see: the plan and the template helpers that
// need it.
type view struct {
	*plan
	Package       string
	PackageDoc    string
	Separator     string
	Discriminator string
}

// render prints one file of the package, or nil when the model gives it
// nothing to hold.
func (p *plan) render(file string) ([]byte, error) {
	switch file {
	case "patterns.go":
		if len(p.patterns) == 0 {
			return nil, nil
		}
	case "operations.go":
		if len(p.ops) == 0 {
			return nil, nil
		}
	case "iam.go":
		if !p.hasPolicy() {
			return nil, nil
		}
	case "keys.go":
		// keyOfX reads each key attribute with required, whether or not
		// an entity has a required attribute outside its key.
		for _, t := range p.tables {
			if len(t.Entities) > 0 {
				p.use("required")
			}
		}
	}
	v := &view{plan: p, Package: p.o.Package, Separator: p.m.Separator, PackageDoc: p.packageDoc()}
	if v.Separator == "" {
		v.Separator = "#"
	}
	for _, t := range p.tables {
		if t.T.Discriminator != "" {
			v.Discriminator = t.T.Discriminator
			break
		}
	}
	var body bytes.Buffer
	switch file {
	case "codec.go":
		fmt.Fprintf(&body, "package %s\n%s", p.o.Package, p.helperSource())
	case "tables.go":
		src, err := p.tablesSource()
		if err != nil {
			return nil, err
		}
		body.WriteString(src)
	case "iam.go":
		src, err := p.iamSource()
		if err != nil {
			return nil, err
		}
		body.WriteString(src)
	default:
		t := templates.Lookup(file + ".tmpl")
		if t == nil {
			return nil, fmt.Errorf("no template for %s", file)
		}
		funcs := template.FuncMap{
			"header":       func() string { return "" },
			"encode":       p.encode,
			"decoder":      p.decoder,
			"keyParams":    keyParams,
			"enumConsts":   enumConsts,
			"computedNote": p.computedNote,
			"entityNames":  entityNames,
			"unionBody":    p.unionBody,
		}
		t, err := t.Clone()
		if err != nil {
			return nil, err
		}
		if err := t.Funcs(funcs).Execute(&body, v); err != nil {
			return nil, err
		}
	}
	return p.finish(body.Bytes())
}

// finish puts the generated header first and the imports the code uses
// after the package clause.
func (p *plan) finish(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return src, nil // format.Source reports it with the code
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if _, known := importPaths[id.Name]; known {
					used[id.Name] = true
				}
			}
		}
		return true
	})
	// Names declared in the package shadow nothing here: generated code
	// never declares a package-level identifier with an import's name.
	var std, sdk []string
	for name := range used {
		path := importPaths[name]
		if strings.Contains(path, ".") {
			sdk = append(sdk, path)
		} else {
			std = append(std, path)
		}
	}
	slices.Sort(std)
	slices.Sort(sdk)
	var imports strings.Builder
	if len(std)+len(sdk) > 0 {
		imports.WriteString("\nimport (\n")
		for _, s := range std {
			imports.WriteString("\t" + quote(s) + "\n")
		}
		if len(std) > 0 && len(sdk) > 0 {
			imports.WriteString("\n")
		}
		for _, s := range sdk {
			imports.WriteString("\t" + quote(s) + "\n")
		}
		imports.WriteString(")\n")
	}
	// Insert after the package clause line.
	pkgEnd := fset.Position(f.Name.End()).Offset
	var out bytes.Buffer
	out.WriteString(Header(p.o.Source) + "\n\n")
	out.Write(bytes.TrimLeft(src[:pkgEnd], "\n"))
	out.WriteString("\n")
	out.WriteString(imports.String())
	out.Write(src[pkgEnd:])
	return out.Bytes(), nil
}

var importPaths = map[string]string{
	"aws":      "github.com/aws/aws-sdk-go-v2/aws",
	"dynamodb": "github.com/aws/aws-sdk-go-v2/service/dynamodb",
	"types":    "github.com/aws/aws-sdk-go-v2/service/dynamodb/types",
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"iter":     "iter",
	"strconv":  "strconv",
	"strings":  "strings",
	"slices":   "slices",
	"time":     "time",
	"bytes":    "bytes",
	"math":     "math",
	"big":      "math/big",
	"hmac":     "crypto/hmac",
	"sha256":   "crypto/sha256",
	"hex":      "encoding/hex",
	"fnv":      "hash/fnv",
	"regexp":   "regexp",
	"utf8":     "unicode/utf8",
	"json":     "encoding/json",
}

func keyParams(ep *entityPlan) string {
	var names, types []string
	for _, f := range ep.KeyArgs {
		names = append(names, f.Var)
		types = append(types, f.T.Go())
	}
	return groupParams(names, types)
}

func enumConsts(e *enumPlan) string {
	var parts []string
	for _, v := range e.Values {
		parts = append(parts, v.Const)
	}
	return strings.Join(parts, ", ")
}

func entityNames(tp *tablePlan) string {
	var parts []string
	for _, e := range tp.Entities {
		parts = append(parts, e.E.Name)
	}
	return joinWords(parts)
}

// EnumType returns the type of an enum's constants (for the template).
func (v *view) EnumType(ev enumValue) string {
	for _, e := range v.enums {
		for _, x := range e.Values {
			if x == ev {
				return e.Name
			}
		}
	}
	return "string"
}

// Entities etc. expose the plan to the templates.
func (v *view) Entities() []*entityPlan    { return v.entities }
func (v *view) Tables() []*tablePlan       { return v.tables }
func (v *view) Enums() []*enumPlan         { return v.enums }
func (v *view) Indexes() []*indexPlan      { return v.indexes }
func (v *view) Computed() []*computedPlan  { return v.computed }
func (v *view) Patterns() []*patternPlan   { return v.patterns }
func (v *view) Elsewhere() []*patternPlan  { return v.elsewhere }
func (v *view) Ops() []*opPlan             { return v.ops }
func (v *view) Sentinels() []*sentinelPlan { return v.sentinels }
func (v *view) Failures() []*failurePlan   { return v.failures }
func (v *view) Prefixes() []prefixPlan     { return v.prefixes() }
func (v *view) Regexes() []regexPlan       { return v.regexes }
func (v *view) Structs() []*structPlan     { return v.structList }
func (v *view) NoItem() bool               { return v.noItem }

// TableDoc is a table's line in Tables.
func (t *tablePlan) TableDoc() string {
	d := t.Field + " is table " + t.T.Name + "."
	if t.T.Description != "" {
		d += " " + firstSentence(t.T.Description)
	}
	return d
}

// TypeValue is the entity's value of the discriminator (its name when
// the table has none).
func (ep *entityPlan) TypeValue() string {
	if ep.E.TypeValue != "" {
		return ep.E.TypeValue
	}
	return ep.E.Name
}

// Sentinels lists the errors an operation can return, for its doc.
func (opp *opPlan) Sentinels() string {
	var names []string
	for _, f := range opp.failures {
		if !slices.Contains(names, f.Sentinel.Name) {
			names = append(names, f.Sentinel.Name)
		}
	}
	return joinWords(names)
}

func firstSentence(s string) string {
	s = prose(s)
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return sentence(s)
}

// packageDoc is the package comment.
func (p *plan) packageDoc() string {
	d := fmt.Sprintf("Package %s is the typed DynamoDB access of model %s", p.o.Package, p.m.Name)
	if p.m.Description != "" {
		d += ": " + lowerFirst(firstSentence(p.m.Description))
	} else {
		d += "."
	}
	d += fmt.Sprintf(" It holds key builders and parsers for every entity, a function per access pattern and per business operation, and the tables' definitions, all generated from %s.", p.o.Source)
	d += " It talks to DynamoDB through the DynamoDB interface, which *dynamodb.Client satisfies, and imports only the standard library and aws-sdk-go-v2."
	if p.o.Keys == catalog.KeysSynthetic {
		d += " Indexes with multi-attribute keys are keyed by their synthetic (concatenated) attributes, for engines without multi-attribute keys; every write maintains them."
	}
	return d
}

type prefixPlan struct{ Name, Tag, Meaning string }

// prefixes names the prefix dictionary's constants after the entity a tag
// identifies (the last tag of its item key), else after a short meaning
// that is a name rather than a description, else after the tag.
func (p *plan) prefixes() []prefixPlan {
	ident := p.identifiedBy()
	base := func(pr catalog.Prefix) string {
		if i := strings.IndexAny(pr.Meaning, "(,;:"); i > 0 {
			return exported(pr.Meaning[:i])
		}
		return exported(pr.Meaning)
	}
	shared := map[string]int{}
	for _, pr := range p.m.Prefixes {
		shared[base(pr)]++
	}
	var out []prefixPlan
	for _, pr := range p.m.Prefixes {
		meaning := pr.Meaning
		name := "Prefix" + exported(pr.Tag)
		ws := words(base(pr))
		if len(ident[pr.Tag]) == 1 {
			name = "Prefix" + ident[pr.Tag][0].Name
		} else if len(ws) > 0 && len(ws) <= 3 && shared[base(pr)] == 1 && !slices.Contains([]string{"a", "an", "the"}, strings.ToLower(ws[0])) {
			name = "Prefix" + base(pr)
		}
		name = p.names.claim("prefix:"+pr.Tag, name, exported(pr.Tag))
		out = append(out, prefixPlan{Name: name, Tag: pr.Tag, Meaning: strings.TrimSuffix(prose(meaning), ".")})
	}
	return out
}

// identifiedBy maps each tag to the entities whose item key ends on it:
// the last tag among the literals of the sort key's template (the
// partition key's when the table has none).
func (p *plan) identifiedBy() map[string][]*entityPlan {
	tags := map[string]bool{}
	for _, pr := range p.m.Prefixes {
		tags[pr.Tag] = true
	}
	out := map[string][]*entityPlan{}
	for _, ep := range p.entities {
		ka := ep.E.Table.KeyAttributes()
		last := ka[len(ka)-1]
		for _, k := range ep.E.Key {
			if k.Attribute != last || k.Template == nil {
				continue
			}
			tag := ""
			for _, part := range k.Template.Parts {
				if part.Attr != "" {
					continue
				}
				for _, w := range strings.FieldsFunc(part.Literal, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' }) {
					if tags[w] {
						tag = w
					}
				}
			}
			if tag != "" {
				out[tag] = append(out[tag], ep)
			}
		}
	}
	return out
}

// computedNote names the attributes NewX computes.
func (p *plan) computedNote(ep *entityPlan) string {
	var names []string
	for _, f := range ep.Fields {
		if f.Attr.Computed == nil {
			continue
		}
		switch f.Attr.Computed.Kind {
		case catalog.KindHashMod:
			if ep.field(f.Attr.Computed.Input) != nil {
				names = append(names, f.Name+" from "+exported(f.Attr.Computed.Input))
			}
		case catalog.KindTemplate:
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + joinWords(names) + ")"
}

// unionBody decodes an item of a table as its entity.
func (p *plan) unionBody(tp *tablePlan) string {
	var b strings.Builder
	p.use("asItem")
	if tp.T.Discriminator != "" {
		fmt.Fprintf(&b, "if t, ok := item[%s].(*types.AttributeValueMemberS); ok {\nswitch t.Value {\n", quote(tp.T.Discriminator))
		for _, ep := range tp.Entities {
			fmt.Fprintf(&b, "case %s:\nreturn asItem(%s(item))\n", quote(ep.TypeValue()), ep.Unmarshal)
		}
		fmt.Fprintf(&b, "}\nreturn nil, fmt.Errorf(\"an item of table %s: %s %%q is not an entity of the model\", t.Value)\n}\n", tp.T.Name, tp.T.Discriminator)
	}
	fmt.Fprintf(&b, "k, err := keyOf%s(item)\nif err != nil {\nreturn nil, err\n}\n", tp.Field)
	for _, ep := range tp.Entities {
		fmt.Fprintf(&b, "if %s(k) {\nreturn asItem(%s(item))\n}\n", ep.ShapeFunc, ep.Unmarshal)
	}
	fmt.Fprintf(&b, "return nil, fmt.Errorf(\"an item of table %s: key %%+v is no entity's\", k)\n", tp.T.Name)
	return b.String()
}

func (p *plan) hasPolicy() bool {
	for _, t := range p.m.Tables {
		if t.Isolation != nil {
			return true
		}
	}
	return false
}
