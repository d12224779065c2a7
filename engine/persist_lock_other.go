//go:build !unix

package engine

import "os"

// lockDir opens the data directory's lock file; without flock, nothing
// stops a second engine.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

func unlockDir(f *os.File) {
	if f != nil {
		f.Close()
	}
}
