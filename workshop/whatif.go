package workshop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/internal/yamltext"
)

// What-ifs: a change the room tries without editing the file. Each is an
// edit of the model's text at a fixed place (a shard count, an index's
// projection, a read's consistency, a table's billing mode); the edited
// text is loaded and judged as any saved version is, and the same edit,
// applied to the file's text as it is then, is what the write-back saves,
// comments and all.

// Edit kinds.
const (
	EditShards     = "shards"     // Target: an index; Value: the count
	EditProjection = "projection" // Target: an index; Value: ALL, KEYS_ONLY (INCLUDE kept as declared)
	EditConsistent = "consistent" // Target: operation/step index; Value: true or false
	EditBilling    = "billing"    // Target: a table; Value: onDemand or provisioned
)

// Edit is one what-if.
type Edit struct {
	Kind, Target, Value string
}

// maxEdits bounds the what-ifs of one request; maxShards the count one
// may set (DynamoDB's own partition counts are far below).
const (
	maxEdits  = 64
	maxShards = 1000
)

// whatIfForm lists what can be tried on a model, with the current values.
type whatIfForm struct {
	Shards      []choice
	Projections []choice
	Reads       []choice
	Billing     []choice
}

type choice struct {
	Target, Label, Current string
	Options                []string
}

func whatIfOf(m *catalog.Model) *whatIfForm {
	f := &whatIfForm{}
	for _, x := range m.Indexes {
		if x.Shards != nil {
			f.Shards = append(f.Shards, choice{Target: x.Name, Label: x.Name + " (" + x.Shards.Attribute + ")", Current: strconv.Itoa(x.Shards.Count)})
		}
		opts := []string{"ALL", "KEYS_ONLY"}
		if x.Projection.Type == "INCLUDE" {
			opts = append(opts, "INCLUDE")
		}
		f.Projections = append(f.Projections, choice{Target: x.Name, Label: x.Name, Current: x.Projection.Type, Options: opts})
	}
	for _, op := range m.Operations {
		for i, s := range op.Steps {
			if s.Request == nil || s.Request.Index != nil || (s.Kind != catalog.Get && s.Kind != catalog.Query && s.Kind != catalog.Scan) {
				continue
			}
			f.Reads = append(f.Reads, choice{Target: op.Name + "/" + strconv.Itoa(i), Label: op.Name + " step " + s.ID + " (" + string(s.Kind) + ")",
				Current: strconv.FormatBool(s.Request.ConsistentRead), Options: []string{"false", "true"}})
		}
	}
	for _, t := range m.Tables {
		f.Billing = append(f.Billing, choice{Target: t.Name, Label: t.Name, Current: t.Billing.Mode, Options: []string{"onDemand", "provisioned"}})
	}
	return f
}

// Edits reads the what-ifs of a form (kind.target = value), keeping those
// that change the model; every one is checked against the model.
func Edits(m *catalog.Model, form map[string][]string) ([]Edit, error) {
	f := whatIfOf(m)
	var out []Edit
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kind, target, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		vs := form[k]
		if len(vs) != 1 {
			return nil, input.Errorf("what-if %s: one value", trim(k))
		}
		v := strings.TrimSpace(vs[0])
		var list []choice
		switch kind {
		case EditShards:
			list = f.Shards
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxShards {
				return nil, input.Errorf("what-if shards of %s: a whole number from 1 to %d, not %q", trim(target), maxShards, trim(v))
			}
			v = strconv.Itoa(n)
		case EditProjection, EditConsistent, EditBilling:
			list = map[string][]choice{EditProjection: f.Projections, EditConsistent: f.Reads, EditBilling: f.Billing}[kind]
		default:
			continue
		}
		i := slices.IndexFunc(list, func(c choice) bool { return c.Target == target })
		if i < 0 {
			return nil, input.Errorf("what-if %s: the model has no %q to change", kind, trim(target))
		}
		c := list[i]
		if c.Options != nil && !slices.Contains(c.Options, v) {
			return nil, input.Errorf("what-if %s of %s: one of %s, not %q", kind, target, strings.Join(c.Options, ", "), trim(v))
		}
		if v == c.Current {
			continue
		}
		out = append(out, Edit{Kind: kind, Target: target, Value: v})
		if len(out) > maxEdits {
			return nil, input.Errorf("at most %d what-ifs at once", maxEdits)
		}
	}
	return out, nil
}

// Apply makes the edits in text, which m was loaded from.
func Apply(m *catalog.Model, text []byte, edits []Edit) ([]byte, error) {
	var err error
	for _, e := range edits {
		switch e.Kind {
		case EditShards:
			text, err = yamltext.Set(text, []string{"indexes", e.Target, "shards", "count"}, e.Value)
			// A shard attribute computed as a hash modulo the count
			// follows it.
			if x := m.Index(e.Target); err == nil && x != nil && x.Shards != nil {
				for _, a := range m.Attributes {
					if a.Name == x.Shards.Attribute && a.Computed != nil && a.Computed.Modulo > 0 {
						text, err = yamltext.Set(text, []string{"attributes", a.Name, "computed", "modulo"}, e.Value)
					}
				}
			}
		case EditProjection:
			text, err = yamltext.Set(text, []string{"indexes", e.Target, "projection", "type"}, e.Value)
			if err == nil && e.Value != "INCLUDE" {
				text, err = yamltext.Delete(text, []string{"indexes", e.Target, "projection", "attributes"})
			}
		case EditConsistent:
			op, i, _ := strings.Cut(e.Target, "/")
			n, _ := strconv.Atoi(i)
			o := m.Operation(op)
			if o == nil || n < 0 || n >= len(o.Steps) {
				return nil, input.Errorf("what-if: no step %s", e.Target)
			}
			text, err = yamltext.Set(text, []string{"operations", op, "steps", i, string(o.Steps[n].Kind), "consistentRead"}, e.Value)
		case EditBilling:
			text, err = billing(m, text, e)
		}
		if err != nil {
			return nil, input.Errorf("what-if %s of %s: %v", e.Kind, e.Target, err)
		}
	}
	return text, nil
}

// billing switches a table's billing mode. Provisioned capacity is sized
// from the month's requests of the table and its indexes (their average
// rate at the default target utilisation, at least 1 unit).
func billing(m *catalog.Model, text []byte, e Edit) ([]byte, error) {
	path := []string{"tables", e.Target, "billing"}
	text, err := yamltext.Set(text, append(path, "mode"), e.Value)
	if err != nil {
		return nil, err
	}
	if e.Value == "onDemand" {
		for _, k := range []string{"read", "write"} {
			if text, err = yamltext.Delete(text, append(path, k)); err != nil {
				return nil, err
			}
		}
		return text, nil
	}
	w, r := 1.0, 1.0
	if b, err := cost.Month(m, cost.Options{}); err == nil {
		var wru, rru float64
		for _, s := range cost.Structures(m, b, cost.Options{}) {
			if s.Table == e.Target {
				wru += s.WRU
				rru += s.RRU
			}
		}
		month := 30 * 24 * 3600.0
		w = max(1, math.Ceil(wru/month/cost.DefaultUtilisation))
		r = max(1, math.Ceil(rru/month/cost.DefaultUtilisation))
	}
	if text, err = yamltext.Set(text, append(path, "read"), fmt.Sprintf("{units: %g}", r)); err != nil {
		return nil, err
	}
	return yamltext.Set(text, append(path, "write"), fmt.Sprintf("{units: %g}", w))
}

// Outcome is a what-if judged beside the model as saved.
type Outcome struct {
	Edits   []Edit
	Errors  catalog.ErrorList
	Problem string
	Rows    []Compared
	Hot     [2][]peakRow // before, after: the hottest partitions
	Text    []byte
}

// Compared is one figure before and after.
type Compared struct {
	What, Before, After string
	Changed             bool
}

// WhatIf applies edits to the snapshot's text and judges the result.
func WhatIf(ctx context.Context, load Loader, s *Snapshot, edits []Edit) (*Outcome, error) {
	if !s.OK() {
		return nil, input.Errorf("the model as saved is refused: fix it first")
	}
	text, err := Apply(s.Model, s.Text, edits)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Edits: edits, Text: text}
	m, err := load(s.Name, text)
	var errs catalog.ErrorList
	switch {
	case errors.As(err, &errs):
		o.Errors = errs
		return o, nil
	case err != nil:
		o.Problem = err.Error()
		return o, nil
	}
	g, err := budget.Judge(m, capacity.Default(), false)
	if err != nil {
		o.Problem = err.Error()
		return o, nil
	}
	bill, err := cost.Month(m, cost.Options{})
	if err != nil {
		o.Problem = err.Error()
		return o, nil
	}
	row := func(what, b, a string) { o.Rows = append(o.Rows, Compared{what, b, a, b != a}) }
	verdict := func(g *budget.Gate) string {
		if g.OK() {
			return "PASS"
		}
		return "FAIL: " + g.Summary()
	}
	row("verdict", verdict(s.Gate), verdict(g))
	if s.Bill != nil {
		row("month, total", usd(s.Bill.TotalUSD), usd(bill.TotalUSD))
		row("month, requests", usd(s.Bill.RequestsUSD), usd(bill.RequestsUSD))
		row("provisioned alternative", usd(s.Bill.Provisioned.USD), usd(bill.Provisioned.USD))
	}
	before := budgets(s.Gate)
	after := budgets(g)
	for i := range after {
		b := "—"
		if i < len(before) && before[i].Name == after[i].Name {
			b = before[i].Verdict + " " + before[i].Static
		}
		row("budget "+after[i].Name, b, after[i].Verdict+" "+after[i].Static)
	}
	hb, ha := peaks(s.Gate.Peaks), peaks(g.Peaks)
	was := map[string]peakRow{}
	for _, p := range hb {
		was[p.Structure+" "+p.Unit] = p
	}
	for _, p := range ha {
		b := "—"
		if q, ok := was[p.Structure+" "+p.Unit]; ok {
			b = hot(q)
		}
		row("hottest partition of "+p.Structure+" ("+p.Unit+")", b, hot(p))
	}
	o.Hot[0] = top(hb, 5)
	o.Hot[1] = top(ha, 5)
	return o, nil
}

// hot writes a partition's load at the peak against its limit.
func hot(p peakRow) string {
	s := fmt.Sprintf("%.1f%% of the limit", p.Percent)
	if p.Shards > 0 {
		s += fmt.Sprintf(", %d shards", p.Shards)
	}
	if p.Over {
		s += ", HOT"
	}
	return s
}

func top(rs []peakRow, n int) []peakRow { return rs[:min(n, len(rs))] }

// usd writes dollars as the page shows them.
func usd(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("US$ %.0f", x)
	case x >= 1:
		return fmt.Sprintf("US$ %.2f", x)
	}
	return fmt.Sprintf("US$ %.4f", x)
}
