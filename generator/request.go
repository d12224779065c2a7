package generator

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/expr"
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

// exprNames collects the ExpressionAttributeNames and values of a request
// being built.
type exprNames struct {
	names  map[string]string // #placeholder -> attribute
	values []valueCode       // in order of first use
}

type valueCode struct {
	Name string // :placeholder
	Expr string // Go expression of type types.AttributeValue
}

var simpleName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// ref returns how an expression names an attribute: itself, or a #name
// placeholder when it is a reserved word or not a plain name.
func (n *exprNames) ref(name string) string {
	if simpleName.MatchString(name) && !expr.IsReserved(name) {
		return name
	}
	ph := "#" + placeholderIdent(name)
	if n.names == nil {
		n.names = map[string]string{}
	}
	n.names[ph] = name
	return ph
}

// value adds a :placeholder for a value and returns it.
func (n *exprNames) value(base, goExpr string) string {
	ph := ":" + placeholderIdent(base)
	for i := 2; slices.ContainsFunc(n.values, func(v valueCode) bool { return v.Name == ph }); i++ {
		ph = fmt.Sprintf(":%s%d", placeholderIdent(base), i)
	}
	n.values = append(n.values, valueCode{ph, goExpr})
	return ph
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func placeholderIdent(s string) string {
	s = nonIdent.ReplaceAllString(s, "_")
	if s == "" {
		return "v"
	}
	return s
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
	}
	return "&types.AttributeValueMemberNULL{Value: true}", nil
}

// keyCondition is a key condition with its Go operands, ready to print.
type keyCondition struct {
	attr string
	op   string
	vals []string // Go expressions, types.AttributeValue
}

// keyConditionCode prints a KeyConditionExpression over the conditions,
// adding names and values to n.
func keyConditionCode(conds []keyCondition, n *exprNames) string {
	var parts []string
	for _, c := range conds {
		ref := n.ref(c.attr)
		switch c.op {
		case catalog.OpEq:
			parts = append(parts, ref+" = "+n.value(c.attr, c.vals[0]))
		case catalog.OpBeginsWith:
			parts = append(parts, "begins_with("+ref+", "+n.value(c.attr, c.vals[0])+")")
		case catalog.OpBetween:
			lo := n.value(c.attr+"1", c.vals[0])
			hi := n.value(c.attr+"2", c.vals[1])
			parts = append(parts, ref+" BETWEEN "+lo+" AND "+hi)
		default:
			sym := map[string]string{catalog.OpLt: "<", catalog.OpLe: "<=", catalog.OpGt: ">", catalog.OpGe: ">="}[c.op]
			parts = append(parts, ref+" "+sym+" "+n.value(c.attr, c.vals[0]))
		}
	}
	return strings.Join(parts, " AND ")
}

// keyConditions turns the model's key conditions into printable ones:
// operands as Go expressions, and on an index keyed synthetically the
// natural attributes folded into its concatenated keys.
func (p *plan) keyConditions(ip *indexPlan, conds []catalog.KeyCondition, sc scope) ([]keyCondition, error) {
	var out []keyCondition
	if ip == nil || !ip.synthetic() {
		for _, c := range conds {
			kc := keyCondition{attr: c.Attribute, op: c.Op}
			for _, o := range c.Operands {
				v, err := p.operandCode(o, sc)
				if err != nil {
					return nil, fmt.Errorf("key condition on %s: %w", c.Attribute, err)
				}
				kc.vals = append(kc.vals, v)
			}
			out = append(out, kc)
		}
		return out, nil
	}
	byAttr := map[string]catalog.KeyCondition{}
	for _, c := range conds {
		byAttr[c.Attribute] = c
	}
	// The operand of an equality, as a value of its attribute for the
	// synthetic template.
	eqScope := func(name string) (string, *gotype, bool) {
		c, ok := byAttr[name]
		if !ok || c.Op != catalog.OpEq && c.Op != catalog.OpBeginsWith || len(c.Operands) != 1 {
			return "", nil, false
		}
		return p.operandGo(c.Operands[0], name, sc)
	}
	pk, err := p.templateExpr(ip.SynPK.Template, func(name string) (string, *gotype, bool) {
		if c, ok := byAttr[name]; !ok || c.Op != catalog.OpEq {
			return "", nil, false
		}
		return eqScope(name)
	})
	if err != nil {
		return nil, fmt.Errorf("index %s keyed by %s: the partition needs an equality on every attribute of %s: %w", ip.X.Name, ip.SynPK.Attribute, ip.SynPK.Template.Text, err)
	}
	p.use("stringValue")
	out = append(out, keyCondition{attr: ip.SynPK.Attribute, op: catalog.OpEq, vals: []string{"stringValue(" + pk + ")"}})
	for _, c := range conds {
		if slices.Contains(ip.X.Sort, c.Attribute) && c.Op != catalog.OpEq && c.Op != catalog.OpBeginsWith {
			return nil, fmt.Errorf("index %s keyed by %s: a %s condition on %s has no synthetic form (only equalities and begins_with)", ip.X.Name, ip.SynSK.Attribute, c.Op, c.Attribute)
		}
	}
	if ip.SynSK == nil {
		return out, nil
	}
	// The sort condition: the synthetic sort template rendered up to the
	// first attribute without an equality; all equal is an equality.
	var parts []string
	full := true
	for _, part := range ip.SynSK.Template.Parts {
		if part.Attr == "" {
			parts = append(parts, quote(part.Literal))
			continue
		}
		c, ok := byAttr[part.Attr]
		if !ok {
			full = false
			break
		}
		x, t, ok := p.operandGo(c.Operands[0], part.Attr, sc)
		if !ok {
			return nil, fmt.Errorf("index %s: no value for %s", ip.X.Name, part.Attr)
		}
		w := part.Width
		if c.Op == catalog.OpBeginsWith {
			w = 0
		}
		p.use("keyBuilder")
		parts = append(parts, p.text(t, part.Attr, x, w))
		if c.Op == catalog.OpBeginsWith {
			full = false
			break
		}
	}
	// Drop trailing literals after a prefix that ends at a placeholder.
	if len(parts) == 0 {
		return out, nil
	}
	allLiteral := true
	for _, s := range parts {
		if !strings.HasPrefix(s, "\"") {
			allLiteral = false
		}
	}
	if allLiteral && !full {
		return out, nil
	}
	op := catalog.OpBeginsWith
	if full {
		op = catalog.OpEq
	}
	out = append(out, keyCondition{attr: ip.SynSK.Attribute, op: op, vals: []string{"stringValue(" + strings.Join(parts, " + ") + ")"}})
	return out, nil
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
