//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// alive reports whether process pid exists (signal 0 checks without
// sending).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// keepOwner gives the replacement of a file the owner of the file it
// replaces, when this process may (as root, the usual case in CI); a
// file of someone else's does not become root's by being rewritten.
func keepOwner(f *os.File, was fs.FileInfo) {
	st, ok := was.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
}
