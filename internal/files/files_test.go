package files

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.txt")
	require.NoError(t, Write(p, []byte("one")))
	require.NoError(t, os.Chmod(p, 0o600))
	require.NoError(t, Write(p, []byte("two")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "a replaced file keeps its mode")
	assertOnly(t, dir, "r.txt")
}

func TestWriteDevice(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip(err)
	}
	require.NoError(t, Write("/dev/null", []byte("x")))
	st, err := os.Lstat("/dev/null")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/null is still a device")
}

// TestWriteThroughSymlink: a link to a regular file keeps the link and
// has its target replaced; a link to a device is written through.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "target.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link.md")
	require.NoError(t, os.Symlink("sub/target.md", link))
	require.NoError(t, Write(link, []byte("new")))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	assertOnly(t, filepath.Dir(target), "target.md")

	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink("sub/new.md", dangling))
	require.NoError(t, Write(dangling, []byte("fresh")))
	got, err = os.ReadFile(filepath.Join(dir, "sub", "new.md"))
	require.NoError(t, err)
	assert.Equal(t, "fresh", string(got))

	null := filepath.Join(dir, "null")
	require.NoError(t, os.Symlink("/dev/null", null))
	require.NoError(t, Write(null, []byte("x")))
	st, err = os.Lstat(null)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink)
}

// TestWriteStdout: /dev/stdout (a link to /proc/self/fd/1) reaches the
// process's standard output, here a file, and stays a link.
func TestWriteStdout(t *testing.T) {
	if os.Getenv("FILES_STDOUT_CHILD") != "" {
		if err := Write("/dev/stdout", []byte("through stdout\n")); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Exit(0)
	}
	if _, err := os.Lstat("/dev/stdout"); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteStdout$")
	cmd.Env = append(os.Environ(), "FILES_STDOUT_CHILD=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "through stdout")
	st, err := os.Lstat("/dev/stdout")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "/dev/stdout is still a link")
}

func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	require.NoError(t, Write(fifo, []byte("piped")))
	assert.Equal(t, "piped", string(<-got))
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeNamedPipe, "the FIFO is still a FIFO")
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	require.NoError(t, os.WriteFile(p, []byte("kept"), 0o644))
	w, err := Create(p)
	require.NoError(t, err)
	_, err = w.Write([]byte("half"))
	require.NoError(t, err)
	w.Abort()
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(got))
	assertOnly(t, dir, "a.json")
	assert.Error(t, Write(dir, []byte("x")), "a directory is not written")
}

// TestStaleTemporary: a temporary file of a killed writer is removed by
// the next write of the same file; one of a live writer, or a file of
// another name, is not.
func TestStaleTemporary(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := cmd.Process.Pid
	stale := filepath.Join(dir, ".m.yaml.cardapio-"+strconv.Itoa(dead)+"-123.tmp")
	live := filepath.Join(dir, ".m.yaml.cardapio-1-456.tmp") // init is alive
	other := filepath.Join(dir, ".other.cardapio-"+strconv.Itoa(dead)+"-1.tmp")
	for _, p := range []string{stale, live, other} {
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	require.NoError(t, Write(filepath.Join(dir, "m.yaml"), []byte("x")))
	assertOnly(t, dir, filepath.Base(live), "m.yaml", filepath.Base(other))
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	cases := map[string]string{
		dir:                         "a directory",
		"/dev/null":                 "a character device",
		fifo:                        "a pipe with no data",
		filepath.Join(dir, "none"):  "no such file",
		"":                          "an empty path",
		filepath.Join(dir, "empty"): "",
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644))
	for path, want := range cases {
		start := time.Now()
		_, err := ReadCapped(path, 10, "a test file")
		assert.Less(t, time.Since(start), 5*time.Second, path)
		if want == "" {
			assert.NoError(t, err, path)
			continue
		}
		var ie *InputError
		require.True(t, errors.As(err, &ie), "%s: %v", path, err)
		assert.Contains(t, err.Error(), want)
	}
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("x", 11)), 0o644))
	_, err := ReadCapped(big, 10, "a test file")
	assert.ErrorContains(t, err, "larger than 10 bytes: not a test file")
}

// TestOpenPipeDeadline: a pipe whose writer never ends is read until
// the deadline, then refused.
func TestOpenPipeDeadline(t *testing.T) {
	defer func(d time.Duration) { PipeDeadline = d }(PipeDeadline)
	PipeDeadline = 200 * time.Millisecond
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan struct{})
	defer close(done)
	opened := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
		if err == nil {
			defer f.Close()
		}
		close(opened)
		<-done
	}()
	<-opened
	start := time.Now()
	_, err := ReadCapped(fifo, 10, "a test file")
	assert.ErrorContains(t, err, "gave no end of input")
	assert.Less(t, time.Since(start), 5*time.Second)

	// A pipe with data is read.
	fifo2 := filepath.Join(t.TempDir(), "fifo2")
	require.NoError(t, syscall.Mkfifo(fifo2, 0o644))
	go func() {
		f, err := os.OpenFile(fifo2, os.O_WRONLY, 0)
		if err == nil {
			f.Write([]byte("data"))
			f.Close()
		}
	}()
	var got []byte
	for i := 0; i < 100 && len(got) == 0; i++ { // the writer may not have opened yet
		got, _ = ReadCapped(fifo2, 10, "a test file")
		if len(got) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	assert.Equal(t, "data", string(got))
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}

// TestWriteKeepsOwner: as root, a replaced file keeps its owner.
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	p := filepath.Join(t.TempDir(), "owned")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	require.NoError(t, os.Chown(p, 1234, 5678))
	require.NoError(t, Write(p, []byte("y")))
	st, err := os.Stat(p)
	require.NoError(t, err)
	sys := st.Sys().(*syscall.Stat_t)
	assert.Equal(t, uint32(1234), sys.Uid)
	assert.Equal(t, uint32(5678), sys.Gid)
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.yaml")
	require.NoError(t, WriteNew(p, []byte("one")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "one", string(got))
	err = WriteNew(p, []byte("two"))
	require.ErrorIs(t, err, fs.ErrExist, "an existing file is never replaced")
	got, _ = os.ReadFile(p)
	assert.Equal(t, "one", string(got))
	// A dangling symlink exists too: its target is not created.
	link := filepath.Join(dir, "link.yaml")
	require.NoError(t, os.Symlink(filepath.Join(dir, "target.yaml"), link))
	require.ErrorIs(t, WriteNew(link, []byte("x")), fs.ErrExist)
	_, err = os.Stat(filepath.Join(dir, "target.yaml"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 2, "no temporary file is left")
}
