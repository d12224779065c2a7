package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits bound what a Server holds for its clients, so that no client,
// however slow, large or numerous its requests, can take the process's
// memory or descriptors. The zero value of each field means its default.
type Limits struct {
	// MaxInflight caps the memory requests take at once, across every
	// connection: their bodies, read as they arrive in buffers grown as
	// they fill (never reserved from Content-Length up front), and the
	// decoded form of each body, counted as large again. A request that
	// would take the total over the cap is refused with HTTP 503
	// ServiceUnavailable, which SDKs retry, and its connection closed.
	// Default DefaultMaxInflight.
	MaxInflight int64
	// MaxConnections caps open client connections. When the cap is
	// reached, the connection idle the longest (between requests, or
	// opened without sending one) is closed to make room; with none idle,
	// the new connection is answered 503 and closed. Default: 4,096, or
	// the process's descriptor limit less DescriptorReserve when that is
	// lower.
	MaxConnections int
	// ReadHeaderTimeout is how long a client may take to send a request's
	// headers; ReadTimeout the whole request, body included; WriteTimeout
	// how long answering may take, from the end of the headers; IdleTimeout
	// how long a kept-alive connection may wait for its next request (a
	// new connection, ReadHeaderTimeout for its first). They are kept by
	// a sweeper that looks at the connections every eighth of the
	// shortest (at least every second), so a connection may outlive its
	// timeout by that much.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout is how long Serve waits, once its context ends, for
	// requests in progress to finish before closing their connections.
	ShutdownTimeout time.Duration
}

// The default limits.
const (
	DefaultMaxInflight       = 512 << 20
	DefaultMaxConnections    = 4096
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 10 * time.Second
	// DescriptorReserve is what the default connection cap leaves of the
	// descriptor limit for the listener, files and the runtime.
	DescriptorReserve = 64
	// DataDescriptorsPerSpace is what a space kept in a data directory
	// holds open (its lock and log segment) or opens for a moment (a
	// snapshot being written, the next segment, the directory synced).
	// A server keeping data leaves that much more of the descriptor
	// limit per space it may open (DataDescriptorReserve): otherwise
	// idle connections could take the descriptors the log needs, and a
	// segment that cannot be created stops every write.
	DataDescriptorsPerSpace = 5
	// DefaultMaxSpaces is how many regions and accounts a server serves
	// by default (ServerOptions.MaxSpaces).
	DefaultMaxSpaces = 64
)

// DataDescriptorReserve is what the default connection cap of a server
// keeping data in a directory leaves of the descriptor limit: the
// DescriptorReserve and, for each of its spaces, DataDescriptorsPerSpace.
func DataDescriptorReserve(spaces int) int {
	return DescriptorReserve + DataDescriptorsPerSpace*spaces
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.MaxInflight <= 0 {
		l.MaxInflight = DefaultMaxInflight
	}
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultConnections()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&l.ReadTimeout, DefaultReadTimeout)
	def(&l.WriteTimeout, DefaultWriteTimeout)
	def(&l.IdleTimeout, DefaultIdleTimeout)
	def(&l.ShutdownTimeout, DefaultShutdownTimeout)
	return l
}

// DefaultConnections is the default connection cap: DefaultMaxConnections,
// or the descriptor limit less DescriptorReserve when that is lower.
func DefaultConnections() int { return DefaultConnectionsReserving(DescriptorReserve) }

// DefaultConnectionsReserving is DefaultMaxConnections, or the
// descriptor limit less reserve when that is lower, but never below a
// quarter of the limit (at least 1): a limit too low for the whole
// reserve still serves clients.
func DefaultConnectionsReserving(reserve int) int {
	n := DefaultMaxConnections
	if fds, ok := DescriptorLimit(); ok && int64(fds)-int64(reserve) < int64(n) {
		n = max(int(int64(fds)-int64(reserve)), int(fds/4), 1)
	}
	return n
}

// DescriptorLimit is the process's limit of open files (the soft limit,
// which the Go runtime raises to the hard limit at start).
func DescriptorLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return rl.Cur, true
}

// AddressSpace reports the process's address-space limit (ulimit -v,
// prlimit --as) when one is set, and the address space the process has
// already mapped (VmSize; 0 where the system does not say). Such a limit
// is no memory cap for a Go program: the runtime reserves about a
// gigabyte and a half at start that it never touches, and an allocation
// past the limit is a fatal error, not an error the server can answer.
func AddressSpace() (limit, mapped uint64, ok bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) {
		return 0, 0, false
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(l, "VmSize:"); found {
				kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				mapped = kb << 10
			}
		}
	}
	return rl.Cur, mapped, true
}

// budget counts the bytes of request bodies held, against a cap.
type budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// take reserves n bytes, or reports false and reserves nothing.
func (b *budget) take(n int64) bool {
	if b == nil {
		return true
	}
	u := b.used.Add(n)
	if u > b.limit {
		b.used.Add(-n)
		return false
	}
	for p := b.peak.Load(); u > p && !b.peak.CompareAndSwap(p, u); p = b.peak.Load() {
	}
	return true
}

func (b *budget) give(n int64) {
	if b != nil {
		b.used.Add(-n)
	}
}

// errBusy refuses a request that the in-flight cap cannot hold.
var errBusy = &Error{Type: ErrServiceUnavailable, Message: "The service is currently unavailable or busy."}

// errTooLarge refuses a body over maxBody.
var errTooLarge = &Error{Type: ErrSerialization, Message: "request body too large"}

// bodies recycles request buffers: decoding copies what it keeps.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// pooledCap is the largest buffer put back in the pool.
const pooledCap = 64 << 10

// body is a request body read into a buffer charged to a budget.
type body struct {
	buf     *[]byte
	charged int64
	b       *budget
}

// reserve charges n more bytes to the body (what decoding it will hold),
// reporting false when the budget cannot take them.
func (bd *body) reserve(n int64) bool {
	if !bd.b.take(n) {
		return false
	}
	bd.charged += n
	return true
}

// release returns the buffer's charge and, when small, the buffer.
func (bd *body) release() {
	if bd.buf == nil {
		return
	}
	bd.b.give(bd.charged)
	bd.charged = 0
	if cap(*bd.buf) <= pooledCap {
		*bd.buf = (*bd.buf)[:0]
		bodies.Put(bd.buf)
	}
	bd.buf = nil
}

// readBody reads a request body as it arrives, growing its buffer by
// doubling up to the announced Content-Length, each growth charged to the
// budget first: a client that announces 32 MiB and sends nothing holds
// one small pooled buffer. The returned body must be released, even on
// error.
func readBody(r *http.Request, b *budget) (*body, error) {
	bd := &body{}
	return bd, bd.read(r, b)
}

// read is readBody into bd, a zero body.
func (bd *body) read(r *http.Request, b *budget) error {
	bd.b = b
	bp := bodies.Get().(*[]byte)
	if !b.take(int64(cap(*bp))) {
		bodies.Put(bp)
		return errBusy
	}
	bd.buf, bd.charged = bp, int64(cap(*bp))
	want := r.ContentLength
	if want > maxBody {
		return errTooLarge
	}
	buf := (*bp)[:0]
	for want < 0 || int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			n := 2 * cap(buf)
			if want > 0 && int64(n) > want {
				n = int(want)
			}
			if n > maxBody+1 {
				n = maxBody + 1
			}
			if !b.take(int64(n)) {
				return errBusy
			}
			grown := make([]byte, len(buf), n)
			copy(grown, buf)
			bd.release() // gives back the old buffer's charge, pools it when small
			bd.buf, bd.charged = &grown, int64(n)
			buf = grown
		}
		m, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		*bd.buf = buf
		if len(buf) > maxBody {
			return errTooLarge
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Serve answers requests on ln with the server's limits until ctx ends,
// then stops accepting, lets requests in progress finish for up to
// ShutdownTimeout, and closes what remains. It returns nil after a
// shutdown, or the listener's error.
//
// The timeouts are kept by the listener's sweeper (connLimit.sweep), not
// by net/http's: given timeouts, net/http sets a read or write deadline
// on the socket six times a request, each a timer of the runtime's
// moved, which cost about 5% of the server's CPU a put. The sweeper
// looks at every connection a few times a timeout and sets a deadline
// in the past on those that overran, which fails their reads and writes
// as net/http's deadlines would.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	l := s.limits
	srv := &http.Server{
		Handler:        s,
		MaxHeaderBytes: 64 << 10,
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if !s.opts.bare {
		cl := &connLimit{Listener: ln, max: l.MaxConnections, limits: l, conns: map[*limitConn]struct{}{}}
		s.conns.Store(cl)
		srv.ConnState = cl.state
		srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }
		stop := make(chan struct{})
		swept := make(chan struct{})
		go func() { defer close(swept); cl.sweep(stop) }()
		defer func() { close(stop); <-swept }()
		ln = cl
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), l.ShutdownTimeout)
		defer cancel()
		err := srv.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
			if err == nil {
				err = fmt.Errorf("requests still in progress after %s were cut off", l.ShutdownTimeout)
			}
		}
		<-done
		return err
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// connKey is the context key of a request's connection (a *limitConn
// under Serve).
type connKey struct{}

// bodyRead notes that the request of r has its whole body: from then on
// ReadTimeout no longer applies to it (WriteTimeout does).
func bodyRead(r *http.Request) {
	if lc, ok := r.Context().Value(connKey{}).(*limitConn); ok {
		lc.bodyDone.Store(true)
	}
}

// ConnStats are a serving Server's connection figures.
type ConnStats struct {
	Open, Active     int   // open now, and of them in a request
	Evicted, Refused int64 // closed idle to make room; answered 503 for want of it
}

// Conns reports the connections of the listener Serve runs on (zero
// before Serve).
func (s *Server) Conns() ConnStats {
	cl := s.conns.Load()
	if cl == nil {
		return ConnStats{}
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	st := ConnStats{Open: len(cl.conns), Evicted: cl.evicted.Load(), Refused: cl.refused.Load()}
	for c := range cl.conns {
		if !c.idle.Load() {
			st.Active++
		}
	}
	return st
}

// connLimit is a listener that keeps at most max connections open,
// closing the longest idle one to make room. The set of connections
// changes under mu when one opens or closes; a connection's idleness is
// kept in the connection itself, so that the requests of a kept-alive
// connection take no lock.
type connLimit struct {
	net.Listener
	max    int
	limits Limits

	mu    sync.Mutex
	conns map[*limitConn]struct{}
	// refused counts connections answered 503 for want of room; evicted
	// those closed idle to make room.
	refused, evicted atomic.Int64
}

// limitConn is a connection of a connLimit. Its state, which the
// sweeper reads, changes with the connection's (connLimit.state) and its
// first read of a request; its deadlines are set by net/http and, on
// those that overran a timeout, by the sweeper.
type limitConn struct {
	net.Conn
	idle     atomic.Bool  // between requests, or not yet sending one
	used     atomic.Bool  // it has served a request
	since    atomic.Int64 // when it last became idle or active, in Unix nanoseconds
	first    atomic.Int64 // when the first byte of its next request came (0: none yet)
	bodyDone atomic.Bool  // the request in progress has its whole body
	expired  atomic.Bool  // a timeout ran out: its deadlines stay in the past
	// noRead and noWrite say that the socket has no read (write)
	// deadline, so that net/http clearing one again, as it does several
	// times a request, costs nothing.
	noRead, noWrite atomic.Bool
}

// past is a deadline already gone.
var past = time.Unix(1, 0)

func (c *limitConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && c.idle.Load() && c.first.Load() == 0 {
		c.first.Store(time.Now().UnixNano())
	}
	return n, err
}

func (c *limitConn) SetReadDeadline(t time.Time) error {
	if c.expired.Load() {
		t = past
	} else if t.IsZero() && c.noRead.Load() {
		return nil
	}
	c.noRead.Store(t.IsZero())
	return c.Conn.SetReadDeadline(t)
}

func (c *limitConn) SetWriteDeadline(t time.Time) error {
	if c.expired.Load() {
		t = past
	} else if t.IsZero() && c.noWrite.Load() {
		return nil
	}
	c.noWrite.Store(t.IsZero())
	return c.Conn.SetWriteDeadline(t)
}

func (c *limitConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// expire ends a connection that overran a timeout: its reads and writes
// fail from now on as a deadline's do.
func (c *limitConn) expire() {
	c.expired.Store(true)
	_ = c.Conn.SetReadDeadline(past)
	_ = c.Conn.SetWriteDeadline(past)
}

// overran reports whether c has overrun one of the timeouts at now (Unix
// nanoseconds): a new connection's first headers ReadHeaderTimeout after
// it opened, a kept-alive one's next request IdleTimeout after the last;
// headers ReadHeaderTimeout after their first byte, the whole request
// ReadTimeout; the answer WriteTimeout after the headers.
func (c *limitConn) overran(now int64, l Limits) bool {
	// idle is read first: state stores it last, so that since and first
	// are at least as new as the state it shows.
	idle := c.idle.Load()
	since := now - c.since.Load()
	if idle {
		if f := c.first.Load(); f != 0 {
			return now-f > int64(l.ReadHeaderTimeout) || now-f > int64(l.ReadTimeout)
		}
		if c.used.Load() {
			return since > int64(l.IdleTimeout)
		}
		return since > int64(l.ReadHeaderTimeout)
	}
	if since > int64(l.WriteTimeout) {
		return true
	}
	f := c.first.Load()
	return !c.bodyDone.Load() && f != 0 && now-f > int64(l.ReadTimeout)
}

// sweepEvery is how often the sweeper looks at the connections: an
// eighth of the shortest timeout, between 5 ms and a second, so that a
// timeout is kept to within an eighth of it (or a second).
func (l Limits) sweepEvery() time.Duration {
	d := min(l.ReadHeaderTimeout, l.ReadTimeout, l.WriteTimeout, l.IdleTimeout) / 8
	return min(max(d, 5*time.Millisecond), time.Second)
}

// sweep expires, until stop is closed, the connections that overran a
// timeout.
func (l *connLimit) sweep(stop <-chan struct{}) {
	t := time.NewTicker(l.limits.sweepEvery())
	defer t.Stop()
	var over []*limitConn
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		now := time.Now().UnixNano()
		over = over[:0]
		l.mu.Lock()
		for c := range l.conns {
			if !c.expired.Load() && c.overran(now, l.limits) {
				over = append(over, c)
			}
		}
		l.mu.Unlock()
		for _, c := range over {
			c.expire()
		}
	}
}

// busyResponse answers a connection there is no room for.
var busyResponse = func() []byte {
	const b = `{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailable","message":"The service is currently unavailable or busy: too many open connections."}`
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/x-amz-json-1.0\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(b)) + "\r\n\r\n" + b)
}()

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitConn{Conn: c}
		lc.idle.Store(true)
		lc.since.Store(time.Now().UnixNano())
		l.mu.Lock()
		if len(l.conns) >= l.max {
			var oldest *limitConn
			for oc := range l.conns {
				if oc.idle.Load() && (oldest == nil || oc.since.Load() < oldest.since.Load()) {
					oldest = oc
				}
			}
			if oldest == nil {
				l.mu.Unlock()
				l.refused.Add(1)
				_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
				_, _ = c.Write(busyResponse)
				_ = c.Close()
				continue
			}
			delete(l.conns, oldest)
			l.evicted.Add(1)
			// Closing makes the server's goroutine for it end; the
			// connection no longer counts from now.
			_ = oldest.Close()
		}
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		// No deadline is set on an accepted socket.
		lc.noRead.Store(true)
		lc.noWrite.Store(true)
		return lc, nil
	}
}

// state follows connections through http.Server.ConnState.
func (l *connLimit) state(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	switch st {
	case http.StateClosed, http.StateHijacked:
		l.mu.Lock()
		delete(l.conns, lc)
		l.mu.Unlock()
	case http.StateActive:
		now := time.Now().UnixNano()
		if lc.first.Load() == 0 {
			lc.first.Store(now)
		}
		lc.since.Store(now)
		lc.used.Store(true)
		lc.idle.Store(false)
	case http.StateIdle:
		lc.since.Store(time.Now().UnixNano())
		lc.first.Store(0)
		lc.bodyDone.Store(false)
		lc.idle.Store(true)
	}
}
