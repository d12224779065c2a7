package crosscheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestExpressionSemantics probes evaluation rules where implementations
// tend to differ: missing attributes, mixed types, precedence, bounds.
func TestExpressionSemantics(t *testing.T) {
	// filterCase writes a few items and runs each filter over them.
	filterCase := func(name string, filters ...[2]any) xcase {
		return xcase{name, func(T namer) []step {
			s := steps(
				step{in: table(T("t"), pkS, skN)},
				puts(T("t"),
					it("pk", "p", "sk", 1, "a", 1, "b", "x", "l", []any{1, "two"}, "m", map[string]any{"k": 1}, "ss", ss("x", "y")),
					it("pk", "p", "sk", 2, "a", 2, "c", true, "n", nil),
					it("pk", "p", "sk", 3, "b", "y", "a", "1"),
					it("pk", "p", "sk", 4),
				),
			)
			for _, f := range filters {
				q := query(T("t"), "pk = :p", it(":p", "p"))
				q.FilterExpression = str(f[0].(string))
				for k, v := range f[1].(item) {
					q.ExpressionAttributeValues[k] = v
				}
				s = append(s, step{in: q})
			}
			return s
		}}
	}
	bad := func(name, filter string, vals item) xcase {
		return xcase{name, func(T namer) []step {
			q := query(T("t"), "pk = :p", it(":p", "p"))
			q.FilterExpression = str(filter)
			for k, v := range vals {
				q.ExpressionAttributeValues[k] = v
			}
			return steps(step{in: table(T("t"), pkS, skN)}, step{in: q, err: "ValidationException"})
		}}
	}
	cases := []xcase{
		filterCase("comparisons with missing attributes and other types",
			[2]any{"a <> :one", it(":one", 1)},
			[2]any{"a = :one", it(":one", 1)},
			[2]any{"NOT a = :one", it(":one", 1)},
			[2]any{"a < :three", it(":three", 3)},
			[2]any{"b >= :x", it(":x", "x")},
			[2]any{"a IN (:one, :s)", it(":one", 1, ":s", "1")},
			[2]any{"a BETWEEN :one AND :three", it(":one", 1, ":three", 3)},
			[2]any{"n = :null", it(":null", nil)},
			[2]any{"attribute_exists(n) AND attribute_not_exists(c)", item{}},
		),
		filterCase("functions over every type",
			[2]any{"size(a) = :one", it(":one", 1)},
			[2]any{"size(b) = :one", it(":one", 1)},
			[2]any{"size(l) > :one", it(":one", 1)},
			[2]any{"size(m) = :one AND size(ss) = :two", it(":one", 1, ":two", 2)},
			[2]any{"contains(l, :two)", it(":two", "two")},
			[2]any{"contains(ss, :x) OR contains(b, :y)", it(":x", "x", ":y", "y")},
			[2]any{"contains(a, :one)", it(":one", 1)},
			[2]any{"begins_with(a, :one)", it(":one", "1")},
			[2]any{"attribute_type(a, :s) OR attribute_type(n, :null)", it(":s", "S", ":null", "NULL")},
			[2]any{"m.k = :one AND l[0] = :one", it(":one", 1)},
		),
		filterCase("precedence of NOT, AND and OR",
			[2]any{"a = :one OR a = :two AND attribute_exists(c)", it(":one", 1, ":two", 2)},
			[2]any{"(a = :one OR a = :two) AND attribute_exists(c)", it(":one", 1, ":two", 2)},
			[2]any{"NOT attribute_exists(a) OR NOT attribute_exists(b) AND a > :one", it(":one", 1)},
			[2]any{"NOT (attribute_exists(a) OR attribute_exists(b))", item{}},
			[2]any{"(a = :one)", it(":one", 1)},
		),
		bad("redundant parentheses", "((a = :one))", it(":one", 1)),
		bad("BETWEEN with bounds reversed", "a BETWEEN :hi AND :lo", it(":hi", 3, ":lo", 1)),
		bad("BETWEEN with bounds of two types", "a BETWEEN :lo AND :hi", it(":lo", 1, ":hi", "3")),
		bad("size of a literal", "size(:v) = :v", it(":v", 1)),
		bad("function used as a condition", "size(a)", nil),
		bad("attribute_type with an unknown type", "attribute_type(a, :t)", it(":t", "XX")),
		bad("comparison of a path to itself", "a = a", nil),
		bad("reserved word as a path", "size = :v", it(":v", 1)),
		{"key condition bounds and starting keys", func(T namer) []step {
			rev := query(T("t"), "pk = :p AND sk BETWEEN :hi AND :lo", it(":p", "p", ":hi", 3, ":lo", 1))
			other := query(T("t"), "pk = :p", it(":p", "p"))
			other.ExclusiveStartKey = it("pk", "q", "sk", 1)
			partial := query(T("t"), "pk = :p", it(":p", "p"))
			partial.ExclusiveStartKey = it("pk", "p")
			between := query(T("t"), "pk = :p", it(":p", "p"))
			between.ExclusiveStartKey = it("pk", "p", "sk", num("1.5"))
			return steps(
				step{in: table(T("t"), pkS, skN)},
				partition(T("t"), "p", 4, true),
				step{in: rev, err: "ValidationException"},
				step{in: other, err: "ValidationException"},
				step{in: partial, err: "ValidationException"},
				step{in: between},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}

// TestLimitsAndNumbers probes key sizes, number range and arithmetic.
func TestLimitsAndNumbers(t *testing.T) {
	cases := []xcase{
		{"key size limits", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skS)},
				put(T("t"), it("pk", strings.Repeat("h", 2048), "sk", strings.Repeat("r", 1024))),
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", strings.Repeat("h", 2049), "sk", "r")}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "h", "sk", strings.Repeat("r", 1025))}, err: "ValidationException"},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", strings.Repeat("h", 2048), "sk", strings.Repeat("r", 1024)),
					ProjectionExpression: str("#s"), ExpressionAttributeNames: names("#s", "sk")}},
			)
		}},
		{"number arithmetic at the edges of precision", func(T namer) []step {
			upd := func(expr string, v item, err string) step {
				return step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str(expr),
					ExpressionAttributeValues: v, ReturnValues: types.ReturnValueUpdatedNew}, err: err}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), it("pk", "a", "n", num("99999999999999999999999999999999999999"), "f", num("0.1"))),
				upd("SET f = f + :x", it(":x", num("0.2")), ""),
				upd("ADD n :one", it(":one", 1), ""),
				upd("SET n = n - :one", it(":one", 1), ""),
				upd("SET z = :a - :a", it(":a", num("12.5")), ""),
				upd("SET t = :a + :b", it(":a", num("1E-130"), ":b", num("-1E-130")), ""),
			)
		}},
		{"number sets normalise their members", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), it("pk", "a", "ns", ns("1.50", "002", "-0.0", "1e2"))),
				get(T("t"), it("pk", "a")),
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str("ADD ns :n"),
					ExpressionAttributeValues: it(":n", ns("2.0", "3")), ReturnValues: types.ReturnValueAllNew}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str("DELETE ns :n"),
					ExpressionAttributeValues: it(":n", ns("100", "1.5")), ReturnValues: types.ReturnValueAllNew}},
			)
		}},
		{"return values that an operation does not allow", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a"), ReturnValues: types.ReturnValueUpdatedOld}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a"), ReturnValues: "BOGUS"}, err: "ValidationException"},
			)
		}},
		{"projections of reserved words and repeated names", func(T namer) []step {
			g := func(p string, n map[string]string, err string) step {
				return step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str(p),
					ExpressionAttributeNames: n}, err: err}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), it("pk", "a", "name", "n", "size", 3, "data", map[string]any{"x": []any{1, map[string]any{"y": 2}}})),
				g("name", nil, "ValidationException"),
				g("#n, #s", names("#n", "name", "#s", "size"), ""),
				g("#d.x[1].y, #d.x[0]", names("#d", "data"), ""),
				g("#d.x[1].y, #d.x[1]", names("#d", "data"), "ValidationException"),
				g("#d.x[1].y, #d.x[1].y", names("#d", "data"), "ValidationException"),
				g("#d[0]", names("#d", "data"), ""),
				g("#d.x.y", names("#d", "data"), ""),
				g("pk,", nil, "ValidationException"),
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}

// TestIndexProjections probes what index reads may ask for.
func TestIndexProjections(t *testing.T) {
	cases := []xcase{
		{"reading attributes an index does not project", func(T namer) []step {
			gsiProj := idxQuery(T("t"), "keys", "g = :g", it(":g", "g0"))
			gsiProj.ProjectionExpression = str("y")
			lsiAll := idxQuery(T("t"), "byLKeys", "pk = :p", it(":p", "p2"))
			lsiAll.Select = types.SelectAllAttributes
			inclAll := idxQuery(T("t"), "incl", "g = :g", it(":g", "g0"))
			inclAll.Select = types.SelectAllProjectedAttributes
			count := idxQuery(T("t"), "keys", "g = :g", it(":g", "g0"))
			count.Select = types.SelectCount
			return steps(indexed(T), indexedItems(T),
				step{in: gsiProj, unordered: true},
				step{in: lsiAll},
				step{in: inclAll},
				step{in: count},
			)
		}},
		{"index keys of the wrong type are refused, sparse items skipped", func(T namer) []step {
			var s []step
			for i := range 6 {
				x := it("pk", fmt.Sprintf("p%d", i), "sk", "s")
				if i%2 == 0 {
					x["g"] = av("g")
					x["gs"] = av(i)
				}
				s = append(s, put(T("t"), x))
			}
			return steps(indexed(T), s,
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "z", "sk", "s", "g", "g", "gs", "not a number")}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "z", "sk", "s", "l", []byte("b"))}, err: "ValidationException"},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "p0", "sk", "s"), UpdateExpression: str("SET gs = :s"),
					ExpressionAttributeValues: it(":s", "x")}, err: "ValidationException"},
				step{in: idxQuery(T("t"), "all", "g = :g", it(":g", "g"))},
				step{in: &dynamodb.ScanInput{TableName: T("t"), IndexName: str("keys"), Select: types.SelectCount}},
				step{in: &dynamodb.QueryInput{TableName: T("t"), IndexName: str("all"), KeyConditionExpression: str("g = :g AND gs > :n"),
					ExpressionAttributeValues: it(":g", "g", ":n", 1), Limit: aws.Int32(1)}, paginate: true},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
