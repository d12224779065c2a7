package loadgen

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
)

// arrival kinds.
const (
	kindOriginal  = "original"
	kindDuplicate = "duplicate"
	kindReplay    = "replay"
)

// arrival is one message: an arrival of a load, a duplicate of one, or
// the replay of a dead-lettered one.
type arrival struct {
	load *loadRun
	k    int64 // the arrival's number within its load (its message)
	kind string
	due  time.Duration
	ctx  *Context
	// subject is the number of the load's subject plus one (0: none
	// drawn), found again as the arrival starts (ctx then holds it).
	subject int64
	cause   map[string]attr.Value
	// fixed are the values the message arrived with (unique ids, clock
	// readings, draws), kept by its duplicates and replays; the values
	// read from the data are computed again at every attempt.
	fixed map[string]attr.Value
}

// loadRun is one load of the run, compiled.
type loadRun struct {
	idx   int
	name  string
	item  *catalog.LoadItem
	plan  *catalog.LoadPlan
	op    *catalog.Operation
	pacer *Pacer
	start time.Duration // since the clock's origin

	// index numbers the load's subjects, perm orders them for a load
	// that takes each once.
	index    *subjectIndex
	perm     perm
	entities []*catalog.Entity // context entities other than the subject
	largest  map[string]attr.Value

	mix     []*compiledMix
	stats   *loadStats
	replays *loadStats // dead-letter replays, created on the first

	followers []*loadRun
	follows   *loadRun
	next      atomic.Int64 // the next arrival number (follow-ups)
	cap       int64        // most arrivals (follow-ups), 0: none
	replaysAt atomic.Int64 // replays scheduled, for their pacing
	paceMu    sync.Mutex
	paceNext  time.Duration // the earliest due of the next paced follow-up

	guards map[string][]versionGuard // by variant: the version-guarded writes
	reads  bool                      // an arrival reads its context item (readsItem)
	ledger bool                      // keep its messages for ledger invariants
}

// compiledMix is a mix entry with its sources in evaluation order.
type compiledMix struct {
	entry   catalog.MixEntry
	plan    *executor.Plan
	sources []*catalog.Source
	fresh   map[string]bool // sources that read the data (recomputed each attempt)
}

// versionGuard is a write that guards a version attribute: the step's
// entity and the parameter holding the version it read.
type versionGuard struct {
	inv    *catalog.VersionsInvariant
	entity *catalog.Entity
	param  string
}

// message is what the ledger keeps of one message.
type message struct {
	load    *loadRun
	k       int64
	values  map[string]attr.Value
	applied bool
	ok      bool
	dead    bool
	outcome string
	// refused is the meaning of the declared stop that ended the
	// message, when none of its deliveries applied (a business refusal
	// of the model's, which leaves nothing to find).
	refused string
}

// versionWrite is one applied version-guarded write.
type versionWrite struct {
	inv      *catalog.VersionsInvariant
	key      string
	expected string
	load     string
}

// runner executes arrivals.
type runner struct {
	x     *executor.Executor
	api   executor.API
	sched *scheduler
	// work feeds the workers: one goroutine per in-flight slot, kept for
	// the run, so that an arrival does not pay for a new goroutine's
	// stack growing to the SDK's depth.
	work  chan job
	clock *Clock
	wall  Wall
	loc   *time.Location
	asOf  time.Time
	seed  uint64
	part  int
	parts int
	// owner is the part of each piece of the population the subjects
	// are numbered over (pieces).
	owner []int
	// factor scales what each part does on its own (follow-ups, replays,
	// caps): the run's scale over its parts; whole scales the paced
	// loads' schedules, numbered for the whole run and shared out.
	factor  float64
	whole   float64
	tables  map[string]string
	spreads map[string]*spreader

	loads []*loadRun
	want  []wanted
	subs  *subjects
	// touched records what the run touched, when the invariants read
	// only that (nil: they read the whole tables).
	touched *touched

	mu sync.Mutex
	// open are the messages of which something may still come (see
	// openMsg), by load and number; spill is the ledger of those done.
	open  map[[2]int64]*openMsg
	spill *ledgerSpill
	// dead are the first deadSample dead letters, which the summary
	// lists.
	dead   []*deadLetter
	behind time.Duration // the most an arrival started late
	runCtx context.Context
	errs   []string
	// lastLine is the scenario's clock at the previous line of the
	// results stream; unitKeys the tables and indexes seen so far (true:
	// an index).
	lastLine time.Time
	unitKeys map[string]bool
}

// deadLetter is one entry of the dead-letter ledger.
type deadLetter struct {
	Load    string        `json:"load"`
	K       int64         `json:"arrival"`
	At      time.Duration `json:"-"`
	Reason  string        `json:"reason"`
	Replay  string        `json:"replay,omitempty"`
	Outcome string        `json:"replayOutcome,omitempty"`
	// sampled: one of the summary's, not written to the ledger's lines.
	sampled bool
}

// deadSample is how many dead letters the summary lists; the results
// file has the others on deadLetters lines. A var, for the tests.
var deadSample = 100

// openMsg is a message the run still holds: more of it may come, its
// first arrival not done, or its duplicates or replays scheduled and not
// done. Once none can come it is final: it leaves memory for the ledger's
// spill, with its dead letters and their replays' outcome.
type openMsg struct {
	msg     *message      // what the ledger keeps (nil: nothing yet, or a load without ledger invariants)
	settled bool          // its first arrival is done
	dups    int           // duplicates scheduled and not done
	replays int           // replays scheduled and not done
	dead    []*deadLetter // its dead letters, waiting for their replays
}

// tracked says whether the run follows a load's messages until they are
// final: those the ledger keeps, and those whose dead letters wait for a
// replay.
func (l *loadRun) tracked() bool {
	return l.ledger || l.plan.DeadLetter != nil
}

// openOf is a's message, opened if need be; r.mu is held.
func (r *runner) openOf(a *arrival) *openMsg {
	id := [2]int64{int64(a.load.idx), a.k}
	o := r.open[id]
	if o == nil {
		if r.open == nil {
			r.open = map[[2]int64]*openMsg{}
		}
		o = &openMsg{}
		r.open[id] = o
	}
	return o
}

// settle is the end of an arrival, whatever it did: the message is final
// when its first arrival and everything it scheduled are done.
func (r *runner) settle(a *arrival) {
	if !a.load.tracked() {
		return
	}
	id := [2]int64{int64(a.load.idx), a.k}
	r.mu.Lock()
	o := r.open[id]
	if o == nil {
		r.mu.Unlock()
		return
	}
	switch a.kind {
	case kindOriginal:
		o.settled = true
	case kindDuplicate:
		o.dups--
	case kindReplay:
		o.replays--
	}
	final := o.settled && o.dups <= 0 && o.replays <= 0
	if final {
		delete(r.open, id)
	}
	r.mu.Unlock()
	if final {
		r.final(o)
	}
}

// final writes a final message and its dead letters to the spill.
func (r *runner) final(o *openMsg) {
	if o.msg != nil {
		r.spill.message(ledgerOf(o.msg))
	}
	for _, d := range o.dead {
		if !d.sampled {
			r.spill.deadLetter(*d)
		}
	}
}

// closeLedger ends the ledger once no arrival runs: what is still open
// (an interrupted run's, or one whose replays never came) is final, in
// order.
func (r *runner) closeLedger() error {
	r.mu.Lock()
	ids := make([][2]int64, 0, len(r.open))
	for id := range r.open {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i][0] < ids[j][0] || ids[i][0] == ids[j][0] && ids[i][1] < ids[j][1] })
	open := r.open
	r.open = nil
	r.mu.Unlock()
	for _, id := range ids {
		r.final(open[id])
	}
	if r.spill == nil {
		return nil
	}
	return r.spill.finish()
}

// start runs an event's arrival in its own goroutine.
func (r *runner) start(ev *event, behind time.Duration) {
	a := ev.a
	st := a.load.stats
	if a.kind == kindReplay {
		st = a.load.replayStats()
	}
	st.offer(1)
	late := behind > r.sched.lateAfter
	st.start(behind, late)
	r.mu.Lock()
	if behind > r.behind {
		r.behind = behind
	}
	r.mu.Unlock()
	r.work <- job{a, st}
}

// job is an arrival handed to a worker.
type job struct {
	a  *arrival
	st *loadStats
}

// startWorkers starts n workers; they stop when work is closed.
func (r *runner) startWorkers(n int) {
	r.work = make(chan job, n)
	for range n {
		go func() {
			for j := range r.work {
				r.execute(j.a, j.st)
				r.settle(j.a)
				r.sched.done()
			}
		}()
	}
}

// subjectCount is how many subjects the load draws from.
func (l *loadRun) subjectCount() int64 {
	if l.index == nil {
		return 0
	}
	return l.index.total
}

func (l *loadRun) replayStats() *loadStats {
	return l.replays
}

// execute runs one arrival to its end: the operation, the re-reads and
// retries the model declares, the dead-letter ledger, and what the
// arrival causes.
func (r *runner) execute(a *arrival, st *loadStats) {
	ctx := r.runCtx
	l := a.load
	if a.subject > 0 {
		// The subject is found again (kept, or its tree generated
		// again) before the clock of the request starts: client work,
		// not the target's latency. A
		// follow-up that draws its own pairs it with its cause's.
		c, err := r.subjectOf(l, a.subject-1)
		if err != nil {
			r.note(fmt.Sprintf("%s: %v", l.name, err))
			r.finish(a, st, string(executor.Error), nil, 0, true)
			return
		}
		if a.ctx != nil {
			c = l.paired(a.ctx, c)
		}
		a.ctx, a.subject = c, 0
	}
	t0 := r.wall.Now()
	cur := a.ctx
	r.touched.context(cur)
	if a.kind != kindOriginal && cur != nil && len(cur.Items) > 0 {
		// A later message reads the data as it is now.
		fresh, ok := r.reread(ctx, l, cur, st)
		if !ok {
			r.finish(a, st, OutcomeSkipped, nil, r.wall.Now().Sub(t0), false)
			return
		}
		cur = fresh
	}
	var res *executor.Result
	var values map[string]attr.Value
	for attempt := 0; ; attempt++ {
		var item attr.Item
		if l.reads {
			item = r.contextItem(cur, a.cause)
		}
		if attempt > 0 || a.kind != kindOriginal {
			if !r.eligible(l, cur, item) {
				r.finish(a, st, OutcomeSkipped, nil, r.wall.Now().Sub(t0), true)
				return
			}
		}
		cm := r.choose(l, item, a.k)
		if cm == nil {
			r.finish(a, st, OutcomeUnmatched, nil, r.wall.Now().Sub(t0), true)
			return
		}
		params, err := r.params(l, cm, a, cur, item)
		if err != nil {
			r.note(fmt.Sprintf("%s: %v", l.name, err))
			r.finish(a, st, string(executor.Error), nil, r.wall.Now().Sub(t0), true)
			return
		}
		if a.kind == kindOriginal && attempt == 0 {
			r.afterFirst(a)
		}
		checked, err := r.x.Params(l.op, params)
		if err != nil {
			r.note(fmt.Sprintf("%s: %v", l.name, err))
			r.finish(a, st, string(executor.Error), nil, r.wall.Now().Sub(t0), true)
			return
		}
		res = r.x.RunPlan(ctx, cm.plan, checked, nil)
		values = res.Values
		r.touched.writes(l.op, values)
		if res.Outcome.Retry() && attempt < l.plan.Retries && ctx.Err() == nil {
			st.add(&st.retried)
			fresh, ok := r.reread(ctx, l, cur, st)
			if !ok {
				r.finish(a, st, OutcomeSkipped, res, r.wall.Now().Sub(t0), true)
				return
			}
			cur = fresh
			continue
		}
		if res.Outcome.OK() && len(cm.plan.Steps) > 0 {
			r.recordWrites(l, cm, values, res)
		}
		break
	}
	lat := r.wall.Now().Sub(t0)
	kind := res.Outcome.Label()
	if ctx.Err() != nil && !res.Outcome.OK() {
		r.finish(a, st, OutcomeInterrupted, res, lat, false)
		r.ledger(a, values, res, false)
		return
	}
	dead := false
	switch res.Outcome.Kind {
	case executor.Throttled, executor.Error, executor.Conflict:
		dead = true
	default:
		dead = res.Outcome.Retry()
	}
	r.finish(a, st, kind, res, lat, true)
	r.ledger(a, values, res, dead)
	if dead {
		r.deadLetter(a, st, res)
	} else if a.kind == kindReplay {
		r.replayed(a, kind)
	}
	r.cause(a, cur, values, res)
}

func (r *runner) finish(a *arrival, st *loadStats, kind string, res *executor.Result, lat time.Duration, completed bool) {
	sec := int64(r.clock.Offset() / time.Second)
	st.finish(kind, lat, res, sec, completed)
}

// drawKey is what an arrival's own draws are keyed by: its subject's
// key when the load takes each subject once (so that a run split in
// parts draws for a subject what the whole run draws for it, whichever
// part takes it), else its number.
func (a *arrival) drawKey() uint64 {
	s := a.load.plan.Subjects
	if s != nil && s.Pick == catalog.PickEach && a.ctx != nil && len(a.ctx.Items) > 0 {
		return hashString(keyString(a.ctx.Items[0].Key))
	}
	return uint64(a.k)
}

// afterFirst schedules the duplicates of a message once its values are
// known.
func (r *runner) afterFirst(a *arrival) {
	d := a.load.plan.Duplicates
	if d == nil || unit(r.seed, uint64(a.load.idx), a.drawKey(), 0xd0b1e) >= d.Share {
		return
	}
	dup := *a
	dup.kind = kindDuplicate
	dup.due = a.due + d.After
	if now := r.clock.Offset(); dup.due < now {
		dup.due = now
	}
	a.load.stats.add(&a.load.stats.dups)
	if a.load.tracked() {
		r.mu.Lock()
		r.openOf(a).dups++
		r.mu.Unlock()
	}
	r.sched.push(&event{due: dup.due, a: &dup})
}

// eligible reports whether an arrival's subject still meets its
// selection, read again.
func (r *runner) eligible(l *loadRun, cur *Context, item attr.Item) bool {
	s := l.plan.Subjects
	if s == nil || cur == nil || len(cur.Items) == 0 {
		return true
	}
	subj := cur.Items[0].Item
	if !catalog.Holds(s.Where, subj) {
		return false
	}
	for a, v := range l.largest {
		got, ok := subj.Get(a)
		if !ok || !attr.Equal(got, v) {
			return false
		}
	}
	if s.When != nil && !s.When.Holds(item) {
		return false
	}
	return true
}

// reread reads every item of a context again, strongly consistent.
func (r *runner) reread(ctx context.Context, l *loadRun, cur *Context, st *loadStats) (*Context, bool) {
	if cur == nil {
		// An arrival without a context (a worker's claim of whatever its
		// page shows) runs again as it is.
		return nil, true
	}
	out := &Context{Items: make([]CtxItem, len(cur.Items))}
	for i, ci := range cur.Items {
		if ci.Entity.Table == nil || len(ci.Key) == 0 {
			out.Items[i] = ci
			continue
		}
		st.add(&st.rereads)
		got, err := r.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.tables[ci.Entity.Table.Name]),
			Key: attr.ToSDKItem(ci.Key), ConsistentRead: aws.Bool(true)})
		if err != nil || len(got.Item) == 0 {
			return nil, false
		}
		it, err := attr.FromSDKItem(got.Item)
		if err != nil {
			return nil, false
		}
		out.Items[i] = CtxItem{Entity: ci.Entity, Item: withKeyAttrs(ci.Entity, it), Key: ci.Key}
	}
	return out, true
}

// readsItem says whether an arrival of l reads its context item (a
// when of the selection or of the mix, an expression source): the item
// formats the clock's readings, which an arrival that reads none would
// make for nothing.
func (l *loadRun) readsItem() bool {
	if s := l.plan.Subjects; s != nil && s.When != nil {
		return true
	}
	for _, cm := range l.mix {
		if cm.entry.When != nil {
			return true
		}
		for _, s := range cm.sources {
			if s.Kind == catalog.SourceExpr {
				return true
			}
		}
	}
	return false
}

// contextItem is the item expressions read: each context entity's item
// under the entity's name, and the cause's values under cause.
func (r *runner) contextItem(cur *Context, cause map[string]attr.Value) attr.Item {
	return r.contextItemAt(cur, cause, r.clock.Now())
}

// contextItemAt is contextItem at a given instant of the scenario.
func (r *runner) contextItemAt(cur *Context, cause map[string]attr.Value, now time.Time) attr.Item {
	fs := []attr.Field{
		{Name: "clock", Value: attr.Value{Type: attr.M, Map: attr.Item{{Name: "date", Value: attr.Str(now.In(r.loc).Format("2006-01-02"))}, {Name: "instant", Value: attr.Str(now.UTC().Format(time.RFC3339Nano))}}}},
		{Name: "asOf", Value: attr.Str(r.asOf.Format("2006-01-02"))},
	}
	if cur != nil {
		for _, ci := range cur.Items {
			fs = append(fs, attr.Field{Name: ci.Entity.Name, Value: attr.Value{Type: attr.M, Map: ci.Item}})
		}
	}
	if cause != nil {
		m := make([]attr.Field, 0, len(cause))
		for k, v := range cause {
			m = append(m, attr.Field{Name: k, Value: v})
		}
		fs = append(fs, attr.Field{Name: "cause", Value: attr.Value{Type: attr.M, Map: attr.Sorted(m)}})
	}
	return attr.Sorted(fs)
}

// choose picks the mix entry of an arrival: the first whose when holds,
// otherwise by share among those without when.
func (r *runner) choose(l *loadRun, item attr.Item, k int64) *compiledMix {
	total := 0.0
	for _, cm := range l.mix {
		if cm.entry.When != nil {
			if cm.entry.When.Holds(item) {
				return cm
			}
			continue
		}
		total += cm.entry.Share
	}
	if total <= 0 {
		return nil
	}
	u := unit(r.seed, uint64(l.idx), uint64(k), 0x5a7e) * total
	var last *compiledMix
	for _, cm := range l.mix {
		if cm.entry.When != nil {
			continue
		}
		last = cm
		if u < cm.entry.Share {
			return cm
		}
		u -= cm.entry.Share
	}
	return last
}

// params computes an arrival's parameter values.
func (r *runner) params(l *loadRun, cm *compiledMix, a *arrival, cur *Context, item attr.Item) (map[string]attr.Value, error) {
	out := make(map[string]attr.Value, len(cm.sources))
	first := a.fixed == nil
	if first {
		a.fixed = map[string]attr.Value{}
	}
	for _, s := range cm.sources {
		name := s.Param.Name
		if !cm.fresh[name] && !first {
			if v, ok := a.fixed[name]; ok {
				out[name] = v
				continue
			}
		}
		v, ok, err := r.eval(l, s, a, cur, item, out)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		if !ok {
			return nil, fmt.Errorf("parameter %s: its source (%s) found no value", name, s.Kind)
		}
		out[name] = v
		if !cm.fresh[name] {
			a.fixed[name] = v
		}
	}
	return out, nil
}

// eval computes one source's value.
func (r *runner) eval(l *loadRun, s *catalog.Source, a *arrival, cur *Context, item attr.Item, done map[string]attr.Value) (attr.Value, bool, error) {
	p := s.Param
	switch s.Kind {
	case catalog.SourceValue, catalog.SourceSample:
		return s.Value, true, nil
	case catalog.SourceCopy:
		v, ok := r.pathValue(s.Path, a, cur, done)
		if !ok {
			return attr.Value{}, false, nil
		}
		return coerce(v, p.Type), true, nil
	case catalog.SourceExpr:
		it := item
		for k, v := range done {
			it = it.With(k, v)
		}
		v, ok, err := s.Expr.Eval(it)
		if err != nil || !ok {
			return attr.Value{}, false, err
		}
		return coerce(v, p.Type), true, nil
	case catalog.SourceDate:
		base := r.clock.Now()
		if d := s.Date; d.From != nil {
			switch {
			case d.From.Clock:
			case d.From.AsOf:
				base = r.asOf
			default:
				v, ok := r.pathValue(d.From, a, cur, done)
				if !ok {
					return attr.Value{}, false, nil
				}
				t, ok := parseTime(v, r.loc)
				if !ok {
					return attr.Value{}, false, fmt.Errorf("%s is not a date or an instant: %s", d.From.Text, valueText(v))
				}
				base = t
			}
		}
		t := shiftTime(base.In(r.loc), s.Date, 1)
		if st := s.Date.Step; st != nil {
			t = shiftTime(t, st, int(a.k))
		}
		return formatTime(t, p, r.loc), true, nil
	case catalog.SourceUnique:
		return r.unique(l, p, a.k), true, nil
	case catalog.SourceMap:
		v, ok := r.pathValue(s.Path, a, cur, done)
		if !ok {
			return attr.Value{}, false, nil
		}
		key := valueText(v)
		for _, e := range s.Map {
			if e.From == key {
				return e.To, true, nil
			}
		}
		if s.Default != nil {
			return *s.Default, true, nil
		}
		return coerce(v, p.Type), true, nil
	case catalog.SourceOneOf:
		total := 0.0
		for _, w := range s.Weights {
			total += w
		}
		u := unit(r.seed, uint64(l.idx), uint64(a.k), hashString(p.Name)) * total
		for i, w := range s.Weights {
			if u < w || i == len(s.Weights)-1 {
				return s.Choices[i], true, nil
			}
			u -= w
		}
	case catalog.SourceSequence:
		n := a.k
		if s.Modulo > 0 {
			n %= s.Modulo
		}
		return attr.Num(fmt.Sprint(n + s.From)), true, nil
	case catalog.SourceShards:
		var own []int
		for i := 0; i < s.Index.Shards.Count; i++ {
			if i%r.parts == r.part {
				own = append(own, i)
			}
		}
		if len(own) == 0 {
			return attr.Value{}, false, fmt.Errorf("part %d/%d owns no shard of %s (%d shards)", r.part, r.parts, s.Index.Name, s.Index.Shards.Count)
		}
		// A load without subjects sends every parts-th arrival of the
		// whole run (k = i*parts+part): its i-th takes the part's shards
		// in turn, which, when parts divides the count, is the whole
		// run's k mod count.
		i := a.k
		if l.plan.Subjects == nil {
			i /= int64(r.parts)
		}
		v := own[i%int64(len(own))]
		if p.Type == attr.S {
			return attr.Str(fmt.Sprint(v)), true, nil
		}
		return attr.Num(fmt.Sprint(v)), true, nil
	case catalog.SourceSpread:
		sp := r.spreads[s.Attr.Name]
		if sp == nil {
			return attr.Value{}, false, fmt.Errorf("no item of the population carries %s", s.Attr.Name)
		}
		return coerce(attr.Str(sp.at(a.k)), p.Type), true, nil
	case catalog.SourceTemplate:
		var b strings.Builder
		for _, tp := range s.Template {
			if tp.Path == nil {
				b.WriteString(tp.Literal)
				continue
			}
			v, ok := r.pathValue(tp.Path, a, cur, done)
			if !ok {
				return attr.Value{}, false, nil
			}
			t := valueText(v)
			if tp.Width > 0 && len(t) < tp.Width {
				t = strings.Repeat("0", tp.Width-len(t)) + t
			}
			b.WriteString(t)
		}
		return coerce(attr.Str(b.String()), p.Type), true, nil
	case catalog.SourceComputed:
		v, err := s.Attr.Computed.Eval(done, nil)
		if err != nil {
			return attr.Value{}, false, err
		}
		return v, true, nil
	}
	return attr.Value{}, false, fmt.Errorf("source %s", s.Kind)
}

// shiftTime adds n times a shift's calendar units.
func shiftTime(t time.Time, d *catalog.DateShift, n int) time.Time {
	return t.AddDate(n*d.Years, n*d.Months, n*d.Days).Add(time.Duration(n) * (time.Duration(d.Hours)*time.Hour + time.Duration(d.Minutes)*time.Minute + time.Duration(d.Secs)*time.Second))
}

// pathValue reads a path of the context.
func (r *runner) pathValue(p *catalog.Path, a *arrival, cur *Context, done map[string]attr.Value) (attr.Value, bool) {
	switch {
	case p.Entity != nil:
		it, ok := cur.Get(p.Entity)
		if !ok {
			return attr.Value{}, false
		}
		return it.Get(p.Attr)
	case p.Param != "":
		v, ok := done[p.Param]
		return v, ok
	case p.Cause:
		v, ok := a.cause[p.Attr]
		return v, ok
	case p.Clock:
		return attr.Str(r.clock.Now().UTC().Format(time.RFC3339Nano)), true
	case p.AsOf:
		return attr.Str(r.asOf.Format("2006-01-02")), true
	}
	return attr.Value{}, false
}

// unique makes a value no other arrival of the run has: the n-th value of
// the attribute's pattern, or the sample with its end replaced, or a
// number, n mixed from the run's seed, the load and the arrival (whose
// number is the whole run's, whichever part sends it).
func (r *runner) unique(l *loadRun, p *catalog.Param, k int64) attr.Value {
	id := mix64(r.seed ^ uint64(l.idx+1)<<48 ^ hashString(l.name) + uint64(k))
	id = mix64(id)
	if p.Type == attr.N {
		if a := p.Attribute; a != nil && a.Max != nil {
			lo := 0.0
			if a.Min != nil {
				lo = *a.Min
			}
			span := *a.Max - lo + 1
			if span >= 1 {
				return attr.Num(fmt.Sprint(int64(lo) + int64(id%uint64(span))))
			}
		}
		return attr.Num(fmt.Sprint(id % (1 << 53)))
	}
	if a := p.Attribute; a != nil && a.Pattern != nil {
		if s, ok := a.Pattern.Nth(id); ok {
			return attr.Str(s)
		}
		for shift := uint(8); shift < 64; shift += 8 {
			if s, ok := a.Pattern.Nth(id >> shift); ok {
				return attr.Str(s)
			}
		}
	}
	suffix := base36(id)
	if p.Sample != nil && p.Sample.Type == attr.S {
		s := p.Sample.Str
		if len(s) > len(suffix) {
			return attr.Str(s[:len(s)-len(suffix)] + suffix)
		}
	}
	return attr.Str("u" + suffix)
}

func base36(n uint64) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [13]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[n%36]
		n /= 36
	}
	return string(b[:])
}

// coerce gives a value the parameter's type where the text allows.
func coerce(v attr.Value, t attr.Type) attr.Value {
	if v.Type == t || t == attr.Invalid {
		return v
	}
	switch {
	case t == attr.S && v.Type == attr.N:
		return attr.Str(v.Str)
	case t == attr.N && v.Type == attr.S:
		return attr.Num(v.Str)
	}
	return v
}

// parseTime reads a civil date (midnight in loc), an instant or epoch
// seconds.
func parseTime(v attr.Value, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	switch v.Type {
	case attr.N:
		var f float64
		if _, err := fmt.Sscan(v.Str, &f); err != nil {
			return time.Time{}, false
		}
		return time.Unix(int64(f), 0).UTC(), true
	case attr.S:
		if t, err := time.ParseInLocation("2006-01-02", v.Str, loc); err == nil {
			return t, true
		}
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// formatTime writes an instant as the parameter's attribute wants it.
func formatTime(t time.Time, p *catalog.Param, loc *time.Location) attr.Value {
	a := p.Attribute
	switch {
	case p.Type == attr.N || a != nil && a.Unit == catalog.UnitEpochSeconds:
		return attr.Num(fmt.Sprint(t.Unix()))
	case a != nil && a.Unit == catalog.UnitCivilDate:
		return attr.Str(t.In(loc).Format("2006-01-02"))
	case a != nil && a.Instant != nil:
		return attr.Str(a.Instant.Format(t))
	}
	return attr.Str(t.UTC().Format(time.RFC3339))
}

// recordWrites keeps the applied version-guarded writes of an arrival.
func (r *runner) recordWrites(l *loadRun, cm *compiledMix, values map[string]attr.Value, res *executor.Result) {
	gs := l.guards[cm.entry.Variant]
	if len(gs) == 0 || res.Outcome.Kind != executor.Applied {
		return
	}
	for _, g := range gs {
		key, err := g.entity.KeyOf(values)
		if err != nil {
			continue
		}
		exp, ok := values[g.param]
		if !ok {
			continue
		}
		r.spill.write(versionWrite{inv: g.inv, key: keyString(key), expected: valueText(exp), load: l.name})
	}
}

// keyString is a key's text, attribute by attribute.
func keyString(key attr.Item) string {
	var b strings.Builder
	for i, f := range key {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " " + valueText(f.Value))
	}
	return b.String()
}

// ledger keeps a message's last values for the ledger invariants.
func (r *runner) ledger(a *arrival, values map[string]attr.Value, res *executor.Result, dead bool) {
	if !a.load.ledger {
		return
	}
	if values == nil {
		values = a.fixed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.openOf(a)
	m := o.msg
	if m == nil {
		m = &message{load: a.load, k: a.k}
		o.msg = m
	}
	if values != nil && (m.values == nil || res != nil && res.Outcome.OK()) {
		m.values = values
	}
	if res != nil {
		m.outcome = string(res.Outcome.Kind)
		m.applied = m.applied || res.Outcome.Kind == executor.Applied
		m.ok = m.ok || res.Outcome.OK()
		if res.Outcome.Declared == "stop" {
			m.refused = res.Outcome.Meaning
			if m.refused == "" {
				m.refused = string(res.Outcome.Kind)
			}
		}
	}
	m.dead = dead && !m.ok
}

// deadLetter puts a message whose retries ran out in the ledger and, when
// the load says, schedules its replay.
func (r *runner) deadLetter(a *arrival, st *loadStats, res *executor.Result) {
	st.deadLetter()
	reason := res.Outcome.Label()
	for _, t := range res.Outcome.Throttling {
		reason += " " + t.Reason
		break
	}
	if res.Outcome.Retry() {
		reason = "retries ran out: " + reason
	}
	dl := &deadLetter{Load: a.load.name, K: a.k, At: r.clock.Offset(), Reason: reason}
	if a.kind == kindReplay {
		// The replay's outcome, on every dead letter of its message.
		r.mu.Lock()
		if o := r.open[[2]int64{int64(a.load.idx), a.k}]; o != nil {
			for _, d := range o.dead {
				d.Outcome = reason
			}
		}
		r.mu.Unlock()
		return
	}
	d := a.load.plan.DeadLetter
	var rep *arrival
	if d != nil {
		due := dl.At + d.After
		if d.ReplayAt != nil {
			due = *d.ReplayAt
			if due < dl.At {
				due = dl.At
			}
		}
		if d.Rate > 0 {
			n := a.load.replaysAt.Add(1) - 1
			due += time.Duration(float64(n) / (d.Rate * r.factor) * float64(time.Second))
		}
		c := *a
		rep = &c
		rep.kind = kindReplay
		rep.due = due
		dl.Replay = (r.clock.origin.Add(due)).In(r.loc).Format("15:04:05")
	}
	r.mu.Lock()
	if len(r.dead) < deadSample {
		dl.sampled = true
		r.dead = append(r.dead, dl)
	}
	if rep != nil {
		// Kept with its message until the replay's outcome is known.
		o := r.openOf(a)
		o.replays++
		o.dead = append(o.dead, dl)
	}
	r.mu.Unlock()
	if rep != nil {
		r.sched.push(&event{due: rep.due, a: rep})
	} else if !dl.sampled {
		r.spill.deadLetter(*dl)
	}
}

func (r *runner) replayed(a *arrival, kind string) {
	st := a.load.replayStats()
	st.add(&st.replayed)
	a.load.stats.add(&a.load.stats.replayed)
	r.mu.Lock()
	if o := r.open[[2]int64{int64(a.load.idx), a.k}]; o != nil {
		for _, d := range o.dead {
			d.Outcome = kind
		}
	}
	r.mu.Unlock()
}

// cause schedules the arrivals that follow a finished one.
func (r *runner) cause(a *arrival, cur *Context, values map[string]attr.Value, res *executor.Result) {
	if a.kind != kindOriginal {
		return
	}
	for _, f := range a.load.followers {
		fl := f.plan.Follows
		switch fl.Outcome {
		case "ok":
			if !res.Outcome.OK() {
				continue
			}
		case "applied":
			if res.Outcome.Kind != executor.Applied {
				continue
			}
		}
		now := r.clock.Offset()
		spawn := func(ctx *Context) bool {
			// Each part numbers its follow-ups apart: the i-th of part p
			// is i*parts+p, no other part's.
			i := f.next.Add(1) - 1
			if f.cap > 0 && i >= f.cap {
				return false
			}
			k := i*int64(r.parts) + int64(r.part)
			var subject int64
			if f.plan.Subjects != nil {
				// A subject of its own besides the cause's: drawn now,
				// generated again when the arrival starts.
				idx, ok := f.subjectIndex(k, r.seed)
				if !ok {
					return false
				}
				subject = idx + 1
			}
			due := f.paced(now+fl.After, r.factor)
			r.sched.push(&event{due: due, a: &arrival{load: f, k: k, kind: kindOriginal, due: due, ctx: ctx, subject: subject, cause: values}})
			return true
		}
		if fl.Each == catalog.EachArrival {
			spawn(cur)
			continue
		}
		for _, s := range res.Steps {
			for _, raw := range s.Found {
				it, err := attr.FromSDKItem(raw)
				if err != nil {
					continue
				}
				full := withKeyAttrs(fl.Entity, it)
				if !spawn(&Context{Items: []CtxItem{{Entity: fl.Entity, Item: full, Key: tableKey(fl.Entity, it)}}}) {
					break
				}
			}
		}
	}
}

func (r *runner) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		if e == s {
			return
		}
	}
	if len(r.errs) < 20 {
		r.errs = append(r.errs, s)
	}
}

// spreader hands out an attribute's values in proportion to their counts,
// interleaved (smooth weighted round robin): the first arrival gets the
// most frequent value.
type spreader struct {
	mu     sync.Mutex
	values []string
	weight []float64
	given  []int64
	memo   []string
}

func newSpreader(vs map[string]int64) *spreader {
	s := &spreader{}
	names := sortedNames(vs)
	sort.SliceStable(names, func(i, j int) bool { return vs[names[i]] > vs[names[j]] })
	total := 0.0
	for _, n := range names {
		total += float64(vs[n])
	}
	for _, n := range names {
		s.values = append(s.values, n)
		s.weight = append(s.weight, float64(vs[n])/total)
	}
	s.given = make([]int64, len(names))
	return s
}

// at is the value of arrival k (memoised, so that any arrival order gives
// the same values).
func (s *spreader) at(k int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for int64(len(s.memo)) <= k {
		n := int64(len(s.memo)) + 1
		best, gap := 0, math.Inf(-1)
		for i, w := range s.weight {
			if g := w*float64(n) - float64(s.given[i]); g > gap {
				best, gap = i, g
			}
		}
		s.given[best]++
		s.memo = append(s.memo, s.values[best])
	}
	return s.memo[k]
}

// condAssign finds "ATTR = :value" comparisons in a condition.
var condAssign = regexp.MustCompile(`(#?[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(:[A-Za-z0-9_]+)`)

// guardsOf finds the writes of a plan that guard a versions invariant's
// attribute on its entity.
func guardsOf(p *executor.Plan, invs []*catalog.Invariant) []versionGuard {
	var out []versionGuard
	var visit func(sp *executor.StepPlan)
	visit = func(sp *executor.StepPlan) {
		for _, a := range sp.Actions {
			visit(a)
		}
		if sp.Condition == "" || sp.Entity == nil {
			return
		}
		for _, inv := range invs {
			v := inv.Versions
			if v == nil || v.Entity != sp.Entity {
				continue
			}
			for _, m := range condAssign.FindAllStringSubmatch(sp.Condition, -1) {
				name := m[1]
				if n, ok := sp.Names[name]; ok {
					name = n
				}
				if name != v.Attribute {
					continue
				}
				for _, nv := range sp.Values {
					if nv.Name == m[2] && nv.Value.Param != "" {
						out = append(out, versionGuard{inv: v, entity: sp.Entity, param: nv.Value.Param})
					}
				}
			}
		}
	}
	for _, sp := range p.Steps {
		visit(sp)
	}
	return out
}

// Random numbers are functions of the seed and what they are for, so
// that a run's draws do not depend on goroutine order.

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit is a number in [0, 1) drawn from the parts.
func unit(parts ...uint64) float64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, p := range parts {
		h = mix64(h ^ p)
	}
	return float64(h>>11) / (1 << 53)
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// paced is when a follow-up asked for at due starts: at due, or, for a
// load with a Spacing, no sooner than its previous follow-up plus the
// spacing at the run's scale (a scaled count over the same window).
func (l *loadRun) paced(due time.Duration, factor float64) time.Duration {
	sp := l.plan.Spacing
	if sp <= 0 || factor <= 0 {
		return due
	}
	l.paceMu.Lock()
	defer l.paceMu.Unlock()
	due = max(due, l.paceNext)
	l.paceNext = due + time.Duration(float64(sp)/factor)
	return due
}
