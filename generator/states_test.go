package generator_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// stateModels are the models whose generated packages must build an item
// of every entity in every state the presence rules allow: both examples
// and the independent models under testdata.
var stateModels = []string{
	"../model.yaml",
	"../examples/orders/model.yaml",
	"testdata/colliding-names.yaml",
	"testdata/keys-only.yaml",
	"testdata/hostile-names.yaml",
	"testdata/hostile-text.yaml",
	"../internal/cli/testdata/models/credit.yaml",
}

// maxStates bounds the states tried per entity sample: the product of the
// values of the attributes its presence rules look at.
const maxStates = 512

// states returns, for each entity, the items of every state its presence
// rules allow that the catalog accepts: each sample with the attributes
// the rules look at set to every combination of the values the rules,
// the domains and the samples name, then the conditional attributes
// dropped where the rules forbid them and filled (from another sample)
// where they require them, computed attributes computed only where they
// may be carried.
func states(t *testing.T, m *catalog.Model, e *catalog.Entity) []attr.Item {
	t.Helper()
	cands := map[string][]attr.Value{}
	addCand := func(name string, v attr.Value) {
		if !slices.ContainsFunc(cands[name], func(w attr.Value) bool { return attr.Equal(v, w) }) {
			cands[name] = append(cands[name], v)
		}
	}
	for _, ea := range e.Attributes {
		for _, c := range slices.Concat(ea.When, ea.Unless) {
			for _, v := range c.Values {
				addCand(c.Attribute, v)
			}
			if a := m.Attribute(c.Attribute); a != nil {
				for _, s := range a.Domain.Enum {
					if a.Type == attr.N {
						addCand(c.Attribute, attr.Num(s))
					} else {
						addCand(c.Attribute, attr.Str(s))
					}
				}
			}
		}
	}
	names := slices.Sorted(maps.Keys(cands))
	for _, s := range e.Samples {
		for _, n := range names {
			if v, ok := s.Item.Get(n); ok {
				addCand(n, v)
			}
		}
	}
	total := 1
	for _, n := range names {
		total *= len(cands[n])
		if total > maxStates {
			t.Fatalf("entity %s: over %d states", e.Name, maxStates)
		}
	}
	// from returns the value of an attribute in the first sample that
	// carries it.
	from := func(name string) (attr.Value, bool) {
		for _, s := range e.Samples {
			if v, ok := valuesOf(e, s.Item)[name]; ok {
				return v, true
			}
		}
		return plain(m.Attribute(name))
	}
	bases := e.Samples
	if len(bases) == 0 { // a model without samples: the plainest values
		vals := map[string]attr.Value{}
		for _, ph := range slices.Concat(keyNames(e), attrNames(e)) {
			if v, ok := plain(m.Attribute(ph)); ok && e.Has(ph) != catalog.Optional {
				vals[ph] = v
			}
		}
		bases = []catalog.Sample{{Item: itemOf(vals)}}
	}
	seen := map[string]bool{}
	var out []attr.Item
	for _, s := range bases {
		for i := range total {
			vals := valuesOf(e, s.Item)
			for j, k := 0, i; j < len(names); j++ {
				n := names[j]
				vals[names[j]] = cands[n][k%len(cands[n])]
				k /= len(cands[n])
			}
			ok := true
			for range len(e.Attributes) + 1 { // rules may hang on conditional attributes
				it := itemOf(vals)
				for _, ea := range e.Attributes {
					_, has := vals[ea.Name]
					switch {
					case !ea.Allows(it):
						delete(vals, ea.Name)
					case ea.Needs(it) && !has:
						v, found := from(ea.Name)
						ok = ok && found
						vals[ea.Name] = v
					}
				}
			}
			for _, ea := range e.Attributes {
				if ea.Attribute != nil && ea.Attribute.Computed != nil && ea.Attribute.Computed.Kind != catalog.KindHMAC {
					delete(vals, ea.Name)
				}
			}
			if !ok {
				continue
			}
			sd, err := build(m, e, vals, nil)
			if err != nil {
				continue
			}
			it := sd.item
			for _, ea := range e.Attributes {
				if !ea.Allows(it) {
					it = it.Without(ea.Name)
				}
			}
			if len(e.CheckItem(it)) > 0 {
				continue
			}
			key := mapLit(it)
			if !seen[key] {
				seen[key] = true
				out = append(out, it)
			}
		}
	}
	return out
}

// plain returns the plainest value of an attribute's domain: its first
// enum value, its minimum, or a short text.
func plain(a *catalog.Attribute) (attr.Value, bool) {
	switch {
	case a == nil:
		return attr.Value{}, false
	case a.Type == attr.N && len(a.Domain.Enum) > 0:
		return attr.Num(a.Domain.Enum[0]), true
	case a.Type == attr.N && a.Domain.Min != nil:
		return attr.Num(strconv.FormatFloat(*a.Domain.Min, 'f', -1, 64)), true
	case a.Type == attr.N:
		return attr.Num("1"), true
	case a.Type == attr.S && len(a.Domain.Enum) > 0:
		return attr.Str(a.Domain.Enum[0]), true
	case a.Type == attr.S:
		return attr.Str("x1"), true
	}
	return attr.Value{}, false
}

func keyNames(e *catalog.Entity) []string {
	var out []string
	for _, k := range e.Key {
		out = append(out, k.Template.Placeholders()...)
	}
	return out
}

func attrNames(e *catalog.Entity) []string {
	var out []string
	for _, ea := range e.Attributes {
		out = append(out, ea.Name)
	}
	return out
}

func itemOf(vals map[string]attr.Value) attr.Item {
	var it attr.Item
	for _, n := range slices.Sorted(maps.Keys(vals)) {
		it = it.With(n, vals[n])
	}
	return it
}

// mapLit renders an item as a Go map literal of the SDK's values.
func mapLit(it attr.Item) string {
	var parts []string
	for _, f := range it {
		parts = append(parts, strconv.Quote(f.Name)+": "+generator.AVLiteral(f.Value))
	}
	return "map[string]types.AttributeValue{" + strings.Join(parts, ", ") + "}"
}

var itemTypeRe = regexp.MustCompile(`(?m)^func \((\w+)\) ItemType\(\) string \{ return ("(?:[^"\\]|\\.)*") \}$`)

// statesTest writes a test file for a generated package: every state's
// item, its computed attributes zeroed, goes through UnmarshalX, NewX and
// MarshalItem and must come back whole.
func statesTest(t *testing.T, m *catalog.Model, pkg string, files generator.Files) (string, int) {
	t.Helper()
	goType := map[string]string{}
	for _, name := range files.Names() {
		for _, sm := range itemTypeRe.FindAllStringSubmatch(string(files[name]), -1) {
			et, err := strconv.Unquote(sm[2])
			require.NoError(t, err)
			goType[et] = sm[1]
		}
	}
	var computed []string
	for _, a := range m.Attributes {
		if a.Computed != nil && a.Computed.Kind != catalog.KindHMAC {
			computed = append(computed, strconv.Quote(a.Name))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"reflect\"\n\t\"strings\"\n\t\"testing\"\n\n\t\"github.com/aws/aws-sdk-go-v2/service/dynamodb/types\"\n)\n\n", pkg)
	b.WriteString("var computedAttrs = map[string]bool{")
	for _, c := range computed {
		b.WriteString(c + ": true, ")
	}
	b.WriteString("}\n\n// clearComputed zeroes the fields the constructor must compute.\nfunc clearComputed(x any) {\n\tv := reflect.ValueOf(x).Elem()\n\tfor i := 0; i < v.NumField(); i++ {\n\t\tname, _, _ := strings.Cut(v.Type().Field(i).Tag.Get(\"dynamodbav\"), \",\")\n\t\tif computedAttrs[name] {\n\t\t\tv.Field(i).SetZero()\n\t\t}\n\t}\n}\n\n")
	b.WriteString("type stateCase struct {\n\tentity string\n\titem   map[string]types.AttributeValue\n}\n\n")
	b.WriteString("func TestEveryState(t *testing.T) {\n\tbuild := map[string]func(map[string]types.AttributeValue) (map[string]types.AttributeValue, error){\n")
	n := 0
	var cases strings.Builder
	for _, e := range m.Entities {
		gt, ok := goType[e.TypeValue]
		if !ok {
			gt, ok = goType[e.Name]
		}
		require.True(t, ok, "%s: no Go type for entity %s", pkg, e.Name)
		fmt.Fprintf(&b, "\t\t%s: func(it map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {\n\t\t\tx, err := Unmarshal%s(it)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\tclearComputed(&x)\n\t\t\ty, err := New%s(x)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\treturn y.MarshalItem()\n\t\t},\n",
			strconv.Quote(e.Name), gt, gt)
		its := states(t, m, e)
		require.NotEmpty(t, its, "%s: entity %s has no state the catalog accepts", pkg, e.Name)
		for _, it := range its {
			fmt.Fprintf(&cases, "\t\t{%s, %s},\n", strconv.Quote(e.Name), mapLit(it))
			n++
		}
	}
	b.WriteString("\t}\n\tfor i, c := range []stateCase{\n" + cases.String() + "\t} {\n")
	b.WriteString("\t\tgot, err := build[c.entity](c.item)\n\t\tif err != nil {\n\t\t\tt.Errorf(\"%s #%d: %v\", c.entity, i, err)\n\t\t\tcontinue\n\t\t}\n\t\tif !reflect.DeepEqual(got, c.item) {\n\t\t\tt.Errorf(\"%s #%d: built\\n%#v\\nwant\\n%#v\", c.entity, i, got, c.item)\n\t\t}\n\t}\n}\n")
	return b.String(), n
}

// TestConstructorsEveryState generates the packages of the examples and
// the independent models and runs, in a module of their own, a test that
// builds every entity in every state its rules allow with NewX: the
// constructor computes exactly the computed attributes the state may
// carry, and the item it marshals is the one the catalog accepts.
func TestConstructorsEveryState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages")
	}
	pkgs := map[string]generator.Files{}
	for i, path := range stateModels {
		m, err := catalog.Load(path)
		require.NoError(t, err)
		pkg := fmt.Sprintf("states%d", i)
		files, err := generator.Generate(m, generator.Options{Package: pkg, Keys: catalog.KeysNative, Source: filepath.Base(path)})
		require.NoError(t, err, path)
		src, n := statesTest(t, m, pkg, files)
		t.Logf("%s: %d states", path, n)
		files["states_test.go"] = []byte(src)
		pkgs[pkg] = files
	}
	runGo(t, vetOutside(t, pkgs), "test", "./...")
}
