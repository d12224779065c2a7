package budget

import (
	"fmt"
	"strings"
	"time"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Verdict is the outcome of one variant at the gate.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass" // within every declared budget
	Fail Verdict = "fail" // over a budget, or drift or an increase made fatal
	// Error: the variant could not be measured (the target refused a
	// request, or the run did not take the variant's path).
	Error Verdict = "error"
)

// Units is a pair of write and read request units.
type Units struct {
	WRU float64 `json:"wru"`
	RRU float64 `json:"rru"`
}

func (u Units) add(o Units) Units { return Units{u.WRU + o.WRU, u.RRU + o.RRU} }

// of returns the units of one dimension, "WRU" or "RRU".
func (u Units) of(unit string) float64 {
	if unit == WRU {
		return u.WRU
	}
	return u.RRU
}

// Dimensions of a budget.
const (
	WRU = "WRU"
	RRU = "RRU"
)

// Limit is a declared budget; a dimension the model does not bound is nil
// (null in JSON).
type Limit struct {
	WRU *float64 `json:"wru"`
	RRU *float64 `json:"rru"`
}

func (l Limit) of(unit string) *float64 {
	if unit == WRU {
		return l.WRU
	}
	return l.RRU
}

// Measured is what a variant consumed: in all, per table and per index
// (tables and indexes by their names in the model, not the prefixed names
// the run created).
type Measured struct {
	WRU     float64          `json:"wru"`
	RRU     float64          `json:"rru"`
	Tables  map[string]Units `json:"tables"`
	Indexes map[string]Units `json:"indexes"`
	// Computed is true when part of the figure came from the capacity
	// rules because a response carried none.
	Computed bool `json:"computed,omitempty"`
}

// Units returns the totals.
func (m Measured) Units() Units { return Units{m.WRU, m.RRU} }

// Location is a place in the model's file.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Path is the value's path in the document: operations.X.budgets.y.wru.
	Path string `json:"path"`
}

// Report is one run of the gate on one model.
type Report struct {
	Model string `json:"model"` // the model's path as given
	Name  string `json:"name"`  // the model's name
	// Target is what answered: "embedded engine", an endpoint URL,
	// "AWS us-east-1"; Kind is embedded, endpoint or aws.
	Target string `json:"target"`
	Kind   string `json:"targetKind"`
	// Keys is the key mode the tables were created with (native or
	// synthetic); Retry the SDK retry policy, in words, and Retries the
	// attempts it allows after a request's first (--retries).
	Keys        string `json:"keys"`
	Retry       string `json:"retry"`
	Retries     int    `json:"retries"`
	TablePrefix string `json:"tablePrefix"`
	// Notes say how the target differs from AWS's rules or the model
	// (an engine that reports no index capacity, a table option it lacks).
	Notes []string `json:"notes,omitempty"`
	// Check is what loading and estimating the model found, before any
	// request was sent: check's verdict.
	Check Check `json:"check"`
	// Gate is the static gate behind Check, for the renderers: the
	// judged static results and the peaks.
	Gate *Gate `json:"-"`
	// OK is the gate's answer: no variant failed or errored.
	OK      bool     `json:"ok"`
	Summary Summary  `json:"summary"`
	Results []Result `json:"results"`
	// Baseline holds the comparison with an accepted run, when one was
	// given.
	Baseline *Comparison `json:"baseline,omitempty"`
	// Duration is the whole run, tables created and deleted included.
	Duration time.Duration `json:"-"`
}

// Check is the model's validation and static estimate, in the same run.
type Check struct {
	// Warnings are the review warnings the model does not accept;
	// Accepted those it does (check lists them).
	Warnings int `json:"warnings"`
	Accepted int `json:"accepted"`
	// StaticOver counts the variants the static estimate already puts
	// over budget; Hot the tables and indexes whose hottest partition
	// takes more than it serves at a declared peak.
	StaticOver int `json:"staticOver"`
	Hot        int `json:"hot"`
	// Strict says review warnings not accepted fail the gate.
	Strict bool `json:"strict,omitempty"`
	// Findings is everything that fails check, in check's words; any
	// fails the gate.
	Findings []Finding `json:"findings"`
}

// gate records the static gate's verdict on the selected variants: the
// findings of the variants the run leaves out are not the run's.
func (r *Report) gate(g *Gate, sel selection) {
	r.Gate = g
	r.Check.Strict = g.Strict
	r.Check.Findings = []Finding{}
	over := map[string]bool{}
	for _, f := range g.Findings {
		if f.Kind == FindingOverBudget {
			op, variant, _ := strings.Cut(f.Name, "/")
			if !sel.has(op, variant) {
				continue
			}
			over[f.Name] = true
		}
		if f.Kind == FindingHot {
			r.Check.Hot++
		}
		r.Check.Findings = append(r.Check.Findings, f)
	}
	r.Check.StaticOver = len(over)
}

// Summary counts the results.
type Summary struct {
	Variants int `json:"variants"`
	Pass     int `json:"pass"`
	Fail     int `json:"fail"`
	Error    int `json:"error"`
	Drift    int `json:"drift"`    // variants with drift
	Computed int `json:"computed"` // variants with a computed figure
	Dearer   int `json:"dearer"`   // variants dearer than the baseline
}

// Result is one operation in one budget variant.
type Result struct {
	Operation string  `json:"operation"`
	Variant   string  `json:"variant"` // "" for an operation without budgets
	Verdict   Verdict `json:"verdict"`
	// Outcome is how the run ended, in the executor's words (applied,
	// already applied, limit reached, not found...).
	Outcome  string   `json:"outcome,omitempty"`
	Measured Measured `json:"measured"`
	Budget   Limit    `json:"budget"`
	Static   Units    `json:"static"`
	// Explanation says, in words, why the verdict is what it is: the
	// excesses and their causes, the error, or the drift made fatal; ""
	// for a plain pass.
	Explanation string   `json:"explanation"`
	Excesses    []Excess `json:"excesses,omitempty"`
	Drift       []Drift  `json:"drift,omitempty"`
	// Known lists the differences the target is known to have from
	// AWS's rules, seen in this variant instead of being called drift.
	Known []string `json:"known,omitempty"`
	Steps []Step   `json:"steps"`
	// At is the budget's place in the model (the operation's, when it
	// declares none).
	At Location `json:"at"`
	// Duration is the variant's run, seeding and emptying included.
	Duration time.Duration `json:"-"`
	// Seconds is Duration for JSON readers.
	Seconds float64 `json:"seconds"`
}

// Name returns "Operation/variant", or the operation alone.
func (r *Result) Name() string {
	if r.Variant == "" {
		return r.Operation
	}
	return r.Operation + "/" + r.Variant
}

// Step is one step (or transaction action) of a variant's run.
type Step struct {
	ID    string `json:"id"` // "apply/settlement" for a transaction action
	Kind  string `json:"kind"`
	Table string `json:"table"`
	Index string `json:"index,omitempty"`
	// Outcome is the step's own result: ok, condition failed, missing,
	// cancelled.
	Outcome  string           `json:"outcome,omitempty"`
	Requests int              `json:"requests,omitempty"` // pages and shards sent
	Measured Units            `json:"measured"`
	Tables   map[string]Units `json:"tables,omitempty"`
	Indexes  map[string]Units `json:"indexes,omitempty"`
	Computed bool             `json:"computed,omitempty"`
	Static   Units            `json:"static"`
	// Reasons are the static estimate's reasons for the step's charge,
	// from the billing rules; a transaction's are in its actions.
	Reasons []estimate.Line `json:"reasons,omitempty"`
	// Actions are a transaction's actions, as the static estimate
	// charges them (the response reports the transaction as a whole).
	Actions []Action `json:"actions,omitempty"`
}

// Action is one action of a transaction, statically.
type Action struct {
	ID      string          `json:"id"` // "apply/settlement"
	Kind    string          `json:"kind"`
	Static  Units           `json:"static"`
	Reasons []estimate.Line `json:"reasons,omitempty"`
}

// parts returns what a step's charge is made of: its actions, or the
// step itself.
func (s *Step) parts() []Action {
	if len(s.Actions) > 0 {
		return s.Actions
	}
	return []Action{{ID: s.ID, Kind: s.Kind, Static: s.Static, Reasons: s.Reasons}}
}

// Excess is a budget a variant exceeds.
type Excess struct {
	Unit     string  `json:"unit"` // WRU or RRU
	Measured float64 `json:"measured"`
	Budget   float64 `json:"budget"`
	Over     float64 `json:"over"`
	// At is where the exceeded budget is declared.
	At     Location `json:"at"`
	Causes []Cause  `json:"causes"`
	Text   string   `json:"text"`
}

// Cause is one thing that makes a variant dear, in words and at the place
// of the model a reviewer would change.
type Cause struct {
	// Kind is what the cause is: item-size, projection, index-key-change,
	// index-entry, transaction, failed-condition, page, fan-out, pages.
	Kind string `json:"kind"`
	Step string `json:"step"`
	// Target is "table" or the index the units are charged to.
	Target string  `json:"target"`
	Units  float64 `json:"units"` // the reason's units
	// Extra is what the cause adds over the least the request could
	// cost: what removing it would save.
	Extra float64  `json:"extra"`
	Text  string   `json:"text"`
	At    Location `json:"at"`
	// rule is the billing rule the cause comes from.
	rule capacity.Rule
}

// Drift is a measured figure that disagrees with the static estimate.
type Drift struct {
	Step     string  `json:"step"`
	Target   string  `json:"target"` // "table" or an index
	Unit     string  `json:"unit"`
	Measured float64 `json:"measured"`
	Static   float64 `json:"static"`
}

// positioned returns the Location of path in m.
func positioned(m *catalog.Model, path ...string) Location {
	pos, _ := m.Locate(path...)
	return Location{File: pos.File, Line: pos.Line, Column: pos.Col, Path: joinPath(path)}
}

func joinPath(path []string) string {
	out := ""
	for i, p := range path {
		if isIndex(p) && i > 0 {
			out += "[" + p + "]"
			continue
		}
		if i > 0 {
			out += "."
		}
		out += p
	}
	return out
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Finish counts the results and sets OK: no variant failed or errored,
// and, with failOnIncrease and a baseline, none got dearer.
func (r *Report) Finish(failOnIncrease bool) {
	s := Summary{Variants: len(r.Results)}
	dearer := map[string]bool{}
	if r.Baseline != nil {
		for _, d := range r.Baseline.Deltas {
			if d.Status == Dearer {
				dearer[d.Name()] = true
			}
		}
		s.Dearer = r.Baseline.Dearer
	}
	for i := range r.Results {
		res := &r.Results[i]
		if failOnIncrease && dearer[res.Name()] && res.Verdict == Pass {
			res.Verdict = Fail
			msg := "dearer than the baseline, fatal under --fail-on-increase"
			for _, d := range r.Baseline.Deltas {
				if d.Name() == res.Name() {
					msg = fmt.Sprintf("dearer than the baseline (%s), fatal under --fail-on-increase: %s", r.Baseline.File, deltaWords(d))
				}
			}
			if res.Explanation != "" {
				msg += "\n" + res.Explanation
			}
			res.Explanation = msg
		}
		switch res.Verdict {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		default:
			s.Error++
		}
		if len(res.Drift) > 0 {
			s.Drift++
		}
		if res.Measured.Computed {
			s.Computed++
		}
	}
	r.Summary = s
	r.OK = s.Fail == 0 && s.Error == 0 && len(r.Check.Findings) == 0
}

// deltaWords writes "+2 WRU, +0.5 RRU".
func deltaWords(d Delta) string {
	var parts []string
	for _, p := range []struct {
		v    float64
		unit string
	}{{d.Delta.WRU, WRU}, {d.Delta.RRU, RRU}} {
		if p.v != 0 {
			parts = append(parts, signed(p.v)+" "+p.unit)
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// signed writes +2, -0.5, 0.
func signed(f float64) string {
	if f > 0 {
		return "+" + num(f)
	}
	return num(f)
}
