package crosscheck

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTables(t *testing.T) {
	cases := []xcase{
		{"create hash table, describe it", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none), status: true},
				describe(T("t")),
			)
		}},
		{"create provisioned composite table", func(T namer) []step {
			in := table(T("t"), pkN, skB)
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(3)}
			return steps(step{in: in, status: true}, describe(T("t")))
		}},
		{"create table with a GSI and an LSI", func(T namer) []step {
			in := table(T("t"), pkS, skS, keyDef{"g", "S"}, keyDef{"gs", "N"}, keyDef{"l", "S"})
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{
				gsi("byG", keyDef{"g", "S"}, keyDef{"gs", "N"}, "INCLUDE", "x", "y"),
				gsi("byGKeys", keyDef{"g", "S"}, none, "KEYS_ONLY"),
			}
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{lsi("byL", pkS, keyDef{"l", "S"}, "ALL")}
			return steps(step{in: in, status: true}, describe(T("t")))
		}},
		{"create an existing table", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, none)},
				step{in: table(T("t"), pkS, none), err: "ResourceInUseException"},
			)
		}},
		{"describe, delete and write to a missing table", func(T namer) []step {
			return steps(
				step{in: &dynamodb.DescribeTableInput{TableName: T("missing")}, err: "ResourceNotFoundException", message: true},
				step{in: &dynamodb.DeleteTableInput{TableName: T("missing")}, err: "ResourceNotFoundException"},
				step{in: &dynamodb.PutItemInput{TableName: T("missing"), Item: it("pk", "a")}, err: "ResourceNotFoundException", message: true},
				step{in: &dynamodb.GetItemInput{TableName: T("missing"), Key: it("pk", "a")}, err: "ResourceNotFoundException", message: true},
				step{in: &dynamodb.ScanInput{TableName: T("missing")}, err: "ResourceNotFoundException", message: true},
			)
		}},
		{"delete a table", func(T namer) []step {
			return steps(
				step{in: table(T("t"), pkS, skN)},
				put(T("t"), it("pk", "a", "sk", 1)),
				step{in: &dynamodb.DeleteTableInput{TableName: T("t")}},
				step{in: &dynamodb.GetItemInput{TableName: T("t"), Key: it("pk", "a", "sk", 1)}, err: "ResourceNotFoundException"},
			)
		}},
		{"list tables in pages", func(T namer) []step {
			// Names sort right after the side's prefix, so a page that starts
			// at the prefix holds this case's tables first.
			start := *T("")
			return steps(
				step{in: table(T("a"), pkS, none)},
				step{in: table(T("b"), pkS, none)},
				step{in: table(T("c"), pkS, none)},
				step{in: &dynamodb.ListTablesInput{ExclusiveStartTableName: &start, Limit: aws.Int32(2)}},
				step{in: &dynamodb.ListTablesInput{ExclusiveStartTableName: T("a"), Limit: aws.Int32(1)}},
			)
		}},
		{"create table: key attribute not defined", func(T namer) []step {
			in := table(T("t"), pkS, none)
			in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: str("other"), AttributeType: types.ScalarAttributeTypeS}}
			return steps(step{in: in, err: "ValidationException"})
		}},
		{"create table: invalid names", func(T namer) []step {
			bad := table(str("ab"), pkS, none)
			odd := table(str("a b!"), pkS, none)
			return steps(
				step{in: bad, err: "ValidationException"},
				step{in: odd, err: "ValidationException", message: true},
			)
		}},
		{"create table: attribute defined but unused", func(T namer) []step {
			return steps(step{in: table(T("t"), pkS, none, keyDef{"spare", "S"}), err: "ValidationException"})
		}},
		{"create table: LSI on a table without sort key", func(T namer) []step {
			in := table(T("t"), pkS, none, keyDef{"l", "S"})
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{lsi("byL", pkS, keyDef{"l", "S"}, "ALL")}
			return steps(step{in: in, err: "ValidationException", message: true})
		}},
		{"create table: duplicate index names", func(T namer) []step {
			in := table(T("t"), pkS, none, keyDef{"g", "S"})
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{
				gsi("same", keyDef{"g", "S"}, none, "ALL"),
				gsi("same", keyDef{"g", "S"}, none, "KEYS_ONLY"),
			}
			return steps(step{in: in, err: "ValidationException", message: true})
		}},
		{"update table throughput and billing", func(T namer) []step {
			in := table(T("t"), pkS, none)
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
			return steps(
				step{in: in},
				step{in: &dynamodb.UpdateTableInput{TableName: T("t"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4), WriteCapacityUnits: aws.Int64(2)}}},
				describe(T("t")),
				step{in: &dynamodb.UpdateTableInput{TableName: T("t"), BillingMode: types.BillingModePayPerRequest}},
				describe(T("t")),
			)
		}},
	}
	for _, c := range cases {
		runCase(t, c)
	}
}
