package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
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
}

func TestCostOrdersGolden(t *testing.T) {
	out, errOut, code := runCheckCLI("cost", "../../examples/orders/model.yaml")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "per 1,000 of 20,000,000 orders:")
	costGolden(t, "orders.txt", out)
}

// The orders system with its queue unsharded: every checkout enters the
// one PENDING partition, 1,500 puts a second against 1,000.
func TestCheckOrdersUnshardedQueue(t *testing.T) {
	data, err := os.ReadFile("../../examples/orders/model.yaml")
	require.NoError(t, err)
	src := string(data)
	for _, e := range [][2]string{
		{"    partition: [queueStatus, queueShard]\n", "    partition: [queueStatus]\n"},
		{"    shards:\n      attribute: queueShard\n      count: 10\n      formula: peak new orders a second / 1,000 WCU/s per partition, with headroom for a campaign twice as large\n      peakWritesPerSecond: 1500\n", "    unsharded: a regression, the queue without its shard\n"},
		{`partition: {attribute: GSI2PK, template: "{queueStatus}#{queueShard:02}"}`, `partition: {attribute: GSI2PK, template: "{queueStatus}"}`},
		{"        queueShard: {eq: \"{queueShard}\"}\n      shards: {fanOut: all, workers: 10}\n", ""},
		{"            queueShard: {eq: \"{queueShard}\"}\n          shards: {fanOut: one}\n", ""},
	} {
		require.Contains(t, src, e[0])
		src = strings.Replace(src, e[0], e[1], 1)
	}
	path := filepath.Join(t.TempDir(), "orders-unsharded.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	out, errOut, code := runCheckCLI("check", path)
	assert.Equal(t, ExitFailed, code, out)
	assert.Contains(t, errOut, "indexes.opsQueue")
	assert.Contains(t, errOut, "vs 1,000")
	assert.Contains(t, errOut, "CreateOrder: 1,500 puts/s")
}
