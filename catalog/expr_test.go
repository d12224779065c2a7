package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exprModel is a model whose one update step takes its expressions from
// the arguments, to test how the catalog checks expressions.
func exprModel(update, condition, names, values string) string {
	return strings.NewReplacer("UPDATE", update, "CONDITION", condition, "NAMES", names, "VALUES", values).Replace(`formatVersion: 1
name: shop
prefixes: {C: customer, O: order}
tables:
  orders:
    partitionKey: PK
    sortKey: SK
    discriminator: type
attributes:
  PK: {type: S, description: partition key}
  SK: {type: S, description: sort key}
  type: {type: S, description: item type}
  customerId: {type: S, description: customer}
  orderId: {type: S, description: order}
  status: {type: S, description: order status, enum: [OPEN, SHIPPED]}
  shipDate: {type: S, description: ship date, unit: civilDate}
  version: {type: N, description: lock}
  details: {type: M, description: free-form details}
  tags: {type: SS, description: labels}
  note: {type: S, description: carried by no entity}
entities:
  ORDER:
    key:
      PK: "C#{customerId}"
      SK: "O#{orderId}"
    attributes:
      customerId: required
      orderId: required
      status: required
      shipDate: optional
      version: required
      details: optional
      tags: optional
    samples:
      open: {customerId: c1, orderId: o1, status: OPEN, version: 1}
      shipped: {customerId: c1, orderId: o1, status: SHIPPED, shipDate: "2026-01-02", version: 2}
accessPatterns:
  AP01:
    question: One order
    askedBy: [shop]
    consistency: eventual
    answer:
      table: orders
      key:
        PK: {eq: "C#{customerId}"}
        SK: {eq: "O#{orderId}"}
operations:
  Ship:
    params:
      customerId: {}
      orderId: {}
      day: {attribute: shipDate}
      expected: {attribute: version}
      label: {type: S}
      labels: {attribute: tags}
    steps:
      - id: ship
        update:
          entity: ORDER
          update: "UPDATE"
          condition: "CONDITION"
          names: NAMES
          values: VALUES
          onConditionFailed: {meaning: changed meanwhile, outcome: retry}
          before: open
          after: shipped
    budgets:
      first: {wru: 1}
`)
}

// exprErrors loads exprModel and returns its errors, one per line
// without the file name.
func exprErrors(t *testing.T, update, condition, names, values string) []string {
	t.Helper()
	_, err := Parse("m.yaml", []byte(exprModel(update, condition, names, values)))
	if err == nil {
		return nil
	}
	var el ErrorList
	require.True(t, errors.As(err, &el), "%v", err)
	var out []string
	for _, e := range el {
		s := e.Path + ": " + e.Msg
		if e.Hint != "" {
			s += " (hint: " + e.Hint + ")"
		}
		out = append(out, s)
	}
	return out
}

const stepPath = "operations.Ship.steps[0].update."

func TestExpressionsValid(t *testing.T) {
	for _, c := range []struct{ update, condition, names, values string }{
		{"SET #s = :s, shipDate = :d, version = version + :one", "version = :expected", `{"#s": status}`, `{":s": SHIPPED, ":d": "{day}", ":one": 1, ":expected": "{expected}"}`},
		// Parameters stand for any value of their type: no bound order,
		// no type name is judged on a sample.
		{"SET version = :one", "version BETWEEN :expected AND :max", "{}", `{":one": 1, ":expected": "{expected}", ":max": 5}`},
		{"SET version = :one", "version BETWEEN :min AND :expected", "{}", `{":one": 1, ":expected": "{expected}", ":min": 5}`},
		{"SET version = :one", "attribute_type(shipDate, :t)", "{}", `{":one": 1, ":t": "{label}"}`},
		{"SET version = :one", "begins_with(shipDate, :p)", "{}", `{":one": 1, ":p": "2026-{label}"}`},
		// A name used inside a map names a member, not an attribute.
		{"SET details.#carrier = :c", "attribute_exists(details)", `{"#carrier": carrier}`, `{":c": "{label}"}`},
		{"ADD tags :t", "version = :expected", "{}", `{":t": "{labels}", ":expected": "{expected}"}`},
	} {
		assert.Empty(t, exprErrors(t, c.update, c.condition, c.names, c.values), "%+v", c)
	}
}

func TestExpressionsInvalid(t *testing.T) {
	for _, c := range []struct {
		update, condition, names, values string
		want                             []string
	}{
		{"SET version = version +", "version = :expected", "{}", `{":expected": "{expected}"}`,
			[]string{stepPath + `update: Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "+"`}},
		{"SET percent = :one", "version = :expected", "{}", `{":one": 1, ":expected": "{expected}"}`,
			[]string{stepPath + `update: Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: percent (hint: write #percent and add names: {"#percent": percent})`}},
		{"SET #st = :s", "version = :expected", `{"#s": status}`, `{":s": SHIPPED, ":expected": "{expected}"}`,
			[]string{stepPath + `update: Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #st (hint: did you mean "#s"?)`}},
		{"SET version = :one", "version = :expected", "{}", `{":one": 1, ":expected": "{expected}", ":spare": 2}`,
			[]string{stepPath + "values.:spare: :spare is defined but not used (DynamoDB rejects unused values)"}},
		{"SET version = :one", "version = :expected", `{"#s": status}`, `{":one": 1, ":expected": "{expected}"}`,
			[]string{stepPath + "names.#s: #s is defined but not used (DynamoDB rejects unused names)"}},
		// Literals are judged on their values; parameters on their types.
		{"SET version = :one", "version BETWEEN :hi AND :lo", "{}", `{":one": 1, ":hi": 10, ":lo": 1}`,
			[]string{stepPath + "condition: Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}"}},
		{"SET version = version + :d", "version = :expected", "{}", `{":d": "{day}", ":expected": "{expected}"}`,
			[]string{stepPath + "update: Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"}},
		{"SET version = :one", "attribute_type(version, :t)", "{}", `{":one": 1, ":t": "X"}`,
			[]string{stepPath + "condition: Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"}},
		{"ADD tags :t", "version = :expected", "{}", `{":t": "{label}", ":expected": "{expected}"}`,
			[]string{stepPath + "update: Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"}},
		// What only the model knows: declared attributes the entity carries.
		{"SET version = versio + :one", "version = :expected", "{}", `{":one": 1, ":expected": "{expected}"}`,
			[]string{stepPath + `update: unknown attribute "versio" in update expression (hint: did you mean "version"?)`}},
		{"SET note = :s", "version = :expected", "{}", `{":s": x, ":expected": "{expected}"}`,
			[]string{stepPath + "update: entity ORDER does not carry note"}},
		{"SET #n = :s", "version = :expected", `{"#n": note}`, `{":s": x, ":expected": "{expected}"}`,
			[]string{stepPath + "names.#n: entity ORDER does not carry note"}},
		{"SET #n = :s", "version = :expected", `{"#n": nope}`, `{":s": x, ":expected": "{expected}"}`,
			[]string{stepPath + `names.#n: unknown attribute "nope" (hint: did you mean "note"?)`}},
	} {
		assert.Equal(t, c.want, exprErrors(t, c.update, c.condition, c.names, c.values), "%+v", c)
	}
}
