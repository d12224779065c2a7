package budget

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Quirks are the ways a target is known to report differently from AWS.
// A difference they explain is reported as known, not as drift.
type Quirks struct {
	// NoIndexCapacity: the target's ConsumedCapacity carries no index
	// figures (dynalite), so index charges cannot be measured there.
	NoIndexCapacity bool
	// NoStreams: the target refused to turn a table's stream on after
	// its creation (dynalite): the run's tables are created with their
	// streams, as the target takes them, not deferred.
	NoStreams bool
	// Misbills: the target's figures contradict the billing rules for
	// requests whose charge the rules fix (moto): see misbill.go.
	Misbills bool
}

// judgement holds what a verdict needs besides the result.
type judgement struct {
	m           *catalog.Model
	op          *catalog.Operation
	b           *catalog.Budget
	rules       capacity.Rules
	static      *estimate.Variant
	quirks      Quirks
	failOnDrift bool
	// verb says where the figures come from in an excess's first line:
	// "measured", or "is estimated at" for the static estimate.
	verb string
}

// judge compares a measured result with its budget and its static
// estimate, and writes the verdict and the explanation. res.Steps hold
// the measured figures; the static ones are filled in here.
func (j *judgement) judge(res *Result) {
	res.Static = Units{j.static.WRU, j.static.RRU}
	res.Budget = Limit{WRU: j.b.WRU, RRU: j.b.RRU}
	if j.b.Name == "" {
		res.At = positioned(j.m, "operations", j.op.Name)
	} else {
		res.At = positioned(j.m, "operations", j.op.Name, "budgets", j.b.Name)
	}
	j.attachStatic(res)
	if res.Verdict == Error {
		return
	}
	j.drift(res)
	j.compare(res)
	var text []string
	for _, ex := range res.Excesses {
		text = append(text, ex.Text)
	}
	res.Verdict = Pass
	if len(res.Excesses) > 0 {
		res.Verdict = Fail
	}
	if len(res.Drift) > 0 {
		var d []string
		for _, x := range res.Drift {
			d = append(d, fmt.Sprintf("step %s, %s: %s %s measured, %s by the static estimate", x.Step, x.Target, num(x.Measured), x.Unit, num(x.Static)))
		}
		lead := "drift: the measured figures disagree with the static estimate (the measured figure decides the verdict)"
		if j.failOnDrift {
			lead = "drift, fatal under --fail-on-drift: the measured figures disagree with the static estimate"
			res.Verdict = Fail
		}
		text = append(text, lead+"\n  "+strings.Join(d, "\n  "))
	}
	if len(res.Known) > 0 {
		text = append(text, "known differences of the target, not drift:\n  "+strings.Join(res.Known, "\n  "))
	}
	res.Explanation = strings.Join(text, "\n")
}

// compare weighs a variant's figures against its budget, in each unit,
// and explains every excess: the one comparison of a measured figure and
// of the static estimate's (Static).
func (j *judgement) compare(res *Result) {
	for _, unit := range []string{WRU, RRU} {
		limit := res.Budget.of(unit)
		got := res.Measured.Units().of(unit)
		if limit == nil || got <= *limit+1e-9 {
			continue
		}
		res.Excesses = append(res.Excesses, explain(j.m, j.op, j.b, j.rules, res.Steps, unit, got, *limit, j.verb))
	}
}

// staticOf returns the estimate's steps that make up a measured step:
// the step itself, or the actions of a transaction ("apply/settlement"
// for step "apply").
func (j *judgement) staticOf(id string) []*estimate.Step {
	var out []*estimate.Step
	for i := range j.static.Steps {
		s := &j.static.Steps[i]
		if s.ID == id || strings.HasPrefix(s.ID, id+"/") {
			out = append(out, s)
		}
	}
	return out
}

func parentID(id string) string {
	p, _, _ := strings.Cut(id, "/")
	return p
}

// attachStatic pairs every measured step with its static charge and
// reasons, and adds the static steps the run did not reach.
func (j *judgement) attachStatic(res *Result) {
	seen := map[string]bool{}
	for i := range res.Steps {
		st := &res.Steps[i]
		seen[st.ID] = true
		ss := j.staticOf(st.ID)
		st.Static, st.Reasons, st.Actions = Units{}, nil, nil
		for _, s := range ss {
			st.Static = st.Static.add(Units{s.WRU, s.RRU})
			if st.Table == "" {
				st.Table = s.Table
			}
			if s.ID == st.ID {
				st.Reasons = s.Reasons
				if st.Kind == "" {
					st.Kind = s.Kind
				}
				continue
			}
			st.Actions = append(st.Actions, Action{ID: s.ID, Kind: s.Kind, Static: Units{s.WRU, s.RRU}, Reasons: s.Reasons})
		}
		if len(st.Actions) > 0 && st.Kind == "" {
			st.Kind = string(catalog.Transaction)
		}
	}
	if res.Verdict == Error {
		return
	}
	for i := range j.static.Steps {
		s := &j.static.Steps[i]
		id := parentID(s.ID)
		if seen[id] {
			continue
		}
		// A step the estimate charges but the run never sent: the run
		// took another path; its figure stands at zero measured.
		seen[id] = true
		st := Step{ID: id, Table: s.Table, Outcome: "not run"}
		res.Steps = append(res.Steps, st)
		j.attachStatic(&Result{Steps: res.Steps[len(res.Steps)-1:], Verdict: Error})
	}
}

// drift compares each step's measured figures with the static ones, per
// table and per index, and records the disagreements the target's known
// quirks do not explain.
func (j *judgement) drift(res *Result) {
	for i := range res.Steps {
		st := &res.Steps[i]
		ss := j.staticOf(st.ID)
		if len(ss) == 0 {
			for _, unit := range []string{WRU, RRU} {
				if got := st.Measured.of(unit); got > 0 {
					res.Drift = append(res.Drift, Drift{Step: st.ID, Target: "table", Unit: unit, Measured: got})
				}
			}
			continue
		}
		want := map[string]Units{}
		var targets []estimate.Target
		for _, s := range ss {
			targets = append(targets, s.Targets...)
		}
		for _, t := range targets {
			key := "table"
			if t.Index != "" {
				key = t.Index
			}
			want[key] = want[key].add(Units{t.WRU, t.RRU})
		}
		if j.quirks.NoIndexCapacity {
			j.reattribute(res, st, want)
		}
		if j.wholeScan(res, st, want) {
			continue
		}
		got := map[string]Units{}
		for _, u := range st.Tables {
			got["table"] = got["table"].add(u)
		}
		for name, u := range st.Indexes {
			got[name] = got[name].add(u)
		}
		keys := map[string]bool{}
		for k := range want {
			keys[k] = true
		}
		for k := range got {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			for _, unit := range []string{WRU, RRU} {
				w, g := want[k].of(unit), got[k].of(unit)
				if math.Abs(w-g) < 1e-9 {
					continue
				}
				if k != "table" && j.quirks.NoIndexCapacity && g == 0 {
					// The response carried no index figure: the rules'
					// figure stands in for it, marked computed.
					res.Known = append(res.Known, fmt.Sprintf("step %s, %s: the target reports no index capacity; %s %s computed by the billing rules", st.ID, k, num(w), unit))
					add := Units{}
					if unit == WRU {
						add.WRU = w
					} else {
						add.RRU = w
					}
					if st.Indexes == nil {
						st.Indexes = map[string]Units{}
					}
					if res.Measured.Indexes == nil {
						res.Measured.Indexes = map[string]Units{}
					}
					st.Indexes[k] = st.Indexes[k].add(add)
					res.Measured.Indexes[k] = res.Measured.Indexes[k].add(add)
					st.Measured = st.Measured.add(add)
					res.Measured.WRU += add.WRU
					res.Measured.RRU += add.RRU
					st.Computed, res.Measured.Computed = true, true
					continue
				}
				res.Drift = append(res.Drift, Drift{Step: st.ID, Target: k, Unit: unit, Measured: g, Static: w})
			}
		}
	}
}

// reattribute reads a step on a target that reports no index capacity:
// such a target reports what a read of one index consumed as the table's
// (its only figure), so a step the estimate charges to one index alone has
// its figure moved there, measured; index charges of writes are simply
// missing, and computed later.
func (j *judgement) reattribute(res *Result, st *Step, want map[string]Units) {
	if len(st.Indexes) > 0 || want["table"] != (Units{}) || len(want) != 2 && len(want) != 1 {
		return
	}
	index := ""
	for k := range want {
		if k != "table" {
			index = k
		}
	}
	if index == "" {
		return
	}
	var moved Units
	for t, u := range st.Tables {
		moved = moved.add(u)
		if res.Measured.Tables != nil {
			res.Measured.Tables[t] = Units{res.Measured.Tables[t].WRU - u.WRU, res.Measured.Tables[t].RRU - u.RRU}
			if res.Measured.Tables[t] == (Units{}) {
				delete(res.Measured.Tables, t)
			}
		}
	}
	if moved == (Units{}) {
		return
	}
	st.Tables = map[string]Units{}
	st.Indexes = map[string]Units{index: moved}
	if res.Measured.Indexes == nil {
		res.Measured.Indexes = map[string]Units{}
	}
	res.Measured.Indexes[index] = res.Measured.Indexes[index].add(moved)
	res.Known = append(res.Known, fmt.Sprintf("step %s: the target reports the read of %s as the table's; counted on %s", st.ID, index, index))
}

// wholeScan takes the estimate's figure for a scan without matches: it
// reads the whole table at its declared size, which no run seeds, so what
// a run measures of it says nothing. The figure is computed, and said so.
func (j *judgement) wholeScan(res *Result, st *Step, want map[string]Units) bool {
	s := j.op.Step(st.ID)
	if s == nil || s.Kind != catalog.Scan || s.Request == nil || len(s.Request.Matches) > 0 {
		return false
	}
	var w Units
	for _, u := range want {
		w = w.add(u)
	}
	res.Measured.WRU += w.WRU - st.Measured.WRU
	res.Measured.RRU += w.RRU - st.Measured.RRU
	st.Measured, st.Computed, res.Measured.Computed = w, true, true
	st.Tables, st.Indexes = map[string]Units{}, map[string]Units{}
	res.Measured.Tables, res.Measured.Indexes = map[string]Units{}, map[string]Units{}
	for k, u := range want {
		if k == "table" {
			st.Tables[st.Table] = u
		} else {
			st.Indexes[k] = u
		}
	}
	for _, x := range res.Steps {
		for k, u := range x.Tables {
			res.Measured.Tables[k] = res.Measured.Tables[k].add(u)
		}
		for k, u := range x.Indexes {
			res.Measured.Indexes[k] = res.Measured.Indexes[k].add(u)
		}
	}
	res.Known = append(res.Known, fmt.Sprintf("step %s scans the whole table at its declared size, which the run does not hold: %s RRU computed by the billing rules", st.ID, num(w.RRU)))
	return true
}
