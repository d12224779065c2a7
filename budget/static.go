package budget

import (
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Static judges the static estimate as if it had been measured: every
// variant's figure is the estimate's, and a variant over budget is
// explained and its causes positioned exactly as the gate does for a
// measured one. check uses it to annotate model.yaml (SARIF) before any
// engine runs.
func Static(m *catalog.Model, rules capacity.Rules, vs []estimate.Variant) []Result {
	out := make([]Result, 0, len(vs))
	for i := range vs {
		v := &vs[i]
		op := m.Operation(v.Operation)
		if op == nil {
			continue
		}
		b := &catalog.Budget{}
		for _, x := range op.Budgets {
			if x.Name == v.Name {
				b = x
			}
		}
		res := Result{Operation: v.Operation, Variant: v.Name, Measured: measuredOf(v.Targets)}
		// Steps as a run reports them: a transaction as one step.
		byID := map[string]int{}
		for _, s := range v.Steps {
			id := parentID(s.ID)
			i, ok := byID[id]
			if !ok {
				i = len(res.Steps)
				byID[id] = i
				res.Steps = append(res.Steps, Step{ID: id, Table: s.Table, Tables: map[string]Units{}, Indexes: map[string]Units{}})
			}
			st := &res.Steps[i]
			st.Measured = st.Measured.add(Units{s.WRU, s.RRU})
			mu := measuredOf(s.Targets)
			for k, u := range mu.Tables {
				st.Tables[k] = st.Tables[k].add(u)
			}
			for k, u := range mu.Indexes {
				st.Indexes[k] = st.Indexes[k].add(u)
			}
		}
		j := &judgement{m: m, op: op, b: b, rules: rules, static: v, verb: "is estimated at"}
		j.judge(&res)
		out = append(out, res)
	}
	return out
}

// measuredOf turns estimate targets into the measured shape.
func measuredOf(ts []estimate.Target) Measured {
	m := Measured{Tables: map[string]Units{}, Indexes: map[string]Units{}}
	for _, t := range ts {
		u := Units{t.WRU, t.RRU}
		if t.Index != "" {
			m.Indexes[t.Index] = m.Indexes[t.Index].add(u)
		} else {
			m.Tables[t.Table] = m.Tables[t.Table].add(u)
		}
		m.WRU += t.WRU
		m.RRU += t.RRU
	}
	return m
}
