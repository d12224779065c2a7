package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/docs"
	"github.com/cardapio/cardapio/internal/mcpserver"
	"github.com/cardapio/cardapio/schema"
)

// mcpSession connects the SDK's own client, in process, to the server
// `cardapio mcp` serves, reading under root.
func mcpSession(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	s, err := mcpserver.New(mcpserver.Options{Root: root, Parse: parseModel})
	require.NoError(t, err)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and returns its result and structured content
// as JSON; a protocol failure fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s: a protocol failure", name)
	require.NotNil(t, res.StructuredContent, "%s: no structured content", name)
	return res, res.StructuredContent
}

// decoded is a JSON document as a generic value, to compare documents
// whatever their layout.
func decoded(t *testing.T, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	return v
}

func contentText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPServer initializes a session, lists the tools and resources,
// reads the resources and calls every tool on both examples: each answer
// is the document the command prints with --format json (check, cost
// and capacity item to the byte's value; budget's and plan's verdicts and
// figures, their timings aside).
func TestMCPServer(t *testing.T) {
	t.Chdir("../..") // the server and the commands read the same paths
	cs := mcpSession(t, ".")
	ctx := context.Background()

	init := cs.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, "cardapio", init.ServerInfo.Name)
	assert.NotEmpty(t, init.ServerInfo.Version)
	assert.Contains(t, init.Instructions, "check")
	require.NotNil(t, init.Capabilities.Tools)
	require.NotNil(t, init.Capabilities.Resources)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if tl.Name != "capacity_item" {
			assert.Contains(t, string(schema), `"model"`, tl.Name)
		}
	}
	slices.Sort(names)
	assert.Equal(t, []string{"budget", "capacity_item", "check", "cost", "plan"}, names)

	res, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	want := map[string]string{mcpserver.FormatURI: docs.ModelFormat, mcpserver.SchemaURI: string(schema.JSON)}
	require.Len(t, res.Resources, len(want))
	for _, r := range res.Resources {
		text, ok := want[r.URI]
		require.True(t, ok, r.URI)
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		require.NoError(t, err)
		require.Len(t, got.Contents, 1)
		assert.Equal(t, text, got.Contents[0].Text, r.URI)
		assert.Equal(t, r.MIMEType, got.Contents[0].MIMEType)
	}

	for _, c := range []struct{ model, scenario string }{
		{"model.yaml", "midnight-0007"},
		{"examples/orders/model.yaml", "queue-0900"},
	} {
		t.Run(c.model, func(t *testing.T) {
			args := map[string]any{"model": c.model}
			for _, tool := range []string{"check", "cost"} {
				res, doc := callTool(t, cs, tool, args)
				assert.False(t, res.IsError, "%s: %s", tool, contentText(res))
				run := runCLI([]string{tool, c.model, "--format", "json"}, nil)
				require.Equal(t, 0, run.code, run.stderr)
				assert.Equal(t, decoded(t, run.stdout), doc, "%s: the command's document", tool)
				assert.Equal(t, doc, decoded(t, contentText(res)), "%s: the text content is the same JSON", tool)
			}

			res, doc := callTool(t, cs, "budget", args)
			assert.False(t, res.IsError, contentText(res))
			run := runCLI([]string{"budget", c.model, "--format", "json"}, nil)
			require.Equal(t, 0, run.code, run.stderr)
			assert.Equal(t, verdicts(decoded(t, run.stdout)), verdicts(doc), "budget: the command's verdicts and units")
			assert.Equal(t, true, doc.(map[string]any)["ok"])

			res, doc = callTool(t, cs, "plan", map[string]any{"model": c.model, "scenario": c.scenario})
			assert.False(t, res.IsError, contentText(res))
			run = runCLI([]string{"plan", c.model, "--scenario", c.scenario, "--format", "json"}, nil)
			require.Equal(t, 0, run.code, run.stderr)
			cli := decoded(t, run.stdout).(map[string]any)
			got := doc.(map[string]any)
			for _, k := range []string{"verdict", "throttled", "advice", "cost", "population", "loads", "scenario", "file"} {
				assert.Equal(t, cli[k], got[k], "plan: %s", k)
			}
			for _, r := range got["resources"].([]any) {
				assert.Nil(t, r.(map[string]any)["read"], "plan: no series unless asked")
			}
		})
	}

	t.Run("cost in sa-east-1", func(t *testing.T) {
		const prices = "docs/tutorial/prices-recorded.yaml"
		res, doc := callTool(t, cs, "cost", map[string]any{"model": "examples/orders/model.yaml", "prices": prices, "region": "sa-east-1"})
		require.False(t, res.IsError, contentText(res))
		run := runCLI([]string{"cost", "examples/orders/model.yaml", "--prices", prices, "--region", "sa-east-1", "--format", "json"}, nil)
		require.Equal(t, 0, run.code, run.stderr)
		assert.Equal(t, decoded(t, run.stdout), doc)
		assert.Equal(t, "sa-east-1", doc.(map[string]any)["region"])
		for _, args := range []map[string]any{
			{"model": "model.yaml", "region": "sa-east-1"},
			{"model": "model.yaml", "prices": prices},
			{"model": "model.yaml", "prices": "../prices.yaml", "region": "sa-east-1"},
			{"model": "model.yaml", "prices": "model.yaml", "region": "sa-east-1"},
		} {
			res, doc := callTool(t, cs, "cost", args)
			assert.True(t, res.IsError, "%v", args)
			assert.Equal(t, false, doc.(map[string]any)["ok"], "%v", args)
		}
	})

	t.Run("plan series", func(t *testing.T) {
		_, doc := callTool(t, cs, "plan", map[string]any{"model": "examples/orders/model.yaml", "scenario": "queue-0900", "series": true, "shards": map[string]any{"": 1}})
		got := doc.(map[string]any)
		assert.NotEmpty(t, got["resources"].([]any)[0].(map[string]any)["read"])
		assert.NotEmpty(t, got["whatIf"], "the shards what-if is applied")
	})

	t.Run("capacity_item", func(t *testing.T) {
		item := `{"pk": {"S": "CUSTOMER#42"}, "tags": {"L": [{"S": "a"}, {"N": "12.5"}]}, "m": {"M": {"x": {"BOOL": true}}}}`
		res, doc := callTool(t, cs, "capacity_item", map[string]any{"item": item})
		require.False(t, res.IsError, contentText(res))
		run := runCLI([]string{"capacity", "item", "-", "--format", "json"}, []byte(item))
		require.Equal(t, 0, run.code, run.stderr)
		got := doc.(map[string]any)
		for k, v := range decoded(t, run.stdout).(map[string]any) {
			assert.Equal(t, v, got[k], k)
		}
		var paths []string
		for _, a := range got["attributes"].([]any) {
			paths = append(paths, a.(map[string]any)["path"].(string))
		}
		assert.Subset(t, paths, []string{"pk", "tags", "tags[0]", "tags[1]", "m", "m.x"})
	})
}

// verdicts are a budget report's judgement: the gate's verdict, its
// findings and every variant's measured and static units, without the
// run's timings and table names.
func verdicts(doc any) any {
	d := doc.(map[string]any)
	out := map[string]any{"ok": d["ok"], "check": d["check"]}
	var rs []any
	for _, r := range d["results"].([]any) {
		m := r.(map[string]any)
		rs = append(rs, []any{m["operation"], m["variant"], m["verdict"], m["measured"], m["static"], m["budget"], m["at"]})
	}
	out["results"] = rs
	return out
}

// TestMCPBadInput: a model the catalog refuses, a path that cannot be
// read, a path out of the root and a bad argument are tool errors with
// positions, never protocol failures, and the text is the command's.
func TestMCPBadInput(t *testing.T) {
	t.Chdir("../..")
	cs := mcpSession(t, ".")
	const bad = "catalog/testdata/invalid/ref-unknown-index-attribute.yaml"
	stderr := runCLI([]string{"check", bad}, nil).stderr
	require.NotEmpty(t, stderr)
	for _, tool := range []string{"check", "cost", "budget", "plan"} {
		args := map[string]any{"model": bad}
		if tool == "plan" {
			args["scenario"] = "x"
		}
		res, doc := callTool(t, cs, tool, args)
		require.True(t, res.IsError, tool)
		assert.Equal(t, strings.TrimSpace(stderr), strings.TrimSpace(contentText(res)), tool)
		d := doc.(map[string]any)
		assert.Equal(t, false, d["ok"])
		errs := d["errors"].([]any)
		require.NotEmpty(t, errs)
		e := errs[0].(map[string]any)
		assert.Equal(t, bad, e["file"], tool)
		assert.Equal(t, float64(36), e["line"], tool)
		assert.Equal(t, float64(27), e["column"], tool)
		assert.Contains(t, e["message"], "unknown attribute", tool)
	}

	res, doc := callTool(t, cs, "capacity_item", map[string]any{"item": "{\"pk\": {\"S\": \"a\"},\n \"n\": {\"N\": }}"})
	require.True(t, res.IsError)
	e := doc.(map[string]any)["errors"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(2), e["line"])
	assert.Greater(t, e["column"], float64(1))

	res, _ = callTool(t, cs, "capacity_item", map[string]any{"item": `{"pk": {"S": "` + strings.Repeat("x", 400<<10) + `"}}`})
	require.True(t, res.IsError)
	assert.Contains(t, contentText(res), "over the 409,600 B limit")

	for args, says := range map[string]map[string]any{
		"no scenario":   {"model": "model.yaml", "scenario": "nope"},
		"utilisation":   {"model": "model.yaml", "utilisation": 2},
		"shards":        {"model": "model.yaml", "scenario": "midnight-0007", "shards": map[string]any{"": 0}},
		"unknown index": {"model": "model.yaml", "scenario": "midnight-0007", "shards": map[string]any{"NOPE": 2}},
	} {
		tool := "plan"
		if args == "utilisation" {
			tool = "cost"
		}
		res, doc := callTool(t, cs, tool, says)
		assert.True(t, res.IsError, args)
		assert.Equal(t, false, doc.(map[string]any)["ok"], args)
	}
	// An argument of the wrong type is refused by the tool's input
	// schema, as a tool error too.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"model": 42}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
}

// TestMCPPaths holds the server to its root: nothing outside it, nothing
// but a regular file of a model's size, and a FIFO never hangs a call.
func TestMCPPaths(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	model, err := os.ReadFile("../../examples/orders/model.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outside.yaml"), model, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "model.yaml"), model, 0o644))
	require.NoError(t, os.Symlink("../outside.yaml", filepath.Join(root, "escape.yaml")))
	require.NoError(t, os.Symlink("sub/model.yaml", filepath.Join(root, "inside.yaml")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo.yaml"), 0o644))
	big, err := os.Create(filepath.Join(root, "big.yaml"))
	require.NoError(t, err)
	require.NoError(t, big.Truncate(11<<20))
	require.NoError(t, big.Close())
	cs := mcpSession(t, root)

	for _, ok := range []string{"sub/model.yaml", "inside.yaml", "./sub/../inside.yaml", filepath.Join(root, "sub", "model.yaml")} {
		res, doc := callTool(t, cs, "check", map[string]any{"model": ok})
		assert.False(t, res.IsError, "%s: %s", ok, contentText(res))
		assert.Equal(t, true, doc.(map[string]any)["ok"], ok)
	}
	for path, says := range map[string]string{
		"../outside.yaml":                    "outside the server's directory",
		filepath.Join(dir, "outside.yaml"):   "outside the server's directory",
		"escape.yaml":                        "escapes",
		"sub":                                "not a regular file",
		"fifo.yaml":                          "not a regular file",
		"big.yaml":                           "larger than",
		"missing.yaml":                       "no such file",
		"":                                   "no path of a model",
		strings.Repeat("a/", maxPathProbe()): "at most",
	} {
		res, doc := callTool(t, cs, "check", map[string]any{"model": path})
		require.True(t, res.IsError, path)
		assert.Contains(t, contentText(res), says, path)
		assert.Equal(t, false, doc.(map[string]any)["ok"], path)
	}
}

// maxPathProbe is a path's length in "a/" pairs past the server's bound.
func maxPathProbe() int { return 4096/2 + 1 }
