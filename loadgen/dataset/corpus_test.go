package dataset

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
)

// TestCorpus: every valid model of the catalog's corpus, most with no
// dataset section at all, gets a population from its model alone, read
// back from the files a run writes: every item passes the catalog's own
// checks and the key checks, keys are unique, and two worker counts give
// the same bytes.
func TestCorpus(t *testing.T) {
	paths, err := filepath.Glob("../../catalog/testdata/valid/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m := loadModel(t, path)
			p, err := New(m, Options{Scale: 1, Seed: 4})
			require.NoError(t, err)
			// A few thousand items at most.
			e := 0.0
			for _, b := range p.Blocks() {
				e += b.Items
			}
			if e > 5000 {
				p, err = New(m, Options{Scale: 5000 / e, Seed: 4})
				require.NoError(t, err)
			}
			if len(p.Roots) == 0 {
				t.Skip("no entity with a population")
			}
			items := outputItems(t, p)
			rules := capacity.Default()
			seen := map[string]bool{}
			bad := 0
			for _, gi := range items {
				err := checkItem(p, gi, rules)
				for _, e := range p.Model.Entity(gi.Entity).CheckItem(gi.Item) {
					err = errors.Join(err, e)
				}
				var k string
				for _, a := range p.Model.Entity(gi.Entity).Table.KeyAttributes() {
					v, _ := gi.Item.Get(a)
					k += v.Str + "\x00"
				}
				if seen[gi.Entity+k] {
					err = errors.Join(err, errors.New("key repeated"))
				}
				seen[gi.Entity+k] = true
				if err != nil {
					bad++
					if bad < 5 {
						t.Errorf("%s %s: %v", gi.Entity, attr.AppendItemJSON(nil, gi.Item), err)
					}
				}
			}
			assert.Zero(t, bad)
			one, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "none"}, RunOptions{Workers: 1})
			three, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "none"}, RunOptions{Workers: 3})
			assert.Equal(t, one, three, "the bytes depend on the worker count")
		})
	}
}
