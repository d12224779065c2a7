package expr

import (
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// maxInOperands is DynamoDB's limit on the list of an IN comparison.
const maxInOperands = 100

// or parses: and { OR and }. Precedence, loosest first: OR, AND, NOT,
// then comparisons and functions.
func (p *parser) or() *node { return p.chain("OR", nOr, p.and) }

func (p *parser) and() *node { return p.chain("AND", nAnd, p.not) }

// chain parses sub { keyword sub }, associating to the left.
func (p *parser) chain(keyword string, op nodeOp, sub func() *node) *node {
	n := sub()
	for p.ok() && p.isKeyword(keyword) {
		p.next()
		n = &node{op: op, left: n, right: sub()}
	}
	return n
}

func (p *parser) not() *node {
	if p.ok() && p.isKeyword("NOT") {
		p.next()
		return &node{op: nNot, left: p.not()}
	}
	return p.primary()
}

// atComparison reports whether the current token continues an operand
// into a comparison.
func (p *parser) atComparison() bool { return p.comparesAt(p.tok) }

func (p *parser) comparesAt(t token) bool {
	switch t.kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		return true
	case tWord:
		w := p.src[t.start:t.end]
		return strings.EqualFold(w, "BETWEEN") || strings.EqualFold(w, "IN")
	}
	return false
}

// parenOperand reports whether the parenthesis at the current token
// encloses an operand rather than a condition: an operand is always
// followed by a comparison, a condition never is. Looking past the
// matching parenthesis decides without backtracking.
func (p *parser) parenOperand() bool {
	depth := 0
	for t := p.tok; t.kind != tEOF; t = lex(p.src, t.end) {
		switch t.kind {
		case tLParen:
			depth++
		case tRParen:
			if depth--; depth == 0 {
				return p.comparesAt(lex(p.src, t.end))
			}
		}
	}
	return false
}

// startsCall reports whether the current token is a word followed by an
// opening parenthesis: a function call.
func (p *parser) startsCall() bool {
	return p.tok.kind == tWord && lex(p.src, p.tok.end).kind == tLParen
}

func (p *parser) primary() *node {
	if !p.ok() {
		return nil
	}
	if p.tok.kind == tLParen && !p.parenOperand() {
		return p.group()
	}
	if p.startsCall() {
		name, args := p.call()
		if !p.ok() {
			return nil
		}
		if p.atComparison() {
			return p.comparison(p.funcOperand(name, args))
		}
		return p.funcCondition(name, args)
	}
	return p.comparison(p.operand())
}

func (p *parser) group() *node {
	var n *node
	if !p.parens(func() { n = p.or() }) {
		return nil
	}
	return n
}

// parens parses an opening parenthesis, what inner parses and the
// closing parenthesis, noting redundant parentheses.
func (p *parser) parens(inner func()) bool {
	open := p.tok.start
	p.next()
	start := p.tok.start
	inner()
	if !p.ok() {
		return false
	}
	if p.tok.kind != tRParen {
		p.fail()
		return false
	}
	p.groupClose(open, start)
	p.next()
	return true
}

// call parses name(operand, ...); the current token is the name.
func (p *parser) call() (string, []operand) {
	name := p.text()
	p.next()
	p.next() // the opening parenthesis
	args := make([]operand, 0, 2)
	for p.ok() {
		args = append(args, p.operand())
		if p.tok.kind != tComma {
			break
		}
		p.next()
	}
	p.expect(tRParen)
	return name, args
}

// operand parses a path, a value placeholder, a function call or any of
// them in parentheses.
func (p *parser) operand() operand {
	if !p.ok() {
		return operand{kind: oBad}
	}
	switch p.tok.kind {
	case tLParen:
		var o operand
		p.parens(func() { o = p.operand() })
		return o
	case tValue:
		ph := p.text()
		sample := p.scope.isSample(ph)
		return operand{kind: oValue, sample: sample, val: p.value(), ph: ph}
	case tName:
		return operand{kind: oPath, path: p.path()}
	case tWord:
		if p.startsCall() {
			return p.funcOperand(p.call())
		}
		return operand{kind: oPath, path: p.path()}
	}
	p.fail()
	return operand{kind: oBad}
}

func isConditionFunction(name string) bool {
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "size":
		return true
	}
	return false
}

func isUpdateFunction(name string) bool { return name == "if_not_exists" || name == "list_append" }

func (p *parser) countArgs(name string, args []operand, want int) bool {
	if len(args) != want {
		p.note(eOperands, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", name, len(args))
		return false
	}
	return true
}

// staticType is the type of an operand known before evaluation.
func staticType(o operand) (attr.Type, bool) {
	switch o.kind {
	case oValue:
		return o.val.Type, true
	case oSize, oPlus, oMinus:
		return attr.N, true
	}
	return attr.Invalid, false
}

func (p *parser) wrongType(fn string, t attr.Type) {
	p.note(eType, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", fn, t)
}

func (p *parser) needPath(fn string, o operand) bool {
	if o.kind != oPath {
		p.note(eType, "Operator or function requires a document path; operator or function: %s", fn)
		return false
	}
	return true
}

// funcOperand checks a function used as an operand (of a comparison or
// of another function).
func (p *parser) funcOperand(name string, args []operand) operand {
	switch {
	case p.kind == UpdateKind && !isUpdateFunction(name):
		p.note(eFunction, "Invalid function name; function: %s", name)
	case name == "size":
		if !p.countArgs(name, args, 1) {
			return operand{kind: oBad}
		}
		if t, ok := staticType(args[0]); ok && (t == attr.N || t == attr.BOOL || t == attr.NULL) {
			p.wrongType(name, t)
		}
		return operand{kind: oSize, args: args}
	case p.kind == UpdateKind && isUpdateFunction(name):
		return p.updateFunction(name, args)
	case isConditionFunction(name) || isUpdateFunction(name):
		p.note(eMisused, "The function is not allowed to be used this way in an expression; function: %s", name)
	default:
		p.note(eFunction, "Invalid function name; function: %s", name)
	}
	return operand{kind: oBad}
}

// funcCondition checks a function used as a condition.
func (p *parser) funcCondition(name string, args []operand) *node {
	bad := func() *node { return &node{op: nExists, args: []operand{{kind: oBad}}} }
	want := 2
	n := &node{args: args}
	switch name {
	case "attribute_exists":
		n.op, want = nExists, 1
	case "attribute_not_exists":
		n.op, want = nNotExists, 1
	case "attribute_type":
		n.op = nType
	case "begins_with":
		n.op = nBeginsWith
	case "contains":
		n.op = nContains
	case "size", "if_not_exists", "list_append":
		p.note(eMisused, "The function is not allowed to be used this way in an expression; function: %s", name)
		return bad()
	default:
		p.note(eFunction, "Invalid function name; function: %s", name)
		return bad()
	}
	if !p.countArgs(name, args, want) {
		return bad()
	}
	if want == 2 {
		p.distinct(name, args)
	}
	switch n.op {
	case nExists, nNotExists:
		p.needPath(name, args[0])
	case nType:
		p.needPath(name, args[0])
		t, ok := staticType(args[1])
		switch {
		case !ok:
			p.note(eType, "Incorrect operand type for operator or function; operator or function: %s, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}", name)
		case t != attr.S:
			p.wrongType(name, t)
		default:
			typ, known := attr.ParseType(args[1].val.Str)
			if !known && !args[1].sample {
				p.note(eType, "Invalid attribute type name found; type: %s, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}", args[1].val.Str)
			}
			n.typ = typ
		}
	case nBeginsWith:
		for _, a := range args {
			if t, ok := staticType(a); ok && t != attr.S && t != attr.B {
				p.wrongType(name, t)
			}
		}
	}
	return n
}

// comparison parses what follows the left operand of a comparison,
// BETWEEN or IN.
func (p *parser) comparison(left operand) *node {
	if !p.ok() {
		return nil
	}
	var n *node
	switch p.tok.kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		c := cmpOp(p.tok.kind - tEq) // the tokens are in cmpOp order
		p.next()
		n = &node{op: nCmp, cmp: c, args: []operand{left, p.operand()}}
		if c != cEq && c != cNe {
			p.scalarOperands(cmpNames[c], n.args)
		}
		p.distinct(cmpNames[c], n.args)
		return n
	}
	switch {
	case p.isKeyword("BETWEEN"):
		p.next()
		lo := p.operand()
		if !p.ok() {
			return nil
		}
		if !p.isKeyword("AND") {
			p.fail()
			return nil
		}
		p.next()
		hi := p.operand()
		n = &node{op: nBetween, args: []operand{left, lo, hi}}
		p.scalarOperands("BETWEEN", n.args)
		p.distinct("BETWEEN", n.args)
		if lo.kind == oValue && hi.kind == oValue && lo.val.Type.IsScalar() && hi.val.Type.IsScalar() {
			if c, ok := attr.Compare(lo.val, hi.val); !ok {
				p.note(eType, "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: %s, upper bound operand: %s", describe(lo.val), describe(hi.val))
			} else if c > 0 && !lo.sample && !hi.sample {
				p.note(eType, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: %s, upper bound operand: %s", describe(lo.val), describe(hi.val))
			}
		}
		return n
	case p.isKeyword("IN"):
		p.next()
		if !p.expect(tLParen) {
			return nil
		}
		args := []operand{left}
		for p.ok() {
			args = append(args, p.operand())
			if p.tok.kind != tComma {
				break
			}
			p.next()
		}
		if !p.expect(tRParen) {
			return nil
		}
		if len(args)-1 > maxInOperands {
			p.note(eOperands, "The IN operator is provided with too many operands; number of operands: %d", len(args)-1)
		}
		p.distinct("IN", args)
		return &node{op: nIn, args: args}
	}
	p.fail()
	return nil
}

// scalarOperands rejects constants that have no order.
func (p *parser) scalarOperands(op string, args []operand) {
	for _, a := range args {
		if t, ok := staticType(a); ok && !t.IsScalar() {
			p.wrongType(op, t)
		}
	}
}

// distinct rejects a comparison of a path with itself.
func (p *parser) distinct(op string, args []operand) {
	if args[0].kind != oPath {
		return
	}
	for _, a := range args[1:] {
		if a.kind == oPath && a.path.equal(args[0].path) {
			p.note(eDistinct, "The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, args[0].path.listing())
			return
		}
	}
}
