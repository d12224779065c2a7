package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/internal/moto"
	"github.com/cardapio/cardapio/internal/readers"
)

// Golden files of budget are rewritten by: go test ./internal/cli -run Budget -update

func budgetGolden(t *testing.T, name, got string) { t.Helper(); goldenFile(t, "budget", name, got) }

var (
	secondsRe = regexp.MustCompile(`"seconds": [0-9.e-]+`)
	timeRe    = regexp.MustCompile(`time="[0-9.]+"`)
	stampRe   = regexp.MustCompile(` hostname="[^"]*"| timestamp="[^"]*"`)
	rootRe    = regexp.MustCompile(`"uri": "file:///[^"]*"`)
)

// stable removes what changes from run to run and machine to machine:
// durations, the start and host of a JUnit suite, and the directory the
// repository is in (the SARIF logs' %SRCROOT%).
func stable(s string) string {
	s = secondsRe.ReplaceAllString(s, `"seconds": 0`)
	s = stampRe.ReplaceAllString(s, "")
	s = rootRe.ReplaceAllString(s, `"uri": "file:///SRCROOT/"`)
	return timeRe.ReplaceAllString(s, `time="0.000"`)
}

// outputs runs the gate with every output and returns them by name.
func outputs(t *testing.T, args ...string) (map[string]string, cliRun) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"junit.xml": "--junit", "md": "--markdown", "sarif": "--sarif", "baseline.json": "--write-baseline"}
	all := []string{"budget"}
	for name, flag := range files {
		all = append(all, flag, filepath.Join(dir, name))
	}
	run := runCLI(append(all, args...), nil)
	out := map[string]string{"txt": run.stdout}
	for name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, "%s written: %s", name, run.stderr)
		out[name] = stable(string(data))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(out[name]), 0o644))
	}
	checkReaders(t, dir)
	return out, run
}

// checkReaders reads the files of a run as CI systems do.
func checkReaders(t *testing.T, dir string) {
	t.Helper()
	skip := func(err error) bool {
		if errors.Is(err, readers.ErrMissing) {
			t.Logf("skipped: %v", err)
			return true
		}
		return false
	}
	junit := filepath.Join(dir, "junit.xml")
	if err := readers.JUnitXSD(junit, "../../reports/testdata/junit.xsd"); !skip(err) {
		require.NoError(t, err)
	}
	if _, err := readers.JUnitParse(junit); !skip(err) {
		require.NoError(t, err)
	}
	if _, tables, err := readers.Markdown(filepath.Join(dir, "md")); !skip(err) {
		require.NoError(t, err)
		require.NotEmpty(t, tables, "the Markdown renders its tables")
	}
	require.NoError(t, readers.SARIF(filepath.Join(dir, "sarif")))
}

// TestBudgetReference is the README's first command: the reference model
// on the embedded engine passes every budget with no drift, and every
// output is what the goldens hold.
func TestBudgetReference(t *testing.T) {
	out, run := outputs(t, "--table-prefix", "golden-", "../../model.yaml")
	require.Equal(t, ExitOK, run.code, run.stderr)
	assert.Empty(t, run.stderr)
	assert.Contains(t, run.stdout, "ok: 28 variants within budget on the embedded engine; no drift")
	for name, got := range out {
		budgetGolden(t, "reference."+name, got)
	}
	rep := decodeReport(t, out["baseline.json"])
	assert.True(t, rep.OK)
	assert.Equal(t, 0, rep.Summary.Drift)
	assert.Equal(t, 0, rep.Summary.Computed, "measured throughout on the embedded engine")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "md"), []byte(out["md"]), 0o644))
	if _, tables, err := readers.Markdown(filepath.Join(dir, "md")); err == nil {
		require.Len(t, tables, 1, "every variant passes: one table")
		assert.Len(t, tables[0].Rows, 28)
		assert.Equal(t, []string{"Verdict", "Operation / variant", "WRU", "budget", "Δ", "RRU", "budget", "Δ", "static WRU / RRU"}, tables[0].Header)
	}
}

// TestBudgetFailing: a regression against the reference's baseline fails
// with exit 3 in every output, and the comparison says which operations
// got dearer and what that costs a month.
func TestBudgetFailing(t *testing.T) {
	base, run := outputs(t, "--table-prefix", "base-", "--only", "ApplySettlement", "--only", "MoveBucket", "../../model.yaml")
	require.Equal(t, ExitOK, run.code, run.stderr)
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.json")
	require.NoError(t, os.WriteFile(basePath, []byte(base["baseline.json"]), 0o644))

	out, run := outputs(t, "--table-prefix", "fail-", "--only", "ApplySettlement", "--only", "MoveBucket", "--baseline", basePath,
		"testdata/budget/regressions/embedded-lists.yaml")
	require.Equal(t, ExitFailed, run.code, run.stderr)
	for name, got := range out {
		budgetGolden(t, "failing."+name, strings.ReplaceAll(got, dir, "BASE"))
	}
	rep := decodeReport(t, out["baseline.json"])
	require.NotNil(t, rep.Baseline)
	assert.Equal(t, 5, rep.Baseline.Dearer)
	assert.Positive(t, rep.Baseline.USDMonth)

	dir2 := t.TempDir()
	for name, data := range out {
		require.NoError(t, os.WriteFile(filepath.Join(dir2, name), []byte(data), 0o644))
	}
	if suites, err := readers.JUnitParse(filepath.Join(dir2, "junit.xml")); err == nil {
		require.Len(t, suites, 1)
		// Five variants measured over budget, and the same five over by
		// the static estimate, as check finds them.
		assert.Equal(t, 10, suites[0].Tests)
		assert.Equal(t, 10, suites[0].Failures)
		for _, c := range suites[0].Cases {
			assert.Equal(t, "failure", c.Result, c.Name)
			if strings.HasPrefix(c.Name, budget.FindingOverBudget) {
				assert.Contains(t, c.Message, "is estimated at")
			} else {
				assert.Contains(t, c.Message, "WRU measured against a budget of")
			}
			assert.Contains(t, c.Text, "causes, those of the design first")
		}
	}
	if html, tables, err := readers.Markdown(filepath.Join(dir2, "md")); err == nil {
		assert.Contains(t, html, "<h2>cardapio budget: lastro — ❌ FAIL</h2>")
		require.GreaterOrEqual(t, len(tables), 3, "failures, all variants, baseline deltas")
		assert.Len(t, tables[0].Rows, 5)
		assert.Contains(t, tables[0].Rows[0][0], "FAIL")
	}
}

// TestBudgetBadInput: a bad model, flag or baseline exits 2 with the
// problem on stderr and nothing measured.
func TestBudgetBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.json")
	require.NoError(t, os.WriteFile(junk, []byte(`{"results": [{"operation": "A", "measured": {"wru": -3}}]}`), 0o644))
	sarifPath := filepath.Join(dir, "bad.sarif")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"budget", "testdata/check/bad.yaml"}, "bad.yaml:"},
		{[]string{"budget", "--sarif", sarifPath, "testdata/check/bad.yaml"}, "bad.yaml:"},
		{[]string{"budget", "missing.yaml"}, "read model missing.yaml"},
		{[]string{"budget", "--format", "xml", "../../model.yaml"}, "--format must be text or json"},
		{[]string{"budget", "--keys", "natve", "../../model.yaml"}, `--keys "natve": want native, synthetic or auto`},
		{[]string{"budget", "--fail-on-increase", "../../model.yaml"}, "give --baseline FILE"},
		{[]string{"budget", "--baseline", filepath.Join(dir, "none.json"), "../../model.yaml"}, "read baseline"},
		{[]string{"budget", "--baseline", junk, "../../model.yaml"}, "measured units must be finite and not negative"},
		{[]string{"budget", "--only", "ApplySettlment", "../../model.yaml"}, `did you mean "ApplySettlement"?`},
		{[]string{"budget", "--aws", "--endpoint-url", "http://127.0.0.1:1", "../../model.yaml"}, "choose one target"},
		{[]string{"budget", "--endpoint-url", "ftp://x", "../../model.yaml"}, "want http://host:port"},
		{[]string{"budget", "a.yaml", "b.yaml"}, "accepts at most 1 arg"},
		{[]string{"budget", "--retries", "-1", "--only", "ClaimContact", "../../model.yaml"}, `"--retries" flag: must be an integer from 0 to 10`},
		{[]string{"budget", "--retries", "two", "../../model.yaml"}, `invalid argument "two" for "--retries"`},
	} {
		r := runCLI(c.args, nil)
		assert.Equal(t, ExitBadInput, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		assert.Empty(t, r.stdout, "%v", c.args)
		for _, l := range leaks {
			assert.NotContains(t, r.stderr, l, "%v", c.args)
		}
	}
	// A bad model's errors are annotations too.
	require.NoError(t, readers.SARIF(sarifPath))
	data, err := os.ReadFile(sarifPath)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"ruleId": "model-error"`)
}

// TestCheckSARIF: check --format sarif positions the review findings
// the model does not accept and every static excess
// with its causes; a bad model gives its errors.
func TestCheckSARIF(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, model string
		code        int
	}{
		{"reference", "../../model.yaml", ExitOK},
		{"over", "testdata/check/over.yaml", ExitFailed},
		{"bad", "testdata/check/bad.yaml", ExitBadInput},
	} {
		r := runCLI([]string{"check", "--format", "sarif", c.model}, nil)
		require.Equal(t, c.code, r.code, "%s: %s", c.name, r.stderr)
		goldenFile(t, "check", c.name+".sarif", stable(r.stdout))
		path := filepath.Join(dir, c.name+".sarif")
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		require.NoError(t, readers.SARIF(path), c.name)
	}
	over := runCLI([]string{"check", "--format", "sarif", "testdata/check/over.yaml"}, nil).stdout
	for _, s := range []string{`"ruleId": "budget-exceeded"`, `"ruleId": "budget-cause"`, `"fullyQualifiedName": "indexes.GSI2.partition[1]"`,
		`"fullyQualifiedName": "operations.MoveBucket.budgets.move.wru"`, `"uri": "internal/cli/testdata/check/over.yaml"`,
		`"uriBaseId": "%SRCROOT%"`, `"id": "cardapio/check/internal/cli/testdata/check/over.yaml/"`} {
		assert.Contains(t, over, s)
	}
	ref := runCLI([]string{"check", "--format", "sarif", "../../model.yaml"}, nil).stdout
	// Accepted warnings are left out: code scanning has no use for
	// suppressions, and an accepted finding is no alert.
	assert.NotContains(t, ref, "suppressions")
	assert.NotContains(t, ref, "review/no-version")
	assert.NotContains(t, ref, "budget-exceeded")
}

// On moto, which reports a constant per request kind, budget finds the
// misbilling, says where each figure contradicts the rules, and judges by
// the rules' figures: the same exit and figures as the embedded engine.
func TestBudgetOnMoto(t *testing.T) {
	url := moto.Endpoint(t)
	model := "../../examples/orders/model.yaml"
	out, errOut, code := runCheckCLI("budget", "--endpoint-url", url, model)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "note: the target does not bill like AWS")
	assert.Regexp(t, `step \S+: the target reports [0-9.]+ RRU; AWS's rules give 0.5 RRU for this page`, out)
	assert.NotContains(t, out, "below what the operation consumes")

	js, errOut, code := runCheckCLI("budget", "--endpoint-url", url, "--format", "json", model)
	require.Equal(t, ExitOK, code, errOut)
	emb, errOut, code := runCheckCLI("budget", "--format", "json", model)
	require.Equal(t, ExitOK, code, errOut)
	type doc struct {
		Results []struct {
			Operation, Variant, Verdict string
			Measured                    struct{ WRU, RRU float64 }
		}
	}
	var a, b doc
	require.NoError(t, json.Unmarshal([]byte(js), &a))
	require.NoError(t, json.Unmarshal([]byte(emb), &b))
	require.Equal(t, len(b.Results), len(a.Results))
	for i := range a.Results {
		assert.Equal(t, b.Results[i], a.Results[i])
	}
}

// TestSARIFPlaces: the model's URI is relative to the repository root
// whatever the working directory (the tests run in internal/cli) and
// however the path is given; outside a repository it is relative to the
// model's directory. check's and budget's logs have their own
// categories, so one upload takes both.
func TestSARIFPlaces(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs("testdata/check/over.yaml")
	require.NoError(t, err)
	const uri = `"uri": "internal/cli/testdata/check/over.yaml"`
	var logs []string
	for i, model := range []string{"testdata/check/over.yaml", abs} {
		r := runCLI([]string{"check", "--format", "sarif", model}, nil)
		require.Equal(t, ExitFailed, r.code, r.stderr)
		assert.Contains(t, r.stdout, uri, model)
		assert.NotContains(t, r.stdout, `"uri": "file:///`+"internal", model)
		path := filepath.Join(dir, fmt.Sprintf("check%d.sarif", i))
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		logs = append(logs, path)
	}
	budgetLog := filepath.Join(dir, "budget.sarif")
	r := runCLI([]string{"budget", "--only", "MoveBucket", "--sarif", budgetLog, abs}, nil)
	require.Equal(t, ExitFailed, r.code, r.stderr)
	data, err := os.ReadFile(budgetLog)
	require.NoError(t, err)
	assert.Contains(t, string(data), uri)
	assert.Contains(t, string(data), `"id": "cardapio/budget/internal/cli/testdata/check/over.yaml/"`)
	require.NoError(t, readers.SARIF(logs[0], budgetLog), "one upload of check's and budget's logs")
	assert.ErrorContains(t, readers.SARIF(logs[0], logs[1]), "share the category")

	// Outside any repository: relative to the model's own directory.
	src, err := os.ReadFile(abs)
	require.NoError(t, err)
	outside := filepath.Join(dir, "m", "model.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
	require.NoError(t, os.WriteFile(outside, src, 0o644))
	r = runCLI([]string{"check", "--format", "sarif", outside}, nil)
	require.Equal(t, ExitFailed, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"uri": "model.yaml"`)
	path := filepath.Join(dir, "outside.sarif")
	require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
	require.NoError(t, readers.SARIF(path))
}

// TestBudgetNoVerdictOutputs: a run that ends before its verdict (a
// model that does not load, exit 2; a target that does not answer, exit
// 1) writes every file asked for, each saying what happened, and no
// baseline.
func TestBudgetNoVerdictOutputs(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"bad model", []string{"testdata/check/bad.yaml"}, ExitBadInput, []string{"model-error", "ModelError", "does not load"}},
		{"no target", []string{"--endpoint-url", "http://127.0.0.1:1", "--only", "MoveBucket", "testdata/check/over.yaml"}, ExitInternal, []string{"no-verdict", "NoVerdict", "stopped before its verdict"}},
	} {
		dir := t.TempDir()
		files := map[string]string{"junit.xml": "--junit", "md": "--markdown", "sarif": "--sarif", "baseline.json": "--write-baseline"}
		args := []string{"budget"}
		for name, flag := range files {
			args = append(args, flag, filepath.Join(dir, name))
		}
		r := runCLI(append(args, c.args...), nil)
		require.Equal(t, c.code, r.code, "%s: %s", c.name, r.stderr)
		var all string
		for _, name := range []string{"junit.xml", "md", "sarif"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err, "%s: %s written", c.name, name)
			all += string(data)
		}
		for _, s := range c.want {
			assert.Contains(t, all, s, c.name)
		}
		_, err := os.Stat(filepath.Join(dir, "baseline.json"))
		assert.True(t, os.IsNotExist(err), "%s: a run that measured nothing is no baseline", c.name)
		require.NoError(t, readers.SARIF(filepath.Join(dir, "sarif")), c.name)
		if err := readers.JUnitXSD(filepath.Join(dir, "junit.xml"), "../../reports/testdata/junit.xsd"); !errors.Is(err, readers.ErrMissing) {
			require.NoError(t, err, c.name)
		}
		if _, _, err := readers.Markdown(filepath.Join(dir, "md")); !errors.Is(err, readers.ErrMissing) {
			require.NoError(t, err, c.name)
		}
		junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		require.NoError(t, err)
		if c.code == ExitBadInput {
			assert.Regexp(t, `<testcase [^>]*file="testdata/check/bad.yaml" line="[1-9][0-9]*"`, string(junit))
		}
		assert.Regexp(t, `<testsuite [^>]*hostname="[^"]+"[^>]*timestamp="[0-9T:-]+Z"`, string(junit))
	}
}
