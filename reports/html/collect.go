package html

import (
	"context"
	"fmt"
	"time"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/planner"
)

// Options say what a report is made of: the model, and for each result
// either the run Collect makes itself or the file of an earlier run.
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

// Side is one model's static results: its map, estimate and bill.
type Side struct {
	Path     string
	Model    *catalog.Model
	Variants []estimate.Variant
	Peaks    *estimate.Peaks
	// Gate is check's verdict on the model, judged once (budget.Judge).
	Gate *budget.Gate
	Bill *estimate.Bill
	// Structures is the bill's requests split by table and index, with
	// each table's storage.
	Structures []StructureMonth
}

// StructureMonth is what one table or index costs a month.
type StructureMonth struct {
	Name  string // the index, or the table
	Table string
	Index string // "" for the table itself
	WRU   float64
	RRU   float64
	// RequestsUSD is the month's on-demand requests charged to it;
	// StorageUSD the table's storage, backups and exports (0 for an
	// index: a table's storage includes its index entries).
	RequestsUSD float64
	StorageUSD  float64
}

// Report is everything one report shows. Nil results are sections the
// report names as missing, with the command that produces them.
type Report struct {
	Side
	Other *Side
	// Budget is the gate's run; BudgetFrom says where it came from.
	Budget     *budget.Report
	BudgetFrom string
	Load       *Load
	LoadFrom   string
	Plan       *planner.Result
	PlanFrom   string
	Generated  time.Time
}

// Collect makes the report's results: check and cost of the model (and
// of the compared one), the budget gate run now on the embedded engine
// or read from an earlier run, and the load and plan result files given.
func Collect(ctx context.Context, o Options) (*Report, error) {
	side, err := static(o.Path, o.Model)
	if err != nil {
		return nil, err
	}
	r := &Report{Side: *side, Generated: o.Now}
	if o.Other != nil {
		if r.Other, err = static(o.Compare, o.Other); err != nil {
			return nil, err
		}
	}
	switch {
	case o.Budget != "":
		data, err := files.ReadCapped(o.Budget, budget.MaxBaselineBytes, "a report of cardapio budget")
		if err != nil {
			return nil, input.Wrap(err)
		}
		rep, err := ReadBudget(o.Budget, data)
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
		r.Load, err = ReadLoad(o.Load, f)
		_ = f.Close()
		if err != nil {
			return nil, input.Wrap(err)
		}
		r.LoadFrom = o.Load
	}
	if o.Plan != "" {
		data, err := files.ReadCapped(o.Plan, MaxPlanBytes, "a plan")
		if err != nil {
			return nil, input.Wrap(err)
		}
		if r.Plan, err = ReadPlan(o.Plan, data); err != nil {
			return nil, input.Wrap(err)
		}
		r.PlanFrom = o.Plan
	}
	return r, nil
}

// static works out what check and cost would print of model m, read from
// path.
func static(path string, m *catalog.Model) (*Side, error) {
	est := estimate.New(m, capacity.Default())
	gate, err := budget.Judge(m, capacity.Default(), false)
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	vs, peaks := gate.Variants, gate.Peaks
	prices := estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)
	measured, _ := dataset.Measure(m, capacity.Default()) // storage as cost sizes it
	bill, err := est.Month(estimate.Options{Prices: prices, Utilisation: 0.7, Measured: measured})
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	return &Side{Path: path, Model: m, Variants: vs, Peaks: peaks, Gate: gate, Bill: bill,
		Structures: structures(est, bill, prices)}, nil
}

// structures splits the bill's requests by the table or index that
// consumes them, weighing each operation's variants as the bill does,
// and adds every table's storage.
func structures(est *estimate.Estimator, bill *estimate.Bill, p capacity.Prices) []StructureMonth {
	m := est.Model
	classOf := map[string]capacity.Class{}
	var out []StructureMonth
	at := map[[2]string]int{}
	for _, t := range m.Tables {
		classOf[t.Name] = estimate.Class(t)
		at[[2]string{t.Name, ""}] = len(out)
		out = append(out, StructureMonth{Name: t.Name, Table: t.Name})
		for _, x := range m.Indexes {
			if x.Table == t {
				at[[2]string{t.Name, x.Name}] = len(out)
				out = append(out, StructureMonth{Name: x.Name, Table: t.Name, Index: x.Name})
			}
		}
	}
	for _, op := range m.Operations {
		runs, ok := estimate.Runs(op.Volume)
		if !ok {
			continue
		}
		vs, err := est.Operation(op)
		if err != nil {
			continue // the bill was made from the same figures: it cannot fail here
		}
		ws, _ := est.Weights(op, vs, p)
		for i, v := range vs {
			for _, t := range v.Targets {
				k, ok := at[[2]string{t.Table, t.Index}]
				if !ok {
					continue
				}
				s := &out[k]
				s.WRU += ws[i] * runs * t.WRU
				s.RRU += ws[i] * runs * t.RRU
				s.RequestsUSD += ws[i] * runs * p.OnDemand(t.WRU, t.RRU, classOf[t.Table])
			}
		}
	}
	for _, tm := range bill.Tables {
		if k, ok := at[[2]string{tm.Table, ""}]; ok {
			out[k].StorageUSD = tm.StorageUSD + tm.PITRUSD + tm.ExportUSD
		}
	}
	return out
}
