package engine

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
)

// serveTest runs a Server on a loopback port until the test ends and
// returns its URL.
func serveTest(t testing.TB, o ServerOptions) (*Server, string) {
	t.Helper()
	s, err := NewServer(o)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s, "http://" + ln.Addr().String()
}

// client is an SDK client of url signing with the key for region.
func client(url, region, key, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(url),
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		Retryer:      aws.NopRetryer{},
	})
}

// apiCode is the error code of an SDK error.
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func apiMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

func createPK(t *testing.T, c *dynamodb.Client, name string) *dynamodb.CreateTableOutput {
	t.Helper()
	out, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	return out
}

func TestUnsignedRequestsAreRefused(t *testing.T) {
	h := New(Options{}).Handler()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	h.ServeHTTP(rec, req)
	assert.Equal(t, 400, rec.Code)
	assert.Equal(t, `{"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"}`, rec.Body.String())
	assert.Equal(t, jsonType, rec.Header().Get("Content-Type"))
	assert.NotEmpty(t, rec.Header().Get("X-Amz-Crc32"))

	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, 400, rec.Code)
	assert.Contains(t, rec.Body.String(), `"__type":"com.amazon.coral.service#IncompleteSignatureException"`)
}

func TestBodiesWithoutGoNames(t *testing.T) {
	e := New(Options{})
	benchTable(t, e, "Tab")
	h := e.Handler()
	for _, tc := range []struct{ op, body, want string }{
		{"PutItem", `[]`, `{"__type":"com.amazonaws.dynamodb.v20120810#SerializationException","message":"Start of list found where not expected"}`},
		{"PutItem", `[{"TableName":"Tab"}]`, `{"__type":"com.amazonaws.dynamodb.v20120810#SerializationException","message":"Start of list found where not expected"}`},
		{"PutItem", `"x"`, `{"__type":"com.amazonaws.dynamodb.v20120810#SerializationException","message":"Unexpected value type in payload: string found where a structure was expected"}`},
		{"PutItem", `{"TableName":"Tab","Item":[]}`, ""},
		{"BatchWriteItem", `{"RequestItems":5}`, ""},
		{"BatchGetItem", `{"RequestItems":{"Tab":[]}}`, ""},
		{"TransactWriteItems", `{"TransactItems":{}}`, ""},
		{"Query", `{"TableName":"Tab","Limit":"x"}`, ""},
	} {
		rec := post(h, tc.op, tc.body)
		assert.Equal(t, 400, rec.Code, tc.body)
		body := rec.Body.String()
		assert.Contains(t, body, "#SerializationException", tc.body)
		for _, goName := range []string{"engine.", "attr.", "[]", "map[", "*", "struct{", "int64", "Input"} {
			msg := body[strings.Index(body, `"message"`):]
			assert.NotContains(t, msg, goName, "%s: %s", tc.body, body)
		}
		if tc.want != "" {
			assert.Equal(t, tc.want, body)
		}
	}
}

func TestRegionsScopeTables(t *testing.T) {
	_, url := serveTest(t, ServerOptions{})
	ctx := context.Background()
	east, west := client(url, "us-east-1", "AKID", "x"), client(url, "eu-west-1", "AKID", "x")
	created := createPK(t, east, "collections")
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/collections", aws.ToString(created.TableDescription.TableArn))

	lt, err := west.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Empty(t, lt.TableNames, "a client of eu-west-1 sees no table of us-east-1")
	_, err = west.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("collections")})
	assert.Equal(t, "ResourceNotFoundException", apiCode(err))
	// The table's ARN names us-east-1: from eu-west-1 it is not there.
	_, err = west.GetItem(ctx, &dynamodb.GetItemInput{TableName: created.TableDescription.TableArn,
		Key: map[string]types.AttributeValue{"PK": s("a"), "SK": s("b")}})
	assert.Equal(t, "ResourceNotFoundException", apiCode(err))
	_, err = east.GetItem(ctx, &dynamodb.GetItemInput{TableName: created.TableDescription.TableArn,
		Key: map[string]types.AttributeValue{"PK": s("a"), "SK": s("b")}})
	assert.NoError(t, err)
	_, err = east.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:999999999999:table/collections"),
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	assert.Equal(t, "ResourceNotFoundException", apiCode(err), "another account's ARN")

	w := createPK(t, west, "collections")
	assert.Equal(t, "arn:aws:dynamodb:eu-west-1:000000000000:table/collections", aws.ToString(w.TableDescription.TableArn))
	ep, err := west.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
	require.NoError(t, err)
	assert.Equal(t, "dynamodb.eu-west-1.amazonaws.com", aws.ToString(ep.Endpoints[0].Address))

	// --shared: one space.
	_, surl := serveTest(t, ServerOptions{Engine: New(Options{})})
	createPK(t, client(surl, "us-east-1", "AKID", "x"), "shared")
	lt, err = client(surl, "ap-south-1", "OTHER", "y").ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{"shared"}, lt.TableNames)
}

func TestCredentialsVerifySignatures(t *testing.T) {
	k, err := auth.ParseKeys("keys.json", []byte(`{"keys":[
		{"accessKeyId":"AKIAONE","secretAccessKey":"secret-one","account":"111122223333","user":"one"},
		{"accessKeyId":"AKIATWO","secretAccessKey":"secret-two","account":"444455556666","user":"two"}]}`))
	require.NoError(t, err)
	_, url := serveTest(t, ServerOptions{Keys: k})
	ctx := context.Background()
	one := client(url, "us-east-1", "AKIAONE", "secret-one")
	created := createPK(t, one, "orders")
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:111122223333:table/orders", aws.ToString(created.TableDescription.TableArn))

	_, err = client(url, "us-east-1", "AKIAONE", "wrong").ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Equal(t, "InvalidSignatureException", apiCode(err))
	assert.Contains(t, apiMessage(err), "The request signature we calculated does not match the signature you provided.")
	_, err = client(url, "us-east-1", "AKIANOBODY", "x").ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Equal(t, "UnrecognizedClientException", apiCode(err))
	assert.Equal(t, "The security token included in the request is invalid.", apiMessage(err))

	two := client(url, "us-east-1", "AKIATWO", "secret-two")
	lt, err := two.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Empty(t, lt.TableNames, "accounts do not share tables")
	_, err = two.GetItem(ctx, &dynamodb.GetItemInput{TableName: created.TableDescription.TableArn, Key: map[string]types.AttributeValue{"PK": s("a"), "SK": s("b")}})
	assert.Equal(t, "AccessDeniedException", apiCode(err))
	assert.Equal(t, "User: arn:aws:iam::444455556666:user/two is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/orders because no resource-based policy allows the dynamodb:GetItem action", apiMessage(err))

	// The throughput figures show key values: unsigned, they are refused.
	resp, err := http.Get(url + ThroughputPath)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, string(b), "MissingAuthenticationTokenException")
	get := func(key, secret string) int {
		req, _ := http.NewRequest("GET", url+ThroughputPath, nil)
		sum := sha256.Sum256(nil)
		require.NoError(t, v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusForbidden, get("AKIAONE", "wrong"))
	assert.Equal(t, http.StatusNotFound, get("AKIAONE", "secret-one"), "signed: answered (the model is off)")
}

func TestLoopbackHosts(t *testing.T) {
	_, url := serveTest(t, ServerOptions{LoopbackHosts: true})
	for host, want := range map[string]int{"evil.example:80": 403, "127.0.0.1.nip.io": 403, "localhost:8000": 200, "api.localhost": 200, "127.0.0.2": 200, "[::1]:8000": 200} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Host = host
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		placeholderSign(req)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, "%s: %s", host, b)
		if want == 403 {
			assert.Contains(t, string(b), "is not a loopback name")
		}
	}
}

func TestBodiesAreReadAsTheyArrive(t *testing.T) {
	b := &budget{limit: 1 << 20}
	pr, pw := io.Pipe()
	req := httptest.NewRequest("POST", "/", pr)
	req.ContentLength = 30 << 20
	done := make(chan error, 1)
	var bd *body
	go func() {
		var err error
		bd, err = readBody(req, b)
		done <- err
	}()
	_, err := pw.Write(make([]byte, 100))
	require.NoError(t, err)
	// The reader has taken the 100 bytes: what it holds is one pooled
	// buffer (at most pooledCap), not the 30 MiB announced.
	assert.LessOrEqual(t, b.used.Load(), int64(pooledCap))
	// The budget refuses the growth past 1 MiB.
	go func() {
		for {
			if _, err := pw.Write(make([]byte, 64<<10)); err != nil {
				return
			}
		}
	}()
	err = <-done
	assert.Same(t, errBusy, err)
	pr.Close()
	bd.release()
	assert.Equal(t, int64(0), b.used.Load(), "every byte charged is given back")
	assert.LessOrEqual(t, b.peak.Load(), int64(1<<20))
}

func TestInflightCap(t *testing.T) {
	srv, url := serveTest(t, ServerOptions{Limits: Limits{MaxInflight: 256 << 10}})
	c := client(url, "us-east-1", "AKID", "x")
	benchTableSDK(t, c)
	big := strings.Repeat("x", 300<<10)
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: map[string]types.AttributeValue{"pk": s("big"), "pad": s(big)}})
	require.Error(t, err)
	var re interface{ HTTPStatusCode() int }
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, 503, re.HTTPStatusCode())
	assert.Equal(t, "ServiceUnavailable", apiCode(err))
	_, err = c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: map[string]types.AttributeValue{"pk": s("small"), "pad": s(big[:100<<10])}})
	assert.NoError(t, err)
	assert.LessOrEqual(t, srv.InflightPeak(), int64(256<<10))
}

func benchTableSDK(t *testing.T, c *dynamodb.Client) {
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("Bench"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

// rawPut opens a connection and sends a PutItem's headers announcing n
// body bytes and the first of them.
func rawPut(t *testing.T, url string, n int, first string) net.Conn {
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nAuthorization: %s\r\nX-Amz-Date: 20260101T000000Z\r\nContent-Length: %d\r\n\r\n%s",
		placeholderAuthorization, n, first)
	return conn
}

func TestConnectionCap(t *testing.T) {
	srv, url := serveTest(t, ServerOptions{Limits: Limits{MaxConnections: 3}})
	// Three connections that send nothing fill the server...
	var idle []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		require.NoError(t, err)
		idle = append(idle, c)
	}
	require.Eventually(t, func() bool { return srv.Conns().Open == 3 }, 5*time.Second, 5*time.Millisecond)
	// ...and a client still gets in: the longest idle one is closed.
	tr := &http.Transport{}
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), HTTPClient: &http.Client{Transport: tr},
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "x", ""), Retryer: aws.NopRetryer{}})
	_, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, srv.Conns().Evicted, int64(1))
	_ = idle[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = idle[0].Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the oldest idle connection was closed")
	for _, c := range idle {
		c.Close()
	}
	tr.CloseIdleConnections()
	require.Eventually(t, func() bool { return srv.Conns().Open == 0 }, 5*time.Second, 5*time.Millisecond)

	// Three connections in the middle of a request are not closed: a
	// fourth is answered 503.
	var busy []net.Conn
	for i := 0; i < 3; i++ {
		busy = append(busy, rawPut(t, url, 1000, `{"TableName":`))
	}
	require.Eventually(t, func() bool { st := srv.Conns(); return st.Active == 3 && st.Open == 3 }, 5*time.Second, 5*time.Millisecond)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 503, resp.StatusCode)
	assert.Contains(t, string(b), "too many open connections")
	assert.Equal(t, int64(1), srv.Conns().Refused)
	conn.Close()
	for _, c := range busy {
		c.Close()
	}
}

func TestSlowBodiesTimeOut(t *testing.T) {
	_, url := serveTest(t, ServerOptions{Limits: Limits{ReadTimeout: 200 * time.Millisecond}})
	conn := rawPut(t, url, 1000, `{"TableName":`)
	defer conn.Close()
	// The body never comes: the server gives up on it instead of holding
	// the connection forever.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(conn)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept the connection open")
	if len(b) > 0 {
		assert.Contains(t, string(b), "HTTP/1.1 ")
	}
}

func TestShutdownDrains(t *testing.T) {
	s, err := NewServer(ServerOptions{Limits: Limits{ShutdownTimeout: 10 * time.Second}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	body := `{"TableName":"Nope","Item":{"pk":{"S":"a"}}}`
	conn := rawPut(t, url, len(body), body[:5])
	defer conn.Close()
	require.Eventually(t, func() bool { return s.Conns().Active == 1 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	// The request in progress finishes after the shutdown began.
	_, err = io.WriteString(conn, body[5:])
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(b), "ResourceNotFoundException")
	require.NoError(t, <-done)
	_, err = net.Dial("tcp", ln.Addr().String())
	assert.Error(t, err, "no longer accepting")
}

func TestLoadTrust(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.json")
	require.NoError(t, os.WriteFile(keys, []byte(`{"keys":[{"accessKeyId":"AKIA1","secretAccessKey":"s","user":"ana"}]}`), 0o600))
	pol := filepath.Join(dir, "p.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`), 0o600))
	tr, err := LoadTrust(keys, []string{"ana=" + pol, pol})
	require.NoError(t, err)
	id, _ := tr.Keys.Lookup("AKIA1")
	assert.Len(t, tr.For(id), 2)
	_, err = LoadTrust(keys, []string{"bob=" + pol})
	assert.ErrorContains(t, err, `no access key, user or principal ARN "bob"`)
	_, err = LoadTrust(keys, []string{"ana="})
	assert.ErrorContains(t, err, "want FILE or WHO=FILE")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"Statement":{"Effect":"Allow"}}`), 0o600))
	_, err = LoadTrust("", []string{bad})
	assert.ErrorContains(t, err, "bad.json:1:14: Statement: no Action")
	tr, err = LoadTrust("", nil)
	require.NoError(t, err)
	assert.Nil(t, tr.Policies())
}

// FuzzAuthorize sends arbitrary bodies to every operation of a server
// whose one identity has a policy with every condition key the engine
// computes: reading a request's condition context never panics, and a
// request is answered with success or a client error, never a 500.
func FuzzAuthorize(f *testing.F) {
	seeds := []struct{ op, body string }{
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":"u#1"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(#p)","ExpressionAttributeNames":{"#p":"pk"},"ReturnValues":"ALL_OLD"}`},
		{"GetItem", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/Tab","Key":{"pk":{"S":"u#1"},"sk":{"N":"1"}},"ProjectionExpression":"pk"}`},
		{"UpdateItem", `{"TableName":"Tab","Key":{"pk":{"S":"u#1"},"sk":{"N":"1"}},"UpdateExpression":"SET a = if_not_exists(a, :z)","ExpressionAttributeValues":{":z":{"N":"0"}}}`},
		{"Query", `{"TableName":"Tab","IndexName":"GSI1","KeyConditionExpression":"gpk = :p","ExpressionAttributeValues":{":p":{"S":"u#1"}},"Select":"COUNT"}`},
		{"Query", `{"TableName":"Tab","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"u#1"}]}}}`},
		{"Scan", `{"TableName":"Tab","IndexName":"GSI1"}`},
		{"BatchGetItem", `{"RequestItems":{"Tab":{"Keys":[{"pk":{"S":"u#2"},"sk":{"N":"2"}}],"AttributesToGet":["pk"]},"Other":null}}`},
		{"BatchWriteItem", `{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"pk":{"S":"u#2"},"sk":{"N":"2"}}}},{}]}}`},
		{"TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"Tab","Key":{"pk":{"B":"AAE="},"sk":{"N":"3"}},"UpdateExpression":"REMOVE a"}},{}]}`},
		{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"Tab","Key":{"pk":{"S":"u#3"},"sk":{"N":"3"}}}},{}]}`},
		{"TagResource", `{"ResourceArn":"arn:aws:dynamodb:eu-west-1:000000000000:table/Tab","Tags":[{"Key":"k","Value":"v"}]}`},
	}
	for _, s := range seeds {
		f.Add(s.op, s.body)
	}
	p, err := iam.Parse("p.json", []byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{
			"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["u#*"],"dynamodb:SecondPartitionKeyValues":["*"]},
			"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","sk","gpk","gsk","a"]},
			"StringEqualsIfExists":{"dynamodb:Select":["ALL_ATTRIBUTES","SPECIFIC_ATTRIBUTES","COUNT","ALL_PROJECTED_ATTRIBUTES"],"dynamodb:ReturnValues":"ALL_OLD","dynamodb:ReturnConsumedCapacity":"TOTAL"},
			"Null":{"aws:PrincipalTag/x":"true"},
			"IpAddress":{"aws:SourceIp":"0.0.0.0/0"}}},
		{"Effect":"Deny","Action":"dynamodb:Delete*","Resource":"*","Condition":{"ForAnyValue:StringLike":{"dynamodb:LeadingKeys":["x*"]}}}]}`))
	require.NoError(f, err)
	e := New(Options{})
	newTable(f, e)
	s, err := NewServer(ServerOptions{Engine: e, Policies: func(*auth.Identity) []*iam.Policy { return []*iam.Policy{p} }})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, op, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", targetPrefix+op)
		placeholderSign(req)
		s.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", op, body, rec.Code, rec.Body.String())
		}
	})
}
