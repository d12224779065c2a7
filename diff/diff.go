package diff

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
)

// Options say how two models are compared.
type Options struct {
	// Cost prices both months and the migration (prices, utilisation).
	Cost cost.Options
	// MaxIncrease, when set, fails the diff when HEAD's month costs more
	// than BASE's by more than it.
	MaxIncrease *Limit
}

// Limit is a monthly increase allowed: a percentage of BASE's month or
// US$.
type Limit struct {
	Value   float64
	Percent bool
}

// String writes the limit as ParseLimit reads it.
func (l Limit) String() string {
	if l.Percent {
		return strconv.FormatFloat(l.Value, 'f', -1, 64) + "%"
	}
	return "US$" + strconv.FormatFloat(l.Value, 'f', -1, 64)
}

// ParseLimit reads a limit: "10%" (of BASE's month) or "25" / "$25" /
// "25USD" (US$ a month).
func ParseLimit(s string) (Limit, error) {
	t := strings.TrimSpace(s)
	l := Limit{}
	switch {
	case strings.HasSuffix(t, "%"):
		l.Percent, t = true, strings.TrimSuffix(t, "%")
	case strings.HasPrefix(t, "US$"):
		t = strings.TrimPrefix(t, "US$")
	case strings.HasPrefix(t, "$"):
		t = strings.TrimPrefix(t, "$")
	case strings.HasSuffix(strings.ToUpper(t), "USD"):
		t = strings.TrimSpace(t[:len(t)-3])
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e12 {
		return Limit{}, fmt.Errorf("%q: want a percentage such as 10%% or US$ a month such as 25", s)
	}
	l.Value = v
	return l, nil
}

// Exceeded reports whether a month going from base to head US$ grows by
// more than the limit.
func (l Limit) Exceeded(base, head float64) bool {
	grew := head - base
	if l.Percent {
		if base <= 0 {
			return grew > 0
		}
		return grew/base*100 > l.Value+1e-9
	}
	return grew > l.Value+1e-9
}

// Money is a figure before and after.
type Money struct {
	Base float64 `json:"base"`
	Head float64 `json:"head"`
}

// Report is the whole comparison.
type Report struct {
	// OK is false when a breaking change is not acknowledged or the
	// month grew past the limit; Failures say which.
	OK       bool     `json:"ok"`
	Failures []string `json:"failures,omitempty"`
	Base     string   `json:"base"`
	Head     string   `json:"head"`
	Changes  []Change `json:"changes"`
	// MonthlyUSD is the month's total, before and after.
	MonthlyUSD Money  `json:"monthlyUSD"`
	Run        *Run   `json:"run"`
	Migration  []Step `json:"migration"`
	// MigrationTotal adds up the plan's steps.
	MigrationTotal Step `json:"migrationTotal"`
	// Rehearsal is the plan played on the embedded engine, when asked.
	Rehearsal *Rehearsal `json:"rehearsal,omitempty"`
	// Limit is the monthly increase allowed, "" when none.
	Limit string `json:"maxIncrease,omitempty"`
}

// Breaking returns the breaking changes, and those not acknowledged.
func (r *Report) Breaking() (all, open []Change) {
	for _, c := range r.Changes {
		if c.Breaking {
			all = append(all, c)
			if c.Acknowledged == "" {
				open = append(open, c)
			}
		}
	}
	return all, open
}

// Compare compares base with head: the changes, the month before and
// after, the migration plan and the generated API's breaks.
func Compare(base, head *catalog.Model, o Options) (*Report, error) {
	c := &changes{base: base, head: head}
	c.model()
	// The generated APIs, the two months and the plan read the models
	// only: they are worked out side by side.
	var (
		wg        sync.WaitGroup
		apiErr    error
		run       *Run
		runErr    error
		migration []Step
		api       = &changes{base: base, head: head}
	)
	wg.Add(3)
	go func() { defer wg.Done(); apiErr = api.api() }()
	go func() { defer wg.Done(); run, runErr = runCost(base, head, o.Cost) }()
	go func() { defer wg.Done(); migration = Plan(base, head, o.Cost.PriceTable(head)) }()
	wg.Wait()
	if apiErr != nil {
		return nil, apiErr
	}
	if runErr != nil {
		return nil, runErr
	}
	c.out = append(c.out, api.out...)
	if migration == nil {
		migration = []Step{} // JSON readers get a list, empty or not
	}
	if c.out == nil {
		c.out = []Change{}
	}
	c.verdicts(run)
	r := &Report{Base: base.Source, Head: head.Source, Changes: c.out, Run: run,
		MonthlyUSD: Money{run.Total.Base, run.Total.Head}, Migration: migration}
	for _, s := range r.Migration {
		t := &r.MigrationTotal
		t.Items += s.Items
		t.WriteUnits += s.WriteUnits
		t.ReadUnits += s.ReadUnits
		t.USD += s.USD
		t.Seconds += s.Seconds
	}
	r.MigrationTotal.Step = "total"
	if o.MaxIncrease != nil {
		r.Limit = o.MaxIncrease.String()
	}
	r.judge(o)
	return r, nil
}

// judge sets OK and the failures.
func (r *Report) judge(o Options) {
	_, open := r.Breaking()
	r.Failures = nil
	for _, c := range open {
		r.Failures = append(r.Failures, fmt.Sprintf("breaking change not acknowledged: %s: %s", c.Path, c.Text))
	}
	if l := o.MaxIncrease; l != nil && l.Exceeded(r.MonthlyUSD.Base, r.MonthlyUSD.Head) {
		r.Failures = append(r.Failures, fmt.Sprintf("the month grows from %s to %s, more than --max-increase %s",
			estimate.USD(r.MonthlyUSD.Base), estimate.USD(r.MonthlyUSD.Head), l))
	}
	if r.Rehearsal != nil {
		r.Failures = append(r.Failures, r.Rehearsal.Failures...)
	}
	r.OK = len(r.Failures) == 0
}

// verdicts adds what HEAD makes dearer: an access pattern both models
// answer whose month grew (not breaking: its callers pay more), a budget
// the gate passed in BASE and fails in HEAD, and a partition that HEAD
// pushes over its limit at a declared peak (breaking: the gate, check
// and budget fail HEAD for them, with the same explanation).
func (c *changes) verdicts(run *Run) {
	for _, l := range run.Patterns {
		if l.In != 3 || l.Name == "(writes)" || l.Head <= l.Base*1.005 || l.Head-l.Base < 0.005 {
			continue
		}
		c.add("accessPattern.dearer", false, []string{"accessPatterns", l.Name}, "access pattern %s costs more a month: %s -> %s",
			l.Name, estimate.USD(l.Base), estimate.USD(l.Head))
	}
	for _, b := range run.Budgets {
		if b.BaseVerdict != budget.Pass || b.HeadVerdict != budget.Fail {
			continue
		}
		op, variant, _ := strings.Cut(b.Name, "/")
		c.add("budget.exceeded", true, []string{"operations", op, "budgets", variant}, "budget %s passed and now fails: %s WRU, %s RRU a run (was %s WRU, %s RRU)",
			b.Name, num(b.Head.WRU), num(b.Head.RRU), num(b.Base.WRU), num(b.Base.RRU))
	}
	for _, p := range run.Peaks {
		if p.Base > p.Limit+1e-9 || p.Head <= p.Limit+1e-9 {
			continue
		}
		at := []string{"indexes", p.Name}
		if indexNamed(c.head, p.Name) == nil {
			at = []string{"tables", p.Name}
		}
		c.add("peak.over", true, at, "the hottest partition of %s takes %s %s/s at a declared peak, over its %s (was %s)",
			p.Name, num(math.Round(p.Head*10)/10), p.Direction, num(p.Limit), num(math.Round(p.Base*10)/10))
	}
}

func indexNamed(m *catalog.Model, name string) *catalog.Index {
	return named(m.Indexes, name, func(x *catalog.Index) string { return x.Name })
}
