package diff

import (
	"slices"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
)

// Line is one figure before and after: an operation's, an access
// pattern's or a structure's US$ a month, or a budget's static units.
// In says which side has it: 1 BASE only, 2 HEAD only, 3 both.
type Line struct {
	Name string  `json:"name"`
	Base float64 `json:"base"`
	Head float64 `json:"head"`
	In   int     `json:"in"`
}

// Delta is Head - Base.
func (l Line) Delta() float64 { return l.Head - l.Base }

// Budget is one budget variant's static units before and after, with
// the verdict of the gate on each side ("" where it does not exist).
type Budget struct {
	Name        string         `json:"name"` // Operation/variant
	Base        budget.Units   `json:"base"`
	Head        budget.Units   `json:"head"`
	BaseVerdict budget.Verdict `json:"baseVerdict,omitempty"`
	HeadVerdict budget.Verdict `json:"headVerdict,omitempty"`
}

// Peak is one structure's hottest partition at the declared peaks, in
// units a second, before and after, and its limit.
type Peak struct {
	Name      string  `json:"name"`
	Direction string  `json:"direction"` // WCU or RCU
	Base      float64 `json:"base"`
	Head      float64 `json:"head"`
	Limit     float64 `json:"limit"`
}

// Run is what the month costs before and after, from the one bill the
// cost command prints.
type Run struct {
	Base, Head *estimate.Bill `json:"-"`
	Total      Line           `json:"total"`
	Operations []Line         `json:"operations"`
	Patterns   []Line         `json:"patterns"`
	Structures []Line         `json:"structures"`
	Budgets    []Budget       `json:"budgets"`
	Peaks      []Peak         `json:"peaks"`
}

// runCost prices both months and judges both models.
func runCost(base, head *catalog.Model, o cost.Options) (*Run, error) {
	bb, err := cost.Month(base, o)
	if err != nil {
		return nil, err
	}
	hb, err := cost.Month(head, o)
	if err != nil {
		return nil, err
	}
	r := &Run{Base: bb, Head: hb, Total: Line{Name: "total", Base: bb.TotalUSD, Head: hb.TotalUSD, In: 3}}
	lines := func(dst *[]Line, side int, name string, usd float64) {
		for i := range *dst {
			if (*dst)[i].Name == name {
				l := &(*dst)[i]
				l.In |= side
				if side == 1 {
					l.Base += usd
				} else {
					l.Head += usd
				}
				return
			}
		}
		l := Line{Name: name, In: side}
		if side == 1 {
			l.Base = usd
		} else {
			l.Head = usd
		}
		*dst = append(*dst, l)
	}
	for side, pair := range []struct {
		m *catalog.Model
		b *estimate.Bill
	}{{base, bb}, {head, hb}} {
		s := side + 1
		for _, op := range pair.b.Operations {
			lines(&r.Operations, s, op.Operation, op.USD)
		}
		for _, p := range pair.b.Patterns {
			name := p.Pattern
			if name == "" {
				name = "(writes)"
			}
			lines(&r.Patterns, s, name, p.USD)
		}
		for _, st := range cost.Structures(pair.m, pair.b, o) {
			lines(&r.Structures, s, st.Name, st.RequestsUSD+st.StorageUSD)
		}
	}
	for _, ls := range [][]Line{r.Operations, r.Patterns, r.Structures} {
		slices.SortFunc(ls, func(a, b Line) int { return compareNames(a.Name, b.Name) })
	}
	if err := r.judge(base, head); err != nil {
		return nil, err
	}
	return r, nil
}

func compareNames(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// judge adds the gate's figures: every budget variant's static units and
// the hottest partitions, from budget.Judge on each side.
func (r *Run) judge(base, head *catalog.Model) error {
	gb, err := budget.Judge(base, capacity.Default(), false)
	if err != nil {
		return err
	}
	gh, err := budget.Judge(head, capacity.Default(), false)
	if err != nil {
		return err
	}
	at := map[string]int{}
	for side, g := range []*budget.Gate{gb, gh} {
		for i := range g.Static {
			res := &g.Static[i]
			n := res.Name()
			k, ok := at[n]
			if !ok {
				k = len(r.Budgets)
				at[n] = k
				r.Budgets = append(r.Budgets, Budget{Name: n})
			}
			b := &r.Budgets[k]
			if side == 0 {
				b.Base, b.BaseVerdict = res.Static, res.Verdict
			} else {
				b.Head, b.HeadVerdict = res.Static, res.Verdict
			}
		}
	}
	slices.SortFunc(r.Budgets, func(a, b Budget) int { return compareNames(a.Name, b.Name) })
	pk := map[[2]string]int{}
	for side, g := range []*budget.Gate{gb, gh} {
		if g.Peaks == nil {
			continue
		}
		for _, s := range g.Peaks.Structures {
			for _, l := range []*estimate.PeakLoad{s.Write, s.Read} {
				if l == nil {
					continue
				}
				key := [2]string{s.Name(), l.Unit}
				k, ok := pk[key]
				if !ok {
					k = len(r.Peaks)
					pk[key] = k
					r.Peaks = append(r.Peaks, Peak{Name: s.Name(), Direction: l.Unit, Limit: l.Limit})
				}
				if side == 0 {
					r.Peaks[k].Base = l.Units
				} else {
					r.Peaks[k].Head = l.Units
				}
			}
		}
	}
	return nil
}
