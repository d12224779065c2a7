package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/crosscheck"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
	"github.com/cardapio/cardapio/generator"
)

// A client probe: one request, sent by each client under test, in
// DynamoDB's JSON (binary values in base64), so that every client reads
// the same plan (testdata/clients/probe.py describes it).
type probe struct {
	Name      string         `json:"name"`
	Op        string         `json:"op"` // put, get, query
	Key       string         `json:"key,omitempty"`
	Secret    string         `json:"secret,omitempty"`
	Unsigned  bool           `json:"unsigned,omitempty"`
	Region    string         `json:"region"`
	Table     string         `json:"table"`
	Item      map[string]any `json:"item,omitempty"`
	KeyValue  map[string]any `json:"keyValue,omitempty"`
	Condition string         `json:"condition,omitempty"`
	Names     map[string]any `json:"names,omitempty"`
	Values    map[string]any `json:"values,omitempty"`

	want      string         // the error code expected, "" for success
	wantItem  map[string]any // get: the item expected
	wantCount int            // query
}

// answer is what a client printed for a probe.
type answer struct {
	Name  string         `json:"name"`
	Code  string         `json:"code"`
	Item  map[string]any `json:"item"`
	Count int            `json:"count"`
}

// TestRealClients sends the same requests from every DynamoDB client at
// hand (aws-sdk-go-v2 always; the AWS CLI, boto3 and the AWS SDK for
// JavaScript v3 when installed, skipped with the reason otherwise) to a
// server verifying signatures, with the tenant policy the generator
// emits for the reference model's isolated table attached to a tenant's
// key: an item of every attribute type is decoded as it was written; the
// tenant's own item, partition and writes are served, another tenant's
// are AccessDeniedException; a wrong secret is
// InvalidSignatureException, an unknown key UnrecognizedClientException,
// an unsigned request MissingAuthenticationTokenException, and a request
// signed for another region does not find the table. The policy is thus
// probed by programs that are not part of this repository.
func TestRealClients(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	var tb *catalog.Table
	for _, x := range m.Tables {
		if x.Isolation != nil {
			tb = x
			break
		}
	}
	require.NotNil(t, tb, "the reference model isolates a table")
	doc, err := generator.TablePolicy(m, tb.Name, "")
	require.NoError(t, err)
	tenant, err := iam.Parse("tenant.json", doc)
	require.NoError(t, err)
	admin, err := iam.Parse("admin.json", []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`))
	require.NoError(t, err)
	tag := tagVar.FindStringSubmatch(tb.Isolation.LeadingKeys)
	require.NotNil(t, tag)
	keys, err := auth.ParseKeys("keys.json", []byte(fmt.Sprintf(`{"keys":[
		{"accessKeyId":"AKIAADMIN","secretAccessKey":"admin-secret","account":"111122223333","user":"admin"},
		{"accessKeyId":"AKIAT042","secretAccessKey":"t042-secret","account":"111122223333","user":"api-t042","tags":{%q:"t042"}}]}`, tag[1])))
	require.NoError(t, err)
	const region = "eu-west-1"
	url, client := policyServer(t, keys, region, map[string]*iam.Policy{"admin": admin, "": tenant})
	ctx := context.Background()
	adm := client("AKIAADMIN", "admin-secret")
	in, err := endpoint.CreateTableInput(m, tb, tb.Name, catalog.KeysNative, true)
	require.NoError(t, err)
	_, err = adm.CreateTable(ctx, in)
	require.NoError(t, err)

	// The keys and items of two tenants, and one of every type.
	key := func(tenant, id string) map[string]any {
		k := map[string]any{tb.PartitionKey: map[string]any{"S": strings.Replace(tagVar.ReplaceAllString(tb.Isolation.LeadingKeys, tenant), "*", "D#"+id, 1)}}
		if tb.SortKey != "" {
			k[tb.SortKey] = map[string]any{"S": "S#" + id}
		}
		return k
	}
	// Binary values of the items the clients write are UTF-8 text,
	// which the AWS CLI v1 sends as it finds it in its JSON (v2 and the
	// SDKs take base64); the item written beforehand has any bytes.
	full := func(tenant, id string) map[string]any {
		bin := []byte{0, 1, 2, 0xfe, 0xff}
		if id != "1" {
			bin = []byte("\x00\x01é~")
		}
		it := key(tenant, id)
		for k, v := range map[string]any{
			"s": map[string]any{"S": "ação ✓ " + tenant}, "n": map[string]any{"N": "12.50"}, "neg": map[string]any{"N": "-0.001e3"},
			"b":  map[string]any{"B": base64.StdEncoding.EncodeToString(bin)},
			"ss": map[string]any{"SS": []any{"b", "a"}}, "ns": map[string]any{"NS": []any{"3", "1.0"}},
			"bs":   map[string]any{"BS": []any{base64.StdEncoding.EncodeToString([]byte("x")), base64.StdEncoding.EncodeToString([]byte{0})}},
			"bool": map[string]any{"BOOL": true}, "nul": map[string]any{"NULL": true},
			"l": map[string]any{"L": []any{map[string]any{"S": "x"}, map[string]any{"N": "7"}, map[string]any{"L": []any{}}}},
			"m": map[string]any{"M": map[string]any{"inner": map[string]any{"M": map[string]any{"z": map[string]any{"BOOL": false}}}}},
		} {
			it[k] = v
		}
		return it
	}
	// What the service answers for full's item: numbers normalized.
	want := func(tenant, id string) map[string]any {
		it := full(tenant, id)
		it["n"] = map[string]any{"N": "12.5"}
		it["neg"] = map[string]any{"N": "-1"}
		it["ns"] = map[string]any{"NS": []any{"3", "1"}}
		return it
	}
	for _, tn := range []string{"t042", "t043"} {
		av, err := toAV(map[string]any{"M": full(tn, "1")})
		require.NoError(t, err)
		_, err = adm.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tb.Name), Item: av.(*types.AttributeValueMemberM).Value})
		require.NoError(t, err)
	}
	partition := func(tenant string) (map[string]any, map[string]any) {
		return map[string]any{"#p": tb.PartitionKey}, map[string]any{":p": key(tenant, "1")[tb.PartitionKey]}
	}
	ownNames, ownValues := partition("t042")
	otherNames, otherValues := partition("t043")
	good := func(p probe) probe {
		p.Key, p.Secret, p.Region, p.Table = "AKIAT042", "t042-secret", region, tb.Name
		return p
	}
	plan := func(client string) []probe {
		// Each client writes its own item, so that the runs do not meet.
		id := "w-" + client
		return []probe{
			good(probe{Name: "get own item", Op: "get", KeyValue: key("t042", "1"), wantItem: want("t042", "1")}),
			good(probe{Name: "get another tenant's item", Op: "get", KeyValue: key("t043", "1"), want: "AccessDeniedException"}),
			good(probe{Name: "query own partition", Op: "query", Condition: "#p = :p", Names: ownNames, Values: ownValues, wantCount: 1}),
			good(probe{Name: "query another tenant's partition", Op: "query", Condition: "#p = :p", Names: otherNames, Values: otherValues, want: "AccessDeniedException"}),
			good(probe{Name: "put own item", Op: "put", Item: full("t042", id)}),
			good(probe{Name: "get the item put", Op: "get", KeyValue: key("t042", id), wantItem: want("t042", id)}),
			good(probe{Name: "put into another tenant", Op: "put", Item: full("t043", id), want: "AccessDeniedException"}),
			{Name: "wrong secret", Op: "get", Key: "AKIAT042", Secret: "not-the-secret", Region: region, Table: tb.Name, KeyValue: key("t042", "1"), want: "InvalidSignatureException"},
			{Name: "unknown key", Op: "get", Key: "AKIANOBODY", Secret: "t042-secret", Region: region, Table: tb.Name, KeyValue: key("t042", "1"), want: "UnrecognizedClientException"},
			{Name: "unsigned", Op: "get", Unsigned: true, Region: region, Table: tb.Name, KeyValue: key("t042", "1"), want: "MissingAuthenticationTokenException"},
			{Name: "another region", Op: "get", Key: "AKIAT042", Secret: "t042-secret", Region: "us-east-1", Table: tb.Name, KeyValue: key("t042", "1"), want: "ResourceNotFoundException"},
		}
	}
	clients := []struct {
		name string
		run  func(t *testing.T, plan []probe) []answer
	}{
		{"aws-sdk-go-v2", func(t *testing.T, plan []probe) []answer { return goProbes(t, url, plan) }},
		{"aws-cli", func(t *testing.T, plan []probe) []answer { return cliProbes(t, url, plan) }},
		{"boto3", func(t *testing.T, plan []probe) []answer {
			return scriptProbes(t, url, plan, python(t), "testdata/clients/probe.py")
		}},
		{"js-sdk-v3", func(t *testing.T, plan []probe) []answer {
			return scriptProbes(t, url, plan, node(t), "testdata/clients/probe.cjs")
		}},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			p := plan(c.name)
			got := c.run(t, p)
			require.Len(t, got, len(p), "one answer a probe")
			for i, a := range got {
				w := p[i]
				require.Equal(t, w.Name, a.Name)
				if !assert.Equal(t, w.want, a.Code, "%s", w.Name) || w.want != "" {
					continue
				}
				if w.wantItem != nil {
					assert.Equal(t, normalize(w.wantItem), normalize(a.Item), "%s: the item as decoded", w.Name)
				}
				if w.Op == "query" {
					assert.Equal(t, w.wantCount, a.Count, "%s", w.Name)
				}
			}
		})
	}
	// The other tenant's item is untouched by every client.
	av, err := toAV(map[string]any{"M": key("t043", "w-boto3")})
	require.NoError(t, err)
	g, err := adm.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tb.Name), Key: av.(*types.AttributeValueMemberM).Value})
	require.NoError(t, err)
	assert.Nil(t, g.Item, "a refused put wrote nothing")
}

// normalize orders set members, which DynamoDB does not keep in order.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, m := range x {
			if set := k == "SS" || k == "NS" || k == "BS"; set {
				ms, _ := m.([]string)
				if l, ok := m.([]any); ok {
					for _, e := range l {
						ms = append(ms, e.(string))
					}
				}
				ms = slices.Sorted(slices.Values(ms))
				out[k] = ms
				continue
			}
			out[k] = normalize(m)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = normalize(m)
		}
		return out
	}
	return v
}

// goProbes runs the plan with aws-sdk-go-v2, each request sent once.
func goProbes(t *testing.T, url string, plan []probe) []answer {
	ctx := context.Background()
	var out []answer
	for _, p := range plan {
		opts := dynamodb.Options{Region: p.Region, BaseEndpoint: aws.String(url), Retryer: aws.NopRetryer{},
			Credentials: credentials.NewStaticCredentialsProvider(p.Key, p.Secret, "")}
		if p.Unsigned {
			opts.Credentials = aws.AnonymousCredentials{}
		}
		db := dynamodb.New(opts)
		a := answer{Name: p.Name}
		item := func(m map[string]any) map[string]types.AttributeValue {
			av, err := toAV(map[string]any{"M": m})
			require.NoError(t, err)
			return av.(*types.AttributeValueMemberM).Value
		}
		var err error
		switch p.Op {
		case "put":
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(p.Table), Item: item(p.Item)})
		case "get":
			var r *dynamodb.GetItemOutput
			r, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(p.Table), Key: item(p.KeyValue), ConsistentRead: aws.Bool(true)})
			if err == nil && r.Item != nil {
				a.Item = crosscheck.Attr(&types.AttributeValueMemberM{Value: r.Item}).(map[string]any)["M"].(map[string]any)
			}
		case "query":
			names := map[string]string{}
			for k, v := range p.Names {
				names[k] = v.(string)
			}
			var r *dynamodb.QueryOutput
			r, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(p.Table), KeyConditionExpression: aws.String(p.Condition),
				ExpressionAttributeNames: names, ExpressionAttributeValues: item(p.Values)})
			if err == nil {
				a.Count = int(r.Count)
			}
		}
		var ae smithy.APIError
		if errors.As(err, &ae) {
			a.Code = ae.ErrorCode()
		} else {
			require.NoError(t, err, p.Name)
		}
		out = append(out, a)
	}
	return out
}

var cliError = regexp.MustCompile(`An error occurred \(([A-Za-z]+)\)`)

// cliProbes runs the plan with the AWS CLI, one command a probe, reading
// no configuration of the machine's, each request sent once.
func cliProbes(t *testing.T, url string, plan []probe) []answer {
	bin, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not installed: apt-get install awscli, as .ci/run does")
	}
	js := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	v1 := false
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
		t.Skipf("the AWS CLI does not run: %v: %s", err, out)
	} else {
		v1 = strings.HasPrefix(string(out), "aws-cli/1.")
	}
	var out []answer
	for _, p := range plan {
		if v1 {
			p.Item = cliV1Binary(t, p.Item)
		}
		args := []string{"dynamodb", "--endpoint-url", url, "--region", p.Region, "--output", "json"}
		switch p.Op {
		case "put":
			args = append(args, "put-item", "--table-name", p.Table, "--item", js(p.Item))
		case "get":
			args = append(args, "get-item", "--table-name", p.Table, "--key", js(p.KeyValue), "--consistent-read")
		case "query":
			args = append(args, "query", "--table-name", p.Table, "--key-condition-expression", p.Condition,
				"--expression-attribute-names", js(p.Names), "--expression-attribute-values", js(p.Values))
		}
		if p.Unsigned {
			args = append(args, "--no-sign-request")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = clientEnv(t, "AWS_ACCESS_KEY_ID="+p.Key, "AWS_SECRET_ACCESS_KEY="+p.Secret, "AWS_MAX_ATTEMPTS=1", "AWS_RETRY_MODE=standard", "AWS_PAGER=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		a := answer{Name: p.Name}
		if err != nil {
			mm := cliError.FindStringSubmatch(stderr.String())
			require.NotNil(t, mm, "%s: %v: %s", p.Name, err, stderr.String())
			a.Code = mm[1]
		} else if stdout.Len() > 0 {
			var r struct {
				Item  map[string]any
				Count int
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), stdout.String())
			a.Item, a.Count = r.Item, r.Count
		}
		out = append(out, a)
	}
	return out
}

// cliV1Binary rewrites the binary values of an item for the AWS CLI v1,
// which sends a blob's JSON string as its bytes instead of decoding it
// from base64.
func cliV1Binary(t *testing.T, item map[string]any) map[string]any {
	var conv func(v any) any
	raw := func(s any) string {
		b, err := base64.StdEncoding.DecodeString(s.(string))
		require.NoError(t, err)
		require.True(t, utf8.Valid(b), "the AWS CLI v1 cannot send binary values that are not UTF-8")
		return string(b)
	}
	conv = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, m := range x {
				switch k {
				case "B":
					out[k] = raw(m)
				case "BS":
					var l []any
					for _, e := range m.([]any) {
						l = append(l, raw(e))
					}
					out[k] = l
				default:
					out[k] = conv(m)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, m := range x {
				out[i] = conv(m)
			}
			return out
		}
		return v
	}
	if item == nil {
		return nil
	}
	return conv(item).(map[string]any)
}

// clientEnv is the environment of a client process: this one's without
// its AWS settings, and no configuration files, so that nothing of the
// machine's (a profile, a region, credentials) reaches the probes.
func clientEnv(t *testing.T, more ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	home := t.TempDir()
	env = append(env, "HOME="+home, "AWS_CONFIG_FILE="+filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(home, "credentials"))
	return append(env, more...)
}

// python returns a Python that imports boto3, or skips.
func python(t *testing.T) string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if bin, err := exec.LookPath(p); err == nil && exec.Command(bin, "-c", "import boto3").Run() == nil {
			return bin
		}
	}
	t.Skip("no python3 with boto3: apt-get install python3-boto3, as .ci/run does")
	return ""
}

// node returns node when it finds @aws-sdk/client-dynamodb (through
// NODE_PATH, or installed in .tools/js-sdk at the repository's root, as
// .ci/run does), or skips.
func node(t *testing.T) string {
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	paths := filepath.SplitList(os.Getenv("NODE_PATH"))
	if root, err := filepath.Abs("../.tools/js-sdk/node_modules"); err == nil {
		paths = append(paths, root)
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, "@aws-sdk", "client-dynamodb")); err == nil {
			t.Setenv("NODE_PATH", strings.Join(paths, string(os.PathListSeparator)))
			return bin
		}
	}
	t.Skip("@aws-sdk/client-dynamodb not found (NODE_PATH, or .tools/js-sdk: npm install --prefix .tools/js-sdk @aws-sdk/client-dynamodb, as .ci/run does)")
	return ""
}

// scriptProbes runs the plan with a client script (python or node) and
// reads its answers, one JSON line each.
func scriptProbes(t *testing.T, url string, plan []probe, interpreter, script string) []answer {
	b, err := json.Marshal(plan)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	cmd := exec.Command(interpreter, script, path, url, "us-east-1")
	cmd.Env = clientEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var out []answer
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var a answer
		require.NoError(t, json.Unmarshal([]byte(line), &a), line)
		out = append(out, a)
	}
	return out
}

// toAV reads an attribute value in DynamoDB's JSON into the SDK's type.
func toAV(v map[string]any) (types.AttributeValue, error) {
	if len(v) != 1 {
		return nil, fmt.Errorf("want one type: %v", v)
	}
	for k, x := range v {
		list := func() []any { l, _ := x.([]any); return l }
		strs := func() []string {
			var out []string
			for _, e := range list() {
				out = append(out, e.(string))
			}
			return out
		}
		switch k {
		case "S":
			return &types.AttributeValueMemberS{Value: x.(string)}, nil
		case "N":
			return &types.AttributeValueMemberN{Value: x.(string)}, nil
		case "B":
			b, err := base64.StdEncoding.DecodeString(x.(string))
			return &types.AttributeValueMemberB{Value: b}, err
		case "SS":
			return &types.AttributeValueMemberSS{Value: strs()}, nil
		case "NS":
			return &types.AttributeValueMemberNS{Value: strs()}, nil
		case "BS":
			var bs [][]byte
			for _, s := range strs() {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, err
				}
				bs = append(bs, b)
			}
			return &types.AttributeValueMemberBS{Value: bs}, nil
		case "BOOL":
			return &types.AttributeValueMemberBOOL{Value: x.(bool)}, nil
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: x.(bool)}, nil
		case "L":
			var l []types.AttributeValue
			for _, e := range list() {
				av, err := toAV(e.(map[string]any))
				if err != nil {
					return nil, err
				}
				l = append(l, av)
			}
			return &types.AttributeValueMemberL{Value: l}, nil
		case "M":
			m := map[string]types.AttributeValue{}
			for n, e := range x.(map[string]any) {
				av, err := toAV(e.(map[string]any))
				if err != nil {
					return nil, err
				}
				m[n] = av
			}
			return &types.AttributeValueMemberM{Value: m}, nil
		}
		return nil, fmt.Errorf("unknown type %s", k)
	}
	return nil, nil
}
