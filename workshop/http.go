package workshop

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
)

//go:embed page
var pageFS embed.FS

// assets are the page's script and style, served from the binary: the
// page works with no network.
var assets = func() map[string][]byte {
	out := map[string][]byte{}
	for _, n := range []string{"app.js", "style.css"} {
		b, err := fs.ReadFile(pageFS, "page/"+n)
		if err != nil {
			panic(err)
		}
		out[n] = b
	}
	return out
}()

var tmpl = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"units":  units,
	"base":   filepath.Base,
	"usd":    usd,
	"pct":    func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + "%" },
	"join":   strings.Join,
	"mul100": func(x float64) float64 { return 100 * x },
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"clock": func(t time.Time) string { return t.Format("15:04:05") },
	"ms":    func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" },
}).ParseFS(pageFS, "page/page.html"))

// maxForm bounds a request body: a question's parameters or a page of
// what-ifs are a few kilobytes.
const maxForm = 64 << 10

// Handler is the page's HTTP handler: every request is checked for its
// Host and its token before any route sees it.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /assets/{name}", s.asset)
	mux.HandleFunc("POST /ask", s.askHandler)
	mux.HandleFunc("POST /whatif", s.whatIfHandler)
	mux.HandleFunc("POST /whatif/write", s.writeHandler)
	return s.guard(mux)
}

// cookie is the token's cookie, named by port: cookies do not tell ports
// apart, and two workshops may run side by side.
func (s *Server) cookie() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return "cardapio-workshop-" + strconv.Itoa(s.port)
}

// hostOK accepts only the loopback names of the port served: a page of
// another site whose name was rebound to 127.0.0.1 sends its own name.
func (s *Server) hostOK(host string) bool {
	s.mu.RLock()
	port := strconv.Itoa(s.port)
	s.mu.RUnlock()
	switch host {
	case "127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port:
		return true
	}
	return false
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !s.hostOK(r.Host) {
			http.Error(w, "refused: this server answers only to its loopback address (Host header)", http.StatusMisdirectedRequest)
			return
		}
		// A browser asks for an icon before it has the page: no content,
		// and no refusal logged against the page.
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		// A write must carry the token itself (the page's script sends
		// it): a cookie alone would let another site post a form.
		if r.Method != http.MethodGet {
			if !s.tokenOK(r.Header.Get("X-Cardapio-Token")) {
				http.Error(w, "refused: a token is needed (open the URL the command printed)", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" {
			if !s.tokenOK(q) {
				http.Error(w, "refused: wrong token (open the URL the command printed)", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookie(), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.URL.Path == "/" {
				// The token leaves the address bar and the history.
				http.Redirect(w, r, "/", http.StatusSeeOther)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		c, err := r.Cookie(s.cookie())
		if err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "refused: a token is needed (open the URL the command printed)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "page", newView(s.Snapshot(), s.token)); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, ok := assets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	ct := "text/css; charset=utf-8"
	if strings.HasSuffix(name, ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}

// push is one update of the page: the live sections and the controls,
// rendered.
type push struct {
	Gen      int               `json:"gen"`
	Seq      int               `json:"seq"`
	Full     bool              `json:"full"`
	Sections map[string]string `json:"sections"`
	Controls string            `json:"controls,omitempty"`
	Shape    string            `json:"shape,omitempty"`
}

// render renders a snapshot's update: when it is judged, the sections the
// verdict makes (only the status and the findings of a refused model);
// when its month and items are drawn, those and the controls, with the
// verdict's sections too when the page has not had them (judged gives
// the version whose verdict's sections it had). A section not sent stays
// on the page, marked as from its earlier version.
func (s *Server) render(snap *Snapshot, judged int) ([]byte, error) {
	v := newView(snap, s.token)
	var names []string
	if !snap.Full || judged < snap.Gen {
		names = []string{"status", "findings"}
		if snap.OK() {
			names = append(names, "map", "budgets", "peaks")
		}
	}
	if snap.Full && snap.OK() {
		names = append(names, "costs", "items")
	}
	p := push{Gen: snap.Gen, Seq: snap.Seq, Full: snap.Full, Sections: map[string]string{}}
	var b bytes.Buffer
	for _, n := range names {
		b.Reset()
		if err := tmpl.ExecuteTemplate(&b, n, v); err != nil {
			return nil, err
		}
		p.Sections[n] = b.String()
	}
	if snap.Full && snap.OK() {
		b.Reset()
		if err := tmpl.ExecuteTemplate(&b, "controls", v); err != nil {
			return nil, err
		}
		p.Controls, p.Shape = b.String(), v.Shape
	}
	return json.Marshal(p)
}

// events streams the page's updates as server-sent events: the page
// holds one connection and receives every new version of the model
// without a reload.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	since, _ := strconv.Atoi(r.URL.Query().Get("since"))
	// The page has the verdict's sections of the version it shows.
	judged, _ := strconv.Atoi(r.URL.Query().Get("gen"))
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	keep := time.NewTicker(20 * time.Second)
	defer keep.Stop()
	for {
		snap, changed := s.watch()
		if snap.Seq > since {
			b, err := s.render(snap, judged)
			if err != nil {
				return
			}
			judged = snap.Gen
			if _, err := fmt.Fprintf(w, "event: view\nid: %d\ndata: %s\n\n", snap.Seq, b); err != nil {
				return
			}
			fl.Flush()
			since = snap.Seq
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-keep.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// form reads a posted form, bounded.
func form(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return input.Errorf("the form cannot be read: %v", err)
	}
	if len(r.PostForm) > 512 {
		return input.Errorf("too many fields")
	}
	return nil
}

// fail answers an error: the user's input (400) or the server's (500).
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if input.Is(err) {
		code = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = tmpl.ExecuteTemplate(w, "error", err.Error())
}

func (s *Server) fragment(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func (s *Server) askHandler(w http.ResponseWriter, r *http.Request) {
	if err := form(w, r); err != nil {
		fail(w, err)
		return
	}
	snap := s.Snapshot()
	if !snap.OK() {
		fail(w, input.Errorf("the model as saved is refused: fix it first"))
		return
	}
	if snap.World == nil {
		fail(w, input.Errorf("the population of this version is still being drawn: run it again in a moment"))
		return
	}
	q := Question{Operation: r.PostForm.Get("op"), Variant: r.PostForm.Get("variant"), Seed: r.PostForm.Get("seed") == "on", Params: map[string]string{}}
	for k, vs := range r.PostForm {
		if n, ok := strings.CutPrefix(k, "p."); ok && len(vs) == 1 {
			q.Params[n] = vs[0]
		}
	}
	if !s.one(r) {
		return
	}
	defer func() { <-s.ask }()
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	a, err := snap.World.Ask(ctx, snap.Model, snap.Gate.Variants, q)
	if err != nil {
		fail(w, err)
		return
	}
	s.fragment(w, "answer", a)
}

// one waits for the server's one run at a time (a question, a what-if,
// a write-back): the page's work is bounded whatever is posted. false
// when the request ended first.
func (s *Server) one(r *http.Request) bool {
	select {
	case s.ask <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) edits(w http.ResponseWriter, r *http.Request, snap *Snapshot) ([]Edit, bool) {
	if err := form(w, r); err != nil {
		fail(w, err)
		return nil, false
	}
	if !snap.OK() {
		fail(w, input.Errorf("the model as saved is refused: fix it first"))
		return nil, false
	}
	edits, err := Edits(snap.Model, r.PostForm)
	if err != nil {
		fail(w, err)
		return nil, false
	}
	return edits, true
}

func (s *Server) whatIfHandler(w http.ResponseWriter, r *http.Request) {
	snap := s.Snapshot()
	edits, ok := s.edits(w, r, snap)
	if !ok {
		return
	}
	if !s.one(r) {
		return
	}
	defer func() { <-s.ask }()
	o, err := WhatIf(r.Context(), s.o.Load, snap, edits)
	if err != nil {
		fail(w, err)
		return
	}
	s.fragment(w, "whatif", o)
}

// writeHandler writes the what-ifs into the model file: the edits are
// made in the file's text as it is now (the room may have saved since),
// the result must load, and it replaces the file whole (internal/files).
// The watcher then shows it as any save.
func (s *Server) writeHandler(w http.ResponseWriter, r *http.Request) {
	snap := s.Snapshot()
	edits, ok := s.edits(w, r, snap)
	if !ok {
		return
	}
	if len(edits) == 0 {
		fail(w, input.Errorf("nothing to write: no what-if differs from the model"))
		return
	}
	if !s.one(r) {
		return
	}
	defer func() { <-s.ask }()
	text, err := s.read()
	if err != nil {
		fail(w, err)
		return
	}
	if string(text) != string(snap.Text) {
		fail(w, input.Errorf("the file changed since the page last read it: try the what-if again on the new version"))
		return
	}
	out, err := Apply(snap.Model, text, edits)
	if err != nil {
		fail(w, err)
		return
	}
	if _, err := s.o.Load(s.o.Path, out); err != nil {
		fail(w, input.Errorf("not written: the change makes the model invalid: %v", err))
		return
	}
	if err := files.Write(s.o.Path, out); err != nil {
		fail(w, err)
		return
	}
	if _, err := s.Reload(r.Context()); err != nil && !errors.Is(err, context.Canceled) {
		fail(w, err)
		return
	}
	s.fragment(w, "written", struct {
		Edits []Edit
		Path  string
	}{edits, s.o.Path})
}
