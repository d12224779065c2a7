package workshop

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// load is the commands' loader (internal/cli's parseModel).
func load(name string, data []byte) (*catalog.Model, error) {
	return catalog.ParseWith(name, data, catalog.Options{ItemSize: capacity.Default().ItemSize})
}

// running is a workshop serving a copy of a model in a folder of its own.
type running struct {
	s    *Server
	base string // http://127.0.0.1:port
	path string // the model's copy
	dir  string
}

func start(t *testing.T, model string) *running {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(model)
	require.NoError(t, err)
	path := filepath.Join(dir, "model.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	// A file beside the model, which no request may read.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("not for the page"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, Options{Path: path, Load: load, World: WorldOptions{Items: 120}, Log: os.Stderr})
	require.NoError(t, err)
	ln, err := s.Listen("127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	u, _ := url.Parse(s.URL())
	return &running{s: s, base: "http://" + u.Host, path: path, dir: dir}
}

func get(t *testing.T, c *http.Client, u string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func post(t *testing.T, r *running, path string, form url.Values, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.base+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("X-Cardapio-Token", token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// browser is a client that keeps cookies and does not follow redirects
// beyond what a browser would.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar}
}

func TestTokenRefusedWithout(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	c := browser(t)
	code, body := get(t, c, r.base+"/")
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, "token")
	assert.NotContains(t, body, "orders")
	code, _ = get(t, c, r.base+"/?token=wrong")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = get(t, c, r.base+"/?token="+r.s.Token()[:10])
	assert.Equal(t, http.StatusForbidden, code, "a prefix of the token is not the token")
	for _, p := range []string{"/events", "/assets/app.js"} {
		code, _ = get(t, c, r.base+p)
		assert.Equal(t, http.StatusForbidden, code, p)
	}
	// With the token the page opens, and the cookie carries it on.
	code, body = get(t, c, r.base+"/?token="+r.s.Token())
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Access patterns")
	code, _ = get(t, c, r.base+"/assets/app.js")
	assert.Equal(t, http.StatusOK, code)
	// A write needs the token in its header, not a cookie alone.
	code, _ = post(t, r, "/ask", url.Values{"op": {"GetOrder"}}, "")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = post(t, r, "/ask", url.Values{"op": {"GetOrder"}}, "x"+r.s.Token()[1:])
	assert.Equal(t, http.StatusForbidden, code)
}

func TestHostRefused(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	c := browser(t)
	u, _ := url.Parse(r.base)
	for _, host := range []string{"evil.example:" + u.Port(), "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:" + u.Port()} {
		code, _ := get(t, c, r.base+"/?token="+r.s.Token(), "Host", host)
		assert.Equal(t, http.StatusMisdirectedRequest, code, host)
	}
	for _, host := range []string{"localhost:" + u.Port(), "127.0.0.1:" + u.Port()} {
		code, _ := get(t, browser(t), r.base+"/?token="+r.s.Token(), "Host", host)
		assert.Equal(t, http.StatusOK, code, host)
	}
}

func TestPathTraversalRefused(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	c := browser(t)
	code, _ := get(t, c, r.base+"/?token="+r.s.Token())
	require.Equal(t, http.StatusOK, code)
	for _, p := range []string{"/assets/../secret.txt", "/assets/..%2fsecret.txt", "/assets/%2e%2e%2fsecret.txt", "/assets/..%2f..%2fmodel.yaml",
		"/secret.txt", "/model.yaml", "/assets/", "/assets/page.html", "/assets/..%5csecret.txt", "/../secret.txt", "/assets/%2fetc%2fpasswd"} {
		code, body := get(t, c, r.base+p)
		assert.Contains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMovedPermanently}, code, p)
		assert.NotContains(t, body, "not for the page", p)
		assert.NotContains(t, body, "formatVersion", p)
	}
}

func TestAddrLoopbackOnly(t *testing.T) {
	for _, a := range []string{"127.0.0.1:0", "localhost:8080", "[::1]:0", "127.0.0.2:9"} {
		assert.NoError(t, CheckAddr(a), a)
	}
	for _, a := range []string{"0.0.0.0:0", ":8080", "192.168.1.2:80", "example.com:80", "127.0.0.1", "127.0.0.1:99999", "[::]:0"} {
		assert.Error(t, CheckAddr(a), a)
	}
}

func TestAskHostileInput(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	tok := r.s.Token()
	for _, f := range []url.Values{
		{"op": {"NoSuchOp"}},
		{"op": {strings.Repeat("x", 5000)}},
		{"op": {"GetOrder"}, "p.nope": {"1"}},
		{"op": {"GetOrder"}, "p.orderId": {strings.Repeat("a", 2000)}},
		{"op": {"GetOrder"}, "variant": {"nope"}},
	} {
		code, body := post(t, r, "/ask", f, tok)
		assert.Equal(t, http.StatusBadRequest, code, f)
		assert.Contains(t, body, "Refused", f)
	}
	code, body := post(t, r, "/whatif", url.Values{"shards.NoIndex": {"3"}}, tok)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "no")
	for _, v := range []string{"0", "-1", "1001", "1e9", "x"} {
		code, _ = post(t, r, "/whatif", url.Values{"shards.QueueByShard": {v}}, tok)
		assert.Equal(t, http.StatusBadRequest, code, v)
	}
}

func TestAskRunsOnEngine(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	snap := r.s.Snapshot()
	require.True(t, snap.OK())
	op := snap.Model.Operation("GetOrder")
	require.NotNil(t, op)
	sg := snap.World.Suggest(op)
	require.NotEmpty(t, sg)
	f := url.Values{"op": {"GetOrder"}}
	for k, v := range sg[0].Values {
		f.Set("p."+k, v)
	}
	code, body := post(t, r, "/ask", f, r.s.Token())
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "applied")
	assert.Contains(t, body, `data-rru="0.5"`)
	assert.Contains(t, body, sg[0].Values["orderId"])
}

// TestWriteBackKeepsComments: a what-if written into the file changes its
// values and nothing else: every comment and every other line stays.
func TestWriteBackKeepsComments(t *testing.T) {
	r := start(t, "../model.yaml")
	before, err := os.ReadFile(r.path)
	require.NoError(t, err)
	snap := r.s.Snapshot()
	require.True(t, snap.OK())
	var shard string
	for _, x := range snap.Model.Indexes {
		if x.Shards != nil {
			shard = x.Name
			break
		}
	}
	require.NotEmpty(t, shard)
	code, body := post(t, r, "/whatif/write", url.Values{"shards." + shard: {"32"}, "projection." + snap.Model.Indexes[len(snap.Model.Indexes)-1].Name: {"ALL"}}, r.s.Token())
	require.Equal(t, http.StatusOK, code, body)
	after, err := os.ReadFile(r.path)
	require.NoError(t, err)
	comments := func(b []byte) []string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if i := strings.Index(l, "# "); i >= 0 && strings.TrimSpace(l[:i]) == "" {
				out = append(out, l)
			}
		}
		return out
	}
	assert.Equal(t, comments(before), comments(after))
	bl, al := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	require.Equal(t, len(bl), len(al))
	var changed []string
	for i := range bl {
		if bl[i] != al[i] {
			changed = append(changed, al[i])
		}
	}
	assert.Len(t, changed, 3, "the shard count, the hash modulo following it, and the projection: %q", changed)
	m, err := load(r.path, after)
	require.NoError(t, err)
	assert.Equal(t, 32, m.Index(shard).Shards.Count)
	// The page shows the new version.
	assert.Eventually(t, func() bool { return r.s.Snapshot().Gen >= 2 && r.s.Snapshot().OK() }, 30*time.Second, 10*time.Millisecond)
	// Nothing else was written in the folder.
	es, err := os.ReadDir(r.dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"model.yaml", "secret.txt"}, names)
}

// TestFollowsRenameReplace: an editor that writes a temporary file and
// renames it over the model is followed, as one that writes in place.
func TestFollowsRenameReplace(t *testing.T) {
	r := start(t, "../examples/orders/model.yaml")
	data, err := os.ReadFile(r.path)
	require.NoError(t, err)
	tmp := filepath.Join(r.dir, ".model.yaml.swp")
	require.NoError(t, os.WriteFile(tmp, append([]byte("# renamed over\n"), data...), 0o644))
	require.NoError(t, os.Rename(tmp, r.path))
	assert.Eventually(t, func() bool { return r.s.Snapshot().Gen == 2 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, os.WriteFile(r.path, []byte("name: [broken"), 0o644))
	assert.Eventually(t, func() bool { s := r.s.Snapshot(); return s.Gen == 3 && len(s.Errors) > 0 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, os.WriteFile(r.path, data, 0o644))
	assert.Eventually(t, func() bool { s := r.s.Snapshot(); return s.Gen == 4 && s.OK() }, 30*time.Second, 5*time.Millisecond)
}
