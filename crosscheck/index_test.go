package crosscheck

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// indexed creates table t (pk, sk) with GSIs on (g, gs) projecting ALL,
// on g with KEYS_ONLY, on g with INCLUDE x, and an LSI on l.
func indexed(T namer) step {
	in := table(T("t"), pkS, skS, keyDef{"g", "S"}, keyDef{"gs", "N"}, keyDef{"l", "N"})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{
		gsi("all", keyDef{"g", "S"}, keyDef{"gs", "N"}, "ALL"),
		gsi("keys", keyDef{"g", "S"}, none, "KEYS_ONLY"),
		gsi("incl", keyDef{"g", "S"}, keyDef{"gs", "N"}, "INCLUDE", "x"),
	}
	in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{
		lsi("byL", pkS, keyDef{"l", "N"}, "ALL"),
		lsi("byLKeys", pkS, keyDef{"l", "N"}, "KEYS_ONLY"),
	}
	return step{in: in}
}

// indexedItems writes items of which only some carry the index keys.
func indexedItems(T namer) []step {
	var s []step
	for i := range 12 {
		x := it("pk", fmt.Sprintf("p%d", i%3), "sk", fmt.Sprintf("s%02d", i), "x", i, "y", "why")
		if i%4 != 3 { // sparse: every fourth item is missing from the GSIs
			x["g"] = av(fmt.Sprintf("g%d", i%2))
			x["gs"] = av(100 - i)
		}
		if i%3 != 1 {
			x["l"] = av(i * 7 % 5)
		}
		s = append(s, put(T("t"), x))
	}
	return s
}

func idxQuery(t *string, index, kc string, v item) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{TableName: t, IndexName: str(index), KeyConditionExpression: str(kc), ExpressionAttributeValues: v}
}

func TestIndexes(t *testing.T) {
	cases := []xcase{
		{"GSI queries with each projection", func(T namer) []step {
			back := idxQuery(T("t"), "all", "g = :g AND gs > :n", it(":g", "g0", ":n", 92))
			back.ScanIndexForward = aws.Bool(false)
			return steps(indexed(T), indexedItems(T),
				step{in: idxQuery(T("t"), "all", "g = :g", it(":g", "g0"))},
				step{in: idxQuery(T("t"), "all", "g = :g AND gs BETWEEN :a AND :b", it(":g", "g1", ":a", 90, ":b", 97))},
				step{in: back},
				step{in: idxQuery(T("t"), "incl", "g = :g", it(":g", "g1"))},
				step{in: idxQuery(T("t"), "all", "g = :g", it(":g", "nope"))},
			)
		}},
		{"GSI without sort key is unordered within a key", func(T namer) []step {
			return steps(indexed(T), indexedItems(T),
				step{in: idxQuery(T("t"), "keys", "g = :g", it(":g", "g0")), unordered: true},
			)
		}},
		{"GSI pagination carries index and table keys", func(T namer) []step {
			q := idxQuery(T("t"), "all", "g = :g", it(":g", "g0"))
			q.Limit = aws.Int32(2)
			f := idxQuery(T("t"), "incl", "g = :g", it(":g", "g1", ":x", 5))
			f.FilterExpression = str("x > :x")
			f.Limit = aws.Int32(2)
			return steps(indexed(T), indexedItems(T),
				step{in: q, paginate: true},
				step{in: f, paginate: true},
			)
		}},
		{"GSI follows updates and deletes", func(T namer) []step {
			q := func(g string) step { return step{in: idxQuery(T("t"), "all", "g = :g", it(":g", g))} }
			return steps(indexed(T), indexedItems(T),
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "p0", "sk", "s00"), UpdateExpression: str("SET g = :g"),
					ExpressionAttributeValues: it(":g", "g1")}},
				step{in: &dynamodb.UpdateItemInput{TableName: T("t"), Key: it("pk", "p1", "sk", "s04"), UpdateExpression: str("REMOVE gs")}},
				step{in: &dynamodb.DeleteItemInput{TableName: T("t"), Key: it("pk", "p2", "sk", "s02")}},
				put(T("t"), it("pk", "p2", "sk", "s11", "g", "g0", "gs", 50)),
				q("g0"), q("g1"),
			)
		}},
		{"GSI key type and read rules", func(T namer) []step {
			c := idxQuery(T("t"), "all", "g = :g", it(":g", "g0"))
			c.ConsistentRead = aws.Bool(true)
			return steps(indexed(T),
				step{in: &dynamodb.PutItemInput{TableName: T("t"), Item: it("pk", "a", "sk", "b", "g", 1)}, err: "ValidationException"},
				step{in: c, err: "ValidationException", message: true},
				step{in: idxQuery(T("t"), "nope", "g = :g", it(":g", "g0")), err: "ValidationException"},
				step{in: idxQuery(T("t"), "all", "pk = :g", it(":g", "g0")), err: "ValidationException"},
				step{in: &dynamodb.QueryInput{TableName: T("t"), IndexName: str("keys"), KeyConditionExpression: str("g = :g"),
					ExpressionAttributeValues: it(":g", "g0"), Select: types.SelectAllAttributes}, err: "ValidationException"},
			)
		}},
		{"LSI queries", func(T namer) []step {
			q := func(index, kc string, v item) step {
				in := idxQuery(T("t"), index, kc, v)
				in.ConsistentRead = aws.Bool(true)
				return step{in: in}
			}
			lim := idxQuery(T("t"), "byL", "pk = :p", it(":p", "p0"))
			lim.Limit = aws.Int32(1)
			lim.ScanIndexForward = aws.Bool(false)
			proj := idxQuery(T("t"), "byLKeys", "pk = :p", it(":p", "p2"))
			proj.Select = types.SelectAllProjectedAttributes
			return steps(indexed(T), indexedItems(T),
				q("byL", "pk = :p", it(":p", "p0")),
				q("byL", "pk = :p AND l >= :l", it(":p", "p2", ":l", 2)),
				q("byLKeys", "pk = :p", it(":p", "p2")),
				step{in: lim, paginate: true},
				step{in: proj},
			)
		}},
		{"scans of indexes", func(T namer) []step {
			s := func(index string) step {
				return step{in: &dynamodb.ScanInput{TableName: T("t"), IndexName: str(index)}, paginate: true, unordered: true}
			}
			lim := &dynamodb.ScanInput{TableName: T("t"), IndexName: str("all"), Limit: aws.Int32(4)}
			return steps(indexed(T), indexedItems(T),
				s("all"), s("keys"), s("incl"), s("byL"),
				step{in: lim, paginate: true, unordered: true},
				step{in: &dynamodb.ScanInput{TableName: T("t"), IndexName: str("all")}, segments: 2},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
