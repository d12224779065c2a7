package estimate

import (
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// Priced is what one run of an operation's variant consumes on each
// table, however it was obtained: estimated here, or measured on an
// engine by the budget gate.
type Priced struct {
	Variant string
	Tables  []Target // Index is ignored: a table's figure includes its indexes
}

// MonthUSD prices a month of op when its variants consume what vs says,
// with the arithmetic of Month: the operation's runs a month, its variants
// weighed by their declared shares (or every run charged at the dearest
// variant), each table at its class's prices. ok is false when op
// declares no volume. Comparing two calls gives what a change of units
// costs a month at the model's volumes.
func (e *Estimator) MonthUSD(op *catalog.Operation, p capacity.Prices, vs []Priced) (usd float64, basis string, ok bool) {
	runs, ok := Runs(op.Volume)
	if !ok || len(vs) == 0 {
		return 0, "", ok
	}
	classOf := map[string]capacity.Class{}
	for _, t := range e.Model.Tables {
		classOf[t.Name] = Class(t)
	}
	usdOf := func(s Step) float64 { return p.OnDemand(s.WRU, s.RRU, classOf[s.Table]) }
	// Match the variants to the operation's budgets so that the declared
	// shares apply; a variant the model does not declare has no share.
	byName := map[string]*catalog.Budget{}
	for _, b := range op.Budgets {
		byName[b.Name] = b
	}
	shaped := &catalog.Operation{Name: op.Name}
	variants := make([]Variant, 0, len(vs))
	for _, pv := range vs {
		b := byName[pv.Variant]
		if b == nil {
			b = &catalog.Budget{Name: pv.Variant}
		}
		shaped.Budgets = append(shaped.Budgets, b)
		v := Variant{Operation: op.Name, Name: pv.Variant}
		for _, t := range pv.Tables {
			v.Steps = append(v.Steps, Step{Table: t.Table, WRU: t.WRU, RRU: t.RRU})
		}
		variants = append(variants, v)
	}
	weights, basis := e.weights(shaped, variants, usdOf)
	for i, v := range variants {
		for _, s := range v.Steps {
			usd += weights[i] * runs * usdOf(s)
		}
	}
	return usd, basis, true
}

// Weights returns the weight Month gives each of op's variants vs (as
// Operation returns them) and the basis in words: the declared shares,
// or 1 for the dearest variant at prices p. A report that splits a
// month differently (by table and index) weighs the variants exactly
// as the bill does.
func (e *Estimator) Weights(op *catalog.Operation, vs []Variant, p capacity.Prices) ([]float64, string) {
	if len(vs) == 0 {
		return nil, ""
	}
	classOf := map[string]capacity.Class{}
	for _, t := range e.Model.Tables {
		classOf[t.Name] = Class(t)
	}
	return e.weights(op, vs, func(s Step) float64 { return p.OnDemand(s.WRU, s.RRU, classOf[s.Table]) })
}
