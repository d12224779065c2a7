package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/internal/digits"
)

// BudgetText writes the gate's report for a terminal: one row per variant
// (measured, budget and static units of each dimension, the verdict),
// then why every failing variant fails, the drift, the comparison with a
// baseline, and a last line that says whether the gate passed.
func BudgetText(w io.Writer, r *budget.Report) {
	w = TextOut(w)
	fmt.Fprintf(w, "%s: model %s: %s measured on the %s\n", Text(r.Model), Text(r.Name), digits.Count(r.Summary.Variants, "variant"), targetWords(r))
	fmt.Fprintf(w, "  %s\n", checkWords(r.Check))
	fmt.Fprintf(w, "  keys %s; %s; tables %s*\n", r.Keys, r.Retry, r.TablePrefix)
	for _, f := range r.Check.Findings {
		fmt.Fprintf(w, "\nFAIL (check) %s %s\n%s\n", f.Kind, f.Name, indent(findingText(f), "  "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", Text(n))
	}
	var t table
	t.add("", "WRU", "budget", "static", "RRU", "budget", "static", "verdict")
	computed := false
	for i := range r.Results {
		res := &r.Results[i]
		mw, mr := figure(res.Measured.WRU), figure(res.Measured.RRU)
		if res.Measured.Computed {
			computed = true
			mw, mr = mark(mw), mark(mr)
		}
		t.add(res.Name(), mw, limit(res.Budget.WRU), figure(res.Static.WRU), mr, limit(res.Budget.RRU), figure(res.Static.RRU), verdictWords(res))
	}
	fmt.Fprintln(w)
	t.write(w)
	if computed {
		fmt.Fprintln(w, "  * computed by the billing rules: the response carried no figure, or one the rules contradict (see the known differences)")
	}
	for i := range r.Results {
		res := &r.Results[i]
		if res.Verdict == budget.Pass {
			continue
		}
		fmt.Fprintf(w, "\n%s %s\n", strings.ToUpper(string(res.Verdict)), res.Name())
		fmt.Fprintln(w, indent(res.Explanation, "  "))
	}
	var drift []string
	for i := range r.Results {
		res := &r.Results[i]
		if res.Verdict != budget.Pass || len(res.Drift) == 0 {
			continue
		}
		for _, d := range res.Drift {
			drift = append(drift, fmt.Sprintf("  %s step %s, %s: %s %s measured, %s static", res.Name(), d.Step, d.Target, estimate.Num(d.Measured), d.Unit, estimate.Num(d.Static)))
		}
	}
	if len(drift) > 0 {
		fmt.Fprintf(w, "\nDrift: measured figures that disagree with the static estimate (the measured figure decides)\n%s\n", strings.Join(drift, "\n"))
	}
	var known []string
	for i := range r.Results {
		for _, k := range r.Results[i].Known {
			known = append(known, "  "+r.Results[i].Name()+": "+k)
		}
	}
	if len(known) > 0 {
		fmt.Fprintf(w, "\nKnown differences, not drift (what the target reports otherwise, or the run cannot hold)\n%s\n", strings.Join(known, "\n"))
	}
	if c := r.Baseline; c != nil {
		baselineText(w, c)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, verdictLine(r))
}

// checkWords says what validation, the static estimate and the peak gate
// found.
func checkWords(c budget.Check) string {
	s := fmt.Sprintf("valid: no errors, %s (%d accepted); ", digits.Count(c.Warnings, "review warning"), c.Accepted)
	if c.StaticOver == 0 {
		s += "the static estimate holds every budget"
	} else {
		s += fmt.Sprintf("the static estimate puts %s over budget", digits.Count(c.StaticOver, "variant"))
	}
	if c.Hot == 0 {
		return s + "; no partition over its limit at the declared peaks"
	}
	return s + fmt.Sprintf("; %s at the declared peaks", digits.Count(c.Hot, "hot partition"))
}

// findingText is a finding as check prints it: a hot partition placed at
// its table or index, an excess and a warning as they read.
func findingText(f budget.Finding) string {
	if f.Kind == budget.FindingHot {
		return f.At.Where() + ": " + f.Text
	}
	return f.Text
}

func baselineText(w io.Writer, c *budget.Comparison) {
	fmt.Fprintf(w, "\nAgainst the baseline %s: %d dearer, %d cheaper, %d new, %d gone", Text(c.File), c.Dearer, c.Cheaper, c.New, c.Gone)
	if c.USDMonth != 0 {
		fmt.Fprintf(w, "; %s a month at the model's volumes", usdSigned(c.USDMonth))
	}
	fmt.Fprintln(w)
	var t table
	changed := false
	for _, d := range c.Deltas {
		if d.Status == budget.Same {
			continue
		}
		changed = true
		t.add(d.Name(), d.Status, vsBaseline(d.Baseline.WRU, d.Measured.WRU, d.Delta.WRU, "WRU"), vsBaseline(d.Baseline.RRU, d.Measured.RRU, d.Delta.RRU, "RRU"))
	}
	if changed {
		t.write(w)
	}
	for _, o := range c.Operations {
		fmt.Fprintf(w, "  %s: %s a month (US$ %s -> %s; %s runs a month, %s)\n", Text(o.Operation), usdSigned(o.USDMonth),
			estimate.USD(o.Baseline), estimate.USD(o.Measured), estimate.Num(o.Runs), o.Basis)
	}
}

// vsBaseline writes "10 -> 12 WRU (+2)".
func vsBaseline(was, now, delta float64, unit string) string {
	if delta == 0 {
		return estimate.Num(now) + " " + unit
	}
	return fmt.Sprintf("%s -> %s %s (%s)", estimate.Num(was), estimate.Num(now), unit, signed(delta))
}

func targetWords(r *budget.Report) string {
	if r.Kind == "endpoint" || r.Kind == "aws" {
		return "target " + r.Target
	}
	return r.Target
}

// verdictLine is the report's last line: "ok: ..." or "FAIL: ...".
func verdictLine(r *budget.Report) string {
	s := r.Summary
	var extra []string
	switch s.Drift {
	case 0:
		extra = append(extra, "no drift")
	default:
		extra = append(extra, digits.Count(s.Drift, "variant")+" with drift")
	}
	if s.Computed > 0 {
		extra = append(extra, digits.Count(s.Computed, "variant")+" with computed figures")
	}
	if r.Baseline != nil {
		extra = append(extra, fmt.Sprintf("%d dearer than the baseline", s.Dearer))
	}
	if r.OK {
		return fmt.Sprintf("ok: %s within budget on the %s; %s", digits.Count(s.Pass, "variant"), targetWords(r), strings.Join(extra, ", "))
	}
	var bad []string
	if n := len(r.Check.Findings); n > 0 {
		bad = append(bad, fmt.Sprintf("check fails the model (%s)", digits.Count(n, "finding")))
	}
	if s.Fail > 0 {
		bad = append(bad, fmt.Sprintf("%d of %s failed", s.Fail, digits.Count(s.Variants, "variant")))
	}
	if s.Error > 0 {
		bad = append(bad, fmt.Sprintf("%d could not be measured", s.Error))
	}
	return fmt.Sprintf("FAIL: %s; %s", strings.Join(bad, ", "), strings.Join(extra, ", "))
}

func verdictWords(res *budget.Result) string {
	v := string(res.Verdict)
	if res.Verdict != budget.Pass {
		v = strings.ToUpper(v)
	}
	var tags []string
	for _, x := range res.Excesses {
		tags = append(tags, fmt.Sprintf("%s %s", signed(x.Over), x.Unit))
	}
	if len(res.Drift) > 0 {
		tags = append(tags, "drift")
	}
	if res.Budget.WRU == nil && res.Budget.RRU == nil && res.Verdict == budget.Pass {
		tags = append(tags, "no budget")
	}
	if len(tags) > 0 {
		v += " (" + strings.Join(tags, ", ") + ")"
	}
	return v
}

// figure writes units, "-" for none.
func figure(f float64) string {
	if f == 0 {
		return "-"
	}
	return estimate.Num(f)
}

func mark(s string) string {
	if s == "-" {
		return s
	}
	return s + "*"
}

func limit(b *float64) string {
	if b == nil {
		return "-"
	}
	return estimate.Num(*b)
}

// signed writes +2, -0.5, 0.
func signed(f float64) string {
	if f > 0 {
		return "+" + estimate.Num(f)
	}
	return estimate.Num(f)
}

// usdSigned writes "+US$ 1.25" or "-US$ 0.0031".
func usdSigned(f float64) string {
	switch {
	case f > 0:
		return "+US$ " + estimate.USD(f)
	case f < 0:
		return "-US$ " + estimate.USD(-f)
	}
	return "US$ 0"
}

func indent(s, by string) string {
	if s == "" {
		return by + "(no explanation)"
	}
	return by + strings.ReplaceAll(s, "\n", "\n"+by)
}
