package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// A baseline is the JSON report of an accepted run (--format json or
// --write-baseline write the same document); a later run is compared with
// it variant by variant.

// MaxBaselineBytes caps what ReadBaseline reads: a report of a few
// hundred variants is well under a megabyte.
const MaxBaselineBytes = 16 << 20

// maxBaselineResults caps the variants a baseline may hold.
const maxBaselineResults = 100000

// ReadBaseline reads an accepted run's report. Only what a comparison
// needs is checked: every result names its operation, and its figures are
// finite units, not negative.
func ReadBaseline(name string, r io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBaselineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read baseline %s: %w", name, err)
	}
	if len(data) > MaxBaselineBytes {
		return nil, fmt.Errorf("baseline %s: larger than %d MB: not a report of this tool", name, MaxBaselineBytes>>20)
	}
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("baseline %s: %s", name, jsonProblem(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("baseline %s: more than one JSON document", name)
	}
	if rep.Results == nil {
		return nil, fmt.Errorf("baseline %s: no \"results\": not a report of cardapio budget", name)
	}
	if len(rep.Results) > maxBaselineResults {
		return nil, fmt.Errorf("baseline %s: %d results, more than %d", name, len(rep.Results), maxBaselineResults)
	}
	seen := map[string]bool{}
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Operation == "" {
			return nil, fmt.Errorf("baseline %s: results[%d] has no operation", name, i)
		}
		for _, f := range []float64{res.Measured.WRU, res.Measured.RRU} {
			if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				return nil, fmt.Errorf("baseline %s: results[%d] (%s): measured units must be finite and not negative", name, i, res.Name())
			}
		}
		for t, u := range res.Measured.Tables {
			if u.WRU < 0 || u.RRU < 0 {
				return nil, fmt.Errorf("baseline %s: results[%d] (%s): table %s: negative units", name, i, res.Name(), t)
			}
		}
		for t, u := range res.Measured.Indexes {
			if u.WRU < 0 || u.RRU < 0 {
				return nil, fmt.Errorf("baseline %s: results[%d] (%s): index %s: negative units", name, i, res.Name(), t)
			}
		}
		if seen[res.Name()] {
			return nil, fmt.Errorf("baseline %s: %s appears twice", name, res.Name())
		}
		seen[res.Name()] = true
	}
	return &rep, nil
}

// jsonProblem says where a JSON document is broken, by line.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		err = fmt.Errorf("%s should be %s, not a JSON %s", te.Field, te.Type, te.Value)
	case errors.Is(err, io.EOF):
		return "empty file: not a report of cardapio budget"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the document ends early: is the file cut short?"
	}
	if off < 0 {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'})
	return fmt.Sprintf("line %d: %v", line, err)
}

// Comparison is a run set against an accepted one.
type Comparison struct {
	File string `json:"file"`
	// Deltas has one entry per variant of either run, in the run's order
	// (variants only in the baseline last).
	Deltas []Delta `json:"deltas"`
	// Operations are the monthly dollars each operation's change comes
	// to, at the model's volumes and prices (operations that declare a
	// volume, and whose figures changed).
	Operations []OpDelta `json:"operations"`
	Dearer     int       `json:"dearer"`
	Cheaper    int       `json:"cheaper"`
	New        int       `json:"new"`
	Gone       int       `json:"gone"`
	// USDMonth is the sum of the operations' changes.
	USDMonth float64 `json:"usdMonth"`
}

// Delta statuses.
const (
	Dearer  = "dearer"
	Cheaper = "cheaper"
	Same    = "same"
	New     = "new"  // not in the baseline
	Gone    = "gone" // in the baseline only
)

// Delta is one variant against the baseline.
type Delta struct {
	Operation string `json:"operation"`
	Variant   string `json:"variant"`
	Status    string `json:"status"`
	Baseline  Units  `json:"baseline"`
	Measured  Units  `json:"measured"`
	Delta     Units  `json:"delta"`
}

// Name returns "Operation/variant".
func (d *Delta) Name() string {
	if d.Variant == "" {
		return d.Operation
	}
	return d.Operation + "/" + d.Variant
}

// OpDelta is what an operation's change costs a month.
type OpDelta struct {
	Operation string  `json:"operation"`
	Basis     string  `json:"basis"` // how its variants are weighed
	Runs      float64 `json:"runs"`  // a month
	Baseline  float64 `json:"baselineUSD"`
	Measured  float64 `json:"measuredUSD"`
	USDMonth  float64 `json:"usdMonth"`
}

// Compare sets rep against base. Monthly dollars use the model's volumes
// and prices p, with capacity/estimate's monthly arithmetic.
func Compare(m *catalog.Model, rules capacity.Rules, p capacity.Prices, rep, base *Report, file string) *Comparison {
	c := &Comparison{File: file, Deltas: []Delta{}, Operations: []OpDelta{}}
	old := map[string]*Result{}
	for i := range base.Results {
		old[base.Results[i].Name()] = &base.Results[i]
	}
	seen := map[string]bool{}
	for i := range rep.Results {
		r := &rep.Results[i]
		seen[r.Name()] = true
		d := Delta{Operation: r.Operation, Variant: r.Variant, Measured: r.Measured.Units(), Status: New}
		if b := old[r.Name()]; b != nil {
			d.Baseline = b.Measured.Units()
			d.Delta = Units{round(d.Measured.WRU - d.Baseline.WRU), round(d.Measured.RRU - d.Baseline.RRU)}
			switch {
			case d.Delta.WRU > 0 || d.Delta.RRU > 0:
				d.Status = Dearer
			case d.Delta.WRU < 0 || d.Delta.RRU < 0:
				d.Status = Cheaper
			default:
				d.Status = Same
			}
		}
		c.Deltas = append(c.Deltas, d)
	}
	for i := range base.Results {
		b := &base.Results[i]
		if !seen[b.Name()] {
			c.Deltas = append(c.Deltas, Delta{Operation: b.Operation, Variant: b.Variant, Status: Gone, Baseline: b.Measured.Units(),
				Delta: Units{-b.Measured.WRU, -b.Measured.RRU}})
		}
	}
	for _, d := range c.Deltas {
		switch d.Status {
		case Dearer:
			c.Dearer++
		case Cheaper:
			c.Cheaper++
		case New:
			c.New++
		case Gone:
			c.Gone++
		}
	}
	// Dollars: each operation's month priced on both runs' figures, over
	// the variants both measured, so that a partial run (--only) is not
	// read as operations gone.
	e := estimate.New(m, rules)
	byOp := map[string][2][]estimate.Priced{}
	var ops []string
	for i := range rep.Results {
		r := &rep.Results[i]
		b := old[r.Name()]
		if b == nil {
			continue
		}
		if _, ok := byOp[r.Operation]; !ok {
			ops = append(ops, r.Operation)
		}
		pair := byOp[r.Operation]
		pair[0] = append(pair[0], priced(m, r))
		pair[1] = append(pair[1], priced(m, b))
		byOp[r.Operation] = pair
	}
	sort.Strings(ops)
	for _, name := range ops {
		op := m.Operation(name)
		if op == nil {
			continue
		}
		pair := byOp[name]
		now, basis, ok := e.MonthUSD(op, p, pair[0])
		if !ok {
			continue
		}
		was, _, _ := e.MonthUSD(op, p, pair[1])
		if math.Abs(now-was) < 1e-9 {
			continue
		}
		runs, _ := estimate.Runs(op.Volume)
		c.Operations = append(c.Operations, OpDelta{Operation: name, Basis: basis, Runs: runs, Baseline: was, Measured: now, USDMonth: now - was})
		c.USDMonth += now - was
	}
	return c
}

// priced turns a result's figures into units per table, each table's
// indexes included (an index write is billed at its table's prices).
func priced(m *catalog.Model, r *Result) estimate.Priced {
	per := map[string]Units{}
	for t, u := range r.Measured.Tables {
		per[t] = per[t].add(u)
	}
	for name, u := range r.Measured.Indexes {
		t := ""
		if ix := m.Index(name); ix != nil && ix.Table != nil {
			t = ix.Table.Name
		}
		per[t] = per[t].add(u)
	}
	if len(per) == 0 && (r.Measured.WRU > 0 || r.Measured.RRU > 0) {
		t := ""
		if len(m.Tables) > 0 {
			t = m.Tables[0].Name
		}
		per[t] = r.Measured.Units()
	}
	names := make([]string, 0, len(per))
	for t := range per {
		names = append(names, t)
	}
	sort.Strings(names)
	out := estimate.Priced{Variant: r.Variant}
	for _, t := range names {
		out.Tables = append(out.Tables, estimate.Target{Table: t, WRU: per[t].WRU, RRU: per[t].RRU})
	}
	return out
}

// round drops float noise from a difference of unit counts (halves are
// the finest unit).
func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }
