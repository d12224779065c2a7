// Package moto gives tests a running moto server (moto_server, the Python
// AWS emulator): a second DynamoDB implementation independent of the
// embedded engine, whose ConsumedCapacity is a constant per request kind
// rather than the billing rules' figure.
//
// MOTO_ENDPOINT names a running server (.ci/run starts one); without it,
// a moto_server on PATH is started on a free loopback port for the test
// and stopped when the test that asked for it ends. Without either
// the test skips (.ci/run says so when it cannot provide one).
package moto

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Endpoint returns the URL of a moto server for t.
func Endpoint(t testing.TB) string {
	t.Helper()
	if url := os.Getenv("MOTO_ENDPOINT"); url != "" {
		return url
	}
	url, stop, err := Start()
	if err != nil {
		t.Skipf("moto: %v", err)
	}
	t.Cleanup(stop)
	return url
}

// Start starts moto_server on a free loopback port and waits until it
// answers; stop ends that process.
func Start() (url string, stop func(), err error) {
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		return "", nil, fmt.Errorf("no MOTO_ENDPOINT and no moto_server on PATH (pip install 'moto[server]==5.2.1')")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	url = fmt.Sprintf("http://127.0.0.1:%d", port)
	c := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if r, err := c.Get(url); err == nil {
			r.Body.Close()
			return url, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("%s did not answer on port %d within 30 s", bin, port)
}
