package crosscheck

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestNestedUpdates probes document paths inside lists and maps.
func TestNestedUpdates(t *testing.T) {
	upd := func(T namer, expr string, n map[string]string, v item, rv types.ReturnValue, err string) step {
		return step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str(expr),
			ExpressionAttributeNames: n, ExpressionAttributeValues: v, ReturnValues: rv}, err: err}
	}
	start := func(T namer) []step {
		return steps(
			step{in: table(T("t"), pkS, none)},
			put(T("t"), it("pk", "a",
				"l", []any{map[string]any{"k": 1, "in": []any{"x", "y"}}, "s", []any{1, 2}},
				"m", map[string]any{"a": map[string]any{"b": map[string]any{"c": 1}}, "list": []any{}},
			)),
		)
	}
	cases := []xcase{
		{"SET inside lists of maps and maps of lists", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET l[0].k = :v, l[0].#in[1] = :w, l[2][0] = :w, m.#list = list_append(m.#list, :one)",
					names("#in", "in", "#list", "list"), it(":v", 2, ":w", "w", ":one", []any{1}), types.ReturnValueUpdatedNew, ""),
				upd(T, "SET m.a.b.d = m.a.b.c + :one, m.a.e = :v", nil, it(":one", 1, ":v", map[string]any{}), types.ReturnValueUpdatedOld, ""),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"REMOVE inside lists shifts the rest", func(T namer) []step {
			return steps(start(T),
				upd(T, "REMOVE l[0].#in[0], l[2][1], l[1]", names("#in", "in"), nil, types.ReturnValueAllNew, ""),
				upd(T, "REMOVE l[0], l[0]", nil, nil, "", "ValidationException"),
			)
		}},
		{"invalid document paths", func(T namer) []step {
			return steps(start(T),
				upd(T, "SET l[1].k = :v", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "SET m.a.b.c.d = :v", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "SET m.nope.x = :v", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "REMOVE m.nope.x", nil, nil, "", "ValidationException"),
				upd(T, "SET m.a = :v, m.a = :w", nil, it(":v", 1, ":w", 2), "", "ValidationException"),
				upd(T, "SET m.a.b = :v REMOVE m.a", nil, it(":v", 1), "", "ValidationException"),
				upd(T, "SET l[0] = :v REMOVE l[0].k", nil, it(":v", 1), "", "ValidationException"),
				get(T("t"), it("pk", "a")),
			)
		}},
		{"conditions see the item before the update", func(T namer) []step {
			return steps(start(T),
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"),
					UpdateExpression:          str("SET m.a.b.c = m.a.b.c + :one"),
					ConditionExpression:       str("m.a.b.c = :one AND size(l) = :three"),
					ExpressionAttributeValues: it(":one", 1, ":three", 3), ReturnValues: types.ReturnValueAllNew}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"),
					UpdateExpression:          str("SET m.a.b.c = m.a.b.c + :one"),
					ConditionExpression:       str("m.a.b.c = :one"),
					ExpressionAttributeValues: it(":one", 1)}, err: "ConditionalCheckFailedException"},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}

// TestIndexKeyTypes checks index ordering on number and binary keys.
func TestIndexKeyTypes(t *testing.T) {
	cases := []xcase{
		{"GSI on a number hash key and a binary sort key", func(T namer) []step {
			in := table(T("t"), pkS, none, keyDef{"gn", "N"}, keyDef{"gb", "B"})
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{gsi("numBin", keyDef{"gn", "N"}, keyDef{"gb", "B"}, "KEYS_ONLY")}
			back := &dynamodb.QueryInput{TableName: T("t"), IndexName: str("numBin"), KeyConditionExpression: str("gn = :n AND gb > :b"),
				ExpressionAttributeValues: it(":n", num("1.0"), ":b", []byte{0x01}), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(2)}
			return steps(step{in: in},
				puts(T("t"),
					it("pk", "a", "gn", 1, "gb", []byte{0x80}),
					it("pk", "b", "gn", num("1.00"), "gb", []byte{0x01, 0x00}),
					it("pk", "c", "gn", 1, "gb", []byte{0xff, 0xff}),
					it("pk", "d", "gn", 2, "gb", []byte{0x00}),
					it("pk", "e", "gn", 1, "gb", []byte{0x00, 0x10}),
				),
				step{in: &dynamodb.QueryInput{TableName: T("t"), IndexName: str("numBin"), KeyConditionExpression: str("gn = :n"),
					ExpressionAttributeValues: it(":n", 1)}},
				step{in: back, paginate: true},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
