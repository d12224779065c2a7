package html

import (
	"time"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
	"github.com/cardapio/cardapio/planner"
)

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
	Structures []cost.Structure
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
