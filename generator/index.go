package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// indexPlan is the Go face of a secondary index: the type of its entries
// and the order of its sort key.
type indexPlan struct {
	X       *catalog.Index
	Table   *tablePlan
	Entries []*entityPlan
	All     bool   // projection ALL: an entry is the whole item
	Name    string // entry type (not ALL): DunningAgendaEntry
	Fields  []*fieldPlan
	Doc     string
	Decode  string // function decoding an entry: unmarshalDunningAgendaEntry, or the entity's / table's
	Body    string
	Compare string // compareDunningAgenda: the index's sort order on raw items
	// UsedCompare is set when a fan-out read merges the index's shards.
	UsedCompare bool
	CompBody    string
	// Synthetic keys (Options.Keys is catalog.KeysSynthetic): the concatenated
	// attributes and their templates.
	SynPK, SynSK *catalog.SyntheticKey
}

// synthetic reports whether the index is keyed by concatenated
// attributes in this generation.
func (x *indexPlan) synthetic() bool { return x.SynPK != nil }

func (p *plan) planIndexes() error {
	for _, x := range p.m.Indexes {
		tp := p.tableByN[x.Table.Name]
		ip := &indexPlan{X: x, Table: tp, All: x.Projection.Type == "ALL"}
		if x.KeyedSynthetic(p.o.Keys) {
			ip.SynPK, ip.SynSK = x.Synthetic.Partition, x.Synthetic.Sort
		}
		for _, e := range x.Entries {
			ip.Entries = append(ip.Entries, p.entityByN[e.Name])
		}
		base := exported(x.Name)
		if x.Alias != "" {
			base = exported(x.Alias)
		}
		ip.Compare = p.names.claim("compare:"+x.Name, "compare"+base, "Index")
		tp.IndexByName[x.Name] = ip
		p.indexes = append(p.indexes, ip)
		p.indexByN[x.Name] = ip
		if !ip.All {
			ip.Name = p.names.claim("index:"+x.Name, base+"Entry", "Index")
			if err := p.planEntry(ip); err != nil {
				return fmt.Errorf("index %s: %w", x.Name, err)
			}
		}
		p.planCompare(ip)
	}
	return nil
}

// planEntry lays out the entry type of an index that does not project
// everything: the table key, the index key attributes, the projected ones.
func (p *plan) planEntry(ip *indexPlan) error {
	x := ip.X
	var names []string
	for _, a := range x.KeyAttributes() {
		names = append(names, a)
	}
	var proj []string
	if x.Projection.Type == "INCLUDE" {
		proj = append(proj, x.Projection.Attributes...)
		slices.Sort(proj)
	}
	keyAttrs := x.Table.KeyAttributes()
	for _, n := range append(names, proj...) {
		if slices.Contains(keyAttrs, n) || n == x.Table.Discriminator {
			continue
		}
		a := p.m.Attribute(n)
		if a == nil {
			return fmt.Errorf("attribute %s is not in the dictionary", n)
		}
		t := p.valueType(a)
		// A key attribute is on every entry; a projected one only where
		// every entry entity requires it.
		req := slices.Contains(names, n)
		if !req && len(ip.Entries) > 0 {
			req = true
			for _, ep := range ip.Entries {
				if ep.E.Has(n) != catalog.Required {
					req = false
				}
			}
		}
		pr := catalog.Required
		if !req {
			pr = catalog.Optional
		}
		f := &fieldPlan{Attr: a, Name: exported(n), Var: unexported(n), T: t, Presence: pr, Pointer: !req && !t.nilable()}
		f.Doc = fieldDoc(a, pr)
		if !req {
			f.Doc = strings.Replace(f.Doc, " Absent (nil) in some states.", "", 1) + " Nil on entries that do not carry it."
		}
		if slices.Contains(names, n) {
			f.Doc += " Index key."
		}
		f.Tag = "`dynamodbav:\"" + n + "\"`"
		ip.Fields = append(ip.Fields, f)
	}
	var ents []string
	for _, ep := range ip.Entries {
		ents = append(ents, ep.E.Name)
	}
	ip.Doc = fmt.Sprintf("is an entry of index %s", x.Name)
	if x.Alias != "" {
		ip.Doc += " (" + x.Alias + ")"
	}
	ip.Doc += fmt.Sprintf(", partition %s", strings.Join(x.Partition, " + "))
	if len(x.Sort) > 0 {
		ip.Doc += ", sort " + strings.Join(x.Sort, " + ")
	}
	ip.Doc += ". "
	if x.Description != "" {
		ip.Doc += sentence(x.Description) + " "
	}
	switch x.Projection.Type {
	case "KEYS_ONLY":
		ip.Doc += "It projects the keys only."
	default:
		ip.Doc += "It projects " + joinWords(x.Projection.Attributes) + " beside the keys."
	}
	if len(ents) > 0 {
		ip.Doc += " Entries are " + joinWords(ents) + " items; Key is the item's table key, to read the whole item."
	}
	if ip.synthetic() {
		ip.Doc += fmt.Sprintf(" This generation keys the index by the concatenated %s", ip.SynPK.Attribute)
		if ip.SynSK != nil {
			ip.Doc += " and " + ip.SynSK.Attribute
		}
		ip.Doc += ", and projects the natural key attributes."
	}

	// Decoder.
	var b strings.Builder
	p.use("decoder")
	fmt.Fprintf(&b, "k, err := keyOf%s(item)\nif err != nil {\nreturn %s{}, err\n}\n", ip.Table.Field, ip.Name)
	fmt.Fprintf(&b, "x := %s{Key: k}\n", ip.Name)
	fmt.Fprintf(&b, "d := decoder{item: item, what: %s}\n", quote("an entry of index "+x.Name))
	for _, f := range ip.Fields {
		b.WriteString(p.decodeField(f, "x."+f.Name, f.Presence == catalog.Required) + "\n")
	}
	fmt.Fprintf(&b, "if d.err != nil {\nreturn %s{}, d.err\n}\nreturn x, nil\n", ip.Name)
	ip.Decode = "unmarshal" + ip.Name
	ip.Body = b.String()
	return nil
}

func (ip *indexPlan) fieldOf(name string) *fieldPlan {
	for _, f := range ip.Fields {
		if f.Attr.Name == name {
			return f
		}
	}
	return nil
}

// planCompare writes the index's sort order over raw items, for merging
// the pages of its shards: the sort key attributes in order, each by its
// DynamoDB type (strings and binary by bytes, numbers by value).
func (p *plan) planCompare(ip *indexPlan) {
	var b strings.Builder
	sortAttrs := ip.X.Sort
	types := map[string]attr.Type{}
	for _, n := range sortAttrs {
		if a := p.m.Attribute(n); a != nil {
			types[n] = a.Type
		}
	}
	if ip.synthetic() {
		sortAttrs = nil
		if ip.SynSK != nil {
			sortAttrs = []string{ip.SynSK.Attribute}
			types[ip.SynSK.Attribute] = attr.S
		}
	}
	if len(sortAttrs) == 0 {
		b.WriteString("return 0\n")
		ip.CompBody = b.String()
		return
	}
	p.use("compareAttr")
	for i, n := range sortAttrs {
		if i+1 == len(sortAttrs) {
			fmt.Fprintf(&b, "return compareAttr(a[%s], b[%s])\n", quote(n), quote(n))
			break
		}
		fmt.Fprintf(&b, "if c := compareAttr(a[%s], b[%s]); c != 0 {\nreturn c\n}\n", quote(n), quote(n))
	}
	ip.CompBody = b.String()
}
