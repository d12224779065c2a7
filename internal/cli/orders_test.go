package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The second example model, the orders system, is checked and priced in
// CI beside the reference.

func TestCheckOrdersGolden(t *testing.T) {
	out, errOut, code := runCheckCLI("check", "../../examples/orders/model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Empty(t, errOut)
	for _, id := range []string{"OP01", "OP02", "OP03", "OP04", "OP05"} {
		assert.Contains(t, out, "  "+id+"  ")
	}
	assert.Contains(t, out, "opsQueue (operations-queue)    gsi, 10 shards")
	assert.Contains(t, out, "ok: no errors, 0 warnings")
	checkGolden(t, "orders.txt", out)

	out, _, code = runCheckCLI("check", "--strict", "--format", "json", "../../examples/orders/model.yaml")
	require.Equal(t, ExitOK, code)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, true, doc["ok"])
	checkGolden(t, "orders.json", out)

	out, _, code = runCheckCLI("check", "--format", "sarif", "../../examples/orders/model.yaml")
	require.Equal(t, ExitOK, code)
	checkGolden(t, "orders.sarif", stable(out))
}

func TestCostOrdersGolden(t *testing.T) {
	out, errOut, code := runCheckCLI("cost", "../../examples/orders/model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "per 1,000 of 20,000,000 orders:")
	costGolden(t, "orders.txt", out)
}

// The orders system with its queue unsharded (a committed copy, made
// from the model by the edits of peakRegressions): every checkout enters
// the one PENDING partition at the 09:00 campaign, 1,500 puts a second
// against 1,000, and check fails at the index's line with the figure and
// the shard count that would fit.
func TestCheckOrdersUnshardedQueue(t *testing.T) {
	path := peakRegressionPath("unsharded-opsqueue")
	out, errOut, code := runCheckCLI("check", path)
	assert.Equal(t, ExitFailed, code, out)
	line := lineOf(t, path, "  opsQueue:")
	assert.True(t, strings.HasPrefix(errOut, fmt.Sprintf("cardapio: hot partition: %s:%d:3: indexes.opsQueue: 2,717 WCU/s on `queueStatus = PENDING` vs 1,000 (", path, line)), errOut)
	assert.Contains(t, errOut, "CreateOrder: 1,500 puts/s, 1 WCU each")
	assert.Contains(t, errOut, "PaymentConfirmed: 1,050 updates/s of 1,500/s, 1 WCU each")
	assert.Contains(t, errOut, "ClaimNextOrder: 167 updates/s, 1 WCU each")
	assert.Contains(t, errOut, "scenarios.queue-0900")
	assert.Contains(t, errOut, "; 3 shards would fit\n")
	assert.Contains(t, out, "\nFAIL: 1 hot partition; no errors")
	checkGolden(t, "unsharded-opsqueue.txt", out)
	checkGolden(t, "unsharded-opsqueue.stderr", errOut)

	out, _, code = runCheckCLI("check", "--format", "json", path)
	assert.Equal(t, ExitFailed, code)
	units, fit := hotWrite(t, out, "opsQueue")
	// The payments rewrite the queue entry in place: it projects the
	// version they bump. 70% of the orders in the queue are PENDING, as
	// ORDER declares its queueStatus values.
	assert.InDelta(t, 1500+0.7*1500+300000.0/1800, units, 0.001, "the campaign's puts, the payments and the workers' claims")
	assert.Equal(t, 3, fit)
}

// lineOf returns the line of a file equal to text.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for i, l := range strings.Split(string(data), "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("%s: no line %q", path, text)
	return 0
}
