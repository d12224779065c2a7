package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
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
	s := newSuite(r.Name, r.Model, r.Duration)
	suite := &s.Testsuite
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
		s.add(tc, res.At)
	}
	// What check finds fails here too, one case each, in check's words.
	for _, f := range r.Check.Findings {
		tc := junit.Testcase{Name: f.Kind + " " + f.Name, Classname: r.Name + ".check", Time: seconds(0)}
		tc.Failure = &junit.Result{Message: xmlSafe(firstLine(findingText(f))), Type: findingType[f.Kind], Data: xmlSafe(findingText(f))}
		s.add(tc, f.At)
	}
	return s.write(w)
}

// suite is a JUnit test suite whose cases carry the file and line of
// the model they are about (GitLab and the annotating actions link a
// failure there), attributes the Jenkins schema allows and go-junit-
// report's types lack.
type suite struct {
	junit.Testsuite
	Testcases []testcase `xml:"testcase,omitempty"`
}

type testcase struct {
	junit.Testcase
	File string `xml:"file,attr,omitempty"`
	Line int    `xml:"line,attr,omitempty"`
}

// newSuite starts the suite of a run of d on model, stamped with when
// the run started and the host it ran on.
func newSuite(name, model string, d time.Duration) *suite {
	s := &suite{Testsuite: junit.Testsuite{Name: name, File: model, Time: seconds(d.Seconds())}}
	s.Timestamp = time.Now().Add(-d).UTC().Format("2006-01-02T15:04:05Z")
	if h, err := os.Hostname(); err == nil {
		s.Hostname = xmlSafe(h)
	}
	return s
}

// add adds a case about the model's line at (its file when at names
// one, else the suite's).
func (s *suite) add(tc junit.Testcase, at budget.Location) {
	s.AddTestcase(tc) // counts it
	s.Testsuite.Testcases = nil
	c := testcase{Testcase: tc}
	if at.Line > 0 {
		c.File, c.Line = s.File, at.Line
		if at.File != "" {
			c.File = at.File
		}
	}
	s.Testcases = append(s.Testcases, c)
}

func (s *suite) write(w io.Writer) error {
	doc := struct {
		junit.Testsuites
		Suites []*suite `xml:"testsuite"`
	}{Testsuites: junit.Testsuites{Name: "cardapio budget", Time: s.Time, Tests: s.Tests, Errors: s.Errors, Failures: s.Failures}, Suites: []*suite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "\t")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
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

// failureJUnit writes the JUnit report of a run that ended without a
// verdict: one erroring case per model error, at its line, or one for
// what stopped the run.
func failureJUnit(w io.Writer, model string, errs catalog.ErrorList, other error) error {
	s := newSuite(model, model, 0)
	for _, e := range errs {
		tc := junit.Testcase{Name: "model error " + e.Path, Classname: "model", Time: seconds(0)}
		msg := errorText(e)
		tc.Error = &junit.Result{Message: xmlSafe(msg), Type: "ModelError", Data: xmlSafe(msg)}
		s.add(tc, fromPos(e.Pos, e.Path))
	}
	if other != nil {
		tc := junit.Testcase{Name: "budget", Classname: "cardapio", Time: seconds(0)}
		tc.Error = &junit.Result{Message: xmlSafe(firstLine(other.Error())), Type: "NoVerdict", Data: xmlSafe(other.Error())}
		s.add(tc, budget.Location{})
	}
	return s.write(w)
}
