package budget

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
)

// The static gate: the verdict a valid model reaches before any request
// is sent. check prints it, budget starts from it and fails on it as
// check does, report shows it: one judge and one explanation of every
// finding, which the renderers only render.
//
// The judge lives here, beside the measured verdict, rather than in
// capacity/estimate: the estimate computes figures (units per variant,
// units per partition at the peaks), and a verdict compares them with
// what the model declares and explains the difference at the lines of
// model.yaml a reviewer changes, which is what this package does for a
// measured figure. A static excess is judged by the same comparison and
// explained by the same words as a measured one.

// Finding kinds: what fails the gate.
const (
	FindingOverBudget = "over budget"   // a variant's static figure exceeds its budget
	FindingHot        = "hot partition" // a partition takes more than it serves at a declared peak
	FindingReview     = "review"        // a review warning the model does not accept, under --strict
)

// Finding is one reason the static gate fails, in the words every output
// gives it.
type Finding struct {
	Kind string `json:"kind"`
	// Name is what fails: Operation/variant, the table or index, the
	// finding's code.
	Name string `json:"name"`
	// At is the place in the model to change: the budget exceeded, the
	// index or table, the warning's place.
	At Location `json:"at"`
	// Text is the explanation, one or more lines.
	Text string `json:"text"`
}

// Line writes the finding as the commands print it on stderr:
// "cardapio: hot partition: model.yaml:12:3: indexes.X: ...".
func (f Finding) Line() string {
	switch f.Kind {
	case FindingReview:
		return "cardapio: --strict: warning not accepted: " + f.Text
	case FindingHot:
		return "cardapio: " + f.Kind + ": " + f.At.Where() + ": " + f.Text
	}
	return "cardapio: " + f.Kind + ": " + f.Text
}

// Where writes the location as findings place it: "model.yaml:12:3:
// indexes.X".
func (l Location) Where() string {
	return fmt.Sprintf("%s:%d:%d: %s", l.File, l.Line, l.Column, l.Path)
}

// Gate is the static gate's verdict on one model.
type Gate struct {
	// Variants are the static estimates of every operation in each
	// budget variant; Static each judged against its budget, as a
	// measured one is.
	Variants []estimate.Variant
	Static   []Result
	// Peaks is the peak gate's finding on every table and index.
	Peaks *estimate.Peaks
	// Strict makes unaccepted review warnings findings.
	Strict bool
	// Findings is what fails the gate, in the model's order: variants
	// over budget, hot partitions, then warnings not accepted.
	Findings []Finding
}

// Judge estimates every operation and the peaks of model m, and judges
// them: the one verdict check, budget and report give.
func Judge(m *catalog.Model, rules capacity.Rules, strict bool) (*Gate, error) {
	est := estimate.New(m, rules)
	vs, err := est.Operations()
	if err != nil {
		return nil, fmt.Errorf("static capacity: %w", err)
	}
	peaks, err := est.Peaks()
	if err != nil {
		return nil, fmt.Errorf("peak gate: %w", err)
	}
	g := &Gate{Variants: vs, Static: Static(m, rules, vs), Peaks: peaks, Strict: strict}
	for i := range g.Static {
		res := &g.Static[i]
		for _, x := range res.Excesses {
			g.Findings = append(g.Findings, Finding{Kind: FindingOverBudget, Name: res.Name(), At: x.At, Text: x.Text})
		}
	}
	for _, f := range peaks.Failures() {
		path := []string{"tables", f.Structure.Table}
		if f.Structure.Index != "" {
			path = []string{"indexes", f.Structure.Index}
		}
		g.Findings = append(g.Findings, Finding{Kind: FindingHot, Name: f.Structure.Name(), At: positioned(m, path...), Text: f.Message()})
	}
	if strict {
		for _, w := range m.Warnings {
			if w.Accepted == "" {
				g.Findings = append(g.Findings, Finding{Kind: FindingReview, Name: w.Code,
					At:   Location{File: w.Pos.File, Line: w.Pos.Line, Column: w.Pos.Col, Path: w.Path},
					Text: fmt.Sprintf("%s: %s: %s [%s]", w.Pos, w.Path, w.Msg, w.Code)})
			}
		}
	}
	return g, nil
}

// OK reports whether the gate passes.
func (g *Gate) OK() bool { return len(g.Findings) == 0 }

// Of lists the findings of one kind.
func (g *Gate) Of(kind string) []Finding {
	var out []Finding
	for _, f := range g.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// Result returns the judged static result of a variant, nil when there is
// none.
func (g *Gate) Result(operation, variant string) *Result {
	for i := range g.Static {
		if g.Static[i].Operation == operation && g.Static[i].Variant == variant {
			return &g.Static[i]
		}
	}
	return nil
}

// Summary names what fails the gate, one phrase each ("1 variant over
// budget, 2 hot partitions"); "" when it passes.
func (g *Gate) Summary() string {
	var out []string
	variants := map[string]bool{}
	for _, f := range g.Of(FindingOverBudget) {
		variants[f.Name] = true
	}
	if n := len(variants); n > 0 {
		out = append(out, digits.Count(n, "variant")+" over budget")
	}
	if n := len(g.Of(FindingHot)); n > 0 {
		out = append(out, digits.Count(n, "hot partition"))
	}
	if n := len(g.Of(FindingReview)); n > 0 {
		out = append(out, digits.Count(n, "review warning")+" not accepted (--strict)")
	}
	return strings.Join(out, ", ")
}
