package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
	"github.com/cardapio/cardapio/generator"
)

// TestGeneratedTenantPolicy attaches the tenant policy the generator
// emits for each isolated table of the example models to one tenant's
// key, on a server verifying signatures, and probes it with the SDK: the
// tenant's own items and index partitions are served, another tenant's
// are AccessDeniedException, on the table and on every index the policy
// names.
func TestGeneratedTenantPolicy(t *testing.T) {
	models := []string{"../model.yaml"}
	if _, err := os.Stat("../examples/orders/model.yaml"); err == nil {
		models = append(models, "../examples/orders/model.yaml")
	}
	tested := 0
	for _, path := range models {
		m, err := catalog.Load(path)
		require.NoError(t, err, path)
		for _, tb := range m.Tables {
			if tb.Isolation == nil {
				continue
			}
			tested++
			t.Run(m.Name+"/"+tb.Name, func(t *testing.T) { generatedPolicy(t, m, tb) })
		}
	}
	require.NotZero(t, tested)
}

// policyServer starts a server verifying keys' signatures on a loopback
// port, each identity given the policy of its user name ("" for the
// others), and returns its URL and a maker of SDK clients signing for
// region.
func policyServer(t *testing.T, keys *auth.Keys, region string, policies map[string]*iam.Policy) (string, func(key, secret string) *dynamodb.Client) {
	t.Helper()
	srv, err := engine.NewServer(engine.ServerOptions{Keys: keys, Policies: func(id *auth.Identity) []*iam.Policy {
		if p, ok := policies[id.Name]; ok {
			return []*iam.Policy{p}
		}
		return []*iam.Policy{policies[""]}
	}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + ln.Addr().String()
	return url, func(key, secret string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: region, BaseEndpoint: aws.String(url),
			Credentials: credentials.NewStaticCredentialsProvider(key, secret, ""), Retryer: aws.NopRetryer{}})
	}
}

var tagVar = regexp.MustCompile(`\$\{aws:PrincipalTag/([^}]+)\}`)

func generatedPolicy(t *testing.T, m *catalog.Model, tb *catalog.Table) {
	ctx := context.Background()
	doc, err := generator.TablePolicy(m, tb.Name, "")
	require.NoError(t, err)
	tenantPolicy, err := iam.Parse("generated.json", doc)
	require.NoError(t, err, "the generated policy is one the engine reads")
	admin, err := iam.Parse("admin.json", []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`))
	require.NoError(t, err)
	tag := tagVar.FindStringSubmatch(tb.Isolation.LeadingKeys)
	require.NotNil(t, tag)
	keys, err := auth.ParseKeys("keys.json", []byte(fmt.Sprintf(`{"keys":[
		{"accessKeyId":"AKIAADMIN","secretAccessKey":"a","account":"111122223333","user":"admin"},
		{"accessKeyId":"AKIAT042","secretAccessKey":"b","account":"111122223333","user":"api-t042","tags":{%[1]q:"t042"}},
		{"accessKeyId":"AKIAT043","secretAccessKey":"c","account":"111122223333","user":"api-t043","tags":{%[1]q:"t043"}}]}`, tag[1])))
	require.NoError(t, err)
	_, client := policyServer(t, keys, "sa-east-1", map[string]*iam.Policy{"admin": admin, "": tenantPolicy})
	adm, t042 := client("AKIAADMIN", "a"), client("AKIAT042", "b")

	in, err := endpoint.CreateTableInput(m, tb, tb.Name, catalog.KeysNative, true)
	require.NoError(t, err)
	_, err = adm.CreateTable(ctx, in)
	require.NoError(t, err)

	// A value of an attribute's type, the tenant's for the tagged one.
	value := func(name, tenant string) types.AttributeValue {
		if a := m.Attribute(name); a != nil {
			switch a.Type {
			case attr.N:
				return &types.AttributeValueMemberN{Value: "1"}
			case attr.B:
				return &types.AttributeValueMemberB{Value: []byte{1}}
			}
		}
		if name == tag[1] {
			return &types.AttributeValueMemberS{Value: tenant}
		}
		return &types.AttributeValueMemberS{Value: "x"}
	}
	key := func(tenant string) map[string]types.AttributeValue {
		k := map[string]types.AttributeValue{tb.PartitionKey: &types.AttributeValueMemberS{Value: strings.Replace(tagVar.ReplaceAllString(tb.Isolation.LeadingKeys, tenant), "*", "D#1", 1)}}
		if tb.SortKey != "" {
			k[tb.SortKey] = value(tb.SortKey, tenant)
		}
		return k
	}
	denied := func(err error) bool {
		var ae smithy.APIError
		return errors.As(err, &ae) && ae.ErrorCode() == "AccessDeniedException"
	}
	_, err = t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb.Name), Key: key("t042")})
	assert.NoError(t, err, "the tenant reads its own items")
	_, err = t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb.Name), Key: key("t043")})
	assert.True(t, denied(err), "another tenant's item: %v", err)
	_, err = t042.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tb.Name)})
	assert.True(t, denied(err), "a scan: %v", err)

	// Every index the policy lets the tenant query, on its partition and
	// on another tenant's.
	indexes := 0
	for _, x := range tb.Indexes {
		if x.Local || !strings.Contains(string(doc), "table/"+tb.Name+"/index/"+x.Name+`"`) {
			continue
		}
		indexes++
		query := func(tenant string) error {
			var cond []string
			names, values := map[string]string{}, map[string]types.AttributeValue{}
			for i, a := range x.Partition {
				cond = append(cond, fmt.Sprintf("#p%d = :p%d", i, i))
				names[fmt.Sprintf("#p%d", i)] = a
				values[fmt.Sprintf(":p%d", i)] = value(a, tenant)
			}
			_, err := t042.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tb.Name), IndexName: aws.String(x.Name),
				KeyConditionExpression: aws.String(strings.Join(cond, " AND ")), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
			return err
		}
		assert.NoError(t, query("t042"), "index %s, own partition", x.Name)
		err := query("t043")
		assert.True(t, denied(err), "index %s, another tenant's partition: %v", x.Name, err)
	}
	t.Logf("%s: the table and %d indexes probed with the generated policy", tb.Name, indexes)
}

// TestReadOnlyPolicyOnModels gives an analyst's key a read-only policy on
// every table and index of each example model: its reads are served, its
// writes and table changes are AccessDeniedException.
func TestReadOnlyPolicyOnModels(t *testing.T) {
	models := []string{"../model.yaml"}
	if _, err := os.Stat("../examples/orders/model.yaml"); err == nil {
		models = append(models, "../examples/orders/model.yaml")
	}
	for _, path := range models {
		m, err := catalog.Load(path)
		require.NoError(t, err, path)
		t.Run(m.Name, func(t *testing.T) { readOnly(t, m) })
	}
}

func readOnly(t *testing.T, m *catalog.Model) {
	ctx := context.Background()
	var resources []string
	for _, tb := range m.Tables {
		resources = append(resources, fmt.Sprintf("%q, %q", "arn:aws:dynamodb:*:*:table/"+tb.Name, "arn:aws:dynamodb:*:*:table/"+tb.Name+"/index/*"))
	}
	analyst, err := iam.Parse("analyst.json", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:Scan","dynamodb:Describe*","dynamodb:List*"],
		"Resource":[`+strings.Join(resources, ", ")+`]}]}`))
	require.NoError(t, err)
	admin, err := iam.Parse("admin.json", []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`))
	require.NoError(t, err)
	keys, err := auth.ParseKeys("keys.json", []byte(`{"keys":[{"accessKeyId":"AKIAADMIN","secretAccessKey":"a","user":"admin"},
		{"accessKeyId":"AKIAANALYST","secretAccessKey":"b","user":"analyst"}]}`))
	require.NoError(t, err)
	_, client := policyServer(t, keys, "us-east-1", map[string]*iam.Policy{"admin": admin, "": analyst})
	adm, an := client("AKIAADMIN", "a"), client("AKIAANALYST", "b")
	denied := func(err error) bool {
		var ae smithy.APIError
		return errors.As(err, &ae) && ae.ErrorCode() == "AccessDeniedException"
	}
	sample := func(name string) types.AttributeValue {
		if a := m.Attribute(name); a != nil {
			switch a.Type {
			case attr.N:
				return &types.AttributeValueMemberN{Value: "1"}
			case attr.B:
				return &types.AttributeValueMemberB{Value: []byte{1}}
			}
		}
		return &types.AttributeValueMemberS{Value: "x"}
	}
	for _, tb := range m.Tables {
		in, err := endpoint.CreateTableInput(m, tb, tb.Name, catalog.KeysNative, true)
		require.NoError(t, err)
		_, err = an.CreateTable(ctx, in)
		assert.True(t, denied(err), "the analyst creates %s: %v", tb.Name, err)
		_, err = adm.CreateTable(ctx, in)
		require.NoError(t, err)
		_, err = an.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tb.Name)})
		assert.NoError(t, err)
		_, err = an.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tb.Name)})
		assert.NoError(t, err, "the analyst scans %s", tb.Name)
		key := map[string]types.AttributeValue{tb.PartitionKey: sample(tb.PartitionKey)}
		if tb.SortKey != "" {
			key[tb.SortKey] = sample(tb.SortKey)
		}
		_, err = an.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb.Name), Key: key})
		assert.NoError(t, err)
		_, err = an.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb.Name), Item: key})
		assert.True(t, denied(err), "the analyst writes to %s: %v", tb.Name, err)
		_, err = an.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tb.Name), Key: key})
		assert.True(t, denied(err), "the analyst deletes from %s: %v", tb.Name, err)
		for _, x := range tb.Indexes {
			var cond []string
			names, values := map[string]string{}, map[string]types.AttributeValue{}
			for i, a := range x.Partition {
				cond = append(cond, fmt.Sprintf("#p%d = :p%d", i, i))
				names[fmt.Sprintf("#p%d", i)] = a
				values[fmt.Sprintf(":p%d", i)] = sample(a)
			}
			_, err := an.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tb.Name), IndexName: aws.String(x.Name),
				KeyConditionExpression: aws.String(strings.Join(cond, " AND ")), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
			assert.NoError(t, err, "the analyst queries %s", x.Name)
		}
		_, err = an.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(tb.Name)})
		assert.True(t, denied(err), "the analyst deletes table %s: %v", tb.Name, err)
	}
}
