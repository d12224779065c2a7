// Package calc reads and evaluates the small arithmetic formulas of a
// model's dataset rules (an instalment from principal, rate and term),
// and rounds their results by a named mode.
//
// A formula is a Go expression restricted to numbers, names (attribute,
// variable or ENTITY.attribute), + - * /, unary minus, parentheses and
// the functions pow, min, max, abs, floor and ceil. It is parsed by the
// standard library's go/parser, so its grammar and precedence are Go's,
// and then walked: anything else (strings, indexing, other calls, the
// bitwise operators, ^ included) is refused with its column. Nothing is
// executed but the arithmetic; the text, its depth and its number of
// terms are bounded before and after parsing.
package calc

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"math"
	"strconv"
	"strings"
)

// Bounds of a formula, checked before it is evaluated once.
const (
	MaxLen   = 512 // characters of its text
	MaxDepth = 24  // nesting of operations, calls and parentheses
	MaxNodes = 128 // numbers, names, operations and calls
)

// Expr is a parsed formula.
type Expr struct {
	root  *node
	names []string
	src   string
}

// Error is a formula that cannot be read: what is wrong, and the
// 1-based column of its text where it is.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

type op uint8

const (
	opNum op = iota
	opName
	opAdd
	opSub
	opMul
	opDiv
	opNeg
	opPow
	opMin
	opMax
	opAbs
	opFloor
	opCeil
)

type node struct {
	op   op
	x    float64 // opNum
	name int     // opName: index in names
	args []*node
}

// funcs are the calls a formula may make, with their arity (-1: one or
// more).
var funcs = map[string]struct {
	op    op
	arity int
}{
	"pow": {opPow, 2}, "min": {opMin, -1}, "max": {opMax, -1},
	"abs": {opAbs, 1}, "floor": {opFloor, 1}, "ceil": {opCeil, 1},
}

// binops are the operators of a formula, with Go's precedence.
var binops = map[token.Token]op{token.ADD: opAdd, token.SUB: opSub, token.MUL: opMul, token.QUO: opDiv}

// Funcs lists the functions a formula may call, for messages and docs.
const Funcs = "pow(x, y), min(a, ...), max(a, ...), abs(x), floor(x), ceil(x)"

// Parse reads a formula.
func Parse(src string) (*Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Col: 1, Msg: "the formula is empty"}
	}
	if n := len([]rune(src)); n > MaxLen {
		return nil, &Error{Col: MaxLen + 1, Msg: fmt.Sprintf("a formula has at most %d characters; this one has %d", MaxLen, n)}
	}
	if i := strings.IndexAny(src, "\n\r;"); i >= 0 {
		return nil, &Error{Col: i + 1, Msg: "a formula is one expression on one line"}
	}
	fset := token.NewFileSet()
	x, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		col, msg := 1, err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			col, msg = list[0].Pos.Column, list[0].Msg
		}
		return nil, &Error{Col: col, Msg: msg}
	}
	e := &Expr{src: src}
	w := &walker{fset: fset, e: e, at: map[string]int{}}
	root, err := w.walk(x, 1)
	if err != nil {
		return nil, err
	}
	e.root = root
	return e, nil
}

// Names returns the names the formula reads, in the order they first
// appear; EvalIndexed's get is asked for them by that index.
func (e *Expr) Names() []string { return e.names }

// String is the formula's text.
func (e *Expr) String() string { return e.src }

// Eval evaluates the formula, reading each name through get; false when a
// name has no value, or the result (or a step) is not a finite number
// (a division by zero, an overflow).
func (e *Expr) Eval(get func(name string) (float64, bool)) (float64, bool) {
	return e.EvalIndexed(func(i int) (float64, bool) { return get(e.names[i]) })
}

// EvalIndexed is Eval with names asked for by their index in Names.
func (e *Expr) EvalIndexed(get func(i int) (float64, bool)) (float64, bool) {
	v, ok := e.root.eval(get)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func (n *node) eval(get func(int) (float64, bool)) (float64, bool) {
	switch n.op {
	case opNum:
		return n.x, true
	case opName:
		return get(n.name)
	}
	var a [2]float64
	vals := a[:0]
	for _, c := range n.args {
		v, ok := c.eval(get)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
		vals = append(vals, v)
	}
	switch n.op {
	case opAdd:
		return vals[0] + vals[1], true
	case opSub:
		return vals[0] - vals[1], true
	case opMul:
		return vals[0] * vals[1], true
	case opDiv:
		if vals[1] == 0 {
			return 0, false
		}
		return vals[0] / vals[1], true
	case opNeg:
		return -vals[0], true
	case opPow:
		return math.Pow(vals[0], vals[1]), true
	case opMin, opMax:
		out := vals[0]
		for _, v := range vals[1:] {
			if (n.op == opMin) == (v < out) {
				out = v
			}
		}
		return out, true
	case opAbs:
		return math.Abs(vals[0]), true
	case opFloor:
		return math.Floor(vals[0]), true
	case opCeil:
		return math.Ceil(vals[0]), true
	}
	return 0, false
}

type walker struct {
	fset  *token.FileSet
	e     *Expr
	at    map[string]int
	nodes int
}

func (w *walker) errAt(p token.Pos, format string, args ...any) error {
	col := 1
	if p.IsValid() {
		col = w.fset.Position(p).Column
	}
	return &Error{Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (w *walker) walk(x ast.Expr, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, w.errAt(x.Pos(), "the formula nests deeper than %d", MaxDepth)
	}
	w.nodes++
	if w.nodes > MaxNodes {
		return nil, w.errAt(x.Pos(), "the formula has more than %d terms", MaxNodes)
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		w.nodes--
		return w.walk(x.X, depth+1)
	case *ast.BasicLit:
		if x.Kind != token.INT && x.Kind != token.FLOAT {
			return nil, w.errAt(x.Pos(), "%s is not a number: a formula holds numbers and names", x.Value)
		}
		if strings.ContainsAny(x.Value, "xXoObB_") || (x.Kind == token.INT && len(x.Value) > 1 && x.Value[0] == '0') {
			return nil, w.errAt(x.Pos(), "write %s as a plain decimal number", x.Value)
		}
		v, err := strconv.ParseFloat(x.Value, 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, w.errAt(x.Pos(), "%s is not a number a formula can hold", x.Value)
		}
		return &node{op: opNum, x: v}, nil
	case *ast.Ident:
		return w.name(x.Name), nil
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return nil, w.errAt(x.Pos(), "a name is NAME or ENTITY.NAME")
		}
		return w.name(id.Name + "." + x.Sel.Name), nil
	case *ast.UnaryExpr:
		switch x.Op {
		case token.SUB:
			a, err := w.walk(x.X, depth+1)
			if err != nil {
				return nil, err
			}
			return &node{op: opNeg, args: []*node{a}}, nil
		case token.ADD:
			w.nodes--
			return w.walk(x.X, depth+1)
		}
		return nil, w.errAt(x.OpPos, "%s is not an operator of a formula (+ - * / and pow(x, y))", x.Op)
	case *ast.BinaryExpr:
		o, ok := binops[x.Op]
		switch {
		case x.Op == token.XOR:
			return nil, w.errAt(x.OpPos, "^ is not a power here: write pow(x, y)")
		case !ok:
			return nil, w.errAt(x.OpPos, "%s is not an operator of a formula (+ - * / and pow(x, y))", x.Op)
		}
		a, err := w.walk(x.X, depth+1)
		if err != nil {
			return nil, err
		}
		b, err := w.walk(x.Y, depth+1)
		if err != nil {
			return nil, err
		}
		return &node{op: o, args: []*node{a, b}}, nil
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		if !ok {
			return nil, w.errAt(x.Pos(), "only %s may be called", Funcs)
		}
		fn, ok := funcs[id.Name]
		if !ok {
			return nil, w.errAt(x.Pos(), "unknown function %s; a formula may call %s", id.Name, Funcs)
		}
		if x.Ellipsis.IsValid() {
			return nil, w.errAt(x.Ellipsis, "... has no meaning in a formula")
		}
		if (fn.arity >= 0 && len(x.Args) != fn.arity) || len(x.Args) == 0 {
			want := fmt.Sprint(fn.arity)
			if fn.arity < 0 {
				want = "at least 1"
			}
			return nil, w.errAt(x.Pos(), "%s takes %s arguments, not %d", id.Name, want, len(x.Args))
		}
		n := &node{op: fn.op}
		for _, a := range x.Args {
			c, err := w.walk(a, depth+1)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, c)
		}
		return n, nil
	}
	return nil, w.errAt(x.Pos(), "a formula holds numbers, names, + - * /, parentheses and %s", Funcs)
}

func (w *walker) name(s string) *node {
	i, ok := w.at[s]
	if !ok {
		i = len(w.e.names)
		w.at[s] = i
		w.e.names = append(w.e.names, s)
	}
	return &node{op: opName, name: i}
}
