//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPStdio starts the binary as an assistant does (cardapio mcp, the
// stdio transport), lists its tools and calls check on the orders
// example and on a broken model; closing the session ends the process
// with exit 0.
func TestMCPStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = "../.."
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 5)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"model": "examples/orders/model.yaml"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	doc := res.StructuredContent.(map[string]any)
	assert.Equal(t, true, doc["ok"])
	assert.Equal(t, "orders", doc["name"])

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "cost", Arguments: map[string]any{"model": "catalog/testdata/invalid/ref-unknown-index-attribute.yaml"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	e := res.StructuredContent.(map[string]any)["errors"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(36), e["line"])
	assert.Equal(t, float64(27), e["column"])

	require.NoError(t, cs.Close())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
}

// TestMCPPiped pipes a session's requests into the binary and closes its
// input: every call read before the end is answered, then it exits 0.
func TestMCPPiped(t *testing.T) {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = "../.."
	in, err := os.Open("../../docs/tutorial/mcp-session.jsonl")
	require.NoError(t, err)
	defer in.Close()
	cmd.Stdin = in
	out, err := cmd.Output()
	require.NoError(t, err)
	ids := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var msg map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
		ids[msg["id"].(float64)] = msg["result"].(map[string]any)
	}
	require.Len(t, ids, 5, "one answer to each call")
	assert.Len(t, ids[2]["tools"], 5)
	assert.Equal(t, true, ids[3]["structuredContent"].(map[string]any)["ok"])
	assert.Equal(t, true, ids[4]["isError"])
	assert.Equal(t, float64(1), ids[5]["structuredContent"].(map[string]any)["writeUnits"])
}
