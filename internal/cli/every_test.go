package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/propmodel"
)

// TestEveryCommandRuns holds the one verdict: whatever check accepts,
// every command runs. For every model of the repository's corpora (both
// examples and the reference, the independent and outside models, the
// check corpus, the catalog's valid corpus and the property tests'
// random models, both upgraded by migrate), a
// model check passes is measured by budget, generated (the packages vet,
// in one module), populated by data, planned and loaded (each scenario,
// scaled down) and reported; none ends in bad input or a failure (exit
// 2 or 1; a verdict, exit 3, is a run). A model check refuses is
// refused with positioned errors. The package builds are skipped with
// -short.
func TestEveryCommandRuns(t *testing.T) {
	var paths []string
	for _, g := range []string{"../../model.yaml", "../../examples/orders/model.yaml", "testdata/models/*.yaml", "testdata/datamodels/*.yaml", "testdata/check/*.yaml"} {
		ps, err := filepath.Glob(g)
		require.NoError(t, err)
		paths = append(paths, ps...)
	}
	// The catalog's valid corpus and the property tests' random models
	// are formatVersion 1: migrate them first.
	dir := t.TempDir()
	v1, err := filepath.Glob("../../catalog/testdata/valid/*.yaml")
	require.NoError(t, err)
	for i := range everyProps {
		p := filepath.Join(dir, fmt.Sprintf("prop%d.yaml", i+1))
		require.NoError(t, os.WriteFile(p, []byte(propmodel.Random(uint64(i+1))), 0o644))
		v1 = append(v1, p)
	}
	for _, p := range v1 {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		path := filepath.Join(dir, "migrated-"+filepath.Base(p))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		r := runCLI([]string{"migrate", path}, nil)
		if r.code != ExitOK {
			require.Equal(t, ExitBadInput, r.code, "migrate %s: %s", p, r.stderr)
			assertPositioned(t, r.stderr)
		}
		paths = append(paths, path)
	}
	gen := filepath.Join(dir, "gen")
	ran := 0
	for i, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		switch {
		case path == "../../model.yaml":
			name = "reference"
		case strings.HasSuffix(path, "/model.yaml"):
			name = filepath.Base(filepath.Dir(path))
		}
		t.Run(name, func(t *testing.T) {
			r := runCLI([]string{"check", path}, nil)
			switch r.code {
			case ExitOK:
			case ExitBadInput:
				assertPositioned(t, r.stderr)
				return
			default:
				require.Equal(t, ExitFailed, r.code, "check %s: %s%s", path, r.stdout, r.stderr)
				return // a verdict: the model is not one check accepts
			}
			m, err := catalog.Load(path)
			require.NoError(t, err)
			ran++
			// A verdict (exit 3) is a run; bad input or a failure is not.
			runs := func(args ...string) cliRun {
				t.Helper()
				r := runCLI(args, nil)
				assert.Contains(t, []int{ExitOK, ExitFailed}, r.code, "%v:\n%s%s", args, r.stdout, r.stderr)
				return r
			}
			scale := everyScale(m)
			runs("budget", path)
			runs("generate", path, "--out", filepath.Join(gen, fmt.Sprintf("m%d", i)))
			out := t.TempDir()
			runs("data", path, "--scale", scale, "--quiet", "--format", "jsonl", "--compression", "none", "--out", out)
			for _, sc := range m.Scenarios {
				runs("plan", path, "--scenario", sc.Name, "--scale", scale, "--no-search")
				runs("load", path, "--scenario", sc.Name, "--scale", scale, "--speed", "max", "--quiet")
			}
			runs("report", path, "--no-measure", "--out", filepath.Join(out, "report.html"))
		})
	}
	t.Logf("every command ran on %d of %d models", ran, len(paths))
	require.Greater(t, ran, 10, "models every command ran on")
	if testing.Short() {
		return
	}
	vetGenerated(t, gen)
}

// everyProps is how many of the property tests' random models run.
const everyProps = 8

// everyScale keeps a model's population and scenarios small on 2 cores:
// about two thousand items in all.
func everyScale(m *catalog.Model) string {
	total := 0.0
	for _, e := range m.Entities {
		if p := e.Population; p != nil && p.Known {
			total += p.Items
		}
	}
	if total <= 4000 {
		return "0.5"
	}
	return fmt.Sprint(max(2000/total, 1e-6))
}
