package iam

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// State says whether a request carries a condition key.
type State uint8

// The states of a condition key.
const (
	Absent  State = iota // the request has no value for the key
	Present              // the request's values are known
	Unknown              // the request's values could not be determined
)

// Context is a request's condition context. Keys are asked for in lower
// case; a context may compute values on demand.
type Context interface {
	Lookup(key string) ([]string, State)
}

// Map is a Context held in a map, keys in lower case.
type Map map[string][]string

// Lookup implements Context.
func (m Map) Lookup(key string) ([]string, State) {
	v, ok := m[key]
	if !ok {
		return nil, Absent
	}
	return v, Present
}

// Request is one authorization: an action (service:Action) on a resource
// (an ARN, or "*" for actions on no resource).
type Request struct {
	Action   string
	Resource string
	Context  Context
}

// Decision is the outcome of evaluating a request.
type Decision uint8

// The decisions.
const (
	ImplicitDeny Decision = iota // no statement allows it
	Allowed                      // a statement allows it and none denies it
	ExplicitDeny                 // a Deny statement matches
)

// Evaluate decides r against the policies attached to a principal.
func Evaluate(policies []*Policy, r *Request) Decision {
	allowed := false
	action := strings.ToLower(r.Action)
	for _, p := range policies {
		for _, s := range p.Statements {
			if !s.matchesAction(action) || !s.matchesResource(r.Resource, r.Context) {
				continue
			}
			c := s.conditionsHold(r.Context)
			if s.Effect == Deny && c != no {
				return ExplicitDeny
			}
			if s.Effect == Allow && c == yes {
				allowed = true
			}
		}
	}
	if allowed {
		return Allowed
	}
	return ImplicitDeny
}

// MayAllow reports whether some Allow statement of the policies matches
// r's action and resource, its conditions aside, and no Deny without
// conditions does: whether the caller has any permission of that kind on
// the resource.
func MayAllow(policies []*Policy, r *Request) bool {
	action := strings.ToLower(r.Action)
	may := false
	for _, p := range policies {
		for _, s := range p.Statements {
			if !s.matchesAction(action) || !s.matchesResource(r.Resource, r.Context) {
				continue
			}
			if s.Effect == Deny && len(s.Conditions) == 0 {
				return false
			}
			if s.Effect == Allow {
				may = true
			}
		}
	}
	return may
}

// tri is a three-valued truth: a condition on an unknown key is maybe.
type tri int8

const (
	no tri = iota
	yes
	maybe
)

func (s *Statement) matchesAction(action string) bool {
	m := false
	for _, a := range s.Actions {
		if a == "*" || glob(a, action) {
			m = true
			break
		}
	}
	return m != s.NotAction
}

func (s *Statement) matchesResource(resource string, ctx Context) bool {
	m := false
	for _, t := range s.Resources {
		if t.raw == "*" {
			m = true
			break
		}
		pat, ok := t.render(ctx, true)
		if ok && arnMatch(pat, resource) {
			m = true
			break
		}
	}
	return m != s.NotResource
}

func (s *Statement) conditionsHold(ctx Context) tri {
	out := yes
	for _, c := range s.Conditions {
		switch c.holds(ctx) {
		case no:
			return no
		case maybe:
			out = maybe
		}
	}
	return out
}

// holds evaluates one condition.
func (c *Condition) holds(ctx Context) tri {
	vals, st := ctx.Lookup(c.Key)
	if st == Unknown {
		return maybe
	}
	if c.op.kind == opNull {
		want := len(c.Values) > 0 && strings.EqualFold(c.Values[0].raw, "true")
		return truth((st == Absent || len(vals) == 0) == want)
	}
	empty := st == Absent || len(vals) == 0
	switch c.Qualifier {
	case "ForAllValues":
		if empty {
			return yes
		}
		for _, v := range vals {
			if c.matchesAny(v, ctx) == c.op.negated {
				return no
			}
		}
		return yes
	case "ForAnyValue":
		if empty {
			return truth(c.IfExists)
		}
		for _, v := range vals {
			if c.matchesAny(v, ctx) != c.op.negated {
				return yes
			}
		}
		return no
	}
	if empty {
		return truth(c.IfExists || c.op.negated)
	}
	// A single-valued operator on several values asks it of all of them:
	// an Allow on dynamodb:LeadingKeys with plain StringLike then covers a
	// batch only if every key is allowed.
	for _, v := range vals {
		if c.matchesAny(v, ctx) == c.op.negated {
			return no
		}
	}
	return yes
}

func truth(b bool) tri {
	if b {
		return yes
	}
	return no
}

// matchesAny reports whether v matches any of the condition's values
// under the positive form of its operator.
func (c *Condition) matchesAny(v string, ctx Context) bool {
	if c.op.kind == opIP {
		a, err := netip.ParseAddr(v)
		if err != nil {
			return false
		}
		for _, pf := range c.prefixes {
			if pf.Contains(a.Unmap()) {
				return true
			}
		}
		return false
	}
	for _, t := range c.Values {
		p, ok := t.render(ctx, c.op.kind == opLike || c.op.kind == opArn)
		if ok && c.op.match(v, p) {
			return true
		}
	}
	return false
}

// render substitutes a text's variables. For a pattern (wildcards
// allowed), the literal text keeps its * and ? and the substituted values
// are escaped, so that a tag value can never widen a pattern. ok is false
// when a variable has no value and no default.
func (t *text) render(ctx Context, pattern bool) (string, bool) {
	if len(t.parts) == 1 && t.parts[0].variable == "" && !pattern {
		return t.parts[0].lit, true
	}
	var b strings.Builder
	for _, p := range t.parts {
		switch {
		case p.variable == "" && p.hasDef: // ${*} ${?} ${$}: the character itself
			writeLiteral(&b, p.def, pattern)
		case p.variable == "":
			if pattern {
				b.WriteString(strings.ReplaceAll(p.lit, `\`, `\\`))
			} else {
				b.WriteString(p.lit)
			}
		default:
			vals, st := ctx.Lookup(p.variable)
			switch {
			case st == Present && len(vals) == 1:
				writeLiteral(&b, vals[0], pattern)
			case p.hasDef && st != Unknown:
				writeLiteral(&b, p.def, pattern)
			default:
				return "", false
			}
		}
	}
	return b.String(), true
}

func writeLiteral(b *strings.Builder, s string, pattern bool) {
	if !pattern {
		b.WriteString(s)
		return
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '*' || s[i] == '?' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}

// glob matches s against a pattern where * matches any run of bytes, ?
// one character, and \ makes the next byte literal.
func glob(pat, s string) bool {
	var starP, starS = -1, 0
	p, i := 0, 0
	for i < len(s) {
		if p < len(pat) {
			switch c := pat[p]; c {
			case '*':
				starP, starS = p, i
				p++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
				p++
				continue
			case '\\':
				if p+1 < len(pat) && pat[p+1] == s[i] {
					p += 2
					i++
					continue
				}
			default:
				if c == s[i] {
					p++
					i++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		i = starS
		p = starP + 1
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// arnMatch matches an ARN against an ARN pattern segment by segment
// (partition, service, region, account), a wildcard never spanning a
// colon there; the resource part is matched whole.
func arnMatch(pat, arn string) bool {
	if pat == "*" {
		return true
	}
	ps := strings.SplitN(pat, ":", 6)
	as := strings.SplitN(arn, ":", 6)
	if len(ps) != 6 || len(as) != 6 {
		return false
	}
	for i := range ps {
		if !glob(ps[i], as[i]) {
			return false
		}
	}
	return true
}

// operator kinds.
const (
	opString = iota
	opStringIC
	opLike
	opNumeric
	opBool
	opArn
	opIP
	opNull
)

type operator struct {
	kind    int
	negated bool
	cmp     string // for numeric: = < <= > >=
}

// operators lists the supported operators by name.
var operators = map[string]operator{
	"StringEquals":              {kind: opString},
	"StringNotEquals":           {kind: opString, negated: true},
	"StringEqualsIgnoreCase":    {kind: opStringIC},
	"StringNotEqualsIgnoreCase": {kind: opStringIC, negated: true},
	"StringLike":                {kind: opLike},
	"StringNotLike":             {kind: opLike, negated: true},
	"NumericEquals":             {kind: opNumeric, cmp: "="},
	"NumericNotEquals":          {kind: opNumeric, cmp: "=", negated: true},
	"NumericLessThan":           {kind: opNumeric, cmp: "<"},
	"NumericLessThanEquals":     {kind: opNumeric, cmp: "<="},
	"NumericGreaterThan":        {kind: opNumeric, cmp: ">"},
	"NumericGreaterThanEquals":  {kind: opNumeric, cmp: ">="},
	"Bool":                      {kind: opBool},
	"ArnEquals":                 {kind: opArn},
	"ArnLike":                   {kind: opArn},
	"ArnNotEquals":              {kind: opArn, negated: true},
	"ArnNotLike":                {kind: opArn, negated: true},
	"IpAddress":                 {kind: opIP},
	"NotIpAddress":              {kind: opIP, negated: true},
	"Null":                      {kind: opNull},
}

// parseOperator splits ForAllValues:StringLikeIfExists into its parts.
func parseOperator(s string) (qual, name string, ifExists bool, op operator, ok bool) {
	for _, q := range []string{"ForAllValues:", "ForAnyValue:"} {
		if rest, found := strings.CutPrefix(s, q); found {
			qual, s = strings.TrimSuffix(q, ":"), rest
		}
	}
	if rest, found := strings.CutSuffix(s, "IfExists"); found && rest != "Null" {
		ifExists, s = true, rest
	}
	op, ok = operators[s]
	if op.kind == opNull && (qual != "" || ifExists) {
		ok = false
	}
	return qual, s, ifExists, op, ok
}

// check validates a policy value for the operator; it returns a message.
func (o operator) check(t *text) string {
	literal := len(t.parts) == 1 && t.parts[0].variable == ""
	switch o.kind {
	case opNumeric:
		if _, err := strconv.ParseFloat(t.raw, 64); err != nil && literal {
			return strconv.Quote(t.raw) + " is not a number"
		}
	case opBool, opNull:
		if !strings.EqualFold(t.raw, "true") && !strings.EqualFold(t.raw, "false") {
			return strconv.Quote(t.raw) + ": want true or false"
		}
	case opIP:
		if _, err := netip.ParsePrefix(t.raw); err != nil {
			if _, err := netip.ParseAddr(t.raw); err != nil {
				return strconv.Quote(t.raw) + " is not an IP address or CIDR block"
			}
		}
	}
	return ""
}

// match applies the positive form of the operator to a request value and
// one rendered policy value.
func (o operator) match(v, p string) bool {
	switch o.kind {
	case opString:
		return v == p
	case opStringIC:
		return strings.EqualFold(v, p)
	case opLike:
		return glob(p, v)
	case opArn:
		return arnMatch(p, v)
	case opBool:
		return strings.EqualFold(v, p)
	case opNumeric:
		a, err1 := strconv.ParseFloat(v, 64)
		b, err2 := strconv.ParseFloat(p, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		switch o.cmp {
		case "=":
			return a == b
		case "<":
			return a < b
		case "<=":
			return a <= b
		case ">":
			return a > b
		case ">=":
			return a >= b
		}
	}
	return false
}
