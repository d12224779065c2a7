package iam

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t testing.TB, doc string) *Policy {
	t.Helper()
	p, err := Parse("policy.json", []byte(doc))
	require.NoError(t, err)
	return p
}

const table = "arn:aws:dynamodb:us-east-1:111122223333:table/collections"

// tenantPolicy is a per-tenant policy of the shape the catalog's
// isolation describes: LeadingKeys confined to the tenant's prefix on the
// item operations.
const tenantPolicy = `{
  "Version": "2012-10-17",
  "Statement": [{
    "Sid": "TenantItems",
    "Effect": "Allow",
    "Action": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"],
    "Resource": "arn:aws:dynamodb:*:*:table/collections",
    "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#${aws:PrincipalTag/tenantId}#*"]}}
  }]
}`

func ctx(kv ...any) Map {
	m := Map{}
	for i := 0; i < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case string:
			m[kv[i].(string)] = []string{v}
		case []string:
			m[kv[i].(string)] = v
		}
	}
	return m
}

func TestTenantPolicy(t *testing.T) {
	p := []*Policy{mustParse(t, tenantPolicy)}
	t042 := func(kv ...any) Map { return ctx(append([]any{"aws:principaltag/tenantid", "t042"}, kv...)...) }
	for _, tc := range []struct {
		name   string
		action string
		ctx    Map
		want   Decision
	}{
		{"own key", "dynamodb:GetItem", t042("dynamodb:leadingkeys", "T#t042#D#9"), Allowed},
		{"another tenant's key", "dynamodb:GetItem", t042("dynamodb:leadingkeys", "T#t043#D#9"), ImplicitDeny},
		{"prefix without the separator", "dynamodb:GetItem", t042("dynamodb:leadingkeys", "T#t0421#D#9"), ImplicitDeny},
		{"a batch with one foreign key", "dynamodb:Query", t042("dynamodb:leadingkeys", []string{"T#t042#A", "T#t043#B"}), ImplicitDeny},
		{"not an allowed action", "dynamodb:DeleteItem", t042("dynamodb:leadingkeys", "T#t042#D#9"), ImplicitDeny},
		{"a scan names no key: ForAllValues holds, Scan is not allowed", "dynamodb:Scan", t042(), ImplicitDeny},
		{"no tag: the pattern has no value", "dynamodb:GetItem", ctx("dynamodb:leadingkeys", "T##D#9"), ImplicitDeny},
		{"a tag value with a wildcard stays literal", "dynamodb:GetItem", ctx("aws:principaltag/tenantid", "*", "dynamodb:leadingkeys", "T#t043#D"), ImplicitDeny},
		{"a literal star tag matches itself", "dynamodb:GetItem", ctx("aws:principaltag/tenantid", "*", "dynamodb:leadingkeys", "T#*#D"), Allowed},
		{"actions are case-insensitive", "DynamoDB:getitem", t042("dynamodb:leadingkeys", "T#t042#D#9"), Allowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Evaluate(p, &Request{Action: tc.action, Resource: table, Context: tc.ctx}))
		})
	}
	assert.Equal(t, ImplicitDeny, Evaluate(p, &Request{Action: "dynamodb:GetItem", Resource: table + "-history", Context: t042("dynamodb:leadingkeys", "T#t042#D")}))
	assert.Equal(t, ImplicitDeny, Evaluate(p, &Request{Action: "dynamodb:Query", Resource: table + "/index/GSI1", Context: t042("dynamodb:leadingkeys", "T#t042#D")}))
}

func TestMayAllow(t *testing.T) {
	p := []*Policy{mustParse(t, tenantPolicy)}
	r := &Request{Action: "dynamodb:Query", Resource: table, Context: unknownAttrs{}}
	assert.True(t, MayAllow(p, r), "a conditional Allow on the action and resource")
	assert.False(t, MayAllow(p, &Request{Action: "dynamodb:Scan", Resource: table, Context: Map{}}))
	assert.False(t, MayAllow(p, &Request{Action: "dynamodb:Query", Resource: table + "-x", Context: Map{}}))
	d := append(p, mustParse(t, `{"Statement":{"Effect":"Deny","Action":"*","Resource":"*"}}`))
	assert.False(t, MayAllow(d, r), "an unconditional Deny")
}

func TestDenyWinsAndWildcards(t *testing.T) {
	p := []*Policy{mustParse(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
		{"Effect":"Deny","Action":["dynamodb:Delete*","dynamodb:?pdateTable"],"Resource":"arn:aws:dynamodb:us-east-1:*:table/prod-*"},
		{"Effect":"Deny","NotAction":"dynamodb:Get*","Resource":"arn:aws:dynamodb:*:*:table/readonly"}
	]}`)}
	for _, tc := range []struct {
		action, resource string
		want             Decision
	}{
		{"dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:1:table/prod-x", Allowed},
		{"dynamodb:DeleteItem", "arn:aws:dynamodb:us-east-1:1:table/prod-x", ExplicitDeny},
		{"dynamodb:DeleteTable", "arn:aws:dynamodb:us-east-1:1:table/prod-x/index/i", ExplicitDeny},
		{"dynamodb:DeleteItem", "arn:aws:dynamodb:eu-west-1:1:table/prod-x", Allowed},
		{"dynamodb:UpdateTable", "arn:aws:dynamodb:us-east-1:1:table/prod-y", ExplicitDeny},
		{"dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:1:table/readonly", Allowed},
		{"dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:1:table/readonly", ExplicitDeny},
		{"s3:GetObject", "arn:aws:s3:::bucket/key", ImplicitDeny},
		{"dynamodb:ListTables", "*", Allowed},
	} {
		assert.Equal(t, tc.want, Evaluate(p, &Request{Action: tc.action, Resource: tc.resource, Context: Map{}}), "%s %s", tc.action, tc.resource)
	}
	// ARNs are matched segment by segment.
	q := []*Policy{mustParse(t, `{"Statement":{"Effect":"Allow","Action":"*","Resource":"arn:aws:dynamodb:us-*:1:table/x*"}}`)}
	assert.Equal(t, Allowed, Evaluate(q, &Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:1:table/x", Context: Map{}}))
	assert.Equal(t, Allowed, Evaluate(q, &Request{Action: "dynamodb:Query", Resource: "arn:aws:dynamodb:us-east-1:1:table/x/index/i", Context: Map{}}))
	assert.Equal(t, ImplicitDeny, Evaluate(q, &Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:2:table/x", Context: Map{}}))
	assert.Equal(t, ImplicitDeny, Evaluate(q, &Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:eu-west-1:1:table/x", Context: Map{}}))
	// NotResource.
	r := []*Policy{mustParse(t, `{"Statement":{"Effect":"Allow","Action":"dynamodb:*","NotResource":"arn:aws:dynamodb:*:*:table/secret*"}}`)}
	assert.Equal(t, Allowed, Evaluate(r, &Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:1:table/x", Context: Map{}}))
	assert.Equal(t, ImplicitDeny, Evaluate(r, &Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:1:table/secrets", Context: Map{}}))
	// No policies: nothing allowed.
	assert.Equal(t, ImplicitDeny, Evaluate(nil, &Request{Action: "dynamodb:GetItem", Resource: "*", Context: Map{}}))
}

func TestAttributesSelectReturnValues(t *testing.T) {
	// The documented shape of an attribute-restricted policy.
	p := []*Policy{mustParse(t, `{"Version":"2012-10-17","Statement":[{
		"Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:UpdateItem"],
		"Resource":"arn:aws:dynamodb:*:*:table/collections",
		"Condition":{
			"ForAllValues:StringEquals":{"dynamodb:Attributes":["PK","SK","status","balance"]},
			"StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES","dynamodb:ReturnValues":["NONE","UPDATED_OLD","UPDATED_NEW"]}
		}}]}`)}
	for _, tc := range []struct {
		name string
		ctx  Context
		want Decision
	}{
		{"allowed attributes, projected", ctx("dynamodb:attributes", []string{"PK", "SK", "status"}, "dynamodb:select", "SPECIFIC_ATTRIBUTES"), Allowed},
		{"a forbidden attribute", ctx("dynamodb:attributes", []string{"PK", "SK", "cpf"}, "dynamodb:select", "SPECIFIC_ATTRIBUTES"), ImplicitDeny},
		{"every attribute", ctx("dynamodb:attributes", []string{"PK", "SK"}, "dynamodb:select", "ALL_ATTRIBUTES"), ImplicitDeny},
		{"update returning the new item", ctx("dynamodb:attributes", []string{"PK", "SK", "status"}, "dynamodb:returnvalues", "ALL_NEW"), ImplicitDeny},
		{"update returning the updated", ctx("dynamodb:attributes", []string{"PK", "SK", "status"}, "dynamodb:returnvalues", "UPDATED_NEW"), Allowed},
		{"update without ReturnValues", ctx("dynamodb:attributes", []string{"PK", "SK", "status"}), Allowed},
		{"attributes unknown", unknownAttrs{}, ImplicitDeny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Evaluate(p, &Request{Action: "dynamodb:GetItem", Resource: table, Context: tc.ctx}))
		})
	}
	// Unknown keys make a Deny apply.
	d := []*Policy{mustParse(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},
		{"Effect":"Deny","Action":"*","Resource":"*","Condition":{"ForAnyValue:StringEquals":{"dynamodb:Attributes":["cpf"]}}}]}`)}
	assert.Equal(t, ExplicitDeny, Evaluate(d, &Request{Action: "dynamodb:GetItem", Resource: table, Context: unknownAttrs{}}))
	assert.Equal(t, Allowed, Evaluate(d, &Request{Action: "dynamodb:GetItem", Resource: table, Context: ctx("dynamodb:attributes", []string{"PK"})}))
	assert.Equal(t, ExplicitDeny, Evaluate(d, &Request{Action: "dynamodb:GetItem", Resource: table, Context: ctx("dynamodb:attributes", []string{"PK", "cpf"})}))
}

type unknownAttrs struct{}

func (unknownAttrs) Lookup(key string) ([]string, State) {
	if key == "dynamodb:attributes" {
		return nil, Unknown
	}
	return nil, Absent
}

func TestOperators(t *testing.T) {
	eval := func(cond string, c Map) Decision {
		p := mustParse(t, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":`+cond+`}}`)
		return Evaluate([]*Policy{p}, &Request{Action: "dynamodb:GetItem", Resource: table, Context: c})
	}
	for _, tc := range []struct {
		cond string
		ctx  Map
		want Decision
	}{
		{`{"StringEquals":{"k":["a","b"]}}`, ctx("k", "b"), Allowed},
		{`{"StringEquals":{"K":"a"}}`, ctx("k", "a"), Allowed}, // keys are case-insensitive
		{`{"StringEquals":{"k":"a"}}`, ctx("k", "A"), ImplicitDeny},
		{`{"StringEquals":{"k":"a"}}`, ctx(), ImplicitDeny},
		{`{"StringEqualsIfExists":{"k":"a"}}`, ctx(), Allowed},
		{`{"StringNotEquals":{"k":"a"}}`, ctx(), Allowed}, // a negated operator holds on a missing key
		{`{"StringNotEquals":{"k":["a","b"]}}`, ctx("k", "b"), ImplicitDeny},
		{`{"StringEqualsIgnoreCase":{"k":"abc"}}`, ctx("k", "ABC"), Allowed},
		{`{"StringNotEqualsIgnoreCase":{"k":"abc"}}`, ctx("k", "ABC"), ImplicitDeny},
		{`{"StringLike":{"k":"a?c*"}}`, ctx("k", "abcdef"), Allowed},
		{`{"StringLike":{"k":"a?c"}}`, ctx("k", "aéc"), Allowed}, // ? is one character
		{`{"StringNotLike":{"k":"x*"}}`, ctx("k", "abc"), Allowed},
		{`{"NumericLessThan":{"k":10}}`, ctx("k", "9.5"), Allowed},
		{`{"NumericGreaterThanEquals":{"k":"10"}}`, ctx("k", "9"), ImplicitDeny},
		{`{"NumericEquals":{"k":10}}`, ctx("k", "x"), ImplicitDeny},
		{`{"Bool":{"aws:SecureTransport":"false"}}`, ctx("aws:securetransport", "false"), Allowed},
		{`{"Bool":{"aws:SecureTransport":true}}`, ctx("aws:securetransport", "false"), ImplicitDeny},
		{`{"Null":{"k":"true"}}`, ctx(), Allowed},
		{`{"Null":{"k":"false"}}`, ctx(), ImplicitDeny},
		{`{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/api-*"}}`, ctx("aws:principalarn", "arn:aws:iam::1:user/api-t042"), Allowed},
		{`{"ArnNotEquals":{"aws:PrincipalArn":"arn:aws:iam::*:user/api-*"}}`, ctx("aws:principalarn", "arn:aws:iam::1:user/api-t042"), ImplicitDeny},
		{`{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","127.0.0.1"]}}`, ctx("aws:sourceip", "127.0.0.1"), Allowed},
		{`{"NotIpAddress":{"aws:SourceIp":"127.0.0.0/8"}}`, ctx("aws:sourceip", "127.0.0.1"), ImplicitDeny},
		{`{"ForAnyValue:StringEquals":{"k":["a"]}}`, ctx("k", []string{"x", "a"}), Allowed},
		{`{"ForAnyValue:StringEquals":{"k":["a"]}}`, ctx(), ImplicitDeny},
		{`{"ForAllValues:StringEquals":{"k":["a"]}}`, ctx(), Allowed},
		{`{"ForAllValues:StringNotEquals":{"k":["a"]}}`, ctx("k", []string{"x", "y"}), Allowed},
		{`{"ForAllValues:StringNotEquals":{"k":["a"]}}`, ctx("k", []string{"x", "a"}), ImplicitDeny},
		{`{"ForAnyValue:StringNotLike":{"k":["a*"]}}`, ctx("k", []string{"ab", "b"}), Allowed},
		{`{"StringLike":{"k":"a*"}}`, ctx("k", []string{"ab", "b"}), ImplicitDeny}, // every value must match
		{`{"StringEquals":{"k":"${aws:username}"}}`, ctx("k", "ana", "aws:username", "ana"), Allowed},
		{`{"StringEquals":{"k":"${aws:PrincipalTag/team, 'none'}"}}`, ctx("k", "none"), Allowed},
		{`{"StringEquals":{"k":"a${*}b${$}"}}`, ctx("k", "a*b$"), Allowed},
		{`{"StringLike":{"k":"a${*}b"}}`, ctx("k", "axb"), ImplicitDeny}, // ${*} is a literal star
		{`{"StringEquals":{"k":"a"},"StringLike":{"j":"b*"}}`, ctx("k", "a", "j", "bc"), Allowed},
		{`{"StringEquals":{"k":"a"},"StringLike":{"j":"b*"}}`, ctx("k", "a", "j", "c"), ImplicitDeny},
	} {
		assert.Equal(t, tc.want, eval(tc.cond, tc.ctx), "%s with %v", tc.cond, tc.ctx)
	}
	// Variables are literal text in 2008-10-17 documents.
	p := mustParse(t, `{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEquals":{"k":"${aws:username}"}}}}`)
	assert.Equal(t, Allowed, Evaluate([]*Policy{p}, &Request{Action: "x:y", Resource: "*", Context: ctx("k", "${aws:username}", "aws:username", "ana")}))
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"Version":"2012-10-17","Statement":[{"Effect":"allow","Action":"dynamodb:GetItem","Resource":"*"}]}`,
			`policy.json:1:48: Statement[0].Effect: want "Allow" or "Deny", got "allow"`},
		{"{\"Version\":\"2012-10-17\",\n \"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"*\",\"Resource\":\"*\"}]}",
			"policy.json:2:33: Statement[0].Principal: an identity-based policy does not name a principal"},
		{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"StringLikeish":{"k":"v"}}}}`,
			`unsupported condition operator "StringLikeish"`},
		{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"table/x"}}`,
			`"table/x" is not a resource`},
		{`{"Statement":{"Effect":"Allow","Action":"GetItem","Resource":"*"}}`,
			`"GetItem" is not an action`},
		{`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Sids":"x"}}`,
			`unknown element "Sids"`},
		{`{"Statement":{"Effect":"Allow","Resource":"*"}}`, "no Action"},
		{`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringLike":{"k":"${aws:PrincipalTag/x"}}}}`,
			"${ without a closing }"},
		{`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"NumericEquals":{"k":"ten"}}}}`, `"ten" is not a number`},
		{`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/33"}}}}`, "not an IP address"},
		{`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"ForAllValues:Null":{"k":"true"}}}}`, "unsupported condition operator"},
		{`{"Version":"2019-01-01","Statement":[]}`, `Version: want "2012-10-17"`},
		{`{"Statement":`, "policy.json:1:14: invalid JSON"},
		{`[]`, "a policy document is a JSON object"},
		{`{} {}`, "more than one JSON document"},
	} {
		_, err := Parse("policy.json", []byte(tc.doc))
		require.Error(t, err, tc.doc)
		assert.Contains(t, err.Error(), tc.want, tc.doc)
	}
	_, err := Parse("big.json", []byte(strings.Repeat(" ", MaxDocument+1)))
	assert.ErrorContains(t, err, "larger than")
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"a?", "ab", true}, {"a?", "a", false},
		{`a\*`, "a*", true}, {`a\*`, "ab", false}, {"**", "x", true}, {"T#t042#*", "T#t042#", true}, {"T#t042#*", "T#t042", false},
	} {
		assert.Equal(t, tc.want, glob(tc.pat, tc.s), "%q %q", tc.pat, tc.s)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(tenantPolicy))
	f.Add([]byte(`{"Statement":{"Effect":"Deny","NotAction":"a:*","NotResource":"arn:aws:x:::y","Condition":{"ForAnyValue:IpAddress":{"aws:SourceIp":"::1"}}}}`))
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["*"],"Resource":["arn:${a}:b:c:d:e"],"Condition":{"Null":{"x":"true"}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.json", data)
		if err != nil {
			if p != nil || err.Error() == "" {
				t.Fatal("an error with a policy")
			}
			return
		}
		for _, c := range []Map{{}, ctx("dynamodb:leadingkeys", []string{"T#a#", "*"}, "aws:principaltag/tenantid", "a", "aws:sourceip", "127.0.0.1", "k", "1")} {
			Evaluate([]*Policy{p}, &Request{Action: "dynamodb:GetItem", Resource: table, Context: c})
			Evaluate([]*Policy{p}, &Request{Action: "dynamodb:ListTables", Resource: "*", Context: c})
		}
	})
}

func FuzzGlob(f *testing.F) {
	f.Add("a*b?c\\*", "aXXbYc*")
	f.Fuzz(func(t *testing.T, pat, s string) {
		if glob(pat, s) && !strings.ContainsAny(pat, `*?\`) && pat != s {
			t.Fatalf("%q matched %q without wildcards", pat, s)
		}
		if !glob(strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "*", `\*`), "?", `\?`), s) {
			t.Fatalf("the escaped %q does not match itself", s)
		}
	})
}
