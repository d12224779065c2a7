package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
)

// budget is the complete CI gate: whatever check fails, budget fails
// with the same exit code and, in every one of its outputs, the same
// explanation; whatever check passes, budget passes (on the embedded
// engine, whose figures are the estimate's).
func TestGateSameVerdict(t *testing.T) {
	for _, c := range []struct {
		name, path string
		kind       string // the finding check reaches, "" for none
	}{
		{"unsharded GSI1 of the reference", peakRegressionPath("unsharded-gsi1"), budget.FindingHot},
		{"unsharded queue of the orders", peakRegressionPath("unsharded-opsqueue"), budget.FindingHot},
		{"ride queue on a one-value marker", "../../capacity/estimate/testdata/rides.yaml", budget.FindingHot},
		{"over a static budget", "testdata/check/over.yaml", budget.FindingOverBudget},
		{"a sharded ride queue reading its shards over budget", "testdata/gate/rides-sharded.yaml", budget.FindingOverBudget},
		{"the orders example", "../../examples/orders/model.yaml", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := ExitOK
			if c.kind != "" {
				want = ExitFailed
			}
			out, checkErr, code := runCheckCLI("check", "--format", "json", c.path)
			require.Equal(t, want, code, checkErr)
			var doc struct {
				OK       bool
				Findings []budget.Finding
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			assert.Equal(t, c.kind == "", doc.OK)
			text, _, _ := runCheckCLI("check", c.path)
			sarifOut, _, _ := runCheckCLI("check", "--format", "sarif", c.path)

			files, run := outputs(t, "--table-prefix", "gate-", c.path)
			require.Equal(t, want, run.code, run.stderr)
			// The same lines on stderr as check's.
			assert.Equal(t, checkErr, run.stderr)
			rep := decodeReport(t, files["baseline.json"])
			if c.kind == "" {
				assert.Empty(t, doc.Findings)
				assert.Empty(t, rep.Check.Findings)
				assert.True(t, rep.OK)
				return
			}
			assert.Equal(t, doc.Findings, rep.Check.Findings)
			require.NotEmpty(t, doc.Findings)
			assert.Equal(t, c.kind, doc.Findings[0].Kind)
			assert.False(t, rep.OK)
			for _, f := range doc.Findings {
				words := flat(f.Text)
				for name, got := range map[string]string{"check text": text, "check sarif": sarifText(t, sarifOut),
					"budget text": files["txt"], "budget junit": files["junit.xml"], "budget markdown": files["md"],
					"budget sarif": sarifText(t, files["sarif"])} {
					assert.Contains(t, flat(got), words, "%s: %s %s", name, f.Kind, f.Name)
				}
			}
		})
	}
}

// flat joins a text's words with single spaces: outputs indent an
// explanation's lines, and SARIF and JUnit hold it as it is.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// sarifText gathers the messages of a SARIF log, as a viewer shows
// them: an embedded link [text](id) as its text, escaped brackets as
// brackets.
func sarifText(t *testing.T, doc string) string {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				Message struct{ Text string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(doc), &log))
	var b strings.Builder
	for _, r := range log.Runs {
		for _, x := range r.Results {
			b.WriteString(unlink(x.Message.Text) + "\n")
		}
	}
	return b.String()
}

// --strict fails budget on a review warning the model does not accept,
// as it fails check.
func TestGateStrict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warn.yaml")
	data, err := os.ReadFile("testdata/check/warn.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	_, checkErr, code := runCheckCLI("check", "--strict", path)
	require.Equal(t, ExitFailed, code, checkErr)
	run := runCLI([]string{"budget", "--strict", path}, nil)
	assert.Equal(t, ExitFailed, run.code, run.stderr)
	assert.Equal(t, checkErr, run.stderr)
	assert.Contains(t, run.stdout, "FAIL (check) review")
	run = runCLI([]string{"budget", path}, nil)
	assert.Equal(t, ExitOK, run.code, run.stderr)
}

var linkRe = regexp.MustCompile(`(^|[^\\])\[((?:[^\]\\]|\\.)*)\]\(\d+\)`)

func unlink(s string) string {
	s = linkRe.ReplaceAllString(s, "$1$2")
	return strings.NewReplacer(`\\`, `\`, `\[`, "[", `\]`, "]").Replace(s)
}
