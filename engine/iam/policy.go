package iam

import (
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/internal/jsonpos"
)

// MaxDocument caps the size of a policy document read by Parse. AWS's
// own quotas (6,144 characters for a managed policy) are not enforced.
const MaxDocument = 1 << 20

// Versions of the policy language. Only 2012-10-17 has policy variables;
// in a 2008-10-17 document (the default) ${...} is literal text.
const (
	Version2012 = "2012-10-17"
	Version2008 = "2008-10-17"
)

// Policy is a parsed identity-based policy document.
type Policy struct {
	Name       string // the file it was read from, for messages
	Version    string
	Statements []*Statement
}

// Effect is a statement's Effect.
type Effect bool

// The two effects.
const (
	Allow Effect = true
	Deny  Effect = false
)

func (e Effect) String() string {
	if e == Allow {
		return "Allow"
	}
	return "Deny"
}

// Statement is one statement of a policy.
type Statement struct {
	Sid    string
	Effect Effect
	// Actions are the Action (or, with NotAction set, NotAction) patterns.
	Actions   []string
	NotAction bool
	// Resources are the Resource (or NotResource) patterns.
	Resources   []*text
	NotResource bool
	Conditions  []*Condition
}

// Condition is one test of a statement's Condition block: an operator
// applied to one condition key and its values.
type Condition struct {
	Operator  string // e.g. StringLike, without qualifier and IfExists
	Qualifier string // "", "ForAllValues" or "ForAnyValue"
	IfExists  bool
	Key       string // lower case: condition keys are case-insensitive
	Values    []*text
	op        operator
	prefixes  []netip.Prefix // for IpAddress and NotIpAddress
}

// text is a string of a policy with its variables: parts alternate
// literal text and variable references.
type text struct {
	raw   string
	parts []part
}

type part struct {
	lit      string
	variable string // lower-case key; empty for a literal
	def      string // ${key, 'default'}
	hasDef   bool
}

var (
	actionRE = regexp.MustCompile(`^[A-Za-z0-9-]+:[A-Za-z0-9*?]+$`)
	varRE    = regexp.MustCompile(`^\s*([A-Za-z0-9:/_.+=@-]+|\*|\?|\$)\s*(?:,\s*'([^']*)'\s*)?$`)
)

// Parse reads a policy document from data, read from the file called name.
func Parse(name string, data []byte) (*Policy, error) {
	if len(data) > MaxDocument {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a policy document", name, MaxDocument)
	}
	root, err := parseTree(name, data)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, data: data}
	pol := p.policy(root)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].off < p.errs[j].off })
		var b strings.Builder
		for i, e := range p.errs {
			if i == 10 {
				fmt.Fprintf(&b, "\n(and %d more errors)", len(p.errs)-10)
				break
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(e.msg)
		}
		return nil, &Error{Msg: b.String()}
	}
	return pol, nil
}

// Error is a policy document's errors, one a line.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

type parser struct {
	name string
	data []byte
	errs []perr
}

type perr struct {
	off int64
	msg string
}

// errAt records an error at a node, named by its path in the document.
func (p *parser) errAt(off int64, path, format string, args ...any) {
	// Offsets taken before a token point at the separator before it.
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	l, c := jsonpos.Position(p.data, off)
	msg := fmt.Sprintf("%s:%d:%d: ", p.name, l, c)
	if path != "" {
		msg += path + ": "
	}
	p.errs = append(p.errs, perr{off, msg + fmt.Sprintf(format, args...)})
}

func (p *parser) policy(n *node) *Policy {
	pol := &Policy{Name: p.name, Version: Version2008}
	if n.kind != '{' {
		p.errAt(n.off, "", "a policy document is a JSON object, got %s", n.what())
		return pol
	}
	var stmts *node
	for _, m := range n.obj {
		switch m.key {
		case "Version":
			if m.val.kind != 's' || (m.val.str != Version2012 && m.val.str != Version2008) {
				p.errAt(m.val.off, "Version", "want %q (or %q), got %s", Version2012, Version2008, show(m.val))
				continue
			}
			pol.Version = m.val.str
		case "Id":
			if m.val.kind != 's' {
				p.errAt(m.val.off, "Id", "want a string, got %s", m.val.what())
			}
		case "Statement":
			stmts = m.val
		default:
			p.errAt(m.off, "", "unknown element %q (want Version, Id, Statement)", m.key)
		}
	}
	if stmts == nil {
		p.errAt(n.off, "", "no Statement")
		return pol
	}
	list := []*node{stmts}
	if stmts.kind == '[' {
		list = stmts.arr
		if len(list) == 0 {
			p.errAt(stmts.off, "Statement", "no statements")
		}
	}
	for i, s := range list {
		path := "Statement"
		if stmts.kind == '[' {
			path = fmt.Sprintf("Statement[%d]", i)
		}
		if st := p.statement(s, path, pol.Version == Version2012); st != nil {
			pol.Statements = append(pol.Statements, st)
		}
	}
	return pol
}

func show(n *node) string {
	if n.kind == 's' {
		return fmt.Sprintf("%q", n.str)
	}
	return n.what()
}

func (p *parser) statement(n *node, path string, vars bool) *Statement {
	if n.kind != '{' {
		p.errAt(n.off, path, "a statement is a JSON object, got %s", n.what())
		return nil
	}
	st := &Statement{}
	var hasEffect, hasAction, hasResource bool
	for _, m := range n.obj {
		at := path + "." + m.key
		switch m.key {
		case "Sid":
			if m.val.kind != 's' {
				p.errAt(m.val.off, at, "want a string, got %s", m.val.what())
			}
			st.Sid = m.val.str
		case "Effect":
			hasEffect = true
			switch {
			case m.val.kind == 's' && m.val.str == "Allow":
				st.Effect = Allow
			case m.val.kind == 's' && m.val.str == "Deny":
				st.Effect = Deny
			default:
				p.errAt(m.val.off, at, "want \"Allow\" or \"Deny\", got %s", show(m.val))
			}
		case "Action", "NotAction":
			if hasAction {
				p.errAt(m.off, at, "a statement has one of Action and NotAction")
			}
			hasAction, st.NotAction = true, m.key == "NotAction"
			for i, v := range p.strings(m.val, at) {
				if v != "*" && !actionRE.MatchString(v) {
					p.errAt(m.val.off, elem(at, m.val, i), "%q is not an action: want service:Action, e.g. dynamodb:GetItem, with * and ? wildcards, or *", v)
					continue
				}
				st.Actions = append(st.Actions, strings.ToLower(v))
			}
		case "Resource", "NotResource":
			if hasResource {
				p.errAt(m.off, at, "a statement has one of Resource and NotResource")
			}
			hasResource, st.NotResource = true, m.key == "NotResource"
			for i, v := range p.strings(m.val, at) {
				t := p.text(m.val.off, elem(at, m.val, i), v, vars)
				if t == nil {
					continue
				}
				if v != "*" && strings.Count(v, ":") < 5 || v != "*" && !strings.HasPrefix(v, "arn:") {
					p.errAt(m.val.off, elem(at, m.val, i), "%q is not a resource: want an ARN (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME) or *", v)
					continue
				}
				st.Resources = append(st.Resources, t)
			}
		case "Condition":
			st.Conditions = p.conditions(m.val, at, vars)
		case "Principal", "NotPrincipal":
			p.errAt(m.off, at, "an identity-based policy does not name a principal: it applies to the identities it is attached to (--policy)")
		default:
			p.errAt(m.off, path, "unknown element %q (want Sid, Effect, Action, NotAction, Resource, NotResource, Condition)", m.key)
		}
	}
	if !hasEffect {
		p.errAt(n.off, path, "no Effect")
	}
	if !hasAction {
		p.errAt(n.off, path, "no Action (or NotAction)")
	}
	if !hasResource {
		p.errAt(n.off, path, "no Resource (or NotResource)")
	}
	return st
}

func elem(path string, n *node, i int) string {
	if n.kind == '[' {
		return fmt.Sprintf("%s[%d]", path, i)
	}
	return path
}

// strings reads a string or a non-empty array of strings.
func (p *parser) strings(n *node, path string) []string {
	switch n.kind {
	case 's':
		return []string{n.str}
	case '[':
		if len(n.arr) == 0 {
			p.errAt(n.off, path, "empty list")
		}
		out := make([]string, 0, len(n.arr))
		for i, v := range n.arr {
			if v.kind != 's' {
				p.errAt(v.off, fmt.Sprintf("%s[%d]", path, i), "want a string, got %s", v.what())
				continue
			}
			out = append(out, v.str)
		}
		return out
	}
	p.errAt(n.off, path, "want a string or a list of strings, got %s", n.what())
	return nil
}

// text splits a value into literal text and ${...} variables (in a
// 2012-10-17 document).
func (p *parser) text(off int64, path, v string, vars bool) *text {
	t := &text{raw: v}
	if !vars {
		t.parts = []part{{lit: v}}
		return t
	}
	rest := v
	for rest != "" {
		i := strings.Index(rest, "${")
		if i < 0 {
			t.parts = append(t.parts, part{lit: rest})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{lit: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			p.errAt(off, path, "%q: ${ without a closing }", v)
			return nil
		}
		m := varRE.FindStringSubmatch(rest[i+2 : i+j])
		if m == nil {
			p.errAt(off, path, "%q: %q is not a policy variable (want ${aws:PrincipalTag/KEY}, ${aws:username}, ${KEY, 'default'}, ${*}, ${?} or ${$})", v, rest[i:i+j+1])
			return nil
		}
		switch m[1] {
		case "*", "?", "$":
			t.parts = append(t.parts, part{lit: m[1], variable: "", def: m[1], hasDef: true})
		default:
			t.parts = append(t.parts, part{variable: strings.ToLower(m[1]), def: m[2], hasDef: strings.Contains(rest[i+2:i+j], ",")})
		}
		rest = rest[i+j+1:]
	}
	return t
}

// conditions reads a Condition block: operator -> key -> values.
func (p *parser) conditions(n *node, path string, vars bool) []*Condition {
	if n.kind != '{' {
		p.errAt(n.off, path, "want an object of operators, got %s", n.what())
		return nil
	}
	var out []*Condition
	for _, om := range n.obj {
		at := path + "." + om.key
		qual, opName, ifExists, op, ok := parseOperator(om.key)
		if !ok {
			p.errAt(om.off, path, "unsupported condition operator %q (want String*, Numeric*, Bool, Arn*, IpAddress, NotIpAddress or Null, optionally ...IfExists and ForAllValues:/ForAnyValue:)", om.key)
			continue
		}
		if om.val.kind != '{' {
			p.errAt(om.val.off, at, "want an object of condition keys, got %s", om.val.what())
			continue
		}
		if len(om.val.obj) == 0 {
			p.errAt(om.val.off, at, "no condition keys")
		}
		for _, km := range om.val.obj {
			kat := at + "." + km.key
			c := &Condition{Operator: opName, Qualifier: qual, IfExists: ifExists, Key: strings.ToLower(km.key), op: op}
			if km.key == "" {
				p.errAt(km.off, at, "empty condition key")
				continue
			}
			vals := []*node{km.val}
			if km.val.kind == '[' {
				vals = km.val.arr
				if len(vals) == 0 {
					p.errAt(km.val.off, kat, "empty list of values")
				}
			}
			for i, v := range vals {
				if v.kind != 's' && v.kind != 'n' && v.kind != 'b' {
					p.errAt(v.off, elem(kat, km.val, i), "want a string, number or boolean, got %s", v.what())
					continue
				}
				t := p.text(v.off, elem(kat, km.val, i), v.str, vars && v.kind == 's')
				if t == nil {
					continue
				}
				if err := op.check(t); err != "" {
					p.errAt(v.off, elem(kat, km.val, i), "%s", err)
					continue
				}
				c.Values = append(c.Values, t)
				if op.kind == opIP {
					c.prefixes = append(c.prefixes, parsePrefix(v.str))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// parsePrefix reads an address or CIDR block (checked before).
func parsePrefix(s string) netip.Prefix {
	if pf, err := netip.ParsePrefix(s); err == nil {
		return pf.Masked()
	}
	a, _ := netip.ParseAddr(s)
	return netip.PrefixFrom(a, a.BitLen())
}
