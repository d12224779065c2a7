package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ordersModel = "../../examples/orders/model.yaml"

// cardapioChild runs cardapio in a child process (the test binary, see
// TestMain), so that /dev/stdout is the child's own standard output.
func cardapioChild(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CARDAPIO_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// TestOutputsWriteWhatThePathIs: budget's and report's files go to what
// their paths are. /dev/null stays a device and /dev/stdout reaches the
// standard output (run as root, a rename would have replaced both); a
// symlink is kept and its target written.
func TestOutputsWriteWhatThePathIs(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/stdout"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skip(err)
		}
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "base.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
	link := filepath.Join(dir, "base.json")
	require.NoError(t, os.Symlink("real/base.json", link))

	out, errOut, code := cardapioChild(t, "budget", "--only", "GetOrder", "--junit", "/dev/null", "--sarif", "/dev/null",
		"--markdown", "/dev/stdout", "--write-baseline", link, ordersModel)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "## cardapio budget: orders", "the Markdown reached stdout")
	assert.Contains(t, out, "GetOrder/typical  ", "after the text report")

	st, err := os.Lstat("/dev/null")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/null is still a device")
	st, err = os.Lstat("/dev/stdout")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "/dev/stdout is still a link")
	st, err = os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.True(t, json.Valid(b), "the link's target holds the report")
	st, err = os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "the target keeps its mode")

	_, errOut, code = cardapioChild(t, "report", "--budget", target, "--out", "/dev/null", ordersModel)
	require.Equal(t, ExitOK, code, errOut)
	st, err = os.Lstat("/dev/null")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/null is still a device")
	ents, err := os.ReadDir(filepath.Dir(target))
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no temporary file left beside the target")
}

// TestInputsRefuseWhatIsNotAFile: every path a command reads refuses a
// FIFO nobody writes, a directory and a device with exit 2 and the path
// in the message, at once.
func TestInputsRefuseWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	out := filepath.Join(dir, "out.html")
	for _, bad := range []string{fifo, dir, "/dev/null"} {
		for _, args := range [][]string{
			{"check", bad},
			{"cost", "--compare", bad, ordersModel},
			{"cost", "--prices", bad, ordersModel},
			{"budget", "--baseline", bad, ordersModel},
			{"report", "--load", bad, "--out", out, ordersModel},
			{"report", "--budget", bad, "--out", out, ordersModel},
			{"report", "--plan", bad, "--out", out, ordersModel},
			{"load", "merge", bad},
			{"load", ordersModel, "--scenario", bad},
			{"load", "check", ordersModel, "--results", bad, "--endpoint-url", "http://127.0.0.1:1"},
			{"plan", ordersModel, "--scenario", bad},
			{"import", "workbench", bad},
			{"capacity", "item", bad},
			{"migrate", bad},
			{"generate", bad, "--out", filepath.Join(dir, "gen")},
			{"data", ordersModel, "--serve", "--checkpoint", bad, "--resume"},
		} {
			if bad == dir && (args[0] == "load" && len(args) > 2 && args[2] == "--scenario" || args[0] == "plan") {
				continue // a directory is not taken for a scenario file: the scenario is looked up by name
			}
			start := time.Now()
			r := runCLI(args, nil)
			assert.Equal(t, ExitBadInput, r.code, "%v: %s", args, r.stderr)
			assert.Contains(t, r.stderr, bad, "%v", args)
			assert.Less(t, time.Since(start), 20*time.Second, "%v", args)
		}
	}
}

// TestMigrateWritesWhatThePathIs: a model migrated through a symlink
// keeps the link and updates its target; a current model is not
// rewritten; a temporary file a killed migrate left is removed and
// nothing else.
func TestMigrateWritesWhatThePathIs(t *testing.T) {
	dir := t.TempDir()
	v1, err := os.ReadFile("../../migrate/testdata/lastro-v1.yaml")
	require.NoError(t, err)
	target := filepath.Join(dir, "models", "model.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, v1, 0o644))
	link := filepath.Join(dir, "model.yaml")
	require.NoError(t, os.Symlink("models/model.yaml", link))

	// What a migrate killed by its dead process left: removed. What is
	// not of that name, or of a live process: kept.
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	stale := filepath.Join(dir, "models", fmt.Sprintf(".model.yaml.cardapio-%d-1.tmp", gone.Process.Pid))
	other := filepath.Join(dir, "models", ".migrate-123")
	live := filepath.Join(dir, "models", ".model.yaml.cardapio-1-2.tmp")
	for _, f := range []string{stale, other, live} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}

	out, errOut, code := runCheckCLI("migrate", link)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "formatVersion 1 -> 2")
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(b), "\nformatVersion: 2\n", "the target is migrated")
	ents, err := os.ReadDir(filepath.Dir(target))
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"model.yaml", ".migrate-123", filepath.Base(live)}, names)

	// Already current: reported, the file untouched.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(target, old, old))
	out, errOut, code = runCheckCLI("migrate", link)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "is already at formatVersion 2")
	st, err = os.Stat(target)
	require.NoError(t, err)
	assert.True(t, st.ModTime().Equal(old), "a current model is not rewritten: mtime %v, was %v", st.ModTime(), old)
}

// TestDataBadCheckpoint: a --resume checkpoint that is not one is bad
// input (exit 2), not a failure.
func TestDataBadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{"not json", `{"fingerprint": "other", "done": []}`, `{"fingerprint": 1}`} {
		cp := filepath.Join(dir, "cp.json")
		require.NoError(t, os.WriteFile(cp, []byte(body), 0o644))
		r := runCLI([]string{"data", ordersModel, "--serve", "--scale", "0.0001", "--checkpoint", cp, "--resume", "--quiet"}, nil)
		assert.Equal(t, ExitBadInput, r.code, "%s: %s", body, r.stderr)
		assert.Contains(t, r.stderr, "checkpoint "+cp)
	}
}

// TestImportWorkbenchTooLargeAModel: a Workbench file under its own
// limit whose model would be over a model's limit is refused (exit 2,
// with the size), not reported as a bug.
func TestImportWorkbenchTooLargeAModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 14 MB Workbench file")
	}
	type facet struct {
		FacetName         string
		KeyAttributeAlias map[string]string
		NonKeyAttributes  []string
	}
	type attr struct{ AttributeName, AttributeType string }
	var facets []facet
	var attrs []attr
	for i := range 60000 {
		name := "a" + strconv.Itoa(i) + "_" + strings.Repeat("y", 40)
		facets = append(facets, facet{"F" + strconv.Itoa(i), map[string]string{"PartitionKeyAlias": "pk"}, []string{name}})
		attrs = append(attrs, attr{name, "S"})
	}
	wb := map[string]any{"ModelName": "big", "ModelMetadata": map[string]any{}, "DataModel": []any{map[string]any{
		"TableName":        "tab",
		"KeyAttributes":    map[string]any{"PartitionKey": attr{"pk", "S"}},
		"NonKeyAttributes": attrs, "TableFacets": facets, "TableData": []any{},
	}}}
	b, err := json.Marshal(wb)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	r := runCLI([]string{"import", "workbench", path}, nil)
	assert.Equal(t, ExitBadInput, r.code, r.stderr)
	assert.Contains(t, r.stderr, "over the 10 MiB a model may be")
	assert.NotContains(t, r.stderr, "bug")
}
