package crosscheck

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Transactions run only where the implementation takes them (moto, not
// dynalite): every action applies or none does, a failed condition
// cancels them all, and the request's shape is checked first.
func TestTransactions(t *testing.T) {
	tw := func(actions ...types.TransactWriteItem) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{TransactItems: actions}
	}
	putA := func(t *string, i item, cond string) types.TransactWriteItem {
		p := &types.Put{TableName: t, Item: i}
		if cond != "" {
			p.ConditionExpression = str(cond)
		}
		return types.TransactWriteItem{Put: p}
	}
	check := func(t *string, k item, cond string, vals item) types.TransactWriteItem {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: t, Key: k, ConditionExpression: str(cond), ExpressionAttributeValues: vals}}
	}
	cases := []xcase{
		{"transaction writes across tables", func(T namer) []step {
			w := tw(
				putA(T("a"), it("pk", "2", "v", 2), "attribute_not_exists(pk)"),
				types.TransactWriteItem{Update: &types.Update{TableName: T("a"), Key: it("pk", "1"), UpdateExpression: str("SET v = v + :one"),
					ConditionExpression: str("attribute_exists(pk)"), ExpressionAttributeValues: it(":one", 1)}},
				types.TransactWriteItem{Delete: &types.Delete{TableName: T("b"), Key: it("pk", "x", "sk", 1)}},
				check(T("b"), it("pk", "x", "sk", 2), "w = :w", it(":w", "kept")),
			)
			return steps(
				step{in: table(T("a"), pkS, none)},
				step{in: table(T("b"), pkS, skN)},
				put(T("a"), it("pk", "1", "v", 1)),
				put(T("b"), it("pk", "x", "sk", 1)),
				put(T("b"), it("pk", "x", "sk", 2, "w", "kept")),
				step{in: w},
				scanAll(T("a")), scanAll(T("b")),
			)
		}},
		{"a failed condition cancels every action", func(T namer) []step {
			return steps(
				step{in: table(T("a"), pkS, none)},
				put(T("a"), it("pk", "1", "v", 1)),
				step{in: tw(putA(T("a"), it("pk", "2"), ""), check(T("a"), it("pk", "1"), "v = :two", it(":two", 2))), err: "TransactionCanceledException"},
				step{in: tw(putA(T("a"), it("pk", "1", "v", 9), "attribute_not_exists(pk)"), putA(T("a"), it("pk", "3"), "")), err: "TransactionCanceledException"},
				scanAll(T("a")),
			)
		}},
		{"transaction validation", func(T namer) []step {
			var many []types.TransactWriteItem
			for i := range 101 {
				many = append(many, putA(T("a"), it("pk", fmt.Sprint(i)), ""))
			}
			return steps(
				step{in: table(T("a"), pkS, none)},
				step{in: tw(putA(T("a"), it("pk", "1"), ""), putA(T("a"), it("pk", "1", "v", 2), "")), err: "ValidationException"},
				step{in: tw(many...), err: "ValidationException"},
				step{in: tw(putA(T("missing"), it("pk", "1"), "")), err: "ResourceNotFoundException"},
				scanAll(T("a")),
			)
		}},
		{"transactional reads", func(T namer) []step {
			g := &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: T("a"), Key: it("pk", "1")}},
				{Get: &types.Get{TableName: T("a"), Key: it("pk", "missing")}},
				{Get: &types.Get{TableName: T("a"), Key: it("pk", "2"), ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: names("#v", "v")}},
			}}
			return steps(
				step{in: table(T("a"), pkS, none)},
				put(T("a"), it("pk", "1", "v", 1, "s", "one")),
				put(T("a"), it("pk", "2", "v", 2, "s", "two")),
				step{in: g},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
