package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeSurvivesBodiesUnderAnAddressSpaceLimit replays the probe that
// killed the server: under ulimit -v 2 GiB, 32 clients each send a 31 MB
// PutItem at once. Every one must be answered (refused: the item is too
// large, or the bodies in flight are over the cap) and the server must
// still answer afterwards, not die of "fatal error: out of memory".
func TestServeSurvivesBodiesUnderAnAddressSpaceLimit(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("starts a server process under ulimit -v, on Linux")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command("sh", "-c", `ulimit -v 2097152 && exec "$0" serve --addr 127.0.0.1:0`, os.Args[0])
	cmd.Env = append(os.Environ(), "CARDAPIO_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	url := ""
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "listening on "); ok {
			url = u
			break
		}
	}
	go io.Copy(io.Discard, out)
	go func() { done <- cmd.Wait() }()
	require.NotEmpty(t, url, "the server did not start: %s", &stderr)
	if runtime.GOOS == "linux" {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
		require.NoError(t, err)
		if oneArenaNeeded {
			assert.Contains(t, string(env), "\x00"+arenaEnv+"=1\x00", "started again with one arena")
		}
	}

	call := func(target string, body []byte) (int, string, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
		req.Header.Set("X-Amz-Date", "20261201T000000Z")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature="+strings.Repeat("0", 64))
		req.Close = true
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, string(b), nil
	}
	code, msg, err := call("CreateTable", []byte(`{"TableName":"tab","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`))
	require.NoError(t, err)
	require.Equal(t, 200, code, msg)

	body := []byte(`{"TableName":"tab","Item":{"pk":{"S":"a"},"v":{"S":"` + strings.Repeat("x", 31_000_000) + `"}}}`)
	var wg sync.WaitGroup
	codes := make([]int, 32)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = call("PutItem", body)
		}()
	}
	wg.Wait()
	// A body over the cap is answered 503 before it is read, and the
	// connection closed: Go's client, still sending, may see only the
	// reset (0 here). Any other answer is a failure.
	for i, c := range codes {
		assert.Contains(t, []int{0, 400, 503}, c, "client %d", i)
	}
	select {
	case err := <-done:
		done <- err
		t.Fatalf("the server died: %v\n%s", err, stderr.String())
	default:
	}
	code, msg, err = call("ListTables", []byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, 200, code, msg)
	assert.Contains(t, stderr.String(), "address-space limit")
}
