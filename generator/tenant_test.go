package generator_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
	"github.com/cardapio/cardapio/examples/lastro"
	"github.com/cardapio/cardapio/generator"
)

func TestTablePolicy(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	doc, err := generator.TablePolicy(m, "collections", "t042")
	require.NoError(t, err)
	var pol struct {
		Version   string
		Statement []struct {
			Sid       string
			Effect    string
			Action    []string
			Resource  []string
			Condition map[string]map[string][]string
		}
	}
	require.NoError(t, json.Unmarshal(doc, &pol))
	assert.Equal(t, "2012-10-17", pol.Version, "policy variables need the 2012-10-17 language")
	require.Len(t, pol.Statement, 2)
	items := pol.Statement[0]
	assert.Equal(t, []string{"T#t042#*"}, items.Condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"])
	assert.Subset(t, items.Action, []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"})
	assert.NotContains(t, items.Action, "dynamodb:Scan", "a Scan reads every tenant")
	for _, s := range pol.Statement {
		for cond := range s.Condition {
			assert.NotContains(t, s.Condition[cond], "dynamodb:ReturnConsumedCapacity")
		}
	}
	assert.Equal(t, []string{"arn:aws:dynamodb:*:*:table/collections/index/GSI3"}, pol.Statement[1].Resource)

	// The variable form is the generated package's, and the file's.
	tagged, err := generator.TablePolicy(m, "collections", "")
	require.NoError(t, err)
	fromPkg, err := lastro.TenantPolicy("")
	require.NoError(t, err)
	assert.JSONEq(t, string(tagged), fromPkg)
	one, err := lastro.TenantPolicy("t042")
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), one)
	for _, bad := range []string{"t*", "t?", "${aws:username}", `t"042`, "t\n042"} {
		_, err := generator.TablePolicy(m, "collections", bad)
		assert.Error(t, err, bad)
		_, err = lastro.TenantPolicy(bad)
		assert.Error(t, err, bad)
	}
	_, err = generator.TablePolicy(m, "collections-history", "t042")
	assert.ErrorContains(t, err, "declares no isolation")
}

// TestTenantPolicyEnforced attaches the generated tenant policy to one
// tenant's key on the engine with IAM enforced, and drives the generated
// package with it: the tenant's own reads and writes go through,
// transactions included; a key built for another tenant is
// AccessDeniedException, never another tenant's item.
func TestTenantPolicyEnforced(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	keys, err := auth.ParseKeys("keys.json", []byte(`{"keys":[
		{"accessKeyId":"AKIAADMIN","secretAccessKey":"admin-secret","account":"111122223333","user":"admin"},
		{"accessKeyId":"AKIAT042","secretAccessKey":"secret-042","account":"111122223333","user":"api-t042","tags":{"tenantId":"t042"}}]}`))
	require.NoError(t, err)
	doc, err := generator.TablePolicy(m, "collections", "")
	require.NoError(t, err)
	tenant, err := iam.Parse("tenant.json", doc)
	require.NoError(t, err)
	admin, err := iam.Parse("admin.json", []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`))
	require.NoError(t, err)
	srv, err := engine.NewServer(engine.ServerOptions{Keys: keys, Policies: func(id *auth.Identity) []*iam.Policy {
		if id.Name == "admin" {
			return []*iam.Policy{admin}
		}
		return []*iam.Policy{tenant}
	}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + ln.Addr().String()
	client := func(key, secret string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
			Credentials: credentials.NewStaticCredentialsProvider(key, secret, "")})
	}
	adm, api := client("AKIAADMIN", "admin-secret"), client("AKIAT042", "secret-042")
	bg := context.Background()
	require.NoError(t, lastro.CreateTables(bg, adm, lastro.DefaultTables()))
	for _, tn := range []string{"t042", "t043"} {
		put(t, adm, lastro.Profile{TenantID: tn, DebtorKey: "9f2c1a7e4b0d3e61", DocumentEnc: []byte{1}, SecretVersion: 1, OnboardedAt: "2026-02-14T12:00:00Z"})
	}
	seedSettlement(t, adm)

	c := lastro.New(api, lastro.DefaultTables())
	own, _, err := lastro.Collect(c.AP01(bg, "t042", "9f2c1a7e4b0d3e61"))
	require.NoError(t, err)
	assert.Len(t, own, 3, "the PROFILE, CONTRACT and INSTALLMENT of t042")
	_, err = c.ApplySettlement(bg, settlement())
	require.NoError(t, err, "a transaction on the tenant's own items")
	debtors, _, err := lastro.Collect(c.AP14(bg, "t042"))
	require.NoError(t, err, "GSI3 is partitioned by the tenant alone")
	assert.Len(t, debtors, 1)

	denied := func(err error) bool {
		var ae smithy.APIError
		return errors.As(err, &ae) && ae.ErrorCode() == "AccessDeniedException"
	}
	_, _, err = lastro.Collect(c.AP01(bg, "t043", "9f2c1a7e4b0d3e61"))
	assert.True(t, denied(err), "t042 reading t043's collection: %v", err)
	_, _, err = lastro.Collect(c.AP14(bg, "t043"))
	assert.True(t, denied(err), "t042 listing t043's debtors: %v", err)
	_, err = c.OnboardDebtor(bg, lastro.OnboardDebtorInput{TenantID: "t043", DebtorKey: "0000000000000000", DocumentEnc: []byte{1}, SecretVersion: 1, OnboardedAt: "2026-02-14T12:00:00Z"})
	assert.True(t, denied(err), "t042 writing into t043: %v", err)
	_, _, err = lastro.Collect(c.AP05(bg, "t042", lastro.BucketD031_060))
	assert.True(t, denied(err), "GSI2's multi-attribute partition is not granted: %v", err)
}
