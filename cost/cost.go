// Package cost prices a model's month: its static estimate under the
// billing rules, the prices (capacity's table, then the model's pricing,
// then a price file), and storage sized as the model's population draws
// it. It is the one pipeline the cost command and the HTML report share,
// so both print the same bill for the same model.
package cost

import (
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// DefaultUtilisation is the target utilisation the provisioned
// alternative is priced at unless told otherwise: auto scaling commonly
// targets 0.7.
const DefaultUtilisation = 0.7

// Options say how a month is priced.
type Options struct {
	// Prices, when set, overrides the model's prices (a price file).
	Prices *capacity.Prices
	// Utilisation is the provisioned alternative's target; 0 means
	// DefaultUtilisation.
	Utilisation float64
}

// prices is the price table a model is billed at under o.
func (o Options) prices(m *catalog.Model) capacity.Prices {
	p := estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)
	if o.Prices != nil {
		p = estimate.Overlay(p, *o.Prices)
	}
	return p
}

// PriceTable is the price table model m is billed at under o: what
// prices anything else about the model (a migration's writes) so that it
// agrees with the month's bill.
func (o Options) PriceTable(m *catalog.Model) capacity.Prices { return o.prices(m) }

// Month is model m's bill for a month. Storage sizes items as the model's
// population draws them; a model the generator cannot draw is sized by
// its samples.
func Month(m *catalog.Model, o Options) (*estimate.Bill, error) {
	u := o.Utilisation
	if u == 0 {
		u = DefaultUtilisation
	}
	measured, _ := dataset.Measure(m, capacity.Default())
	return estimate.New(m, capacity.Default()).Month(estimate.Options{Prices: o.prices(m), Utilisation: u, Measured: measured})
}

// Structure is what one table or index costs a month.
type Structure struct {
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

// Structures splits bill, model m's month priced under o, by the table or
// index that consumes its requests, weighing each operation's variants as
// the bill does, and adds every table's storage.
func Structures(m *catalog.Model, bill *estimate.Bill, o Options) []Structure {
	est := estimate.New(m, capacity.Default())
	p := o.prices(m)
	classOf := map[string]capacity.Class{}
	var out []Structure
	at := map[[2]string]int{}
	for _, t := range m.Tables {
		classOf[t.Name] = estimate.Class(t)
		at[[2]string{t.Name, ""}] = len(out)
		out = append(out, Structure{Name: t.Name, Table: t.Name})
		for _, x := range m.Indexes {
			if x.Table == t {
				at[[2]string{t.Name, x.Name}] = len(out)
				out = append(out, Structure{Name: x.Name, Table: t.Name, Index: x.Name})
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

// TableUsage is one table's month as usage: the units of the requests it
// and its indexes serve (DynamoDB bills an index's units under its
// table), its billed storage, and the data point-in-time recovery keeps
// when the table has it on. It is what a usage file of another tool
// (Infracost's) needs of a table.
type TableUsage struct {
	Table     string
	WRU, RRU  float64
	StorageGB float64
	PITRGB    float64 // 0 without point-in-time recovery
}

// Usage is bill's month, model m's priced under o, table by table.
func Usage(m *catalog.Model, bill *estimate.Bill, o Options) []TableUsage {
	at := map[string]int{}
	out := make([]TableUsage, 0, len(bill.Tables))
	for _, t := range bill.Tables {
		at[t.Table] = len(out)
		u := TableUsage{Table: t.Table, StorageGB: t.GB}
		if t.PITRUSD > 0 {
			u.PITRGB = t.DataGB
		}
		out = append(out, u)
	}
	for _, s := range Structures(m, bill, o) {
		if i, ok := at[s.Table]; ok {
			out[i].WRU += s.WRU
			out[i].RRU += s.RRU
		}
	}
	return out
}
