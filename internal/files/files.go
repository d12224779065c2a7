// Package files reads the small files cardapio takes from its users
// (price files, credentials, policy documents) with a cap, so that a
// device, a stream or a wrong file given by mistake is refused without
// being held in memory.
package files

import (
	"fmt"
	"io"
	"os"
)

// ReadCapped reads a whole file of at most max bytes; a larger one is
// refused as not being what (e.g. "a price file").
func ReadCapped(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %s: not %s", path, size(max), what)
	}
	return data, nil
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
