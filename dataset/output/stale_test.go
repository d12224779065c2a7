package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// TestRerunReplacesObjects: a run into the directory of an earlier one
// of another compression, format or number of parts leaves each table's
// prefix holding only this run's objects, every manifest there lists
// exactly what is there, and files the sink did not name are kept.
func TestRerunReplacesObjects(t *testing.T) {
	p := population(t, "../../examples/orders/model.yaml", datasettest.SmallScale("orders"), 1)
	dir := t.TempDir()
	run := func(o FileOptions) {
		t.Helper()
		o.Dir, o.Format, o.ObjectUnits = dir, "s3-import", 3000
		ro := dataset.RunOptions{Part: o.Part, Parts: max(o.Parts, 1), Workers: 2}
		s, err := NewFileSink(p, o)
		require.NoError(t, err)
		_, err = p.Run(t.Context(), s, ro)
		require.NoError(t, err)
	}
	mine := filepath.Join(dir, "orders", "data", "README.txt")
	lookalike := filepath.Join(dir, "orders", "data", "00000.json.gz.bak")
	run(FileOptions{Compression: "gzip", Part: 0, Parts: 2})
	run(FileOptions{Compression: "gzip", Part: 1, Parts: 2})
	require.NoError(t, os.WriteFile(mine, []byte("kept"), 0o644))
	require.NoError(t, os.WriteFile(lookalike, []byte("kept"), 0o644))
	run(FileOptions{Compression: "gzip"})
	consistent(t, dir, ".json.gz")
	run(FileOptions{Compression: "zstd"})
	consistent(t, dir, ".json.zst")
	run(FileOptions{Compression: "none", Part: 0, Parts: 2})
	run(FileOptions{Compression: "none", Part: 1, Parts: 2})
	consistent(t, dir, ".json")
	for _, f := range []string{mine, lookalike} {
		_, err := os.Stat(f)
		assert.NoError(t, err, "a file the sink did not name is kept")
	}
}

// consistent checks that the manifests in dir list exactly the objects
// there, each with the extension ext.
func consistent(t *testing.T, dir, ext string) {
	t.Helper()
	listed := map[string]bool{}
	ms, err := filepath.Glob(filepath.Join(dir, "manifest*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	for _, mf := range ms {
		b, err := os.ReadFile(mf)
		require.NoError(t, err)
		var m Manifest
		require.NoError(t, json.Unmarshal(b, &m))
		for _, tm := range m.Tables {
			for _, o := range tm.Objects {
				listed[o.Key] = true
			}
		}
	}
	var there, want []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.Contains(rel, "/data/") && objectRe.MatchString(d.Name()) {
			there = append(there, rel)
			assert.True(t, strings.HasSuffix(rel, ext), "%s left beside the %s objects", rel, ext)
		}
		if strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temporary file %s left", rel)
		}
		return nil
	}))
	for k := range listed {
		want = append(want, k)
	}
	sort.Strings(there)
	sort.Strings(want)
	assert.Equal(t, want, there, "the manifests list exactly the objects there")
}
