package generator

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// MaxWorkbenchBytes caps a NoSQL Workbench model read by ImportWorkbench.
const MaxWorkbenchBytes = 16 << 20

var (
	attrNameRe   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	tableNameRe  = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)
	angleRe      = regexp.MustCompile(`<([^<>{}]+)>`)
	notNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// wbImport is a Workbench model being read.
type wbImport struct {
	name   string
	data   []byte
	errs   catalog.ErrorList
	tables []*impTable
	attrs  map[string]*impAttr
	order  []string // attribute names in order of first mention
}

type impTable struct {
	name        string
	pk, sk      string
	billing     string
	read, write int64
	facets      []*impFacet
	indexes     []*impIndex
	disc        string
}

type impFacet struct {
	name         string
	pkT, skT     string
	attrs        []string
	data         []attr.Item
	present      map[string]int // attribute -> items holding it
	placeholders []string
}

type impIndex struct {
	name, table string
	partition   []string
	sort        []string
	projection  string
	include     []string
}

type impAttr struct {
	name string
	typ  string
	doc  string
}

func (w *wbImport) errAt(n *jnode, path, format string, args ...any) {
	var off int64
	if n != nil {
		off = n.off
	}
	w.errs = append(w.errs, &catalog.Error{Pos: pos(w.name, w.data, off), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// str reads a required (or optional) string field.
func (w *wbImport) str(n *jnode, key, path string, required bool) (string, *jnode) {
	v := n.get(key)
	switch {
	case v == nil && required:
		w.errAt(n, path, "missing %s", key)
		return "", nil
	case v == nil:
		return "", nil
	case v.kind != 's':
		w.errAt(v, path+"."+key, "want a string, got %s", kindName(v.kind))
		return "", nil
	case v.str == "" && required:
		w.errAt(v, path+"."+key, "%s is empty", key)
		return "", nil
	}
	return v.str, v
}

func (w *wbImport) list(n *jnode, key, path string) []*jnode {
	v := n.get(key)
	if v == nil {
		return nil
	}
	if v.kind != 'a' {
		w.errAt(v, path+"."+key, "want an array, got %s", kindName(v.kind))
		return nil
	}
	return v.elems
}

func (w *wbImport) attr(name, typ, doc string) {
	if a, ok := w.attrs[name]; ok {
		if a.typ == "" {
			a.typ = typ
		}
		return
	}
	w.attrs[name] = &impAttr{name: name, typ: typ, doc: doc}
	w.order = append(w.order, name)
}

var dynamoTypes = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "NULL": true, "M": true, "L": true, "SS": true, "NS": true, "BS": true}

// attrDef reads an {AttributeName, AttributeType} object at p; want
// opens the error when it is no object. ok is false when it names no
// attribute cardapio can use (the error is recorded).
func (w *wbImport) attrDef(o *jnode, p, want string, typeRequired bool) (name, typ string, tn *jnode, ok bool) {
	if o.kind != 'o' {
		w.errAt(o, p, "%s, got %s", want, kindName(o.kind))
		return "", "", nil, false
	}
	name, nn := w.str(o, "AttributeName", p, true)
	typ, tn = w.str(o, "AttributeType", p, typeRequired)
	if name == "" {
		return "", "", nil, false
	}
	if !attrNameRe.MatchString(name) {
		w.errAt(nn, p+".AttributeName", "attribute name %q: cardapio names are a letter then letters, digits or '_'; rename it in Workbench", name)
		return "", "", nil, false
	}
	return name, typ, tn, true
}

// keyAttrs reads a KeyAttributes object: PartitionKey and SortKey, each
// one attribute object or an array of them (a multi-attribute key).
func (w *wbImport) keyAttrs(n *jnode, path string, scalarOnly bool) (part, sort []string) {
	if n == nil {
		return nil, nil
	}
	read := func(key string) []string {
		v := n.get(key)
		if v == nil {
			return nil
		}
		var objs []*jnode
		switch v.kind {
		case 'o':
			objs = []*jnode{v}
		case 'a':
			objs = v.elems
		default:
			w.errAt(v, path+"."+key, "want an object {AttributeName, AttributeType}, got %s", kindName(v.kind))
			return nil
		}
		var out []string
		for i, o := range objs {
			p := fmt.Sprintf("%s.%s", path, key)
			if v.kind == 'a' {
				p = fmt.Sprintf("%s[%d]", p, i)
			}
			name, typ, tn, ok := w.attrDef(o, p, "want an object {AttributeName, AttributeType}", true)
			if !ok {
				continue
			}
			if typ != "" && (!dynamoTypes[typ] || scalarOnly && typ != "S" && typ != "N" && typ != "B") {
				w.errAt(tn, p+".AttributeType", "key attribute type %q: want S, N or B", typ)
				typ = "S"
			}
			w.attr(name, typ, "")
			out = append(out, name)
		}
		return out
	}
	return read("PartitionKey"), read("SortKey")
}

// value converts a DynamoDB JSON value ({"S": "x"}) of TableData.
func (w *wbImport) value(n *jnode, path string, depth int) (attr.Value, bool) {
	if depth > 32 {
		w.errAt(n, path, "nesting deeper than 32 levels")
		return attr.Value{}, false
	}
	if n.kind != 'o' || len(n.fields) != 1 {
		w.errAt(n, path, "want a DynamoDB JSON value such as {\"S\": \"text\"}")
		return attr.Value{}, false
	}
	tag, v := n.fields[0].key, n.fields[0].val
	bad := func() (attr.Value, bool) {
		w.errAt(v, path+"."+tag, "a %s value cannot be %s", tag, kindName(v.kind))
		return attr.Value{}, false
	}
	switch tag {
	case "S":
		if v.kind != 's' {
			return bad()
		}
		return attr.Str(v.str), true
	case "N":
		if v.kind != 's' && v.kind != 'n' {
			return bad()
		}
		if _, err := strconv.ParseFloat(v.str, 64); err != nil {
			w.errAt(v, path+".N", "%q is not a number", v.str)
			return attr.Value{}, false
		}
		return attr.Num(v.str), true
	case "B":
		if v.kind != 's' {
			return bad()
		}
		raw, err := base64.StdEncoding.DecodeString(v.str)
		if err != nil {
			w.errAt(v, path+".B", "binary is base64 text")
			return attr.Value{}, false
		}
		return attr.Bin(raw), true
	case "BOOL":
		if v.kind != 'b' {
			return bad()
		}
		return attr.Bool(v.b), true
	case "NULL":
		return attr.Null(), true
	case "SS", "NS":
		if v.kind != 'a' {
			return bad()
		}
		var ms []string
		for _, e := range v.elems {
			if e.kind != 's' && !(tag == "NS" && e.kind == 'n') {
				w.errAt(e, path+"."+tag, "a set member is a string")
				return attr.Value{}, false
			}
			ms = append(ms, e.str)
		}
		if tag == "SS" {
			return attr.StrSet(ms...), true
		}
		return attr.NumSet(ms...), true
	case "L":
		if v.kind != 'a' {
			return bad()
		}
		var out []attr.Value
		for i, e := range v.elems {
			x, ok := w.value(e, fmt.Sprintf("%s.L[%d]", path, i), depth+1)
			if !ok {
				return attr.Value{}, false
			}
			out = append(out, x)
		}
		return attr.ListOf(out...), true
	case "M":
		if v.kind != 'o' {
			return bad()
		}
		var it attr.Item
		for _, f := range v.fields {
			x, ok := w.value(f.val, path+".M."+f.key, depth+1)
			if !ok {
				return attr.Value{}, false
			}
			it = it.With(f.key, x)
		}
		return attr.MapOf(it), true
	}
	w.errAt(n, path, "unknown DynamoDB type %q", tag)
	return attr.Value{}, false
}

// ImportWorkbench turns a NoSQL Workbench data model (JSON, version 3.0)
// into a starting model.yaml: its tables with their keys and billing,
// one entity per facet (key templates read from the facet's key aliases,
// USER#<id> and USER#{id} becoming placeholders, capital words
// literals), the attributes with their types, the global secondary
// indexes, and the table data as samples where it fits the templates.
// Access patterns are the workshop's to write: the model starts with one
// read by key per entity. The result is checked by loading it.
//
// name is the file name errors are positioned in. Input over
// MaxWorkbenchBytes, nested deeper than 64 levels or not a Workbench
// model is refused with the line and column to fix; unknown fields are
// ignored.
func ImportWorkbench(name string, data []byte) ([]byte, error) {
	if len(data) > MaxWorkbenchBytes {
		return nil, &plainError{fmt.Sprintf("%s: %d bytes: a Workbench model is read up to %d MiB", name, len(data), MaxWorkbenchBytes>>20)}
	}
	root, err := parseTree(name, data)
	if err != nil {
		return nil, err
	}
	w := &wbImport{name: name, data: data, attrs: map[string]*impAttr{}}
	if root.kind != 'o' {
		w.errAt(root, "", "want a NoSQL Workbench model (a JSON object with ModelName and DataModel), got %s", kindName(root.kind))
		return nil, w.errs
	}
	modelName, _ := w.str(root, "ModelName", "", false)
	var desc string
	if md := root.get("ModelMetadata"); md != nil {
		desc, _ = w.str(md, "Description", "ModelMetadata", false)
		if v, vn := w.str(md, "Version", "ModelMetadata", false); v != "" && !strings.HasPrefix(v, "3.") {
			w.errAt(vn, "ModelMetadata.Version", "version %q: cardapio reads Workbench models of version 3.0; re-export the model from a current NoSQL Workbench", v)
		}
	}
	dm := root.get("DataModel")
	if dm == nil || dm.kind != 'a' || len(dm.elems) == 0 {
		w.errAt(root, "DataModel", "want DataModel, an array of at least one table")
		return nil, w.errs
	}
	if len(dm.elems) > 256 {
		w.errAt(dm, "DataModel", "%d tables: at most 256", len(dm.elems))
		return nil, w.errs
	}
	seenTables := map[string]bool{}
	for i, tn := range dm.elems {
		w.table(tn, fmt.Sprintf("DataModel[%d]", i), seenTables)
	}
	if len(w.errs) == 0 && len(w.tables) == 0 {
		w.errAt(dm, "DataModel", "no table to import")
	}
	if len(w.errs) > 0 {
		w.errs = sortErrs(w.errs)
		return nil, w.errs
	}
	out := w.yaml(modelName, desc, true)
	if _, err := catalog.Parse("imported.yaml", out); err != nil {
		// Samples are the likeliest to break a rule the model format
		// checks (a value outside a template); a model without them is
		// still a start.
		out = w.yaml(modelName, desc, false)
		if len(out) > catalog.MaxInputBytes {
			// Every table, facet and attribute becomes model text: past
			// the limit the model cannot be read back, and that is the
			// input's size, not a fault of the importer.
			return nil, &plainError{fmt.Sprintf("%s: the model it makes is %.1f MiB even without samples, over the %d MiB a model may be: import fewer tables, facets or attributes at a time",
				name, float64(len(out))/(1<<20), catalog.MaxInputBytes>>20)}
		}
		if _, err2 := catalog.Parse("imported.yaml", out); err2 != nil {
			// The file's tables, keys and aliases make a model the format
			// refuses (two facets whose keys cannot be told apart, a
			// key misspelled and so absent): the file is at fault.
			return nil, &plainError{fmt.Sprintf("%s: the Workbench model imports as a model that does not load; fix it in Workbench:\n%v", name, err2)}
		}
	}
	return out, nil
}

func sortErrs(l catalog.ErrorList) catalog.ErrorList {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l
}

func (w *wbImport) table(n *jnode, path string, seen map[string]bool) {
	if n.kind != 'o' {
		w.errAt(n, path, "want a table object, got %s", kindName(n.kind))
		return
	}
	t := &impTable{billing: "onDemand"}
	name, nn := w.str(n, "TableName", path, true)
	if name == "" {
		return
	}
	if !tableNameRe.MatchString(name) {
		w.errAt(nn, path+".TableName", "table name %q: DynamoDB names have 3 to 255 letters, digits, '_', '-' or '.'", name)
		return
	}
	if seen[name] {
		w.errAt(nn, path+".TableName", "table %s appears twice", name)
		return
	}
	seen[name] = true
	t.name = name
	ka := n.get("KeyAttributes")
	if ka == nil {
		w.errAt(n, path, "missing KeyAttributes")
		return
	}
	part, sk := w.keyAttrs(ka, path+".KeyAttributes", true)
	if len(part) != 1 || len(sk) > 1 {
		w.errAt(ka, path+".KeyAttributes", "a table has one partition key attribute and at most one sort key attribute")
		return
	}
	t.pk = part[0]
	if len(sk) == 1 {
		t.sk = sk[0]
	}
	for _, k := range t.keys() {
		if w.attrs[k].typ == "B" {
			w.errAt(ka, path+".KeyAttributes", "key attribute %s is binary: the model format keys items by string or number templates", k)
			return
		}
	}
	if w.attrs[t.pk].doc == "" {
		w.attrs[t.pk].doc = "Partition key of table " + name + "."
	}
	if t.sk != "" && w.attrs[t.sk].doc == "" {
		w.attrs[t.sk].doc = "Sort key of table " + name + "."
	}
	w.nonKeyAttrs(n, path)
	w.billing(t, n, path)
	facetNames := map[string]bool{}
	for i, fn := range w.list(n, "TableFacets", path) {
		f := w.facet(t, fn, fmt.Sprintf("%s.TableFacets[%d]", path, i))
		if f == nil {
			continue
		}
		if facetNames[f.name] {
			w.errAt(fn, fmt.Sprintf("%s.TableFacets[%d]", path, i), "facet %s appears twice", f.name)
			continue
		}
		facetNames[f.name] = true
		t.facets = append(t.facets, f)
	}
	for i, xn := range w.list(n, "GlobalSecondaryIndexes", path) {
		p := fmt.Sprintf("%s.GlobalSecondaryIndexes[%d]", path, i)
		if xn.kind != 'o' {
			w.errAt(xn, p, "want an index object, got %s", kindName(xn.kind))
			continue
		}
		x := w.index(xn, p, name)
		if x == nil {
			continue
		}
		t.indexes = append(t.indexes, x)
	}
	// Table data not held by a facet is matched to the facets by key.
	for i, it := range w.list(n, "TableData", path) {
		item, ok := w.item(it, fmt.Sprintf("%s.TableData[%d]", path, i))
		if !ok {
			continue
		}
		held := false
		for _, f := range t.facets {
			held = held || f.holds(item)
		}
		if held {
			continue
		}
		for _, f := range t.facets {
			if f.fits(t, item) {
				f.add(item)
				break
			}
		}
	}
	if len(t.facets) == 0 {
		// A table without facets still holds items: one entity keyed by
		// the key values themselves, for the workshop to split.
		base := notNameChars.ReplaceAllString(name, "_")
		if !(base[0] >= 'A' && base[0] <= 'Z' || base[0] >= 'a' && base[0] <= 'z') {
			base = "T" + base
		}
		f := &impFacet{name: exported(base) + "Item", present: map[string]int{}}
		f.pkT = w.template(f, t.pk, "")
		if t.sk != "" {
			f.skT = w.template(f, t.sk, "")
		}
		t.facets = append(t.facets, f)
	}
	t.disc = discriminator(t)
	w.tables = append(w.tables, t)
}

// nonKeyAttrs reads a table's NonKeyAttributes into the attribute set.
func (w *wbImport) nonKeyAttrs(n *jnode, path string) {
	for i, a := range w.list(n, "NonKeyAttributes", path) {
		p := fmt.Sprintf("%s.NonKeyAttributes[%d]", path, i)
		an, typ, tn, ok := w.attrDef(a, p, "want {AttributeName, AttributeType}", false)
		if !ok {
			continue
		}
		if typ != "" && !dynamoTypes[typ] {
			w.errAt(tn, p+".AttributeType", "unknown attribute type %q", typ)
			typ = ""
		}
		w.attr(an, typ, "")
	}
}

// billing reads a table's billing mode and provisioned capacity, one
// unit each unless Workbench gives more.
func (w *wbImport) billing(t *impTable, n *jnode, path string) {
	if bm, bn := w.str(n, "BillingMode", path, false); bm == "PROVISIONED" {
		t.billing = "provisioned"
		t.read, t.write = 1, 1
		if pt := n.get("ProvisionedCapacitySettings").get("ProvisionedThroughput"); pt != nil {
			for key, dst := range map[string]*int64{"ReadCapacityUnits": &t.read, "WriteCapacityUnits": &t.write} {
				if v := pt.get(key); v != nil && v.kind == 'n' {
					if u, err := strconv.ParseInt(v.str, 10, 64); err == nil && u > 0 {
						*dst = u
					}
				}
			}
		}
	} else if bm != "" && bm != "PAY_PER_REQUEST" {
		w.errAt(bn, path+".BillingMode", "billing mode %q: want PAY_PER_REQUEST or PROVISIONED", bm)
	}
}

// index reads one GlobalSecondaryIndexes entry of table; nil when it
// cannot be read (the error is recorded).
func (w *wbImport) index(xn *jnode, p, table string) *impIndex {
	x := &impIndex{table: table}
	iname, in := w.str(xn, "IndexName", p, true)
	if iname == "" {
		return nil
	}
	if !tableNameRe.MatchString(iname) {
		w.errAt(in, p+".IndexName", "index name %q: DynamoDB names have 3 to 255 letters, digits, '_', '-' or '.'", iname)
		return nil
	}
	x.name = iname
	x.partition, x.sort = w.keyAttrs(xn.get("KeyAttributes"), p+".KeyAttributes", true)
	if len(x.partition) == 0 {
		w.errAt(xn, p, "an index needs KeyAttributes.PartitionKey")
		return nil
	}
	if len(x.partition) > 4 || len(x.sort) > 4 {
		w.errAt(xn, p+".KeyAttributes", "at most 4 partition and 4 sort attributes")
		return nil
	}
	x.projection = "ALL"
	if pr := xn.get("Projection"); pr != nil {
		pt, ptn := w.str(pr, "ProjectionType", p+".Projection", false)
		switch pt {
		case "", "ALL":
		case "KEYS_ONLY", "INCLUDE":
			x.projection = pt
		default:
			w.errAt(ptn, p+".Projection.ProjectionType", "projection %q: want ALL, KEYS_ONLY or INCLUDE", pt)
		}
		for j, a := range w.list(pr, "NonKeyAttributes", p+".Projection") {
			if a.kind != 's' || !attrNameRe.MatchString(a.str) {
				w.errAt(a, fmt.Sprintf("%s.Projection.NonKeyAttributes[%d]", p, j), "want an attribute name")
				continue
			}
			w.attr(a.str, "", "")
			x.include = append(x.include, a.str)
		}
		if x.projection == "INCLUDE" && len(x.include) == 0 {
			x.projection = "KEYS_ONLY"
		}
	}
	return x
}

func (w *wbImport) item(n *jnode, path string) (attr.Item, bool) {
	if n.kind != 'o' {
		w.errAt(n, path, "want an item (an object of DynamoDB JSON values), got %s", kindName(n.kind))
		return nil, false
	}
	var it attr.Item
	for _, f := range n.fields {
		v, ok := w.value(f.val, path+"."+f.key, 0)
		if !ok {
			return nil, false
		}
		it = it.With(f.key, v)
	}
	return it, true
}

func (w *wbImport) facet(t *impTable, n *jnode, path string) *impFacet {
	if n.kind != 'o' {
		w.errAt(n, path, "want a facet object, got %s", kindName(n.kind))
		return nil
	}
	raw, fnn := w.str(n, "FacetName", path, true)
	if raw == "" {
		return nil
	}
	name := notNameChars.ReplaceAllString(raw, "_")
	if name == "" || !(name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		name = "E" + name
	}
	if len(name) > 64 {
		w.errAt(fnn, path+".FacetName", "facet name %q: at most 64 characters", raw)
		return nil
	}
	f := &impFacet{name: name, present: map[string]int{}}
	alias := n.get("KeyAttributeAlias")
	pka, _ := w.str(alias, "PartitionKeyAlias", path+".KeyAttributeAlias", false)
	ska, _ := w.str(alias, "SortKeyAlias", path+".KeyAttributeAlias", false)
	f.pkT = w.template(f, t.pk, pka)
	if t.sk != "" {
		f.skT = w.template(f, t.sk, ska)
	}
	for i, a := range w.list(n, "NonKeyAttributes", path) {
		if a.kind != 's' || !attrNameRe.MatchString(a.str) {
			w.errAt(a, fmt.Sprintf("%s.NonKeyAttributes[%d]", path, i), "want an attribute name (a letter then letters, digits or '_')")
			continue
		}
		if a.str == t.pk || a.str == t.sk || slices.Contains(f.attrs, a.str) {
			continue
		}
		w.attr(a.str, "", "")
		f.attrs = append(f.attrs, a.str)
	}
	for i, it := range w.list(n, "TableData", path) {
		if item, ok := w.item(it, fmt.Sprintf("%s.TableData[%d]", path, i)); ok {
			f.add(item)
		}
	}
	return f
}

// template reads a facet's key alias as a key template: {x} and <x> are
// placeholders; of the words between separators, capitalised constants
// (USER, PROFILE, CT) are literals and names (userId, SongId) are
// placeholders.
func (w *wbImport) template(f *impFacet, keyAttr, alias string) string {
	alias = strings.TrimSpace(alias)
	if a := w.attrs[keyAttr]; a != nil && a.typ == "N" {
		// A number key is one number: its template is one placeholder.
		ph := keyAttr + "Value"
		if attrNameRe.MatchString(alias) && alias != keyAttr {
			ph = alias
		}
		w.attr(ph, "N", "Key value of "+f.name+".")
		if w.attrs[ph].typ != "N" {
			ph = keyAttr + "Value"
			w.attr(ph, "N", "Key value of "+f.name+".")
		}
		f.placeholders = append(f.placeholders, ph)
		return "{" + ph + "}"
	}
	if alias == "" || alias == keyAttr {
		ph := keyAttr + "Value"
		w.attr(ph, "S", "Key value of "+f.name+" (the Workbench facet gave no alias).")
		f.placeholders = append(f.placeholders, ph)
		return "{" + ph + "}"
	}
	alias = angleRe.ReplaceAllStringFunc(alias, func(m string) string { return "{" + m[1:len(m)-1] + "}" })
	if !strings.ContainsAny(alias, "{}") {
		var parts []string
		for _, seg := range strings.Split(alias, "#") {
			if seg != "" && attrNameRe.MatchString(seg) && strings.ToUpper(seg) != seg {
				parts = append(parts, "{"+seg+"}")
			} else {
				parts = append(parts, seg)
			}
		}
		alias = strings.Join(parts, "#")
	}
	t, err := catalog.ParseTemplate(alias)
	if err != nil {
		// Not a template: keep it as a constant, braces dropped.
		return strings.NewReplacer("{", "", "}", "").Replace(alias)
	}
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Attr == "" {
			b.WriteString(p.Literal)
			continue
		}
		name := p.Attr
		if !attrNameRe.MatchString(name) {
			name = "x" + notNameChars.ReplaceAllString(name, "_")
		}
		typ := ""
		if p.Width > 0 {
			typ = "N" // a zero-padded placeholder is a number
		}
		w.attr(name, typ, "")
		if !slices.Contains(f.placeholders, name) {
			f.placeholders = append(f.placeholders, name)
		}
		b.WriteString("{" + name)
		if p.Width > 0 {
			fmt.Fprintf(&b, ":%02d", p.Width)
		}
		b.WriteString("}")
	}
	return b.String()
}

func (t *impTable) keys() []string {
	if t.sk == "" {
		return []string{t.pk}
	}
	return []string{t.pk, t.sk}
}

func (f *impFacet) add(it attr.Item) {
	f.data = append(f.data, it)
	for _, fl := range it {
		f.present[fl.Name]++
	}
}

func (f *impFacet) holds(it attr.Item) bool {
	for _, d := range f.data {
		if attr.EqualItems(d, it) {
			return true
		}
	}
	return false
}

// fits reports whether an item's keys have the facet's templates.
func (f *impFacet) fits(t *impTable, it attr.Item) bool {
	for _, k := range []struct{ a, tmpl string }{{t.pk, f.pkT}, {t.sk, f.skT}} {
		if k.a == "" {
			continue
		}
		v, ok := it.Get(k.a)
		if !ok {
			return false
		}
		tm, err := catalog.ParseTemplate(k.tmpl)
		if err != nil {
			return false
		}
		m, ok := tm.Match(v.Str)
		if !ok {
			return false
		}
		for _, s := range m {
			if s == "" || strings.Contains(s, "#") {
				return false
			}
		}
	}
	return true
}

// discriminator finds an attribute whose value in every item of every
// facet is the facet's name.
func discriminator(t *impTable) string {
	var cands []string
	for _, f := range t.facets {
		for _, it := range f.data {
			for _, fl := range it {
				if fl.Value.Type == attr.S && fl.Value.Str == f.name && !slices.Contains(cands, fl.Name) {
					cands = append(cands, fl.Name)
				}
			}
		}
	}
	for _, c := range cands {
		ok, any := true, false
		for _, f := range t.facets {
			for _, it := range f.data {
				v, has := it.Get(c)
				ok = ok && has && v.Str == f.name
				any = true
			}
		}
		if ok && any {
			return c
		}
	}
	return ""
}

// yaml prints the starting model.
func (w *wbImport) yaml(modelName, desc string, samples bool) []byte {
	var b strings.Builder
	name := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(modelName), "-"), "-_")
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z') {
		name = "imported"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	fmt.Fprintf(&b, "# A starting model, imported from the NoSQL Workbench model %s.\n", yamlStr(modelName))
	b.WriteString("# Key templates were read from the facets' key aliases: check each one,\n")
	b.WriteString("# describe every attribute, and write the access patterns with the people\n")
	b.WriteString("# who ask the questions (each entity starts with one read by its key).\n")
	b.WriteString("formatVersion: 1\n")
	fmt.Fprintf(&b, "name: %s\n", name)
	if desc != "" {
		fmt.Fprintf(&b, "description: %s\n", yamlStr(desc))
	}
	b.WriteString("\ntables:\n")
	for _, t := range w.tables {
		fmt.Fprintf(&b, "  %s:\n    partitionKey: %s\n", yamlStr(t.name), t.pk)
		if t.sk != "" {
			fmt.Fprintf(&b, "    sortKey: %s\n", t.sk)
		}
		if t.disc != "" {
			fmt.Fprintf(&b, "    discriminator: %s\n", t.disc)
		}
		if t.billing == "provisioned" {
			fmt.Fprintf(&b, "    billing: {mode: provisioned, read: {units: %d}, write: {units: %d}}\n", t.read, t.write)
		} else {
			b.WriteString("    billing: {mode: onDemand}\n")
		}
	}
	b.WriteString("\nattributes:\n")
	for _, n := range w.order {
		a := w.attrs[n]
		typ := a.typ
		if typ == "" {
			typ = "S"
		}
		doc := a.doc
		if doc == "" {
			doc = "Imported from the Workbench model; describe it."
		}
		fmt.Fprintf(&b, "  %s: {type: %s, description: %s}\n", n, typ, yamlStr(doc))
	}
	b.WriteString("\nentities:\n")
	for _, t := range w.tables {
		for _, f := range t.facets {
			fmt.Fprintf(&b, "  %s:\n    table: %s\n    key:\n      %s: %s\n", f.name, yamlStr(t.name), t.pk, yamlStr(f.pkT))
			if t.sk != "" {
				fmt.Fprintf(&b, "      %s: %s\n", t.sk, yamlStr(f.skT))
			}
			b.WriteString("    attributes:")
			var lines []string
			for _, ph := range f.placeholders {
				if ph != t.pk && ph != t.sk && !slices.Contains(f.attrs, ph) {
					lines = append(lines, fmt.Sprintf("      %s: key", ph))
				}
			}
			for _, a := range f.attrs {
				if a == t.disc {
					continue
				}
				pr := "optional"
				if len(f.data) > 0 && f.present[a] == len(f.data) {
					pr = "required"
				}
				if slices.Contains(f.placeholders, a) {
					pr = "required"
				}
				lines = append(lines, fmt.Sprintf("      %s: %s", a, pr))
			}
			if len(lines) == 0 {
				b.WriteString(" {}\n")
			} else {
				b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
			}
			if samples {
				w.samples(&b, t, f)
			}
		}
	}
	var idx []*impIndex
	for _, t := range w.tables {
		idx = append(idx, t.indexes...)
	}
	if len(idx) > 0 {
		b.WriteString("\nindexes:\n")
		for _, x := range idx {
			fmt.Fprintf(&b, "  %s:\n    table: %s\n    partition: [%s]\n", yamlStr(x.name), yamlStr(x.table), strings.Join(x.partition, ", "))
			if len(x.sort) > 0 {
				fmt.Fprintf(&b, "    sort: [%s]\n", strings.Join(x.sort, ", "))
			}
			if x.projection == "INCLUDE" {
				fmt.Fprintf(&b, "    projection: {type: INCLUDE, attributes: [%s]}\n", strings.Join(x.include, ", "))
			} else {
				fmt.Fprintf(&b, "    projection: {type: %s}\n", x.projection)
			}
		}
	}
	b.WriteString("\n# Write the questions of the business here: who asks, how often, how\n# consistent, and the key that answers each.\naccessPatterns:\n")
	n := 0
	for _, t := range w.tables {
		for _, f := range t.facets {
			n++
			fmt.Fprintf(&b, "  AP%02d:\n    question: %s\n    askedBy: [workshop]\n    consistency: eventual\n    answer:\n      table: %s\n",
				n, yamlStr("Read one "+f.name+" by its key (imported: replace with the real question)"), yamlStr(t.name))
			if t.sk != "" {
				b.WriteString("      operation: GetItem\n")
			}
			fmt.Fprintf(&b, "      key:\n        %s: {eq: %s}\n", t.pk, yamlStr(f.pkT))
			if t.sk != "" {
				fmt.Fprintf(&b, "        %s: {eq: %s}\n", t.sk, yamlStr(f.skT))
			}
		}
	}
	for _, x := range idx {
		n++
		fmt.Fprintf(&b, "  AP%02d:\n    question: %s\n    askedBy: [workshop]\n    consistency: eventual\n    answer:\n      index: %s\n      key:\n",
			n, yamlStr("Read index "+x.name+" by "+strings.Join(x.partition, " and ")+" (imported: replace with the real question)"), yamlStr(x.name))
		for _, a := range x.partition {
			fmt.Fprintf(&b, "        %s: {eq: %s}\n", a, yamlStr("{"+a+"}"))
		}
	}
	return []byte(b.String())
}

// samples prints a facet's table data whose keys fit its templates.
func (w *wbImport) samples(b *strings.Builder, t *impTable, f *impFacet) {
	var out []string
	for i, it := range f.data {
		if len(out) == 20 {
			break
		}
		vals := map[string]attr.Value{}
		ok := true
		for _, k := range []struct{ a, tmpl string }{{t.pk, f.pkT}, {t.sk, f.skT}} {
			if k.a == "" {
				continue
			}
			v, has := it.Get(k.a)
			tm, err := catalog.ParseTemplate(k.tmpl)
			if !has || err != nil || v.Type != attr.S {
				ok = false
				break
			}
			m, match := tm.Match(v.Str)
			if !match {
				ok = false
				break
			}
			for ph, s := range m {
				vals[ph] = attr.Str(s)
				if typ := w.attrs[ph]; typ != nil && typ.typ == "N" {
					vals[ph] = attr.Num(s)
				}
			}
		}
		if !ok {
			continue
		}
		for _, fl := range it {
			if fl.Name == t.pk || fl.Name == t.sk || fl.Name == t.disc {
				continue
			}
			if !slices.Contains(f.attrs, fl.Name) && !slices.Contains(f.placeholders, fl.Name) {
				ok = false
				break
			}
			vals[fl.Name] = fl.Value
		}
		if !ok {
			continue
		}
		var fields []string
		for _, k := range sortedNames(vals) {
			y, good := yamlValue(vals[k])
			if !good {
				ok = false
				break
			}
			fields = append(fields, k+": "+y)
		}
		if ok && len(fields) > 0 {
			out = append(out, fmt.Sprintf("      item%d: {%s}", i+1, strings.Join(fields, ", ")))
		}
	}
	if len(out) > 0 {
		b.WriteString("    samples:\n" + strings.Join(out, "\n") + "\n")
	}
}

// yamlValue prints an attribute value as a flow YAML value the model
// format reads back with the same type; false for what it cannot (sets,
// binary, NULL).
func yamlValue(v attr.Value) (string, bool) {
	switch v.Type {
	case attr.S:
		return yamlStr(v.Str), true
	case attr.N:
		return v.Str, true
	case attr.BOOL:
		return strconv.FormatBool(v.Bool), true
	case attr.B:
		return yamlStr(base64.StdEncoding.EncodeToString([]byte(v.Str))), true
	case attr.L:
		var parts []string
		for _, e := range v.List {
			y, ok := yamlValue(e)
			if !ok {
				return "", false
			}
			parts = append(parts, y)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case attr.M:
		var parts []string
		for _, f := range v.Map {
			y, ok := yamlValue(f.Value)
			if !ok {
				return "", false
			}
			parts = append(parts, yamlStr(f.Name)+": "+y)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// IsImportError reports whether err is a positioned error of the input
// (exit 2) rather than a failure of the importer.
func IsImportError(err error) bool {
	var l catalog.ErrorList
	var p *plainError
	return errors.As(err, &l) || errors.As(err, &p)
}
