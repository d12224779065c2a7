package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/throughput"
)

// Options are a plan's inputs beyond the model.
type Options struct {
	// Scenario names one of the model's scenarios, or of Scenarios.
	Scenario string
	// Scenarios are scenarios read from a scenario file (catalog's
	// LoadScenarioFile), looked up before the model's.
	Scenarios []catalog.Scenario
	// Shards sets the shard count of sharded indexes: by index name, or
	// "" for every sharded index (1: no shard).
	Shards map[string]int
	// Warm sets the warm throughput of a table or an index, by its name,
	// "" for every table (on-demand; it only raises the default, as on
	// AWS).
	Warm map[string]Throughput
	// Billing replaces every table's mode: "onDemand" or "provisioned"
	// (then Provisioned is the capacity of each table and of each of its
	// indexes, or the model's when zero).
	Billing     string
	Provisioned Throughput
	// Scale multiplies the population, every load and every capacity
	// figure (as the engine's scaled runs do); 0 means 1, the model's
	// full scale.
	Scale float64
	// Duration is how long loads given by a rate run
	// (the load generator's Duration); the span is the loads' own, from
	// the scenario's start to the last arrival. Resolution is the seconds a
	// series point covers (0: 1 up to an hour, else 60).
	Duration   time.Duration
	Resolution int
	// Sample is how many items of each root entity place the population
	// (0: DefaultSample); Seed selects them.
	Sample int
	Seed   uint64
	// Hottest is how many partitions of each resource are listed and
	// drawn (0: 8).
	Hottest int
	// SearchShards looks for the shard count that gives no throttling of
	// a sharded index that throttles on its partitions, by planning again
	// with more shards.
	SearchShards bool
	// Prices price the span; the zero value takes capacity's defaults
	// overridden by the model's pricing.
	Prices *capacity.Prices
	// SplitAfter is the throughput model's delay before a split for heat
	// (0: its default).
	SplitAfter time.Duration
}

// Throughput is read and write units a second.
type Throughput struct{ Read, Write float64 }

// inputErr is an error in the options or the scenario (bad input, not a
// failure of the planner).
func inputErr(format string, args ...any) error { return input.Errorf(format, args...) }

// find looks a scenario up by name: in Scenarios, then the model's.
func (o *Options) find(m *catalog.Model) func(string) *catalog.Scenario {
	return func(name string) *catalog.Scenario {
		for i := range o.Scenarios {
			if o.Scenarios[i].Name == name {
				return &o.Scenarios[i]
			}
		}
		return m.Scenario(name)
	}
}

// planner holds what a plan reads from the model.
type planner struct {
	m      *catalog.Model
	est    *estimate.Estimator
	rules  capacity.Rules
	tables map[*catalog.Table]*capacity.Table
	names  namer
	o      Options
}

// Plan simulates the scenario over the model's population, second by
// second, and returns what every table and index did. The model is read,
// never changed (shard what-ifs are undone before Plan returns).
func Plan(m *catalog.Model, o Options) (*Result, error) {
	began := time.Now()
	if o.Scale == 0 {
		o.Scale = 1
	}
	if !finite(o.Scale) || o.Scale < 0 {
		return nil, inputErr("scale must be a positive number, not %v", o.Scale)
	}
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	if o.Hottest <= 0 {
		o.Hottest = 8
	}
	sc := o.find(m)(o.Scenario)
	if sc == nil {
		var names []string
		for _, s := range m.Scenarios {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return nil, inputErr("the model declares no scenarios")
		}
		return nil, inputErr("no scenario %q (the model has %s)", o.Scenario, strings.Join(names, ", "))
	}
	whatIf, undo, err := applyShards(m, o.Shards)
	defer undo()
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(mapsKeys(o.Warm)) {
		if err := checkWarm(m, name, o.Warm[name]); err != nil {
			return nil, err
		}
	}
	switch o.Billing {
	case "", "onDemand", "provisioned":
	default:
		return nil, inputErr("billing must be onDemand or provisioned, not %q", o.Billing)
	}
	res, err := run(m, sc, o)
	if err != nil {
		return nil, err
	}
	res.WhatIf = append(whatIf, res.WhatIf...)
	if o.SearchShards && res.Verdict.Throttled {
		res.Advice.Shards = searchShards(m, sc, o, res)
	}
	res.Elapsed = time.Since(began).Seconds()
	return res, nil
}

// checkWarm refuses a warm throughput the plan could not honour: one
// below what the table already has (its declared warm throughput, or the
// warm throughput AWS gives every on-demand table), since warm throughput
// only rises.
func checkWarm(m *catalog.Model, name string, w Throughput) error {
	var tables []*catalog.Table
	switch t, x := m.Table(name), m.Index(name); {
	case name == "":
		tables = m.Tables
	case t != nil:
		tables = []*catalog.Table{t}
	case x != nil && !x.Local && x.Table != nil:
		tables = []*catalog.Table{x.Table}
	default:
		return inputErr("--warm %s: no table or global index of that name", name)
	}
	for _, t := range tables {
		floor, from := Throughput{throughput.DefaultWarmRead, throughput.DefaultWarmWrite}, "the warm throughput AWS gives an on-demand table"
		wt, whose := t.Billing.WarmThroughput, "table "+t.Name
		if x := m.Index(name); x != nil && x.Table == t {
			wt = x.Warm()
			if x.WarmThroughput != nil {
				whose = "index " + x.Name
			}
		}
		if wt != nil {
			floor = Throughput{max(floor.Read, float64(wt.Read)), max(floor.Write, float64(wt.Write))}
			from = fmt.Sprintf("%s's declared warm throughput, or AWS's default where higher", whose)
		}
		if w.Read < floor.Read || w.Write < floor.Write {
			return inputErr("--warm %s: %s read, %s write is below %s read, %s write (%s); warm throughput only rises: give at least that", cmp.Or(name, t.Name),
				count(w.Read), count(w.Write), count(floor.Read), count(floor.Write), from)
		}
	}
	return nil
}

// applyShards sets the shard counts asked for, returning the words and
// how to undo them.
func applyShards(m *catalog.Model, shards map[string]int) ([]string, func(), error) {
	var words []string
	var undo []func()
	restore := func() {
		for _, u := range undo {
			u()
		}
	}
	for _, name := range slices.Sorted(mapsKeys(shards)) {
		n := shards[name]
		if n < 1 || n > 4096 {
			return nil, restore, inputErr("--shards: a shard count is 1 to 4096, not %d", n)
		}
		var xs []*catalog.Index
		if name == "" {
			for _, x := range m.Indexes {
				if x.Shards != nil {
					xs = append(xs, x)
				}
			}
			if len(xs) == 0 {
				return nil, restore, inputErr("--shards: the model has no sharded index")
			}
		} else {
			x := m.Index(name)
			switch {
			case x == nil:
				return nil, restore, inputErr("--shards %s: no index of that name", name)
			case x.Shards == nil:
				return nil, restore, inputErr("--shards %s: the index declares no shards", name)
			}
			xs = []*catalog.Index{x}
		}
		for _, x := range xs {
			old := x.Shards
			cp := *old
			cp.Count = n
			x.Shards = &cp
			undo = append(undo, func() { x.Shards = old })
			words = append(words, fmt.Sprintf("%s with %d shards (declared %d)", x.Name, n, old.Count))
		}
	}
	return words, restore, nil
}

// resource is one table or index being simulated.
type resource struct {
	table, index string
	mode         throughput.Mode
	gb           float64
	out          *Resource
	parts        map[[2]uint64]*partTrack
	keys         []throughput.Point // the load's named keys on it
	sorted       bool
	// now and worst are the second's throttled units and most throttled
	// partition, by direction.
	now   [2]float64
	worst [2]*partTrack
	// full says the most throttled partition served its cap in the
	// second: it refused; a partition that did not refused nothing of
	// its own (a request refused elsewhere counts as throttled on every
	// partition it charges).
	full [2]bool
}

type partTrack struct {
	lo, hi    uint64
	consumed  [2]float64
	throttled [2]float64
	peak      [2]float64 // demand
	first     int
	cells     [2][]float64
}

// run is one simulation.
func run(m *catalog.Model, sc *catalog.Scenario, o Options) (*Result, error) {
	p, pop, sch, err := prepare(m, sc, o)
	if err != nil {
		return nil, err
	}
	resolution := o.Resolution
	if resolution <= 0 {
		resolution = 1
		if sch.seconds > 3600 {
			resolution = 60
		}
	}
	clock := throughput.NewManualClock(sch.start)
	tm, err := throughput.New(throughput.Config{Now: clock.Now, Scale: o.Scale, SplitAfter: o.SplitAfter})
	if err != nil {
		return nil, err
	}
	res := &Result{Model: m.Name, Scenario: sc.Name, Start: sch.start, Seconds: sch.seconds, Resolution: resolution,
		Assumption: Assumptions{SplitAfterSeconds: orDefault(o.SplitAfter, throughput.DefaultSplitAfter).Seconds(),
			PeakWindowSeconds: throughput.DefaultPeakWindow.Seconds(), Sample: o.Sample, Seed: o.Seed}}
	res.Population = Population{Items: math.Round(pop.total), Sampled: pop.items, Note: pop.note}
	if o.Billing != "" {
		res.WhatIf = append(res.WhatIf, "billing "+o.Billing)
	}
	for _, name := range slices.Sorted(mapsKeys(o.Warm)) {
		w := o.Warm[name]
		if name == "" {
			name = "every table"
		}
		res.WhatIf = append(res.WhatIf, fmt.Sprintf("%s warm at %s read, %s write", name, count(w.Read), count(w.Write)))
	}
	rs, err := p.define(tm, pop, res)
	if err != nil {
		return nil, err
	}
	loads, roots, refs, plans, err := p.build(sch, rs)
	if err != nil {
		return nil, inputErr("scenario %s: %v", sc.Name, err)
	}
	res.Loads = plans
	order := resourceOrder(m, rs)
	nb := (sch.seconds + resolution - 1) / resolution
	for _, r := range order {
		r.out.Read = make([]Point, nb)
		r.out.Write = make([]Point, nb)
		for b := range nb {
			r.out.Read[b] = Point{Second: b * resolution, Limit: math.Inf(1)}
			r.out.Write[b] = Point{Second: b * resolution, Limit: math.Inf(1)}
		}
	}
	usage := map[string][]throughput.Usage{}
	gsis := map[string][]string{}
	for _, r := range order {
		if r.index != "" {
			gsis[r.table] = append(gsis[r.table], r.index)
		}
	}
	var out []throughput.LoadResult
	var reasons throughput.ReasonCounts
	perLoad := make([]throughput.ReasonCounts, len(sch.loads))
	seen := map[throughput.Reason]bool{}
	var second throughput.ReasonCounts
	for s := range sch.seconds {
		for _, rt := range roots {
			loads[rt.first].Count = rt.shape.at(s) * rt.share * rt.perRun
		}
		out = tm.AdmitSecond(loads, out)
		second = throughput.ReasonCounts{}
		for k, lr := range out {
			ref := refs[k]
			lp := &res.Loads[ref.load]
			st := &lp.Steps[ref.step]
			st.Requests += lr.Offered
			st.Throttled += lr.Throttled
			lp.Requests += lr.Offered
			lp.Admitted += lr.Admitted
			lp.Throttled += lr.Throttled
			perLoad[ref.load].Add(&lr.Reasons)
			second.Add(&lr.Reasons)
			reasons.Add(&lr.Reasons)
		}
		b := s / resolution
		for _, t := range m.Tables {
			u, ok := tm.Usage(t.Name, gsis[t.Name], usage[t.Name])
			if !ok {
				continue
			}
			usage[t.Name] = u
			for i := range u {
				r := rs[resKey{t.Name, u[i].Index}]
				if r != nil {
					r.record(&u[i], s, b, nb)
				}
			}
		}
		firstHits(order, &second, seen, s, res, sch.start)
		clock.Advance(time.Second)
	}
	// Totals and what is left to say.
	res.Throttled.Reasons = reasonMap(&reasons)
	for i := range res.Loads {
		l := &res.Loads[i]
		l.Reasons = reasonMap(&perLoad[i])
		// Requests are counted whole: the fluid's fractions are not
		// requests.
		// (The fluid's sums can fall a hair below zero: whole() keeps
		// a negative zero out of the JSON.)
		l.Requests, l.Admitted, l.Throttled = whole(l.Requests), whole(l.Admitted), whole(l.Throttled)
		for j := range l.Steps {
			l.Steps[j].Requests, l.Steps[j].Throttled = whole(l.Steps[j].Requests), whole(l.Steps[j].Throttled)
		}
		res.Throttled.Requests += l.Throttled
	}
	for _, t := range m.Tables {
		u, ok := tm.Usage(t.Name, gsis[t.Name], usage[t.Name])
		if !ok {
			continue
		}
		for i := range u {
			if r := rs[resKey{t.Name, u[i].Index}]; r != nil {
				r.out.PartitionsEnd = len(u[i].Partitions)
			}
		}
	}
	for _, r := range order {
		r.finish(o.Hottest, res)
		res.Resources = append(res.Resources, *r.out)
		if r.out.Throttled.Read+r.out.Throttled.Write > 0 {
			if res.Throttled.Units == nil {
				res.Throttled.Units = map[string]Units{}
			}
			res.Throttled.Units[r.name()] = r.out.Throttled
		}
	}
	sort.SliceStable(res.First, func(i, j int) bool { return res.First[i].Second < res.First[j].Second })
	res.Advice.Warm = warmAdvice(res)
	res.Cost = p.cost(res, sch.seconds, m)
	res.Verdict = verdict(res)
	for _, l := range sch.loads {
		if l.item.Note != "" {
			res.Notes = append(res.Notes, l.item.Operation+": "+l.item.Note)
		}
	}
	if o.Duration > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("loads given by a rate run for %s", o.Duration))
	}
	return res, nil
}

// prepare reads the model, samples its population and the scenario's
// schedule.
func prepare(m *catalog.Model, sc *catalog.Scenario, o Options) (*planner, *population, *schedule, error) {
	p := &planner{m: m, rules: capacity.Default(), tables: map[*catalog.Table]*capacity.Table{}, o: o}
	p.est = estimate.New(m, p.rules)
	for _, t := range m.Tables {
		p.tables[t] = estimate.Table(t)
	}
	pop := sample(m, p.rules, o.Scale, o.Sample, o.Seed, time.Time{})
	p.names = namer{sampled: pop.values, held: pop.held}
	day, loc := pop.asOf, pop.loc
	if loc == nil {
		loc = time.UTC
	}
	if sc.Date != nil {
		day = time.Date(sc.Date.Year(), sc.Date.Month(), sc.Date.Day(), 0, 0, 0, 0, loc)
	}
	if day.IsZero() {
		day = time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
	}
	p.names.year = day.Year()
	loads, err := catalog.RunLoads(sc, o.find(m))
	if err != nil {
		return nil, nil, nil, inputErr("%s", err.Error())
	}
	sch, err := newSchedule(sc, loads, day, loc, o.Duration, o.Scale)
	if err != nil {
		return nil, nil, nil, inputErr("%s", err.Error())
	}
	return p, pop, sch, nil
}

// root is the first step of one variant of one load: its count each
// second comes from the load's shape.
type root struct {
	load, first int
	shape       *loadShape
	share       float64
	perRun      float64
}

// stepRef places a throughput.Load in the result.
type stepRef struct{ load, step, variant int }

// build turns the schedule's loads into throughput loads: one per step of
// each variant of each scenario load, a later step following its
// predecessor's admitted requests. rs, when given, collects the named
// keys each resource is charged on.
func (p *planner) build(sch *schedule, rs map[resKey]*resource) (loads []throughput.Load, roots []root, refs []stepRef, plans []LoadPlan, err error) {
	for i := range sch.loads {
		sh := &sch.loads[i]
		d, err := p.demandOf(sh)
		if err != nil {
			return nil, nil, nil, nil, inputErr("%s", err.Error())
		}
		name := sh.item.Operation
		if sh.item.Name != "" {
			name = sh.item.Name
		}
		lp := LoadPlan{Name: name, Operation: sh.item.Operation, Shape: sh.note, Variants: d.basis, Runs: sh.total}
		for vi, v := range d.variants {
			first := len(loads)
			for j, st := range v.steps {
				l := throughput.Load{Charges: st.charges}
				if j > 0 {
					l.After = len(loads) // the previous step, 1-based
					l.Count = st.perRun / v.steps[j-1].perRun
				}
				loads = append(loads, l)
				refs = append(refs, stepRef{i, len(lp.Steps), vi})
				lp.Steps = append(lp.Steps, StepPlan{ID: st.id, Variant: v.name, Share: v.share, PerRun: st.perRun,
					RRU: st.units[0], WRU: st.units[1], Keys: st.keys})
				for _, ch := range st.charges {
					r := rs[resKey{ch.Table, ch.Index}]
					if r == nil {
						continue
					}
					for _, pt := range ch.Points {
						if pt.Key != nil && len(r.keys) < 64 && !slices.ContainsFunc(r.keys, func(x throughput.Point) bool { return x.Hash == pt.Hash }) {
							r.keys = append(r.keys, pt)
						}
					}
				}
			}
			if len(v.steps) > 0 {
				roots = append(roots, root{load: i, first: first, shape: sh, share: v.share, perRun: v.steps[0].perRun})
			}
		}
		plans = append(plans, lp)
	}
	return loads, roots, refs, plans, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (r *resource) name() string {
	if r.index == "" {
		return r.table
	}
	return r.table + "/" + r.index
}

// define creates every table and its global indexes in the throughput
// model as the model declares them (or as the what-ifs change them), and
// splits their partitions by where the population's data lies.
func (p *planner) define(tm *throughput.Model, pop *population, res *Result) (map[resKey]*resource, error) {
	rs := map[resKey]*resource{}
	for _, t := range p.m.Tables {
		spec := func(name string, gb float64) (throughput.ResourceSpec, error) {
			s := throughput.ResourceSpec{SizeGB: gb}
			mode := t.Billing.Mode
			if p.o.Billing != "" {
				mode = p.o.Billing
			}
			if mode == "provisioned" {
				s.Mode = throughput.Provisioned
				s.ReadCapacity, s.WriteCapacity = p.o.Provisioned.Read, p.o.Provisioned.Write
				if s.ReadCapacity == 0 && t.Billing.Read != nil {
					s.ReadCapacity = float64(t.Billing.Read.Units)
				}
				if s.WriteCapacity == 0 && t.Billing.Write != nil {
					s.WriteCapacity = float64(t.Billing.Write.Units)
				}
				if s.ReadCapacity <= 0 || s.WriteCapacity <= 0 {
					return s, inputErr("table %s: provisioned billing needs read and write capacity (the model declares none: give --provisioned READ/WRITE)", t.Name)
				}
				return s, nil
			}
			s.Mode = throughput.OnDemand
			// A global index is warmed to its own warm throughput, or
			// else its table's, as cardapio creates them
			// (endpoint.TableOptions.Warm, catalog.Index.Warm).
			wt := t.Billing.WarmThroughput
			if x := p.m.Index(name); x != nil && x.Table == t {
				wt = x.Warm()
			}
			if wt != nil {
				s.WarmRead, s.WarmWrite = float64(wt.Read), float64(wt.Write)
			}
			if name == t.Name {
				if mo := t.Billing.MaxOnDemand; mo != nil {
					s.MaxRead, s.MaxWrite = float64(mo.Read), float64(mo.Write)
				}
			}
			w, ok := p.o.Warm[name]
			if !ok && name == t.Name {
				w, ok = p.o.Warm[""]
			}
			if ok {
				s.WarmRead, s.WarmWrite = max(s.WarmRead, w.Read), max(s.WarmWrite, w.Write)
			}
			if s.WarmRead > 0 && s.WarmRead < throughput.DefaultWarmRead {
				s.WarmRead = throughput.DefaultWarmRead
			}
			if s.WarmWrite > 0 && s.WarmWrite < throughput.DefaultWarmWrite {
				s.WarmWrite = throughput.DefaultWarmWrite
			}
			return s, nil
		}
		gbOf := func(k resKey) float64 {
			if gb, ok := pop.gb[k]; ok {
				return gb
			}
			if k.index == "" && t.SizeGB != nil {
				return *t.SizeGB
			}
			return 0
		}
		base := resKey{t.Name, ""}
		ts, err := spec(t.Name, gbOf(base))
		if err != nil {
			return nil, err
		}
		gs := map[string]throughput.ResourceSpec{}
		for _, x := range t.Indexes {
			if x.Local {
				continue
			}
			k := resKey{t.Name, x.Name}
			s, err := spec(x.Name, gbOf(k))
			if err != nil {
				return nil, err
			}
			if ts.Mode == throughput.OnDemand {
				s.MaxRead, s.MaxWrite = 0, 0
			}
			gs[x.Name] = s
			rs[k] = &resource{table: t.Name, index: x.Name, mode: s.Mode, gb: s.SizeGB}
		}
		rs[base] = &resource{table: t.Name, mode: ts.Mode, gb: ts.SizeGB}
		if err := tm.Define(t.Name, ts, gs); err != nil {
			return nil, inputErr("table %s: %s", t.Name, err.Error())
		}
		for k, r := range rs {
			if k.table != t.Name {
				continue
			}
			even := 0.0
			pts := pop.data[k]
			if len(pts) == 0 {
				even = r.gb
			}
			if _, err := tm.Place(t.Name, k.index, pts, even); err != nil {
				return nil, err
			}
		}
		var names []string
		for _, x := range t.Indexes {
			if !x.Local {
				names = append(names, x.Name)
			}
		}
		u, _ := tm.Usage(t.Name, names, nil)
		for i := range u {
			r := rs[resKey{t.Name, u[i].Index}]
			r.out = &Resource{Table: t.Name, Index: u[i].Index, Mode: string(u[i].Mode), SizeGB: r.gb,
				PartitionsStart: len(u[i].Partitions),
				PartitionRead:   u[i].PartitionRead, PartitionWrite: u[i].PartitionWrite}
			r.parts = map[[2]uint64]*partTrack{}
		}
	}
	return rs, nil
}

// resourceOrder is the table of each model table, then its indexes, in
// the model's order.
func resourceOrder(m *catalog.Model, rs map[resKey]*resource) []*resource {
	var out []*resource
	for _, t := range m.Tables {
		if r := rs[resKey{t.Name, ""}]; r != nil {
			out = append(out, r)
		}
		for _, x := range t.Indexes {
			if r := rs[resKey{t.Name, x.Name}]; r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

var dirNames = [2]string{"read", "write"}

// record adds one second's usage.
func (r *resource) record(u *throughput.Usage, s, b, nb int) {
	rates := [2]float64{u.ReadRate, u.WriteRate}
	caps := [2]float64{u.PartitionRead, u.PartitionWrite}
	cons := [2]float64{u.Totals.ReadConsumed, u.Totals.WriteConsumed}
	thr := [2]float64{noise(u.Totals.ReadThrottled), noise(u.Totals.WriteThrottled)}
	series := [2][]Point{r.out.Read, r.out.Write}
	var hottest [2]float64
	var worst [2]*partTrack
	var worstThr [2]float64
	var worstFull [2]bool
	for i := range u.Partitions {
		pu := &u.Partitions[i]
		pc := [2]float64{pu.ReadConsumed, pu.WriteConsumed}
		pt := [2]float64{noise(pu.ReadThrottled), noise(pu.WriteThrottled)}
		if pc[0]+pc[1]+pt[0]+pt[1] == 0 {
			continue
		}
		k := [2]uint64{pu.Lo, pu.Hi}
		tr := r.parts[k]
		if tr == nil {
			tr = &partTrack{lo: pu.Lo, hi: pu.Hi, first: -1}
			r.parts[k] = tr
		}
		for d := range 2 {
			tr.consumed[d] += pc[d]
			tr.throttled[d] += pt[d]
			dem := pc[d] + pt[d]
			tr.peak[d] = max(tr.peak[d], dem)
			if dem > 0 && caps[d] > 0 {
				// Cells at the heatmap's own resolution: a partition's
				// row is at most MaxHeatmapColumns long, however many
				// partitions the data makes.
				k := heatStep(nb)
				if tr.cells[d] == nil {
					tr.cells[d] = make([]float64, (nb+k-1)/k)
				}
				tr.cells[d][b/k] = max(tr.cells[d][b/k], dem/caps[d])
			}
			if pt[d] > 0 && tr.first < 0 {
				tr.first = s
			}
			hottest[d] = max(hottest[d], pc[d])
			if pt[d] > worstThr[d] {
				worst[d], worstThr[d] = tr, pt[d]
				worstFull[d] = caps[d] > 0 && pc[d] >= 0.99*caps[d]
			}
		}
	}
	for d := range 2 {
		pt := &series[d][b]
		pt.Consumed = max(pt.Consumed, cons[d])
		pt.Demand = max(pt.Demand, cons[d]+thr[d])
		pt.Limit = min(pt.Limit, rates[d])
		pt.Throttled += thr[d]
		pt.Hottest = max(pt.Hottest, hottest[d])
		if d == 0 {
			r.out.Consumed.Read += cons[d]
			r.out.Throttled.Read += thr[d]
			r.out.Peak.Read = max(r.out.Peak.Read, cons[d])
			r.out.PeakDemand.Read = max(r.out.PeakDemand.Read, cons[d]+thr[d])
		} else {
			r.out.Consumed.Write += cons[d]
			r.out.Throttled.Write += thr[d]
			r.out.Peak.Write = max(r.out.Peak.Write, cons[d])
			r.out.PeakDemand.Write = max(r.out.PeakDemand.Write, cons[d]+thr[d])
		}
		r.now[d] = thr[d]
		r.worst[d], r.full[d] = worst[d], worstFull[d]
	}
}

// firstHits names, for every reason refusing requests for the first time
// this second, the resource and partition: an Index reason on the index
// throttling most in that direction, a Table reason on the table.
func firstHits(order []*resource, c *throughput.ReasonCounts, seen map[throughput.Reason]bool, s int, res *Result, start time.Time) {
	c.Each(func(reason throughput.Reason, n float64) {
		if seen[reason] || n < 0.5 {
			return
		}
		seen[reason] = true
		txt := string(reason)
		index := strings.HasPrefix(txt, "Index")
		d := 0
		if strings.Contains(txt, "Write") {
			d = 1
		}
		// The resource that refused: for a partition's limit, one whose
		// most throttled partition served its cap, before one that only
		// saw requests refused elsewhere; then the most throttled.
		partition := strings.Contains(txt, "KeyRange")
		better := func(r, than *resource) bool {
			if partition && r.full[d] != than.full[d] {
				return r.full[d]
			}
			return r.now[d] > than.now[d]
		}
		var best *resource
		for _, r := range order {
			if (r.index != "") == index && r.now[d] > 0 && (best == nil || better(r, best)) {
				best = r
			}
		}
		limit := txt[len("Table"):]
		if index {
			limit = txt[len("Index"):]
		}
		limit = strings.TrimPrefix(strings.TrimPrefix(limit, "Read"), "Write")
		f := FirstHit{Direction: dirNames[d], Limit: limit, Reason: txt, Second: s, At: start.Add(time.Duration(s) * time.Second)}
		if best != nil {
			f.Table, f.Index, f.Units = best.table, best.index, best.now[d]
			if w := best.worst[d]; w != nil {
				f.Partition = hexRange(w.lo, w.hi)
				f.Keys = best.keysIn(w.lo, w.hi)
			}
		}
		res.First = append(res.First, f)
	})
}

// noise drops what the fluid admission leaves of a fixed point reached
// within its tolerance: a thousandth of a unit in a second is no
// throttle.
func noise(x float64) float64 {
	if x < 1e-3 {
		return 0
	}
	return x
}

func hexRange(lo, hi uint64) string { return fmt.Sprintf("%016x-%016x", lo, hi) }

// keysIn names the load's keys on lo..hi, heaviest first.
func (r *resource) keysIn(lo, hi uint64) []string {
	if !r.sorted {
		sort.SliceStable(r.keys, func(i, j int) bool { return r.keys[i].Weight > r.keys[j].Weight })
		r.sorted = true
	}
	var out []string
	for _, k := range r.keys {
		if k.Hash >= lo && k.Hash <= hi && len(out) < 4 {
			out = append(out, string(k.Key))
		}
	}
	return out
}

// finish lists the hottest partitions and draws the heatmaps.
func (r *resource) finish(n int, res *Result) {
	caps := [2]float64{r.out.PartitionRead, r.out.PartitionWrite}
	ts := make([]*partTrack, 0, len(r.parts))
	for _, t := range r.parts {
		ts = append(ts, t)
	}
	heat := func(t *partTrack) float64 {
		h := 0.0
		for d := range 2 {
			if caps[d] > 0 {
				h = max(h, t.peak[d]/caps[d])
			}
		}
		return h
	}
	sort.Slice(ts, func(i, j int) bool {
		if a, b := heat(ts[i]), heat(ts[j]); a != b {
			return a > b
		}
		return ts[i].lo < ts[j].lo
	})
	if len(ts) > n {
		ts = ts[:n]
	}
	r.out.Hottest = []Partition{}
	for _, t := range ts {
		r.out.Hottest = append(r.out.Hottest, Partition{Lo: fmt.Sprintf("%016x", t.lo), Hi: fmt.Sprintf("%016x", t.hi),
			Share: (float64(t.hi-t.lo) + 1) / (1 << 64), Keys: r.keysIn(t.lo, t.hi),
			Consumed: Units{t.consumed[0], t.consumed[1]}, Throttled: Units{t.throttled[0], t.throttled[1]},
			PeakDemand: Units{t.peak[0], t.peak[1]}, FirstThrottled: t.first})
	}
	for d := range 2 {
		var h *Heatmap
		for _, t := range ts {
			if t.cells[d] == nil {
				continue
			}
			if h == nil {
				h = &Heatmap{Table: r.table, Index: r.index, Direction: dirNames[d], Resolution: heatStep(len(r.out.Read)) * res.Resolution}
			}
			h.Partitions = append(h.Partitions, hexRange(t.lo, t.hi))
			row := make([]float64, len(t.cells[d]))
			for i, c := range t.cells[d] {
				row[i] = round3(c)
			}
			h.Cells = append(h.Cells, row)
		}
		if h != nil {
			res.Heatmaps = append(res.Heatmaps, *h)
		}
	}
	for _, s := range [][]Point{r.out.Read, r.out.Write} {
		for i := range s {
			p := &s[i]
			if math.IsInf(p.Limit, 1) {
				p.Limit = 0
			}
			p.Consumed, p.Demand, p.Limit, p.Throttled, p.Hottest = round3(p.Consumed), round3(p.Demand), round3(p.Limit), round3(p.Throttled), round3(p.Hottest)
		}
	}
}

// heatStep is how many series intervals a heatmap column covers.
func heatStep(nb int) int { return max(1, (nb+MaxHeatmapColumns-1)/MaxHeatmapColumns) }

// round3 keeps three decimals: a thousandth of a unit says enough, and
// a day of seconds stays a readable size.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func reasonMap(c *throughput.ReasonCounts) map[string]float64 {
	out := map[string]float64{}
	c.Each(func(r throughput.Reason, n float64) {
		if n = math.Round(n); n > 0 {
			out[string(r)] = n
		}
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// warmAdvice is each on-demand resource's busiest second, the warm
// throughput that serves it at once; it is not enough where one
// partition's demand passed its cap.
func warmAdvice(res *Result) []WarmAdvice {
	var out []WarmAdvice
	for _, r := range res.Resources {
		w := WarmAdvice{Table: r.Table, Index: r.Index, Read: math.Ceil(r.PeakDemand.Read), Write: math.Ceil(r.PeakDemand.Write), Enough: true}
		if len(r.Read) > 0 {
			w.StartRead, w.StartWrite = r.Read[0].Limit, r.Write[0].Limit
		}
		for _, p := range r.Hottest {
			if p.PeakDemand.Read > r.PartitionRead*(1+1e-9) || p.PeakDemand.Write > r.PartitionWrite*(1+1e-9) {
				if len(p.Keys) == 1 || p.Share < 1.0/4096 {
					w.Enough = false
					w.Note = "a partition's demand passes its cap: no warm throughput cures a hot key (shard it)"
				}
			}
		}
		if r.Mode != string(throughput.OnDemand) {
			w.Note = strings.TrimSpace("provisioned: the capacity to provision. " + w.Note)
		}
		out = append(out, w)
	}
	return out
}

// cost prices the consumed units of the span.
func (p *planner) cost(res *Result, seconds int, m *catalog.Model) Cost {
	prices := capacity.DefaultPrices()
	if p.o.Prices != nil {
		prices = *p.o.Prices
	} else {
		prices = estimate.ModelPrices(prices, m.Pricing)
	}
	c := Cost{Prices: prices.Region}
	onDemand, prov := Units{}, Units{}
	for _, r := range res.Resources {
		c.RRU += r.Consumed.Read
		c.WRU += r.Consumed.Write
		if r.Mode == string(throughput.OnDemand) {
			onDemand.Read += r.Consumed.Read
			onDemand.Write += r.Consumed.Write
		} else {
			prov.Read += r.Peak.Read
			prov.Write += r.Peak.Write
		}
	}
	// Local units are the model's scale: priced at full scale they are
	// what AWS bills.
	scale := p.o.Scale
	c.USD = prices.OnDemand(onDemand.Write/scale, onDemand.Read/scale, capacity.Standard)
	var basis []string
	if onDemand.Read+onDemand.Write > 0 {
		basis = append(basis, "on-demand: consumed request units at "+prices.Region+" list prices")
	}
	if prov.Read+prov.Write > 0 {
		hours := float64(seconds) / 3600
		c.USD += prices.Provisioned(prov.Write/scale, prov.Read/scale, 1, capacity.Standard) / capacity.HoursPerMonth * hours
		basis = append(basis, fmt.Sprintf("provisioned: the busiest second's units held for %.2f h", hours))
	}
	c.Basis = strings.Join(basis, "; ")
	return c
}

// verdict words the plan's answer.
func verdict(res *Result) Verdict {
	if len(res.First) == 0 {
		return Verdict{Summary: fmt.Sprintf("no throttling in %s of %s", time.Duration(res.Seconds)*time.Second, res.Scenario)}
	}
	f := res.First[0]
	where := f.Table
	if f.Index != "" {
		where += " index " + f.Index
	}
	keys := ""
	if len(f.Keys) > 0 {
		keys = " (" + strings.Join(f.Keys, "; ") + ")"
	}
	return Verdict{Throttled: true, Summary: fmt.Sprintf("throttling predicted: %s %s, %s at second %d (%s) on partition %s%s; %s requests throttled",
		where, f.Direction, f.Reason, f.Second, f.At.Format("15:04:05"), f.Partition, keys, commas(res.Throttled.Requests))}
}

// searchShards plans again with more shards on each sharded index that
// throttled on its partitions, doubling until none does (up to 1,024),
// then narrowing between the last two counts.
func searchShards(m *catalog.Model, sc *catalog.Scenario, o Options, res *Result) []ShardAdvice {
	var out []ShardAdvice
	for _, f := range res.First {
		x := m.Index(f.Index)
		if x == nil || x.Shards == nil || f.Limit != "KeyRangeThroughputExceeded" || slices.ContainsFunc(out, func(a ShardAdvice) bool { return a.Index == x.Name }) {
			continue
		}
		a := ShardAdvice{Index: x.Name, Declared: x.Shards.Count, Planned: x.Shards.Count}
		if n, ok := o.Shards[x.Name]; ok {
			a.Declared = n
		}
		throttles := func(n int) bool {
			q := o
			q.SearchShards = false
			q.Shards = map[string]int{}
			for k, v := range o.Shards {
				if k != "" {
					q.Shards[k] = v
				}
			}
			q.Shards[x.Name] = n
			q.Resolution = max(1, res.Seconds/60)
			a.Tried = append(a.Tried, n)
			words, undo, err := applyShards(m, q.Shards)
			_ = words
			defer undo()
			if err != nil {
				return true
			}
			r, err := run(m, sc, q)
			if err != nil {
				return true
			}
			for _, rr := range r.Resources {
				if rr.Index == x.Name && rr.Throttled.Read+rr.Throttled.Write > 0 {
					return true
				}
			}
			return false
		}
		lo, hi := a.Planned, 0
		for n := max(a.Planned*2, 2); n <= 1024; n *= 2 {
			if !throttles(n) {
				hi = n
				break
			}
			lo = n
		}
		if hi > 0 {
			for hi-lo > max(1, lo/8) {
				mid := (lo + hi) / 2
				if throttles(mid) {
					lo = mid
				} else {
					hi = mid
				}
			}
		}
		a.NoThrottle = hi
		out = append(out, a)
	}
	return out
}

// whole rounds a count of requests to a whole number, never below zero.
func whole(f float64) float64 { return math.Max(0, math.Round(f)) }
