package loadgen

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/throughput"
)

// Options configure a run.
type Options struct {
	// Scenario names the scenario: one of File's, or of the model's.
	Scenario string
	File     *catalog.ScenarioFile
	// Target says where the requests go; the zero value is the embedded
	// engine in process. Its Retry is the client's retry policy (the
	// zero value: endpoint.Standard).
	Target endpoint.Options
	// Throughput turns the embedded engine's throughput model on
	// (partitions, burst, on-demand scaling, GSI back-pressure).
	Throughput bool
	// Scale multiplies the population, every count and rate of the
	// scenario, and the throughput model's capacities; 1 when zero.
	Scale float64
	// Speed is how much faster than real time the scenario's clock runs
	// (60: an hour in a minute); 0 runs as fast as the target answers,
	// the clock moving once the arrivals due at an instant are done.
	Speed float64
	// Population is the population's scale when it differs from Scale (0:
	// Scale): a quick run on fewer items against the rates and limits of
	// Scale. A load that takes each subject once then ends when the
	// subjects run out, at its rate.
	Population float64
	// Seed selects the population and every draw of the run.
	Seed uint64
	// AsOf is the population's civil day (zero: the scenario's date, or
	// the model's dataset.asOf).
	AsOf time.Time
	// Part and Parts: this run is part Part of Parts, owning a disjoint
	// slice of the population and of the shards.
	Part, Parts int
	// Available is the memory the run may take, in bytes (0: what the
	// system says is available, see available); a run expected to hold
	// more is refused before it starts.
	Available int64
	// MaxInflight bounds the arrivals in flight (default 256).
	MaxInflight int
	// MaxBehind fails a run whose generator started an arrival later
	// than this behind its schedule (0: no limit).
	MaxBehind time.Duration
	// Duration overrides how long loads given by a rate run.
	Duration time.Duration
	// TablePrefix, Keep and Keys choose the tables (endpoint.TableOptions).
	TablePrefix string
	Keep        bool
	Keys        catalog.KeyMode
	// FullPopulation writes every tree of the population, even those
	// nothing of the run can reach.
	FullPopulation bool
	// Existing runs against tables that already hold the population at
	// Population (or Scale) with Seed, under TablePrefix: nothing is
	// written before the first arrival, and a sample of the tables is
	// read first to check they hold that population.
	Existing bool
	// CheckAll checks the invariants on every item of the tables (a
	// parallel scan) instead of those the run touched, for a run against
	// existing tables.
	CheckAll bool
	// SetupRate caps the population's writes, in write units a second
	// (0: no cap); the writes retry throttles on their own policy, never
	// the run's.
	SetupRate float64
	// Results receives the JSON lines of the run as it goes.
	Results io.Writer
	// Status, when set, is called about once a second.
	Status func(Status)
	// Log receives what setup does (loading, notes).
	Log io.Writer
	// Wall is the clock arrivals are paced against (tests); nil is the
	// machine's.
	Wall Wall
}

// Status is the live state of a run.
type Status struct {
	Phase     string
	Clock     time.Time
	Wall      time.Duration
	Offered   int64
	Completed int64
	InFlight  int
	Late      int64
	Behind    time.Duration
	Throttled int64
	Dead      int64
	Loaded    int64
	ToLoad    int64
}

func inputErr(format string, args ...any) error { return input.Errorf(format, args...) }

// Run replays a scenario of m and reports it. The error is for a run that
// could not be made (bad input: *input.Error; a target that failed);
// everything the run saw is in the Summary, interrupted or not.
func Run(ctx context.Context, m *catalog.Model, o Options) (*Summary, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	began := o.Wall.Now()
	sc, loads, invs, err := pickScenario(m, o)
	if err != nil {
		return nil, err
	}
	asOf := o.AsOf
	if asOf.IsZero() && sc.Date != nil {
		asOf = *sc.Date
	}
	pop, err := dataset.New(m, dataset.Options{Scale: o.Population, Seed: o.Seed, AsOf: asOf})
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("the population: %w", err))
	}
	// What the run will hold, before it holds anything.
	if err := fits(footprint(pop, loads, o.Parts, !o.Target.AWS && o.Target.EndpointURL == ""), o); err != nil {
		return nil, err
	}
	day := pop.AsOf
	if sc.Date != nil {
		day = time.Date(sc.Date.Year(), sc.Date.Month(), sc.Date.Day(), 0, 0, 0, 0, pop.Loc)
	}
	clock := newClock(day, sc.Start, 0, o.Wall)

	// The target, with the engine on the scenario's clock.
	tg, thr, err := openTarget(ctx, o, clock)
	if err != nil {
		return nil, err
	}
	if opened != nil {
		opened(tg)
	}
	var tables *endpoint.Tables
	if o.Existing {
		tables, err = openExisting(ctx, m, tg, o, pop.AsOf)
	} else {
		tables, err = tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: o.TablePrefix, Keys: o.Keys, Warm: true})
		if err != nil {
			err = fmt.Errorf("create tables: %w", err)
		}
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if !o.Keep {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			_ = tables.Delete(dctx)
		}
	}()
	x := executor.New(m, tg.Client, executor.Options{Tables: tables.Names(), Keys: tables.Keys, Keep: true})

	r := &runner{x: x, api: tg.Client, clock: clock, wall: o.Wall, loc: pop.Loc, asOf: pop.AsOf, seed: o.Seed, part: o.Part, parts: o.Parts,
		factor: o.Scale / float64(o.Parts), whole: o.Scale, tables: tables.Names(), spreads: map[string]*spreader{}}
	r.sched = newScheduler(clock, o.Wall, o.MaxInflight)
	r.sched.start = r.start
	r.startWorkers(o.MaxInflight)
	defer close(r.work)
	want, countSpecs, err := r.compileLoads(m, loads, invs, pop, o)
	if err != nil {
		return nil, err
	}
	r.want = want
	// The ledger goes to disk as its messages become final.
	if r.spill, err = newLedgerSpill(invs); err != nil {
		return nil, err
	}
	defer r.spill.close()
	if o.Existing && !o.CheckAll {
		r.touched = newTouched()
		defer r.touched.close()
	}

	// The population.
	st := newStream(o.Results)
	st.write(Start{Type: "start", Scenario: sc.Name, Model: m.Name, Part: o.Part, Parts: o.Parts, Scale: o.Scale, Speed: o.Speed,
		Target: tg.Name, Retry: tg.Retry.String(), Started: began.UTC().Format(time.RFC3339)})
	expected := 0.0
	for _, b := range pop.Blocks() {
		expected += b.Items
	}
	if o.Existing {
		logf("%s: running against the population at scale %g with seed %d (about %.0f items%s) already in %s", m.Name, o.Population, o.Seed, expected/float64(o.Parts), partWord(o.Part, o.Parts), tg.Name)
	} else {
		logf("%s: loading the population at scale %g (about %.0f items%s) into %s", m.Name, o.Population, expected/float64(o.Parts), partWord(o.Part, o.Parts), tg.Name)
	}
	progress := func(done, total int64) {
		if o.Status != nil {
			o.Status(Status{Phase: "loading", Wall: o.Wall.Now().Sub(began), Loaded: done, ToLoad: total})
		}
	}
	var ops []*catalog.Operation
	for _, l := range r.loads {
		ops = append(ops, l.op)
	}
	skip := unread(m, ops, want, countSpecs, invs)
	var pr *populationResult
	var ct *cut
	var popNotes []string
	// The values the loads draw like the population's are the whole
	// population's. A run that does not write all of it (--existing, a
	// part) counts them in the pass that numbers the subjects when it
	// has one and no selection reads them (the largest value): one pass
	// over the population instead of two.
	later := (o.Existing || o.Parts > 1) && len(want) > 0 && len(countSpecs) > 0 && !selectsLargest(r.loads)
	if o.Existing {
		early := countSpecs
		if later {
			early = nil
		}
		pr, err = r.existing(ctx, pop, o, tg, tables, early, skip)
	} else {
		pr, ct, popNotes, err = r.populate(ctx, pop, o, tg, tables, countSpecs, skip, progress)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted while loading the population")
		}
		if o.Existing {
			return nil, err
		}
		return nil, fmt.Errorf("load the population: %w", err)
	}
	if o.Parts > 1 && !o.Existing && len(countSpecs) > 0 && !later {
		// A part writes its pieces and counts their values; the loads
		// draw like the whole population, as the whole run does.
		whole, err := populate(ctx, pop, 0, 1, tg, tables, nil, countSpecs, nil, passOptions{}, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted while loading the population")
			}
			return nil, fmt.Errorf("count the population's values: %w", err)
		}
		pr.counts = whole.counts
	}
	sum := newSummary(sc, m, o, pop, tg, tables, thr)
	spreads := func(c map[string]counts) {
		for _, cs := range countSpecs {
			if vs := c[cs.entity.Name][cs.attr]; len(vs) > 0 {
				r.spreads[cs.attr] = newSpreader(vs)
			}
		}
	}
	var count []countSpec
	if later {
		count = countSpecs
	} else {
		spreads(pr.counts)
	}

	// Subjects.
	counted, err := r.pickSubjects(ctx, m, pop, pr, want, count, o, sum, ct, tg, tables)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted while numbering the subjects")
		}
		return nil, fmt.Errorf("number the subjects: %w", err)
	}
	if later {
		spreads(counted)
	}
	if numbered != nil {
		numbered(r)
	}
	if ct != nil {
		notes, err := ct.write(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted while loading the population")
			}
			return nil, fmt.Errorf("load the population: %w", err)
		}
		popNotes = append(popNotes, notes...)
	}
	sum.Population.Items, sum.Population.ByTable = pr.items, pr.byTable
	for _, e := range sortedNames(pr.skipped) {
		sum.Notes = append(sum.Notes, fmt.Sprintf("%s of the population not written: nothing of the run reads them", digits.Count(pr.skipped[e], e+" item")))
	}
	sum.Notes = append(sum.Notes, popNotes...)
	r.setupCost(m, o, tg, pr, sum, o.Wall.Now().Sub(began), logf)

	// The first arrival of every paced load.
	r.firstArrivals(o, sum)
	sum.SetupSeconds = o.Wall.Now().Sub(began).Seconds()
	clock.start(o.Speed)
	sum.ClockStart = clock.Now().Format(time.RFC3339)
	logf("%s: set up in %.1fs (%s); running %s from %s", m.Name, sum.SetupSeconds, setupWhat(pr.items, o.Existing), sc.Name, clock.Now().In(pop.Loc).Format("2006-01-02 15:04"))

	// The run.
	h := newHeat(tg, tables)
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	r.runCtx = runCtx
	h.baseline(runCtx)
	interrupted := r.play(ctx, runCtx, cancelRun, o, st, h, sum)
	if err := r.closeLedger(); err != nil {
		return nil, err
	}
	sum.ClockEnd = clock.Now().Format(time.RFC3339)
	sum.WallSeconds = o.Wall.Now().Sub(began).Seconds()
	sum.Interrupted = interrupted
	if interrupted {
		r.countPending(sum)
	}
	r.summarize(sum, o, h)

	// The invariants.
	if err := r.checkRun(ctx, m, tg, tables, invs, o, sum, interrupted, began, clock); err != nil {
		return nil, err
	}
	sum.Expectations = judge(sc.Expectations, sum, h)
	finishOK(sum)
	sum.WallSeconds = o.Wall.Now().Sub(began).Seconds()
	if err := r.writeLedger(st); err != nil {
		return nil, err
	}
	st.write(summaryLine{Type: "summary", Summary: sum})
	return sum, nil
}

// opened, when set, is handed the run's target as it opens (tests).
var opened func(tg *endpoint.Target)

// newSummary opens a run's summary: what runs, where, at which scale,
// and the notes on the tables.
func newSummary(sc *catalog.Scenario, m *catalog.Model, o Options, pop *dataset.Population, tg *endpoint.Target, tables *endpoint.Tables, thr string) *Summary {
	sum := &Summary{Scenario: sc.Name, Model: m.Name, File: sc.File, Part: o.Part, Parts: o.Parts, Scale: o.Scale, Speed: o.Speed, PopulationScale: popScale(o), Seed: o.Seed,
		AsOf: pop.AsOf.Format("2006-01-02"), Target: tg.Name, Tables: tables.Names(), Retry: tg.Retry.String(), Keys: string(tables.Keys), Throughput: thr,
		Operations: map[string]*LoadStats{}, Throttles: map[string]int64{}, Units: map[string]Units{},
		Population: PopulationStats{Subjects: map[string]int64{}, Largest: map[string]string{}, Loaded: true}}
	sum.Notes = append(sum.Notes, tables.Notes...)
	if o.Keep {
		var kept []string
		for _, tb := range m.Tables {
			kept = append(kept, tables.Name(tb.Name))
		}
		sum.Notes = append(sum.Notes, "tables kept: "+strings.Join(kept, ", ")+" (cardapio load check --table-prefix "+tables.Prefix+" checks the invariants on them again)")
	}
	return sum
}

// play runs the scenario's arrivals until the last is answered or ctx is
// cancelled, sampling the heat and writing a results line every second.
// An interrupted run drains what is in flight (cancelling it after 10 s)
// and reports true.
func (r *runner) play(ctx, runCtx context.Context, cancelRun context.CancelFunc, o Options, st *stream, h *heat, sum *Summary) bool {
	runStart := o.Wall.Now()
	r.lastLine = r.clock.Now()
	tick := make(chan struct{})
	var tickWG sync.WaitGroup
	tickWG.Add(1)
	go func() {
		defer tickWG.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				h.sample(runCtx)
				r.second(st, o.Wall.Now().Sub(runStart), o.Status, h)
			case <-tick:
				return
			}
		}
	}()
	r.sched.run(ctx)
	sum.RunSeconds = o.Wall.Now().Sub(runStart).Seconds()
	interrupted := ctx.Err() != nil
	if interrupted {
		gctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r.sched.drain(gctx)
		cancel()
		cancelRun()
		r.sched.drain(context.Background())
	}
	close(tick)
	tickWG.Wait()
	h.sample(context.WithoutCancel(ctx))
	r.second(st, o.Wall.Now().Sub(runStart), o.Status, h)
	return interrupted
}

// normalize fills in the options' defaults and refuses those out of range
// (bad input), before anything is opened.
func (o *Options) normalize() error {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if !(o.Scale > 0) || math.IsInf(o.Scale, 0) || o.Scale > 1000 {
		return inputErr("--scale must be a positive number up to 1000, not %v", o.Scale)
	}
	if o.Population == 0 {
		o.Population = o.Scale
	}
	if !(o.Population > 0) || math.IsInf(o.Population, 0) || o.Population > o.Scale {
		return inputErr("--population must be a positive scale up to --scale (%v), not %v", o.Scale, o.Population)
	}
	if o.Speed < 0 || math.IsNaN(o.Speed) || math.IsInf(o.Speed, 0) {
		return inputErr("--speed must be a positive number or max, not %v", o.Speed)
	}
	if o.Parts <= 0 {
		o.Parts = 1
	}
	if o.Part < 0 || o.Part >= o.Parts {
		return inputErr("--part %d/%d: want 0 <= i < n", o.Part, o.Parts)
	}
	if o.MaxInflight <= 0 {
		o.MaxInflight = 256
	}
	if o.Wall == nil {
		o.Wall = realWall{}
	}
	return nil
}

// openTarget opens the run's target: the embedded engine on the
// scenario's clock (with the throughput model when asked), or an endpoint
// or AWS with a retry policy and a connection pool sized for the run. thr
// says which throughput model is in force ("" for none).
func openTarget(ctx context.Context, o Options, clock *Clock) (*endpoint.Target, string, error) {
	to := o.Target
	if to.Retry.MaxAttempts == 0 {
		to.Retry = endpoint.Standard
	}
	if o.Speed > 1 {
		to.Retry.Speed = o.Speed
	}
	thr := ""
	if !to.AWS && to.EndpointURL == "" {
		to.Engine.Now = clock.Now
		if o.Throughput {
			tm, err := throughput.New(throughput.Config{Scale: o.Scale, Now: clock.Now, History: 7200})
			if err != nil {
				return nil, "", err
			}
			to.Engine.Throughput = tm
			thr = fmt.Sprintf("throughput model at scale %g on the scenario's clock", o.Scale)
		}
		if o.Throughput && o.Speed == 0 && to.Retry.MaxAttempts > 1 {
			// The clock stands still while requests are in flight: an SDK
			// retry would wait at the same instant, its bucket never
			// refilled.
			return nil, "", inputErr("--throughput with --speed max sends each request once: give --retry-attempts 1, or a --speed number (60: an hour in a minute)")
		}
	} else if o.Throughput {
		return nil, "", inputErr("--throughput models the embedded engine's limits; for cardapio serve, start it with --throughput --throughput-scale")
	}
	if to.HTTPClient == nil && (to.AWS || to.EndpointURL != "") {
		// One kept-alive connection per arrival in flight: the SDK's
		// default keeps 10 a host, and a busier runner would open (and
		// leave in TIME_WAIT) a connection per request beyond them.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 2*o.MaxInflight, 2*o.MaxInflight
		to.HTTPClient = &http.Client{Transport: tr}
	}
	tg, err := endpoint.Open(ctx, to)
	if err != nil {
		return nil, "", input.Wrap(err)
	}
	return tg, thr, nil
}

// compileLoads makes the run's loads of the scenario's: each with its
// operation, the load it follows and its compiled requests. It returns
// the subjects the population must keep for them and the values it must
// count (the largest values, the spread sources).
func (r *runner) compileLoads(m *catalog.Model, loads []*catalog.LoadItem, invs []*catalog.Invariant, pop *dataset.Population, o Options) ([]wanted, []countSpec, error) {
	x := r.x
	ledgerOps := map[*catalog.Operation]bool{}
	for _, v := range invs {
		if v.Ledger != nil {
			ledgerOps[v.Ledger.Operation] = true
		}
	}
	var want []wanted
	var countSpecs []countSpec
	counted := map[countSpec]bool{}
	addCount := func(cs countSpec) {
		if !counted[cs] {
			counted[cs] = true
			countSpecs = append(countSpecs, cs)
		}
	}
	for i := range loads {
		li := loads[i]
		l := &loadRun{idx: i, name: li.Name, item: li, plan: li.Plan, op: m.Operation(li.Operation), start: li.Plan.Start,
			stats: newLoadStats(li.Name), replays: newLoadStats(li.Name + "/replay"), ledger: ledgerOps[m.Operation(li.Operation)]}
		if l.op == nil {
			return nil, nil, inputErr("load %s: unknown operation %s", li.Name, li.Operation)
		}
		r.loads = append(r.loads, l)
	}
	if o.Throughput {
		if err := scaleFits(r.loads, o.Scale); err != nil {
			return nil, nil, err
		}
	}
	byName := map[string]*loadRun{}
	for _, l := range r.loads {
		byName[l.name] = l
	}
	for _, l := range r.loads {
		if f := l.plan.Follows; f != nil {
			c := byName[f.Load]
			if c == nil {
				return nil, nil, inputErr("load %s follows %s, which is not a load of the run", l.name, f.Load)
			}
			l.follows = c
			c.followers = append(c.followers, l)
			if l.plan.Cap > 0 {
				l.cap = int64(math.Max(1, math.Round(l.plan.Cap*r.factor)))
			}
		}
	}
	for _, l := range r.loads {
		if err := compileLoad(x, l, invs); err != nil {
			return nil, nil, input.Wrap(err)
		}
		if s := l.plan.Subjects; s != nil {
			want = append(want, wanted{load: l.idx, subjects: s, entities: l.entities})
			for _, a := range s.Largest {
				addCount(countSpec{s.Entity, a})
			}
		}
		for _, cm := range l.mix {
			for _, s := range cm.sources {
				if s.Kind == catalog.SourceSpread {
					if e := firstCarrier(pop, s.Attr.Name); e != nil {
						addCount(countSpec{e, s.Attr.Name})
					}
				}
			}
		}
	}
	return want, countSpecs, nil
}

// pickSubjects gives every load with subjects those of the population
// its selection keeps (and the largest values it pins), numbered by a
// pass over the population that keeps how many each run of trees holds,
// not the subjects (see subjectIndex); it notes a load left without
// any. With a cut, the pass also says which trees hold a subject.
func (r *runner) pickSubjects(ctx context.Context, m *catalog.Model, pop *dataset.Population, pr *populationResult, want []wanted, count []countSpec, o Options, sum *Summary,
	ct *cut, tg *endpoint.Target, tables *endpoint.Tables) (map[string]counts, error) {
	for _, l := range r.loads {
		s := l.plan.Subjects
		if s == nil || len(s.Largest) == 0 {
			continue
		}
		l.largest = map[string]attr.Value{}
		for _, a := range s.Largest {
			v, _ := largest(pr.counts[s.Entity.Name][a])
			at := m.Attribute(a)
			val := attr.Str(v)
			if at != nil && at.Type == attr.N {
				val = attr.Num(v)
			}
			l.largest[a] = val
			sum.Population.Largest[a] = v
		}
	}
	// The subjects are numbered over the whole population, each part's
	// pieces included, so that a part draws what the whole run draws
	// and sends the arrivals whose subjects its pieces hold.
	blocks, owner := pieces(pop, o.Parts)
	r.owner = owner
	maxLoad := -1
	for _, w := range want {
		maxLoad = max(maxLoad, w.load)
	}
	r.subs = &subjects{pop: pop, blocks: blocks, pickAt: r.clock.Now(), pools: map[int]*sync.Pool{}}
	r.newResolvers(m, pop, want, maxLoad)
	var counted map[string]counts
	if len(want) > 0 {
		ix := &indexSpec{eligible: func(load int, c *Context) bool { return r.eligibleAtPick(r.loads[load], c) }}
		if ct != nil {
			ix.hold = ct.ts.root
		}
		res, err := populate(ctx, pop, 0, 1, tg, tables, want, count, nil, passOptions{index: ix, blocks: blocks}, nil)
		if err != nil {
			return nil, err
		}
		counted = res.counts
		if ct != nil {
			// The cut writes the part's pieces: their trees' marks.
			for i, h := range res.hold {
				if owner[i] == o.Part {
					ct.hold = append(ct.hold, h)
				}
			}
		}
		for _, l := range r.loads {
			s := l.plan.Subjects
			if s == nil {
				continue
			}
			l.index = &res.index[l.idx]
			if s.Pick == catalog.PickEach {
				l.perm = newPerm(l.index.total, o.Seed^uint64(l.idx))
			}
			sum.Population.Subjects[l.name] = l.index.total
			if res.missing[l.idx] > 0 {
				sum.Notes = append(sum.Notes, fmt.Sprintf("load %s: %s left out, an item of their context (%s) missing from their tree", l.name, digits.Count(res.missing[l.idx], "subject"), entityNames(l.entities)))
			}
			if l.index.total == 0 {
				sum.Notes = append(sum.Notes, fmt.Sprintf("load %s: no %s of the population meets its selection: it makes no arrivals", l.name, s.Entity.Name))
			}
		}
	}
	sum.Crowded = crowded(m, r.loads, o)
	for _, l := range r.loads {
		if f := crowding(l, o, len(r.loads)); f > 1 {
			sum.Notes = append(sum.Notes, fmt.Sprintf("load %s draws its subjects at random from a population at scale %g, the run's at %g: each subject carries %.4gx the arrivals it would at full scale, so the partitions of its keys read up to %.4gx hotter than full scale would (give --population %g, or pick each)",
				l.name, o.Population, o.Scale, f, f, o.Scale))
		}
	}
	return counted, nil
}

// firstArrivals paces every load that has its own shape and schedules
// its first arrival; a load of subjects each picked once ends when they
// run out.
func (r *runner) firstArrivals(o Options, sum *Summary) {
	for _, l := range r.loads {
		if l.plan.Subjects != nil && l.subjectCount() == 0 {
			continue
		}
		if l.plan.Follows != nil || l.plan.Shape == nil {
			continue
		}
		l.pacer = NewPacer(l.item.RunShape(o.Duration), r.whole)
		if l.plan.Subjects != nil && l.plan.Subjects.Pick == catalog.PickEach && l.pacer.Count() > l.subjectCount() {
			// Each subject once, at the load's rate: the load ends when
			// they run out, its pressure on the partitions kept.
			asked := l.pacer.Count()
			l.pacer.Limit(l.subjectCount())
			end, _ := l.pacer.Due(l.pacer.Count() - 1)
			sum.Notes = append(sum.Notes, fmt.Sprintf("load %s: %s asked, %s in the population: each once at the load's rate, ending %s into its window",
				l.name, digits.Count(asked, "arrival"), digits.Count(l.subjectCount(), "subject"), end.Round(time.Second)))
		}
		if ev := r.arrivalEvent(l, 0); ev != nil {
			r.sched.push(ev)
		}
	}
}

// checkRun checks the invariants on the tables the run left (none when
// it was interrupted); with several parts, a sum over the whole is left
// pending for the merge.
func (r *runner) checkRun(ctx context.Context, m *catalog.Model, tg *endpoint.Target, tables *endpoint.Tables, invs []*catalog.Invariant,
	o Options, sum *Summary, interrupted bool, began time.Time, clock *Clock) error {
	if interrupted {
		for _, v := range invs {
			sum.Invariants = append(sum.Invariants, InvariantResult{Name: v.Name, Description: v.Description})
		}
		sum.Notes = append(sum.Notes, "interrupted: the invariants were not checked")
	} else {
		if o.Status != nil {
			o.Status(Status{Phase: "checking", Wall: o.Wall.Now().Sub(began), Clock: clock.Now()})
		}
		in := invariantInput{m: m, spill: r.spill, part: o.Part, parts: o.Parts, shared: tg.Engine == nil, touched: r.touched, all: o.CheckAll}
		if r.touched != nil {
			// Each part reads the collections it touched, whole: its
			// verdicts are its own, nothing left to join at the merge.
			in.part, in.parts, in.shared = 0, 1, false
			see := map[*catalog.Entity]bool{}
			for _, v := range invs {
				for _, e := range entitiesOf(v) {
					see[e] = true
				}
			}
			if err := r.collectTouched(see); err != nil {
				return err
			}
			items, trees, err := r.touched.count()
			if err != nil {
				return err
			}
			sum.Notes = append(sum.Notes, fmt.Sprintf("invariants checked on the %d items the run touched (those it read or wrote and those of the %d trees of the population its subjects came from), read again strongly consistent (--check-all: the whole tables)", items, trees))
		} else if o.Existing {
			names := sortedValues(tables.Names())
			if o.Log != nil {
				fmt.Fprintf(o.Log, "%s: checking the invariants on the whole tables, a parallel consistent scan of %s\n", m.Name, scanCost(ctx, tg, names))
			}
		}
		res, groups, err := checkInvariants(context.WithoutCancel(ctx), tg, tables.Names(), invs, in)
		if err != nil {
			return err
		}
		sum.Invariants, sum.Groups = res, groups
		if o.Parts > 1 && r.touched == nil {
			for i := range sum.Invariants {
				if m.Invariant(sum.Invariants[i].Name) != nil && m.Invariant(sum.Invariants[i].Name).Sum != nil {
					sum.Invariants[i].Pending = true
				}
			}
		}
	}
	return nil
}

// populate writes the population in one pass, or, when the run can
// reach only some trees (reachPlan), makes the first of two: it
// generates every tree, counts the values and tags the trees, writing
// nothing; the cut it returns then writes the trees the run can reach,
// once the subjects are numbered.
func (r *runner) populate(ctx context.Context, pop *dataset.Population, o Options, tg *endpoint.Target, tables *endpoint.Tables,
	countSpecs []countSpec, skip map[*catalog.Entity]bool, progress func(done, total int64)) (*populationResult, *cut, []string, error) {
	rc := reachPlan(r.loads)
	var root *dataset.Node
	if rc.why == "" {
		root = cutRoot(pop, r.want, rc.attrs)
	}
	if o.FullPopulation || rc.why != "" || root == nil {
		pr, err := populate(ctx, pop, o.Part, o.Parts, tg, tables, nil, countSpecs, skip, passOptions{write: true, rate: setupRate(o)}, progress)
		var notes []string
		if rc.why != "" && !o.FullPopulation {
			notes = append(notes, "the whole population written: "+rc.why)
		}
		return pr, nil, notes, err
	}
	// The first pass counts the values (the spread sources', the
	// largest) and writes nothing; what the cut keeps is told once the
	// subjects are numbered.
	pa, err := populate(ctx, pop, o.Part, o.Parts, tg, tables, nil, countSpecs, skip, passOptions{}, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return pa, &cut{rc: rc, ts: &cutSpec{root: root, attrs: rc.attrs}, pr: pa, pop: pop, o: o, tg: tg, tables: tables, skip: skip, progress: progress}, nil, nil
}

// cut is the second pass of a population written in two.
type cut struct {
	rc       *reach
	ts       *cutSpec // the trees it keeps
	pr       *populationResult
	pop      *dataset.Population
	o        Options
	tg       *endpoint.Target
	tables   *endpoint.Tables
	skip     map[*catalog.Entity]bool
	progress func(done, total int64)
	// hold lists, by block, the trees of the root holding a subject.
	hold [][]int64
}

// write writes the trees of the loads' subjects and those carrying a
// value the run's arrivals pass, and says what it wrote; the population
// result then counts what was written.
func (c *cut) write(ctx context.Context, r *runner) ([]string, error) {
	o := c.o
	vals, ok := c.rc.values(r.spreads, func(l *loadRun) (int64, bool) {
		if l.plan.Follows != nil || l.plan.Shape == nil {
			return 0, false
		}
		return NewPacer(l.item.RunShape(o.Duration), r.whole).Count(), true
	})
	blocks, err := partBlocks(c.pop, o.Part, o.Parts)
	if err != nil {
		return nil, err
	}
	var of int64
	for _, b := range blocks {
		if b.Root == c.ts.root {
			of += b.Hi - b.Lo
		}
	}
	po := passOptions{write: true, rate: setupRate(o)}
	if ok {
		for _, a := range c.rc.attrs {
			c.ts.vals = append(c.ts.vals, vals[a])
		}
		c.ts.held = c.hold
		po.cut = c.ts
	}
	pb, err := populate(ctx, c.pop, o.Part, o.Parts, c.tg, c.tables, nil, nil, c.skip, po, c.progress)
	if err != nil {
		return nil, err
	}
	c.pr.items, c.pr.byTable, c.pr.skipped, c.pr.units = pb.items, pb.byTable, pb.skipped, pb.units
	c.hold = nil
	if !ok {
		return []string{"the whole population written: a load that queries by a spread attribute makes arrivals no schedule counts"}, nil
	}
	return []string{cutNote(c.rc, vals, pb.kept, of)}, nil
}

// scaleFits refuses a scale at which one request of the run outweighs a
// second of a partition's write cap. --scale shrinks the caps (1,000 WCU
// a second a partition at full scale) and the rates, not a request's
// units: below that scale a partition's bucket holds less than one
// request, every request on a partition waits for it to be full and
// leaves it in debt for seconds, and any two requests close together on
// a partition throttle where at full scale a hundred a second would
// pass. The heaviest request is the largest write budget the model
// declares for the run's operations (all of its units counted on one
// partition, as a transaction on one item collection has them).
func scaleFits(loads []*loadRun, scale float64) error {
	heaviest, name := 0.0, ""
	for _, l := range loads {
		for _, b := range l.op.Budgets {
			if b.WRU != nil && *b.WRU > heaviest {
				heaviest, name = *b.WRU, l.op.Name+"/"+b.Name
			}
		}
	}
	capAt := throughput.DefaultPartitionWrite * scale
	if heaviest == 0 || capAt >= heaviest {
		return nil
	}
	return inputErr("--scale %g with --throughput: a partition then serves %g WCU a second, less than one %s (%g WRU, its budget); "+
		"every partition would throttle what full scale serves, whatever the design. The smallest scale that keeps the model's requests within a partition's second is %g (--population sets a smaller population)",
		scale, capAt, name, heaviest, heaviest/throughput.DefaultPartitionWrite)
}

// finishOK decides a summary's verdict.
func finishOK(sum *Summary) {
	ok := !sum.Interrupted && !sum.Behind.Exceeded
	for _, v := range sum.Invariants {
		ok = ok && v.Violations == 0
	}
	for _, x := range sum.Expectations {
		ok = ok && (!x.Applies || x.OK)
	}
	sum.OK = ok
}

func partWord(part, parts int) string {
	if parts <= 1 {
		return ""
	}
	return fmt.Sprintf(", part %d of %d", part, parts)
}

func entityNames(es []*catalog.Entity) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return strings.Join(out, ", ")
}

// firstCarrier is the first entity of the population (parents first)
// that carries an attribute: whose items count its values.
func firstCarrier(pop *dataset.Population, a string) *catalog.Entity {
	for _, n := range pop.Nodes {
		if n.Entity.Has(a) != "" {
			return n.Entity
		}
	}
	return nil
}

// selectsLargest reports whether a load's selection reads the largest
// value of an attribute, which the subjects' numbering needs counted
// first.
func selectsLargest(loads []*loadRun) bool {
	for _, l := range loads {
		if s := l.plan.Subjects; s != nil && len(s.Largest) > 0 {
			return true
		}
	}
	return false
}

// pickScenario finds the scenario and the loads of it and of the
// scenarios it continues with.
func pickScenario(m *catalog.Model, o Options) (*catalog.Scenario, []*catalog.LoadItem, []*catalog.Invariant, error) {
	find := func(name string) *catalog.Scenario {
		if o.File != nil {
			for i := range o.File.Scenarios {
				if o.File.Scenarios[i].Name == name {
					return &o.File.Scenarios[i]
				}
			}
		}
		return m.Scenario(name)
	}
	sc := find(o.Scenario)
	if sc == nil {
		var names []string
		if o.File != nil {
			for _, s := range o.File.Scenarios {
				names = append(names, s.Name)
			}
		}
		for _, s := range m.Scenarios {
			names = append(names, s.Name)
		}
		h := catalog.Hint(o.Scenario, names)
		if h != "" {
			h = " (" + h + ")"
		}
		return nil, nil, nil, inputErr("no scenario %q%s; the scenarios are %s", o.Scenario, h, strings.Join(names, ", "))
	}
	out := *sc
	items, err := catalog.RunLoads(sc, find)
	if err != nil {
		return nil, nil, nil, inputErr("%s", err.Error())
	}
	loads := make([]*catalog.LoadItem, len(items))
	for i := range items {
		loads[i] = &items[i]
	}
	for _, n := range sc.Then {
		out.Expectations = append(out.Expectations, find(n).Expectations...)
	}
	invs := append([]*catalog.Invariant(nil), m.Invariants...)
	if o.File != nil {
		invs = append(invs, o.File.Invariants...)
	}
	if o.Duration > 0 {
		out.Duration = o.Duration
	}
	return &out, loads, invs, nil
}

// arrivalEvent is the event of the first arrival from k on of a paced
// load that this part sends. The schedule is the whole run's: a part
// sends the arrivals whose subjects its pieces hold, or, for a load
// without subjects, every parts-th, and skips the others.
func (r *runner) arrivalEvent(l *loadRun, k int64) *event {
	for ; ; k++ {
		due, ok := l.pacer.Due(k)
		if !ok {
			return nil
		}
		subject, mine, ok := r.owns(l, k)
		if !ok {
			return nil
		}
		if !mine {
			continue
		}
		// The subject is found again when the arrival starts, by its
		// worker.
		a := &arrival{load: l, k: k, kind: kindOriginal, due: l.start + due, subject: subject}
		return &event{due: a.due, a: a, next: func() *event { return r.arrivalEvent(l, k+1) }}
	}
}

// owns says whether this part sends arrival k of paced load l, with its
// subject's number plus one (0: the load has none); ok is false when the
// load has no subject for it (the load is over).
func (r *runner) owns(l *loadRun, k int64) (subject int64, mine, ok bool) {
	if l.plan.Subjects == nil {
		return 0, r.parts <= 1 || k%int64(r.parts) == int64(r.part), true
	}
	idx, ok := l.subjectIndex(k, r.seed)
	if !ok {
		return 0, false, false
	}
	if r.parts > 1 {
		ch, _, _ := l.index.find(idx)
		if r.owner[ch.block] != r.part {
			return idx + 1, false, true
		}
	}
	return idx + 1, true, true
}

// second writes one line of the results stream and the status.
func (r *runner) second(st *stream, wall time.Duration, status func(Status), h *heat) {
	now := r.clock.Now()
	units := map[string]*SecondUnits{}
	line := Second{Type: "second", Wall: wall.Seconds(), Clock: now.Format(time.RFC3339), Loads: map[string]*SecondLoad{}, Units: units}
	if !r.lastLine.IsZero() {
		line.ClockSeconds = now.Sub(r.lastLine).Seconds()
	}
	r.lastLine = now
	r.sched.mu.Lock()
	line.InFlight = r.sched.inflight
	r.sched.mu.Unlock()
	var s Status
	s.Phase, s.Clock, s.Wall, s.InFlight = "running", r.clock.Now(), wall, line.InFlight
	for _, l := range r.loads {
		for _, ls := range []*loadStats{l.stats, l.replays} {
			ls.mu.Lock()
			if ls.iv.offered > 0 || ls.iv.completed > 0 || ls.iv.attempted > 0 {
				sl := &SecondLoad{Offered: ls.iv.offered, Attempted: ls.iv.attempted, Completed: ls.iv.completed, Late: ls.iv.late,
					DeadLettered: ls.iv.dead, Outcomes: ls.iv.outcomes, LatencyMs: latencyOf(ls.interval), Hist: encodeHist(ls.interval)}
				line.Loads[ls.name] = sl
			}
			for name, u := range ls.iv.units {
				addSecondUnits(units, name, u.Read, u.Write, u.Index)
			}
			ls.iv = newIntervalCounts()
			ls.interval.Reset()
			s.Offered += ls.offered
			s.Completed += ls.completed
			s.Late += ls.late
			s.Throttled += ls.outcomes[string(executor.Throttled)]
			s.Dead += ls.dead
			ls.mu.Unlock()
		}
	}
	h.takeInterval(units)
	r.mu.Lock()
	s.Behind = r.behind
	// A table or index that consumed once has a line every second after.
	if r.unitKeys == nil {
		r.unitKeys = map[string]bool{}
	}
	for name, u := range units {
		r.unitKeys[name] = u.Index
	}
	for name, index := range r.unitKeys {
		if units[name] == nil {
			units[name] = &SecondUnits{Index: index}
		}
	}
	r.mu.Unlock()
	st.write(line)
	if status != nil {
		status(s)
	}
}

// countPending adds to an interrupted run's offers the arrivals that were
// due and never started.
func (r *runner) countPending(sum *Summary) {
	now := r.clock.Offset()
	for _, ev := range r.sched.pending() {
		if ev.due > now {
			continue
		}
		l := ev.a.load
		l.stats.offer(1)
		if ev.next != nil && l.pacer != nil {
			for k := ev.a.k + 1; ; k++ {
				due, ok := l.pacer.Due(k)
				if !ok || l.start+due > now {
					break
				}
				if _, mine, ok := r.owns(l, k); !ok {
					break
				} else if mine {
					l.stats.offer(1)
				}
			}
		}
		l.stats.mu.Lock()
		l.stats.outcomes[OutcomeInterrupted]++
		l.stats.mu.Unlock()
	}
}

// summarize copies the loads' figures into the summary.
func (r *runner) summarize(sum *Summary, o Options, h *heat) {
	sum.Histograms = map[string]string{}
	all := newHist()
	scale := o.Scale
	for _, l := range r.loads {
		for _, ls := range []*loadStats{l.stats, l.replays} {
			ls.mu.Lock()
			if ls != l.stats && ls.offered == 0 {
				ls.mu.Unlock()
				continue
			}
			out := &LoadStats{Operation: l.op.Name, Offered: ls.offered, Attempted: ls.attempted, Completed: ls.completed, Late: ls.late,
				Retried: ls.retried, Rereads: ls.rereads, Duplicates: ls.dups, DeadLettered: ls.dead, Replayed: ls.replayed,
				Outcomes: copyCounts(ls.outcomes), Throttles: copyCounts(ls.throttles), Requests: copyCounts(ls.requests),
				LatencyMs: latencyOf(ls.hist), BehindMs: latencyOf(ls.behind), Units: map[string]Units{}}
			if ls == l.stats {
				sum.DeadLettered += ls.dead
			}
			if ls == l.replays {
				sum.Replayed += ls.offered
			}
			for reason, n := range ls.throttles {
				sum.Throttles[reason] += n
			}
			for name, u := range ls.units {
				pr, pw := u.peak()
				out.Units[name] = Units{Index: u.index, Read: u.read, Write: u.write, PeakRead: pr, PeakWrite: pw, PeakReadAWS: pr / scale, PeakWriteAWS: pw / scale}
			}
			all.Merge(ls.behind)
			sum.Histograms[ls.name] = encodeHist(ls.hist)
			sum.Operations[ls.name] = out
			ls.mu.Unlock()
		}
	}
	// Units per table and index, every load together, second by second.
	merged := map[string]*unitSeries{}
	for _, l := range r.loads {
		for _, ls := range []*loadStats{l.stats, l.replays} {
			ls.mu.Lock()
			for name, u := range ls.units {
				mu := merged[name]
				if mu == nil {
					mu = &unitSeries{perSecond: map[int64][2]float64{}, index: u.index}
					merged[name] = mu
				}
				for s, p := range u.perSecond {
					mu.add(s, p[0], p[1], u.index)
				}
			}
			ls.mu.Unlock()
		}
	}
	for name, u := range merged {
		pr, pw := u.peak()
		sum.Units[name] = Units{Index: u.index, Read: u.read, Write: u.write, PeakRead: pr, PeakWrite: pw, PeakReadAWS: pr / scale, PeakWriteAWS: pw / scale}
	}
	r.mu.Lock()
	sum.Behind = Behind{MaxMs: float64(r.behind) / float64(time.Millisecond), P99Ms: float64(all.ValueAtPercentile(99)) / 1000}
	sum.DeadLetters = make([]deadLetter, len(r.dead))
	for i, d := range r.dead {
		sum.DeadLetters[i] = *d
	}
	if r.spill != nil {
		sum.DeadLetterLines = r.spill.dead
	}
	sort.Slice(sum.DeadLetters, func(i, j int) bool {
		if sum.DeadLetters[i].Load != sum.DeadLetters[j].Load {
			return sum.DeadLetters[i].Load < sum.DeadLetters[j].Load
		}
		return sum.DeadLetters[i].K < sum.DeadLetters[j].K
	})
	sum.Notes = append(sum.Notes, r.errs...)
	r.mu.Unlock()
	for _, ls := range sum.Operations {
		sum.Behind.Late += ls.Late
	}
	if o.MaxBehind > 0 {
		sum.Behind.LimitMs = float64(o.MaxBehind) / float64(time.Millisecond)
		sum.Behind.Exceeded = r.behind > o.MaxBehind
	}
	sum.Partitions = h.hottest(3)
	if len(sum.Partitions) == 0 {
		sum.Partitions = throttledResources(sum)
	}
	for i := range sum.Partitions {
		sum.Partitions[i].Crowded = sum.Crowded[sum.Partitions[i].Table]
	}
}

// throttledResources are the hottest resources as the ThrottlingReasons
// tell them, for a target without partition figures.
func throttledResources(sum *Summary) []HotPartition {
	_ = sum
	return nil
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// crowding is how much more than at full scale each subject of a load
// carries: a random pick from a population smaller than the run's scale
// (each subject's share of the arrivals is the population's inverse),
// also through the loads that follow it; 1 otherwise. A pick of each
// subject once is not crowded: the load ends sooner instead.
func crowding(l *loadRun, o Options, loads int) float64 {
	for i := 0; l != nil && i <= loads; l, i = l.follows, i+1 {
		if s := l.plan.Subjects; s != nil {
			if s.Pick == catalog.PickRandom && o.Population > 0 && o.Population < o.Scale {
				return o.Scale / o.Population
			}
			return 1
		}
	}
	return 1
}

// crowded is, by model table, the most crowded load's factor among those
// whose operation touches the table (a write touches its indexes too).
func crowded(m *catalog.Model, loads []*loadRun, o Options) map[string]float64 {
	var out map[string]float64
	for _, l := range loads {
		f := crowding(l, o, len(loads))
		if f <= 1 || l.op == nil {
			continue
		}
		for _, st := range l.op.Steps {
			for _, s := range append([]*catalog.Step{st}, st.Items...) {
				if s.Request == nil || s.Request.Table == nil {
					continue
				}
				if out == nil {
					out = map[string]float64{}
				}
				out[s.Request.Table.Name] = max(out[s.Request.Table.Name], f)
			}
		}
	}
	return out
}

// popScale is the population's scale for the summary, when it is not the
// run's.
func popScale(o Options) float64 {
	if o.Population == o.Scale {
		return 0
	}
	return o.Population
}

// setupWhat says what the setup did: the items it loaded, or nothing
// written when the tables already held the population.
func setupWhat(items int64, existing bool) string {
	if existing {
		return "against the tables' population, nothing written"
	}
	return digits.Count(items, "item") + " loaded"
}
