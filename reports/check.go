package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Check is check's report on a valid model: the map of access patterns
// and structures, the review warnings, and the static capacity of every
// operation in each budget variant.
type Check struct {
	Path     string // the model's path as given on the command line
	Model    *catalog.Model
	Variants []estimate.Variant
	// Strict makes review warnings the model does not accept a failure.
	Strict bool
	// Peaks is the peak gate's finding; nil when it was not run.
	Peaks *estimate.Peaks
}

// failures names what fails the check, one phrase each ("1 variant over
// budget"); none when it passes.
func (c *Check) failures() []string {
	var out []string
	if n := len(c.Over()); n > 0 {
		out = append(out, count(n, "variant")+" over budget")
	}
	if n := len(c.HotPartitions()); n > 0 {
		out = append(out, count(n, "hot partition"))
	}
	if n := Unaccepted(c.Model.Warnings); c.Strict && n > 0 {
		out = append(out, count(n, "review warning")+" not accepted (--strict)")
	}
	return out
}

// OK reports whether the check passes.
func (c *Check) OK() bool { return len(c.failures()) == 0 }

// Unaccepted lists the review warnings the model does not accept, as
// check prints them on stderr when --strict fails.
func (c *Check) Unaccepted() []string {
	var out []string
	for _, f := range c.Model.Warnings {
		if f.Accepted == "" {
			out = append(out, Text(fmt.Sprintf("%s: %s: %s [%s]", f.Pos, f.Path, f.Msg, f.Code)))
		}
	}
	return out
}

// Over lists the budgets the static figures exceed, one line each:
// "Operation/variant: 4 WRU over the budget of 3: step ...".
func (c *Check) Over() []string {
	var out []string
	for _, v := range c.Variants {
		for _, x := range v.Over {
			out = append(out, fmt.Sprintf("%s/%s: %s", v.Operation, v.Name, x))
		}
	}
	return out
}

// checkSection is one part of check's report. Sections are rendered in
// order, as text under a title or as one key of the JSON object.
type checkSection struct {
	key   string
	title string
	text  func(w io.Writer)
	data  any
}

func (c *Check) sections() []checkSection {
	out := []checkSection{mapSection(c.Model), warningSection(c.Model), capacitySection(c.Variants)}
	if c.Peaks != nil {
		out = append(out, c.peakSection())
	}
	return out
}

// Text writes the report as check prints it.
func (c *Check) Text(w io.Writer) {
	w = textOut(w)
	m := c.Model
	fmt.Fprintf(w, "%s: model %s: %s, %s, %s, %s, %s\n", Text(c.Path), Text(m.Name),
		count(len(m.AccessPatterns), "access pattern"), count(len(m.Tables), "table"), count(len(m.Indexes), "index"),
		count(len(m.Entities), "entity"), count(len(m.Operations), "operation"))
	for _, s := range c.sections() {
		fmt.Fprintf(w, "\n%s\n", s.title)
		s.text(w)
	}
	n := Unaccepted(m.Warnings)
	if fails := c.failures(); len(fails) > 0 {
		fmt.Fprintf(w, "\nFAIL: %s; no errors, %s (%d accepted)\n", strings.Join(fails, ", "), count(n, "warning"), len(m.Warnings)-n)
		return
	}
	holds := ""
	if len(c.Variants) > 0 {
		holds = ", every budget holds"
	}
	switch {
	case c.Peaks != nil && c.declared():
		holds += ", no partition over its limit at the declared peaks"
	case c.Peaks != nil:
		holds += ", no peak declared to weigh partitions against"
	}
	fmt.Fprintf(w, "\nok: no errors, %s (%d accepted)%s\n", count(n, "warning"), len(m.Warnings)-n, holds)
}

// JSON writes the report as one JSON document: "ok", no errors, and one
// key per section.
func (c *Check) JSON(w io.Writer) error {
	out := checkJSON{Model: c.Path, Name: c.Model.Name, OK: c.OK(), Errors: []jsonError{}, Sections: map[string]any{}}
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

// count writes n and the noun, in the plural when n is not 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "x"):
		noun += "es"
	case strings.HasSuffix(noun, "ty"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

type checkJSON struct {
	Model    string         `json:"model"`
	Name     string         `json:"name,omitempty"`
	OK       bool           `json:"ok"`
	Errors   []jsonError    `json:"errors"`
	Sections map[string]any `json:"sections,omitempty"`
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
					kind += fmt.Sprintf(", %d shards", s.Shards)
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

func capacitySection(vs []estimate.Variant) checkSection {
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
				case !v.Pass():
					verdict = "OVER"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, vsBudget(v.WRU, v.BudgetWRU, "WRU"), vsBudget(v.RRU, v.BudgetRRU, "RRU"), verdict)
			}
			_ = tw.Flush()
			for _, v := range vs {
				for _, x := range v.Over {
					fmt.Fprintf(w, "  OVER %s/%s: %s\n", v.Operation, v.Name, x)
				}
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
