// Package collect gathers what one HTML report shows: it works out check
// and cost of a model (and of another set beside it), runs the budget gate
// on the embedded engine or reads an earlier run's report, and reads the
// load and plan result files given. The report command calls it and hands
// the result to reports/html, which only renders.
package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/reports/html"
)

// Options say what a report is made of: the model, and for each result
// either the run Report makes itself or the file of an earlier run.
type Options struct {
	// Model is the model, loaded by the command from Path; Other, when
	// set, another model set beside it, loaded from Compare.
	Model, Other  *catalog.Model
	Path, Compare string
	// Budget is a JSON report of cardapio budget (--format json or
	// --write-baseline); "" runs the gate now when Measure is set.
	Budget  string
	Measure bool
	// Run configures the gate's run (the embedded engine by default).
	Run budget.Options
	// Load is a load run's results file (JSON lines); Plan a plan's JSON.
	Load, Plan string
	// Now stamps the report; the zero value leaves it unstamped.
	Now time.Time
}

// Report makes the report's results: check and cost of the model (and
// of the compared one), the budget gate run now on the embedded engine
// or read from an earlier run, and the load and plan result files given.
func Report(ctx context.Context, o Options) (*html.Report, error) {
	side, err := Side(o.Path, o.Model)
	if err != nil {
		return nil, err
	}
	r := &html.Report{Side: *side, Generated: o.Now}
	if o.Other != nil {
		if r.Other, err = Side(o.Compare, o.Other); err != nil {
			return nil, err
		}
	}
	switch {
	case o.Budget != "":
		data, err := files.ReadCapped(o.Budget, budget.MaxBaselineBytes, "a report of cardapio budget")
		if err != nil {
			return nil, input.Wrap(err)
		}
		rep, err := html.ReadBudget(o.Budget, data)
		if err != nil {
			return nil, input.Wrap(err)
		}
		r.Budget, r.BudgetFrom = rep, o.Budget
	case o.Measure:
		rep, err := budget.Run(ctx, o.Model, o.Path, o.Run)
		if err != nil {
			return nil, err
		}
		r.Budget, r.BudgetFrom = rep, "this run, on "+rep.Target
	}
	if o.Load != "" {
		f, err := files.Open(o.Load)
		if err != nil {
			return nil, input.Wrap(err)
		}
		r.Load, err = html.ReadLoad(o.Load, f)
		_ = f.Close()
		if err != nil {
			return nil, input.Wrap(err)
		}
		r.LoadFrom = o.Load
	}
	if o.Plan != "" {
		data, err := files.ReadCapped(o.Plan, html.MaxPlanBytes, "a plan")
		if err != nil {
			return nil, input.Wrap(err)
		}
		if r.Plan, err = html.ReadPlan(o.Plan, data); err != nil {
			return nil, input.Wrap(err)
		}
		r.PlanFrom = o.Plan
	}
	return r, nil
}

// Side works out what check and cost print of model m, read from path:
// check's verdict and the month cost prices at its defaults.
func Side(path string, m *catalog.Model) (*html.Side, error) {
	gate, err := budget.Judge(m, capacity.Default(), false)
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	vs, peaks := gate.Variants, gate.Peaks
	bill, err := cost.Month(m, cost.Options{})
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	return &html.Side{Path: path, Model: m, Variants: vs, Peaks: peaks, Gate: gate, Bill: bill,
		Structures: cost.Structures(m, bill, cost.Options{})}, nil
}
