package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/planner"
	"github.com/cardapio/cardapio/reports"
)

type checkArgs struct {
	Model  string `json:"model" jsonschema:"the model file (model.yaml), relative to the server's directory"`
	Strict bool   `json:"strict,omitempty" jsonschema:"fail on review warnings the model does not accept, as check --strict"`
}

type costArgs struct {
	Model       string  `json:"model" jsonschema:"the model file (model.yaml), relative to the server's directory"`
	Utilisation float64 `json:"utilisation,omitempty" jsonschema:"target utilisation of the provisioned alternative, above 0 up to 1 (default 0.7)"`
	Prices      string  `json:"prices,omitempty" jsonschema:"a price file (cardapio prices writes one from the AWS Price List), relative to the server's directory"`
	Region      string  `json:"region,omitempty" jsonschema:"the region whose prices to use, from the price file (default: its only one; without a file only us-east-1)"`
}

// maxPriceFile caps a price file: a few dozen figures a region.
const maxPriceFile = 1 << 20

type budgetArgs struct {
	Model  string   `json:"model" jsonschema:"the model file (model.yaml), relative to the server's directory"`
	Strict bool     `json:"strict,omitempty" jsonschema:"fail on review warnings the model does not accept, as budget --strict"`
	Only   []string `json:"only,omitempty" jsonschema:"run only these operations (OP) or variants (OP/VARIANT)"`
}

type planArgs struct {
	Model    string         `json:"model" jsonschema:"the model file (model.yaml), relative to the server's directory"`
	Scenario string         `json:"scenario" jsonschema:"one of the model's scenarios, by name"`
	Shards   map[string]int `json:"shards,omitempty" jsonschema:"what if: shard count by sharded index name (the key \"\" sets every sharded index), 1 to 4096"`
	Series   bool           `json:"series,omitempty" jsonschema:"include the per-second series and heatmaps (large: hundreds of KB)"`
}

type itemArgs struct {
	Item string `json:"item" jsonschema:"one item in DynamoDB JSON, as text: {\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}"`
}

// maxItemText bounds an item's text: an item is at most 400 KB, its JSON
// with base64 and indentation far less than this.
const maxItemText = 16 << 20

// readOnly marks the tools that change nothing outside the process.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}

func (h *handlers) tools(s *mcp.Server) {
	tool(s, h, &mcp.Tool{Name: "check", Title: "Check a model", Annotations: readOnly,
		Description: "Validate a model (schema and semantics; every error at file:line:column with a hint), map its access patterns to tables and indexes, review it, and judge every operation's static units against its budget and every partition at the declared peaks. The result is check --format json: ok, errors, findings (kind, name, at {file, line, column, path}, text) and the sections. A model that loads but fails the gate is ok: false with its findings; a model that does not load is a tool error with its positioned errors."},
		h.check)
	tool(s, h, &mcp.Tool{Name: "cost", Title: "Price a model's month", Annotations: readOnly,
		Description: "A month of the model in US$ (cost --format json): every operation at its declared volume with its static units, per operation and access pattern, storage under Standard and Standard-IA, PITR and exports, the total, the cost per 1,000 of the business unit and the provisioned alternative. Prices are us-east-1's unless a price file and a region say otherwise."},
		h.cost)
	tool(s, h, &mcp.Tool{Name: "budget", Title: "Measure every operation on the embedded engine", Annotations: readOnly,
		Description: "Run every business operation in each budget variant on cardapio's embedded DynamoDB engine (in process, nothing leaves the machine) and compare the units it reports with the declared budgets; judged first as check judges the model (budget --format json: ok, check findings with positions, every variant's measured and static units, the excesses explained at their line)."},
		h.budget)
	tool(s, h, &mcp.Tool{Name: "plan", Title: "Plan a scenario at full scale", Annotations: readOnly,
		Description: "Simulate one of the model's scenarios at full scale, partition by partition, second by second (plan --format json without its series unless asked): the busiest second of every table and index against its limit, the hottest partitions, throttled requests by reason, the first second a limit refused, the warm throughput and shard count that would throttle nothing, the span's US$, and the verdict."},
		h.plan)
	tool(s, h, &mcp.Tool{Name: "capacity_item", Title: "Size an item", Annotations: readOnly,
		Description: "The size of one item in DynamoDB JSON by DynamoDB's billing rules, attribute by attribute, and its read and write units (strong, eventual, transactional). An item over 400 KB or malformed JSON is a tool error with its line and column."},
		h.item)
}

func (h *handlers) check(_ context.Context, a checkArgs) (result, error) {
	name, m, bad := h.model(a.Model)
	if bad != nil {
		return *bad, nil
	}
	g, err := budget.Judge(m, capacity.Default(), a.Strict)
	if err != nil {
		return refused(a.Model, fmt.Errorf("%s: %w", a.Model, err)), nil
	}
	c := &reports.Check{Path: name, Model: m, Gate: g}
	return document(func(b *bytes.Buffer) error { return c.JSON(b) })
}

func (h *handlers) cost(_ context.Context, a costArgs) (result, error) {
	if a.Utilisation != 0 && !(a.Utilisation > 0 && a.Utilisation <= 1) {
		return refused(a.Model, fmt.Errorf("utilisation must be above 0 and at most 1, not %v", a.Utilisation)), nil
	}
	var name string
	var data []byte
	if a.Prices != "" {
		var err error
		if name, data, err = h.root.read(a.Prices, maxPriceFile, "a price file"); err != nil {
			return refused(a.Model, err), nil
		}
	}
	prices, err := capacity.PricesFor(name, data, a.Region)
	if err != nil {
		return refused(a.Model, err), nil
	}
	_, m, bad := h.model(a.Model)
	if bad != nil {
		return *bad, nil
	}
	bill, err := cost.Month(m, cost.Options{Utilisation: a.Utilisation, Prices: prices})
	if err != nil {
		return refused(a.Model, fmt.Errorf("%s: %w", a.Model, err)), nil
	}
	bill.Source = a.Model // as cost names the file it priced
	return document(func(b *bytes.Buffer) error { return reports.Cost(b, "json", bill) })
}

func (h *handlers) budget(ctx context.Context, a budgetArgs) (result, error) {
	name, m, bad := h.model(a.Model)
	if bad != nil {
		return *bad, nil
	}
	rep, err := budget.Run(ctx, m, name, budget.Options{Strict: a.Strict, Only: a.Only})
	if err != nil {
		if theirs(err) {
			return refused(a.Model, err), nil
		}
		return result{}, err
	}
	return document(func(b *bytes.Buffer) error { return reports.JSON(b, rep) })
}

func (h *handlers) plan(_ context.Context, a planArgs) (result, error) {
	if a.Scenario == "" {
		return refused(a.Model, errors.New("no scenario: name one of the model's scenarios")), nil
	}
	name, m, bad := h.model(a.Model)
	if bad != nil {
		return *bad, nil
	}
	// A scenario is the model's own, by name: the server reads no
	// scenario file.
	if m.Scenario(a.Scenario) == nil {
		var names []string
		for _, s := range m.Scenarios {
			names = append(names, s.Name)
		}
		return refused(a.Model, fmt.Errorf("no scenario %q in %s (it has: %v)", a.Scenario, a.Model, names)), nil
	}
	r, err := planner.Plan(m, planner.Options{Scenario: a.Scenario, Shards: a.Shards, SearchShards: true})
	if err != nil {
		if theirs(err) {
			return refused(a.Model, fmt.Errorf("%s: %w", a.Model, err)), nil
		}
		return result{}, err
	}
	r.File = name
	if !a.Series {
		for i := range r.Resources {
			r.Resources[i].Read, r.Resources[i].Write = nil, nil
		}
		r.Heatmaps = nil
	}
	return document(func(b *bytes.Buffer) error { return reports.Plan(b, "json", r) })
}

// theirs reports whether a library refused the caller's input (exit 2
// of a command): a tool error, where anything else is cardapio's.
func theirs(err error) bool {
	var errs catalog.ErrorList
	return input.Is(err) || errors.As(err, &errs)
}

// itemSize is capacity_item's document: the item's units and where its
// bytes come from.
type itemSize struct {
	capacity.ItemUnits
	Attributes []itemPart `json:"attributes"`
}

// itemPart is one attribute, map key or list element of the breakdown.
type itemPart struct {
	Path       string `json:"path"`
	Type       string `json:"type"`
	NameBytes  int    `json:"nameBytes"`
	ValueBytes int    `json:"valueBytes"`
	Size       int    `json:"size"`
	How        string `json:"how"`
}

// maxBreakdown is how many children of a list or map are itemised.
const maxBreakdown = 20

func (h *handlers) item(_ context.Context, a itemArgs) (result, error) {
	const name = "item"
	if len(a.Item) > maxItemText {
		return refused(name, fmt.Errorf("an item of %d bytes of JSON: at most %d", len(a.Item), maxItemText)), nil
	}
	it, err := attr.DecodeItem([]byte(a.Item))
	if err != nil {
		var se *attr.SyntaxError
		if errors.As(err, &se) {
			return positioned(name, se.Line, se.Column, se.Msg), nil
		}
		return refused(name, fmt.Errorf("%s: %w", name, err)), nil
	}
	rules := capacity.Default()
	if err := rules.CheckItem(nil, it); err != nil {
		return refused(name, fmt.Errorf("%s: %w", name, err)), nil
	}
	out := itemSize{ItemUnits: capacity.UnitsOf(rules.ItemSize(it)), Attributes: []itemPart{}}
	var path []string
	for _, p := range rules.Breakdown(it, maxBreakdown) {
		path = append(path[:min(p.Depth, len(path))], p.Name)
		how := p.Note
		if p.Element > 0 {
			how = "+1 element; " + how
		}
		out.Attributes = append(out.Attributes, itemPart{joinPath(path), p.Type.String(), p.NameBytes, p.ValueBytes, p.Size(), how})
	}
	return document(func(b *bytes.Buffer) error { return reports.JSON(b, out) })
}

// joinPath writes a breakdown path: a.b[0].c.
func joinPath(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 && (len(p) == 0 || p[0] != '[') {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// positioned is a tool error at a line and column of a text argument, in
// check's error document.
func positioned(file string, line, col int, msg string) result {
	errs := catalog.ErrorList{&catalog.Error{Pos: catalog.Pos{File: file, Line: line, Col: col}, Msg: msg}}
	var b bytes.Buffer
	_ = reports.CheckErrorsJSON(&b, file, errs)
	return result{doc: b.Bytes(), fail: errs.Error()}
}
