package dataset

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// TestCorpus: every valid model of the catalog's corpus, most with no
// dataset section at all, gets a population from its model alone, read
// back from the files a run writes: every item passes the catalog's own
// checks and the key checks, keys are unique, and two worker counts give
// the same bytes.
func TestCorpus(t *testing.T) {
	paths, err := filepath.Glob("../catalog/testdata/valid/*.yaml")
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
			one, _ := files(t, p, Encoding{Format: "s3-import", Compression: "none"}, RunOptions{Workers: 1})
			three, _ := files(t, p, Encoding{Format: "s3-import", Compression: "none"}, RunOptions{Workers: 3})
			assert.Equal(t, one, three, "the bytes depend on the worker count")
		})
	}
}

// TestPopulationAgreesWithScale: on every model, each entity's generated
// count is the population the model declares at the run's scale (within
// sampling noise, three standard deviations and 3%), except group
// entities, whose count follows their members' days and is reported
// beside the declared one; each table's stored bytes are within half of
// what cost computes from the same populations and samples.
func TestPopulationAgreesWithScale(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path)*2, 2)
			res, err := p.Run(context.Background(), discard{"none"}, RunOptions{Workers: 2, Rules: capacity.Default()})
			require.NoError(t, err)
			s := res.Summarize(capacity.DefaultPrices())
			checked := 0
			for _, es := range s.Entity {
				n := p.Node(es.Entity)
				if es.Declared < 0 {
					continue
				}
				if n.Rules != nil && (n.Rules.Group != nil || len(n.Rules.When) > 0) {
					t.Logf("%s (a group, or narrowed by when): %d items, %.0f declared", es.Entity, es.Items, es.Declared)
					continue
				}
				tol := 3*math.Sqrt(es.Declared) + 0.15*es.Declared
				assert.InDelta(t, es.Declared, float64(es.Items), tol, "%s: %d items, %.0f declared", es.Entity, es.Items, es.Declared)
				checked++
			}
			assert.Greater(t, checked, 1)
			for _, ts := range s.Tables {
				if ts.CostGB > 0 && ts.Items > 0 {
					r := ts.GB / ts.CostGB
					t.Logf("%s: %.4f GB generated, %.4f GB from cost's populations and samples (%.2f)", ts.Table, ts.GB, ts.CostGB, r)
					assert.True(t, r > 0.5 && r < 1.5, "%s: %.4f GB generated against cost's %.4f GB", ts.Table, ts.GB, ts.CostGB)
				}
			}
		})
	}
}
