package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// arg is one parameter of a generated function or field of an input.
type arg struct {
	Name string // model name: tenantId
	Var  string // Go name: tenantID (parameter) or TenantID (field)
	T    *gotype
	Type string // Go type when T is nil (result fields holding items)
	Doc  string
}

// GoType returns the declared Go type.
func (a arg) GoType() string {
	if a.T == nil {
		return a.Type
	}
	return a.T.Go()
}

type valueCode struct {
	Name string // :placeholder
	Expr string // Go expression of type types.AttributeValue
}

// namesCode prints an ExpressionAttributeNames map literal.
func namesCode(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("map[string]string{")
	for i, k := range sortedNames(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(k) + ": " + quote(m[k]))
	}
	b.WriteString("}")
	return b.String()
}

// valuesCode prints an ExpressionAttributeValues map literal, sorted by
// placeholder.
func valuesCode(vs []valueCode) string {
	if len(vs) == 0 {
		return ""
	}
	sorted := slices.Clone(vs)
	slices.SortFunc(sorted, func(a, b valueCode) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString("map[string]types.AttributeValue{\n")
	for _, v := range sorted {
		b.WriteString(quote(v.Name) + ": " + v.Expr + ",\n")
	}
	b.WriteString("}")
	return b.String()
}

// operandCode returns the Go expression (types.AttributeValue) of an
// operand. A template goes through the keyBuilder k.
func (p *plan) operandCode(o catalog.Operand, sc scope) (string, error) {
	switch {
	case o.Param != "":
		x, t, ok := sc(o.Param)
		if !ok {
			return "", fmt.Errorf("no value for {%s}", o.Param)
		}
		return p.encode(t, x), nil
	case o.Template != nil:
		x, err := p.templateExpr(o.Template, sc)
		if err != nil {
			return "", err
		}
		p.use("stringValue")
		return "stringValue(" + x + ")", nil
	case o.Literal != nil:
		return p.literal(*o.Literal), nil
	case o.IsList:
		parts := make([]string, len(o.List))
		for i, e := range o.List {
			x, err := p.operandCode(e, sc)
			if err != nil {
				return "", fmt.Errorf("element %d: %w", i, err)
			}
			parts[i] = x
		}
		return "&types.AttributeValueMemberL{Value: []types.AttributeValue{" + strings.Join(parts, ", ") + "}}", nil
	case o.IsMap:
		parts := make([]string, len(o.Map))
		for i, m := range o.Map {
			x, err := p.operandCode(m.Value, sc)
			if err != nil {
				return "", fmt.Errorf("member %s: %w", m.Attribute, err)
			}
			parts[i] = quote(m.Attribute) + ": " + x
		}
		return "&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{" + strings.Join(parts, ", ") + "}}", nil
	}
	return "&types.AttributeValueMemberNULL{Value: true}", nil
}

// operandGo returns an operand as a Go value of the attribute's type (not
// yet an attribute value), for printing into a synthetic key.
func (p *plan) operandGo(o catalog.Operand, name string, sc scope) (string, *gotype, bool) {
	switch {
	case o.Param != "":
		return sc(o.Param)
	case o.Template != nil:
		x, err := p.templateExpr(o.Template, sc)
		if err != nil {
			return "", nil, false
		}
		return x, tString, true
	case o.Literal != nil:
		switch o.Literal.Type {
		case attr.S:
			return quote(o.Literal.Str), tString, true
		case attr.N:
			if wholeNumber(o.Literal.Str) {
				return "int64(" + o.Literal.Str + ")", tInt, true
			}
			return o.Literal.Str, tFloat, true
		}
	}
	return "", nil, false
}
