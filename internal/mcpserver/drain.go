package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Drain wraps a stream transport so that the end of its input ends the
// session only once every call read before it has been answered: the SDK
// cancels the calls in flight when its input ends, so a script that pipes
// its requests in (cardapio mcp < calls.jsonl) would otherwise get the
// first answers and lose the rest. An assistant keeps the stream open and
// sees no difference.
func Drain(t mcp.Transport) mcp.Transport { return drainTransport{t} }

type drainTransport struct{ mcp.Transport }

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d := &drainConn{Connection: c}
	d.idle = sync.NewCond(&d.mu)
	return d, nil
}

// drainConn counts the calls read and not yet answered.
type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	idle    *sync.Cond
	pending int
	closed  bool
}

func (d *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := d.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Request); ok && err == nil && r.IsCall() {
		d.mu.Lock()
		d.pending++
		d.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		stop := context.AfterFunc(ctx, d.wake)
		defer stop()
		d.mu.Lock()
		for d.pending > 0 && !d.closed && ctx.Err() == nil {
			d.idle.Wait()
		}
		d.mu.Unlock()
	}
	return msg, err
}

func (d *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := d.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		d.mu.Lock()
		d.pending--
		d.mu.Unlock()
		d.idle.Broadcast()
	}
	return err
}

func (d *drainConn) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.idle.Broadcast()
	return d.Connection.Close()
}

// wake unblocks a Read waiting for the answers when its context ends.
func (d *drainConn) wake() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.idle.Broadcast()
}
