package expr

import (
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// KeyEq is an equality on one partition key attribute.
type KeyEq struct {
	Name  string
	Value attr.Value
}

// SortOp is the comparison of a sort key condition.
type SortOp uint8

// The sort key comparisons a key condition allows.
const (
	SortEq SortOp = iota
	SortLt
	SortLe
	SortGt
	SortGe
	SortBetween    // Value <= key <= Upper
	SortBeginsWith // key starts with Value (S or B)
)

var sortOpNames = [...]string{"=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"}

// String returns the operator as written in expressions.
func (o SortOp) String() string {
	if int(o) < len(sortOpNames) {
		return sortOpNames[o]
	}
	return ""
}

// SortCond is a condition on one sort key attribute.
type SortCond struct {
	Name  string
	Op    SortOp
	Value attr.Value
	Upper attr.Value // BETWEEN's upper bound
}

// Match reports whether a sort key value v satisfies the condition.
// Values of another type never match.
func (c SortCond) Match(v attr.Value) bool {
	if c.Op == SortBeginsWith {
		return v.Type == c.Value.Type && strings.HasPrefix(v.Str, c.Value.Str)
	}
	x, ok := attr.Compare(v, c.Value)
	if !ok {
		return false
	}
	switch c.Op {
	case SortEq:
		return x == 0
	case SortLt:
		return x < 0
	case SortLe:
		return x <= 0
	case SortGt:
		return x > 0
	case SortGe:
		return x >= 0
	}
	y, ok := attr.Compare(v, c.Upper)
	return ok && x >= 0 && y <= 0
}

// KeyCondition locates the items of a Query: equalities on every
// partition key attribute, in key schema order, and conditions on a
// leading run of the sort key attributes, in key schema order, all
// equalities but possibly the last.
type KeyCondition struct {
	Partition []KeyEq
	Sort      []SortCond
}

// Match reports whether it satisfies every condition.
func (k *KeyCondition) Match(it attr.Item) bool {
	for _, e := range k.Partition {
		v, ok := it.Get(e.Name)
		if !ok || !attr.Equal(v, e.Value) {
			return false
		}
	}
	for _, c := range k.Sort {
		v, ok := it.Get(c.Name)
		if !ok || !c.Match(v) {
			return false
		}
	}
	return true
}

// KeyCondition parses a KeyConditionExpression for a table or index whose
// partition key is made of the attributes pk and whose sort key of the
// attributes sk (one each for ordinary keys; up to four each for indexes
// keyed on several attributes).
func (s *Scope) KeyCondition(src string, pk, sk []string) (*KeyCondition, error) {
	c, err := s.condition(KeyConditionKind, src)
	if err != nil {
		return nil, err
	}
	var conds []SortCond
	if err := keyConds(c.root, &conds); err != nil {
		return nil, err
	}
	return matchSchema(conds, pk, sk)
}

func keyError(format string, args ...any) *Error {
	return KeyConditionKind.errorf(format, args...)
}

// keyConds flattens the conjunction of simple conditions that a key
// condition must be, rejecting anything else.
func keyConds(n *node, out *[]SortCond) *Error {
	switch n.op {
	case nAnd:
		if err := keyConds(n.left, out); err != nil {
			return err
		}
		return keyConds(n.right, out)
	case nOr:
		return keyError("Invalid operator used in KeyConditionExpression: OR")
	case nNot:
		return keyError("Invalid operator used in KeyConditionExpression: NOT")
	case nIn:
		return keyError("Invalid operator used in KeyConditionExpression: IN")
	case nExists:
		return keyError("Invalid operator used in KeyConditionExpression: attribute_exists")
	case nNotExists:
		return keyError("Invalid operator used in KeyConditionExpression: attribute_not_exists")
	case nType:
		return keyError("Invalid operator used in KeyConditionExpression: attribute_type")
	case nContains:
		return keyError("Invalid operator used in KeyConditionExpression: contains")
	case nCmp:
		if n.cmp == cNe {
			return keyError("Invalid operator used in KeyConditionExpression: <>")
		}
	}
	for _, a := range n.args {
		if a.kind == oSize {
			return keyError("KeyConditionExpressions cannot contain nested operations")
		}
	}
	var name string
	at := -1
	for i, a := range n.args {
		if a.kind != oPath {
			continue
		}
		if at >= 0 {
			return keyError("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
		}
		if len(a.path) > 1 {
			return keyError("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		name, at = a.path.Attr(), i
	}
	if at < 0 {
		return keyError("Invalid condition in KeyConditionExpression: No key attribute specified")
	}
	c := SortCond{Name: name}
	switch n.op {
	case nBetween, nBeginsWith:
		if at != 0 {
			op := "BETWEEN"
			if n.op == nBeginsWith {
				op = "begins_with"
			}
			return keyError("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand", op)
		}
		c.Op, c.Value = SortBeginsWith, n.args[1].val
		if n.op == nBetween {
			c.Op, c.Upper = SortBetween, n.args[2].val
		}
	default:
		c.Op, c.Value = [...]SortOp{cEq: SortEq, cLt: SortLt, cLe: SortLe, cGt: SortGt, cGe: SortGe}[n.cmp], n.args[1-at].val
		if at == 1 { // :v < key reads key > :v
			c.Op = [...]SortOp{SortEq: SortEq, SortLt: SortGt, SortLe: SortGe, SortGt: SortLt, SortGe: SortLe}[c.Op]
		}
	}
	for _, o := range *out {
		if o.Name == name {
			return keyError("KeyConditionExpressions must only contain one condition per key")
		}
	}
	*out = append(*out, c)
	return nil
}

// matchSchema orders the conditions by the key schema and checks that
// they can locate items: every partition attribute by equality, sort
// attributes left to right without gaps, a range only on the last one.
func matchSchema(conds []SortCond, pk, sk []string) (*KeyCondition, error) {
	find := func(name string) (SortCond, bool) {
		for _, c := range conds {
			if c.Name == name {
				return c, true
			}
		}
		return SortCond{}, false
	}
	k := &KeyCondition{}
	for _, name := range pk {
		c, ok := find(name)
		if !ok {
			return nil, errorf("Query condition missed key schema element: %s", name)
		}
		if c.Op != SortEq {
			return nil, errorf("Query key condition not supported")
		}
		k.Partition = append(k.Partition, KeyEq{Name: name, Value: c.Value})
	}
	for _, name := range sk {
		c, ok := find(name)
		if !ok {
			if len(k.Partition)+len(k.Sort) < len(conds) {
				// A later sort attribute or another attribute is
				// constrained while this one is not.
				return nil, errorf("Query condition missed key schema element: %s", name)
			}
			break
		}
		if len(k.Sort) > 0 && k.Sort[len(k.Sort)-1].Op != SortEq {
			return nil, errorf("Query key condition not supported")
		}
		k.Sort = append(k.Sort, c)
	}
	if len(k.Partition)+len(k.Sort) < len(conds) {
		return nil, errorf("Query key condition not supported")
	}
	return k, nil
}
