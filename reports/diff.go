package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/diff"
)

// RuleBreaking is the SARIF rule of a breaking change diff found.
const RuleBreaking = "breaking-change"

func init() {
	ruleText[RuleBreaking] = [2]string{"A change breaks what BASE's code or data relies on",
		"A change of the model that code generated from the base version, or the data it wrote, no longer fits: an element removed or renamed, a key template moved, an index that no longer holds what its readers read, a generated signature changed. Acknowledge it in the model's acknowledge list with the reason it is safe."}
}

// usdDelta writes a change of US$: "+12.50" or "-0.03".
func usdDelta(d float64) string {
	s := estimate.USD(math.Abs(d))
	if d < 0 {
		return "-" + s
	}
	return "+" + s
}

// duration writes a duration in seconds the short way: 40 s, 12 min, 3.5 h.
func duration(s float64) string {
	switch {
	case s <= 0:
		return "-"
	case s < 120:
		return estimate.Num(math.Ceil(s)) + " s"
	case s < 7200:
		return estimate.Num(math.Round(s/6)/10) + " min"
	}
	return estimate.Num(math.Round(s/360)/10) + " h"
}

// unchanged reports whether a line is on both sides and moves by less
// than a cent a month: left out of the reports.
func unchanged(l diff.Line) bool { return l.In == 3 && math.Abs(l.Delta()) < 0.005 }

func inText(in int) string {
	switch in {
	case 1:
		return " (removed)"
	case 2:
		return " (added)"
	}
	return ""
}

// DiffText writes the comparison of two models as a readable report.
func DiffText(w io.Writer, r *diff.Report) {
	w = TextOut(w)
	fmt.Fprintf(w, "%s -> %s\n", Text(r.Base), Text(r.Head))
	all, open := r.Breaking()
	fmt.Fprintf(w, "\nWhat changed (%d changes, %d breaking, %d not acknowledged)\n", len(r.Changes), len(all), len(open))
	for _, c := range r.Changes {
		mark := " "
		if c.Breaking {
			mark = "!"
			if c.Acknowledged != "" {
				mark = "~"
			}
		}
		fmt.Fprintf(w, "  %s %s:%d: %s: %s\n", mark, Text(c.File), c.Line, Text(c.Path), Text(c.Text))
		if c.Acknowledged != "" {
			fmt.Fprintf(w, "      acknowledged: %s\n", Text(c.Acknowledged))
		}
	}
	if len(r.Changes) == 0 {
		fmt.Fprintln(w, "  nothing")
	}

	run := r.Run
	fmt.Fprintf(w, "\nWhat it costs to run (US$ a month, on-demand, the cost command's bill)\n")
	var t table
	t.add("", "base", "head", "change")
	t.add("total", estimate.USD(run.Total.Base), estimate.USD(run.Total.Head), usdDelta(run.Total.Delta()))
	for _, sec := range []struct {
		name  string
		lines []diff.Line
	}{{"operations", run.Operations}, {"access patterns", run.Patterns}, {"tables and indexes", run.Structures}} {
		t.add(sec.name)
		for _, l := range sec.lines {
			if unchanged(l) {
				continue
			}
			t.add("  "+l.Name+inText(l.In), estimate.USD(l.Base), estimate.USD(l.Head), usdDelta(l.Delta()))
		}
	}
	t.write(w)
	fmt.Fprintf(w, "  (lines that do not change are left out)\n")
	t = table{}
	t.add("budget (static units a run)", "base WRU", "head WRU", "base RRU", "head RRU", "verdict")
	for _, b := range run.Budgets {
		if b.Base == b.Head && b.BaseVerdict == b.HeadVerdict {
			continue
		}
		t.add(b.Name, estimate.Num(b.Base.WRU), estimate.Num(b.Head.WRU), estimate.Num(b.Base.RRU), estimate.Num(b.Head.RRU), verdictChange(b.BaseVerdict, b.HeadVerdict))
	}
	if len(t.rows) > 1 {
		fmt.Fprintln(w)
		t.write(w)
	}
	t = table{}
	t.add("hottest partition at the peaks", "base", "head", "limit")
	for _, p := range run.Peaks {
		if round3(p.Base) == round3(p.Head) {
			continue
		}
		t.add(p.Name+" "+p.Direction+"/s", estimate.Num(round3(p.Base)), estimate.Num(round3(p.Head)), estimate.Num(p.Limit))
	}
	if len(t.rows) > 1 {
		fmt.Fprintln(w)
		t.write(w)
	}

	fmt.Fprintf(w, "\nWhat it costs to get there (%d steps)\n", len(r.Migration))
	for _, s := range r.Migration {
		fmt.Fprintf(w, "  %d. [%s] %s\n", s.Order, s.Phase, Text(s.Step))
		if s.WriteUnits > 0 || s.ReadUnits > 0 {
			fmt.Fprintf(w, "     %s items, %s WRU", big(s.Items), big(s.WriteUnits))
			if s.ReadUnits > 0 {
				fmt.Fprintf(w, " + %s RRU", big(s.ReadUnits))
			}
			fmt.Fprintf(w, ", US$ %s, %s at %s WRU/s (%s)\n", estimate.USD(s.USD), duration(s.Seconds), estimate.Num(s.Rate), Text(s.RateSource))
			for _, e := range s.Entities {
				if e.Mean == 0 {
					continue
				}
				fmt.Fprintf(w, "       %s: %s items x %s WRU (mean of %d drawn)\n", Text(e.Entity), big(e.Items), estimate.Num(round3(e.Mean)), e.Drawn)
			}
		}
		fmt.Fprintf(w, "     %s", onlineText(s))
		if s.Note != "" {
			fmt.Fprintf(w, "; %s", Text(s.Note))
		}
		fmt.Fprintln(w)
	}
	if len(r.Migration) > 0 {
		tt := r.MigrationTotal
		fmt.Fprintf(w, "  total: %s WRU, %s RRU, US$ %s, %s of writes\n", big(tt.WriteUnits), big(tt.ReadUnits), estimate.USD(tt.USD), duration(tt.Seconds))
	} else {
		fmt.Fprintln(w, "  nothing to migrate")
	}
	if rh := r.Rehearsal; rh != nil {
		rehearsalText(w, rh)
	}

	fmt.Fprintf(w, "\nWhat breaks\n")
	breaks(w, all, "  nothing", "NOT acknowledged", func(c diff.Change, ack string) string {
		return fmt.Sprintf("  %s (%s:%d, %s)", Text(c.Path), Text(c.File), c.Line, ack)
	})
	if r.OK {
		fmt.Fprintf(w, "\nok: %d breaking changes, all acknowledged; month US$ %s -> %s\n", len(all), estimate.USD(r.MonthlyUSD.Base), estimate.USD(r.MonthlyUSD.Head))
		return
	}
	fmt.Fprintln(w)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL: %s\n", Text(f))
	}
}

// breaks writes one line per breaking change, saying whether it is
// acknowledged, or none when there is none.
func breaks(w io.Writer, all []diff.Change, none, open string, line func(diff.Change, string) string) {
	if len(all) == 0 {
		fmt.Fprintln(w, none)
	}
	for _, c := range all {
		ack := open
		if c.Acknowledged != "" {
			ack = "acknowledged"
		}
		fmt.Fprintln(w, line(c, ack))
	}
}

func rehearsalText(w io.Writer, rh *diff.Rehearsal) {
	fmt.Fprintf(w, "\nRehearsed on the embedded engine at scale %s (%s items of BASE)\n", strconv.FormatFloat(rh.Scale, 'g', -1, 64), big(float64(rh.Items)))
	var t table
	t.add("step", "estimated WRU", "on the items", "measured WRU", "")
	for _, s := range rh.Steps {
		v := "agree"
		if !s.Agree {
			v = "DIFFER: " + s.Why
		} else if s.Why != "" {
			v = "agree: " + s.Why
		}
		t.add(fmt.Sprintf("%d. %s", s.Order, clip(s.Step, 60)), big(s.Estimated), big(s.OnItems), big(s.Measured), v)
	}
	t.write(w)
	for _, inv := range rh.Invariants {
		fmt.Fprintf(w, "  invariant %s\n", Text(inv))
	}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func verdictChange(a, b budget.Verdict) string {
	switch {
	case a == "":
		return string(b)
	case b == "":
		return string(a) + " -> gone"
	case a == b:
		return string(b)
	}
	return string(a) + " -> " + string(b)
}

func onlineText(s diff.Step) string {
	var parts []string
	if s.Online {
		parts = append(parts, "online")
	} else {
		parts = append(parts, "NOT online")
	}
	if s.DualWrite {
		parts = append(parts, "needs a dual-write window")
	}
	return strings.Join(parts, ", ")
}

// DiffMarkdown writes the comparison for a pull-request comment or a
// job summary: the verdict, the changes, the cost delta, the migration
// plan with its US$, the breaking changes.
func DiffMarkdown(w io.Writer, r *diff.Report) {
	all, open := r.Breaking()
	verdict := "✅ ok"
	if !r.OK {
		verdict = "❌ fails"
	}
	fmt.Fprintf(w, "### cardapio diff: `%s` → `%s`: %s\n\n", mdCode(r.Base), mdCode(r.Head), verdict)
	fmt.Fprintf(w, "Monthly cost: **%s → %s** (%s); migration: **%s**, %s WRU, %s of writes; %d changes, %d breaking, %d not acknowledged.\n\n",
		estimate.USD(r.MonthlyUSD.Base), estimate.USD(r.MonthlyUSD.Head), usdDelta(r.MonthlyUSD.Head-r.MonthlyUSD.Base),
		estimate.USD(r.MigrationTotal.USD), big(r.MigrationTotal.WriteUnits), duration(r.MigrationTotal.Seconds), len(r.Changes), len(all), len(open))
	for _, f := range r.Failures {
		fmt.Fprintf(w, "- ❌ %s\n", mdText(f))
	}
	if len(r.Failures) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "#### What changed\n\n| | path | line | change |\n|---|---|---|---|\n")
	for _, c := range r.Changes {
		mark := ""
		if c.Breaking {
			mark = "❗ breaking"
			if c.Acknowledged != "" {
				mark = "acknowledged: " + mdText(c.Acknowledged)
			}
		}
		fmt.Fprintf(w, "| %s | `%s` | %d | %s |\n", mark, mdCode(c.Path), c.Line, mdText(c.Text))
	}
	fmt.Fprintf(w, "\n#### What it costs to run (US$ a month)\n\n| | base | head | change |\n|---|---:|---:|---:|\n")
	fmt.Fprintf(w, "| **total** | %s | %s | %s |\n", estimate.USD(r.Run.Total.Base), estimate.USD(r.Run.Total.Head), usdDelta(r.Run.Total.Delta()))
	for _, sec := range []struct {
		name  string
		lines []diff.Line
	}{{"operation", r.Run.Operations}, {"access pattern", r.Run.Patterns}, {"table or index", r.Run.Structures}} {
		for _, l := range sec.lines {
			if unchanged(l) {
				continue
			}
			fmt.Fprintf(w, "| %s `%s`%s | %s | %s | %s |\n", sec.name, mdCode(l.Name), inText(l.In), estimate.USD(l.Base), estimate.USD(l.Head), usdDelta(l.Delta()))
		}
	}
	fmt.Fprintf(w, "\n#### What it costs to get there\n\n| # | phase | step | WRU | US$ | time | online |\n|---:|---|---|---:|---:|---:|---|\n")
	for _, s := range r.Migration {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s |\n", s.Order, s.Phase, mdText(s.Step), big(s.WriteUnits), estimate.USD(s.USD), duration(s.Seconds), onlineText(s))
	}
	if rh := r.Rehearsal; rh != nil {
		fmt.Fprintf(w, "\nRehearsed on the embedded engine at scale %s:\n\n| step | estimated WRU | measured WRU | |\n|---|---:|---:|---|\n", estimate.Num(rh.Scale))
		for _, s := range rh.Steps {
			v := "agree"
			if !s.Agree {
				v = "differ: " + mdText(s.Why)
			}
			fmt.Fprintf(w, "| %d. %s | %s | %s | %s | %s |\n", s.Order, mdText(s.Step), big(s.Estimated), big(s.OnItems), big(s.Measured), v)
		}
	}
	fmt.Fprintf(w, "\n#### What breaks\n\n")
	breaks(w, all, "Nothing.", "**not acknowledged**", func(c diff.Change, ack string) string {
		return fmt.Sprintf("- `%s` (line %d, %s): %s", mdCode(c.Path), c.Line, ack, mdText(c.Text))
	})
}

// DiffSARIF writes a SARIF result for every breaking change, at HEAD's
// line that makes it (an acknowledged one as a note), under the category
// cardapio/diff/<model>/.
func DiffSARIF(w io.Writer, r *diff.Report, model string) error {
	d := newSARIF("diff", model)
	d.rule(RuleBreaking)
	for _, c := range r.Changes {
		if !c.Breaking {
			continue
		}
		level, text := "error", c.Text
		if c.Acknowledged != "" {
			level, text = "note", c.Text+" (acknowledged: "+c.Acknowledged+")"
		}
		d.add(RuleBreaking, level, sentence(text), budget.Location{File: c.File, Line: c.Line, Column: c.Column, Path: c.Path}, c.Path)
	}
	return d.write(w)
}
