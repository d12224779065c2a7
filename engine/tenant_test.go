package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
)

// isolationPolicy is the per-tenant policy a table's isolation declares:
// its actions allowed on the table when every partition key the request
// names matches the declared pattern, built from the principal's tag.
func isolationPolicy(t *catalog.Table) string {
	var actions []string
	for _, a := range t.Isolation.Actions {
		actions = append(actions, "dynamodb:"+a)
	}
	doc := map[string]any{
		"Version": "2012-10-17",
		"Statement": []any{map[string]any{
			"Sid":       "TenantIsolation",
			"Effect":    "Allow",
			"Action":    actions,
			"Resource":  "arn:aws:dynamodb:*:*:table/" + t.Name,
			"Condition": map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{t.Isolation.LeadingKeys}}},
		}},
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b)
}

var principalTag = regexp.MustCompile(`\$\{aws:PrincipalTag/([^}]+)\}`)

// tenantKey is a partition key of tenant in a table whose isolation
// pattern is pattern: the tag replaced by the tenant, the wildcard by a
// suffix.
func tenantKey(pattern, tenant, suffix string) string {
	return strings.Replace(principalTag.ReplaceAllString(pattern, tenant), "*", suffix, 1)
}

// TestTenantIsolation attaches the per-tenant policy of every table the
// example models isolate to one tenant's key, and checks that requests
// for another tenant's items are AccessDeniedException, worded as AWS
// words it, and change nothing.
func TestTenantIsolation(t *testing.T) {
	models := []string{"../model.yaml"}
	if _, err := os.Stat("../examples/orders/model.yaml"); err == nil {
		models = append(models, "../examples/orders/model.yaml")
	}
	tested := 0
	for _, path := range models {
		m, err := catalog.Load(path)
		require.NoError(t, err, path)
		for _, tab := range m.Tables {
			if tab.Isolation == nil {
				continue
			}
			tested++
			t.Run(filepath.Base(filepath.Dir(path))+"/"+tab.Name, func(t *testing.T) { tenantIsolation(t, tab) })
		}
	}
	require.NotZero(t, tested, "the reference model isolates its tenants")
}

func tenantIsolation(t *testing.T, tab *catalog.Table) {
	ctx := context.Background()
	tag := principalTag.FindStringSubmatch(tab.Isolation.LeadingKeys)
	require.NotNil(t, tag, "the isolation pattern names a principal tag")
	keys, err := auth.ParseKeys("keys.json", []byte(fmt.Sprintf(`{"keys":[
		{"accessKeyId":"AKIAADMIN","secretAccessKey":"admin-secret","account":"111122223333","user":"admin"},
		{"accessKeyId":"AKIAT042","secretAccessKey":"secret-042","account":"111122223333","user":"api-t042","tags":{%q:"t042"}},
		{"accessKeyId":"AKIAT043","secretAccessKey":"secret-043","account":"111122223333","user":"api-t043","tags":{%q:"t043"}}]}`, tag[1], tag[1])))
	require.NoError(t, err)
	tenant, err := iam.Parse("tenant.json", []byte(isolationPolicy(tab)))
	require.NoError(t, err)
	admin, err := iam.Parse("admin.json", []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`))
	require.NoError(t, err)
	policies := func(id *auth.Identity) []*iam.Policy {
		if id.Name == "admin" {
			return []*iam.Policy{admin}
		}
		return []*iam.Policy{tenant}
	}
	_, url := serveTest(t, ServerOptions{Keys: keys, Policies: policies})
	adm := client(url, "sa-east-1", "AKIAADMIN", "admin-secret")
	t042 := client(url, "sa-east-1", "AKIAT042", "secret-042")
	t043 := client(url, "sa-east-1", "AKIAT043", "secret-043")

	pk, sk := tab.PartitionKey, tab.SortKey
	def := []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}}
	schema := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	key := func(p string) map[string]types.AttributeValue {
		k := map[string]types.AttributeValue{pk: s(p)}
		if sk != "" {
			k[sk] = s("ITEM#1")
		}
		return k
	}
	if sk != "" {
		def = append(def, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeTypeS})
		schema = append(schema, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	_, err = adm.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(tab.Name), AttributeDefinitions: def, KeySchema: schema, BillingMode: types.BillingModePayPerRequest})
	require.NoError(t, err)
	_, err = t042.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("other"), AttributeDefinitions: def, KeySchema: schema, BillingMode: types.BillingModePayPerRequest})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "a tenant may not create tables")

	own42, own43 := tenantKey(tab.Isolation.LeadingKeys, "t042", "D#1"), tenantKey(tab.Isolation.LeadingKeys, "t043", "D#1")
	item := func(p, v string) map[string]types.AttributeValue {
		it := key(p)
		it["v"] = s(v)
		return it
	}
	allowed := func(a string) bool {
		for _, x := range tab.Isolation.Actions {
			if x == a {
				return true
			}
		}
		return false
	}
	arn := "arn:aws:dynamodb:sa-east-1:111122223333:table/" + tab.Name
	deniedMsg := func(user, action string) string {
		return "User: arn:aws:iam::111122223333:user/" + user + " is not authorized to perform: dynamodb:" + action + " on resource: " + arn +
			" because no identity-based policy allows the dynamodb:" + action + " action"
	}

	if allowed("PutItem") {
		_, err = t042.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab.Name), Item: item(own42, "t042's")})
		require.NoError(t, err, "a tenant writes its own items")
		_, err = t043.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab.Name), Item: item(own43, "t043's")})
		require.NoError(t, err)
		_, err = t042.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab.Name), Item: item(own43, "overwritten by t042")})
		assert.Equal(t, "AccessDeniedException", apiCode(err))
		assert.Equal(t, deniedMsg("api-t042", "PutItem"), apiMessage(err))
	} else {
		for p, v := range map[string]string{own42: "t042's", own43: "t043's"} {
			_, err = adm.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab.Name), Item: item(p, v)})
			require.NoError(t, err)
		}
	}
	if allowed("GetItem") {
		got, err := t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tab.Name), Key: key(own42), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		require.NoError(t, err, "ReturnConsumedCapacity is not blocked")
		assert.Equal(t, "t042's", got.Item["v"].(*types.AttributeValueMemberS).Value)
	}
	_, err = t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tab.Name), Key: key(own43)})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "t042 reading t043's item")
	assert.Equal(t, deniedMsg("api-t042", "GetItem"), apiMessage(err))
	// The same request through the table's ARN.
	_, err = t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: key(own43)})
	assert.Equal(t, "AccessDeniedException", apiCode(err))

	if allowed("Query") {
		q, err := t042.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tab.Name), KeyConditionExpression: aws.String("#p = :p"),
			ExpressionAttributeNames: map[string]string{"#p": pk}, ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(own42)}})
		require.NoError(t, err)
		assert.Equal(t, int32(1), q.Count)
	}
	_, err = t042.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tab.Name), KeyConditionExpression: aws.String("#p = :p"),
		ExpressionAttributeNames: map[string]string{"#p": pk}, ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(own43)}})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "t042 querying t043's collection")
	assert.Equal(t, deniedMsg("api-t042", "Query"), apiMessage(err))

	if allowed("Query") {
		_, err = t042.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tab.Name), KeyConditionExpression: aws.String("#p = :p AND #q = :p"),
			ExpressionAttributeNames: map[string]string{"#p": pk, "#q": "notAKey"}, ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(own42)}})
		assert.Equal(t, "ValidationException", apiCode(err), "a key condition the engine refuses is its own error to a tenant that may query")
	}
	_, err = t042.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key(own42)})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "a table the policy does not name: nothing learned about it")

	_, err = t042.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tab.Name), Key: key(own43),
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("changed by t042")}})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "t042 updating t043's item")

	_, err = t042.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tab.Name)})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "a scan reads every tenant")
	_, err = t042.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tab.Name), Key: key(own43)})
	assert.Equal(t, "AccessDeniedException", apiCode(err))
	_, err = t042.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tab.Name: {Keys: []map[string]types.AttributeValue{key(own42), key(own43)}}}})
	assert.Equal(t, "AccessDeniedException", apiCode(err))
	if allowed("GetItem") {
		_, err = t042.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(tab.Name), Key: key(own42)}}, {Get: &types.Get{TableName: aws.String(tab.Name), Key: key(own43)}}}})
		assert.Equal(t, "AccessDeniedException", apiCode(err), "a transaction with one foreign key")
		assert.Equal(t, deniedMsg("api-t042", "GetItem"), apiMessage(err))
	}
	if allowed("PutItem") {
		_, err = t042.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tab.Name), Item: item(own42, "t042 again")}}, {Put: &types.Put{TableName: aws.String(tab.Name), Item: item(own43, "t043 overwritten")}}}})
		assert.Equal(t, "AccessDeniedException", apiCode(err))
	}

	// Nothing leaked and nothing changed: t043's item is as t043 wrote it.
	got, err := adm.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tab.Name), Key: key(own43), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Equal(t, "t043's", got.Item["v"].(*types.AttributeValueMemberS).Value)
	got, err = adm.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tab.Name), Key: key(own42), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Equal(t, "t042's", got.Item["v"].(*types.AttributeValueMemberS).Value)
}

// TestAttributeConditions drives dynamodb:Attributes, dynamodb:Select and
// dynamodb:ReturnValues through the server with the SDK.
func TestAttributeConditions(t *testing.T) {
	p, err := iam.Parse("attrs.json", []byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:CreateTable","dynamodb:PutItem"],"Resource":"*"},
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:UpdateItem"],"Resource":"arn:aws:dynamodb:*:*:table/people*",
		 "Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["PK","SK","name","status"]},
		              "StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES","dynamodb:ReturnValues":["NONE","UPDATED_OLD","UPDATED_NEW"]}}}]}`))
	require.NoError(t, err)
	_, url := serveTest(t, ServerOptions{Policies: func(*auth.Identity) []*iam.Policy { return []*iam.Policy{p} }})
	ctx := context.Background()
	c := client(url, "us-east-1", "AKID", "x")
	createPK(t, c, "people")
	k := map[string]types.AttributeValue{"PK": s("P#1"), "SK": s("A")}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("people"), Item: map[string]types.AttributeValue{"PK": s("P#1"), "SK": s("A"), "name": s("Ana"), "taxId": s("123")}})
	require.NoError(t, err)

	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("people"), Key: k, ProjectionExpression: aws.String("#n, PK"),
		ExpressionAttributeNames: map[string]string{"#n": "name"}})
	require.NoError(t, err)
	_, ok := got.Item["taxId"]
	assert.False(t, ok)
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("people"), Key: k, ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": "name"}})
	require.NoError(t, err)
	assert.Equal(t, "Ana", got.Item["name"].(*types.AttributeValueMemberS).Value)
	for what, in := range map[string]*dynamodb.GetItemInput{
		"every attribute":       {TableName: aws.String("people"), Key: k},
		"a forbidden attribute": {TableName: aws.String("people"), Key: k, ProjectionExpression: aws.String("taxId")},
		"an unreadable projection": {TableName: aws.String("people"), Key: k, ProjectionExpression: aws.String("#x"),
			ExpressionAttributeNames: map[string]string{"#y": "name"}},
	} {
		_, err = c.GetItem(ctx, in)
		assert.Equal(t, "AccessDeniedException", apiCode(err), what)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("people"), KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P#1")}, Select: types.SelectCount})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "Select COUNT is not SPECIFIC_ATTRIBUTES")
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("people"), KeyConditionExpression: aws.String("PK = :p"),
		FilterExpression: aws.String("taxId = :t"), ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P#1"), ":t": s("123")}})
	assert.Equal(t, "AccessDeniedException", apiCode(err), "a filter on a forbidden attribute")

	upd := func(rv types.ReturnValue, attr string) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("people"), Key: k, UpdateExpression: aws.String("SET #a = :v"),
			ExpressionAttributeNames: map[string]string{"#a": attr}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("x")}, ReturnValues: rv})
		return err
	}
	assert.NoError(t, upd(types.ReturnValueUpdatedNew, "status"))
	assert.NoError(t, upd("", "status"))
	assert.Equal(t, "AccessDeniedException", apiCode(upd(types.ReturnValueAllNew, "status")))
	assert.Equal(t, "AccessDeniedException", apiCode(upd(types.ReturnValueNone, "taxId")))
}
