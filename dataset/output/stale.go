package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cardapio/cardapio/dataset"
	userfiles "github.com/cardapio/cardapio/internal/files"
)

// An earlier run into the same directory (another compression, format,
// seed or number of parts) leaves data objects that an import of the
// prefix would read beside this run's. A file sink removes them when it
// closes, and only them: files named as a file sink names its objects,
// listed by an earlier manifest or left in a table's data directory,
// never a file of another name, never what a sibling part of this run
// writes.

var (
	objectRe   = regexp.MustCompile(`^(part-(\d{4})-of-(\d{4})-)?\d{5}\.(jsonl?)(\.gz|\.zst)?$`)
	manifestRe = regexp.MustCompile(`^manifest(-part-\d{4}-of-\d{4})?\.json$`)
)

// maxManifestBytes caps an earlier manifest read: 50,000 objects of a
// few hundred bytes each, with room.
const maxManifestBytes = 64 << 20

// sibling reports whether a file named name (an object's base name) is
// one another part of this run writes: this run's number of parts and
// extension, another part's number.
func (s *FileSink) sibling(name string) bool {
	m := objectRe.FindStringSubmatch(name)
	if m == nil || s.o.Parts <= 1 || m[1] == "" {
		return false
	}
	format := "json"
	if s.o.Format == "jsonl" {
		format = "jsonl"
	}
	return m[3] == fmt.Sprintf("%04d", s.o.Parts) && m[2] != fmt.Sprintf("%04d", s.o.Part) &&
		m[4] == format && m[5] == dataset.Extension(s.o.Compression)
}

// sameRun reports whether an earlier manifest is a sibling part's of
// this very run: its objects are that part's to keep.
func (s *FileSink) sameRun(m *Manifest) bool {
	o := s.Manifest()
	return m.Format == o.Format && m.Compression == o.Compression && m.Model == o.Model && m.Seed == o.Seed &&
		m.Scale == o.Scale && m.AsOf == o.AsOf && m.Parts == o.Parts && m.Part != o.Part
}

// removeStale removes what earlier runs left in the output directory
// (see above); keep is this run's objects' keys.
func (s *FileSink) removeStale(keep map[string]bool) error {
	ents, err := os.ReadDir(s.o.Dir)
	if err != nil {
		return err
	}
	ours := ManifestName(s.o.Part, s.o.Parts)
	var stale []string // keys
	for _, e := range ents {
		if !e.Type().IsRegular() || !manifestRe.MatchString(e.Name()) {
			continue
		}
		p := filepath.Join(s.o.Dir, e.Name())
		data, err := userfiles.ReadCapped(p, maxManifestBytes, "a manifest of cardapio data")
		if err != nil {
			continue
		}
		var m Manifest
		if json.Unmarshal(data, &m) != nil {
			continue // not one this command wrote: left alone
		}
		if s.sameRun(&m) {
			for _, t := range m.Tables {
				for _, o := range t.Objects {
					keep[o.Key] = true
				}
			}
			continue
		}
		for _, t := range m.Tables {
			for _, o := range t.Objects {
				stale = append(stale, o.Key)
			}
		}
		// A sibling's slot is left for the sibling to write over.
		if e.Name() != ours && !(s.o.Parts > 1 && strings.HasSuffix(e.Name(), fmt.Sprintf("-of-%04d.json", s.o.Parts))) {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	for _, tf := range s.tables {
		ents, err := os.ReadDir(tf.dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "."), ".tmp")
			if e.Name() != name && e.Name() != "."+name+".tmp" {
				continue
			}
			if objectRe.MatchString(name) && e.Type().IsRegular() {
				stale = append(stale, tf.m.KeyPrefix+e.Name())
			}
		}
	}
	for _, key := range stale {
		dir, name := path.Split(key)
		base := strings.TrimSuffix(strings.TrimPrefix(name, "."), ".tmp")
		parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
		if keep[key] || !objectRe.MatchString(base) || s.sibling(base) || len(parts) != 2 || parts[1] != "data" ||
			parts[0] == "" || parts[0] == "." || parts[0] == ".." || strings.ContainsAny(parts[0], `\`) {
			continue
		}
		p := filepath.Join(s.o.Dir, parts[0], "data", name)
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
