// Package mcpserver serves cardapio's verdicts to AI assistants over the
// Model Context Protocol: the tools check, cost, budget, plan and
// capacity_item, and the format's reference as resources. An assistant
// drafting a DynamoDB model calls it as the deterministic checker: every
// tool runs the library a command runs (budget.Judge, cost.Month,
// budget.Run on the embedded engine, planner.Plan, capacity's rules) and
// returns that command's --format json document as structured content,
// so an assistant reads the same verdicts, units and positions a CI job
// does.
//
// A model the catalog refuses, a path that cannot be read and an
// argument out of range are tool errors (isError, the positioned errors
// as text and as structured content), never protocol failures: the
// assistant reads them and fixes the model.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports"
)

// Options configure a server.
type Options struct {
	// Root is the directory whose tree the tools may read models from;
	// "" is the working directory. A path outside it (by "..", an
	// absolute path or a symbolic link) is refused.
	Root string
	// Parse resolves a model's text, name being the path positions
	// carry: the commands' own loader, so that the server accepts and
	// refuses exactly what they do.
	Parse func(name string, data []byte) (*catalog.Model, error)
}

// New returns a server with every tool and resource, ready to Run on a
// transport.
func New(o Options) (*mcp.Server, error) {
	if o.Parse == nil {
		return nil, errors.New("mcpserver: no model parser")
	}
	r, err := openRoot(o.Root)
	if err != nil {
		return nil, err
	}
	version, _ := reports.ToolVersion()
	s := mcp.NewServer(&mcp.Implementation{Name: "cardapio", Title: "cardapio: DynamoDB data models, checked and priced", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	h := &handlers{root: r, parse: o.Parse}
	h.tools(s)
	resources(s)
	return s, nil
}

const instructions = `cardapio checks a DynamoDB data model (a model.yaml file: tables,
indexes, entities, access patterns, operations with budgets, scenarios)
deterministically. Give tools the model's path, relative to the server's
directory. Call check first: it validates the model (errors at
file:line:column), maps every access pattern to its table or index and
judges every operation's static units against its budget and every
partition's load at the declared peaks. cost prices a month, budget
measures every operation on an embedded DynamoDB engine, plan simulates a
scenario at full scale, capacity_item sizes one item. The format's
reference is the resource cardapio://docs/model-format.md and its JSON
Schema cardapio://schema/model.schema.json.`

// handlers hold what every tool shares: the root it reads under and the
// loader. One tool runs at a time: budget holds an engine's tables and
// plan a population's sample, a few hundred MB each, and an assistant
// waits for one answer before it asks again anyway.
type handlers struct {
	root  *root
	parse func(name string, data []byte) (*catalog.Model, error)
	mu    sync.Mutex
}

// result is a tool's answer: the document (structured content) and,
// when the call failed on its input, the text an assistant reads.
type result struct {
	doc  json.RawMessage
	fail string // "" when the call ran
}

// tool adds a tool whose handler returns a result; it serialises the
// calls, turns a panic into a tool error and a failed call into
// isError with its document as structured content.
func tool[In any](s *mcp.Server, h *handlers, t *mcp.Tool, run func(context.Context, In) (result, error)) {
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out any, err error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		defer func() {
			if p := recover(); p != nil {
				res, out, err = nil, nil, fmt.Errorf("cardapio failed: %v", p)
			}
		}()
		r, err := run(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		if r.fail != "" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.fail}}}, r.doc, nil
		}
		return nil, r.doc, nil
	})
}

// model reads and resolves the model at path. A failure is the result
// to return: check's error document, "ok": false and every positioned
// error (or the one reason the file could not be read).
func (h *handlers) model(path string) (string, *catalog.Model, *result) {
	name, data, err := h.root.read(path, catalog.MaxInputBytes, "a model")
	if err != nil {
		return name, nil, unreadable(name, err)
	}
	m, err := h.parse(name, data)
	var errs catalog.ErrorList
	switch {
	case errors.As(err, &errs):
		var b bytes.Buffer
		_ = reports.CheckErrorsJSON(&b, name, errs)
		return name, nil, &result{doc: b.Bytes(), fail: errs.Error()}
	case err != nil:
		return name, nil, unreadable(name, err)
	}
	return name, m, nil
}

// unreadable is the result of an error without a position in the model,
// in check's document.
func unreadable(path string, err error) *result {
	var b bytes.Buffer
	_ = reports.CheckUnreadableJSON(&b, path, err)
	return &result{doc: b.Bytes(), fail: err.Error()}
}

// document renders a report into a result.
func document(write func(*bytes.Buffer) error) (result, error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return result{}, err
	}
	return result{doc: bytes.TrimSpace(b.Bytes())}, nil
}

// refused is a call whose arguments are wrong for the model: a tool
// error whose document names the model and says why.
func refused(path string, err error) result {
	r := unreadable(path, err)
	r.fail = strings.TrimSpace(r.fail)
	return *r
}
