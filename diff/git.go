package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
)

// gitTimeout bounds one git command: a revision of a local repository
// answers in milliseconds.
const gitTimeout = 30 * time.Second

// maxRevision bounds a revision's length: a branch name, a tag, a hash
// with a few ~ and ^, far below.
const maxRevision = 256

// CheckRevision refuses a git revision that could be read as an option
// or hold more than one argument's worth: empty, beginning with '-',
// holding a ':' (which would name another path), a space or a control
// character, or longer than maxRevision.
func CheckRevision(rev string) error {
	bad := func(why string) error { return input.Errorf("--base %q: %s", rev, why) }
	switch {
	case rev == "":
		return bad("want a git revision, such as origin/main")
	case len(rev) > maxRevision:
		return bad(fmt.Sprintf("longer than %d bytes", maxRevision))
	case strings.HasPrefix(rev, "-"):
		return bad("a revision does not begin with '-'")
	case strings.Contains(rev, ":"):
		return bad("a revision holds no ':' (the model's path is the head model's)")
	}
	for _, r := range rev {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return bad("a revision holds no space or control character")
		}
	}
	return nil
}

// AtRevision reads the model at path (the head model, a file of a git
// work tree) as it was at revision rev, with git show REV:PATH run in the
// work tree's root, PATH relative to it: a pull-request job compares
// with origin/main without a second checkout. It returns the name
// positions use ("REV:PATH") and the model's text, at most
// catalog.MaxInputBytes (a longer one is cut there and the catalog
// refuses it).
func AtRevision(ctx context.Context, path, rev string) (name string, data []byte, err error) {
	if err := CheckRevision(rev); err != nil {
		return "", nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, input.Errorf("--base: %s: %v", path, err)
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(r, filepath.Base(abs))
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", filepath.Dir(abs), "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", nil, input.Errorf("--base %s: %s is not in a git work tree", rev, path)
	}
	root := strings.TrimSpace(string(out))
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", nil, input.Errorf("--base %s: %s is outside the work tree %s", rev, path, root)
	}
	rel = filepath.ToSlash(rel)
	name = rev + ":" + rel
	// --end-of-options: nothing after it is an option, whatever the
	// revision looks like (CheckRevision has refused a leading '-' too).
	cmd := exec.CommandContext(ctx, "git", "-C", root, "show", "--end-of-options", name)
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("run git: %w", err)
	}
	data, rerr := io.ReadAll(io.LimitReader(stdout, catalog.MaxInputBytes+1))
	if len(data) > catalog.MaxInputBytes {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return "", nil, rerr
	case len(data) > catalog.MaxInputBytes:
		return name, data, nil // the catalog refuses it, with its limit
	case werr != nil:
		var xe *exec.ExitError
		msg := strings.TrimSpace(stderr.String())
		if errors.As(werr, &xe) && msg != "" {
			return "", nil, input.Errorf("--base: git show %s: %s", name, firstLine(msg))
		}
		return "", nil, fmt.Errorf("git show %s: %w", name, werr)
	}
	return name, data, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
