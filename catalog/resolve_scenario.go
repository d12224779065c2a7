package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

type rawLoad struct {
	Operation     string                     `json:"operation"`
	Name          string                     `json:"name"`
	At            string                     `json:"at"`
	After         string                     `json:"after"`
	Count         float64                    `json:"count"`
	Window        string                     `json:"window"`
	Rate          *Rate                      `json:"rate"`
	PeakPerSecond *float64                   `json:"peakPerSecond"`
	Shape         map[string]json.RawMessage `json:"shape"`
	Focus         map[string]string          `json:"focus"`
	Tenant        string                     `json:"tenant"`
	Note          string                     `json:"note"`
	Subjects      *rawSubjects               `json:"subjects"`
	Follows       *rawFollows                `json:"follows"`
	Variant       string                     `json:"variant"`
	Mix           []rawMix                   `json:"mix"`
	Params        map[string]json.RawMessage `json:"params"`
	Names         map[string]string          `json:"names"`
	Values        map[string]json.RawMessage `json:"values"`
	Duplicates    *rawDuplicates             `json:"duplicates"`
	DeadLetter    *rawDeadLetter             `json:"deadLetter"`
	Retries       *int                       `json:"retries"`
}

type rawSubjects struct {
	Entity string                     `json:"entity"`
	Where  map[string]json.RawMessage `json:"where"`
	When   string                     `json:"when"`
	Pick   string                     `json:"pick"`
}

type rawFollows struct {
	Load    string `json:"load"`
	Each    string `json:"each"`
	After   string `json:"after"`
	Outcome string `json:"outcome"`
}

type rawMix struct {
	Variant string                     `json:"variant"`
	Share   *float64                   `json:"share"`
	When    string                     `json:"when"`
	Params  map[string]json.RawMessage `json:"params"`
}

type rawDuplicates struct {
	Share float64 `json:"share"`
	After string  `json:"after"`
}

type rawDeadLetter struct {
	ReplayAt string `json:"replayAt"`
	After    string `json:"after"`
	Rate     *Rate  `json:"rate"`
}

type rawExpectation struct {
	That   string     `json:"that"`
	If     *rawGuard  `json:"if"`
	Check  *rawCheck  `json:"check"`
	Checks []rawCheck `json:"checks"`
}

type rawGuard struct {
	Index   string `json:"index"`
	Sharded bool   `json:"sharded"`
}

type rawCheck struct {
	Load      string   `json:"load"`
	Table     string   `json:"table"`
	Index     string   `json:"index"`
	Metric    string   `json:"metric"`
	Outcome   string   `json:"outcome"`
	Reason    string   `json:"reason"`
	Kind      string   `json:"kind"`
	Invariant string   `json:"invariant"`
	Max       *float64 `json:"max"`
	Min       *float64 `json:"min"`
	Equals    *float64 `json:"equals"`
}

type rawInvariant struct {
	Description string                     `json:"description"`
	Each        *rawEach                   `json:"each"`
	Sum         *rawSum                    `json:"sum"`
	Ledger      *rawLedger                 `json:"ledger"`
	Versions    *rawVersions               `json:"versions"`
	Names       map[string]string          `json:"names"`
	Values      map[string]json.RawMessage `json:"values"`
}

type rawEach struct {
	Entity string   `json:"entity"`
	Where  string   `json:"where"`
	Holds  string   `json:"holds"`
	NotIn  []string `json:"notIn"`
}

type rawSum struct {
	Of     rawSide         `json:"of"`
	Equals json.RawMessage `json:"equals"`
}

type rawSide struct {
	Entity string `json:"entity"`
	Where  string `json:"where"`
	Key    string `json:"key"`
	Value  string `json:"value"`
}

type rawLedger struct {
	Operation string     `json:"operation"`
	Exists    string     `json:"exists"`
	Forbid    *rawForbid `json:"forbid"`
}

type rawForbid struct {
	Entity string            `json:"entity"`
	Match  map[string]string `json:"match"`
	Later  map[string]string `json:"later"`
}

type rawVersions struct {
	Entity    string `json:"entity"`
	Attribute string `json:"attribute"`
}

// resolveScenarios resolves the scenarios section (of the model, or of a
// scenario file: base is the JSON pointer of the section).
func (r *resolver) resolveScenarios(base string, raws map[string]rawScenario) []Scenario {
	var out []Scenario
	for _, k := range slices.Sorted(maps.Keys(raws)) {
		s := raws[k]
		sp := base + "/" + escapePtr(k)
		sc := Scenario{Name: k, Description: s.Description, At: s.At, Day: s.Day, Then: s.Then, File: r.file}
		if s.At != "" {
			if d, ok := clockTime(s.At); ok {
				sc.Start = d
			} else {
				r.errf(sp+"/at", "%q is not a time of day (HH:MM)", s.At)
			}
		}
		if s.Date != "" {
			if t, err := time.Parse("2006-01-02", s.Date); err == nil {
				sc.Date = &t
			} else {
				r.errf(sp+"/date", "%q is not a civil date (YYYY-MM-DD)", s.Date)
			}
		}
		sc.Duration = DefaultDuration
		if s.Duration != "" {
			if d, err := scenarioDuration(s.Duration); err == nil && d > 0 {
				sc.Duration = d
			} else {
				r.errf(sp+"/duration", "%q is not a positive duration of at most a week", s.Duration)
			}
		}
		if s.Peak != "" {
			if sc.Peak = r.m.Peak(s.Peak); sc.Peak == nil {
				r.errAt(sp+"/peak", false, r.peakHint(s.Peak), "unknown peak %q", s.Peak)
			}
		}
		names := map[string]int{}
		for i, l := range s.Load {
			li := r.load(sp+"/load/"+strconv.Itoa(i), &sc, l)
			if j, dup := names[li.Name]; dup {
				r.errAt(fmt.Sprintf("%s/load/%d", sp, i), true, "give one of them a name", "loads %d and %d are both called %s", j, i, li.Name)
			}
			names[li.Name] = i
			sc.Load = append(sc.Load, li)
		}
		for i, l := range s.Load {
			if l.Follows != nil && l.Follows.Load != "" {
				r.follows(fmt.Sprintf("%s/load/%d/follows", sp, i), &sc, &sc.Load[i])
			}
		}
		// A chain of follow-ups must start at a load with a schedule of
		// its own: one that comes back to itself never starts.
		for i := range sc.Load {
			at := &sc.Load[i]
			for range sc.Load {
				if at.Plan == nil || at.Plan.Follows == nil {
					break
				}
				next := sc.loadNamed(at.Plan.Follows.Load)
				if next == nil {
					break
				}
				at = next
			}
			if at.Plan != nil && at.Plan.Follows != nil && sc.loadNamed(at.Plan.Follows.Load) != nil {
				r.errf(fmt.Sprintf("%s/load/%d/follows", sp, i), "load %s follows a chain of loads that comes back to itself: none of them would start", sc.Load[i].Name)
			}
		}
		for i, e := range s.Expect {
			x := r.expectation(fmt.Sprintf("%s/expect/%d", sp, i), &sc, e)
			sc.Expect = append(sc.Expect, x.Text)
			sc.Expectations = append(sc.Expectations, x)
		}
		out = append(out, sc)
	}
	return out
}

// loadNamed returns the scenario's load of that name.
func (sc *Scenario) loadNamed(name string) *LoadItem {
	for i := range sc.Load {
		if sc.Load[i].Name == name {
			return &sc.Load[i]
		}
	}
	return nil
}

// checkThen checks the scenarios a scenario continues with exist (in
// known, by name) and do not loop.
func (r *resolver) checkThen(base string, scs []Scenario, known func(string) *Scenario) {
	for _, sc := range scs {
		for i, n := range sc.Then {
			ptr := fmt.Sprintf("%s/%s/then/%d", base, escapePtr(sc.Name), i)
			if n == sc.Name {
				r.errf(ptr, "scenario %s cannot follow itself", n)
				continue
			}
			t := known(n)
			if t == nil {
				var names []string
				for _, s := range r.m.Scenarios {
					names = append(names, s.Name)
				}
				for _, s := range scs {
					names = append(names, s.Name)
				}
				r.errAt(ptr, false, didYouMean(n, names), "unknown scenario %q", n)
				continue
			}
			if len(t.Then) > 0 {
				r.errf(ptr, "scenario %s continues with scenarios of its own; follow at most one level", n)
			}
		}
	}
}

// clockTime reads HH:MM as time since midnight.
func clockTime(s string) (time.Duration, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, false
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, true
}

func (r *resolver) load(ptr string, sc *Scenario, l rawLoad) LoadItem {
	li := LoadItem{Operation: l.Operation, Count: l.Count, Window: l.Window, Rate: l.Rate, PeakPerSecond: l.PeakPerSecond,
		Focus: l.Focus, Tenant: l.Tenant, Note: l.Note, Name: l.Name}
	if li.Name == "" {
		li.Name = l.Operation
	}
	op := r.m.Operation(l.Operation)
	if op == nil {
		var names []string
		for _, o := range r.m.Operations {
			names = append(names, o.Name)
		}
		r.errAt(ptr+"/operation", false, didYouMean(l.Operation, names), "unknown operation %q", l.Operation)
	}
	if l.Rate != nil {
		r.peakRefs(ptr+"/rate/peaks", l.Rate.Peaks)
	}
	if l.Count == 0 && l.Rate == nil && l.Shape == nil && l.Follows == nil {
		r.errAt(ptr, true, "", "a scenario load needs count (with window) or rate")
	}
	pl := &LoadPlan{Start: sc.Start, Retries: 3}
	li.Plan = pl
	r.loadTiming(ptr, sc, op, l, pl)
	if op == nil {
		return li
	}
	ctx := &loadScope{r: r, op: op, names: l.Names, values: l.Values, ptr: ptr}
	if l.Subjects != nil {
		pl.Subjects = r.subjects(ptr+"/subjects", ctx, l.Subjects, l.Focus)
	}
	if l.Follows != nil {
		pl.Follows = &Follows{Load: l.Follows.Load, Each: l.Follows.Each, Outcome: l.Follows.Outcome}
		if pl.Follows.Each == "" {
			pl.Follows.Each = EachArrival
		}
		if pl.Follows.Outcome == "" {
			pl.Follows.Outcome = "ok"
		}
		if l.Follows.After != "" {
			if d, err := scenarioDuration(l.Follows.After); err == nil && d >= 0 {
				pl.Follows.After = d
			} else {
				r.errf(ptr+"/follows/after", "%q is not a duration of at most a week", l.Follows.After)
			}
		}
	}
	ctx.load = &li
	r.loadMix(ptr, ctx, op, l, pl)
	pl.Params = ctx.sources(ptr+"/params", l.Params, true)
	r.checkRangeSources(ptr+"/params", op, pl.Params)
	r.loadRecovery(ptr, l, pl)
	return li
}

// loadTiming resolves when a load runs: its start (at or after the
// scenario's), retries, and its arrivals, a shape of its own or those of
// the load it follows, spaced by its window.
func (r *resolver) loadTiming(ptr string, sc *Scenario, op *Operation, l rawLoad, pl *LoadPlan) {
	switch {
	case l.At != "" && l.After != "":
		r.errAt(ptr+"/after", true, "", "give at or after, not both")
	case l.At != "":
		if d, ok := clockTime(l.At); ok {
			pl.Start = d
			if d < sc.Start {
				r.errf(ptr+"/at", "the load starts at %s, before its scenario (%s): a scenario's loads start at or after it", l.At, sc.At)
			}
		} else {
			r.errf(ptr+"/at", "%q is not a time of day (HH:MM)", l.At)
		}
	case l.After != "":
		if d, err := scenarioDuration(l.After); err == nil && d >= 0 {
			pl.Start = sc.Start + d
		} else {
			r.errf(ptr+"/after", "%q is not a duration of at most a week", l.After)
		}
	}
	if l.Retries != nil {
		pl.Retries = *l.Retries
	}
	if l.Follows != nil {
		if l.Rate != nil || l.Shape != nil {
			r.errAt(ptr+"/follows", true, "", "a load that follows another takes its arrivals from it: drop rate and shape (count caps it)")
		}
		pl.Cap = l.Count
		if l.Window != "" {
			d, err := scenarioDuration(l.Window)
			if err != nil || d <= 0 {
				r.errf(ptr+"/window", "%q is not a positive duration of at most a week", l.Window)
			} else if l.Count > 0 {
				pl.Spacing = time.Duration(float64(d) / l.Count)
			}
		}
	} else {
		pl.Shape = r.shape(ptr, sc, op, l)
		if end := pl.Start - sc.Start + pl.Shape.Span(); end > MaxSpan {
			r.errf(ptr, "the load ends %s after its scenario starts, later than a scenario may run (%s)", end, MaxSpan)
		}
		field := "/count"
		switch {
		case l.Shape != nil:
			field = "/shape"
		case l.Rate != nil:
			field = "/rate/count"
		case l.PeakPerSecond != nil:
			field = "/peakPerSecond"
		}
		r.checkRate(ptr+field, pl.Shape)
	}
}

// loadMix resolves a load's variants: one variant, a mix of shares and
// conditions, or the operation's first successful budget.
func (r *resolver) loadMix(ptr string, ctx *loadScope, op *Operation, l rawLoad, pl *LoadPlan) {
	if l.Variant != "" && len(l.Mix) > 0 {
		r.errAt(ptr+"/mix", true, "", "give variant or mix, not both")
	}
	if l.Variant != "" {
		r.variantRef(ptr+"/variant", op, l.Variant)
		pl.Mix = []MixEntry{{Variant: l.Variant, Share: 1}}
	}
	for i, m := range l.Mix {
		mp := fmt.Sprintf("%s/mix/%d", ptr, i)
		me := MixEntry{Variant: m.Variant}
		r.variantRef(mp+"/variant", op, m.Variant)
		if m.Share != nil {
			me.Share = *m.Share
		}
		if m.When != "" {
			me.When = ctx.cond(mp+"/when", m.When)
		} else if m.Share == nil {
			me.Share = 1
		}
		me.Params = ctx.sources(mp+"/params", m.Params, false)
		pl.Mix = append(pl.Mix, me)
	}
	if len(pl.Mix) == 0 {
		v := ""
		if len(op.Budgets) > 0 {
			v = op.Budgets[0].Name
			for _, b := range op.Budgets {
				if b.FailedStep == "" && b.Share != nil && *b.Share > 0 {
					v = b.Name
					break
				}
			}
		}
		pl.Mix = []MixEntry{{Variant: v, Share: 1}}
	}
}

// loadRecovery resolves a load's duplicate deliveries and its dead-letter
// replay.
func (r *resolver) loadRecovery(ptr string, l rawLoad, pl *LoadPlan) {
	if d := l.Duplicates; d != nil {
		pl.Duplicates = &Duplicates{Share: d.Share}
		if d.Share <= 0 || d.Share >= 1 {
			r.errf(ptr+"/duplicates/share", "a share of duplicates is between 0 and 1, not %v", d.Share)
		}
		if d.After != "" {
			if du, err := scenarioDuration(d.After); err == nil && du >= 0 {
				pl.Duplicates.After = du
			} else {
				r.errf(ptr+"/duplicates/after", "%q is not a duration of at most a week", d.After)
			}
		}
	}
	if d := l.DeadLetter; d != nil {
		dl := &DeadLetter{}
		switch {
		case d.ReplayAt != "" && d.After != "":
			r.errAt(ptr+"/deadLetter/after", true, "", "give replayAt or after, not both")
		case d.ReplayAt != "":
			if t, ok := clockTime(d.ReplayAt); ok {
				dl.ReplayAt = &t
			} else {
				r.errf(ptr+"/deadLetter/replayAt", "%q is not a time of day (HH:MM)", d.ReplayAt)
			}
		case d.After != "":
			if du, err := scenarioDuration(d.After); err == nil && du >= 0 {
				dl.After = du
			} else {
				r.errf(ptr+"/deadLetter/after", "%q is not a duration of at most a week", d.After)
			}
		}
		if d.Rate != nil {
			dl.Rate = d.Rate.PerSecond()
			r.checkRate(ptr+"/deadLetter/rate/count", &Shape{Points: []RatePoint{{0, dl.Rate}}})
		}
		pl.DeadLetter = dl
	}
}

func (r *resolver) variantRef(ptr string, op *Operation, v string) {
	if op.Budget(v) != nil {
		return
	}
	var names []string
	for _, b := range op.Budgets {
		names = append(names, b.Name)
	}
	if len(names) == 0 {
		r.errf(ptr, "operation %s declares no budget variants", op.Name)
		return
	}
	r.errAt(ptr, false, didYouMean(v, names), "operation %s has no budget variant %q (it has %s)", op.Name, v, strings.Join(names, ", "))
}

// follows resolves the cause of a load, once every load of the scenario
// is known.
func (r *resolver) follows(ptr string, sc *Scenario, li *LoadItem) {
	f := li.Plan.Follows
	if f == nil {
		return
	}
	var cause *LoadItem
	var names []string
	for i := range sc.Load {
		names = append(names, sc.Load[i].Name)
		if sc.Load[i].Name == f.Load {
			cause = &sc.Load[i]
		}
	}
	if cause == nil {
		r.errAt(ptr+"/load", false, didYouMean(f.Load, names), "no load of scenario %s is called %q", sc.Name, f.Load)
		return
	}
	if cause == li {
		r.errf(ptr+"/load", "a load cannot follow itself")
		return
	}
	switch f.Each {
	case EachArrival:
	case EachItem:
		op := r.m.Operation(cause.Operation)
		if op == nil {
			return
		}
		for _, s := range op.Steps {
			if s.Request != nil && (s.Kind == Query || s.Kind == Scan || s.Kind == Get) {
				f.Entity = s.Request.Entity
				for _, mt := range s.Request.Matches {
					if mt.Entity != nil {
						f.Entity = mt.Entity
						break
					}
				}
			}
		}
		if f.Entity == nil {
			r.errf(ptr+"/each", "operation %s reads no items of an entity: follow each arrival instead", op.Name)
		}
	default:
		r.errf(ptr+"/each", "each is arrival or item, not %q", f.Each)
	}
	switch f.Outcome {
	case "ok", "applied", "any":
	default:
		r.errf(ptr+"/outcome", "outcome is ok, applied or any, not %q", f.Outcome)
	}
	r.followSubjects(strings.TrimSuffix(ptr, "/follows"), li)
}

// shape builds the rate over time of a load that does not follow
// another.
func (r *resolver) shape(ptr string, sc *Scenario, op *Operation, l rawLoad) *Shape {
	window := time.Duration(0)
	if l.Window != "" {
		d, err := scenarioDuration(l.Window)
		if err != nil || d <= 0 {
			r.errf(ptr+"/window", "%q is not a positive duration of at most a week", l.Window)
			return nil
		}
		window = d
	}
	if l.Shape != nil {
		if l.Rate != nil {
			r.errAt(ptr+"/rate", true, "", "give rate or shape, not both: a shape gives the rate at each instant")
			return nil
		}
		return r.shapeOf(ptr+"/shape", sc, op, l, window)
	}
	switch {
	case l.Count > 0:
		if window == 0 {
			window = sc.Duration
		}
		mean := l.Count / window.Seconds()
		if l.PeakPerSecond != nil && *l.PeakPerSecond > mean {
			return trapezoid(l.Count, window, *l.PeakPerSecond)
		}
		return &Shape{Kind: "even", Points: []RatePoint{{0, mean}, {window, mean}}}
	case l.Rate != nil:
		if window == 0 {
			window = sc.Duration
		}
		rate := l.Rate.PerSecond()
		return &Shape{Kind: "even", Points: []RatePoint{{0, rate}, {window, rate}}}
	}
	return nil
}

// trapezoid spreads count over window with the given peak: a linear ramp
// up, a plateau at the peak and the same ramp down; a peak above twice
// the mean makes a triangle from the start, shorter than the window.
func trapezoid(count float64, window time.Duration, peak float64) *Shape {
	w := window.Seconds()
	if count/peak >= w/2 {
		ramp := w - count/peak
		d := time.Duration(ramp * float64(time.Second))
		return &Shape{Kind: "trapezoid", Points: []RatePoint{{0, 0}, {d, peak}, {window - d, peak}, {window, 0}}}
	}
	half := time.Duration(count / peak * float64(time.Second))
	return &Shape{Kind: "trapezoid", Points: []RatePoint{{0, 0}, {half, peak}, {2 * half, 0}, {window, 0}}}
}

// shapeOf reads an explicit shape. With a count, its rates are relative
// and scaled so that the shape makes the count; without, they are
// arrivals a second.
func (r *resolver) shapeOf(ptr string, sc *Scenario, op *Operation, l rawLoad, window time.Duration) *Shape {
	if len(l.Shape) != 1 {
		r.errf(ptr, "a shape is one of ramp, points, steps, bursts or curve")
		return nil
	}
	var s *Shape
	for kind, raw := range l.Shape {
		kp := ptr + "/" + escapePtr(kind)
		switch kind {
		case "ramp":
			var rr struct {
				From, To float64
			}
			if err := json.Unmarshal(raw, &rr); err != nil || window == 0 {
				r.errf(kp, "a ramp is {from: RATE, to: RATE} over the load's window (give window)")
				return nil
			}
			s = &Shape{Kind: kind, Points: []RatePoint{{0, rr.From}, {window, rr.To}}}
		case "points", "steps":
			s = r.shapePoints(kp, kind, raw, sc, window)
		case "bursts":
			s = r.shapeBursts(ptr, kp, raw, sc, l, window)
		case "curve":
			// A curve's rates are absolute: the day's count at its weights.
			return r.shapeCurve(ptr, kp, raw, sc, op, l, window)
		default:
			r.errAt(kp, true, didYouMean(kind, []string{"ramp", "points", "steps", "bursts", "curve"}), "unknown shape %q", kind)
			return nil
		}
	}
	if s == nil {
		return nil
	}
	if l.Count > 0 {
		n := s.Count()
		if n <= 0 {
			r.errf(ptr, "the shape makes no arrivals")
			return nil
		}
		s = s.Scaled(l.Count / n)
	}
	if l.PeakPerSecond != nil && math.Abs(s.Peak()-*l.PeakPerSecond) > 0.01*s.Peak()+1e-9 {
		r.errf(ptr+"/peakPerSecond", "the shape peaks at %.4g a second, not %v: the peak gate reads peakPerSecond", s.Peak(), *l.PeakPerSecond)
	}
	return s
}

// shapePoints reads a points or steps shape: [offset, rate] pairs, held
// flat between them for steps, filled out to the load's window.
func (r *resolver) shapePoints(kp, kind string, raw json.RawMessage, sc *Scenario, window time.Duration) *Shape {
	var pts [][2]json.RawMessage
	if err := json.Unmarshal(raw, &pts); err != nil || len(pts) == 0 {
		r.errf(kp, "%s is a list of [offset, rate] pairs, such as [[0s, 0], [10m, 2000]]", kind)
		return nil
	}
	s := &Shape{Kind: kind}
	for i, pt := range pts {
		var off string
		var rate float64
		if json.Unmarshal(pt[0], &off) != nil || json.Unmarshal(pt[1], &rate) != nil {
			r.errf(fmt.Sprintf("%s/%d", kp, i), "a point is [offset, rate], such as [10m, 2000]")
			return nil
		}
		d, err := scenarioDuration(off)
		if err != nil || d < 0 {
			r.errf(fmt.Sprintf("%s/%d/0", kp, i), "%q is not a duration of at most a week", off)
			return nil
		}
		if rate < 0 {
			r.errf(fmt.Sprintf("%s/%d/1", kp, i), "a rate cannot be negative")
			return nil
		}
		if n := len(s.Points); n > 0 && d < s.Points[n-1].At {
			r.errf(fmt.Sprintf("%s/%d/0", kp, i), "offsets must not go back in time (%s after %s)", off, s.Points[n-1].At)
			return nil
		}
		if kind == "steps" && len(s.Points) > 0 {
			s.Points = append(s.Points, RatePoint{d, s.Points[len(s.Points)-1].PerSecond})
		}
		s.Points = append(s.Points, RatePoint{d, rate})
	}
	end := window
	if end == 0 {
		end = s.Points[len(s.Points)-1].At
		if kind == "steps" {
			end = sc.Duration
		}
	}
	last := s.Points[len(s.Points)-1]
	if end < last.At {
		r.errf(kp, "the shape runs past the load's window (%s)", window)
		return nil
	}
	if end > last.At {
		rate := last.PerSecond
		if kind == "points" {
			rate = 0
			s.Points = append(s.Points, RatePoint{last.At, 0})
		}
		s.Points = append(s.Points, RatePoint{end, rate})
	}
	if s.Points[0].At > 0 {
		s.Points = append([]RatePoint{{0, 0}, {s.Points[0].At, 0}}, s.Points...)
	}
	return s
}

// shapeBursts reads a bursts shape: equal bursts at clock times or at a
// period, sharing the load's count.
func (r *resolver) shapeBursts(ptr, kp string, raw json.RawMessage, sc *Scenario, l rawLoad, window time.Duration) *Shape {
	var b struct {
		At     []string `json:"at"`
		Every  string   `json:"every"`
		Window string   `json:"window"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		r.errf(kp, "bursts is {at: [HH:MM, ...] or every: DURATION, window: DURATION}")
		return nil
	}
	bw, err := scenarioDuration(b.Window)
	if err != nil || bw <= 0 {
		r.errf(kp+"/window", "a burst needs a positive window, not %q", b.Window)
		return nil
	}
	if l.Count <= 0 {
		r.errAt(ptr, true, "", "bursts share the load's count: give count")
		return nil
	}
	var starts []time.Duration
	switch {
	case len(b.At) > 0 && b.Every == "":
		for i, a := range b.At {
			t, ok := clockTime(a)
			if !ok {
				r.errf(fmt.Sprintf("%s/at/%d", kp, i), "%q is not a time of day (HH:MM)", a)
				return nil
			}
			off := t - sc.Start
			if l.At != "" {
				st, _ := clockTime(l.At)
				off = t - st
			}
			if off < 0 {
				r.errf(fmt.Sprintf("%s/at/%d", kp, i), "the burst at %s comes before the load starts", a)
				return nil
			}
			if n := len(starts); n > 0 && off < starts[n-1]+bw {
				r.errf(fmt.Sprintf("%s/at/%d", kp, i), "bursts overlap: give them in order, a window apart")
				return nil
			}
			starts = append(starts, off)
		}
	case b.Every != "" && len(b.At) == 0:
		ev, err := scenarioDuration(b.Every)
		if err != nil || ev < bw {
			r.errf(kp+"/every", "every must be a duration at least the burst's window")
			return nil
		}
		span := window
		if span == 0 {
			span = sc.Duration
		}
		for t := time.Duration(0); t+bw <= span; t += ev {
			starts = append(starts, t)
		}
		if len(starts) == 0 {
			r.errf(kp, "no burst fits in the load's window")
			return nil
		}
	default:
		r.errf(kp, "give at (clock times) or every, one of them")
		return nil
	}
	s := &Shape{Kind: "bursts"}
	per := 1 / bw.Seconds()
	prev := time.Duration(0)
	for _, st := range starts {
		if st > prev || len(s.Points) == 0 {
			s.Points = append(s.Points, RatePoint{prev, 0}, RatePoint{st, 0})
		}
		s.Points = append(s.Points, RatePoint{st, per}, RatePoint{st + bw, per}, RatePoint{st + bw, 0})
		prev = st + bw
	}
	if window > prev {
		s.Points = append(s.Points, RatePoint{window, 0})
	}
	return s
}

// shapeCurve reads a curve shape: weights over the day, scaled to the
// load's count or the operation's daily volume at the peak's factor.
func (r *resolver) shapeCurve(ptr, kp string, raw json.RawMessage, sc *Scenario, op *Operation, l rawLoad, window time.Duration) *Shape {
	var c struct {
		Points [][2]json.RawMessage `json:"points"`
		Peak   string               `json:"peak"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || len(c.Points) < 2 {
		r.errf(kp, `a curve is {points: [["00:00", WEIGHT], ["12:00", WEIGHT], ...], peak: NAME}, weights over the day`)
		return nil
	}
	type cp struct {
		t time.Duration
		w float64
	}
	var cps []cp
	for i, pt := range c.Points {
		var hm string
		var w float64
		if json.Unmarshal(pt[0], &hm) != nil || json.Unmarshal(pt[1], &w) != nil || w < 0 {
			r.errf(fmt.Sprintf("%s/points/%d", kp, i), `a curve point is ["HH:MM", WEIGHT], the weight not negative`)
			return nil
		}
		t, ok := clockTime(hm)
		if !ok {
			r.errf(fmt.Sprintf("%s/points/%d/0", kp, i), "%q is not a time of day (HH:MM)", hm)
			return nil
		}
		if n := len(cps); n > 0 && t <= cps[n-1].t {
			r.errf(fmt.Sprintf("%s/points/%d/0", kp, i), "curve points go forward in time")
			return nil
		}
		cps = append(cps, cp{t, w})
	}
	// Weights wrap around the day: the value at t is linear
	// between the points around it.
	at := func(t time.Duration) float64 {
		t = ((t % (24 * time.Hour)) + 24*time.Hour) % (24 * time.Hour)
		for i := range cps {
			if t < cps[i].t {
				a := cps[(i-1+len(cps))%len(cps)]
				if i == 0 {
					a.t -= 24 * time.Hour
				}
				b := cps[i]
				return a.w + (b.w-a.w)*float64(t-a.t)/float64(b.t-a.t)
			}
		}
		a, b := cps[len(cps)-1], cps[0]
		b.t += 24 * time.Hour
		return a.w + (b.w-a.w)*float64(t-a.t)/float64(b.t-a.t)
	}
	// The day's total at the curve's weights.
	day := 0.0
	const step = 5 * time.Minute
	for t := time.Duration(0); t < 24*time.Hour; t += step {
		day += (at(t) + at(t+step)) / 2 * step.Seconds()
	}
	if day <= 0 {
		r.errf(kp+"/points", "the curve's weights are all zero")
		return nil
	}
	count := l.Count
	if count == 0 {
		if op == nil || op.Volume.PerDay == nil {
			r.errAt(ptr, true, "", "a curve without count takes the operation's volume.perDay: declare it, or give count")
			return nil
		}
		count = *op.Volume.PerDay
		factor := 1.0
		peak := sc.Peak
		if c.Peak != "" {
			if peak = r.m.Peak(c.Peak); peak == nil {
				r.errAt(kp+"/peak", false, r.peakHint(c.Peak), "unknown peak %q", c.Peak)
				return nil
			}
		}
		if peak != nil && peak.Factor > 0 {
			factor = peak.Factor
		}
		count *= factor
	}
	span := window
	if span == 0 {
		span = 24 * time.Hour
	}
	start := sc.Start
	if l.At != "" {
		start, _ = clockTime(l.At)
	}
	s := &Shape{Kind: "curve"}
	for t := time.Duration(0); t <= span; t += step {
		s.Points = append(s.Points, RatePoint{t, at(start+t) * count / day})
	}
	if last := s.Points[len(s.Points)-1]; last.At < span {
		s.Points = append(s.Points, RatePoint{span, at(start+span) * count / day})
	}
	return s
}

// loadScope resolves the paths, expressions and sources of one load.
type loadScope struct {
	r      *resolver
	op     *Operation
	load   *LoadItem
	names  map[string]string
	values map[string]json.RawMessage
	ptr    string
}

// path reads a context path.
func (c *loadScope) path(ptr, text string) *Path {
	switch text {
	case "clock":
		return &Path{Text: text, Clock: true}
	case "asOf":
		return &Path{Text: text, AsOf: true}
	}
	head, rest, dotted := strings.Cut(text, ".")
	if dotted {
		if head == "cause" {
			if rest == "" {
				c.r.errf(ptr, "cause.NAME names a value of the arrival that caused this one")
				return nil
			}
			return &Path{Text: text, Cause: true, Attr: rest}
		}
		e := c.r.m.Entity(head)
		if e == nil {
			c.r.errAt(ptr, false, didYouMean(head, c.entityNames()), "%q names no entity: a path is ENTITY.attribute, cause.NAME, a parameter, clock or asOf", head)
			return nil
		}
		if e.Has(rest) == "" && c.r.m.Attribute(rest) == nil {
			c.r.errAt(ptr, false, c.r.attrHint(rest), "entity %s has no attribute %q", e.Name, rest)
			return nil
		}
		return &Path{Text: text, Entity: e, Attr: rest}
	}
	if c.op.Param(text) != nil {
		return &Path{Text: text, Param: text}
	}
	var names []string
	for _, p := range c.op.Params {
		names = append(names, p.Name)
	}
	c.r.errAt(ptr, false, didYouMean(text, names), "%q is neither a parameter of %s nor a path (ENTITY.attribute, cause.NAME, clock, asOf)", text, c.op.Name)
	return nil
}

func (c *loadScope) entityNames() []string {
	var out []string
	for _, e := range c.r.m.Entities {
		out = append(out, e.Name)
	}
	return out
}

// cond parses a condition over the context.
func (c *loadScope) cond(ptr, text string) *Expr {
	return c.r.parseExpr(ptr, text, c.names, c.values, false, c.topCheck(ptr))
}

// topCheck validates the top-level names an expression over the context
// reads: entities, parameters, cause.
func (c *loadScope) topCheck(ptr string) func(string) string {
	return func(name string) string {
		if name == "cause" || name == "clock" || name == "asOf" || c.r.m.Entity(name) != nil || c.op.Param(name) != nil {
			return ""
		}
		var names []string
		names = append(names, c.entityNames()...)
		for _, p := range c.op.Params {
			names = append(names, p.Name)
		}
		return fmt.Sprintf("%q is neither an entity, a parameter of %s nor cause%s", name, c.op.Name, hintSuffix(didYouMean(name, names)))
	}
}

func hintSuffix(h string) string {
	if h == "" {
		return ""
	}
	return " (" + h + ")"
}

// sources reads the params of a load (or of a mix entry, top false).
func (c *loadScope) sources(ptr string, raws map[string]json.RawMessage, top bool) []*Source {
	var out []*Source
	for _, name := range slices.Sorted(maps.Keys(raws)) {
		pp := ptr + "/" + escapePtr(name)
		prm := c.op.Param(name)
		if prm == nil {
			var names []string
			for _, p := range c.op.Params {
				names = append(names, p.Name)
			}
			c.r.errAt(pp, true, didYouMean(name, names), "operation %s has no parameter %q", c.op.Name, name)
			continue
		}
		if s := c.source(pp, prm, raws[name]); s != nil {
			out = append(out, s)
		}
	}
	return out
}

var sourceKinds = []string{"value", "copy", "expr", "date", "clock", "unique", "map", "oneOf", "sequence", "shards", "spread", "template", "computed", "sample"}

func (c *loadScope) source(ptr string, prm *Param, raw json.RawMessage) *Source {
	s := &Source{Param: prm, Explicit: true}
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		v, err := c.literal(raw, prm)
		if err != nil {
			c.r.errf(ptr, "parameter %s: %v", prm.Name, err)
			return nil
		}
		s.Kind, s.Value = SourceValue, v
		return s
	}
	if len(m) != 1 {
		c.r.errf(ptr, "a source is a value or a mapping with one of %s", strings.Join(sourceKinds, ", "))
		return nil
	}
	for kind, body := range m {
		kp := ptr + "/" + escapePtr(kind)
		str := func() (string, bool) {
			var t string
			if json.Unmarshal(body, &t) != nil || t == "" {
				c.r.errf(kp, "%s takes a string", kind)
				return "", false
			}
			return t, true
		}
		s.Kind = SourceKind(kind)
		switch s.Kind {
		case SourceValue:
			v, err := c.literal(body, prm)
			if err != nil {
				c.r.errf(kp, "parameter %s: %v", prm.Name, err)
				return nil
			}
			s.Value = v
		case SourceCopy:
			t, ok := str()
			if !ok {
				return nil
			}
			if s.Path = c.path(kp, t); s.Path == nil {
				return nil
			}
		case SourceExpr:
			t, ok := str()
			if !ok {
				return nil
			}
			if s.Expr = c.r.parseExpr(kp, t, c.names, c.values, true, c.topCheck(kp)); s.Expr == nil {
				return nil
			}
		case SourceDate:
			if !c.sourceDate(s, kp, body, prm) {
				return nil
			}
		case SourceClock:
			s.Kind = SourceDate
			s.Date = &DateShift{}
			if !dateParam(prm) {
				c.r.errf(kp, "parameter %s is not a civil date, an instant nor epoch seconds (its attribute's unit says which)", prm.Name)
				return nil
			}
		case SourceUnique:
			if prm.Type != attr.S && prm.Type != attr.N {
				c.r.errf(kp, "a unique value is a string or a number; parameter %s is %s", prm.Name, prm.Type)
				return nil
			}
		case SourceMap:
			if !c.sourceMap(s, kp, body, prm) {
				return nil
			}
		case SourceOneOf:
			if !c.sourceOneOf(s, kp, body, prm) {
				return nil
			}
		case SourceSequence:
			var q struct {
				Modulo int64 `json:"modulo"`
				From   int64 `json:"from"`
			}
			if json.Unmarshal(body, &q) != nil || q.Modulo < 0 {
				c.r.errf(kp, "a sequence is {modulo: N, from: K}: the arrival's number modulo N (0: none), plus K")
				return nil
			}
			s.Modulo, s.From = q.Modulo, q.From
			if prm.Type != attr.N {
				c.r.errf(kp, "a sequence is a number; parameter %s is %s", prm.Name, prm.Type)
				return nil
			}
		case SourceShards:
			t, ok := str()
			if !ok {
				return nil
			}
			if !c.sourceShards(s, kp, t) {
				return nil
			}
		case SourceSpread:
			t, ok := str()
			if !ok {
				return nil
			}
			if s.Attr = c.r.attrRef(kp, t); s.Attr == nil {
				return nil
			}
		case SourceTemplate:
			t, ok := str()
			if !ok {
				return nil
			}
			parts, err := c.template(kp, t)
			if err != nil {
				c.r.errf(kp, "%v", err)
				return nil
			}
			s.Template = parts
		case SourceComputed:
			if prm.Attribute == nil || prm.Attribute.Computed == nil {
				c.r.errf(kp, "parameter %s's attribute is not computed", prm.Name)
				return nil
			}
			s.Attr = prm.Attribute
		case SourceSample:
			if prm.Sample == nil {
				c.r.errf(kp, "parameter %s declares no sample", prm.Name)
				return nil
			}
			s.Value = *prm.Sample
		default:
			c.r.errAt(kp, true, didYouMean(kind, sourceKinds), "unknown source %q (one of %s)", kind, strings.Join(sourceKinds, ", "))
			return nil
		}
	}
	return s
}

// sourceDate reads a date source: a shift from the clock, asOf or a path,
// with an optional step per arrival. It reports false on an error.
func (c *loadScope) sourceDate(s *Source, kp string, body json.RawMessage, prm *Param) bool {
	type shift struct {
		Years, Months, Days, Hours, Minutes, Seconds int
	}
	var d struct {
		From string
		shift
		Step *shift
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		c.r.errf(kp, "a date is {from: clock|asOf|PATH, years, months, days, hours, minutes, seconds, step: {days: ...}}")
		return false
	}
	s.Date = &DateShift{Years: d.Years, Months: d.Months, Days: d.Days, Hours: d.Hours, Minutes: d.Minutes, Secs: d.Seconds}
	if d.Step != nil {
		st := d.Step
		s.Date.Step = &DateShift{Years: st.Years, Months: st.Months, Days: st.Days, Hours: st.Hours, Minutes: st.Minutes, Secs: st.Seconds}
	}
	if d.From != "" {
		if s.Date.From = c.path(kp+"/from", d.From); s.Date.From == nil {
			return false
		}
	}
	if !dateParam(prm) {
		c.r.errf(kp, "parameter %s is not a civil date, an instant nor epoch seconds (its attribute's unit says which)", prm.Name)
		return false
	}
	return true
}

// sourceMap reads a map source: values looked up from a path, with a
// default. It reports false on an error.
func (c *loadScope) sourceMap(s *Source, kp string, body json.RawMessage, prm *Param) bool {
	var mm struct {
		From    string                     `json:"from"`
		Values  map[string]json.RawMessage `json:"values"`
		Default json.RawMessage            `json:"default"`
	}
	if json.Unmarshal(body, &mm) != nil || mm.From == "" || len(mm.Values) == 0 {
		c.r.errf(kp, "a map is {from: PATH, values: {FROM: TO, ...}, default: VALUE}")
		return false
	}
	if s.Path = c.path(kp+"/from", mm.From); s.Path == nil {
		return false
	}
	for _, k := range slices.Sorted(maps.Keys(mm.Values)) {
		v, err := c.literal(mm.Values[k], prm)
		if err != nil {
			c.r.errf(kp+"/values/"+escapePtr(k), "parameter %s: %v", prm.Name, err)
			return false
		}
		s.Map = append(s.Map, MapEntry{From: k, To: v})
	}
	if len(mm.Default) > 0 {
		v, err := c.literal(mm.Default, prm)
		if err != nil {
			c.r.errf(kp+"/default", "parameter %s: %v", prm.Name, err)
			return false
		}
		s.Default = &v
	}
	return true
}

// sourceOneOf reads a oneOf source: a list of values, or values and
// their weights. It reports false on an error.
func (c *loadScope) sourceOneOf(s *Source, kp string, body json.RawMessage, prm *Param) bool {
	var list []json.RawMessage
	var weights map[string]float64
	switch {
	case json.Unmarshal(body, &list) == nil && len(list) > 0:
		for i, e := range list {
			v, err := c.literal(e, prm)
			if err != nil {
				c.r.errf(fmt.Sprintf("%s/%d", kp, i), "parameter %s: %v", prm.Name, err)
				return false
			}
			s.Choices, s.Weights = append(s.Choices, v), append(s.Weights, 1)
		}
	case json.Unmarshal(body, &weights) == nil && len(weights) > 0:
		for _, k := range slices.Sorted(maps.Keys(weights)) {
			v, err := c.literal(json.RawMessage(strconv.Quote(k)), prm)
			if prm.Type == attr.N {
				v, err = c.literal(json.RawMessage(k), prm)
			}
			if err != nil || weights[k] < 0 {
				c.r.errf(kp+"/"+escapePtr(k), "parameter %s: %v", prm.Name, err)
				return false
			}
			s.Choices, s.Weights = append(s.Choices, v), append(s.Weights, weights[k])
		}
	default:
		c.r.errf(kp, "oneOf is a list of values or a mapping of values to weights")
		return false
	}
	return true
}

// sourceShards reads a shards source: a sharded index by name. It
// reports false on an error.
func (c *loadScope) sourceShards(s *Source, kp, t string) bool {
	x := c.r.m.Index(t)
	if x == nil {
		var names []string
		for _, i := range c.r.m.Indexes {
			names = append(names, i.Name)
		}
		c.r.errAt(kp, false, didYouMean(t, names), "unknown index %q", t)
		return false
	}
	if x.Shards == nil {
		c.r.errf(kp, "index %s is not sharded", t)
		return false
	}
	s.Index = x
	return true
}

// dateParam reports whether a parameter holds a date: a civil date, an
// instant or epoch seconds.
func dateParam(p *Param) bool {
	if p.Attribute == nil {
		return false
	}
	switch p.Attribute.Unit {
	case UnitCivilDate, UnitInstant, UnitEpochSeconds:
		return true
	}
	return p.Attribute.Instant != nil
}

func (c *loadScope) literal(raw json.RawMessage, prm *Param) (attr.Value, error) {
	v, err := decodeAny(raw)
	if err != nil {
		return attr.Value{}, err
	}
	return typedValue(v, prm.Type, prm.Attribute)
}

// template parses a template source: {PATH} or {PATH:0N} placeholders.
func (c *loadScope) template(ptr, text string) ([]TemplatePart, error) {
	var out []TemplatePart
	rest := text
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return nil, fmt.Errorf("unmatched '}' in %q", text)
			}
			out = append(out, TemplatePart{Literal: rest})
			break
		}
		if i > 0 {
			out = append(out, TemplatePart{Literal: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed '{' in %q", text)
		}
		inner := rest[i+1 : i+j]
		name, spec, hasSpec := strings.Cut(inner, ":")
		tp := TemplatePart{}
		if hasSpec {
			w, err := strconv.Atoi(spec)
			if err != nil || len(spec) < 2 || spec[0] != '0' || w < 1 || w > 38 {
				return nil, fmt.Errorf("placeholder {%s}: format %q is not a zero-padded width such as 03", inner, spec)
			}
			tp.Width = w
		}
		if tp.Path = c.path(ptr, name); tp.Path == nil {
			return nil, fmt.Errorf("placeholder {%s} names nothing of the context", inner)
		}
		out = append(out, tp)
		rest = rest[i+j+1:]
	}
	return out, nil
}

func (r *resolver) subjects(ptr string, c *loadScope, rs *rawSubjects, focus map[string]string) *Subjects {
	e := r.m.Entity(rs.Entity)
	if e == nil {
		r.errAt(ptr+"/entity", false, didYouMean(rs.Entity, c.entityNames()), "unknown entity %q", rs.Entity)
		return nil
	}
	s := &Subjects{Entity: e, Pick: rs.Pick}
	if s.Pick == "" {
		s.Pick = PickEach
	}
	if s.Pick != PickEach && s.Pick != PickRandom {
		r.errf(ptr+"/pick", "pick is each or random, not %q", s.Pick)
	}
	for _, a := range slices.Sorted(maps.Keys(focus)) {
		if e.Has(a) != "" && focus[a] == "largest" {
			s.Largest = append(s.Largest, a)
		}
	}
	for _, a := range slices.Sorted(maps.Keys(rs.Where)) {
		wp := ptr + "/where/" + escapePtr(a)
		at := r.attrRef(wp, a)
		if at == nil {
			continue
		}
		if e.Has(a) == "" {
			r.errAt(wp, true, "", "entity %s has no attribute %s", e.Name, a)
			continue
		}
		v, err := decodeAny(rs.Where[a])
		if err != nil {
			r.errf(wp, "%v", err)
			continue
		}
		if v == "largest" {
			if !contains(s.Largest, a) {
				s.Largest = append(s.Largest, a)
			}
			continue
		}
		var vals []any
		if list, ok := v.([]any); ok {
			vals = list
		} else {
			vals = []any{v}
		}
		cond := Condition{Attribute: a}
		for i, x := range vals {
			tv, err := typedValue(x, at.Type, at)
			if err != nil {
				r.errf(fmt.Sprintf("%s/%d", wp, i), "%v", err)
				continue
			}
			cond.Values = append(cond.Values, tv)
		}
		s.Where = append(s.Where, cond)
	}
	sort.Strings(s.Largest)
	if rs.When != "" {
		s.When = c.cond(ptr+"/when", rs.When)
	}
	return s
}

// expectation reads one expect entry: words, or words with checks.
func (r *resolver) expectation(ptr string, sc *Scenario, raw json.RawMessage) Expectation {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return Expectation{Text: text}
	}
	var re rawExpectation
	if err := json.Unmarshal(raw, &re); err != nil {
		r.errf(ptr, "an expectation is its words, or {that: WORDS, check: CHECK} or {that, checks: [...]}")
		return Expectation{}
	}
	x := Expectation{Text: re.That}
	if re.If != nil {
		g := &Guard{Sharded: re.If.Sharded}
		if g.Index = r.m.Index(re.If.Index); g.Index == nil {
			r.errAt(ptr+"/if/index", false, didYouMean(re.If.Index, r.indexNames()), "unknown index %q", re.If.Index)
		}
		x.If = g
	}
	checks := re.Checks
	if re.Check != nil {
		if len(checks) > 0 {
			r.errAt(ptr+"/checks", true, "", "give check or checks, not both")
		}
		checks = []rawCheck{*re.Check}
	}
	for i, rc := range checks {
		cp := fmt.Sprintf("%s/checks/%d", ptr, i)
		if re.Check != nil {
			cp = ptr + "/check"
		}
		x.Checks = append(x.Checks, r.check(cp, sc, rc))
	}
	return x
}

func (r *resolver) indexNames() []string {
	var out []string
	for _, x := range r.m.Indexes {
		out = append(out, x.Name)
	}
	return out
}

func (r *resolver) check(ptr string, sc *Scenario, rc rawCheck) Check {
	c := Check{Load: rc.Load, Metric: rc.Metric, Outcome: rc.Outcome, Reason: rc.Reason, Kind: rc.Kind, Invariant: rc.Invariant, Max: rc.Max, Min: rc.Min}
	if rc.Equals != nil {
		if rc.Max != nil || rc.Min != nil {
			r.errAt(ptr+"/equals", true, "", "give equals, or max and min")
		}
		c.Max, c.Min = rc.Equals, rc.Equals
	}
	if c.Load != "" {
		found := false
		var names []string
		for _, l := range sc.Load {
			names = append(names, l.Name)
			found = found || l.Name == c.Load
		}
		if !found && len(sc.Then) == 0 {
			r.errAt(ptr+"/load", false, didYouMean(c.Load, names), "no load of scenario %s is called %q", sc.Name, c.Load)
		}
	}
	if rc.Table != "" {
		if c.Table = r.m.Table(rc.Table); c.Table == nil {
			r.errf(ptr+"/table", "unknown table %q", rc.Table)
		}
	}
	if rc.Index != "" {
		if c.Index = r.m.Index(rc.Index); c.Index == nil {
			r.errAt(ptr+"/index", false, didYouMean(rc.Index, r.indexNames()), "unknown index %q", rc.Index)
		}
	}
	if c.Invariant != "" {
		if c.Metric != "" {
			r.errAt(ptr+"/metric", true, "", "an invariant check takes no metric: the invariant must hold")
		}
		return c
	}
	if !contains(Metrics, c.Metric) {
		r.errAt(ptr+"/metric", false, didYouMean(c.Metric, Metrics), "unknown metric %q (one of %s)", c.Metric, strings.Join(Metrics, ", "))
	}
	if c.Max == nil && c.Min == nil {
		r.errAt(ptr, true, "", "a check compares its metric: give max, min or equals")
	}
	switch c.Metric {
	case MetricOutcome:
		if c.Outcome == "" {
			r.errAt(ptr, true, "", "metric outcome needs outcome: the outcome counted (applied, already-applied, limit-reached, version-conflict, throttled, dead-lettered, error..., or a failed condition by its meaning's first words: contract-settled-or-owes)")
		}
	case MetricPartitionRead, MetricPartitionWrite:
		if (c.Table == nil) == (c.Index == nil) {
			r.errAt(ptr, true, "", "metric %s is about one table or one index: give table or index", c.Metric)
		}
	case MetricRequests:
		if c.Kind != "" && !contains([]string{"get", "put", "update", "delete", "query", "scan", "transaction"}, c.Kind) {
			r.errf(ptr+"/kind", "kind is a step kind (get, put, update, delete, query, scan, transaction), not %q", c.Kind)
		}
	}
	return c
}

// resolveInvariants resolves the invariants section.
func (r *resolver) resolveInvariants(base string, raws map[string]rawInvariant) []*Invariant {
	var out []*Invariant
	for _, name := range slices.Sorted(maps.Keys(raws)) {
		ri := raws[name]
		ptr := base + "/" + escapePtr(name)
		v := &Invariant{Name: name, Description: ri.Description}
		n := 0
		for _, set := range []bool{ri.Each != nil, ri.Sum != nil, ri.Ledger != nil, ri.Versions != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			r.errAt(ptr, true, "", "an invariant is exactly one of each, sum, ledger or versions")
			continue
		}
		switch {
		case ri.Each != nil:
			v.Each = r.eachInvariant(ptr+"/each", ri.Each, ri.Names, ri.Values)
		case ri.Sum != nil:
			v.Sum = r.sumInvariant(ptr+"/sum", ri.Sum, ri.Names, ri.Values)
		case ri.Ledger != nil:
			v.Ledger = r.ledgerInvariant(ptr+"/ledger", ri.Ledger)
		case ri.Versions != nil:
			v.Versions = r.versionsInvariant(ptr+"/versions", ri.Versions)
		}
		out = append(out, v)
	}
	return out
}

func (r *resolver) entityRef(ptr, name string) *Entity {
	e := r.m.Entity(name)
	if e == nil {
		var names []string
		for _, x := range r.m.Entities {
			names = append(names, x.Name)
		}
		r.errAt(ptr, false, didYouMean(name, names), "unknown entity %q", name)
	}
	return e
}

// itemCheck validates the top-level names of an expression over an item
// of e.
func (r *resolver) itemCheck(e *Entity) func(string) string {
	return func(name string) string {
		if e.Has(name) != "" {
			return ""
		}
		var names []string
		for _, a := range e.Attributes {
			names = append(names, a.Name)
		}
		return fmt.Sprintf("entity %s has no attribute %q%s", e.Name, name, hintSuffix(didYouMean(name, names)))
	}
}

func (r *resolver) eachInvariant(ptr string, re *rawEach, names map[string]string, values map[string]json.RawMessage) *EachInvariant {
	e := r.entityRef(ptr+"/entity", re.Entity)
	if e == nil {
		return nil
	}
	ei := &EachInvariant{Entity: e}
	if re.Where != "" {
		ei.Where = r.parseExpr(ptr+"/where", re.Where, names, values, false, r.itemCheck(e))
	}
	if re.Holds != "" {
		ei.Holds = r.parseExpr(ptr+"/holds", re.Holds, names, values, false, r.itemCheck(e))
	}
	for i, n := range re.NotIn {
		x := r.m.Index(n)
		if x == nil {
			r.errAt(fmt.Sprintf("%s/notIn/%d", ptr, i), false, didYouMean(n, r.indexNames()), "unknown index %q", n)
			continue
		}
		ei.NotIn = append(ei.NotIn, x)
	}
	if re.Holds == "" && len(ei.NotIn) == 0 {
		r.errAt(ptr, true, "", "each needs holds (a condition) or notIn (indexes), or both")
	}
	return ei
}

func (r *resolver) side(ptr string, rs rawSide, names map[string]string, values map[string]json.RawMessage) *Side {
	e := r.entityRef(ptr+"/entity", rs.Entity)
	if e == nil {
		return nil
	}
	s := &Side{Entity: e, Value: rs.Value}
	if s.Value == "count" {
		s.Value = ""
	} else if e.Has(s.Value) == "" {
		r.errAt(ptr+"/value", false, "", "entity %s has no attribute %q (value is an attribute to sum, or count)", e.Name, rs.Value)
	} else if a := r.m.Attribute(s.Value); a != nil && a.Type != attr.N {
		r.errf(ptr+"/value", "attribute %s is %s: a sum adds numbers", s.Value, a.Type)
	}
	t, err := ParseTemplate(rs.Key)
	if err != nil {
		r.errf(ptr+"/key", "%v", err)
		return nil
	}
	for _, ph := range t.Placeholders() {
		if e.Has(ph) == "" {
			r.errf(ptr+"/key", "entity %s has no attribute %q for the key", e.Name, ph)
			return nil
		}
		if a := r.m.Attribute(ph); a != nil {
			for i := range t.Parts {
				if t.Parts[i].Attr == ph {
					t.Parts[i].Type = a.Type
				}
			}
		}
	}
	s.Key = t
	if rs.Where != "" {
		s.Where = r.parseExpr(ptr+"/where", rs.Where, names, values, false, r.itemCheck(e))
	}
	return s
}

func (r *resolver) sumInvariant(ptr string, rs *rawSum, names map[string]string, values map[string]json.RawMessage) *SumInvariant {
	of := r.side(ptr+"/of", rs.Of, names, values)
	if of == nil {
		return nil
	}
	si := &SumInvariant{Of: *of}
	var f float64
	if json.Unmarshal(rs.Equals, &f) == nil {
		si.Const = &f
		return si
	}
	var eq rawSide
	if err := json.Unmarshal(rs.Equals, &eq); err != nil {
		r.errf(ptr+"/equals", "equals is a number or {entity, key, value, where}")
		return nil
	}
	si.Equals = r.side(ptr+"/equals", eq, names, values)
	if si.Equals == nil {
		return nil
	}
	return si
}

func (r *resolver) ledgerInvariant(ptr string, rl *rawLedger) *LedgerInvariant {
	op := r.m.Operation(rl.Operation)
	if op == nil {
		var names []string
		for _, o := range r.m.Operations {
			names = append(names, o.Name)
		}
		r.errAt(ptr+"/operation", false, didYouMean(rl.Operation, names), "unknown operation %q", rl.Operation)
		return nil
	}
	li := &LedgerInvariant{Operation: op}
	if (rl.Exists == "") == (rl.Forbid == nil) {
		r.errAt(ptr, true, "", "a ledger invariant is exists (an entity) or forbid, one of them")
		return nil
	}
	avail := func(name string) bool {
		if op.Param(name) != nil {
			return true
		}
		for _, s := range op.Steps {
			if contains(s.Bind, name) {
				return true
			}
		}
		return false
	}
	if rl.Exists != "" {
		e := r.entityRef(ptr+"/exists", rl.Exists)
		if e == nil {
			return nil
		}
		for _, k := range e.Key {
			for _, ph := range k.Template.Placeholders() {
				if !avail(ph) {
					r.errf(ptr+"/exists", "%s's key needs %s, which operation %s neither takes nor binds", e.Name, ph, op.Name)
					return nil
				}
			}
		}
		li.Exists = e
		return li
	}
	e := r.entityRef(ptr+"/forbid/entity", rl.Forbid.Entity)
	if e == nil {
		return nil
	}
	fr := &ForbidRule{Entity: e}
	pairs := func(sub string, m map[string]string) []PathPair {
		var out []PathPair
		for _, a := range slices.Sorted(maps.Keys(m)) {
			pp := ptr + "/forbid/" + sub + "/" + escapePtr(a)
			if e.Has(a) == "" {
				r.errAt(pp, true, "", "entity %s has no attribute %q", e.Name, a)
				continue
			}
			v := m[a]
			if !avail(v) {
				r.errf(pp, "operation %s neither takes nor binds %q", op.Name, v)
				continue
			}
			out = append(out, PathPair{Attr: a, Path: &Path{Text: v, Param: v}})
		}
		return out
	}
	fr.Match = pairs("match", rl.Forbid.Match)
	fr.Later = pairs("later", rl.Forbid.Later)
	if len(fr.Match) == 0 {
		r.errAt(ptr+"/forbid", true, "", "forbid needs match: the attributes that tie an item to the arrival")
	}
	li.Forbid = fr
	return li
}

func (r *resolver) versionsInvariant(ptr string, rv *rawVersions) *VersionsInvariant {
	e := r.entityRef(ptr+"/entity", rv.Entity)
	if e == nil {
		return nil
	}
	if e.Has(rv.Attribute) == "" {
		r.errAt(ptr+"/attribute", false, "", "entity %s has no attribute %q", e.Name, rv.Attribute)
		return nil
	}
	return &VersionsInvariant{Entity: e, Attribute: rv.Attribute}
}

// parseExpr parses an expression of the scenario or invariant language:
// a condition, or (operand) an update operand. check validates each
// top-level attribute name it reads ("" when fine).
func (r *resolver) parseExpr(ptr, text string, names map[string]string, values map[string]json.RawMessage, operand bool, check func(string) string) *Expr {
	src, used, err := placeReserved(text)
	if err != nil {
		r.errf(ptr, "%v", err)
		return nil
	}
	nm := map[string]string{}
	for k, v := range used {
		nm[k] = v
	}
	for k, v := range names {
		if strings.Contains(src, k) {
			nm[k] = v
		}
	}
	vals := map[string]attr.Value{}
	for k, raw := range values {
		if !strings.Contains(src, k) {
			continue
		}
		v, err := decodeAny(raw)
		if err != nil {
			r.errf(ptr, "value %s: %v", k, err)
			return nil
		}
		vals[k] = plainValue(v)
	}
	x := &Expr{Text: text}
	sc := expr.NewScope(nm, vals)
	if operand {
		nm["#"+ExprOut] = ExprOut
		u, err := sc.Update("SET #" + ExprOut + " = " + src)
		if err != nil {
			r.errf(ptr, "%s", strings.TrimPrefix(err.Error(), "Invalid UpdateExpression: "))
			return nil
		}
		x.Update = u
		for _, a := range u.Reads() {
			x.Paths = append(x.Paths, a)
		}
	} else {
		c, err := sc.Condition(src)
		if err != nil {
			r.errf(ptr, "%s", strings.TrimPrefix(err.Error(), "Invalid ConditionExpression: "))
			return nil
		}
		x.Cond = c
		x.Paths = c.Attrs()
	}
	for _, a := range x.Paths {
		if msg := check(a); msg != "" {
			r.errf(ptr, "%s", msg)
			return nil
		}
	}
	return x
}

// plainValue types a plain YAML value for an expression: strings are S,
// numbers N, booleans BOOL, lists L and mappings M.
func plainValue(v any) attr.Value {
	switch x := v.(type) {
	case string:
		return attr.Value{Type: attr.S, Str: x}
	case json.Number:
		return attr.Value{Type: attr.N, Str: string(x)}
	case bool:
		return attr.Value{Type: attr.BOOL, Bool: x}
	case []any:
		l := make([]attr.Value, len(x))
		for i, e := range x {
			l[i] = plainValue(e)
		}
		return attr.Value{Type: attr.L, List: l}
	case map[string]any:
		fs := make([]attr.Field, 0, len(x))
		for k, e := range x {
			fs = append(fs, attr.Field{Name: k, Value: plainValue(e)})
		}
		return attr.Value{Type: attr.M, Map: attr.Sorted(fs)}
	}
	return attr.Null()
}

// exprWords are the words of DynamoDB's expression grammar that are also
// reserved words: they stay as they are.
var exprWords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true, "SET": true, "REMOVE": true, "ADD": true, "DELETE": true}

// placeReserved gives every attribute name of an expression that is a
// reserved word a #placeholder of its own (CONTRACT.status becomes
// #r0.#r1), so that a model can write names as they are.
func placeReserved(text string) (string, map[string]string, error) {
	var b strings.Builder
	used := map[string]string{}
	byName := map[string]string{}
	inQuote := false
	for i := 0; i < len(text); {
		c := text[i]
		if c == '"' {
			inQuote = !inQuote
		}
		if inQuote || !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		word := text[i:j]
		prev := byte(0)
		if i > 0 {
			prev = text[i-1]
		}
		next := byte(0)
		for k := j; k < len(text); k++ {
			if text[k] != ' ' {
				next = text[k]
				break
			}
		}
		isFunc := next == '('
		if prev != ':' && prev != '#' && !isFunc && expr.IsReserved(word) && !(exprWords[strings.ToUpper(word)] && prev != '.' && next != '.') {
			ph, ok := byName[word]
			if !ok {
				ph = fmt.Sprintf("#r%d", len(byName))
				byName[word] = ph
				used[ph] = word
			}
			b.WriteString(ph)
		} else {
			b.WriteString(word)
		}
		i = j
	}
	return b.String(), used, nil
}

// checkInvariantRefs checks the invariants expectations name exist.
func (r *resolver) checkInvariantRefs(base string, scs []Scenario) {
	var names []string
	for _, v := range r.m.Invariants {
		names = append(names, v.Name)
	}
	for _, sc := range scs {
		for i, x := range sc.Expectations {
			for j, c := range x.Checks {
				if c.Invariant != "" && r.m.Invariant(c.Invariant) == nil {
					r.errAt(fmt.Sprintf("%s/%s/expect/%d", base, escapePtr(sc.Name), i), true, didYouMean(c.Invariant, names), "check %d names no invariant of the model: %q", j, c.Invariant)
				}
			}
		}
	}
}
