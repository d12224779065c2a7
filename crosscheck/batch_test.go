package crosscheck

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func putReq(i item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: i}}
}

func delReq(k item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
}

func TestBatches(t *testing.T) {
	cases := []xcase{
		{"batch write then batch get across tables", func(T namer) []step {
			w := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*T("a"): {putReq(it("pk", "1", "v", 1)), putReq(it("pk", "2", "v", 2)), putReq(it("pk", "3", "v", 3))},
				*T("b"): {putReq(it("pk", "x", "sk", 1, "w", "x1")), putReq(it("pk", "x", "sk", 2))},
			}}
			d := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*T("a"): {delReq(it("pk", "2")), delReq(it("pk", "nothing")), putReq(it("pk", "4", "v", 4))},
			}}
			g := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				*T("a"): {Keys: []item{it("pk", "1"), it("pk", "2"), it("pk", "3"), it("pk", "4"), it("pk", "5")}, ConsistentRead: aws.Bool(true)},
				*T("b"): {Keys: []item{it("pk", "x", "sk", 1), it("pk", "x", "sk", 2)}, ProjectionExpression: str("sk, #w"),
					ExpressionAttributeNames: names("#w", "w")},
			}}
			return steps(
				step{in: table(T("a"), pkS, none)},
				step{in: table(T("b"), pkS, skN)},
				step{in: w}, step{in: d}, step{in: g},
				scanAll(T("a")),
			)
		}},
		{"batch write limits and duplicates", func(T namer) []step {
			var many []types.WriteRequest
			for i := range 26 {
				many = append(many, putReq(it("pk", fmt.Sprint(i))))
			}
			bw := func(reqs ...types.WriteRequest) *dynamodb.BatchWriteItemInput {
				return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*T("t"): reqs}}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: bw(many...), err: "ValidationException"},
				step{in: bw(many[:25]...)},
				step{in: bw(putReq(it("pk", "a")), putReq(it("pk", "a", "v", 1))), err: "ValidationException", message: true},
				step{in: bw(putReq(it("pk", "a")), delReq(it("pk", "a"))), err: "ValidationException", message: true},
				step{in: bw(putReq(it("v", 1))), err: "ValidationException"},
				step{in: bw(delReq(it("pk", 1))), err: "ValidationException"},
				step{in: bw(types.WriteRequest{}), err: "ValidationException"},
				step{in: &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*T("missing"): {putReq(it("pk", "a"))}}},
					err: "ResourceNotFoundException", message: true},
				scanAll(T("t")),
			)
		}},
		{"batch get limits and duplicates", func(T namer) []step {
			var many []item
			for i := range 101 {
				many = append(many, it("pk", fmt.Sprint(i)))
			}
			bg := func(k ...item) *dynamodb.BatchGetItemInput {
				return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{*T("t"): {Keys: k}}}
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				puts(T("t"), it("pk", "1", "v", 1), it("pk", "99", "v", 99)),
				step{in: bg(many...), err: "ValidationException"},
				step{in: bg(many[:100]...)},
				step{in: bg(it("pk", "1"), it("pk", "1")), err: "ValidationException", message: true},
				step{in: bg(it("pk", 1)), err: "ValidationException"},
				step{in: &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{*T("missing"): {Keys: []item{it("pk", "1")}}}},
					err: "ResourceNotFoundException", message: true},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
