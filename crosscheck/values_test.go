package crosscheck

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Short builders that keep the cases readable.

type item = map[string]types.AttributeValue

// num is a number written exactly as it goes on the wire.
type num string

// av converts a Go value to an attribute value: strings are S, integers and
// floats and num are N, []byte is B, bool is BOOL, nil is NULL, []any is L,
// map[string]any is M; attribute values pass through.
func av(v any) types.AttributeValue {
	switch x := v.(type) {
	case types.AttributeValue:
		return x
	case string:
		return &types.AttributeValueMemberS{Value: x}
	case num:
		return &types.AttributeValueMemberN{Value: string(x)}
	case int:
		return &types.AttributeValueMemberN{Value: strconv.Itoa(x)}
	case float64:
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(x, 'f', -1, 64)}
	case []byte:
		return &types.AttributeValueMemberB{Value: x}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}
	case []any:
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			l[i] = av(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case map[string]any:
		m := make(map[string]types.AttributeValue, len(x))
		for k, e := range x {
			m[k] = av(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
	panic(fmt.Sprintf("crosscheck: no attribute value for %T", v))
}

// it builds an item (or key, or value map) from name, value pairs.
func it(kv ...any) item {
	m := make(item, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = av(kv[i+1])
	}
	return m
}

func ss(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
func ns(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
func bs(v ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: v} }

// names builds ExpressionAttributeNames from "#a", "a" pairs.
func names(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var str = aws.String

// Table shapes.

type keyDef struct{ name, typ string }

func keys(hash, rng keyDef) []types.KeySchemaElement {
	k := []types.KeySchemaElement{{AttributeName: str(hash.name), KeyType: types.KeyTypeHash}}
	if rng.name != "" {
		k = append(k, types.KeySchemaElement{AttributeName: str(rng.name), KeyType: types.KeyTypeRange})
	}
	return k
}

// table builds an on-demand CreateTable input; attrs lists every key
// attribute of the table and its indexes as name, type pairs.
func table(name *string, hash, rng keyDef, attrs ...keyDef) *dynamodb.CreateTableInput {
	defs := []types.AttributeDefinition{{AttributeName: str(hash.name), AttributeType: types.ScalarAttributeType(hash.typ)}}
	if rng.name != "" {
		defs = append(defs, types.AttributeDefinition{AttributeName: str(rng.name), AttributeType: types.ScalarAttributeType(rng.typ)})
	}
	for _, a := range attrs {
		defs = append(defs, types.AttributeDefinition{AttributeName: str(a.name), AttributeType: types.ScalarAttributeType(a.typ)})
	}
	return &dynamodb.CreateTableInput{
		TableName:            name,
		KeySchema:            keys(hash, rng),
		AttributeDefinitions: defs,
		BillingMode:          types.BillingModePayPerRequest,
	}
}

var (
	none = keyDef{}
	pkS  = keyDef{"pk", "S"}
	pkN  = keyDef{"pk", "N"}
	skS  = keyDef{"sk", "S"}
	skN  = keyDef{"sk", "N"}
	skB  = keyDef{"sk", "B"}
)

// gsi builds a global secondary index with the given projection
// ("ALL", "KEYS_ONLY" or "INCLUDE" followed by the included names).
func gsi(name string, hash, rng keyDef, proj string, include ...string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{IndexName: str(name), KeySchema: keys(hash, rng), Projection: projection(proj, include)}
}

func lsi(name string, hash, rng keyDef, proj string, include ...string) types.LocalSecondaryIndex {
	return types.LocalSecondaryIndex{IndexName: str(name), KeySchema: keys(hash, rng), Projection: projection(proj, include)}
}

func projection(proj string, include []string) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(proj)}
	if len(include) > 0 {
		p.NonKeyAttributes = include
	}
	return p
}

// Step builders for the common operations.

func put(t *string, i item) step { return step{in: &dynamodb.PutItemInput{TableName: t, Item: i}} }

func get(t *string, k item) step {
	return step{in: &dynamodb.GetItemInput{TableName: t, Key: k, ConsistentRead: aws.Bool(true)}}
}

func scanAll(t *string) step {
	return step{in: &dynamodb.ScanInput{TableName: t, ConsistentRead: aws.Bool(true)}, paginate: true, unordered: true}
}

func describe(t *string) step { return step{in: &dynamodb.DescribeTableInput{TableName: t}} }

// puts writes many items, one step each.
func puts(t *string, items ...item) []step {
	s := make([]step, len(items))
	for i, x := range items {
		s[i] = put(t, x)
	}
	return s
}

// steps concatenates steps and step lists.
func steps(parts ...any) []step {
	var out []step
	for _, p := range parts {
		switch x := p.(type) {
		case step:
			out = append(out, x)
		case []step:
			out = append(out, x...)
		default:
			panic(fmt.Sprintf("crosscheck: %T is not a step", p))
		}
	}
	return out
}
