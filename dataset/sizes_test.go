package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// repositoryModels lists every valid model of the repository that
// declares populations: the examples, the corpora of the catalog, the
// capacity package and the commands' tests, and this package's own.
func repositoryModels(t *testing.T) []string {
	t.Helper()
	var out []string
	root := ".."
	require.NoError(t, filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && (info.Name() == ".git" || info.Name() == "invalid" || info.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), "\nformatVersion:") && !strings.HasPrefix(string(b), "formatVersion:") || !strings.Contains(string(b), "population:") {
			return err
		}
		if _, err := catalog.Load(path); err != nil {
			return nil // a model a test holds to be refused, or a migration's input
		}
		out = append(out, path)
		return nil
	}))
	require.Greater(t, len(out), 10)
	return out
}

// sizeScale gives each model a population of some thousands of items.
func sizeScale(m *catalog.Model) float64 {
	var items float64
	for _, e := range m.Entities {
		if e.Population != nil && e.Population.Known {
			items += e.Population.Items
		}
	}
	if items <= 10000 {
		return 1
	}
	return 10000 / items
}

// TestStorageAgreesWithCost: for every model of the repository, cost's
// storage (populations x the mean sizes Measure draws) agrees with what
// a run of the population stores, with another seed and at another
// scale: each entity's mean stored size within 3% (entities with 5,000
// items or more; 6% from 300, 10% from 50: the means of two samples of
// a few hundred items, an optional index key present on half of them,
// differ by that much), and each table's stored bytes within 3% of its
// generated items sized as cost sizes them.
func TestStorageAgreesWithCost(t *testing.T) {
	for _, path := range repositoryModels(t) {
		t.Run(strings.TrimPrefix(path, "../"), func(t *testing.T) {
			m := loadModel(t, path)
			p, err := New(m, Options{Scale: sizeScale(m), Seed: 11, AsOf: time.Date(2026, 9, 24, 0, 0, 0, 0, time.UTC)})
			require.NoError(t, err)
			res, err := p.Run(context.Background(), discard{"none"}, RunOptions{Workers: 2, Rules: capacity.Default()})
			require.NoError(t, err)
			s := res.Summarize(capacity.DefaultPrices())
			measured := res.CostSizes()
			require.NotNil(t, measured)
			est := estimate.New(m, capacity.Default())
			perTable := map[string]float64{}
			for i, n := range p.Nodes {
				es := s.Entity[i]
				if es.Items == 0 {
					continue
				}
				avg := float64(es.StoredBytes) / float64(es.Items)
				ms, ok := measured[n.Name()]
				require.True(t, ok, "%s: generated but not measured", n.Name())
				assert.True(t, es.CostMeasured, "%s: the summary compares with cost's measured size", n.Name())
				assert.InDelta(t, ms.StoredBytes, float64(es.CostStored), 0.5, n.Name())
				perTable[es.Table] += float64(es.Items) * ms.StoredBytes
				tol := 0.03
				switch {
				case es.Items < 50:
					continue
				case es.Items < 300:
					tol = 0.10
				case es.Items < 5000:
					tol = 0.06
				}
				assert.InEpsilon(t, ms.StoredBytes, avg, tol, "%s: %d items of %.1f B stored on average, cost sizes them %.1f B", n.Name(), es.Items, avg, ms.StoredBytes)
			}
			for _, tbl := range m.Tables {
				var got float64
				for _, es := range s.Entity {
					if es.Table == tbl.Name {
						got += float64(es.StoredBytes)
					}
				}
				if got == 0 {
					continue
				}
				assert.InEpsilon(t, perTable[tbl.Name], got, 0.03, "table %s", tbl.Name)
				// The bill's storage is the same sizes times the declared populations.
				size := est.Storage(tbl, measured)
				var want float64
				for _, es := range size.Entities {
					if ms, ok := measured[es.Entity]; ok && es.Known {
						want += es.Items * ms.StoredBytes
					}
				}
				if tbl.SizeGB == nil {
					assert.InEpsilon(t, want, size.StoredBytes, 0.01, "table %s", tbl.Name)
				}
			}
		})
	}
}
