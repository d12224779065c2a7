package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

func init() { commands = append(commands, newCheckCmd) }

type checkOptions struct {
	path   string
	format string
	strict bool
}

func newCheckCmd(e *env) *cobra.Command {
	o := &checkOptions{}
	c := &cobra.Command{
		Use:   "check [model.yaml]",
		Short: "Validate a model: schema, semantics, design review and static capacity against budgets",
		Long: `Check loads the model (./model.yaml by default), validates it against the
schema and the semantic rules, and prints which structure answers every
access pattern and which questions every table and index serves, then the
review warnings.

It then estimates every business operation statically, in each budget
variant, from the sample items and the billing rules, and compares the
units with the declared budget (write and read units separately).

With --format json, stdout holds one JSON document whatever the outcome:
a bad model gives "ok": false and its errors (file, line, column, path,
message, hint); a file that cannot be read gives one error without a line.
Text output goes to stdout and errors to stderr.

Exit codes: 0 ok; 2 the model is invalid (errors are listed with
file:line:column) or cannot be read; 3 an operation exceeds its budget (the
step and the cause are named), or --strict and a warning that the model does
not accept.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.path = "model.yaml"
			if len(args) == 1 {
				o.path = args[0]
			}
			if o.format != "text" && o.format != "json" {
				return badInput(fmt.Errorf("--format must be text or json, not %q", o.format))
			}
			return runCheck(e, o)
		},
	}
	c.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	c.Flags().BoolVar(&o.strict, "strict", false, "fail (exit 3) on review warnings the model does not accept")
	return c
}

func runCheck(e *env, o *checkOptions) error {
	m, err := catalog.LoadWith(o.path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	var errs catalog.ErrorList
	if errors.As(err, &errs) {
		if o.format == "json" {
			writeJSON(e.stdout, checkJSON{Model: o.path, OK: false, Errors: jsonErrors(errs)})
		} else {
			fmt.Fprintln(e.stderr, errs.Error())
		}
		return reported(ExitBadInput, errs)
	}
	if err != nil {
		return checkFailed(e, o, err)
	}
	vs, err := estimate.New(m, capacity.Default()).Operations()
	if err != nil {
		return checkFailed(e, o, fmt.Errorf("%s: static capacity: %w", o.path, err))
	}
	var over []string
	for _, v := range vs {
		for _, x := range v.Over {
			over = append(over, fmt.Sprintf("%s/%s: %s", v.Operation, v.Name, x))
		}
	}
	sections := []checkSection{mapSection(m), warningSection(m), capacitySection(vs)}
	if o.format == "json" {
		renderCheckJSON(e.stdout, o.path, m, sections, len(over) == 0)
	} else {
		renderCheckText(e.stdout, o.path, m, sections, len(vs) > 0, len(over))
	}
	if len(over) > 0 {
		for _, s := range over {
			fmt.Fprintf(e.stderr, "cardapio: over budget: %s\n", s)
		}
		return failed(fmt.Errorf("%s over budget", count(len(over), "budget")))
	}
	if o.strict {
		if n := unaccepted(m.Warnings); n > 0 {
			return failed(fmt.Errorf("%d review warnings", n))
		}
	}
	return nil
}

// checkFailed reports an error that has no position in the model (the
// file cannot be read): on stderr, and with --format json also as the
// report's only error, so that stdout is always one JSON document.
func checkFailed(e *env, o *checkOptions, err error) error {
	if o.format == "json" {
		writeJSON(e.stdout, checkJSON{Model: o.path, OK: false, Errors: []jsonError{{File: o.path, Message: err.Error()}}})
	}
	return badInput(err)
}

// checkSection is one part of check's report. Sections are rendered in
// order, as text under a title or as one key of the JSON object; further
// checks (static capacity against budgets) add sections.
type checkSection struct {
	key   string
	title string
	text  func(w io.Writer)
	data  any
}

// renderCheckText writes the report; budgets says whether any budget was
// checked, over how many variants exceed theirs.
func renderCheckText(w io.Writer, path string, m *catalog.Model, sections []checkSection, budgets bool, over int) {
	fmt.Fprintf(w, "%s: model %s: %s, %s, %s, %s, %s\n", path, m.Name,
		count(len(m.AccessPatterns), "access pattern"), count(len(m.Tables), "table"), count(len(m.Indexes), "index"),
		count(len(m.Entities), "entity"), count(len(m.Operations), "operation"))
	for _, s := range sections {
		fmt.Fprintf(w, "\n%s\n", s.title)
		s.text(w)
	}
	n := unaccepted(m.Warnings)
	if over > 0 {
		fmt.Fprintf(w, "\nFAIL: %s over budget; no errors, %s (%d accepted)\n", count(over, "variant"), count(n, "warning"), len(m.Warnings)-n)
		return
	}
	holds := ""
	if budgets {
		holds = ", every budget holds"
	}
	fmt.Fprintf(w, "\nok: no errors, %s (%d accepted)%s\n", count(n, "warning"), len(m.Warnings)-n, holds)
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

func renderCheckJSON(w io.Writer, path string, m *catalog.Model, sections []checkSection, ok bool) {
	out := checkJSON{Model: path, Name: m.Name, OK: ok, Errors: []jsonError{}, Sections: map[string]any{}}
	for _, s := range sections {
		out.Sections[s.key] = s.data
	}
	writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages quote "<<" and "->"; this is not HTML
	_ = enc.Encode(v)
}

func unaccepted(ws []catalog.Finding) int {
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
				fmt.Fprintf(w, "  %s  %s [%s]\n", p.ID, p.Question, p.Consistency)
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
				fmt.Fprintf(w, "  %s: warning: %s: %s [%s]\n", f.Pos, f.Path, f.Msg, f.Code)
				if f.Accepted != "" {
					fmt.Fprintf(w, "    accepted: %s\n", f.Accepted)
				} else if f.Hint != "" {
					fmt.Fprintf(w, "    hint: %s\n", f.Hint)
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
