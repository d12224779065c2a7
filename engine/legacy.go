package engine

import (
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// DynamoDB's legacy (pre-expression) parameters: Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter and
// ConditionalOperator. Rather than a second evaluator, each is rewritten
// into the equivalent expression with generated placeholders, and the
// request then runs like any other.

// ExpectedAttributeValue is one legacy Expected condition.
type ExpectedAttributeValue struct {
	Value              *attr.Value
	Exists             *bool
	ComparisonOperator string
	AttributeValueList []attr.Value
}

// AttributeValueUpdate is one legacy AttributeUpdates action.
type AttributeValueUpdate struct {
	Value  *attr.Value
	Action string
}

// Condition is one legacy KeyConditions, QueryFilter or ScanFilter
// condition.
type Condition struct {
	ComparisonOperator string
	AttributeValueList []attr.Value
}

// legacy builds an expression and its placeholder maps.
type legacy struct {
	names  map[string]string
	values map[string]attr.Value
}

func (l *legacy) name(n string) string {
	if l.names == nil {
		l.names = map[string]string{}
	}
	ph := "#l" + strconv.Itoa(len(l.names))
	l.names[ph] = n
	return ph
}

func (l *legacy) value(v attr.Value) string {
	if l.values == nil {
		l.values = map[string]attr.Value{}
	}
	ph := ":l" + strconv.Itoa(len(l.values))
	l.values[ph] = v
	return ph
}

// argCounts is how many values each comparison operator takes (-1: one or
// more).
var argCounts = map[string]int{
	"EQ": 1, "NE": 1, "LE": 1, "LT": 1, "GE": 1, "GT": 1,
	"NOT_NULL": 0, "NULL": 0, "CONTAINS": 1, "NOT_CONTAINS": 1, "BEGINS_WITH": 1,
	"IN": -1, "BETWEEN": 2,
}

var comparisons = map[string]string{"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}

// compare renders one legacy comparison on attribute n.
func (l *legacy) compare(n, op string, args []attr.Value) (string, error) {
	want, ok := argCounts[op]
	if !ok {
		return "", validationf("1 validation error detected: Value '%s' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]", op)
	}
	if want >= 0 && len(args) != want || want < 0 && len(args) == 0 {
		return "", invalidParam("Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	for _, a := range args {
		if _, err := normalizeValue(a); err != nil {
			return "", err
		}
	}
	p := l.name(n)
	if sym, ok := comparisons[op]; ok {
		return p + " " + sym + " " + l.value(args[0]), nil
	}
	switch op {
	case "NOT_NULL":
		return "attribute_exists(" + p + ")", nil
	case "NULL":
		return "attribute_not_exists(" + p + ")", nil
	case "CONTAINS":
		return "contains(" + p + ", " + l.value(args[0]) + ")", nil
	case "NOT_CONTAINS":
		return "NOT contains(" + p + ", " + l.value(args[0]) + ")", nil
	case "BEGINS_WITH":
		return "begins_with(" + p + ", " + l.value(args[0]) + ")", nil
	case "BETWEEN":
		return p + " BETWEEN " + l.value(args[0]) + " AND " + l.value(args[1]), nil
	}
	vs := make([]string, len(args))
	for i, a := range args {
		vs[i] = l.value(a)
	}
	return p + " IN (" + strings.Join(vs, ", ") + ")", nil
}

func joinConds(parts []string, op string) (string, error) {
	switch op {
	case "", "AND":
		return strings.Join(parts, " AND "), nil
	case "OR":
		return strings.Join(parts, " OR "), nil
	}
	return "", validationf("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]", op)
}

// expected rewrites an Expected map into a condition expression.
func (l *legacy) expected(exp map[string]ExpectedAttributeValue, op string) (string, error) {
	var parts []string
	for _, n := range sortedKeys(exp) {
		x := exp[n]
		var s string
		var err error
		switch {
		case x.ComparisonOperator != "":
			if x.Value != nil || x.Exists != nil {
				return "", invalidParam("One or more parameter values were invalid: ComparisonOperator cannot be used with Value or Exists")
			}
			s, err = l.compare(n, x.ComparisonOperator, x.AttributeValueList)
		case x.Exists != nil && !*x.Exists:
			if x.Value != nil {
				return "", invalidParam("Cannot expect an attribute to have a specified value while expecting it to not exist")
			}
			s = "attribute_not_exists(" + l.name(n) + ")"
		case x.Value != nil:
			s, err = l.compare(n, "EQ", []attr.Value{*x.Value})
		default:
			return "", invalidParam("Value must be provided when Exists is true for Attribute: %s", n)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return joinConds(parts, op)
}

// filter rewrites a QueryFilter, ScanFilter or KeyConditions map.
func (l *legacy) filter(conds map[string]Condition, op string) (string, error) {
	var parts []string
	for _, n := range sortedKeys(conds) {
		s, err := l.compare(n, conds[n].ComparisonOperator, conds[n].AttributeValueList)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return joinConds(parts, op)
}

// updates rewrites AttributeUpdates into an update expression.
func (l *legacy) updates(ups map[string]AttributeValueUpdate) (string, error) {
	var set, remove, add, del []string
	for _, n := range sortedKeys(ups) {
		u := ups[n]
		switch u.Action {
		case "", "PUT":
			if u.Value == nil {
				return "", invalidParam("Only DELETE action is allowed when no attribute value is specified")
			}
			set = append(set, l.name(n)+" = "+l.value(*u.Value))
		case "DELETE":
			if u.Value == nil {
				remove = append(remove, l.name(n))
			} else {
				del = append(del, l.name(n)+" "+l.value(*u.Value))
			}
		case "ADD":
			if u.Value == nil {
				return "", invalidParam("Only DELETE action is allowed when no attribute value is specified")
			}
			add = append(add, l.name(n)+" "+l.value(*u.Value))
		default:
			return "", validationf("1 validation error detected: Value '%s' at 'attributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]", u.Action, n)
		}
	}
	var b []string
	for _, sec := range []struct {
		kw    string
		parts []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(sec.parts) > 0 {
			b = append(b, sec.kw+" "+strings.Join(sec.parts, ", "))
		}
	}
	return strings.Join(b, " "), nil
}

// mixing words the refusal of legacy and expression parameters together.
func mixing(legacyNames, exprNames []string) error {
	return validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}", strings.Join(legacyNames, ", "), strings.Join(exprNames, ", "))
}

// present lists the names whose flag is set.
func present(pairs ...any) []string {
	var out []string
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1].(bool) {
			out = append(out, pairs[i].(string))
		}
	}
	return out
}

// legacyWrite rewrites the legacy parameters of a single-item write in
// place: Expected and ConditionalOperator into a condition, and (for
// UpdateItem) AttributeUpdates into an update expression.
func legacyWrite(exp map[string]ExpectedAttributeValue, condOp string, ups map[string]AttributeValueUpdate, update bool,
	cond, upd *string, names *map[string]string, values *map[string]attr.Value) error {
	leg := present("AttributeUpdates", ups != nil, "Expected", exp != nil, "ConditionalOperator", condOp != "")
	if len(leg) == 0 {
		return nil
	}
	ex := present("UpdateExpression", *upd != "", "ConditionExpression", *cond != "")
	if len(ex) > 0 {
		return mixing(leg, ex)
	}
	if err := placeholdersWithoutExpressions(*names, *values); err != nil {
		return err
	}
	var l legacy
	if exp != nil {
		c, err := l.expected(exp, condOp)
		if err != nil {
			return err
		}
		*cond = c
	}
	if update && len(ups) > 0 {
		u, err := l.updates(ups)
		if err != nil {
			return err
		}
		*upd = u
	}
	*names, *values = l.names, l.values
	return nil
}

// placeholdersWithoutExpressions refuses placeholder maps sent with legacy
// parameters only.
func placeholdersWithoutExpressions(names map[string]string, values map[string]attr.Value) error {
	switch {
	case names != nil:
		return validationf("ExpressionAttributeNames can only be specified when using expressions")
	case values != nil:
		return validationf("ExpressionAttributeValues can only be specified when using expressions")
	}
	return nil
}
