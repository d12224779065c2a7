package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// SARIF 2.1.0 output, for GitHub code scanning (and any SARIF viewer):
// every finding is positioned at a line of model.yaml, so a pull request
// that changes the design is annotated where it changed. An excess is
// reported at the budget it exceeds, and each of its causes at the line
// that decides it (an index's projection, an entity's attribute, an
// index key), since code scanning annotates only the lines a pull request
// touches. The document is built with owenrumney/go-sarif, whose types
// follow the schema.

// SARIF rule ids.
const (
	RuleModelError     = "model-error"
	RuleBudgetExceeded = "budget-exceeded"
	RuleBudgetCause    = "budget-cause"
	RuleDrift          = "drift"
	RuleNotMeasured    = "not-measured"
	RuleDearer         = "dearer-than-baseline"
	RuleHotPartition   = "hot-partition"
	rulePrefixReview   = "review/"
)

var ruleText = map[string][2]string{
	RuleModelError:     {"The model is invalid", "The model does not load: a schema or semantic error, positioned where it must be fixed."},
	RuleBudgetExceeded: {"An operation consumes more than its budget", "A business operation, in one budget variant, consumes more write or read request units than the model declares for it."},
	RuleBudgetCause:    {"What makes an operation exceed its budget", "A part of the design that makes an operation over budget dear: an item past a size boundary, an index projection, an index key the write changes, a transaction, a failed condition, a page summed past 4 KB."},
	RuleDrift:          {"Measured capacity disagrees with the static estimate", "The engine reported a figure the static estimate from the model's samples does not predict; the measured figure decides the verdict."},
	RuleNotMeasured:    {"An operation could not be measured", "The target refused a request of the operation, or the run did not take the variant's path."},
	RuleDearer:         {"An operation got dearer than the baseline", "The operation consumes more than in the accepted run it is compared with."},
	RuleHotPartition:   {"A partition takes more than it serves at a declared peak", "The hottest partition of a table or index takes more than 1,000 write or 3,000 read units a second at a peak the model declares: requests to it are throttled."},
}

type sarifDoc struct {
	rep *sarif.Report
	run *sarif.Run
	uri string
}

func newSARIF(model string) *sarifDoc {
	d := &sarifDoc{rep: sarif.NewReport(), run: sarif.NewRun(), uri: artifactURI(model)}
	d.run.Tool = sarif.NewTool()
	d.run.Tool.Driver = sarif.NewToolComponent()
	name := "cardapio"
	d.run.Tool.Driver.Name = &name
	info := "https://github.com/cardapio/cardapio"
	d.run.Tool.Driver.InformationURI = &info
	d.run.AddDistinctArtifact(d.uri)
	d.rep.AddRun(d.run)
	return d
}

// artifactURI is the model's path as code scanning resolves it: relative
// to the repository root, with forward slashes.
func artifactURI(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	if filepath.IsAbs(path) {
		return "file://" + p
	}
	return strings.TrimPrefix(p, "./")
}

func (d *sarifDoc) rule(id string) {
	if d.run.GetRuleIndex(id) >= 0 {
		return
	}
	r := d.run.AddRule(id)
	txt, ok := ruleText[id]
	if !ok {
		code := strings.TrimPrefix(id, rulePrefixReview)
		txt = [2]string{"Design review: " + code, "A review finding of check: the model is valid, but a reviewer would question it."}
	}
	r.ShortDescription = &sarif.MultiformatMessageString{Text: &txt[0]}
	r.FullDescription = &sarif.MultiformatMessageString{Text: &txt[1]}
	level := sarif.LevelError
	switch {
	case id == RuleBudgetCause || id == RuleDrift || id == RuleDearer || strings.HasPrefix(id, rulePrefixReview):
		level = sarif.LevelWarning
	}
	cfg := sarif.NewReportingConfiguration()
	cfg.Level = level
	r.DefaultConfiguration = cfg
}

// add records one finding at a location of the model; key identifies it
// across runs (operation, variant, rule), whatever line it moves to.
func (d *sarifDoc) add(rule, level, text string, at budget.Location, key string, related ...budget.Location) *sarif.Result {
	d.rule(rule)
	res := d.run.CreateResultForRule(rule)
	res.WithLevel(level).WithMessage(sarif.NewTextMessage(text))
	res.AddLocation(d.location(at))
	for _, r := range related {
		if r.Line > 0 {
			l := d.location(r)
			msg := r.Path
			l.WithMessage(sarif.NewTextMessage(msg))
			res.AddRelatedLocation(l)
		}
	}
	sum := sha256.Sum256([]byte(rule + "\x00" + key))
	res.WithPartialFingerprints(map[string]string{"cardapio/v1": hex.EncodeToString(sum[:16])})
	return res
}

func (d *sarifDoc) location(at budget.Location) *sarif.Location {
	reg := sarif.NewRegion().WithStartLine(max(at.Line, 1)).WithStartColumn(max(at.Column, 1))
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(d.uri).WithIndex(0)).WithRegion(reg)
	l := sarif.NewLocationWithPhysicalLocation(pl)
	if at.Path != "" {
		ll := sarif.NewLogicalLocation().WithFullyQualifiedName(at.Path).WithKind("member")
		l.AddLogicalLocation(ll)
	}
	return l
}

func (d *sarifDoc) write(w io.Writer) error {
	if err := d.rep.PrettyWrite(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func fromPos(p catalog.Pos, path string) budget.Location {
	return budget.Location{File: p.File, Line: p.Line, Column: p.Col, Path: path}
}

// BudgetSARIF writes the gate's findings: each budget exceeded (at the
// budget), each of its causes (at the design element), drift, variants
// that could not be measured, and variants dearer than the baseline.
func BudgetSARIF(w io.Writer, r *budget.Report) error {
	d := newSARIF(r.Model)
	addResults(d, r.Results)
	addGate(d, r)
	for i := range r.Results {
		res := &r.Results[i]
		switch {
		case res.Verdict == budget.Error:
			d.add(RuleNotMeasured, sarif.LevelError, res.Name()+" could not be measured on the "+r.Target+": "+res.Explanation, res.At, res.Name())
		case len(res.Drift) > 0:
			var parts []string
			for _, x := range res.Drift {
				parts = append(parts, fmt.Sprintf("step %s, %s: %s %s measured, %s static", x.Step, x.Target, num(x.Measured), x.Unit, num(x.Static)))
			}
			d.add(RuleDrift, sarif.LevelWarning, res.Name()+": the measured figures disagree with the static estimate: "+strings.Join(parts, "; "), res.At, res.Name())
		}
	}
	if c := r.Baseline; c != nil {
		at := map[string]budget.Location{}
		for i := range r.Results {
			at[r.Results[i].Name()] = r.Results[i].At
		}
		for _, x := range c.Deltas {
			if x.Status == budget.Dearer {
				d.add(RuleDearer, sarif.LevelWarning, fmt.Sprintf("%s is dearer than the baseline %s: %s", x.Name(), c.File, deltaText(x)), at[x.Name()], x.Name())
			}
		}
	}
	return d.write(w)
}

// addResults adds the excesses of results and their causes. Causes that
// several variants share (one projection making five variants dear) are
// one finding naming them all.
func addResults(d *sarifDoc, results []budget.Result) {
	type causeKey struct{ path, kind, target, text string }
	type group struct {
		cause    budget.Cause
		variants []string
		budgets  []budget.Location
	}
	groups := map[causeKey]*group{}
	var order []causeKey
	for i := range results {
		res := &results[i]
		for _, x := range res.Excesses {
			budgetAt := x.At
			if budgetAt.Line == 0 {
				budgetAt = res.At
			}
			var related []budget.Location
			for _, c := range x.Causes {
				related = append(related, c.At)
			}
			// The excess's explanation, as every output gives it; each
			// cause is a finding of its own at its line too.
			d.add(RuleBudgetExceeded, sarif.LevelError, x.Text, budgetAt, res.Name()+"/"+x.Unit, related...)
			for _, c := range x.Causes {
				k := causeKey{c.At.Path, c.Kind, c.Target, c.Text}
				g := groups[k]
				if g == nil {
					g = &group{cause: c}
					groups[k] = g
					order = append(order, k)
				}
				name := res.Name() + " (" + x.Unit + ")"
				if n := len(g.variants); n == 0 || g.variants[n-1] != name {
					g.variants = append(g.variants, name)
					g.budgets = append(g.budgets, budgetAt)
				}
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		msg := fmt.Sprintf("%s. This makes %s exceed %s.", upperFirst(g.cause.Text), strings.Join(g.variants, ", "), plural(len(g.variants), "its budget", "their budgets"))
		d.add(RuleBudgetCause, sarif.LevelWarning, msg, g.cause.At, g.cause.Kind+"/"+g.cause.Target+"/"+g.cause.At.Path+"/"+strings.Join(g.variants, ","), g.budgets...)
	}
}

// addGate adds what check finds to the gate's SARIF: the static
// excesses (with their causes where the measured figure holds; a
// measured excess already has them), the hot partitions, and the review
// warnings --strict does not accept.
func addGate(d *sarifDoc, r *budget.Report) {
	if r.Gate != nil {
		measured := map[string]bool{}
		for i := range r.Results {
			if len(r.Results[i].Excesses) > 0 {
				measured[r.Results[i].Name()] = true
			}
		}
		var static []budget.Result
		for _, f := range r.Check.Findings {
			if f.Kind != budget.FindingOverBudget {
				continue
			}
			if measured[f.Name] {
				// Its causes are the measured excess's: check's
				// explanation stands beside it.
				d.add(RuleBudgetExceeded, sarif.LevelError, f.Text, f.At, "static/"+f.Name+"/"+f.At.Path)
				continue
			}
			op, variant, _ := strings.Cut(f.Name, "/")
			if res := r.Gate.Result(op, variant); res != nil && !slices.ContainsFunc(static, func(x budget.Result) bool { return x.Name() == f.Name }) {
				static = append(static, *res)
			}
		}
		addResults(d, static)
	}
	addHot(d, r.Check.Findings)
	for _, f := range r.Check.Findings {
		if f.Kind == budget.FindingReview {
			d.add(rulePrefixReview+f.Name, sarif.LevelError, sentence(f.Text), f.At, f.At.Path+"/"+f.Name)
		}
	}
}

func deltaText(x budget.Delta) string {
	var parts []string
	if x.Delta.WRU != 0 {
		parts = append(parts, fmt.Sprintf("%s -> %s WRU (%s)", num(x.Baseline.WRU), num(x.Measured.WRU), signed(x.Delta.WRU)))
	}
	if x.Delta.RRU != 0 {
		parts = append(parts, fmt.Sprintf("%s -> %s RRU (%s)", num(x.Baseline.RRU), num(x.Measured.RRU), signed(x.Delta.RRU)))
	}
	return strings.Join(parts, ", ")
}

// CheckSARIF writes check's findings: the review warnings at their
// positions (accepted ones as suppressed, with the model's reason; those
// not accepted are errors under --strict), every budget the static
// estimate exceeds with its causes, and every hot partition at its table
// or index.
func CheckSARIF(w io.Writer, c *Check) error {
	d := newSARIF(c.Path)
	for _, f := range c.Model.Warnings {
		id := rulePrefixReview + f.Code
		msg := sentence(f.Msg)
		if f.Hint != "" {
			msg += " Hint: " + sentence(f.Hint)
		}
		level := sarif.LevelWarning
		if c.Gate.Strict && f.Accepted == "" {
			level = sarif.LevelError
		}
		res := d.add(id, level, msg, fromPos(f.Pos, f.Path), f.Path+"/"+f.Code)
		if f.Accepted != "" {
			s := sarif.NewSuppression().WithKind("external").WithJustification(f.Accepted)
			res.AddSuppression(s)
		}
	}
	addResults(d, c.Gate.Static)
	addHot(d, c.Gate.Findings)
	return d.write(w)
}

// addHot adds the hot partitions of the static gate, each at its table
// or index.
func addHot(d *sarifDoc, fs []budget.Finding) {
	for _, f := range fs {
		if f.Kind == budget.FindingHot {
			d.add(RuleHotPartition, sarif.LevelError, sentence(f.Name+": "+f.Text), f.At, f.Name)
		}
	}
}

// CheckErrorsSARIF writes the errors of a model that does not load, each
// at its position; an error without one (the file cannot be read) is
// placed at the top of the file.
func CheckErrorsSARIF(w io.Writer, path string, errs catalog.ErrorList, other error) error {
	d := newSARIF(path)
	list := append(catalog.ErrorList(nil), errs...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Pos.Line < list[j].Pos.Line })
	for _, e := range list {
		msg := e.Msg
		if e.Path != "" {
			msg = e.Path + ": " + msg
		}
		msg = sentence(msg)
		if e.Hint != "" {
			msg += " Hint: " + sentence(e.Hint)
		}
		d.add(RuleModelError, sarif.LevelError, msg, fromPos(e.Pos, e.Path), fmt.Sprintf("%s/%s", e.Path, e.Msg))
	}
	if other != nil {
		d.add(RuleModelError, sarif.LevelError, other.Error(), budget.Location{Line: 1, Column: 1}, other.Error())
	}
	return d.write(w)
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if s == "" || strings.ContainsRune(".!?", rune(s[len(s)-1])) {
		return s
	}
	return s + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func num(f float64) string { return estimate.Num(f) }
