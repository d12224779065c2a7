package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// A scenario's time, as the load generator runs it: the planner reads
// the catalog's resolved plan of each load (its Start, its Shape, what it
// follows) and takes its arrivals from the catalog's schedule functions,
// the pacer's own. The span starts at the scenario's start (or the
// earliest load of a scenario it continues with) and lasts until the last
// load ends. Each second holds the whole arrivals the pacer makes in it.
//
// A load that follows another gets, each second, one arrival per arrival
// of its cause After earlier (each arrival), all taken as completing; for
// each item its cause's reads return, one per read, unless the load caps
// its count over a window: then its arrivals come at that pace, its cause
// taken to return as many items as that takes. A count caps it as it
// caps the load generator's.
//
// Options.Duration sets how long loads given by a rate run, as
// the load generator's --duration does.

// schedule is the span of a scenario and each load's arrivals in it.
type schedule struct {
	// start is the first second (in the model's zone), seconds the span.
	start   time.Time
	seconds int
	loads   []loadShape
}

// loadShape is one load's arrivals a second over the span.
type loadShape struct {
	item  catalog.LoadItem
	index int // position in the scenario's loads
	// A paced load: its scaled shape from offset seconds into the span.
	shape  *catalog.Shape
	cum    []float64
	n      int64
	offset time.Duration
	// A follow-up: its arrivals of each second.
	runs  []float64
	total float64 // arrivals over the span
	note  string
}

// at returns the arrivals of second s.
func (l *loadShape) at(s int) float64 {
	if l.shape == nil {
		if s >= 0 && s < len(l.runs) {
			return l.runs[s]
		}
		return 0
	}
	a := time.Duration(s)*time.Second - l.offset
	return float64(l.shape.Before(l.cum, l.n, a+time.Second) - l.shape.Before(l.cum, l.n, a))
}

// newSchedule reads a scenario's loads (its own, then those of the
// scenarios it continues with). day is the civil day it runs on, loc the
// model's zone; scale multiplies every rate and count.
func newSchedule(sc *catalog.Scenario, loads []catalog.LoadItem, day time.Time, loc *time.Location, duration time.Duration, scale float64) (*schedule, error) {
	origin := sc.Start
	for _, l := range loads {
		if l.Plan != nil {
			origin = min(origin, l.Plan.Start)
		}
	}
	sch := &schedule{start: time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc).Add(origin)}
	end := time.Second
	byName := map[string]int{}
	for i, l := range loads {
		byName[l.Name] = i
		s := loadShape{item: l, index: i}
		if l.Plan == nil {
			return nil, fmt.Errorf("scenario %s: load %s has no plan", sc.Name, l.Name)
		}
		if sh := l.RunShape(duration); sh != nil {
			s.shape = sh.Scaled(scale)
			s.cum = s.shape.Cumulative()
			s.n = catalog.Arrivals(s.cum[len(s.cum)-1])
			s.total = float64(s.n)
			s.offset = l.Plan.Start - origin
			s.note = shapeNote(&l, sh)
			end = max(end, s.offset+sh.Span())
		} else if l.Plan.Follows == nil {
			return nil, fmt.Errorf("scenario %s: load %s has no shape", sc.Name, l.Name)
		}
		sch.loads = append(sch.loads, s)
	}
	if end > catalog.MaxSpan {
		return nil, fmt.Errorf("scenario %s: its loads run for %s, longer than a scenario may (%s)", sc.Name, end, catalog.MaxSpan)
	}
	sch.seconds = int(math.Ceil(end.Seconds()))
	// Follow-ups, each once its cause is known; a chain resolves in as
	// many rounds as it has links.
	for range loads {
		for i := range sch.loads {
			l := &sch.loads[i]
			f := l.item.Plan.Follows
			if l.shape != nil || l.runs != nil || f == nil {
				continue
			}
			c, ok := byName[f.Load]
			if !ok {
				return nil, fmt.Errorf("scenario %s: load %s follows %s, which is not one of its loads", sc.Name, l.item.Name, f.Load)
			}
			cause := &sch.loads[c]
			if cause.shape == nil && cause.runs == nil {
				continue
			}
			l.follow(cause, sch, scale)
		}
	}
	for i := range sch.loads {
		if l := &sch.loads[i]; l.shape == nil && l.runs == nil {
			return nil, fmt.Errorf("scenario %s: load %s follows a chain of loads that ends in itself", sc.Name, l.item.Name)
		}
	}
	return sch, nil
}

// follow makes a follow-up's arrivals from its cause's, extending the
// span while paced follow-ups are still queued (up to MaxSpan).
func (l *loadShape) follow(cause *loadShape, sch *schedule, scale float64) {
	pl, f := l.item.Plan, l.item.Plan.Follows
	after := int(f.After / time.Second)
	capN := math.Inf(1)
	if pl.Cap > 0 {
		capN = math.Max(1, math.Round(pl.Cap*scale))
	}
	pace := math.Inf(1) // arrivals a second
	if pl.Spacing > 0 && scale > 0 {
		pace = scale / pl.Spacing.Seconds()
	}
	// Each item with a paced cap: the cause's reads are taken to return
	// as many items as the pace takes.
	supply := f.Each == catalog.EachItem && pl.Cap > 0 && pl.Spacing > 0
	switch {
	case supply:
		l.note = fmt.Sprintf("one per item %s reads, %s later, at most %s over %s", f.Load, f.After, count(pl.Cap), pl.Spacing*time.Duration(pl.Cap))
	case f.Each == catalog.EachItem:
		l.note = fmt.Sprintf("one per item %s reads, %s later (one item a read assumed)", f.Load, f.After)
	default:
		l.note = fmt.Sprintf("one per arrival of %s, %s later", f.Load, f.After)
	}
	// end is the second after the cause's last arrival.
	end := len(cause.runs)
	if cause.shape != nil {
		end = int(math.Ceil((cause.offset + cause.shape.Span()).Seconds()))
	}
	var queue, credit float64
	started := false
	for s := 0; s < int(catalog.MaxSpan/time.Second); s++ {
		in := 0.0
		if c := s - after; c >= 0 {
			in = cause.at(c)
		}
		if in > 0 {
			started = true
		}
		if supply {
			if started {
				queue = math.Inf(1)
			}
		} else {
			queue += in
		}
		out := queue
		if !math.IsInf(pace, 1) {
			credit += pace
			out = math.Min(queue, math.Floor(credit))
			credit -= out
			if queue == 0 {
				credit = math.Min(credit, 1) // no banking while idle
			}
		}
		out = math.Min(out, capN-l.total)
		queue -= out
		l.total += out
		l.runs = append(l.runs, out)
		if s+1 >= end+after && (queue == 0 || l.total >= capN) {
			break
		}
	}
	sch.seconds = max(sch.seconds, len(l.runs))
}

// shapeNote says how a load's arrivals spread, in the model's words.
func shapeNote(l *catalog.LoadItem, s *catalog.Shape) string {
	span := s.Span().String()
	if l.Window != "" {
		span = l.Window
	}
	switch {
	case s.Kind == "trapezoid" && l.PeakPerSecond != nil:
		return fmt.Sprintf("%s in %s, ramping to %s a second and back", count(l.Count), span, count(*l.PeakPerSecond))
	case s.Kind == "even" && l.Rate != nil:
		return fmt.Sprintf("%s a second for %s", count(s.Peak()), s.Span())
	case s.Kind == "even":
		return fmt.Sprintf("%s in %s, %s a second", count(s.Count()), span, count(s.Peak()))
	}
	return fmt.Sprintf("%s: %s in %s, peaking at %s a second", s.Kind, count(s.Count()), s.Span(), count(s.Peak()))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// count writes a count the short way (1.2M, 2,000, 0.5).
func count(f float64) string {
	switch {
	case f >= 1e6 && math.Mod(f, 1e5) == 0:
		return strconv.FormatFloat(f/1e6, 'f', -1, 64) + "M"
	case f >= 100:
		return commas(math.Round(f))
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

func commas(f float64) string {
	s := strconv.FormatFloat(math.Abs(f), 'f', 0, 64)
	var b strings.Builder
	if f < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
