package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
)

// DataDir keeps a server's spaces in one directory: each region of each
// account in DIR/ACCOUNT/REGION, or, for a server with one shared space,
// DIR itself. Restore opens the spaces found there, Open (a
// ServerOptions.NewSpace) those created later, and Close closes them all.
type DataDir struct {
	// Data is the template of every space's Data; its Dir is the
	// directory of the whole server.
	Data Data

	mu     sync.Mutex
	opened []*Engine
	lock   *os.File
}

// Claim makes the directory this server's: it is created if missing,
// and another server already using it is an error.
func (d *DataDir) Claim() error {
	if err := os.MkdirAll(d.Data.Dir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockDir(filepath.Join(d.Data.Dir, "SERVER.LOCK"))
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.lock = lock
	d.mu.Unlock()
	return nil
}

// spaceDirName is what an account or a region may be called to become a
// directory.
var spaceDirName = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// Dir returns the directory of a space (DIR itself for the shared
// space, named by an empty region and account).
func (d *DataDir) Dir(region, account string) (string, error) {
	if region == "" && account == "" {
		return d.Data.Dir, nil
	}
	if !spaceDirName.MatchString(region) || !spaceDirName.MatchString(account) {
		return "", fmt.Errorf("region %q and account %q cannot name a data directory", region, account)
	}
	return filepath.Join(d.Data.Dir, account, region), nil
}

// Open opens the space of a region and account with the options, its
// tables restored from its directory.
func (d *DataDir) Open(region, account string, opts Options) (*Engine, error) {
	dir, err := d.Dir(region, account)
	if err != nil {
		return nil, err
	}
	data := d.Data
	data.Dir = dir
	e, err := Open(opts, data)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.opened = append(d.opened, e)
	d.mu.Unlock()
	return e, nil
}

// Found lists the spaces the directory holds, as region and account, in
// order (not the shared space, which is DIR itself).
func (d *DataDir) Found() ([][2]string, error) {
	accounts, err := os.ReadDir(d.Data.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	var out [][2]string
	for _, a := range accounts {
		if !a.IsDir() || !spaceDirName.MatchString(a.Name()) {
			continue
		}
		regions, err := os.ReadDir(filepath.Join(d.Data.Dir, a.Name()))
		if err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		for _, r := range regions {
			if r.IsDir() && spaceDirName.MatchString(r.Name()) {
				out = append(out, [2]string{r.Name(), a.Name()})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1]+"/"+out[i][0] < out[j][1]+"/"+out[j][0] })
	return out, nil
}

// HoldsShared reports whether the directory holds the shared space's
// data (a log or a snapshot in DIR itself), so that a server started
// without --shared on a --shared server's directory can say why it
// serves none of its tables.
func (d *DataDir) HoldsShared() bool {
	entries, err := os.ReadDir(d.Data.Dir)
	if err != nil {
		return false
	}
	for _, en := range entries {
		if name := en.Name(); fileNumber(name, "log-", ".cdl") > 0 || fileNumber(name, "snap-", ".cds") > 0 {
			return true
		}
	}
	return false
}

// Close closes every space opened, returning the first error.
func (d *DataDir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var first error
	for _, e := range d.opened {
		if err := e.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.opened = nil
	unlockDir(d.lock)
	d.lock = nil
	return first
}
