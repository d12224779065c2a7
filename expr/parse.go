package expr

import (
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Kinds of semantic error. DynamoDB parses the whole expression before
// judging it and reports one error by a fixed precedence, so the parser
// keeps the first error of each kind and picks by kind at the end.
const (
	eParens = iota
	eFunction
	eMisused
	eReserved
	eSection
	eUndefined
	eOverlap
	eConflict
	eOperands
	eDistinct
	eType
	eKinds
)

// The precedence of error kinds for each grammar.
var (
	conditionOrder = []int{eParens, eFunction, eMisused, eReserved, eUndefined, eOperands, eDistinct, eType}
	updateOrder    = []int{eReserved, eFunction, eSection, eUndefined, eOverlap, eConflict, eOperands, eType}
	otherOrder     = []int{eReserved, eUndefined, eOverlap, eConflict}
)

// state is the parser's position.
type state struct {
	tok       token
	prevStart int
	prevEnd   int
	lastGroup [2]int
}

// semantic is a semantic error of some kind.
type semantic struct {
	kind    int
	msg     string
	subject string
}

type parser struct {
	scope *Scope
	kind  Kind
	src   string
	state
	errs   []semantic
	syntax *Error
}

func (p *parser) text() string { return p.src[p.tok.start:p.tok.end] }

func (p *parser) next() {
	p.prevStart, p.prevEnd = p.tok.start, p.tok.end
	p.tok = lex(p.src, p.tok.end)
}

// ok reports whether parsing may go on.
func (p *parser) ok() bool { return p.syntax == nil }

// fail records a syntax error at the current token, worded as DynamoDB
// does: the token and the text from the token before it to the token
// after it.
func (p *parser) fail() {
	if p.syntax != nil {
		return
	}
	tok := "<EOF>"
	if p.tok.kind != tEOF {
		tok = p.text()
	}
	from, to := p.tok.start, p.tok.end
	if p.prevStart >= 0 {
		from = p.prevStart
	}
	if p.tok.kind != tEOF {
		if nx := lex(p.src, p.tok.end); nx.kind != tEOF {
			to = nx.end
		}
	} else if p.prevStart >= 0 {
		to = p.prevEnd
	}
	p.syntax = p.kind.errorf("Syntax error; token: %q, near: %q", tok, p.src[from:to])
}

func (p *parser) expect(k tokKind) bool {
	if p.tok.kind != k {
		p.fail()
		return false
	}
	p.next()
	return true
}

func (p *parser) expectEOF() {
	if p.ok() && p.tok.kind != tEOF {
		p.fail()
	}
}

// note records a semantic error of a kind unless one is already held.
func (p *parser) note(kind int, format string, args ...any) {
	p.noteOn(kind, "", format, args...)
}

// noteOn is note for an error about one word or placeholder.
func (p *parser) noteOn(kind int, subject, format string, args ...any) {
	for _, e := range p.errs {
		if e.kind == kind {
			return
		}
	}
	p.errs = append(p.errs, semantic{kind, p.kind.errorf(format, args...).Msg, subject})
}

func (p *parser) finish() *Error {
	if p.syntax != nil {
		return p.syntax
	}
	order := otherOrder
	switch p.kind {
	case ConditionKind, FilterKind, KeyConditionKind:
		order = conditionOrder
	case UpdateKind:
		order = updateOrder
	}
	for _, k := range order {
		for _, e := range p.errs {
			if e.kind == k {
				return &Error{Msg: e.msg, Subject: e.subject}
			}
		}
	}
	return nil
}

// isKeyword reports whether the current token is the word w, ignoring
// case.
func (p *parser) isKeyword(w string) bool {
	return p.tok.kind == tWord && strings.EqualFold(p.text(), w)
}

// path parses a document path; the current token is a word or a name
// placeholder.
func (p *parser) path() Path {
	var out Path
	step := func() bool {
		switch p.tok.kind {
		case tWord:
			w := p.text()
			if w[0] >= '0' && w[0] <= '9' {
				p.fail()
				return false
			}
			if IsReserved(w) {
				p.noteOn(eReserved, w, "Attribute name is a reserved keyword; reserved keyword: %s", w)
			}
			out = append(out, Step{Name: w, Index: -1})
		case tName:
			ph := p.text()
			n, ok := p.scope.name(ph)
			if !ok {
				p.noteOn(eUndefined, ph, "An expression attribute name used in the document path is not defined; attribute name: %s", ph)
			}
			out = append(out, Step{Name: n, Index: -1})
		default:
			p.fail()
			return false
		}
		p.next()
		return true
	}
	if !step() {
		return nil
	}
	for p.ok() {
		switch p.tok.kind {
		case tDot:
			p.next()
			if !step() {
				return nil
			}
		case tLBrack:
			p.next()
			if p.tok.kind != tWord {
				p.fail()
				return nil
			}
			ix, err := strconv.ParseUint(p.text(), 10, 31)
			if err != nil {
				p.fail()
				return nil
			}
			out = append(out, Step{Index: int(ix)})
			p.next()
			if !p.expect(tRBrack) {
				return nil
			}
		default:
			return out
		}
	}
	return nil
}

// value resolves the current value placeholder.
func (p *parser) value() attr.Value {
	ph := p.text()
	v, ok := p.scope.value(ph)
	if !ok {
		p.noteOn(eUndefined, ph, "An expression attribute value used in expression is not defined; attribute value: %s", ph)
	}
	p.next()
	return v
}

// groupOpen and groupClose track parenthesised groups to detect
// redundant parentheses: a group whose whole content is another group.
func (p *parser) groupClose(open, inner int) {
	if p.lastGroup[0] == inner && p.lastGroup[1] == p.prevStart {
		p.note(eParens, "The expression has redundant parentheses;")
	}
	p.lastGroup = [2]int{open, p.tok.start}
}
