package workshop

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// view is what the templates render of a snapshot.
type view struct {
	Token    string
	S        *Snapshot
	Verdict  string // PASS, FAIL or REFUSED: a word, never a colour alone
	Findings []finding
	Map      catalog.Map
	Budgets  []budgetRow
	Peaks    []peakRow
	Ops      []opView
	WhatIf   *whatIfForm
	Shape    string // changes when the controls' choices change
}

type finding struct {
	Kind, Name, Where, Text, Hint, Accepted string
	Line                                    int
	Context                                 Context
}

type budgetRow struct {
	Name, Verdict, Static, Budget, Explanation string
	Line                                       int
}

type peakRow struct {
	Structure, Unit, Partition string
	Units, Limit, Percent      float64
	Over                       bool
	Shards, Fit                int
}

type opView struct {
	Name, Label string
	Writes      bool
	Variants    []string
	Params      []paramView
	Suggestions []Suggestion
}

type paramView struct {
	Name, Type, Sample, Attribute string
	Values                        []string
}

// newView lays out a snapshot for the page.
func newView(s *Snapshot, token string) *view {
	v := &view{Token: token, S: s, Verdict: "REFUSED"}
	for _, e := range s.Errors {
		v.Findings = append(v.Findings, finding{Kind: "error", Name: e.Path, Where: fmt.Sprintf("%s:%d:%d", e.Pos.File, e.Pos.Line, e.Pos.Col),
			Text: e.Msg, Hint: e.Hint, Line: e.Pos.Line, Context: Around(s.Text, e.Pos.Line)})
	}
	if !s.OK() {
		return v
	}
	m := s.Model
	v.Verdict = "PASS"
	if !s.Gate.OK() {
		v.Verdict = "FAIL"
	}
	for _, f := range s.Gate.Findings {
		v.Findings = append(v.Findings, finding{Kind: f.Kind, Name: f.Name, Where: f.At.Where(), Text: f.Text, Line: f.At.Line, Context: Around(s.Text, f.At.Line)})
	}
	for _, w := range m.Warnings {
		v.Findings = append(v.Findings, finding{Kind: "warning " + w.Code, Name: w.Path, Where: fmt.Sprintf("%s:%d:%d", w.Pos.File, w.Pos.Line, w.Pos.Col),
			Text: w.Msg, Hint: w.Hint, Accepted: w.Accepted, Line: w.Pos.Line, Context: Around(s.Text, w.Pos.Line)})
	}
	v.Map = m.Map()
	v.Budgets = budgets(s.Gate)
	v.Peaks = peaks(s.Gate.Peaks)
	v.Ops = ops(m, s.World)
	v.WhatIf = whatIfOf(m)
	h := fnv.New64a()
	for _, o := range v.Ops {
		fmt.Fprintf(h, "%s|%s|%v|%d;", o.Name, o.Label, o.Variants, len(o.Params))
		for _, p := range o.Params {
			fmt.Fprintf(h, "%s=%s,", p.Name, p.Sample)
		}
	}
	fmt.Fprintf(h, "%+v", v.WhatIf)
	v.Shape = strconv.FormatUint(h.Sum64(), 36)
	return v
}

// units writes units as the reports do: whole numbers plain, halves kept.
func units(u float64) string { return strconv.FormatFloat(u, 'f', -1, 64) }

func budgets(g *budget.Gate) []budgetRow {
	var out []budgetRow
	for _, r := range g.Static {
		b := budgetRow{Name: r.Name(), Verdict: strings.ToUpper(string(r.Verdict)), Explanation: r.Explanation, Line: r.At.Line}
		b.Static = units(r.Static.WRU) + " WRU, " + units(r.Static.RRU) + " RRU"
		var lim []string
		if r.Budget.WRU != nil {
			lim = append(lim, units(*r.Budget.WRU)+" WRU")
		}
		if r.Budget.RRU != nil {
			lim = append(lim, units(*r.Budget.RRU)+" RRU")
		}
		b.Budget = strings.Join(lim, ", ")
		if b.Budget == "" {
			b.Budget = "none declared"
		}
		out = append(out, b)
	}
	return out
}

// peaks lists every table and index at its declared peaks, the hottest
// partition's share of its limit first.
func peaks(p *estimate.Peaks) []peakRow {
	if p == nil {
		return nil
	}
	var out []peakRow
	for _, s := range p.Structures {
		for _, l := range []*estimate.PeakLoad{s.Write, s.Read} {
			if l == nil {
				continue
			}
			r := peakRow{Structure: s.Name(), Unit: l.Unit, Units: l.Units, Limit: l.Limit, Over: l.Over(), Shards: s.Shards, Fit: l.Fit}
			if l.Limit > 0 {
				r.Percent = math.Round(1000*l.Units/l.Limit) / 10
			}
			var parts []string
			for _, t := range l.Terms {
				if t.Partition != "" && len(parts) < 3 {
					parts = append(parts, t.Operation+": "+t.Partition)
				}
			}
			r.Partition = strings.Join(parts, "; ")
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Percent > out[j].Percent })
	return out
}

// ops lists the operations to ask, questions first (each labelled by the
// access patterns it answers), then writes.
func ops(m *catalog.Model, w *World) []opView {
	var reads, writesOps []opView
	for _, op := range m.Operations {
		o := opView{Name: op.Name, Writes: writes(op)}
		var ids []string
		for _, ap := range op.Serves {
			ids = append(ids, ap.ID)
		}
		o.Label = op.Name
		if len(ids) > 0 {
			o.Label = strings.Join(ids, ", ") + " — " + op.Name
		}
		for _, b := range op.Budgets {
			o.Variants = append(o.Variants, b.Name)
		}
		for _, p := range op.Params {
			pv := paramView{Name: p.Name, Type: p.Type.String()}
			if p.Sample != nil {
				pv.Sample = show(*p.Sample)
			}
			if p.Attribute != nil {
				pv.Attribute = p.Attribute.Name
				if w != nil {
					pv.Values = w.Values[p.Attribute.Name]
				}
			}
			o.Params = append(o.Params, pv)
		}
		if w != nil {
			o.Suggestions = w.Suggest(op)
		}
		if o.Writes {
			writesOps = append(writesOps, o)
		} else {
			reads = append(reads, o)
		}
	}
	return append(reads, writesOps...)
}
