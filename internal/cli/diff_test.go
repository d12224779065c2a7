package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/internal/readers"
)

const (
	parkingBase = "../../diff/testdata/parking/base.yaml"
	parkingHead = "../../diff/testdata/parking/head.yaml"
)

func TestDiffExits(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("formatVersion: 2\nname: x\ntables: {t: {partitionKey: 7}}\n"), 0o644))
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout, or stderr for exit 2
	}{
		{[]string{"diff", parkingBase, parkingHead}, ExitOK, "ok: 7 breaking changes, all acknowledged"},
		{[]string{"diff", "../../model.yaml", "../../examples/diff/lastro.yaml"}, ExitOK, "create index GSI4"},
		{[]string{"diff", "../../examples/orders/model.yaml", "../../examples/diff/orders.yaml"}, ExitFailed, "FAIL: breaking change not acknowledged: operations.CreateOrder.budgets.new"},
		{[]string{"diff", "--max-increase", "10%", parkingBase, parkingHead}, ExitFailed, "more than --max-increase 10%"},
		{[]string{"diff", "--max-increase", "5", parkingBase, parkingHead}, ExitOK, "ok:"},
		{[]string{"diff", parkingBase, parkingBase}, ExitOK, "nothing to migrate"},
		{[]string{"diff", parkingBase, bad}, ExitBadInput, "bad.yaml:3"},
		{[]string{"diff", bad, filepath.Join(dir, "missing.yaml")}, ExitBadInput, "missing.yaml"},
		{[]string{"diff", parkingBase}, ExitBadInput, "BASE.yaml HEAD.yaml"},
		{[]string{"diff", "--max-increase", "lots", parkingBase, parkingHead}, ExitBadInput, "--max-increase"},
		{[]string{"diff", "--format", "xml", parkingBase, parkingHead}, ExitBadInput, "--format"},
		{[]string{"diff", "--scale", "0", parkingBase, parkingHead}, ExitBadInput, "--scale"},
		{[]string{"diff", "--base", "-o/tmp/x", parkingHead}, ExitBadInput, "does not begin with '-'"},
		{[]string{"diff", "--base", "HEAD", parkingBase, parkingHead}, ExitBadInput, "one model"},
		{[]string{"diff", "--base", "HEAD:model.yaml", parkingHead}, ExitBadInput, "':'"},
		{[]string{"diff", "--json", dir, parkingBase, parkingHead}, ExitBadInput, dir},
	} {
		out, errOut, code := runCheckCLI(c.args...)
		require.Equal(t, c.code, code, "%v\n%s%s", c.args, out, errOut)
		if code == ExitBadInput {
			assert.Contains(t, errOut, c.out, c.args)
			assert.Empty(t, out, c.args)
		} else {
			assert.Contains(t, out, c.out, c.args)
		}
	}
}

func TestDiffFiles(t *testing.T) {
	dir := t.TempDir()
	js, md, sarif := filepath.Join(dir, "diff.json"), filepath.Join(dir, "diff.md"), filepath.Join(dir, "diff.sarif")
	head := "../../examples/diff/orders.yaml"
	out, errOut, code := runCheckCLI("diff", "--json", js, "--markdown", md, "--sarif", sarif, "../../examples/orders/model.yaml", head)
	require.Equal(t, ExitFailed, code, errOut)
	assert.Contains(t, out, "What breaks")

	var doc struct {
		OK      *bool `json:"ok"`
		Changes []struct {
			Kind     string `json:"kind"`
			Path     string `json:"path"`
			Line     *int   `json:"line"`
			Breaking *bool  `json:"breaking"`
		} `json:"changes"`
		MonthlyUSD struct {
			Base *float64 `json:"base"`
			Head *float64 `json:"head"`
		} `json:"monthlyUSD"`
		Migration []struct {
			Step       *string  `json:"step"`
			WriteUnits *float64 `json:"writeUnits"`
			USD        *float64 `json:"usd"`
			Seconds    *float64 `json:"seconds"`
		} `json:"migration"`
	}
	data, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.NotNil(t, doc.OK)
	assert.False(t, *doc.OK)
	require.NotEmpty(t, doc.Changes)
	breaking := map[int]bool{}
	for _, c := range doc.Changes {
		require.NotNil(t, c.Line)
		require.NotNil(t, c.Breaking)
		assert.NotEmpty(t, c.Kind)
		assert.NotEmpty(t, c.Path)
		if *c.Breaking {
			breaking[*c.Line] = true
		}
	}
	require.NotNil(t, doc.MonthlyUSD.Base)
	assert.Greater(t, *doc.MonthlyUSD.Head, *doc.MonthlyUSD.Base)
	assert.NotNil(t, doc.Migration, "an empty plan is a list")

	// SARIF: a result per breaking change, at HEAD's line.
	if err := readers.SARIF(sarif); err != nil && !strings.Contains(err.Error(), "not installed") {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Auto    struct{ ID string } `json:"automationDetails"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	data, err = os.ReadFile(sarif)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &log))
	require.Len(t, log.Runs, 1)
	assert.Equal(t, "cardapio/diff/examples/diff/orders.yaml/", log.Runs[0].Auto.ID)
	require.Len(t, log.Runs[0].Results, len(breaking))
	for _, r := range log.Runs[0].Results {
		assert.Equal(t, "breaking-change", r.RuleID)
		loc := r.Locations[0].Physical
		assert.Equal(t, "examples/diff/orders.yaml", loc.Artifact.URI)
		assert.Equal(t, "%SRCROOT%", loc.Artifact.URIBaseID)
		assert.True(t, breaking[loc.Region.StartLine], "line %d", loc.Region.StartLine)
	}

	// Markdown, as GitHub renders it.
	html, tables, err := readers.Markdown(md)
	if err != nil && strings.Contains(err.Error(), "not installed") {
		t.Skip(err)
	}
	require.NoError(t, err)
	assert.Contains(t, html, "What breaks")
	require.NotEmpty(t, tables)
	assert.Equal(t, []string{"", "path", "line", "change"}, tables[0].Header)
}

// --base reads BASE from git in HEAD's work tree: a pull-request job
// needs no second checkout.
func TestDiffBaseRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, string(b))
	}
	base, err := filepath.Abs(parkingBase)
	require.NoError(t, err)
	head, err := filepath.Abs(parkingHead)
	require.NoError(t, err)
	copyFile := func(from string) {
		b, err := os.ReadFile(from)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "model.yaml"), b, 0o644))
	}
	git("init", "-q")
	copyFile(base)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	copyFile(head)
	t.Chdir(dir)
	out, errOut, code := runCheckCLI("diff", "--base", "HEAD")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "HEAD:model.yaml -> model.yaml")
	assert.Contains(t, out, "create index byPlate")

	_, errOut, code = runCheckCLI("diff", "--base", "no-such-rev", "model.yaml")
	require.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "no-such-rev")

	// A revision whose model is invalid is positioned at REV:PATH.
	require.NoError(t, os.WriteFile("model.yaml", []byte("formatVersion: 2\nname: [\n"), 0o644))
	git("commit", "-q", "-am", "broken")
	copyFile(head)
	_, errOut, code = runCheckCLI("diff", "--base", "HEAD")
	require.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "HEAD:model.yaml:")
}

func TestDiffRehearse(t *testing.T) {
	out, errOut, code := runCheckCLI("diff", "--rehearse", "--scale", "0.1", parkingBase, parkingHead)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "Rehearsed on the embedded engine at scale 0.1 (4,005 items of BASE)")
	assert.Contains(t, out, "keys of PERMIT: 1000 items, 0 not as HEAD's templates render them")
	_, errOut, code = runCheckCLI("diff", "--rehearse", "--scale", "1", "../../model.yaml", "../../examples/diff/lastro.yaml")
	require.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "lower --scale")
}
