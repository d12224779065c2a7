package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
)

// BudgetJUnit writes the gate's report as JUnit XML, the format the test
// report readers of GitHub Actions (through the common reporting
// actions), GitLab and Jenkins take: one test suite for the model, one
// test case per operation and variant (class name "model.Operation",
// name the variant), a failure carrying the explanation for each variant
// over budget, an error for each that could not be measured, and the
// measured against static figures of every step as the case's output.
//
// The XML types are those of go-junit-report's junit package, a
// maintained writer of the format many CI systems are tested against.
func BudgetJUnit(w io.Writer, r *budget.Report) error {
	suite := junit.Testsuite{Name: r.Name, File: r.Model, Time: seconds(r.Duration.Seconds())}
	for _, p := range [][2]string{{"model", r.Model}, {"target", r.Target}, {"keys", r.Keys}, {"retry", r.Retry}, {"tablePrefix", r.TablePrefix}} {
		suite.AddProperty(p[0], p[1])
	}
	for _, n := range r.Notes {
		suite.AddProperty("note", n)
	}
	for i := range r.Results {
		res := &r.Results[i]
		name := res.Variant
		if name == "" {
			name = "(no budget)"
		}
		tc := junit.Testcase{Name: name, Classname: r.Name + "." + res.Operation, Time: seconds(res.Seconds)}
		switch res.Verdict {
		case budget.Fail:
			tc.Failure = &junit.Result{Message: xmlSafe(failureMessage(res)), Type: failureType(res), Data: xmlSafe(res.Explanation)}
		case budget.Error:
			tc.Error = &junit.Result{Message: xmlSafe(firstLine(res.Explanation)), Type: "NotMeasured", Data: xmlSafe(res.Explanation)}
		}
		tc.SystemOut = &junit.Output{Data: xmlSafe(stepLines(res))}
		suite.AddTestcase(tc)
	}
	// What check finds fails here too, one case each, in check's words.
	for _, f := range r.Check.Findings {
		tc := junit.Testcase{Name: f.Kind + " " + f.Name, Classname: r.Name + ".check", Time: seconds(0)}
		tc.Failure = &junit.Result{Message: xmlSafe(firstLine(findingText(f))), Type: findingType[f.Kind], Data: xmlSafe(findingText(f))}
		suite.AddTestcase(tc)
	}
	suites := junit.Testsuites{Name: "cardapio budget"}
	suites.AddSuite(suite)
	suites.Time = suite.Time
	if _, err := io.WriteString(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"); err != nil {
		return err
	}
	return suites.WriteXML(w)
}

// xmlSafe replaces the characters XML 1.0 cannot hold (most control
// characters; a sample value may carry any) with U+FFFD: the writer puts
// text in CDATA sections, which it does not escape.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// failureMessage is the one line a CI summary shows: "12 WRU measured
// against a budget of 10 (+2 WRU)".
func failureMessage(res *budget.Result) string {
	var parts []string
	for _, x := range res.Excesses {
		parts = append(parts, fmt.Sprintf("%s %s measured against a budget of %s (%s %s)", estimate.Num(x.Measured), x.Unit, estimate.Num(x.Budget), signed(x.Over), x.Unit))
	}
	if len(parts) == 0 {
		return firstLine(res.Explanation)
	}
	if len(res.Excesses) > 0 && len(res.Excesses[0].Causes) > 0 {
		parts = append(parts, "cause: "+res.Excesses[0].Causes[0].Text)
	}
	return strings.Join(parts, "; ")
}

var findingType = map[string]string{budget.FindingOverBudget: "StaticBudgetExceeded", budget.FindingHot: "HotPartition", budget.FindingReview: "ReviewWarning"}

func failureType(res *budget.Result) string {
	switch {
	case len(res.Excesses) > 0:
		return "BudgetExceeded"
	case len(res.Drift) > 0:
		return "Drift"
	}
	return "Increase"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// stepLines writes each step's measured and static figures.
func stepLines(res *budget.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s WRU, %s RRU measured; static %s WRU, %s RRU", res.Name(),
		estimate.Num(res.Measured.WRU), estimate.Num(res.Measured.RRU), estimate.Num(res.Static.WRU), estimate.Num(res.Static.RRU))
	if res.Outcome != "" {
		fmt.Fprintf(&b, "; outcome %s", res.Outcome)
	}
	for _, st := range res.Steps {
		fmt.Fprintf(&b, "\n  step %s (%s on %s): %s WRU, %s RRU measured; static %s WRU, %s RRU", st.ID, st.Kind, st.Table,
			estimate.Num(st.Measured.WRU), estimate.Num(st.Measured.RRU), estimate.Num(st.Static.WRU), estimate.Num(st.Static.RRU))
		if st.Computed {
			b.WriteString(" (computed)")
		}
		if st.Outcome != "" {
			fmt.Fprintf(&b, "; %s", st.Outcome)
		}
	}
	return b.String()
}
