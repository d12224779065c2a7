package mcpserver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cardapio/cardapio/internal/files"
)

// maxPath bounds a path argument: longer than any path a system opens.
const maxPath = 4096

// root is the directory tree the tools read from. Paths are opened
// through os.Root, so that neither "..", an absolute path nor a symbolic
// link leads out of it.
type root struct {
	dir string // absolute
	fs  *os.Root
}

func openRoot(dir string) (*root, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	return &root{dir: abs, fs: r}, nil
}

// read reads the regular file at path (relative to the root, or
// absolute inside it), of at most limit bytes, what it is said to be in
// errors (a model, a price file). name is the path positions are given
// with: as the caller wrote it, with slashes.
func (r *root) read(path string, limit int64, what string) (name string, data []byte, err error) {
	switch {
	case path == "":
		return path, nil, fmt.Errorf("no path of %s: give it relative to the server's directory", what)
	case len(path) > maxPath:
		return path[:64] + "...", nil, fmt.Errorf("a path of %d bytes: at most %d", len(path), maxPath)
	case strings.ContainsRune(path, 0):
		return path, nil, errors.New("a path with a NUL byte")
	}
	name = filepath.ToSlash(path)
	rel := path
	if filepath.IsAbs(path) {
		if rel, err = filepath.Rel(r.dir, path); err != nil {
			rel = path
		}
	}
	if !filepath.IsLocal(rel) {
		return name, nil, fmt.Errorf("read %s: outside the server's directory", name)
	}
	// O_NONBLOCK: a FIFO would otherwise block the open until a writer
	// comes; it is refused below as not a regular file.
	f, err := r.fs.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return name, nil, fmt.Errorf("read %s: %w", name, files.Reason(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return name, nil, fmt.Errorf("read %s: %w", name, files.Reason(err))
	}
	if !st.Mode().IsRegular() {
		return name, nil, fmt.Errorf("read %s: not a regular file", name)
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return name, nil, fmt.Errorf("read %s: %w", name, files.Reason(err))
	}
	if int64(len(data)) > limit {
		return name, nil, fmt.Errorf("read %s: larger than %s, not %s", name, files.Size(limit), what)
	}
	return name, data, nil
}
