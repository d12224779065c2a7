package expr

import (
	"encoding/base64"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Condition is a parsed condition or filter expression.
type Condition struct {
	root *node
}

// Eval reports whether it satisfies the condition. A nil or empty item
// stands for an item that does not exist. Like DynamoDB, comparisons of
// values of different types are false rather than errors.
func (c *Condition) Eval(it attr.Item) bool { return c.root.eval(it) }

// Attrs returns the top-level attributes the condition reads, sorted, so
// that an engine can refuse a filter on key attributes.
func (c *Condition) Attrs() []string {
	var out []string
	c.root.attrs(&out)
	slices.Sort(out)
	return slices.Compact(out)
}

func (n *node) attrs(out *[]string) {
	if n.left != nil {
		n.left.attrs(out)
	}
	if n.right != nil {
		n.right.attrs(out)
	}
	for i := range n.args {
		n.args[i].attrs(out)
	}
}

func (o *operand) attrs(out *[]string) {
	if o.kind == oPath {
		*out = append(*out, o.path.Attr())
	}
	for i := range o.args {
		o.args[i].attrs(out)
	}
}

type nodeOp uint8

const (
	nAnd nodeOp = iota
	nOr
	nNot
	nCmp
	nBetween
	nIn
	nExists
	nNotExists
	nType
	nBeginsWith
	nContains
)

type cmpOp uint8

const (
	cEq cmpOp = iota
	cNe
	cLt
	cLe
	cGt
	cGe
)

var cmpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

type node struct {
	op    nodeOp
	cmp   cmpOp
	typ   attr.Type // for attribute_type
	left  *node
	right *node
	args  []operand
}

type operandKind uint8

const (
	oPath operandKind = iota
	oValue
	oSize
	oIfNotExists
	oListAppend
	oPlus
	oMinus
	oBad // a misused function, already reported
)

// operand is a path, a constant or a function of operands.
type operand struct {
	kind operandKind
	// sample marks a value that stands for any value of its type (see
	// Scope.Samples).
	sample bool
	path   Path
	val    attr.Value
	ph     string // a value's placeholder (":amt"), for Uses
	args   []operand
}

// constant reports whether o is a value placeholder, and its type.
func (o *operand) constant() (attr.Type, bool) {
	if o.kind == oValue {
		return o.val.Type, true
	}
	return attr.Invalid, false
}

// get resolves a condition operand against it.
func (o *operand) get(it attr.Item) (attr.Value, bool) {
	switch o.kind {
	case oPath:
		return o.path.Get(it)
	case oValue:
		return o.val, true
	case oSize:
		v, ok := o.args[0].get(it)
		if !ok {
			return attr.Value{}, false
		}
		n, ok := size(v)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Num(itoa(n)), true
	}
	return attr.Value{}, false
}

// size is DynamoDB's size function: the length of a string in UTF-16
// code units (as DynamoDB counts it, so a character outside the Basic
// Multilingual Plane counts twice), bytes of a binary, members of a set,
// elements of a list or map. Other types have no size.
func size(v attr.Value) (int, bool) {
	switch v.Type {
	case attr.S:
		n := 0
		for _, r := range v.Str {
			n++
			if r > 0xFFFF {
				n++
			}
		}
		return n, true
	case attr.B:
		return len(v.Str), true
	case attr.SS, attr.NS, attr.BS:
		return len(v.Set), true
	case attr.L:
		return len(v.List), true
	case attr.M:
		return len(v.Map), true
	}
	return 0, false
}

func (n *node) eval(it attr.Item) bool {
	switch n.op {
	case nAnd:
		return n.left.eval(it) && n.right.eval(it)
	case nOr:
		return n.left.eval(it) || n.right.eval(it)
	case nNot:
		return !n.left.eval(it)
	case nCmp:
		a, aok := n.args[0].get(it)
		b, bok := n.args[1].get(it)
		if !aok || !bok {
			// A missing operand equals nothing, so it differs from
			// anything present.
			return n.cmp == cNe && aok != bok
		}
		switch n.cmp {
		case cEq:
			return attr.Equal(a, b)
		case cNe:
			return !attr.Equal(a, b)
		}
		c, ok := attr.Compare(a, b)
		if !ok {
			return false
		}
		switch n.cmp {
		case cLt:
			return c < 0
		case cLe:
			return c <= 0
		case cGt:
			return c > 0
		}
		return c >= 0
	case nBetween:
		v, ok := n.args[0].get(it)
		lo, lok := n.args[1].get(it)
		hi, hok := n.args[2].get(it)
		if !ok || !lok || !hok {
			return false
		}
		c1, ok1 := attr.Compare(lo, v)
		c2, ok2 := attr.Compare(v, hi)
		return ok1 && ok2 && c1 <= 0 && c2 <= 0
	case nIn:
		v, ok := n.args[0].get(it)
		if !ok {
			return false
		}
		for i := 1; i < len(n.args); i++ {
			if w, ok := n.args[i].get(it); ok && attr.Equal(v, w) {
				return true
			}
		}
		return false
	case nExists:
		_, ok := n.args[0].get(it)
		return ok
	case nNotExists:
		_, ok := n.args[0].get(it)
		return !ok
	case nType:
		v, ok := n.args[0].get(it)
		return ok && v.Type == n.typ
	case nBeginsWith:
		v, ok := n.args[0].get(it)
		pre, pok := n.args[1].get(it)
		return ok && pok && v.Type == pre.Type && (v.Type == attr.S || v.Type == attr.B) && strings.HasPrefix(v.Str, pre.Str)
	case nContains:
		v, ok := n.args[0].get(it)
		x, xok := n.args[1].get(it)
		return ok && xok && contains(v, x)
	}
	return false
}

// contains is DynamoDB's contains function: a substring of a string (or
// binary), a member of a set of the operand's type, an element of a list.
func contains(v, x attr.Value) bool {
	switch v.Type {
	case attr.S, attr.B:
		return x.Type == v.Type && strings.Contains(v.Str, x.Str)
	case attr.SS:
		return x.Type == attr.S && hasMember(v.Set, x.Str, false)
	case attr.BS:
		return x.Type == attr.B && hasMember(v.Set, x.Str, false)
	case attr.NS:
		return x.Type == attr.N && hasMember(v.Set, x.Str, true)
	case attr.L:
		for _, e := range v.List {
			if attr.Equal(e, x) {
				return true
			}
		}
	}
	return false
}

func hasMember(set []string, m string, numeric bool) bool {
	for _, s := range set {
		if s == m || numeric && attr.CompareNumbers(s, m) == 0 {
			return true
		}
	}
	return false
}

// itoa formats small sizes without allocating.
func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = digits[n%10]
		n /= 10
	}
	return string(b[i:])
}

// describe renders a constant as DynamoDB's messages do:
// AttributeValue: {N:5}.
func describe(v attr.Value) string {
	s := v.Str
	if v.Type == attr.B {
		s = base64.StdEncoding.EncodeToString([]byte(v.Str))
	}
	return "AttributeValue: {" + v.Type.String() + ":" + s + "}"
}
