// Package workshop is cardapio workshop: a local web page that follows a
// model file as a team edits it and shows, on every save, its findings,
// its access-pattern map, its items as the tables and indexes hold them,
// questions and operations run on the embedded engine, the month's cost,
// the budgets and the hottest partitions, and what-ifs that can be written
// back into the file.
//
// The page is served on loopback only, behind a random token (as notebook
// servers do) and a Host check (a DNS-rebinding page cannot name the
// server), and reads no file but the model.
package workshop

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
)

// Options configure a workshop server.
type Options struct {
	// Path is the model file followed.
	Path string
	// Load resolves the model's text (the command's loader).
	Load Loader
	// World sizes the population.
	World WorldOptions
	// Token is the URL's secret; "" draws a random one.
	Token string
	// Debounce is how long the file must stay quiet after a change
	// before it is read again; 0 is DefaultDebounce.
	Debounce time.Duration
	// Log receives one line per reload; nil discards them.
	Log io.Writer
}

// DefaultDebounce gathers the several events one save makes (an editor's
// truncate and write, or its temporary file renamed over the model).
const DefaultDebounce = 25 * time.Millisecond

// Server serves the workshop page of one model.
type Server struct {
	o     Options
	token string
	dir   string

	mu      sync.RWMutex
	reload  sync.Mutex // one reload at a time: the watcher's or a write-back's
	snap    *Snapshot
	changed chan struct{} // closed and replaced when snap changes
	port    int
	watcher *fsnotify.Watcher

	// ask lets one run (question, what-if, write-back) at a time: a
	// room has one projector.
	ask chan struct{}
}

// New reads and checks the model and returns its server, not yet
// serving.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Load == nil {
		return nil, errors.New("workshop: no model loader")
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, input.Errorf("model %s: %v", o.Path, err)
	}
	s := &Server{o: o, token: o.Token, dir: filepath.Dir(abs), changed: make(chan struct{}), ask: make(chan struct{}, 1)}
	if s.token == "" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		s.token = hex.EncodeToString(b[:])
	}
	text, err := s.read()
	if err != nil {
		return nil, input.Wrap(err)
	}
	snap := Check(o.Load, o.Path, text).Complete(ctx, o.World)
	snap.Gen, snap.Seq = 1, 1
	s.snap = snap
	return s, nil
}

// read reads the model's text, capped as every model is.
func (s *Server) read() ([]byte, error) {
	return files.ReadCapped(s.o.Path, catalog.MaxInputBytes, "a model")
}

// Snapshot returns the version the page shows.
func (s *Server) Snapshot() *Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap
}

// Token is the URL's secret.
func (s *Server) Token() string { return s.token }

// URL is the address to open, token included.
func (s *Server) URL() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/?token=" + s.token
}

// Reload reads the file again and, when its text changed, checks it and
// tells every page: the verdict first, then the month and the items. It
// reports whether a new version was made.
func (s *Server) Reload(ctx context.Context) (bool, error) {
	s.reload.Lock()
	defer s.reload.Unlock()
	text, err := s.read()
	if err != nil {
		return false, err
	}
	cur := s.Snapshot()
	if string(cur.Text) == string(text) {
		return false, nil
	}
	snap := Check(s.o.Load, s.o.Path, text)
	s.publish(snap, cur.Gen+1)
	snap = snap.Complete(ctx, s.o.World)
	s.publish(snap, cur.Gen+1)
	verdict := "ok"
	switch {
	case len(snap.Errors) > 0:
		verdict = fmt.Sprintf("%d errors", len(snap.Errors))
	case snap.Problem != "":
		verdict = snap.Problem
	case !snap.Gate.OK():
		verdict = snap.Gate.Summary()
	}
	fmt.Fprintf(s.o.Log, "version %d checked in %s: %s\n", snap.Gen, snap.Took.Round(time.Millisecond), verdict)
	return true, nil
}

// publish makes snap the version shown and wakes every page.
func (s *Server) publish(snap *Snapshot, gen int) {
	s.mu.Lock()
	snap.Gen, snap.Seq = gen, s.snap.Seq+1
	s.snap = snap
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// watch returns the channel closed at the next change.
func (s *Server) watch() (*Snapshot, <-chan struct{}) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap, s.changed
}

// CheckAddr refuses an address that is not on loopback: the page shows
// the model and runs what it asks, for the people in front of this
// machine only.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return input.Errorf("--addr %q: want host:port, such as 127.0.0.1:0", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return input.Errorf("--addr %q: the port must be a number from 0 to 65535", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return input.Errorf("--addr %q: the workshop listens on loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// Listen listens on addr (CheckAddr's loopback) for Serve, and sets the
// port the Host check and the URL name.
func (s *Server) Listen(addr string) (net.Listener, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, input.Errorf("--addr %s: %v", addr, err)
	}
	s.bind(ln)
	if _, err := s.watching(); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// watching returns the folder's watch, started at the first call: by
// Listen, so that a save made once the address is printed is seen.
func (s *Server) watching() (*fsnotify.Watcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watcher == nil {
		w, err := s.startWatch()
		if err != nil {
			return nil, err
		}
		s.watcher = w
	}
	return s.watcher, nil
}

func (s *Server) bind(ln net.Listener) {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		s.mu.Lock()
		s.port = a.Port
		s.mu.Unlock()
	}
}

// Serve serves the page on ln and follows the file until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.bind(ln)
	w, err := s.watching()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	werr := make(chan error, 1)
	go func() { werr <- s.follow(ctx, w) }()
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer c()
		_ = hs.Shutdown(sctx)
	}()
	err = hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	cancel()
	if werr := <-werr; err == nil && werr != nil && !errors.Is(werr, context.Canceled) {
		err = werr
	}
	return err
}
