package engine

import (
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends one wire-protocol request to h and returns the recorder.
func post(h http.Handler, op, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	placeholderSign(req)
	h.ServeHTTP(rec, req)
	return rec
}

// TestResponseHeaders checks the headers of the empty answer, which are
// computed once and shared, against those of a body computed per request,
// and that every response has its own request id.
func TestResponseHeaders(t *testing.T) {
	e := New(Options{})
	benchTable(t, e, "Hdr")
	h := e.Handler()
	const item = `"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"x"}}`
	seen := map[string]bool{}
	for i, tc := range []struct{ body, want string }{
		{`{"TableName":"Hdr",` + item + `}`, `{}`},
		{`{"TableName":"Hdr",` + item + `}`, `{}`},
		{`{"TableName":"Hdr","ReturnValues":"ALL_OLD",` + item + `}`, `{"Attributes":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"x"}}}`},
	} {
		rec := post(h, "PutItem", tc.body)
		require.Equal(t, 200, rec.Code, rec.Body.String())
		body := rec.Body.Bytes()
		assert.JSONEq(t, tc.want, string(body), "request %d", i)
		assert.Equal(t, strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10), rec.Header().Get("X-Amz-Crc32"), "request %d", i)
		assert.Equal(t, strconv.Itoa(len(body)), rec.Header().Get("Content-Length"), "request %d", i)
		assert.Equal(t, jsonType, rec.Header().Get("Content-Type"))
		id := rec.Header().Get("X-Amzn-Requestid")
		assert.True(t, strings.HasPrefix(id, "CARDAPIO"), id)
		assert.False(t, seen[id], "request id %s repeated", id)
		seen[id] = true
	}
	assert.Equal(t, "{}", string(emptyBody), "the shared empty body is never written to")
}

// placeholderAuthorization is a signature of the right form that no key
// verifies: what a server that accepts any credentials needs to see.
const placeholderAuthorization = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"

// placeholderSign gives a raw request the placeholder signature.
func placeholderSign(r *http.Request) {
	r.Header.Set("Authorization", placeholderAuthorization)
	r.Header.Set("X-Amz-Date", "20260101T000000Z")
}
