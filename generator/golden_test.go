package generator_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

var update = flag.Bool("update", false, "rewrite the generated packages the golden tests compare with")

// goldens are the committed generations: the example packages (built and
// vetted with the module) and the synthetic-key variants under testdata.
var goldens = []struct {
	model, dir, pkg string
	keys            catalog.KeyMode
}{
	{"../model.yaml", "../examples/lastro", "lastro", catalog.KeysNative},
	{"../model.yaml", "testdata/golden/lastro-synthetic", "lastrosynthetic", catalog.KeysSynthetic},
	{"../examples/orders/model.yaml", "../examples/orders", "orders", catalog.KeysNative},
	{"../examples/orders/model.yaml", "testdata/golden/orders-synthetic", "orderssynthetic", catalog.KeysSynthetic},
}

func generate(t *testing.T, model, pkg string, keys catalog.KeyMode) generator.Files {
	t.Helper()
	m, err := catalog.Load(model)
	require.NoError(t, err)
	files, err := generator.Generate(m, generator.Options{Package: pkg, Keys: keys, Source: filepath.Base(model)})
	require.NoError(t, err)
	return files
}

// TestGolden compares what the models generate now with the committed
// files; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.pkg, func(t *testing.T) {
			files := generate(t, g.model, g.pkg, g.keys)
			if *update {
				require.NoError(t, generator.Write(g.dir, files))
			}
			stale, err := generator.Stale(g.dir, files)
			require.NoError(t, err)
			assert.Empty(t, stale, "stale files in %s: run go test ./generator -update", g.dir)
		})
	}
}

var headerRe = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// TestGeneratedFiles checks what every generated Go file promises: the
// header Go tools recognise first, gofmt'd, imports of the standard
// library and aws-sdk-go-v2 only.
func TestGeneratedFiles(t *testing.T) {
	for _, g := range goldens {
		files := generate(t, g.model, g.pkg, g.keys)
		for _, name := range files.Names() {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			src := string(files[name])
			first, _, _ := strings.Cut(src, "\n")
			assert.Regexp(t, headerRe, first, "%s/%s", g.pkg, name)
			assert.Contains(t, first, "from model.yaml")
			for _, imp := range regexp.MustCompile(`(?m)^\s+"([^"]+)"$`).FindAllStringSubmatch(src, -1) {
				path := imp[1]
				ok := !strings.Contains(path, ".") || strings.HasPrefix(path, "github.com/aws/aws-sdk-go-v2/")
				assert.True(t, ok, "%s/%s imports %s", g.pkg, name, path)
			}
			assert.NotContains(t, src, "cardapio/cardapio", "%s/%s mentions this module", g.pkg, name)
		}
	}
}

// moduleVersions returns the require lines of this module's go.mod for
// the aws-sdk-go-v2 modules the generated code imports.
func moduleVersions(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	var lines []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(github\.com/aws/(?:aws-sdk-go-v2|aws-sdk-go-v2/service/dynamodb|smithy-go)) (v\S+)`).FindAllStringSubmatch(string(b), -1) {
		lines = append(lines, "\t"+m[1]+" "+m[2])
	}
	require.NotEmpty(t, lines)
	return strings.Join(lines, "\n")
}

// vetOutside builds and vets packages in a module of their own, which
// requires aws-sdk-go-v2 and nothing of this repository: a generated
// package that imported cardapio, or did not compile, fails here. The
// module cache already holds the SDK, so no network is used. It returns
// the module's directory.
func vetOutside(t *testing.T, pkgs map[string]generator.Files) string {
	t.Helper()
	dir := t.TempDir()
	gomod := "module outside\n\ngo 1.23\n\nrequire (\n" + moduleVersions(t) + "\n)\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile("../go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	for name, files := range pkgs {
		require.NoError(t, generator.Write(filepath.Join(dir, name), files))
	}
	runGo(t, dir, "vet", "./...")
	if !testing.Short() {
		cmd := exec.Command(staticcheck(t), "./...")
		cmd.Dir = dir
		cmd.Env = goEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "staticcheck of the generated packages:\n%s", out)
	}
	return dir
}

// goEnv is the environment the go command and staticcheck run in beside
// generated packages: offline, this toolchain first on the path.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off",
		"PATH="+filepath.Join(runtime.GOROOT(), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// staticcheckDir holds the staticcheck binary the tests built, removed
// when they end.
var staticcheckDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if staticcheckDir != "" {
		_ = os.RemoveAll(staticcheckDir)
	}
	os.Exit(code)
}

var staticcheckBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "staticcheck")
	if err != nil {
		return "", err
	}
	staticcheckDir = dir
	bin := filepath.Join(dir, "staticcheck")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "honnef.co/go/tools/cmd/staticcheck")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return bin, nil
})

// staticcheck returns the staticcheck this module's go.mod names as a
// tool, built once.
func staticcheck(t *testing.T) string {
	t.Helper()
	bin, err := staticcheckBin()
	require.NoError(t, err, "building staticcheck")
	return bin
}

// runGo runs the go command in a module of generated packages, offline,
// and returns what it printed; it fails the test if the command fails.
func runGo(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %v of the generated packages outside the module:\n%s", args, out)
	return string(out)
}

// TestGoldensBuildOutside compiles and vets every golden package in a
// module of its own (the examples are also vetted with this module).
func TestGoldensBuildOutside(t *testing.T) {
	pkgs := map[string]generator.Files{}
	for _, g := range goldens {
		pkgs[g.pkg] = generate(t, g.model, g.pkg, g.keys)
	}
	vetOutside(t, pkgs)
}

// Enum values that begin with a digit follow their type's name as they
// are, not behind an X.
func TestEnumConstNames(t *testing.T) {
	src := string(generate(t, "testdata/colliding-names.yaml", "colliding", catalog.KeysNative)["entities.go"])
	for _, want := range []string{"BankID033 ", "BankID341 ", "BankIDX ", "Bank1_033 ", "Bank1_1x "} {
		assert.Contains(t, src, want)
	}
	assert.NotContains(t, src, "BankIDX033")
}

// A limit that is one term of a condition among others is no limit
// reached: the condition fails for every reason it states, so its error
// is named by the model's meaning, as the load's outcome is labelled.
func TestLimitAmongOtherTerms(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	var names []string
	for _, op := range m.Operations {
		for _, st := range op.Steps {
			if st.Request == nil || st.ConditionKind(m, op) != catalog.FailLimitReached {
				continue
			}
			name := st.Request.Entity.Table.PartitionKey
			st.Request.Condition = "(" + st.Request.Condition + ") AND attribute_exists(" + name + ")"
			require.Equal(t, catalog.FailCondition, st.ConditionKind(m, op), "%s/%s widened", op.Name, st.ID)
			var n strings.Builder
			for _, w := range catalog.MeaningWords(st.Request.OnConditionFailed.Meaning) {
				n.WriteString(strings.ToUpper(w[:1]) + strings.ToLower(w[1:]))
			}
			names = append(names, "Err"+n.String()+" ")
		}
	}
	require.NotEmpty(t, names, "the model has no limit to widen")
	files, err := generator.Generate(m, generator.Options{Package: "widened", Keys: catalog.KeysNative, Source: "model.yaml"})
	require.NoError(t, err)
	src := string(files["errors.go"])
	assert.NotContains(t, src, "LimitReached =")
	for _, n := range names {
		assert.Contains(t, src, n)
	}
}
