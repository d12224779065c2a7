package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const keysJSON = `{"keys": [
  {"accessKeyId": "AKIAT042", "secretAccessKey": "secret-042", "account": "111122223333", "user": "api-t042", "tags": {"tenantId": "t042"}},
  {"accessKeyId": "AKIAROLE", "secretAccessKey": "secret-role", "sessionToken": "tok", "arn": "arn:aws:sts::444455556666:assumed-role/api/t043"},
  {"accessKeyId": "AKIADEF", "secretAccessKey": "s"}
]}`

func testKeys(t *testing.T) *Keys {
	k, err := ParseKeys("keys.json", []byte(keysJSON))
	require.NoError(t, err)
	return k
}

// signed builds a DynamoDB request as the server receives it, signed by
// aws-sdk-go-v2's own SigV4 signer.
func signed(t *testing.T, key, secret, token, region string, at time.Time, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", "http://127.0.0.1:8000/", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	sum := sha256.Sum256([]byte(body))
	err = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token},
		req, hex.EncodeToString(sum[:]), "dynamodb", region, at)
	require.NoError(t, err)
	// What a server sees: Host moved out of the header map, the body a
	// fresh reader.
	in := httptest.NewRequest("POST", "/", strings.NewReader(body))
	in.Host = req.Host
	in.Header = req.Header.Clone()
	return in
}

func verify(k *Keys, r *http.Request, body string, now time.Time) (*Identity, *Error) {
	s, err := Parse(r.Header, r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	return k.Verify(r, []byte(body), &s, now)
}

func TestVerifyAgainstTheSDKSigner(t *testing.T) {
	k := testKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := `{"TableName":"collections","Key":{"PK":{"S":"T#t042#D#1"}}}`

	id, err := verify(k, signed(t, "AKIAT042", "secret-042", "", "eu-west-1", now, body), body, now.Add(time.Minute))
	require.Nil(t, err)
	assert.Equal(t, "111122223333", id.Account)
	assert.Equal(t, "arn:aws:iam::111122223333:user/api-t042", id.ARN)
	assert.Equal(t, "api-t042", id.Name)
	assert.Equal(t, "t042", id.Tags["tenantId"])
	assert.True(t, id.Verified)

	id, err = verify(k, signed(t, "AKIAROLE", "secret-role", "tok", "us-east-1", now, body), body, now)
	require.Nil(t, err)
	assert.Equal(t, "444455556666", id.Account)
	assert.Equal(t, "arn:aws:sts::444455556666:assumed-role/api/t043", id.ARN)
	assert.Empty(t, id.Name)

	id, err = verify(k, signed(t, "AKIADEF", "s", "", "us-east-1", now, body), body, now)
	require.Nil(t, err)
	assert.Equal(t, DefaultAccount, id.Account)
	assert.Equal(t, "arn:aws:iam::000000000000:user/AKIADEF", id.ARN)
}

func TestVerifyRefuses(t *testing.T) {
	k := testKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := `{"TableName":"collections"}`
	for _, tc := range []struct {
		name    string
		req     *http.Request
		body    string
		now     time.Time
		typ     string
		message string
	}{
		{"wrong secret", signed(t, "AKIAT042", "not-the-secret", "", "us-east-1", now, body), body, now, ErrInvalidSignature,
			"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\nThe Canonical String for this request should have been\n'POST\n/\n\ncontent-length:27\ncontent-type:application/x-amz-json-1.0\nhost:127.0.0.1:8000\nx-amz-date:20260301T120000Z\nx-amz-target:DynamoDB_20120810.GetItem\n\ncontent-length;content-type;host;x-amz-date;x-amz-target\n"},
		{"unknown key", signed(t, "AKIANOBODY", "x", "", "us-east-1", now, body), body, now, ErrUnrecognized,
			"The security token included in the request is invalid."},
		{"tampered body", signed(t, "AKIAT042", "secret-042", "", "us-east-1", now, body), `{"TableName":"other"}`, now, ErrInvalidSignature,
			"The request signature we calculated does not match"},
		{"missing token", signed(t, "AKIAROLE", "secret-role", "", "us-east-1", now, body), body, now, ErrUnrecognized,
			"The security token included in the request is invalid"},
		{"unexpected token", signed(t, "AKIAT042", "secret-042", "tok", "us-east-1", now, body), body, now, ErrUnrecognized,
			"The security token included in the request is invalid"},
		{"clock behind", signed(t, "AKIAT042", "secret-042", "", "us-east-1", now, body), body, now.Add(16 * time.Minute), ErrInvalidSignature,
			"Signature expired: 20260301T120000Z is now earlier than 20260301T120100Z (20260301T121600Z - 15 min.)"},
		{"clock ahead", signed(t, "AKIAT042", "secret-042", "", "us-east-1", now, body), body, now.Add(-16 * time.Minute), ErrInvalidSignature,
			"Signature not yet current: 20260301T120000Z is still later than 20260301T115900Z (20260301T114400Z + 15 min.)"},
		{"invalid region", signed(t, "AKIAT042", "secret-042", "", "mars", now, body), body, now, ErrInvalidSignature,
			"Credential should be scoped to a valid region, not 'mars'."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := verify(k, tc.req, tc.body, tc.now)
			require.NotNil(t, err)
			assert.Equal(t, tc.typ, err.Type)
			assert.Contains(t, err.Message, tc.message)
		})
	}
}

func TestVerifyChecksTheScope(t *testing.T) {
	k := testKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAT042/20260228/us-east-1/s3/aws4_reques, SignedHeaders=x-amz-date, Signature=ab")
	h.Set("X-Amz-Date", "20260301T120000Z")
	r := httptest.NewRequest("POST", "/", nil)
	r.Header = h
	_, err := verify(k, r, "", now)
	require.NotNil(t, err)
	assert.Equal(t, ErrInvalidSignature, err.Type)
	assert.Equal(t, "'Host' must be a 'SignedHeader' in the AWS Authorization.", err.Message)

	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAT042/20260228/us-east-1/s3/aws4_reques, SignedHeaders=host;x-amz-date, Signature=ab")
	_, err = verify(k, r, "", now)
	require.NotNil(t, err)
	assert.Equal(t, "Credential should be scoped to correct service: 'dynamodb'. Credential should be scoped with a valid terminator: 'aws4_request', not 'aws4_reques'. "+
		"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20260228' != '20260301', from '20260301T120000Z'.", err.Message)
}

func TestParseRefusesAsDynamoDB(t *testing.T) {
	for _, tc := range []struct {
		authz, date, typ, message string
	}{
		{"", "20260101T000000Z", ErrMissingToken, "Request is missing Authentication Token"},
		{"Bearer abc", "20260101T000000Z", ErrMissingToken, "Request is missing Authentication Token"},
		{"AWS4-HMAC-SHA256 Credential=a/b/c/d/e", "", ErrIncomplete,
			"Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
				"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Credential=a/b/c/d/e"},
		{"AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00", "2026", ErrIncomplete,
			"Date must be in ISO-8601 'basic format'. Got '2026'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{"AWS4-HMAC-SHA25 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00", "20260101T000000Z", ErrIncomplete,
			"Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). "},
		{"AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=00", "20260101T000000Z", ErrIncomplete,
			"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d'"},
	} {
		h := http.Header{}
		if tc.authz != "" {
			h.Set("Authorization", tc.authz)
		}
		if tc.date != "" {
			h.Set("X-Amz-Date", tc.date)
		}
		_, err := Parse(h, "")
		require.NotNil(t, err, tc.authz)
		assert.Equal(t, tc.typ, err.Type, tc.authz)
		assert.Equal(t, tc.message, err.Message, tc.authz)
	}
	h := http.Header{}
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
	h.Set("X-Amz-Date", "20260101T000000Z")
	s, err := Parse(h, "")
	require.Nil(t, err)
	assert.Equal(t, "AKID", s.AccessKey)
	assert.Equal(t, "eu-west-1", s.Region)
	_, err = Parse(h, "X-Amz-Algorithm=AWS4-HMAC-SHA256")
	require.NotNil(t, err)
	assert.Equal(t, ErrInvalidSignature, err.Type)
}

func TestPresignedRequest(t *testing.T) {
	k := testKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	req, err := http.NewRequest("GET", "http://localhost:8000/cardapio/throughput?region=us-east-1", nil)
	require.NoError(t, err)
	url, _, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIAT042", SecretAccessKey: "secret-042"},
		req, hex.EncodeToString(sha256.New().Sum(nil)), "dynamodb", "us-east-1", now)
	require.NoError(t, err)
	in := httptest.NewRequest("GET", url, nil)
	id, aerr := verify(k, in, "", now)
	require.Nil(t, aerr)
	assert.Equal(t, "api-t042", id.Name)
}

func TestParseKeysErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"keys": [{"accessKeyId": "AKIA1", "secretAccessKey": "s", "acount": "1"}]}`, "keys.json:1:60: unknown member \"acount\""},
		{`{"keys": [{"accessKeyId": "AKIA1"}]}`, "keys.json:1:11: keys[0]: secretAccessKey is required"},
		{`{"keys": [{"accessKeyId": "AKIA1", "secretAccessKey": "s", "account": "12"}]}`, "keys.json:1:11: keys[0]: account \"12\": want 12 digits"},
		{`{"keys": [{"accessKeyId": "AKIA1", "secretAccessKey": "s"}, {"accessKeyId": "AKIA1", "secretAccessKey": "t"}]}`, "keys.json:1:61: keys[1]: accessKeyId \"AKIA1\" is listed twice"},
		{"{\n \"keys\": [\n  {\"accessKeyId\": \"AKIA1\", \"secretAccessKey\": \"s\"},\n\n   {\"accessKeyId\": \"A\", \"secretAccessKey\": \"s\"}]}", "keys.json:5:4: keys[1]: accessKeyId \"A\""},
		{`{"keys": [{"accessKeyId": "AKIA1", "secretAccessKey": "s", "arn": "arn:aws:iam::123456789012:user/x", "account": "111122223333"}]}`, "is in account 123456789012, not 111122223333"},
		{`{"keys": []}`, "keys.json: no keys"},
		{"{\"keys\": [\n  {\"accessKeyId\": 5}]}", "keys.json:2:19: keys.accessKeyId: got a JSON number, want a string"},
		{`{"keys": [`, "keys.json:1:11: invalid JSON"},
		{`{"keys": [{"accessKeyId": "AKIA1", "secretAccessKey": "s"}]} {}`, "more than one JSON document"},
	} {
		_, err := ParseKeys("keys.json", []byte(tc.file))
		require.Error(t, err, tc.file)
		assert.Contains(t, err.Error(), tc.want, tc.file)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "20260101T000000Z", "")
	f.Add("AWS4-", "", "X-Amz-Algorithm=x&X-Amz-Credential=a/b/c/d/e")
	f.Add("AWS4-HMAC-SHA256 Credential=////, SignedHeaders=;;, Signature==", "Mon, 02 Jan 2006 15:04:05 GMT", "a=%zz")
	k, err := ParseKeys("k", []byte(keysJSON))
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, authz, date, query string) {
		h := http.Header{}
		h.Set("Authorization", authz)
		h.Set("X-Amz-Date", date)
		s, aerr := Parse(h, query)
		if aerr != nil {
			if aerr.Type == "" || aerr.Message == "" {
				t.Fatalf("%q: %v", authz, aerr)
			}
			return
		}
		r := &http.Request{Method: "POST", URL: &url.URL{Path: "/", RawQuery: query}, Header: h, Host: "localhost", Body: http.NoBody}
		_, _ = k.Verify(r, nil, &s, time.Now())
	})
}

func FuzzParseKeys(f *testing.F) {
	f.Add([]byte(keysJSON))
	f.Add([]byte(`{"keys":[{"accessKeyId":"a","secretAccessKey":"b","arn":"arn:aws:iam::123456789012:user/a/b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKeys("k", data)
		if err != nil {
			if k != nil || err.Error() == "" {
				t.Fatal("an error with keys")
			}
			return
		}
		for _, id := range k.Identities() {
			if id.AccessKey == "" || id.ARN == "" || len(id.Account) != 12 {
				t.Fatalf("incomplete identity %+v", id)
			}
		}
	})
}

// BenchmarkVerify is what checking one signed DynamoDB request costs: a
// 300-byte PutItem as aws-sdk-go-v2 signs it.
func BenchmarkVerify(b *testing.B) {
	k, err := ParseKeys("k", []byte(keysJSON))
	require.NoError(b, err)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := `{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"name":{"S":"someone"},"n":{"N":"12345"},"pad":{"S":"` + strings.Repeat("p", 230) + `"}}}`
	r := signed(&testing.T{}, "AKIAT042", "secret-042", "", "us-east-1", now, body)
	b.ReportAllocs()
	b.ResetTimer()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	defer func() {
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/float64(b.N), "cpu-ns/op")
	}()
	for i := 0; i < b.N; i++ {
		s, err := Parse(r.Header, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Verify(r, []byte(body), &s, now); err != nil {
			b.Fatal(err)
		}
	}
}

// A presigned request is good for its X-Amz-Expires only, not for the
// whole clock skew allowed; a malformed or over-a-week one is refused.
func TestPresignedRequestExpires(t *testing.T) {
	k := testKeys(t)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	presign := func(expires string) *http.Request {
		req, err := http.NewRequest("GET", "http://localhost:8000/cardapio/throughput?X-Amz-Expires="+expires, nil)
		require.NoError(t, err)
		u, _, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIAT042", SecretAccessKey: "secret-042"},
			req, hex.EncodeToString(sha256.New().Sum(nil)), "dynamodb", "us-east-1", at)
		require.NoError(t, err)
		return httptest.NewRequest("GET", u, nil)
	}
	in := presign("60")
	_, err := verify(k, in, "", at.Add(60*time.Second))
	require.Nil(t, err, "within its 60 s")
	_, err = verify(k, in, "", at.Add(61*time.Second))
	require.NotNil(t, err, "61 s after a 60 s presign")
	assert.Equal(t, ErrInvalidSignature, err.Type)
	assert.Equal(t, "Signature expired: 20260301T120000Z is now earlier than 20260301T120001Z (20260301T120101Z - 60 sec.)", err.Message)

	for _, bad := range []string{"x", "-1", "604801"} {
		_, err = verify(k, presign(bad), "", at)
		require.NotNil(t, err, bad)
		assert.Equal(t, ErrIncomplete, err.Type, bad)
		assert.Contains(t, err.Message, "X-Amz-Expires", bad)
	}
}
