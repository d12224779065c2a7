package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitFromTable: a question table of a system the project knows
// nothing of (ride hailing) becomes a model whose check gives exactly the
// findings init lists, one per question to design; the table's questions
// outside DynamoDB are not among them.
func TestInitFromTable(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "rides.yaml")
	r := runCLI([]string{"init", "../../docs/tutorial/rides-questions.md", "--name", "rides", "--out", out}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "outside the table (notAnswered; TODO: confirm): RD08, RD09")
	assert.Contains(t, r.stdout, "no rate the format takes (TODO under decisions): RD03")
	listed := regexp.MustCompile(`(?m)^  \S+:(\d+):\d+: accessPatterns\.(\w+): `).FindAllStringSubmatch(r.stdout, -1)
	require.NotEmpty(t, listed)

	c := runCLI([]string{"check", "--format", "json", out}, nil)
	require.Equal(t, ExitBadInput, c.code, "a draft is not a design yet")
	var doc struct {
		Errors []struct {
			Line    int
			Path    string
			Message string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(c.stdout), &doc), c.stdout)
	var want []string
	for _, m := range listed {
		want = append(want, "accessPatterns."+m[2])
	}
	require.Len(t, doc.Errors, len(want), "check finds exactly what init listed")
	for i, e := range doc.Errors {
		assert.Equal(t, want[i], e.Path)
		assert.Equal(t, listed[i][1], strconv.Itoa(e.Line), "at the line init gave")
		assert.Contains(t, e.Message, "has no structure that answers it")
	}
	assert.Equal(t, []string{"RD01", "RD02", "RD03", "RD04", "RD05", "RD06", "RD07", "RD10"}, ids(listed))
}

func ids(ms [][]string) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m[2])
	}
	return out
}

// TestInitPortugueseCSV: the headers and the rates as a Portuguese
// spreadsheet writes them.
func TestInitPortugueseCSV(t *testing.T) {
	out := filepath.Join(t.TempDir(), "model.yaml")
	r := runCLI([]string{"init", "../../scaffold/testdata/clinica.csv", "--out", out}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "5 errors, one per question to design")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `name: "clinica"`)
	assert.Contains(t, string(data), "steady: {count: 2000, per: day}")
}

// TestInitSkeleton: an empty model checks, strict too.
func TestInitSkeleton(t *testing.T) {
	out := filepath.Join(t.TempDir(), "model.yaml")
	r := runCLI([]string{"init", "--name", "shop", "--out", out}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "ok: no errors, 0 warnings")
	r = runCLI([]string{"check", "--strict", out}, nil)
	assert.Equal(t, 0, r.code, r.stderr)
	// What check accepts every command runs.
	dir := t.TempDir()
	for _, args := range [][]string{
		{"budget", "--strict", out},
		{"cost", out},
		{"generate", out, "--out", filepath.Join(dir, "gen")},
		{"data", out, "--quiet", "--format", "jsonl", "--compression", "none", "--out", filepath.Join(dir, "data")},
		{"report", out, "--no-measure", "--out", filepath.Join(dir, "report.html")},
	} {
		r = runCLI(args, nil)
		assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
	}
}

// TestInitNeverReplaces: an existing file is refused with the hint, and
// kept; --force replaces it.
func TestInitNeverReplaces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "model.yaml")
	require.NoError(t, os.WriteFile(out, []byte("mine"), 0o644))
	r := runCLI([]string{"init", "--name", "shop", "--out", out}, nil)
	assert.Equal(t, ExitBadInput, r.code)
	assert.Contains(t, r.stderr, "exists: init never replaces a file")
	assert.Contains(t, r.stderr, "--force")
	data, _ := os.ReadFile(out)
	assert.Equal(t, "mine", string(data))
	r = runCLI([]string{"init", "--name", "shop", "--out", out, "--force"}, nil)
	assert.Equal(t, 0, r.code, r.stderr)
	data, _ = os.ReadFile(out)
	assert.Contains(t, string(data), "formatVersion: 2")
}

func TestInitBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "q.md")
	require.NoError(t, os.WriteFile(bad, []byte("| ID | Question |\n|---|---|\n| A1 | x |\n| A1 | y |\n"), 0o644))
	for _, args := range [][]string{
		{"init"},
		{"init", "--name", "1bad"},
		{"init", filepath.Join(dir, "missing.md")},
		{"init", dir},
		{"init", bad, "--out", filepath.Join(dir, "m.yaml")},
	} {
		r := runCLI(args, nil)
		assert.Equal(t, ExitBadInput, r.code, "%v: %s", args, r.stderr)
		for _, leak := range leaks {
			assert.NotContains(t, r.stderr, leak)
		}
	}
	_, err := os.Stat(filepath.Join(dir, "m.yaml"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written on bad input")
	r := runCLI([]string{"init", bad, "--out", filepath.Join(dir, "m.yaml")}, nil)
	assert.Contains(t, r.stderr, "q.md:4: the ID A1 is the one of line 3")
}
