package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
)

// Golden files of check are rewritten by: go test ./internal/cli -run Check
// -update (the flag and updating are shared with the other command tests).

// runCheckCLI runs cardapio and returns stdout, stderr and the exit code.
func runCheckCLI(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func checkGolden(t *testing.T, name, got string) { t.Helper(); goldenFile(t, "check", name, got) }

func TestCheckReferenceGolden(t *testing.T) {
	out, errOut, code := runCheckCLI("check", "../../model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Empty(t, errOut)
	for i := 1; i <= 12; i++ {
		assert.Contains(t, out, fmt.Sprintf("AP%02d ", i))
	}
	assert.Contains(t, out, "not answered by the table -> S3 export + Athena")
	assert.NotContains(t, out, "LOOSE")
	checkGolden(t, "reference.txt", out)

	out, errOut, code = runCheckCLI("check", "--format", "json", "../../model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, true, doc["ok"])
	checkGolden(t, "reference.json", out)
}

func TestCheckDefaultPath(t *testing.T) {
	t.Chdir("../..")
	out, _, code := runCheckCLI("check")
	assert.Equal(t, ExitOK, code)
	assert.True(t, strings.HasPrefix(out, "model.yaml: model lastro:"), out)
}

func TestCheckBadModel(t *testing.T) {
	out, errOut, code := runCheckCLI("check", "testdata/check/bad.yaml")
	assert.Equal(t, ExitBadInput, code)
	assert.Empty(t, out)
	assert.NotContains(t, errOut, "catalog.")
	assert.NotContains(t, errOut, "goroutine")
	checkGolden(t, "bad.txt", errOut)

	out, _, code = runCheckCLI("check", "--format", "json", "testdata/check/bad.yaml")
	assert.Equal(t, ExitBadInput, code)
	var doc struct {
		OK     bool
		Errors []struct {
			Line, Column int
			Message      string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.False(t, doc.OK)
	require.NotEmpty(t, doc.Errors)
	for _, e := range doc.Errors {
		assert.GreaterOrEqual(t, e.Line, 1)
		assert.GreaterOrEqual(t, e.Column, 1)
	}
	checkGolden(t, "bad.json", out)
}

func TestCheckStrict(t *testing.T) {
	out, _, code := runCheckCLI("check", "testdata/check/warn.yaml")
	assert.Equal(t, ExitOK, code, "warnings alone do not fail")
	assert.Contains(t, out, "\nok: no errors, 5 warnings (0 accepted)")
	checkGolden(t, "warn.txt", out)
	out, errOut, code := runCheckCLI("check", "--strict", "testdata/check/warn.yaml")
	assert.Equal(t, ExitFailed, code)
	// A strict failure says so on both streams: the verdict is FAIL, and
	// every warning not accepted is on stderr.
	assert.NotContains(t, out, "\nok: ")
	assert.Contains(t, out, "\nFAIL: 5 review warnings not accepted (--strict); no errors, 5 warnings (0 accepted)\n")
	assert.Equal(t, 5, strings.Count(errOut, "cardapio: --strict: warning not accepted: testdata/check/warn.yaml:"), errOut)
	assert.Contains(t, errOut, "testdata/check/warn.yaml:23:3: indexes.byStatus: byStatus has no throttling alarm")
	out, _, _ = runCheckCLI("check", "--strict", "--format", "json", "testdata/check/warn.yaml")
	var doc struct{ OK bool }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.False(t, doc.OK, "a strict failure is not ok in JSON either")
	_, _, code = runCheckCLI("check", "--strict", "../../model.yaml")
	assert.Equal(t, ExitOK, code, "the reference model accepts its only warning")
}

func TestCheckInputErrors(t *testing.T) {
	_, errOut, code := runCheckCLI("check", "testdata/check/missing.yaml")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "missing.yaml")
	_, errOut, code = runCheckCLI("check", "--format", "xml", "../../model.yaml")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "--format")
	_, _, code = runCheckCLI("check", "a.yaml", "b.yaml")
	assert.Equal(t, ExitBadInput, code)

	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.yaml")
	require.NoError(t, os.WriteFile(junk, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}, 0o644))
	_, errOut, code = runCheckCLI("check", junk)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, ":1:")

	data, err := os.ReadFile("../../model.yaml")
	require.NoError(t, err)
	trunc := filepath.Join(dir, "trunc.yaml")
	require.NoError(t, os.WriteFile(trunc, data[:len(data)/3], 0o644))
	_, errOut, code = runCheckCLI("check", trunc)
	assert.Equal(t, ExitBadInput, code)
	assert.Regexp(t, `trunc\.yaml:\d+:\d+: `, errOut)
}

func TestCheckCapacitySection(t *testing.T) {
	out, _, code := runCheckCLI("check", "../../model.yaml")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Capacity: static units per operation and budget variant")
	assert.Contains(t, out, "ApplySettlement/partial")
	assert.NotContains(t, out, "OVER")
	assert.Contains(t, out, "every budget holds")

	out, _, code = runCheckCLI("check", "--format", "json", "../../model.yaml")
	require.Equal(t, ExitOK, code)
	var doc struct {
		OK       bool
		Sections struct {
			Capacity []struct {
				Operation, Variant string
				WRU, RRU           float64
				BudgetWRU          *float64
				Steps              []struct {
					ID      string
					Reasons []struct{ Target, Text string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.True(t, doc.OK)
	found := false
	for _, v := range doc.Sections.Capacity {
		if v.Operation == "ApplySettlement" && v.Variant == "partial" {
			found = true
			assert.Equal(t, 10.0, v.WRU)
			require.NotNil(t, v.BudgetWRU)
			require.NotEmpty(t, v.Steps)
		}
	}
	assert.True(t, found, "ApplySettlement/partial in the JSON capacity section")
}

func TestCheckOverBudget(t *testing.T) {
	out, errOut, code := runCheckCLI("check", "testdata/check/over.yaml")
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, out, "MoveBucket/move")
	assert.Contains(t, out, "OVER")
	for _, s := range []string{"over budget: MoveBucket/move is estimated at 4 WRU against a budget of 3: 1 WRU over.", "step move",
		"CONTRACT", "1,047 B, 23 B over 1 KB: 2 WRU", "GSI2: key changes: delete 193 B (1) + put 193 B (1) = 2 WRU"} {
		assert.Contains(t, errOut, s)
	}
	checkGolden(t, "over.txt", out)
	checkGolden(t, "over.stderr", errOut)

	out, _, code = runCheckCLI("check", "--format", "json", "testdata/check/over.yaml")
	assert.Equal(t, ExitFailed, code)
	var doc struct {
		OK       bool
		Findings []budget.Finding
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.False(t, doc.OK)
	require.Len(t, doc.Findings, 1)
	f := doc.Findings[0]
	assert.Equal(t, budget.FindingOverBudget, f.Kind)
	assert.Equal(t, "MoveBucket/move", f.Name)
	assert.Equal(t, "operations.MoveBucket.budgets.move.wru", f.At.Path)
	assert.Contains(t, f.Text, "the write changes the key of GSI2")
}

// The reference model with GSI1 unsharded (a committed copy, made from
// the model by the edits of peakRegressions) fails the peak gate with the
// 00h07 numbers, at the index's line, and says how many shards would fit.
func TestCheckHotPartition(t *testing.T) {
	path := peakRegressionPath("unsharded-gsi1")
	out, errOut, code := runCheckCLI("check", path)
	assert.Equal(t, ExitFailed, code)
	assert.True(t, strings.HasPrefix(errOut, fmt.Sprintf("cardapio: hot partition: %s:%d:3: indexes.GSI1: 2,030 WCU/s on `tenantId = its largest value (focus), nextActionDate = one value", path, lineOf(t, path, "  GSI1:"))), errOut)
	assert.Contains(t, errOut, "RescheduleNextAction: 2,000 updates/s, 1 WCU each")
	assert.Contains(t, errOut, "; 3 shards would fit\n")
	assert.Contains(t, out, "\nFAIL: 1 hot partition; no errors")
	checkGolden(t, "unsharded-gsi1.txt", out)
	checkGolden(t, "unsharded-gsi1.stderr", errOut)

	out, _, code = runCheckCLI("check", "--format", "json", path)
	assert.Equal(t, ExitFailed, code)
	units, fit := hotWrite(t, out, "GSI1")
	assert.InDelta(t, 2030, units, 0.001, "2,000 reschedules + the largest tenant's 60% of 50 settlements")
	assert.Equal(t, 3, fit)
}

// hotWrite reads check's JSON report: it must fail, and the index's
// hottest partition takes units WCU/s that fit shards would hold.
func hotWrite(t *testing.T, out, index string) (units float64, fit int) {
	t.Helper()
	var doc struct {
		OK       bool
		Sections struct {
			Peak struct {
				Structures []struct {
					Index string
					Write *struct {
						Units float64
						Fit   int
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.False(t, doc.OK)
	for _, s := range doc.Sections.Peak.Structures {
		if s.Index == index {
			require.NotNil(t, s.Write, index)
			return s.Write.Units, s.Write.Fit
		}
	}
	t.Fatalf("no index %s in the peak section", index)
	return 0, 0
}
