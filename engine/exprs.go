package engine

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// projector applies a ProjectionExpression or the legacy AttributesToGet;
// the zero projector keeps everything.
type projector struct {
	p     *expr.Projection
	attrs []string // AttributesToGet, sorted
}

func (p projector) apply(it attr.Item) attr.Item {
	switch {
	case p.p != nil:
		return p.p.Apply(it)
	case p.attrs != nil:
		out := make(attr.Item, 0, len(p.attrs))
		for _, n := range p.attrs {
			if v, ok := it.Get(n); ok {
				out = append(out, attr.Field{Name: n, Value: v})
			}
		}
		return out
	}
	return it
}

// empty reports that the projection keeps every attribute.
func (p projector) empty() bool { return p.p == nil && p.attrs == nil }

// top returns the top-level attributes the projection reads, or nil for
// all of them.
func (p projector) top() []string {
	if p.p != nil {
		return p.p.Attrs()
	}
	return p.attrs
}

// needsFetch reports whether the projection asks an index for attributes
// it does not hold.
func (p projector) needsFetch(s source) bool {
	if s.ix == nil {
		return false
	}
	for _, n := range p.top() {
		if !s.ix.projects(s.t, n) {
			return true
		}
	}
	return false
}

// scopeProjection parses the projection parameters of a request through
// its scope.
func scopeProjection(sc *expr.Scope, src string, toGet []string) (projector, error) {
	if src != "" && len(toGet) > 0 {
		return projector{}, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	if src != "" {
		p, err := sc.Projection(src)
		if err != nil {
			return projector{}, exprError(err)
		}
		return projector{p: p}, nil
	}
	if len(toGet) > 0 {
		a := append([]string(nil), toGet...)
		sort.Strings(a)
		for i := 1; i < len(a); i++ {
			if a[i] == a[i-1] {
				return projector{}, validationf("One or more parameter values were invalid: Duplicate value in attribute name: %s", a[i])
			}
		}
		return projector{attrs: a}, nil
	}
	return projector{}, nil
}

// parseProjection parses the projection of a request that has no other
// expression (GetItem, BatchGetItem, TransactGetItems).
func parseProjection(src string, toGet []string, names map[string]string) (projector, error) {
	if src == "" && toGet == nil && names == nil {
		// Nothing to parse or check: most reads ask for the whole item.
		return projector{}, nil
	}
	sc := expr.NewScope(names, nil)
	p, err := scopeProjection(sc, src, toGet)
	if err != nil {
		return p, err
	}
	if err := checkPlaceholders(sc, names, nil, src != ""); err != nil {
		return p, err
	}
	return p, nil
}

// pathsProjection builds the projection of an update's written paths, for
// ReturnValues UPDATED_OLD and UPDATED_NEW.
func pathsProjection(paths []expr.Path) *expr.Projection {
	names := map[string]string{}
	var b strings.Builder
	for i, p := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, s := range p {
			if s.IsIndex() {
				b.WriteString("[" + strconv.Itoa(s.Index) + "]")
				continue
			}
			if j > 0 {
				b.WriteByte('.')
			}
			ph := "#p" + strconv.Itoa(len(names))
			names[ph] = s.Name
			b.WriteString(ph)
		}
	}
	pr, err := expr.NewScope(names, nil).Projection(b.String())
	if err != nil {
		return nil
	}
	return pr
}

// keyCondition parses a KeyConditionExpression against the source's key
// schema and resolves it into key bounds; the caller holds the table's
// read lock.
func keyCondition(sc *expr.Scope, src string, s source) (*keyCond, error) {
	hash, rng := []keyAttr{s.t.hash}, []keyAttr(nil)
	if s.t.rng != nil {
		rng = []keyAttr{*s.t.rng}
	}
	if s.ix != nil {
		hash, rng = s.ix.hash, s.ix.rng
	}
	names := func(ks []keyAttr) []string {
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = k.name
		}
		return out
	}
	kc, err := sc.KeyCondition(src, names(hash), names(rng))
	if err != nil {
		return nil, exprError(err)
	}
	out := &keyCond{}
	for i, eq := range kc.Partition {
		if eq.Value.Type != hash[i].typ {
			return nil, validationf("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		v, err := normalizeValue(eq.Value)
		if err != nil {
			return nil, err
		}
		out.hash = append(out.hash, v)
	}
	for i, c := range kc.Sort {
		if c.Value.Type != rng[i].typ || c.Op == expr.SortBetween && c.Upper.Type != rng[i].typ {
			return nil, validationf("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		if c.Op == expr.SortBeginsWith && rng[i].typ == attr.N {
			return nil, validationf("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
		}
		if i < len(kc.Sort)-1 || c.Op == expr.SortEq && i < len(kc.Sort)-1 {
			out.sortEq = append(out.sortEq, c.Value)
			continue
		}
		out.v1, out.v2 = c.Value, c.Upper
		switch c.Op {
		case expr.SortEq:
			out.op = "="
		case expr.SortLt:
			out.op = "<"
		case expr.SortLe:
			out.op = "<="
		case expr.SortGt:
			out.op = ">"
		case expr.SortGe:
			out.op = ">="
		case expr.SortBetween:
			out.op = "BETWEEN"
			if x, ok := attr.Compare(c.Value, c.Upper); ok && x > 0 {
				return nil, validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s:%s}, upper bound operand: AttributeValue: {%s:%s}", c.Value.Type, c.Value.Str, c.Upper.Type, c.Upper.Str)
			}
		case expr.SortBeginsWith:
			out.op = "BEGINS_WITH"
		}
	}
	return out, nil
}
