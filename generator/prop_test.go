package generator_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
	"github.com/cardapio/cardapio/internal/propmodel"
)

var propModels = flag.Int("prop-models", 16, "random models the property test generates")

// randomModel is the property's random valid model (internal/propmodel).
func randomModel(seed uint64) string { return propmodel.Random(seed) }

// TestRandomModelsCompile is the property: every random valid model, and
// every valid model of the catalog's corpus, generates (native and
// synthetic keys) a package that compiles and vets, in one module of its
// own that requires only aws-sdk-go-v2.
func TestRandomModelsCompile(t *testing.T) {
	pkgs := map[string]generator.Files{}
	add := func(name string, m *catalog.Model) {
		for _, keys := range []catalog.KeyMode{catalog.KeysNative, catalog.KeysSynthetic} {
			pkg := name
			if keys == catalog.KeysSynthetic {
				pkg += "s"
			}
			files, err := generator.Generate(m, generator.Options{Package: pkg, Keys: keys})
			require.NoError(t, err, "%s (%s keys)", name, keys)
			pkgs[pkg] = files
		}
	}
	for i := 1; i <= *propModels; i++ {
		src := randomModel(uint64(i))
		m, err := catalog.Parse(fmt.Sprintf("prop%d.yaml", i), []byte(src))
		require.NoError(t, err, "random model %d is not valid:\n%s", i, src)
		add(fmt.Sprintf("prop%d", i), m)
	}
	corpus, _ := filepath.Glob("../catalog/testdata/valid/*.yaml")
	corpus = append(corpus, "testdata/hostile-names.yaml", "testdata/hostile-text.yaml", "testdata/colliding-names.yaml", "testdata/keys-only.yaml")
	for i, path := range corpus {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := catalog.Parse(path, data)
		require.NoError(t, err, path)
		add(fmt.Sprintf("corpus%d", i), m)
	}
	vetOutside(t, pkgs)
	t.Logf("%d packages from %d random and %d corpus models compile and vet", len(pkgs), *propModels, len(corpus))
}
