package crosscheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// partition fills partition p of table t with n items sk=0..n-1 (numbers
// when numeric, else zero-padded strings) and a few attributes to filter on.
func partition(t *string, p string, n int, numeric bool) []step {
	var s []step
	for i := range n {
		var sk any = fmt.Sprintf("%03d", i)
		if numeric {
			sk = i
		}
		s = append(s, put(t, it("pk", p, "sk", sk, "odd", i%2 == 1, "v", i*10, "tag", fmt.Sprintf("t%d", i%3))))
	}
	return s
}

func query(t *string, kc string, v item) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{TableName: t, KeyConditionExpression: str(kc), ExpressionAttributeValues: v, ConsistentRead: aws.Bool(true)}
}

func TestQueries(t *testing.T) {
	cases := []xcase{
		{"query key conditions", func(T namer) []step {
			q := func(kc string, v item) step { return step{in: query(T("t"), kc, v)} }
			return steps(
				step{in: table(T("t"), pkS, skS)},
				partition(T("t"), "a", 12, false),
				partition(T("t"), "b", 3, false),
				q("pk = :p", it(":p", "a")),
				q("pk = :p AND sk = :s", it(":p", "a", ":s", "004")),
				q("pk = :p AND sk < :s", it(":p", "a", ":s", "004")),
				q("pk = :p AND sk <= :s", it(":p", "a", ":s", "004")),
				q("pk = :p AND sk > :s", it(":p", "a", ":s", "008")),
				q("pk = :p AND sk >= :s", it(":p", "a", ":s", "008")),
				q("pk = :p AND sk BETWEEN :x AND :y", it(":p", "a", ":x", "003", ":y", "006")),
				q("pk = :p AND begins_with(sk, :b)", it(":p", "a", ":b", "01")),
				q("(pk = :p) AND (sk > :s)", it(":p", "a", ":s", "010")),
				q("sk > :s AND pk = :p", it(":p", "a", ":s", "010")),
				q("pk = :p", it(":p", "nobody")),
			)
		}},
		{"query backwards with limits", func(T namer) []step {
			back := query(T("t"), "pk = :p AND sk > :s", it(":p", "a", ":s", 2))
			back.ScanIndexForward = aws.Bool(false)
			back.Limit = aws.Int32(3)
			fwd := query(T("t"), "pk = :p", it(":p", "a"))
			fwd.Limit = aws.Int32(4)
			exact := query(T("t"), "pk = :p", it(":p", "a"))
			exact.Limit = aws.Int32(10)
			return steps(
				step{in: table(T("t"), pkS, skN)},
				partition(T("t"), "a", 10, true),
				step{in: back, paginate: true},
				step{in: fwd, paginate: true},
				step{in: exact, paginate: true},
			)
		}},
		{"query numeric sort keys order numerically", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skN)},
				puts(T("t"), it("pk", "a", "sk", num("-1.5")), it("pk", "a", "sk", 10), it("pk", "a", "sk", 9),
					it("pk", "a", "sk", num("0.001")), it("pk", "a", "sk", num("-100")), it("pk", "a", "sk", num("1E+20"))),
				step{in: query(T("t"), "pk = :p", it(":p", "a"))},
				step{in: query(T("t"), "pk = :p AND sk BETWEEN :x AND :y", it(":p", "a", ":x", num("-2"), ":y", 9))},
			)
		}},
		{"query binary sort keys order bytewise", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skB)},
				puts(T("t"), it("pk", "a", "sk", []byte{0xff}), it("pk", "a", "sk", []byte{0x00, 0x01}), it("pk", "a", "sk", []byte{0x7f}),
					it("pk", "a", "sk", []byte{0x80, 0x00}), it("pk", "a", "sk", []byte{0x00})),
				step{in: query(T("t"), "pk = :p", it(":p", "a"))},
				step{in: query(T("t"), "pk = :p AND begins_with(sk, :b)", it(":p", "a", ":b", []byte{0x00}))},
				step{in: query(T("t"), "pk = :p AND sk > :b", it(":p", "a", ":b", []byte{0x7f}))},
			)
		}},
		{"query with filters counts scanned items", func(T namer) []step {
			f := query(T("t"), "pk = :p", it(":p", "a", ":t", true))
			f.FilterExpression = str("odd = :t")
			lim := query(T("t"), "pk = :p", it(":p", "a", ":t", "t1", ":n", 30))
			lim.FilterExpression = str("tag = :t OR v < :n")
			lim.Limit = aws.Int32(4)
			none := query(T("t"), "pk = :p", it(":p", "a", ":x", 1000))
			none.FilterExpression = str("v > :x")
			none.Limit = aws.Int32(5)
			return steps(
				step{in: table(T("t"), pkS, skN)},
				partition(T("t"), "a", 12, true),
				step{in: f},
				step{in: lim, paginate: true},
				step{in: none, paginate: true},
			)
		}},
		{"query projection and select", func(T namer) []step {
			p := query(T("t"), "pk = :p", it(":p", "a"))
			p.ProjectionExpression = str("sk, #v")
			p.ExpressionAttributeNames = names("#v", "v")
			c := query(T("t"), "pk = :p", it(":p", "a", ":t", true))
			c.Select = types.SelectCount
			c.FilterExpression = str("odd = :t")
			c.Limit = aws.Int32(5)
			all := query(T("t"), "pk = :p", it(":p", "a"))
			all.Select = types.SelectAllAttributes
			all.ScanIndexForward = aws.Bool(false)
			spec := query(T("t"), "pk = :p", it(":p", "a"))
			spec.Select = types.SelectSpecificAttributes
			spec.ProjectionExpression = str("tag")
			return steps(
				step{in: table(T("t"), pkS, skN)},
				partition(T("t"), "a", 7, true),
				step{in: p},
				step{in: c, paginate: true},
				step{in: all},
				step{in: spec},
			)
		}},
		{"query validation", func(T namer) []step {
			bad := func(kc string, v item, n map[string]string, msg bool) step {
				in := query(T("t"), kc, v)
				in.ExpressionAttributeNames = n
				return step{in: in, err: "ValidationException", message: msg}
			}
			filterOnKey := query(T("t"), "pk = :p", it(":p", "a", ":s", 1))
			filterOnKey.FilterExpression = str("sk = :s")
			zero := query(T("t"), "pk = :p", it(":p", "a"))
			zero.Limit = aws.Int32(0)
			return steps(
				step{in: table(T("t"), pkS, skN)},
				bad("sk = :s", it(":s", 1), nil, true),
				bad("pk = :p AND v = :v", it(":p", "a", ":v", 1), nil, false),
				bad("pk > :p", it(":p", "a"), nil, false),
				bad("pk = :p OR sk = :s", it(":p", "a", ":s", 1), nil, false),
				bad("pk = :p AND sk = :s AND sk = :s", it(":p", "a", ":s", 1), nil, false),
				bad("pk = :p AND begins_with(sk, :s)", it(":p", "a", ":s", 1), nil, false),
				bad("pk = :p AND sk <> :s", it(":p", "a", ":s", 1), nil, false),
				bad("pk = :p", it(":p", 1), nil, false),
				bad("pk = :p", it(":p", "a"), names("#x", "x"), true),
				bad("", it(":p", "a"), nil, true),
				step{in: filterOnKey, err: "ValidationException"},
				step{in: zero, err: "ValidationException"},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}

func TestScans(t *testing.T) {
	// spread writes 30 items over 30 partitions.
	spread := func(t *string) []step {
		var s []step
		for i := range 30 {
			s = append(s, put(t, it("pk", fmt.Sprintf("p%02d", i), "v", i, "odd", i%2 == 1)))
		}
		return s
	}
	cases := []xcase{
		{"scan everything in pages", func(T namer) []step {
			lim := &dynamodb.ScanInput{TableName: T("t"), Limit: aws.Int32(7)}
			return steps(
				step{in: table(T("t"), pkS, none)},
				spread(T("t")),
				scanAll(T("t")),
				step{in: lim, paginate: true, unordered: true},
			)
		}},
		{"scan with filter and projection", func(T namer) []step {
			f := &dynamodb.ScanInput{TableName: T("t"), FilterExpression: str("odd = :t AND v BETWEEN :a AND :b"),
				ExpressionAttributeValues: it(":t", true, ":a", 5, ":b", 20), ProjectionExpression: str("v")}
			return steps(
				step{in: table(T("t"), pkS, none)},
				spread(T("t")),
				step{in: f, unordered: true},
			)
		}},
		{"scan counts", func(T namer) []step {
			c := &dynamodb.ScanInput{TableName: T("t"), Select: types.SelectCount, FilterExpression: str("v < :n"), ExpressionAttributeValues: it(":n", 12)}
			return steps(
				step{in: table(T("t"), pkS, none)},
				spread(T("t")),
				step{in: c},
			)
		}},
		{"parallel scan segments", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				spread(T("t")),
				puts(T("t"), it("pk", "x"), it("pk", "y", "v", 1), it("pk", "z", "big", strings.Repeat("z", 1000))),
				step{in: &dynamodb.ScanInput{TableName: T("t")}, segments: 4},
				step{in: &dynamodb.ScanInput{TableName: T("t"), Limit: aws.Int32(3)}, segments: 3},
				step{in: &dynamodb.ScanInput{TableName: T("t"), Segment: aws.Int32(2), TotalSegments: aws.Int32(2)}, err: "ValidationException", message: true},
				step{in: &dynamodb.ScanInput{TableName: T("t"), TotalSegments: aws.Int32(2)}, err: "ValidationException", message: true},
			)
		}},
		{"scan validation", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: &dynamodb.ScanInput{TableName: T("t"), Limit: aws.Int32(0)}, err: "ValidationException", message: true},
				step{in: &dynamodb.ScanInput{TableName: T("t"), FilterExpression: str("v = :v")}, err: "ValidationException"},
				step{in: &dynamodb.ScanInput{TableName: T("t"), FilterExpression: str("v = :v"), ExpressionAttributeValues: it(":v", 1, ":w", 2)}, err: "ValidationException"},
				step{in: &dynamodb.ScanInput{TableName: T("t"), IndexName: str("nope")}, err: "ValidationException"},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
