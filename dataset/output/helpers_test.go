package output

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// models are the models the output is tested on: the two examples, the
// catalog's dataset corpus model and a model written from the format's
// documentation alone (dataset's own tests run the same four).
var models = []string{"../../model.yaml", "../../catalog/testdata/valid/dataset.yaml", "../../examples/orders/model.yaml", "../testdata/library.yaml"}

func population(t testing.TB, path string, scale float64, seed uint64) *dataset.Population {
	t.Helper()
	m, err := catalog.Load(path)
	require.NoError(t, err)
	p, err := dataset.New(m, dataset.Options{Scale: scale, Seed: seed, AsOf: time.Date(2026, 9, 24, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	return p
}

// files runs a file sink into o.Dir and returns every file's bytes by
// path.
func files(t testing.TB, p *dataset.Population, o FileOptions, ro dataset.RunOptions) (map[string][]byte, *dataset.Result) {
	t.Helper()
	s, err := NewFileSink(p, o)
	require.NoError(t, err)
	res, err := p.Run(context.Background(), s, ro)
	require.NoError(t, err)
	out := map[string][]byte{}
	require.NoError(t, filepath.Walk(o.Dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(o.Dir, path)
		out[filepath.ToSlash(rel)] = b
		return err
	}))
	return out, res
}
