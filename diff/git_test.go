package diff

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
)

// gitRepo makes a work tree holding model.yaml committed as base, then
// changed to head, and returns the model's path.
func gitRepo(t *testing.T, base, head []byte) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	git("init", "-q")
	path := filepath.Join(dir, "models", "model.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, base, 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "base")
	require.NoError(t, os.WriteFile(path, head, 0o644))
	return path
}

func TestAtRevision(t *testing.T) {
	base, err := os.ReadFile("testdata/parking/base.yaml")
	require.NoError(t, err)
	head, err := os.ReadFile("testdata/parking/head.yaml")
	require.NoError(t, err)
	path := gitRepo(t, base, head)
	name, data, err := AtRevision(context.Background(), path, "HEAD")
	require.NoError(t, err)
	assert.Equal(t, "HEAD:models/model.yaml", name)
	assert.Equal(t, base, data)
	m, err := catalog.Parse(name, data)
	require.NoError(t, err)
	assert.Equal(t, "parking", m.Name)

	// An unknown revision is the user's error, told by git.
	_, _, err = AtRevision(context.Background(), path, "no-such-branch")
	require.Error(t, err)
	assert.True(t, input.Is(err), "%v", err)
	// Outside a work tree.
	out := filepath.Join(t.TempDir(), "model.yaml")
	require.NoError(t, os.WriteFile(out, head, 0o644))
	_, _, err = AtRevision(context.Background(), out, "HEAD")
	assert.True(t, input.Is(err), "%v", err)
}

// A revision is one argument, never an option, whatever it holds.
func TestHostileRevisions(t *testing.T) {
	base, err := os.ReadFile("testdata/parking/base.yaml")
	require.NoError(t, err)
	path := gitRepo(t, base, base)
	marker := filepath.Join(filepath.Dir(path), "written")
	for _, rev := range []string{
		"", "-", "--output=" + marker, "-o" + marker, "--help", "HEAD:../../etc/passwd", "HEAD model.yaml",
		"HEAD\nHEAD", "HEAD\x00", "HEAD\t", strings.Repeat("a", 300), "@{-1}\r", "HEAD\u00a0",
	} {
		_, _, err := AtRevision(context.Background(), path, rev)
		require.Error(t, err, "%q", rev)
		assert.True(t, input.Is(err), "%q: %v", rev, err)
	}
	_, err = os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "a revision wrote a file")
}

// A model at a revision larger than the catalog reads is cut at the
// limit and refused by the catalog, not read whole.
func TestRevisionBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("commits an 11 MB file")
	}
	big := bytes.Repeat([]byte("# padding line of a model far too large\n"), catalog.MaxInputBytes/40+1000)
	path := gitRepo(t, big, []byte("x"))
	name, data, err := AtRevision(context.Background(), path, "HEAD")
	require.NoError(t, err)
	assert.Len(t, data, catalog.MaxInputBytes+1)
	_, err = catalog.Parse(name, data)
	assert.Error(t, err)
}

func FuzzCheckRevision(f *testing.F) {
	for _, s := range []string{"origin/main", "HEAD~1", "v1.2.3", "-x", "--output=x", "a:b", "a b", "", "HEAD^{commit}", "@{upstream}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rev string) {
		if CheckRevision(rev) != nil {
			return
		}
		if rev == "" || rev[0] == '-' || strings.Contains(rev, ":") || len(rev) > maxRevision {
			t.Fatalf("accepted %q", rev)
		}
		for _, r := range rev {
			if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
				t.Fatalf("accepted %q", rev)
			}
		}
	})
}

func TestCheckRevisionAccepts(t *testing.T) {
	for _, rev := range []string{"origin/main", "HEAD~1", "v1.2.3", "HEAD^{commit}", "@{upstream}", "a1b2c3d", "feature/diff-x"} {
		assert.NoError(t, CheckRevision(rev), rev)
	}
}
