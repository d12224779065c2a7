package crosscheck

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestStartKeysAndNames probes resuming reads from arbitrary keys, names
// that look like paths, and the order of non-ASCII sort keys.
func TestStartKeysAndNames(t *testing.T) {
	cases := []xcase{
		{"query resumes after a key that is gone", func(T namer) []step {
			from := func(sk int, fwd bool) step {
				q := query(T("t"), "pk = :p", it(":p", "a"))
				q.ExclusiveStartKey = it("pk", "a", "sk", sk)
				q.ScanIndexForward = aws.Bool(fwd)
				q.Limit = aws.Int32(2)
				return step{in: q, paginate: true}
			}
			return steps(
				step{in: table(T("t"), pkS, skN)},
				partition(T("t"), "a", 6, true),
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "a", "sk", 2)}},
				from(2, true), from(2, false), from(-5, true), from(99, false),
			)
		}},
		{"index start keys need the table keys", func(T namer) []step {
			q := func(start item, err string) step {
				in := idxQuery(T("t"), "all", "g = :g", it(":g", "g0"))
				in.ExclusiveStartKey = start
				return step{in: in, err: err}
			}
			return steps(indexed(T), indexedItems(T),
				q(it("g", "g0", "gs", 96, "pk", "p1", "sk", "s04"), ""),
				q(it("g", "g0", "gs", 96), "ValidationException"),
				q(it("pk", "p1", "sk", "s04"), "ValidationException"),
			)
		}},
		{"names with dots and brackets are names, not paths", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				put(T("t"), it("pk", "a", "a.b", "flat", "a", map[string]any{"b": "nested"}, "l[0]", "odd")),
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a"), ProjectionExpression: str("#ab, a.b, #l"),
					ExpressionAttributeNames: names("#ab", "a.b", "#l", "l[0]")}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "a"), UpdateExpression: str("SET #ab = :v REMOVE #l"),
					ConditionExpression: str("#ab = :flat AND a.b = :nested"), ExpressionAttributeNames: names("#ab", "a.b", "#l", "l[0]"),
					ExpressionAttributeValues: it(":v", "changed", ":flat", "flat", ":nested", "nested")}},
				get(T("t"), it("pk", "a")),
			)
		}},
		{"non-ASCII sort keys order by their UTF-8 bytes", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skS)},
				puts(T("t"), it("pk", "a", "sk", "z"), it("pk", "a", "sk", "é"), it("pk", "a", "sk", "Z"), it("pk", "a", "sk", "日本"),
					it("pk", "a", "sk", "e"), it("pk", "a", "sk", "ü"), it("pk", "a", "sk", "ß")),
				step{in: query(T("t"), "pk = :p", it(":p", "a"))},
				step{in: query(T("t"), "pk = :p AND sk > :s", it(":p", "a", ":s", "z"))},
				step{in: query(T("t"), "pk = :p AND begins_with(sk, :s)", it(":p", "a", ":s", "日"))},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
