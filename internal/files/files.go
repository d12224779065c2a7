// Package files is the one way cardapio reads the files its users name
// and writes the files it is told to write.
//
// Reading: a path names a regular file or a pipe (`<(…)`, /dev/stdin
// fed by a pipe); a directory, a device or a socket is refused, and a
// pipe is read with a deadline, so a FIFO nobody writes cannot hang a
// command. What is read is capped by the caller.
//
// Writing: a command writes to what the path is. A regular file (or a
// new path) is replaced whole or not at all: a temporary file beside it,
// synced, renamed over it, the directory synced. Anything else (/dev/null,
// a pipe, /dev/stdout, a symlink to one of those) is written in place and
// never replaced; a symlink to a regular file keeps the link and has its
// target replaced.
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PipeDeadline bounds how long a pipe is read: a FIFO whose writer
// stalls is refused when it runs out rather than hanging the command.
var PipeDeadline = 30 * time.Second

// InputError is a path that cannot be read as an input file: missing,
// not a file, a pipe with nothing in it, over its cap. Commands exit 2
// on it.
type InputError struct {
	Path string
	Err  error // why, without the path
}

func (e *InputError) Error() string { return "read " + e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Reason is why err's path could not be read, without the path, for a
// caller that says the path its own way ("read model PATH: ...").
func Reason(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func inputf(path, format string, a ...any) error {
	return &InputError{Path: path, Err: fmt.Errorf(format, a...)}
}

// Open opens path for reading when it is a regular file or a pipe. A
// pipe is opened without waiting for a writer, and its reads end at
// PipeDeadline. Every error is an *InputError saying which path and why.
func Open(path string) (*os.File, error) {
	if path == "" {
		return nil, inputf(path, "an empty path")
	}
	// O_NONBLOCK: opening a FIFO for reading otherwise waits for a
	// writer, forever if none comes. It changes nothing for a file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputf(path, "%w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, inputf(path, "%w", err)
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return f, nil
	case m&fs.ModeNamedPipe != 0:
		if err := f.SetReadDeadline(time.Now().Add(PipeDeadline)); err != nil {
			f.Close()
			return nil, inputf(path, "%w", err)
		}
		return f, nil
	default:
		f.Close()
		return nil, inputf(path, "%s, not a file", kind(m))
	}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// ReadCapped reads a whole file (Open) of at most max bytes; a larger one
// is refused as not being what (e.g. "a price file"), and so is an empty
// pipe. Every error is an *InputError.
func ReadCapped(path string, max int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, inputf(path, "a pipe that gave no end of input in %s", PipeDeadline)
		}
		return nil, inputf(path, "%w", err)
	}
	if int64(len(data)) > max {
		return nil, inputf(path, "larger than %s: not %s", Size(max), what)
	}
	if len(data) == 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			return nil, inputf(path, "a pipe with no data (nothing writes to it)")
		}
	}
	return data, nil
}

// Size writes a byte count as its limit is usually said: 16 MiB, 64 KiB.
func Size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Writer writes one output file. Write to it, then Commit; Abort (safe
// after Commit, so it can be deferred) drops what was written when the
// file is replaced atomically.
type Writer struct {
	path   string // as given, for messages
	target string // the file replaced, symlinks followed
	f      *os.File
	tmp    string // "" when written in place
	mode   fs.FileMode
	was    fs.FileInfo // the file replaced; nil for a new one
	done   bool
}

// Create starts writing path (see the package doc for what is written
// how).
func Create(path string) (*Writer, error) {
	if path == "" {
		return nil, errors.New("write: an empty path")
	}
	st, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	w := &Writer{path: path, mode: 0o644}
	if st != nil && st.IsDir() {
		return nil, fmt.Errorf("write %s: a directory", path)
	}
	target, proc, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if st != nil && (!st.Mode().IsRegular() || proc) {
		// A device, a pipe, a terminal, or a descriptor of this process
		// (/dev/stdout redirected to a file): written as it is, after
		// what the process wrote there before.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		w.f = f
		return w, nil
	}
	w.target = target
	if st != nil {
		w.mode, w.was = st.Mode().Perm(), st
	}
	dir := filepath.Dir(target)
	cleanStale(dir, filepath.Base(target))
	f, err := os.CreateTemp(dir, tempPrefix(filepath.Base(target))+"*"+tempSuffix)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	w.f, w.tmp = f, f.Name()
	return w, nil
}

func (w *Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

// Name is the path being written, as given.
func (w *Writer) Name() string { return w.path }

// Commit finishes the file: synced and renamed into place when it is
// replaced, closed when written in place.
func (w *Writer) Commit() error {
	if w.done {
		return fmt.Errorf("write %s: already finished", w.path)
	}
	w.done = true
	if w.tmp == "" {
		if err := w.f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		return nil
	}
	if w.was != nil {
		keepOwner(w.f, w.was)
	}
	err := w.f.Chmod(w.mode)
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.tmp, w.target)
	}
	if err != nil {
		_ = os.Remove(w.tmp)
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	syncDir(filepath.Dir(w.target))
	return nil
}

// Abort drops an unfinished file: the temporary file is removed and the
// path keeps what it held. After Commit it does nothing.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	_ = w.f.Close()
	if w.tmp != "" {
		_ = os.Remove(w.tmp)
	}
}

// Write writes data to path whole (Create, Write, Commit).
func Write(path string, data []byte) error {
	w, err := Create(path)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return w.Commit()
}

// resolve follows path's symlinks to the path they name, and says
// whether one went through /proc (/dev/stdout, /dev/fd/N), whose links
// name a process's descriptors rather than paths to replace.
func resolve(path string) (string, bool, error) {
	p, proc := path, false
	for range 40 {
		if abs, err := filepath.Abs(p); err == nil && strings.HasPrefix(abs, "/proc/") {
			proc = true
		}
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, proc, nil
		}
		if err != nil {
			return "", false, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return p, proc, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// A temporary file is named .BASE.cardapio-PID-RANDOM.tmp: hidden, never
// taken for the file it becomes, and owned by a process that can be told
// dead.
const tempSuffix = ".tmp"

func tempPrefix(base string) string {
	if len(base) > 100 {
		base = base[:100]
	}
	return "." + base + ".cardapio-" + strconv.Itoa(os.Getpid()) + "-"
}

// cleanStale removes the temporary files of base left in dir by a writer
// that was killed before it could (its process is gone): only this
// package's names, never another file.
func cleanStale(dir, base string) {
	if len(base) > 100 {
		base = base[:100]
	}
	prefix := "." + base + ".cardapio-"
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(prefix)+"*"+tempSuffix))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() {
			_ = os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// WriteNew writes data to a path that must not exist yet: the file is
// written beside it, synced, and linked into place, so that a file that
// appears meanwhile is never replaced (the error is then fs.ErrExist)
// and a crash leaves either nothing or the whole file.
func WriteNew(path string, data []byte) error {
	if path == "" {
		return errors.New("write: an empty path")
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("write %s: %w", path, fs.ErrExist)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix(filepath.Base(path))+"*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("write %s: %w", path, fs.ErrExist)
		}
		// A file system without hard links: an exclusive create.
		return writeExcl(path, data)
	}
	syncDir(dir)
	return nil
}

// writeExcl creates path, which must not exist, and writes data to it;
// a failed write removes what it created.
func writeExcl(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
