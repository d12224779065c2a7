package crosscheck

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

func TestNormaliseKeepsWireTagsAndDropsNoise(t *testing.T) {
	out := &dynamodb.QueryOutput{
		Items: []map[string]types.AttributeValue{
			it("pk", "a", "n", num("1.5"), "ss", ss("b", "a"), "l", []any{nil, []byte{1}}, "m", map[string]any{"t": true}),
		},
		Count:            1,
		ScannedCount:     3,
		ConsumedCapacity: &types.ConsumedCapacity{CapacityUnits: aws.Float64(0.5)},
	}
	got := Canonical(Normalise(out))
	want := `{
  "Count": 1,
  "Items": [
    {
      "l": {
        "L": [
          {
            "NULL": true
          },
          {
            "B": "AQ=="
          }
        ]
      },
      "m": {
        "M": {
          "t": {
            "BOOL": true
          }
        }
      },
      "n": {
        "N": "1.5"
      },
      "pk": {
        "S": "a"
      },
      "ss": {
        "SS": [
          "a",
          "b"
        ]
      }
    }
  ],
  "ScannedCount": 3
}`
	assert.Equal(t, want, got)
}

func TestNormaliseMasksAccountsAndTimestamps(t *testing.T) {
	out := &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		TableArn:         aws.String("arn:aws:dynamodb:us-east-1:123456789012:table/x"),
		CreationDateTime: aws.Time(time.Unix(1, 0)),
		ItemCount:        aws.Int64(4),
	}}
	assert.Equal(t, `{
  "Table": {
    "ItemCount": 4,
    "TableArn": "arn:aws:dynamodb:us-east-1:ACCOUNT:table/x"
  }
}`, Canonical(Normalise(out)))
}

func TestEssentialsAndUnorderedShapes(t *testing.T) {
	s := &side{prefix: "xc1_"}
	tree := s.shape(map[string]any{
		"Items":            []any{map[string]any{"k": "b"}, map[string]any{"k": "a"}},
		"LastEvaluatedKey": map[string]any{"k": "b"},
		"Table":            map[string]any{"TableName": "xc1_t", "ItemCount": 3, "TableId": "id"},
		"TableNames":       []any{"xc1_t", "other"},
	}, true)
	assert.Equal(t, `{
  "Items": [
    {
      "k": "a"
    },
    {
      "k": "b"
    }
  ],
  "LastEvaluatedKey": "<present>",
  "Table": {
    "TableName": "t"
  },
  "TableNames": [
    "t"
  ]
}`, s.logical(Canonical(tree)))
	assert.Equal(t, map[string]any{}, Normalise(&dynamodb.PutItemOutput{Attributes: map[string]types.AttributeValue{}}))
}
