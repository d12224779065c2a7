package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/throughput"
)

func TestServeAnswersAndStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	srv, err := engine.NewServer(engine.ServerOptions{LoopbackHosts: true})
	require.NoError(t, err)
	go func() { done <- serve(ctx, ln, srv, serveConfig{}, &env{stdout: &out, stderr: io.Discard}) }()

	url := "http://" + ln.Addr().String()
	var resp *http.Response
	require.Eventually(t, func() bool {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		placeholderSign(req)
		resp, err = http.DefaultClient.Do(req)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"TableNames":[]}`, string(body))
	assert.NotEmpty(t, resp.Header.Get("X-Amz-Crc32"))

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.Contains(t, out.String(), "listening on http://127.0.0.1:")
}

func TestServeRejectsBadAddress(t *testing.T) {
	var stderr bytes.Buffer
	code := Main([]string{"serve", "--addr", "256.0.0.1:bad"}, nil, io.Discard, &stderr)
	assert.Equal(t, ExitBadInput, code)
}

func TestServeThroughputFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--throughput-scale", "0.01"},
		{"--warm-write", "100"},
		{"--throughput", "--throughput-scale", "0"},
		{"--throughput", "--throughput-scale", "NaN"},
		{"--throughput", "--warm-read", "0"},
		{"--gsi-lag", "-1s"},
		{"--ttl-sweep", "-1s"},
	} {
		var stderr bytes.Buffer
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), nil, io.Discard, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v: %s", args, stderr.String())
		assert.NotEmpty(t, stderr.String())
	}
}

// startServe runs serve with the engine the config describes on a
// loopback port until the test ends, and returns its URL.
func startServe(t *testing.T, c serveConfig) (url string, stdout *bytes.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stdout = &bytes.Buffer{}
	c.loopback = true
	srv, err := newServer(ctx, c, &env{stdout: stdout, stderr: io.Discard})
	require.NoError(t, err)
	// serve prints before it serves: once a request is answered, the
	// buffer is no longer written.
	go func() { done <- serve(ctx, ln, srv, c, &env{stdout: stdout, stderr: io.Discard}) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + ln.Addr().String(), stdout
}

func call(t *testing.T, url, op, body string) (int, string) {
	t.Helper()
	return callIn(t, url, "us-east-1", op, body)
}

// callIn is call with a signature for region.
func callIn(t *testing.T, url, region, op, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	placeholderSign(req)
	req.Header.Set("Authorization", strings.Replace(req.Header.Get("Authorization"), "/us-east-1/", "/"+region+"/", 1))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestServeThroughput(t *testing.T) {
	url, stdout := startServe(t, serveConfig{sweep: time.Second, limits: true, scale: 0.001, warmRead: 12000, warmWrite: 4000})
	code, body := call(t, url, "CreateTable", `{"TableName":"Hot","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	require.Equal(t, 200, code, body)
	// At 1/1000 a partition takes one write unit a second: the second
	// write of one key in the same second is throttled (the wall clock
	// may tick between them, hence up to three tries).
	for i := 0; i < 3; i++ {
		code, body = call(t, url, "PutItem", `{"TableName":"Hot","Item":{"pk":{"S":"k"}}}`)
		if code != 200 {
			break
		}
	}
	require.Equal(t, 400, code)
	assert.Contains(t, body, `"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException"`)
	assert.Contains(t, body, `"throttlingReasons":[{"reason":"TableWriteKeyRangeThroughputExceeded","resource":"arn:aws:dynamodb:us-east-1:000000000000:table/Hot"}]`)

	resp, err := http.Get(url + engine.ThroughputPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var s throughput.Snapshot
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
	assert.Equal(t, 0.001, s.Scale)
	require.NotNil(t, s.Table("Hot"))
	r := s.Table("Hot").Resource("")
	assert.GreaterOrEqual(t, r.Totals.WriteThrottled, 1.0)
	assert.GreaterOrEqual(t, r.Totals.WriteConsumed, 1.0)
	assert.Equal(t, 1, r.Busy())
	assert.Contains(t, stdout.String(), "throughput model on at scale 0.001; figures at "+url+engine.ThroughputPath)
}

// A space's throughput model names its tables by the space's region and
// account: in the figures and in a throttled request's ThrottlingReasons.
func TestServeThroughputARNsOfTheSpace(t *testing.T) {
	url, _ := startServe(t, serveConfig{sweep: time.Second, limits: true, scale: 0.001, warmRead: 12000, warmWrite: 4000})
	send := func(op, body string) (int, string) { return callIn(t, url, "eu-west-1", op, body) }
	code, body := send("CreateTable", `{"TableName":"Hot","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	require.Equal(t, 200, code, body)
	for i := 0; i < 3; i++ {
		if code, body = send("PutItem", `{"TableName":"Hot","Item":{"pk":{"S":"k"}}}`); code != 200 {
			break
		}
	}
	require.Equal(t, 400, code)
	assert.Contains(t, body, `"resource":"arn:aws:dynamodb:eu-west-1:000000000000:table/Hot"`)

	resp, err := http.Get(url + engine.ThroughputPath + "?region=eu-west-1")
	require.NoError(t, err)
	defer resp.Body.Close()
	var s throughput.Snapshot
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
	require.NotNil(t, s.Table("Hot"))
	assert.Equal(t, "arn:aws:dynamodb:eu-west-1:000000000000:table/Hot", s.Table("Hot").Resource("").ARN)
}

func TestServeThroughputOff(t *testing.T) {
	url, _ := startServe(t, serveConfig{sweep: time.Second, lag: time.Hour})
	resp, err := http.Get(url + engine.ThroughputPath)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	// The lag is on: a GSI query does not see a write made an hour
	// before it propagates.
	code, body := call(t, url, "CreateTable", `{"TableName":"Lag","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"GlobalSecondaryIndexes":[{"IndexName":"ByG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	require.Equal(t, 200, code, body)
	code, body = call(t, url, "PutItem", `{"TableName":"Lag","Item":{"pk":{"S":"a"},"g":{"S":"x"}}}`)
	require.Equal(t, 200, code, body)
	code, body = call(t, url, "Query", `{"TableName":"Lag","IndexName":"ByG","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"x"}}}`)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"Count":0`)
	code, body = call(t, url, "GetItem", `{"TableName":"Lag","Key":{"pk":{"S":"a"}}}`)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"g":{"S":"x"}`)
}

// placeholderSign gives a raw request a signature of the right form that
// no key verifies, which a server accepting any credentials takes.
func placeholderSign(r *http.Request) {
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
	r.Header.Set("X-Amz-Date", "20260101T000000Z")
}

func TestServeTrustFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := dir + "/" + name
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	keys := write("keys.json", `{"keys":[{"accessKeyId":"AKIA1","secretAccessKey":"s","user":"ana"}]}`)
	pol := write("p.json", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--credentials", write("bad.json", `{"keys":[{"accessKeyId":"AKIA1"}]}`)}, "bad.json:1:10: keys[0]: secretAccessKey is required"},
		{[]string{"--credentials", dir + "/none.json"}, "no such file"},
		{[]string{"--credentials", keys, "--policy", "bob=" + pol}, `no access key, user or principal ARN "bob"`},
		{[]string{"--policy", write("bad-policy.json", `{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Principal":"*"}}`)}, "bad-policy.json:1:60: Statement.Principal"},
		{[]string{"--max-inflight", "lots"}, `--max-inflight: "lots": want a positive size such as 512MiB`},
		{[]string{"--max-connections", "-1"}, `"--max-connections" flag: must be an integer from 0 to 1048576`},
		{[]string{"--read-timeout", "-1s"}, `"--read-timeout" flag: must be a duration from 0 to 24h`},
	} {
		var stderr bytes.Buffer
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...), nil, io.Discard, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v: %s", tc.args, stderr.String())
		assert.Contains(t, stderr.String(), tc.want, "%v", tc.args)
	}
	for in, want := range map[string]int64{"512MiB": 512 << 20, "1GiB": 1 << 30, "64KB": 64000, "1000": 1000, "2 MiB": 2 << 20} {
		n, err := parseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, n, in)
	}
}

// anyAddr is a loopback listener that says it listens on every interface.
type anyAddr struct{ net.Listener }

func (anyAddr) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero, Port: 8000} }

func TestServeWarnsWhenExposed(t *testing.T) {
	for _, withKeys := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		c := serveConfig{}
		if withKeys {
			c.credentials = "keys.json"
		}
		srv, err := engine.NewServer(engine.ServerOptions{})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- serve(ctx, anyAddr{ln}, srv, c, &env{stdout: &stdout, stderr: &stderr}) }()
		cancel()
		require.NoError(t, <-done)
		if withKeys {
			assert.NotContains(t, stderr.String(), "warning")
		} else {
			assert.Contains(t, stderr.String(), "warning: 0.0.0.0:8000 is reachable from other machines, and any credentials are accepted")
		}
	}
	assert.True(t, loopbackAddr("127.0.0.1:8000"))
	assert.True(t, loopbackAddr("localhost:8000"))
	assert.True(t, loopbackAddr("[::1]:8000"))
	assert.False(t, loopbackAddr(":8000"))
	assert.False(t, loopbackAddr("0.0.0.0:8000"))
}

func TestServeWarnsOfAnAddressSpaceLimit(t *testing.T) {
	w := addressSpaceWarning(2<<30, 1732532<<10, 512<<20)
	assert.Contains(t, w, "the address-space limit (ulimit -v) is 2.00 GiB and 1.65 GiB of it is already reserved by the Go runtime, unused, leaving 0.35 GiB (--max-inflight is 512 MiB)")
	assert.Contains(t, w, "cap memory with --memory-limit or GOMEMLIMIT")
	assert.Contains(t, addressSpaceWarning(1<<30, 3<<30, 512<<20), "leaving 0.00 GiB")
	assert.Contains(t, addressSpaceWarning(1<<30, 0, 512<<20), "is 1.00 GiB and an unknown part of it is no memory cap")
}

func TestServeHelpDocumentsTheLimits(t *testing.T) {
	var stdout bytes.Buffer
	require.Equal(t, ExitOK, Main([]string{"serve", "--help"}, nil, &stdout, io.Discard))
	for _, s := range []string{"--credentials", "--policy", "--shared", "--max-inflight", "--max-connections", "--read-timeout",
		"--write-timeout", "--idle-timeout", "--shutdown-timeout", "MissingAuthenticationTokenException", "AccessDeniedException",
		"DNS rebinding", "lost when the server stops", "answer only a verified signature",
		"--memory-limit", "--memory-factor", "--memory-floor", "--memory-headroom", engine.MemoryPath} {
		assert.Contains(t, stdout.String(), s)
	}
}

func TestServeMemoryFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--memory-limit", "lots"},
		{"--memory-limit", "0"},
		{"--memory-factor", "0"},
		{"--memory-factor", "NaN"},
		{"--memory-floor", "-1MiB"},
		{"--memory-headroom", "0.5"},
	} {
		var stderr bytes.Buffer
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), nil, io.Discard, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "memory", "%v", args)
	}
	c := serveConfig{memory: "auto", memoryFactor: 2, memoryFloor: "1MiB", memoryHeadroom: 1.5}
	m, err := memoryLimit(c, false)
	require.NoError(t, err)
	assert.Equal(t, &engine.MemoryLimit{Factor: 2, Floor: 1 << 20, MinHeadroom: 1.5}, m)
	c.memory = "3GiB"
	m, err = memoryLimit(c, true)
	require.NoError(t, err)
	assert.Equal(t, int64(3<<30), m.Fixed)
	c.memory = "off"
	m, err = memoryLimit(c, true)
	require.NoError(t, err)
	assert.Nil(t, m)
	t.Setenv("GOMEMLIMIT", "1GiB")
	c.memory = "auto"
	m, err = memoryLimit(c, false)
	require.NoError(t, err)
	assert.Nil(t, m, "GOMEMLIMIT in the environment is kept without a flag")
	m, err = memoryLimit(c, true)
	require.NoError(t, err)
	assert.NotNil(t, m, "a flag overrides it")
}
