package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedWithin reads conn until the server closes it, failing the test
// if that takes longer than limit (the server kept the connection).
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err := io.ReadAll(conn)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept the connection open past %s", limit)
}

// putRequest is a complete raw PutItem request.
func putRequest(body string) string {
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nAuthorization: %s\r\nX-Amz-Date: 20260101T000000Z\r\nContent-Length: %d\r\n\r\n%s",
		placeholderAuthorization, len(body), body)
}

func TestSilentConnectionTimesOut(t *testing.T) {
	_, url := serveTest(t, ServerOptions{Limits: Limits{ReadHeaderTimeout: 100 * time.Millisecond}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	closedWithin(t, conn, 10*time.Second)
}

func TestSlowHeadersTimeOut(t *testing.T) {
	_, url := serveTest(t, ServerOptions{Limits: Limits{ReadHeaderTimeout: 150 * time.Millisecond}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	// A header line every 40 ms: each byte comes before the timeout
	// would strike a read, but the headers never end.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: localhost\r\n")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
			}
			if _, err := fmt.Fprintf(conn, "X-Slow-%d: x\r\n", i); err != nil {
				return
			}
		}
	}()
	closedWithin(t, conn, 10*time.Second)
}

func TestIdleKeptAliveConnectionTimesOut(t *testing.T) {
	_, url := serveTest(t, ServerOptions{Limits: Limits{IdleTimeout: 100 * time.Millisecond}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, putRequest(`{"TableName":"Nope","Item":{"pk":{"S":"a"}}}`))
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)
	// Then nothing: the connection is closed at its idle timeout.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF)
}

// TestOverran walks a connection through its states with the clock set
// by hand: each timeout counts from the start of its own phase (a
// request's first byte, the end of its headers, the last answer), never
// from the connection's opening.
func TestOverran(t *testing.T) {
	l := Limits{ReadHeaderTimeout: 10, ReadTimeout: 60, WriteTimeout: 70, IdleTimeout: 120}
	c := &limitConn{}
	c.idle.Store(true)
	c.since.Store(1000) // accepted
	assert.False(t, c.overran(1010, l))
	assert.True(t, c.overran(1011, l), "a new connection's headers are due ReadHeaderTimeout after it opened")
	c.first.Store(1005) // a byte of the first request
	assert.False(t, c.overran(1015, l))
	assert.True(t, c.overran(1016, l), "headers are due ReadHeaderTimeout after their first byte")
	// The headers are in at 1008: active, the body not yet read.
	c.since.Store(1008)
	c.used.Store(true)
	c.idle.Store(false)
	assert.False(t, c.overran(1065, l))
	assert.True(t, c.overran(1066, l), "the whole request is due ReadTimeout after its first byte")
	c.bodyDone.Store(true)
	assert.False(t, c.overran(1078, l), "once the body is in, ReadTimeout no longer applies")
	assert.True(t, c.overran(1079, l), "the answer is due WriteTimeout after the headers")
	// Answered at 1020: idle, kept alive.
	c.since.Store(1020)
	c.first.Store(0)
	c.bodyDone.Store(false)
	c.idle.Store(true)
	assert.False(t, c.overran(1140, l))
	assert.True(t, c.overran(1141, l), "a kept-alive connection may wait IdleTimeout for its next request")
	c.first.Store(1130)
	assert.False(t, c.overran(1140, l))
	assert.True(t, c.overran(1141, l))
}

func TestSweepEvery(t *testing.T) {
	l := Limits{}.withDefaults()
	assert.Equal(t, time.Second, l.sweepEvery())
	l.ReadTimeout = 200 * time.Millisecond
	assert.Equal(t, 25*time.Millisecond, l.sweepEvery())
	l.IdleTimeout = time.Millisecond
	assert.Equal(t, 5*time.Millisecond, l.sweepEvery())
}
