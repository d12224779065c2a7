package catalog

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// FailureKind is what a declared failure of a step means, read from the
// shape of the request, never from its names: the business words are the
// model's (Failure.Meaning); the kind is what a program does with it.
type FailureKind string

// Failure kinds.
const (
	// FailNotFound: the item a get reads, or a write requires
	// (attribute_exists on a key), does not exist.
	FailNotFound FailureKind = "not-found"
	// FailAlreadyApplied: a create guarded by attribute_not_exists on a
	// key found the item, and the model declares that a success (an
	// idempotent retry or duplicate).
	FailAlreadyApplied FailureKind = "already-applied"
	// FailExists: the same guard, declared stop or fail.
	FailExists FailureKind = "exists"
	// FailVersionConflict: the condition reads an attribute of unit
	// version (an optimistic lock).
	FailVersionConflict FailureKind = "version-conflict"
	// FailLimitReached: the condition reads an attribute the same write
	// adds to or increments (a counter held under a limit).
	FailLimitReached FailureKind = "limit-reached"
	// FailCondition: any other condition.
	FailCondition FailureKind = "condition-failed"
)

// MissingKind is the kind of a get's onMissing failure.
func (s *Step) MissingKind() FailureKind { return FailNotFound }

// ConditionKind classifies the step's onConditionFailed by its request:
//
//   - a condition that names only table key attributes tells whether the
//     item exists: when it holds for a missing item (attribute_not_exists)
//     its failure means the item exists (already applied when declared
//     succeed, exists otherwise), else that it is missing (not found);
//   - a condition on an attribute whose unit is version is an optimistic
//     lock: version conflict;
//   - a condition on an attribute the same update adds to or increments,
//     and on nothing else, is a limit: limit reached; when it reads other
//     attributes too the limit is one reason among several ("settled, or
//     owes less than the payment"), so it is a plain failed condition,
//     named by its meaning (MeaningWords);
//   - anything else is a plain failed condition.
//
// op types the expression values; "" when the step has no condition.
func (s *Step) ConditionKind(m *Model, op *Operation) FailureKind {
	q := s.Request
	if q == nil || q.Condition == "" {
		return ""
	}
	values := map[string]attr.Value{}
	var samples []string
	for _, nv := range q.Values {
		v, sample, ok := typedRepresentative(nv.Value, op, s)
		if !ok {
			continue
		}
		values[nv.Name] = v
		if sample {
			samples = append(samples, nv.Name)
		}
	}
	sc := expr.NewScope(q.Names, values).Samples(samples...)
	c, err := sc.Condition(q.Condition)
	if err != nil {
		return FailCondition
	}
	var written, incremented []string
	if q.Update != "" {
		if u, err := sc.Update(q.Update); err == nil {
			written = u.Attrs()
			incremented = u.Reads()
		}
	}
	keysOnly := true
	for _, a := range c.Attrs() {
		if a != q.Table.PartitionKey && a != q.Table.SortKey {
			keysOnly = false
		}
	}
	if keysOnly {
		if !c.Eval(nil) {
			return FailNotFound
		}
		if q.OnConditionFailed != nil && q.OnConditionFailed.Outcome == "succeed" {
			return FailAlreadyApplied
		}
		return FailExists
	}
	for _, a := range c.Attrs() {
		if at := m.Attribute(a); at != nil && at.Unit == "version" {
			return FailVersionConflict
		}
	}
	attrs := c.Attrs()
	for _, a := range attrs {
		if contains(written, a) && (contains(incremented, a) || increments(sc, q.Update, a)) {
			if len(attrs) > 1 {
				return FailCondition
			}
			return FailLimitReached
		}
	}
	return FailCondition
}

var (
	clauseEnd = regexp.MustCompile(`\s*(;|\(| - |: |,)`)
	stopWords = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "it": true, "is": true, "was": true, "are": true, "do": true, "of": true}
)

// MeaningWords names a declared failure by its meaning, for the programs
// and reports that must tell one failed condition from another: the
// first clause's words, lower case, less articles and the like, at most
// four ("contract settled or owes less than the payment" -> contract
// settled or owes). The generator's error names and the load's outcome
// labels are both read from them; none for a meaning of no words.
func MeaningWords(meaning string) []string {
	first := meaning
	if loc := clauseEnd.FindStringIndex(meaning); loc != nil {
		first = meaning[:loc[0]]
	}
	var ws []string
	for _, w := range strings.Fields(first) {
		lw := strings.ToLower(w)
		if stopWords[lw] {
			continue
		}
		ws = append(ws, lw)
		if len(ws) == 4 {
			break
		}
	}
	return ws
}

// MeaningLabel is MeaningWords as an outcome's label: letters and digits
// joined by hyphens ("contract-settled-or-owes"); "" when none.
func MeaningLabel(meaning string) string {
	var parts []string
	for _, w := range MeaningWords(meaning) {
		w = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return -1
		}, w)
		if w != "" {
			parts = append(parts, w)
		}
	}
	return strings.Join(parts, "-")
}

// increments reports whether the update's new value of a depends on its
// old one (ADD a :x, SET a = a + :x): applied to a holding 0 and to a
// holding 7 it leaves different values.
func increments(sc *expr.Scope, update, a string) bool {
	u, err := sc.Update(update)
	if err != nil {
		return false
	}
	after := func(old string) (attr.Value, bool) {
		n, err := u.Apply(attr.Item{{Name: a, Value: attr.Num(old)}})
		if err != nil {
			return attr.Value{}, false
		}
		return n.Get(a)
	}
	x, ok1 := after("0")
	y, ok2 := after("7")
	return ok1 && ok2 && !attr.Equal(x, y)
}

// typedRepresentative is a value of the right type for an operand of a
// step's request: a literal is itself, a template a string, a parameter
// or bound attribute a sample of its type.
func typedRepresentative(o Operand, op *Operation, s *Step) (attr.Value, bool, bool) {
	switch {
	case o.Literal != nil:
		return *o.Literal, false, true
	case o.Template != nil && o.Template.IsConstant():
		return attr.Str(o.Template.Text), false, true
	case o.Template != nil:
		return attr.Str("x"), true, true
	case o.Param != "":
		if p := op.Param(o.Param); p != nil {
			v, ok := sampleOf(p.Type)
			return v, true, ok
		}
	}
	return attr.Value{}, false, false
}
