package budget

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cancelled transaction's cause is placed at the condition of the
// action that fails, wherever it stands in the transaction: the orders
// checkout with its second action (the payment lookup) failing points at
// items[1], its first at items[0].
func TestCancelledAtFailingAction(t *testing.T) {
	src, err := os.ReadFile("../examples/orders/model.yaml")
	require.NoError(t, err)
	for action, item := range map[string]string{"payment-lookup": "items[1]", "order": "items[0]"} {
		text := strings.Replace(string(src), "        failedStep: order\n        wru: 4\n        samples: {order: {before: placed}}",
			"        failedStep: "+action+"\n        wru: 1\n        samples: {"+action+": {before: "+map[string]string{"order": "placed", "payment-lookup": "payment"}[action]+"}}", 1)
		require.NotEqual(t, string(src), text)
		path := filepath.Join(t.TempDir(), "model.yaml")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		m := load(t, path)
		var found bool
		for _, r := range static(t, m) {
			if r.Name() != "CreateOrder/retried" {
				continue
			}
			require.Equal(t, Fail, r.Verdict)
			for _, x := range r.Excesses {
				for _, c := range x.Causes {
					if c.Kind == CauseFailedCondition {
						found = true
						assert.Equal(t, "operations.CreateOrder.steps[0].transaction."+item+".put.condition", c.At.Path, action)
						assert.Contains(t, lineAt(t, path, c.At.Line), "condition:", action)
						assert.Contains(t, c.Text, "step "+action, action)
					}
				}
			}
		}
		assert.True(t, found, "%s: the cancellation is a cause", action)
	}
}
