package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// TestOutsideDataModels: models written from docs/model-format.md for
// their data alone, with no operations (testdata/datamodels: a
// marketplace whose index is overloaded by two entities' dataset
// templates and whose buyers are keyed by the keyed hash of a CPF, sensors
// with hash-sharded write keys, TTL, a natural-key registry and daily
// groups, a multi-tenant tracker with an adjacency list, references
// among a tenant's items and sets of an element enum). The reader of
// models_test.go holds what `data` writes to their templates, domains,
// parents, counts and cost's storage, with no personal data in keys or
// in anything printed, and the population loads into the engine whole.
func TestOutsideDataModels(t *testing.T) {
	paths, err := filepath.Glob("testdata/datamodels/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			var printed []string
			m, storageGB := checkAndCost(t, path, &printed)
			whole, personal := checkData(t, m, path, storageGB, &printed)
			checkTemplates(t, m, path)

			r := modelRun(&printed, "data", path, "--scale", fmt.Sprint(modelsScale), "--serve", "--quiet", "--summary", "json")
			require.Equal(t, ExitOK, r.code, r.stderr)
			var served dataSummary
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &served), r.stdout)
			assert.Equal(t, whole, served.Summary.Items)

			require.NotEmpty(t, personal, "a model of this directory has pii attributes")
			for _, text := range printed {
				for v := range personal {
					if strings.Contains(text, v) {
						t.Errorf("the pii value %q in a command's output", v)
					}
				}
			}
		})
	}
}

// checkTemplates holds every value a dataset template rule writes (an
// overloaded index key: "CAT#{category}" on a listing, "REGION#{region}"
// on a seller) to the template rendered from the item's own stored values.
func checkTemplates(t *testing.T, m *catalog.Model, path string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI([]string{"data", path, "--scale", fmt.Sprint(modelsScale), "--format", "jsonl", "--compression", "none", "--out", out, "--quiet"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	checked := 0
	for table, lines := range dataLines(t, out) {
		tb := m.Table(table)
		require.NotNil(t, tb)
		for _, l := range lines {
			it, err := attr.DecodeItem([]byte(l))
			require.NoError(t, err, l)
			typ, _ := it.Get(tb.Discriminator)
			e := m.Entity(typ.Str)
			if e == nil || m.Dataset == nil || m.Dataset.Entities[e.Name] == nil {
				continue
			}
			vals := map[string]attr.Value{}
			for _, f := range it {
				vals[f.Name] = f.Value
			}
			for name, rule := range m.Dataset.Entities[e.Name].Rules {
				got, ok := vals[name]
				if rule.Template == nil || !ok {
					continue
				}
				want, err := rule.Template.Render(vals)
				if err != nil {
					continue // a placeholder the item does not store
				}
				checked++
				assert.Equal(t, want, got.Str, "%s.%s of %s", e.Name, name, l)
			}
		}
	}
	if strings.Contains(path, "marketplace") {
		assert.Positive(t, checked, "the marketplace's overloaded index keys")
	}
}
