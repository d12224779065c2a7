package expr

import (
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// maxExpressionSize is DynamoDB's limit on the length of one expression.
const maxExpressionSize = 4096

// Scope parses the expressions of one request against the request's
// ExpressionAttributeNames and ExpressionAttributeValues, remembering
// which placeholders they use so that Check can reject the others. A
// Scope is not safe for concurrent use; the expressions it returns are.
type Scope struct {
	names      map[string]string
	values     map[string]attr.Value
	usedNames  map[string]struct{}
	usedValues map[string]struct{}
	// samples are the value placeholders whose values stand for any
	// value of their type.
	samples map[string]struct{}
}

// NewScope returns a scope over a request's placeholder maps; either may
// be nil.
func NewScope(names map[string]string, values map[string]attr.Value) *Scope {
	return &Scope{names: names, values: values}
}

// Samples marks value placeholders whose values only stand for some
// value of their type, as when a model's expressions are checked before
// any request exists. Parsing then checks the types of these values but
// not what depends on the values themselves (the order of BETWEEN's
// bounds, the type name of attribute_type), which would otherwise fail
// or pass by the choice of sample. It returns s.
func (s *Scope) Samples(placeholders ...string) *Scope {
	if s.samples == nil {
		s.samples = make(map[string]struct{}, len(placeholders))
	}
	for _, ph := range placeholders {
		s.samples[ph] = struct{}{}
	}
	return s
}

func (s *Scope) isSample(ph string) bool {
	_, ok := s.samples[ph]
	return ok
}

func (s *Scope) name(ph string) (string, bool) {
	n, ok := s.names[ph]
	if ok {
		if s.usedNames == nil {
			s.usedNames = make(map[string]struct{}, len(s.names))
		}
		s.usedNames[ph] = struct{}{}
	}
	return n, ok
}

func (s *Scope) value(ph string) (attr.Value, bool) {
	v, ok := s.values[ph]
	if ok {
		if s.usedValues == nil {
			s.usedValues = make(map[string]struct{}, len(s.values))
		}
		s.usedValues[ph] = struct{}{}
	}
	return v, ok
}

// Check reports placeholders that no expression parsed through the scope
// used, names first, as DynamoDB does. Call it after parsing every
// expression of the request.
func (s *Scope) Check() error {
	if len(s.usedNames) < len(s.names) {
		return unused("ExpressionAttributeNames", s.names, s.usedNames)
	}
	if len(s.usedValues) < len(s.values) {
		return unused("ExpressionAttributeValues", s.values, s.usedValues)
	}
	return nil
}

// Unused returns, sorted, the names and the values that no expression
// parsed through the scope used: what Check reports, for a caller that
// reports each placeholder where it is defined.
func (s *Scope) Unused() (names, values []string) {
	return unusedKeys(s.names, s.usedNames), unusedKeys(s.values, s.usedValues)
}

func unused[V any](param string, m map[string]V, used map[string]struct{}) error {
	return &Error{Msg: "Value provided in " + param + " unused in expressions: keys: {" + strings.Join(unusedKeys(m, used), ", ") + "}"}
}

func unusedKeys[V any](m map[string]V, used map[string]struct{}) []string {
	var keys []string
	for k := range m {
		if _, ok := used[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// Condition parses a ConditionExpression.
func (s *Scope) Condition(src string) (*Condition, error) {
	return s.condition(ConditionKind, src)
}

// Filter parses a FilterExpression; it has the grammar of a condition.
func (s *Scope) Filter(src string) (*Condition, error) {
	return s.condition(FilterKind, src)
}

func (s *Scope) condition(kind Kind, src string) (*Condition, error) {
	var p parser
	if err := s.start(&p, kind, src); err != nil {
		return nil, err
	}
	n := p.or()
	p.expectEOF()
	if err := p.finish(); err != nil {
		return nil, err
	}
	return &Condition{root: n}, nil
}

// start checks what DynamoDB checks before parsing and sets p up on the
// first token.
func (s *Scope) start(p *parser, kind Kind, src string) *Error {
	if src == "" {
		return kind.errorf("The expression can not be empty;")
	}
	if len(src) > maxExpressionSize {
		return kind.errorf("Expression size has exceeded the maximum allowed size; expression size: %d", len(src))
	}
	*p = parser{scope: s, kind: kind, src: src}
	p.prevStart = -1
	p.tok = lex(src, 0)
	return nil
}
