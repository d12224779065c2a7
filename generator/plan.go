package generator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// plan is everything the templates print, computed once from the model:
// Go names, types, key templates as code, requests as code.
type plan struct {
	m     *catalog.Model
	o     Options
	names *names

	types   map[string]*gotype      // attribute name -> Go type
	samples map[string][]attr.Value // attribute name -> every value the model shows
	padded  map[string]bool         // attributes zero-padded in some template
	used    map[string]bool         // support helpers the generated code calls

	enums      []*enumPlan
	enumByAttr map[string]*enumPlan
	tables     []*tablePlan
	tableByN   map[string]*tablePlan
	entities   []*entityPlan
	entityByN  map[string]*entityPlan
	indexes    []*indexPlan
	indexByN   map[string]*indexPlan
	computed   []*computedPlan
	patterns   []*patternPlan
	elsewhere  []*patternPlan // answered outside the table, or by a write
	ops        []*opPlan
	failures   []*failurePlan
	sentinels  []*sentinelPlan
	regexes    []regexPlan // compiled patterns of attribute domains
	noItem     bool        // an operation returns ErrNoItem
	structs    map[string]*structPlan
	structList []*structPlan
}

type regexPlan struct{ Attr, Var, Expr string }

type enumPlan struct {
	Attr   *catalog.Attribute
	Name   string
	Values []enumValue
}

type enumValue struct{ Const, Value string }

type tablePlan struct {
	T     *catalog.Table
	Field string // field of Tables: Collections
	Key   string // key struct: CollectionsKey
	// PK and SK are the key attributes with their Go types; SK is nil
	// when the table has no sort key.
	PK, SK       *keyAttr
	Unmarshal    string // UnmarshalCollectionsItem
	Entities     []*entityPlan
	ErrorFunc    string // collectionsKeyError
	NeedsUnion   bool
	Policy       bool
	IndexByName  map[string]*indexPlan
	Discriminant string
}

type keyAttr struct {
	Name  string // attribute: PK
	Field string // Go field: PK
	T     *gotype
}

// newPlan analyses the model.
func newPlan(m *catalog.Model, o Options) (*plan, error) {
	p := &plan{m: m, o: o, names: newNames(), types: map[string]*gotype{}, samples: map[string][]attr.Value{},
		padded: map[string]bool{}, used: map[string]bool{}, enumByAttr: map[string]*enumPlan{},
		tableByN: map[string]*tablePlan{}, entityByN: map[string]*entityPlan{}, indexByN: map[string]*indexPlan{},
		structs: map[string]*structPlan{}}
	p.collectSamples()
	steps := []func() error{p.planTables, p.planComputed, p.planEntities, p.planIndexes, p.planPatterns, p.planOperations}
	for _, f := range steps {
		if err := f(); err != nil {
			return nil, err
		}
	}
	p.planSentinels()
	return p, nil
}

// collectSamples gathers every value the model shows for each attribute
// and the attributes zero-padded in templates, for type inference.
func (p *plan) collectSamples() {
	add := func(name string, v attr.Value) {
		if v.Type != attr.Invalid {
			p.samples[name] = append(p.samples[name], v)
		}
	}
	pads := func(t *catalog.KeyTemplate) {
		if t == nil {
			return
		}
		for _, part := range t.Parts {
			if part.Attr != "" && part.Width > 0 {
				p.padded[part.Attr] = true
			}
		}
	}
	for _, e := range p.m.Entities {
		for _, s := range e.Samples {
			for _, f := range s.Item {
				add(f.Name, f.Value)
			}
		}
		for _, k := range e.Key {
			pads(k.Template)
		}
	}
	for _, x := range p.m.Indexes {
		if x.Synthetic != nil {
			if x.Synthetic.Partition != nil {
				pads(x.Synthetic.Partition.Template)
			}
			if x.Synthetic.Sort != nil {
				pads(x.Synthetic.Sort.Template)
			}
		}
	}
	for _, op := range p.m.Operations {
		for _, prm := range op.Params {
			if prm.Attribute != nil && prm.Sample != nil {
				add(prm.Attribute.Name, *prm.Sample)
			}
		}
		forEachRequest(op, func(_ *catalog.Step, q *catalog.Request) {
			for _, a := range q.Item {
				if a.Value.Literal != nil {
					add(a.Attribute, *a.Value.Literal)
				}
				if a.Value.Template != nil {
					pads(a.Value.Template)
				}
			}
			for _, a := range q.Key {
				if a.Value.Template != nil {
					pads(a.Value.Template)
				}
			}
			for _, kc := range q.KeyCondition {
				for _, o := range kc.Operands {
					if o.Template != nil {
						pads(o.Template)
					}
				}
			}
		})
	}
	for _, ap := range p.m.AccessPatterns {
		if ap.Answer == nil {
			continue
		}
		for _, kc := range ap.Answer.Key {
			for _, o := range kc.Operands {
				pads(o.Template)
			}
		}
	}
}

// forEachRequest calls f for every request of the operation, transaction
// actions included, in order.
func forEachRequest(op *catalog.Operation, f func(*catalog.Step, *catalog.Request)) {
	for _, s := range op.Steps {
		if s.Request != nil {
			f(s, s.Request)
		}
		for _, it := range s.Items {
			if it.Request != nil {
				f(it, it.Request)
			}
		}
	}
}

// use records that the generated code calls a support helper.
func (p *plan) use(helper string) { p.used[helper] = true }

// discriminator reports whether name is the discriminator of a table.
func (p *plan) discriminator(name string) bool {
	for _, t := range p.m.Tables {
		if t.Discriminator == name {
			return true
		}
	}
	return false
}

// enumConst names the constant of an enum value: the type's name, then
// the value's; a value that begins with a digit follows the type's name
// as it is (BankID033, not BankIDX033), after an underscore when the
// type's name ends in one.
func enumConst(typ, v string) string {
	n := exported(v)
	if startsDigit(v) {
		n = strings.TrimPrefix(n, "X")
		if endsDigit(typ) {
			n = "_" + n
		}
	}
	return typ + n
}

// enumOf returns the enum type of a string attribute with an enum (the
// discriminators excepted: their values are the entities themselves).
func (p *plan) enumOf(a *catalog.Attribute) *enumPlan {
	if len(a.Enum) == 0 || a.Type != attr.S || p.discriminator(a.Name) {
		return nil
	}
	if e, ok := p.enumByAttr[a.Name]; ok {
		return e
	}
	e := &enumPlan{Attr: a, Name: p.names.claim("enum:"+a.Name, exported(a.Name), "Value")}
	seen := map[string]bool{}
	for _, v := range a.Enum {
		c := enumConst(e.Name, v)
		for i := 2; seen[c]; i++ {
			c = fmt.Sprintf("%s%d", enumConst(e.Name, v), i)
		}
		seen[c] = true
		c = p.names.claim("enumvalue:"+a.Name+":"+v, c, "Value")
		e.Values = append(e.Values, enumValue{Const: c, Value: v})
	}
	p.enumByAttr[a.Name] = e
	p.enums = append(p.enums, e)
	sort.Slice(p.enums, func(i, j int) bool { return p.enums[i].Name < p.enums[j].Name })
	return e
}

func (p *plan) planTables() error {
	ids := tableIDs(p.m)
	for _, t := range p.m.Tables {
		base := ids[t.Name]
		tp := &tablePlan{T: t, Field: base, Key: p.names.claim("table:"+t.Name, base+"Key", "Key"),
			Unmarshal: p.names.claim("unmarshal:"+t.Name, "Unmarshal"+base+"Item", "Table"),
			ErrorFunc: unexported(base) + "KeyError", IndexByName: map[string]*indexPlan{}, Policy: t.Isolation != nil,
			Discriminant: t.Discriminator}
		for i, name := range t.KeyAttributes() {
			a := p.m.Attribute(name)
			if a == nil {
				return fmt.Errorf("table %s: key attribute %s is not in the attribute dictionary", t.Name, name)
			}
			if a.Type != attr.S && a.Type != attr.N {
				return fmt.Errorf("table %s: key attribute %s is of type %s; the generator supports string and number keys", t.Name, name, a.Type)
			}
			ka := &keyAttr{Name: name, Field: exported(name), T: p.valueType(a)}
			if ka.T.kind == kString && ka.T.enum != nil {
				ka.T = tString
			}
			if i == 0 {
				tp.PK = ka
			} else {
				tp.SK = ka
			}
		}
		if tp.SK != nil && tp.SK.Field == tp.PK.Field {
			tp.SK.Field += "2"
		}
		p.tables = append(p.tables, tp)
		p.tableByN[t.Name] = tp
	}
	return nil
}

// Keys returns the key attributes of the table in order.
func (t *tablePlan) Keys() []*keyAttr {
	if t.SK == nil {
		return []*keyAttr{t.PK}
	}
	return []*keyAttr{t.PK, t.SK}
}

// sortedNames returns the keys of a map in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// joinWords lists items in prose: "a", "a and b", "a, b and c".
func joinWords(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
