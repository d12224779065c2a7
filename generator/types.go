package generator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// kind is the shape of a Go value the generated code holds for an
// attribute value.
type kind int

const (
	kString    kind = iota // string, or a named string type (an enum)
	kInt                   // int64
	kFloat                 // float64
	kBytes                 // []byte
	kBool                  // bool
	kNull                  // a NULL value: no Go value
	kList                  // []Elem
	kMap                   // map[string]Elem
	kStringSet             // []string (SS)
	kIntSet                // []int64 (NS of integers)
	kFloatSet              // []float64 (NS)
	kBytesSet              // [][]byte (BS)
	kRaw                   // types.AttributeValue: a value whose shape the model does not fix
	kStruct                // a map whose members the model declares: a struct
)

// gotype is the Go type of an attribute or parameter value, with what the
// generated code calls to encode, decode and print it.
type gotype struct {
	kind kind
	enum *enumPlan   // kString: the enum type, nil for plain string
	elem *gotype     // kList, kMap
	st   *structPlan // kStruct
	dyn  attr.Type   // the DynamoDB type
}

// structPlan is the Go struct of a map whose members the model declares,
// with its codec.
type structPlan struct {
	Name             string // ChannelPrefs
	Attr             string // the attribute (or element) it is the value of, for docs
	Doc              string
	Fields           []*fieldPlan
	Encode           string // channelPrefsValue
	Decode           string // asChannelPrefs
	EncBody, DecBody string
}

var (
	tString = &gotype{kind: kString, dyn: attr.S}
	tInt    = &gotype{kind: kInt, dyn: attr.N}
	tFloat  = &gotype{kind: kFloat, dyn: attr.N}
	tBytes  = &gotype{kind: kBytes, dyn: attr.B}
	tBool   = &gotype{kind: kBool, dyn: attr.BOOL}
	tRaw    = &gotype{kind: kRaw}
)

// Go returns the Go type expression.
func (t *gotype) Go() string {
	switch t.kind {
	case kString:
		if t.enum != nil {
			return t.enum.Name
		}
		return "string"
	case kInt:
		return "int64"
	case kFloat:
		return "float64"
	case kBytes:
		return "[]byte"
	case kBool:
		return "bool"
	case kNull:
		return "struct{}"
	case kList:
		return "[]" + t.elem.Go()
	case kMap:
		return "map[string]" + t.elem.Go()
	case kStringSet:
		return "[]string"
	case kIntSet:
		return "[]int64"
	case kFloatSet:
		return "[]float64"
	case kBytesSet:
		return "[][]byte"
	case kStruct:
		return t.st.Name
	}
	switch t.dyn {
	case attr.L:
		return "[]types.AttributeValue"
	case attr.M:
		return "map[string]types.AttributeValue"
	}
	return "types.AttributeValue"
}

// nilable reports whether the Go zero value stands for "absent" (slices,
// maps, interfaces), so an optional attribute needs no pointer.
func (t *gotype) nilable() bool {
	switch t.kind {
	case kBytes, kList, kMap, kStringSet, kIntSet, kFloatSet, kBytesSet, kRaw:
		return true
	}
	return false
}

// encoder is the Go function value turning a T into a
// types.AttributeValue.
func (p *plan) encoder(t *gotype) string {
	switch t.kind {
	case kString:
		p.use("stringValue")
		return "stringValue[" + t.Go() + "]"
	case kInt:
		p.use("intValue")
		return "intValue"
	case kFloat:
		p.use("floatValue")
		return "floatValue"
	case kBytes:
		p.use("bytesValue")
		return "bytesValue"
	case kBool:
		p.use("boolValue")
		return "boolValue"
	case kList:
		p.use("listValue")
		return "listValue(" + p.encoder(t.elem) + ")"
	case kMap:
		p.use("mapValue")
		return "mapValue(" + p.encoder(t.elem) + ")"
	case kStringSet:
		p.use("stringSetValue")
		return "stringSetValue"
	case kIntSet:
		p.use("intSetValue")
		return "intSetValue"
	case kFloatSet:
		p.use("floatSetValue")
		return "floatSetValue"
	case kBytesSet:
		p.use("bytesSetValue")
		return "bytesSetValue"
	case kStruct:
		return t.st.Encode
	}
	switch t.dyn {
	case attr.L:
		p.use("rawListValue")
		return "rawListValue"
	case attr.M:
		p.use("rawMapValue")
		return "rawMapValue"
	}
	p.use("rawValue")
	return "rawValue"
}

// encode returns the Go expression encoding x.
func (p *plan) encode(t *gotype, x string) string {
	switch t.kind {
	case kString:
		p.use("stringValue")
		return "stringValue(" + x + ")"
	case kList, kMap:
		return p.encoder(t) + "(" + x + ")"
	}
	return p.encoder(t) + "(" + x + ")"
}

// decoder is the Go function value turning a types.AttributeValue into a
// T, or an error naming the type found.
func (p *plan) decoder(t *gotype) string {
	switch t.kind {
	case kString:
		p.use("asString")
		return "asString[" + t.Go() + "]"
	case kInt:
		p.use("asInt")
		return "asInt"
	case kFloat:
		p.use("asFloat")
		return "asFloat"
	case kBytes:
		p.use("asBytes")
		return "asBytes"
	case kBool:
		p.use("asBool")
		return "asBool"
	case kList:
		p.use("asList")
		return "asList(" + p.decoder(t.elem) + ")"
	case kMap:
		p.use("asMap")
		return "asMap(" + p.decoder(t.elem) + ")"
	case kStringSet:
		p.use("asStringSet")
		return "asStringSet"
	case kIntSet:
		p.use("asIntSet")
		return "asIntSet"
	case kFloatSet:
		p.use("asFloatSet")
		return "asFloatSet"
	case kBytesSet:
		p.use("asBytesSet")
		return "asBytesSet"
	case kStruct:
		return t.st.Decode
	}
	switch t.dyn {
	case attr.L:
		p.use("asRawList")
		return "asRawList"
	case attr.M:
		p.use("asRawMap")
		return "asRawMap"
	}
	p.use("asRaw")
	return "asRaw"
}

// literal returns a Go expression of type types.AttributeValue for a
// constant value of the model.
func (p *plan) literal(v attr.Value) string {
	return avLiteral(v, func(s string) string {
		p.use("stringValue")
		return "stringValue(" + quote(s) + ")"
	})
}

// avLiteral returns a Go expression of type types.AttributeValue for v,
// its strings written by str.
func avLiteral(v attr.Value, str func(string) string) string {
	switch v.Type {
	case attr.S:
		return str(v.Str)
	case attr.N:
		return "&types.AttributeValueMemberN{Value: " + quote(v.Str) + "}"
	case attr.B:
		return "&types.AttributeValueMemberB{Value: []byte(" + quote(v.Str) + ")}"
	case attr.BOOL:
		return "&types.AttributeValueMemberBOOL{Value: " + strconv.FormatBool(v.Bool) + "}"
	case attr.NULL:
		return "&types.AttributeValueMemberNULL{Value: true}"
	case attr.SS, attr.NS:
		tag := "SS"
		if v.Type == attr.NS {
			tag = "NS"
		}
		parts := make([]string, len(v.Set))
		for i, s := range v.Set {
			parts[i] = quote(s)
		}
		return "&types.AttributeValueMember" + tag + "{Value: []string{" + strings.Join(parts, ", ") + "}}"
	case attr.BS:
		parts := make([]string, len(v.Set))
		for i, s := range v.Set {
			parts[i] = "[]byte(" + quote(s) + ")"
		}
		return "&types.AttributeValueMemberBS{Value: [][]byte{" + strings.Join(parts, ", ") + "}}"
	case attr.L:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = avLiteral(e, str)
		}
		return "&types.AttributeValueMemberL{Value: []types.AttributeValue{" + strings.Join(parts, ", ") + "}}"
	case attr.M:
		parts := make([]string, len(v.Map))
		for i, f := range v.Map {
			parts[i] = quote(f.Name) + ": " + avLiteral(f.Value, str)
		}
		return "&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{" + strings.Join(parts, ", ") + "}}"
	}
	return "&types.AttributeValueMemberNULL{Value: true}"
}

// text returns the Go expression printing x of type t into a key or a
// template, through the keyBuilder k (which records the first error).
func (p *plan) text(t *gotype, name, x string, width int) string {
	switch {
	case width > 0:
		return "k.padded(" + quote(name) + ", " + x + ", " + strconv.Itoa(width) + ")"
	case t.kind == kString && t.enum != nil:
		return "k.text(" + quote(name) + ", string(" + x + "))"
	case t.kind == kString:
		return "k.text(" + quote(name) + ", " + x + ")"
	case t.kind == kInt:
		return "k.int(" + x + ")"
	case t.kind == kFloat:
		return "k.float(" + x + ")"
	}
	return "k.text(" + quote(name) + ", fmt.Sprint(" + x + "))"
}

// valueType is the Go type of an attribute's values, from its DynamoDB
// type, its enum, and what the model says or shows about numbers and
// collections.
func (p *plan) valueType(a *catalog.Attribute) *gotype {
	if t, ok := p.types[a.Name]; ok {
		return t
	}
	var t *gotype
	switch a.Type {
	case attr.S:
		t = tString
		if e := p.enumOf(a); e != nil {
			t = &gotype{kind: kString, enum: e, dyn: attr.S}
		}
	case attr.N:
		t = tFloat
		if p.integer(a) {
			t = tInt
		}
	case attr.B:
		t = tBytes
	case attr.BOOL:
		t = tBool
	case attr.NULL:
		t = &gotype{kind: kNull, dyn: attr.NULL}
	case attr.SS:
		t = &gotype{kind: kStringSet, dyn: attr.SS}
	case attr.NS:
		t = &gotype{kind: kFloatSet, dyn: attr.NS}
		if p.integer(a) {
			t = &gotype{kind: kIntSet, dyn: attr.NS}
		}
	case attr.BS:
		t = &gotype{kind: kBytesSet, dyn: attr.BS}
	case attr.L, attr.M:
		t = p.collectionType(a)
	default:
		t = tRaw
	}
	p.types[a.Name] = t
	return t
}

// integerUnits are units whose values are whole numbers.
var integerUnits = map[string]bool{
	catalog.UnitCents: true, catalog.UnitEpochSeconds: true, "count": true, "sequence": true,
	"version": true, "days": true, "seconds": true, "milliseconds": true, "units": true, "bytes": true,
}

// integer reports whether a number attribute holds whole numbers: its unit
// says so, it is zero-padded in a key, it is a shard, or every value the
// model shows for it (samples, parameter samples, literals) is whole.
func (p *plan) integer(a *catalog.Attribute) bool {
	if a.Integer || integerUnits[a.Unit] || p.padded[a.Name] {
		return true
	}
	if a.Computed != nil && a.Computed.Kind == catalog.KindHashMod {
		return true
	}
	vs := p.samples[a.Name]
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		for _, s := range numberTexts(v) {
			if !wholeNumber(s) {
				return false
			}
		}
	}
	return true
}

func numberTexts(v attr.Value) []string {
	switch v.Type {
	case attr.N:
		return []string{v.Str}
	case attr.NS:
		return v.Set
	}
	return nil
}

// wholeNumber reports whether a number text is an integer that fits an
// int64 (no fraction, no exponent).
func wholeNumber(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// collectionType is the Go type of a list or map attribute: from the
// members and elements its domain declares (a map with fields is a struct,
// a list of such maps a slice of it), else inferred from the values the
// model shows (all elements of one scalar type give []string,
// map[string]bool...); anything else keeps the SDK's types.AttributeValue,
// which holds any shape.
func (p *plan) collectionType(a *catalog.Attribute) *gotype {
	if a.Type == attr.M && len(a.Fields) > 0 {
		return p.structType(a.Name, exported(a.Name), a.Description, a.Fields)
	}
	if a.Type == attr.L && a.Items != nil {
		if et := p.memberType(a.Items, singular(a.Name)); et != nil {
			return &gotype{kind: kList, elem: et, dyn: attr.L}
		}
	}
	raw := &gotype{kind: kRaw, dyn: a.Type}
	var elems []attr.Value
	for _, v := range p.samples[a.Name] {
		if v.Type != a.Type {
			return raw
		}
		if v.Type == attr.L {
			elems = append(elems, v.List...)
		} else {
			for _, f := range v.Map {
				elems = append(elems, f.Value)
			}
		}
	}
	if len(elems) == 0 {
		return raw
	}
	et := elems[0].Type
	whole := true
	for _, e := range elems {
		if e.Type != et {
			return raw
		}
		if e.Type == attr.N && !wholeNumber(e.Str) {
			whole = false
		}
	}
	var elem *gotype
	switch et {
	case attr.S:
		elem = tString
	case attr.N:
		elem = tFloat
		if whole {
			elem = tInt
		}
	case attr.BOOL:
		elem = tBool
	case attr.B:
		elem = tBytes
	default:
		return raw
	}
	if a.Type == attr.L {
		return &gotype{kind: kList, elem: elem, dyn: attr.L}
	}
	return &gotype{kind: kMap, elem: elem, dyn: attr.M}
}

// singular names the element of a list attribute: lineItems -> LineItem.
func singular(name string) string {
	n := exported(name)
	switch {
	case strings.HasSuffix(n, "ies") && len(n) > 4:
		return n[:len(n)-3] + "y"
	case strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") && len(n) > 3:
		return n[:len(n)-1]
	}
	return n + "Element"
}

// memberType is the Go type of a declared list element or map member.
func (p *plan) memberType(m *catalog.Member, hint string) *gotype {
	switch m.Type {
	case attr.S:
		return tString
	case attr.N:
		if m.Integer || integerUnits[m.Unit] {
			return tInt
		}
		return tFloat
	case attr.BOOL:
		return tBool
	case attr.B:
		return tBytes
	case attr.SS:
		return &gotype{kind: kStringSet, dyn: attr.SS}
	case attr.NS:
		if m.Integer {
			return &gotype{kind: kIntSet, dyn: attr.NS}
		}
		return &gotype{kind: kFloatSet, dyn: attr.NS}
	case attr.M:
		if len(m.Fields) > 0 {
			return p.structType(hint, hint, "", m.Fields)
		}
	case attr.L:
		if m.Items != nil {
			if et := p.memberType(m.Items, singular(hint)); et != nil {
				return &gotype{kind: kList, elem: et, dyn: attr.L}
			}
		}
	}
	return &gotype{kind: kRaw, dyn: m.Type}
}

// structType plans the struct of a map with declared members.
func (p *plan) structType(owner, name, desc string, members []*catalog.Member) *gotype {
	if st, ok := p.structs[owner]; ok {
		return &gotype{kind: kStruct, st: st, dyn: attr.M}
	}
	st := &structPlan{Name: p.names.claim("struct:"+owner, name, "Map"), Attr: owner}
	st.Encode = unexported(st.Name) + "Value"
	st.Decode = "as" + st.Name
	st.Doc = fmt.Sprintf("is the value of %s, a map of %d members", owner, len(members))
	if desc != "" {
		st.Doc += ": " + lowerFirst(strings.TrimSuffix(strings.Join(strings.Fields(desc), " "), "."))
	}
	st.Doc += "."
	p.structs[owner] = st
	p.structList = append(p.structList, st)
	for _, m := range members {
		t := p.memberType(m, exported(m.Name))
		f := &fieldPlan{Name: exported(m.Name), Var: unexported(m.Name), T: t, Presence: catalog.Required,
			Attr: &catalog.Attribute{Name: m.Name, Type: m.Type, Unit: m.Unit, Domain: m.Domain}}
		if m.Optional {
			f.Presence = catalog.Optional
			f.Pointer = !t.nilable()
		}
		f.Doc = "member " + m.Name + "."
		if m.Optional {
			f.Doc += " Nil when the map lacks it."
		}
		tag := m.Name
		if m.Optional {
			tag += ",omitempty"
		}
		f.Tag = "`dynamodbav:\"" + tag + "\"`"
		st.Fields = append(st.Fields, f)
	}
	var enc, dec strings.Builder
	enc.WriteString("m := make(map[string]types.AttributeValue, " + fmt.Sprint(len(st.Fields)) + ")\n")
	p.use("decoder")
	dec.WriteString("v, ok := av.(*types.AttributeValueMemberM)\nif !ok {\nreturn " + st.Name + "{}, fmt.Errorf(\"want a map (M), got %s\", typeName(av))\n}\n")
	p.use("typeName")
	dec.WriteString("var x " + st.Name + "\nd := decoder{item: v.Value, what: " + quote(owner) + "}\n")
	for _, f := range st.Fields {
		x := "x." + f.Name
		switch {
		case f.Pointer:
			fmt.Fprintf(&enc, "if %s != nil {\nm[%s] = %s\n}\n", x, quote(f.Attr.Name), p.encode(f.T, "*"+x))
		case f.T.nilable():
			fmt.Fprintf(&enc, "if %s != nil {\nm[%s] = %s\n}\n", x, quote(f.Attr.Name), p.encode(f.T, x))
		default:
			fmt.Fprintf(&enc, "m[%s] = %s\n", quote(f.Attr.Name), p.encode(f.T, x))
		}
		dec.WriteString(p.decodeField(f, x, f.Presence == catalog.Required) + "\n")
	}
	enc.WriteString("return &types.AttributeValueMemberM{Value: m}\n")
	dec.WriteString("return x, d.err\n")
	st.EncBody, st.DecBody = enc.String(), dec.String()
	return &gotype{kind: kStruct, st: st, dyn: attr.M}
}

// paramType is the Go type of an operation parameter: its attribute's, or
// for an explicitly typed parameter the plain type (a prefix of an enum
// attribute is a string, not a value of the enum).
func (p *plan) paramType(prm *catalog.Param) *gotype {
	if prm.Attribute != nil {
		return p.valueType(prm.Attribute)
	}
	switch prm.Type {
	case attr.S:
		return tString
	case attr.N:
		if prm.Sample == nil || wholeNumber(prm.Sample.Str) {
			return tInt
		}
		return tFloat
	case attr.B:
		return tBytes
	case attr.BOOL:
		return tBool
	case attr.SS:
		return &gotype{kind: kStringSet, dyn: attr.SS}
	case attr.NS:
		return &gotype{kind: kFloatSet, dyn: attr.NS}
	case attr.BS:
		return &gotype{kind: kBytesSet, dyn: attr.BS}
	}
	return &gotype{kind: kRaw, dyn: prm.Type}
}
