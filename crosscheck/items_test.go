package crosscheck

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// every holds one attribute of each type, with nesting.
func every(pk string) item {
	return it("pk", pk,
		"s", "text", "n", num("-12.500"), "big", num("12345678901234567890123456789012345678"),
		"tiny", num("1E-130"), "b", []byte{0, 1, 2, 255}, "t", true, "f", false, "z", nil,
		"ss", ss("b", "a", "c"), "ns", ns("3", "-1", "2.50"), "bs", bs([]byte("y"), []byte("x")),
		"l", []any{"x", 1, []any{true}, map[string]any{"k": "v"}},
		"m", map[string]any{"a": map[string]any{"b": []any{1, 2, 3}}, "e": ""},
	)
}

func TestItems(t *testing.T) {
	cases := []xcase{
		{"put and get every type", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), every("a")),
				get(T("t"), it("pk", "a")),
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a")}},
				get(T("t"), it("pk", "missing")),
			)
		}},
		{"put replaces and returns the old item", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skN)},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "sk", 1, "v", "one"), ReturnValues: types.ReturnValueAllOld}},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "sk", 1, "w", "two"), ReturnValues: types.ReturnValueAllOld}},
				get(T("t"), it("pk", "a", "sk", 1)),
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "sk", 1), ReturnValues: types.ReturnValueAllNew}, err: "ValidationException"},
			)
		}},
		{"put with attribute_not_exists condition", func(T namer) []step {
			cond := &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "v", 2), ConditionExpression: str("attribute_not_exists(pk)")}
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: cond},
				step{in: cond, err: "ConditionalCheckFailedException", message: true},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "v", 3), ConditionExpression: str("attribute_exists(pk) AND v = :two"),
					ExpressionAttributeValues: it(":two", 2)}},
				get(T("t"), it("pk", "a")),
			)
		}},
		{"condition functions and comparisons", func(T namer) []step {
			base := it("pk", "a", "n", 5, "s", "hello world", "l", []any{1, 2}, "ss", ss("x", "y"), "m", map[string]any{"k": "v"}, "b", []byte("abc"))
			try := func(cond string, vals item, err string) step {
				in := &dynamodb.PutItemInput{TableName: T("t"), Item: base, ConditionExpression: str(cond)}
				if len(vals) > 0 {
					in.ExpressionAttributeValues = vals
				}
				return step{in: in, err: err}
			}
			const ccf = "ConditionalCheckFailedException"
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), base),
				try("n > :a AND n <= :b", it(":a", 4, ":b", 5), ""),
				try("n < :a", it(":a", 5), ccf),
				try("n BETWEEN :a AND :b", it(":a", 1, ":b", 9), ""),
				try("n IN (:a, :b, :c)", it(":a", 1, ":b", 5, ":c", 7), ""),
				try("n <> :a", it(":a", 5), ccf),
				try("begins_with(s, :p)", it(":p", "hello"), ""),
				try("begins_with(s, :p)", it(":p", "world"), ccf),
				try("contains(s, :p) AND contains(ss, :x) AND contains(l, :one)", it(":p", "o w", ":x", "y", ":one", 1), ""),
				try("size(s) = :n AND size(l) = :two AND size(ss) = :two AND size(m) = :one AND size(b) = :three", it(":n", 11, ":two", 2, ":one", 1, ":three", 3), ""),
				try("attribute_type(n, :N) AND attribute_type(m, :M)", it(":N", "N", ":M", "M"), ""),
				try("attribute_type(n, :S)", it(":S", "S"), ccf),
				try("NOT (n = :a) OR (s = :s AND m.k = :v)", it(":a", 5, ":s", "hello world", ":v", "v"), ""),
				try("l[1] = :two AND attribute_not_exists(l[5])", it(":two", 2), ""),
				try("n > :s", it(":s", "a string"), ccf),
				try("nope = :a", it(":a", 1), ccf),
				try("s < :a", it(":a", "hello"), ccf),
				try("b > :a", it(":a", []byte("abb")), ""),
			)
		}},
		{"delete with condition and old values", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skS)},
				put(T("t"), it("pk", "a", "sk", "1", "v", 1)),
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "1"), ConditionExpression: str("v = :v"),
					ExpressionAttributeValues: it(":v", 2)}, err: "ConditionalCheckFailedException", message: true},
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "1"), ConditionExpression: str("v = :v"),
					ExpressionAttributeValues: it(":v", 1), ReturnValues: types.ReturnValueAllOld}},
				get(T("t"), it("pk", "a", "sk", "1")),
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "1"), ReturnValues: types.ReturnValueAllOld}},
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "1"), ConditionExpression: str("attribute_exists(pk)")},
					err: "ConditionalCheckFailedException"},
			)
		}},
		{"get with projection expressions", func(T namer) []step {
			proj := func(p string, n map[string]string) step {
				in := &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str(p), ConsistentRead: aws.Bool(true)}
				if n != nil {
					in.ExpressionAttributeNames = n
				}
				return step{in: in}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), every("a")),
				proj("s, n, nope", nil),
				proj("m.a.b[1], l[3].k, l[0], l[9]", nil),
				proj("#s, #m.#a", names("#s", "ss", "#m", "m", "#a", "a")),
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str("m.a, m.a.b")}, err: "ValidationException"},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str("s, s")}, err: "ValidationException"},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str("#x")}, err: "ValidationException"},
			)
		}},
		{"key validation on item operations", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skN)},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a")}, err: "ValidationException", message: true},
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a")}, err: "ValidationException", message: true},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "1")}, err: "ValidationException"},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a", "sk", 1, "x", 1)}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a")}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", 1, "sk", 1)}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "", "sk", 1)}, err: "ValidationException"},
			)
		}},
		{"attribute value validation", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "ss", ss())}, err: "ValidationException", message: true},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "ns", ns())}, err: "ValidationException", message: true},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "ss", ss("x", "x"))}, err: "ValidationException", message: true},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "ns", ns("1", "1.0"))}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "z", &types.AttributeValueMemberNULL{Value: false})}, err: "ValidationException", message: true},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "n", num("123456789012345678901234567890123456789"))}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "n", num("1E+126"))}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "n", num("1E-131"))}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "n", num("abc"))}, err: "ValidationException"},
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "e", "", "m", map[string]any{"e": ""}, "eb", []byte{})}},
				get(T("t"), it("pk", "a")),
			)
		}},
		{"numbers are normalised", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkN, none)},
				put(T("t"), it("pk", num("0010.500"), "a", num("-0.0"), "b", num("1e3"), "c", num("0.000001200"))),
				get(T("t"), it("pk", num("10.5"))),
			)
		}},
		{"item size limit", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), it("pk", "a", "v", strings.Repeat("x", 400*1024-10))),
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "b", "v", strings.Repeat("x", 400*1024))}, err: "ValidationException"},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str("pk")}},
			)
		}},
		{"expression attribute validation", func(T namer) []step {
			in := func(cond string, n map[string]string, v item, err string) step {
				return step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a"), ConditionExpression: str(cond),
					ExpressionAttributeNames: n, ExpressionAttributeValues: v}, err: err}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				in("attribute_not_exists(pk)", nil, it(":unused", 1), "ValidationException"),
				in("attribute_not_exists(#p)", names("#p", "pk", "#q", "x"), nil, "ValidationException"),
				in("v = :missing", nil, nil, "ValidationException"),
				in("#missing = :v", nil, it(":v", 1), "ValidationException"),
				in("status = :v", nil, it(":v", 1), "ValidationException"),
				in("v = ", nil, nil, "ValidationException"),
				in("size(v)", nil, nil, "ValidationException"),
				in("nofunc(v)", nil, nil, "ValidationException"),
				in("attribute_not_exists(pk)", names("#p", "pk"), nil, "ValidationException"),
				in("attribute_not_exists(#p)", names("#p", "pk"), nil, ""),
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
