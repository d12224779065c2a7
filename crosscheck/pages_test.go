package crosscheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestPageSize checks where 1 MB pages end: the same items must land on
// the same pages, with the same LastEvaluatedKey.
func TestPageSize(t *testing.T) {
	big := func(T namer, n, size int) []step {
		var s []step
		for i := range n {
			s = append(s, put(T("t"), it("pk", "p", "sk", i, "v", strings.Repeat(fmt.Sprint(i%10), size))))
		}
		return s
	}
	cases := []xcase{
		{"query pages stop at 1 MB", func(T namer) []step {
			q := query(T("t"), "pk = :p", it(":p", "p"))
			q.ProjectionExpression = str("sk")
			back := query(T("t"), "pk = :p", it(":p", "p"))
			back.ProjectionExpression = str("sk")
			back.ScanIndexForward = aws.Bool(false)
			return steps(
				step{in: table(T("t"), pkS, skN)},
				big(T, 30, 100_000),
				step{in: q, paginate: true},
				step{in: back, paginate: true},
			)
		}},
		{"filtered query pages count what they scanned", func(T namer) []step {
			q := query(T("t"), "pk = :p", it(":p", "p", ":none", "x"))
			q.FilterExpression = str("v = :none")
			return steps(
				step{in: table(T("t"), pkS, skN)},
				big(T, 25, 99_000),
				step{in: q, paginate: true},
			)
		}},
		{"scan pages stop at 1 MB", func(T namer) []step {
			var s []step
			for i := range 24 {
				s = append(s, put(T("t"), it("pk", fmt.Sprintf("k%02d", i), "v", strings.Repeat("y", 120_000))))
			}
			return steps(
				step{in: table(T("t"), pkS, none)},
				s,
				step{in: &dynamodb.ScanInput{TableName: T("t"), ProjectionExpression: str("pk")}, paginate: true, unordered: true},
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
