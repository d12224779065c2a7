package crosscheck

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestUpdates(t *testing.T) {
	// upd builds an UpdateItem on key pk=a of table t.
	upd := func(T namer, expr string, n map[string]string, v item, rv types.ReturnValue, err string) step {
		return step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str(expr),
			ExpressionAttributeNames: n, ExpressionAttributeValues: v, ReturnValues: rv}, err: err}
	}
	start := func(T namer) []step {
		return steps(
			step{in: table(T("t"), pkS, none)},
			put(T("t"), it("pk", "a", "n", 10, "s", "x", "l", []any{1, 2}, "ss", ss("a", "b"), "ns", ns("1", "2"),
				"m", map[string]any{"a": map[string]any{"b": 1}, "l": []any{"p", "q", "r"}})),
		)
	}
	cases := []xcase{
		{"SET with arithmetic", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET n = n + :one, d = :five - n, c = n - :half", nil, it(":one", 1, ":five", 5, ":half", num("0.5")), types.ReturnValueUpdatedNew, ""),
				upd(T, "SET n = n + :one", nil, it(":one", num("1E-20")), types.ReturnValueUpdatedOld, ""),
				upd(T, "SET n = n + :s", nil, it(":s", "x"), "", "ValidationException"),
				upd(T, "SET q = nope + :one", nil, it(":one", 1), "", "ValidationException"),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"SET with list_append and if_not_exists", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET l = list_append(l, :tail), h = list_append(:head, l)", nil, it(":tail", []any{3}, ":head", []any{0}), types.ReturnValueAllNew, ""),
				upd(T, "SET c = if_not_exists(c, :zero) + :one, n = if_not_exists(n, :zero)", nil, it(":zero", 0, ":one", 1), types.ReturnValueUpdatedNew, ""),
				upd(T, "SET c = if_not_exists(c, :zero) + :one", nil, it(":zero", 0, ":one", 1), types.ReturnValueUpdatedNew, ""),
				upd(T, "SET l = list_append(l, :s)", nil, it(":s", "x"), "", "ValidationException"),
			)
		}},
		{"SET on nested paths", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET m.a.c = :v, m.l[1] = :w, m.l[10] = :z, #k.#a.b = :b", names("#k", "m", "#a", "a"), it(":v", "v", ":w", "w", ":z", "z", ":b", 2), types.ReturnValueUpdatedNew, ""),
				upd(T, "SET m.nope.c = :v", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "SET s[0] = :v", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "SET m.a = :v, m.a.b = :v", nil, it(":v", 1), "", "ValidationException"),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"REMOVE attributes and list elements", func(T namer) []step {
			return steps(start(T),
				upd(T, "REMOVE s, l[0], m.a.b, m.l[1], m.l[7], nope", nil, nil, types.ReturnValueUpdatedOld, ""),
				upd(T, "REMOVE pk", nil, nil, "", "ValidationException"),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"ADD and DELETE on sets and numbers", func(T namer) []step {
			return steps(start(T),
				upd(T, "ADD ss :s, ns :n, n :one, fresh :one, freshset :s", nil, it(":s", ss("c", "a"), ":n", ns("3"), ":one", 1), types.ReturnValueAllNew, ""),
				upd(T, "DELETE ss :s, ns :n, absent :s", nil, it(":s", ss("a", "zz"), ":n", ns("1", "2", "3")), types.ReturnValueAllNew, ""),
				upd(T, "ADD l :one", nil, it(":one", 1), "", "ValidationException"),
				upd(T, "ADD ss :n", nil, it(":n", ns("1")), "", "ValidationException"),
				upd(T, "DELETE n :one", nil, it(":one", 1), "", "ValidationException"),
				upd(T, "ADD s :one", nil, it(":one", 1), "", "ValidationException"),
			)
		}},
		{"mixed clauses and ReturnValues", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET s = :y REMOVE l ADD n :one DELETE ss :a", nil, it(":y", "y", ":one", 1, ":a", ss("a")), types.ReturnValueUpdatedOld, ""),
				upd(T, "SET s = :z", nil, it(":z", "z"), types.ReturnValueAllOld, ""),
				upd(T, "SET s = :z", nil, it(":z", "z2"), types.ReturnValueNone, ""),
				upd(T, "SET s = :a SET n = :a", nil, it(":a", 1), "", "ValidationException"),
				upd(T, "SET s = :a REMOVE s", nil, it(":a", 1), "", "ValidationException"),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"update creates missing items", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skN)},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "new", "sk", 1), UpdateExpression: str("SET v = :v ADD c :one"),
					ExpressionAttributeValues: it(":v", "v", ":one", 1), ReturnValues: types.ReturnValueAllNew}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "new2", "sk", 1), UpdateExpression: str("SET v = :v"),
					ExpressionAttributeValues: it(":v", "v"), ReturnValues: types.ReturnValueAllOld}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "new3", "sk", 1)}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "new4", "sk", 1), UpdateExpression: str("REMOVE v"), ReturnValues: types.ReturnValueAllNew}},
				scanAll(T("t")),
			)
		}},
		{"update with conditions", func(T namer) []step {
			cond := func(c string, v item, err string) step {
				return step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str("SET n = n + :one"),
					ConditionExpression: str(c), ExpressionAttributeValues: v, ReturnValues: types.ReturnValueUpdatedNew}, err: err, message: err != ""}
			}
			return steps(start(T),
				cond("n = :ten", it(":one", 1, ":ten", 10), ""),
				cond("n = :ten", it(":one", 1, ":ten", 10), "ConditionalCheckFailedException"),
				cond("attribute_exists(m.a.b) AND size(l) = :two", it(":one", 1, ":two", 2), ""),
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "zz"), UpdateExpression: str("SET n = :one"),
					ConditionExpression: str("attribute_exists(pk)"), ExpressionAttributeValues: it(":one", 1)}, err: "ConditionalCheckFailedException"},
				get(T("t"), it("pk", "zz")),
			)
		}},
		{"updating key attributes is refused", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skS)},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "b"), UpdateExpression: str("SET pk = :v"),
					ExpressionAttributeValues: it(":v", "x")}, err: "ValidationException", message: true},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "b"), UpdateExpression: str("SET sk = :v"),
					ExpressionAttributeValues: it(":v", "x")}, err: "ValidationException", message: true},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "b"), UpdateExpression: str("SET v = :v"),
					ExpressionAttributeValues: it(":v", "x", ":w", "y")}, err: "ValidationException", message: true},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "b"), UpdateExpression: str("SET v = :v")},
					err: "ValidationException", message: true},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a", "sk", "b"), UpdateExpression: str("")},
					err: "ValidationException", message: true},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
