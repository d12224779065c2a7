package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine"
)

func TestServeAnswersAndStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, engine.New(engine.Options{}), &env{stdout: &out, stderr: io.Discard}) }()

	url := "http://" + ln.Addr().String()
	var resp *http.Response
	require.Eventually(t, func() bool {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
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
