package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
)

// Check is check's report on a valid model: the map of access patterns
// and structures, the review warnings, the static capacity of every
// operation in each budget variant and the peaks, with the static gate's
// verdict (budget.Judge), which it renders and never judges again.
type Check struct {
	Path  string // the model's path as given on the command line
	Model *catalog.Model
	Gate  *budget.Gate
}

// OK reports whether the check passes.
func (c *Check) OK() bool { return c.Gate.OK() }

// checkSection is one part of check's report. Sections are rendered in
// order, as text under a title or as one key of the JSON object.
type checkSection struct {
	key   string
	title string
	text  func(w io.Writer)
	data  any
}

func (c *Check) sections() []checkSection {
	return []checkSection{mapSection(c.Model), warningSection(c.Model), capacitySection(c.Gate), c.peakSection()}
}

// Text writes the report as check prints it.
func (c *Check) Text(w io.Writer) {
	w = TextOut(w)
	m := c.Model
	fmt.Fprintf(w, "%s: model %s: %s, %s, %s, %s, %s\n", Text(c.Path), Text(m.Name),
		digits.Count(len(m.AccessPatterns), "access pattern"), digits.Count(len(m.Tables), "table"), digits.Count(len(m.Indexes), "index"),
		digits.Count(len(m.Entities), "entity"), digits.Count(len(m.Operations), "operation"))
	for _, s := range c.sections() {
		fmt.Fprintf(w, "\n%s\n", s.title)
		s.text(w)
	}
	n := Unaccepted(m.Warnings)
	if !c.Gate.OK() {
		fmt.Fprintf(w, "\nFAIL: %s; no errors, %s (%d accepted)\n", c.Gate.Summary(), digits.Count(n, "warning"), len(m.Warnings)-n)
		return
	}
	holds := ""
	if len(c.Gate.Variants) > 0 {
		holds = ", every budget holds"
	}
	if c.declared() {
		holds += ", no partition over its limit at the declared peaks"
	} else {
		holds += ", no peak declared to weigh partitions against"
	}
	fmt.Fprintf(w, "\nok: no errors, %s (%d accepted)%s\n", digits.Count(n, "warning"), len(m.Warnings)-n, holds)
}

// JSON writes the report as one JSON document: "ok", no errors, and one
// key per section.
func (c *Check) JSON(w io.Writer) error {
	out := checkJSON{Model: c.Path, Name: c.Model.Name, OK: c.OK(), Errors: []jsonError{}, Findings: c.Gate.Findings, Sections: map[string]any{}}
	if out.Findings == nil {
		out.Findings = []budget.Finding{}
	}
	for _, s := range c.sections() {
		out.Sections[s.key] = s.data
	}
	return JSON(w, out)
}

// CheckErrorsJSON writes check's JSON document for a model that does not
// load: "ok": false and every positioned error.
func CheckErrorsJSON(w io.Writer, path string, errs catalog.ErrorList) error {
	return JSON(w, checkJSON{Model: path, OK: false, Errors: jsonErrors(errs)})
}

// CheckUnreadableJSON writes check's JSON document for an error without a
// position in the model (the file cannot be read): its only error has no
// line.
func CheckUnreadableJSON(w io.Writer, path string, err error) error {
	return JSON(w, checkJSON{Model: path, OK: false, Errors: []jsonError{{File: path, Message: err.Error()}}})
}

type checkJSON struct {
	Model  string      `json:"model"`
	Name   string      `json:"name,omitempty"`
	OK     bool        `json:"ok"`
	Errors []jsonError `json:"errors"`
	// Findings is what fails a valid model (budget.Gate), as budget
	// reports it too.
	Findings []budget.Finding `json:"findings,omitempty"`
	Sections map[string]any   `json:"sections,omitempty"`
}

type jsonError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`   // absent when the file could not be read
	Column  int    `json:"column,omitempty"` // absent with line
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func jsonErrors(errs catalog.ErrorList) []jsonError {
	out := make([]jsonError, 0, len(errs))
	for _, e := range errs {
		out = append(out, jsonError{e.Pos.File, e.Pos.Line, e.Pos.Col, e.Path, e.Msg, e.Hint})
	}
	return out
}

// Unaccepted counts the review warnings the model does not accept.
func Unaccepted(ws []catalog.Finding) int {
	n := 0
	for _, f := range ws {
		if f.Accepted == "" {
			n++
		}
	}
	return n
}

func mapSection(m *catalog.Model) checkSection {
	mp := m.Map()
	return checkSection{
		key:   "map",
		title: "Access patterns -> structures",
		data:  mp,
		text: func(w io.Writer) {
			for _, p := range mp.Patterns {
				fmt.Fprintf(w, "  %s  %s [%s]\n", p.ID, Text(p.Question), p.Consistency)
				switch {
				case p.Loose:
					fmt.Fprintf(w, "        LOOSE: no structure answers it and no destination is declared\n")
				case p.Kind == "elsewhere":
					fmt.Fprintf(w, "        not answered by the table -> %s\n", p.GoesTo)
				default:
					var extra []string
					if p.Order != "" {
						extra = append(extra, p.Order)
					}
					if p.PageSize > 0 {
						extra = append(extra, fmt.Sprintf("pages of %d", p.PageSize))
					}
					if p.Shards != "" {
						extra = append(extra, p.Shards)
					}
					fmt.Fprintf(w, "        %s %s: %s %s\n", p.Kind, p.Structure, p.Call, p.Key)
					if len(extra) > 0 {
						fmt.Fprintf(w, "        %s\n", strings.Join(extra, "; "))
					}
				}
				if len(p.Operations) > 0 {
					fmt.Fprintf(w, "        run by %s\n", strings.Join(p.Operations, ", "))
				}
			}
			fmt.Fprintf(w, "\nStructures -> access patterns\n")
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			for _, s := range mp.Structures {
				name := s.Name
				if s.Alias != "" {
					name += " (" + s.Alias + ")"
				}
				kind := s.Kind
				if s.Shards > 0 {
					kind += ", " + digits.Count(s.Shards, "shard")
				}
				qs := strings.Join(s.Questions, " ")
				if s.Loose {
					qs = "LOOSE: serves no question"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, kind, s.Key, qs)
			}
			_ = tw.Flush()
		},
	}
}

func warningSection(m *catalog.Model) checkSection {
	type jw struct {
		File     string `json:"file"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Path     string `json:"path"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		Hint     string `json:"hint,omitempty"`
		Accepted string `json:"accepted,omitempty"`
	}
	data := make([]jw, 0, len(m.Warnings))
	for _, f := range m.Warnings {
		data = append(data, jw{f.Pos.File, f.Pos.Line, f.Pos.Col, f.Path, f.Code, f.Msg, f.Hint, f.Accepted})
	}
	return checkSection{
		key:   "warnings",
		title: fmt.Sprintf("Warnings (%d)", len(m.Warnings)),
		data:  data,
		text: func(w io.Writer) {
			if len(m.Warnings) == 0 {
				fmt.Fprintln(w, "  none")
			}
			for _, f := range m.Warnings {
				fmt.Fprintf(w, "  %s\n", Text(fmt.Sprintf("%s: warning: %s: %s [%s]", f.Pos, f.Path, f.Msg, f.Code)))
				if f.Accepted != "" {
					fmt.Fprintf(w, "    accepted: %s\n", Text(f.Accepted))
				} else if f.Hint != "" {
					fmt.Fprintf(w, "    hint: %s\n", Text(f.Hint))
				}
			}
		},
	}
}

func capacitySection(g *budget.Gate) checkSection {
	vs := g.Variants
	if vs == nil {
		vs = []estimate.Variant{}
	}
	return checkSection{
		key:   "capacity",
		title: "Capacity: static units per operation and budget variant",
		data:  vs,
		text: func(w io.Writer) {
			if len(vs) == 0 {
				fmt.Fprintln(w, "  no operations")
				return
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			for _, v := range vs {
				name := v.Operation
				if v.Name != "" {
					name += "/" + v.Name
				}
				verdict := "PASS"
				switch {
				case v.BudgetWRU == nil && v.BudgetRRU == nil:
					verdict = "no budget"
				case g.Result(v.Operation, v.Name) != nil && g.Result(v.Operation, v.Name).Verdict != budget.Pass:
					verdict = "OVER"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, vsBudget(v.WRU, v.BudgetWRU, "WRU"), vsBudget(v.RRU, v.BudgetRRU, "RRU"), verdict)
			}
			_ = tw.Flush()
			for _, f := range g.Of(budget.FindingOverBudget) {
				fmt.Fprintf(w, "  OVER %s\n", indent(f.Text, "  ")[2:])
			}
		},
	}
}

// vsBudget writes "8 WRU / 8", or the units alone without a budget.
func vsBudget(units float64, budget *float64, unit string) string {
	if budget == nil {
		if units == 0 {
			return "-"
		}
		return estimate.Num(units) + " " + unit
	}
	return estimate.Num(units) + " " + unit + " / " + estimate.Num(*budget)
}
