package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// A scenario's time shape, as the planner reads it. A scenario either
// names a day (day, or a peak without at): it then spans 24 hours from
// midnight; or it starts at a time of day (at) and spans its longest
// window (at least a minute). Within that span each load runs:
//
//   - at its rate, over its window when it has one, else over the whole
//     span (rate: 800 a second);
//   - with a count and a window, from the start, evenly (count over
//     window); with a peak above that average, it ramps to the peak and
//     back: a trapezoid whose area is the count and whose top is the
//     peak, a triangle when the peak is twice the average (the 00h07
//     batch: 1.2M in 20 minutes, 2,000 a second at the top), shorter than
//     the window when the peak is higher still;
//   - with a count and no window, all in the first second.
//
// Options.Duration replaces the span.

// schedule is the span of a scenario and each load's rate in it.
type schedule struct {
	// start is the first second (in the model's zone), seconds the span.
	start   time.Time
	seconds int
	loads   []loadShape
}

// loadShape is one load's runs a second over the span.
type loadShape struct {
	item  catalog.LoadItem
	index int // position in the scenario's load
	kind  string
	total float64 // runs over the span
	// rate: constant; even count over [0, window); trapezoid: 0 to peak
	// over ramp seconds, peak until width-ramp, down to 0 at width.
	rate, peak, ramp, width float64
	note                    string
}

// at returns the runs of second s (an integral of the shape over the
// second, so counts add up exactly).
func (l *loadShape) at(s int) float64 {
	a, b := float64(s), float64(s+1)
	switch l.kind {
	case "rate":
		return l.rate
	case "burst":
		if s == 0 {
			return l.total
		}
		return 0
	}
	return l.integral(b) - l.integral(a)
}

// integral is the runs from 0 to t of a trapezoid (an even window is one
// with no ramp).
func (l *loadShape) integral(t float64) float64 {
	w, r, p := l.width, l.ramp, l.peak
	switch {
	case t <= 0:
		return 0
	case t >= w:
		t = w
	}
	if r <= 0 {
		return p * t
	}
	up := min(t, r)
	area := p * up * up / (2 * r)
	if t > r {
		area += p * (min(t, w-r) - r)
	}
	if t > w-r {
		d := t - (w - r) // into the ramp down
		area += p*d - p*d*d/(2*r)
	}
	return area
}

// shape reads one load.
func shape(l catalog.LoadItem, span float64) (loadShape, error) {
	s := loadShape{item: l}
	win := l.WindowDuration().Seconds()
	switch {
	case l.Count > 0 && win > 0:
		mean := l.Count / win
		s.total, s.width, s.peak = l.Count, win, mean
		s.kind = "even"
		s.note = fmt.Sprintf("%s in %s, %s a second", count(l.Count), l.Window, count(mean))
		if l.PeakPerSecond != nil && *l.PeakPerSecond > mean*(1+1e-9) {
			p := *l.PeakPerSecond
			s.kind, s.peak = "ramp", p
			if p <= 2*mean {
				s.ramp = win - l.Count/p
			} else {
				s.width = 2 * l.Count / p
				s.ramp = s.width / 2
			}
			s.note = fmt.Sprintf("%s in %s, ramping to %s a second and back", count(l.Count), l.Window, count(p))
		}
	case l.Count > 0:
		s.kind, s.total = "burst", l.Count
		s.note = fmt.Sprintf("%s at once", count(l.Count))
	case l.Rate != nil && win > 0:
		// A rate with a window runs for its window, as the load
		// generator runs it; the span may be longer (another load's
		// window, or Options.Duration).
		r := l.Rate.PerSecond()
		s.kind, s.peak, s.width, s.total = "even", r, win, r*win
		s.note = fmt.Sprintf("%s a second for %s", count(r), l.Window)
	case l.Rate != nil:
		s.kind, s.rate = "rate", l.Rate.PerSecond()
		s.total = s.rate * span
		s.note = fmt.Sprintf("%s a second throughout", count(s.rate))
	default:
		return s, fmt.Errorf("load of %s: no count, window or rate", l.Operation)
	}
	if !finite(s.total) || s.total < 0 {
		return s, fmt.Errorf("load of %s: its rate is not a finite positive number", l.Operation)
	}
	return s, nil
}

// newSchedule reads a scenario's span and loads. day is the civil day it
// runs on, loc the model's zone; scale multiplies every rate and count.
func newSchedule(sc *catalog.Scenario, day time.Time, loc *time.Location, duration time.Duration, scale float64) (*schedule, error) {
	sch := &schedule{start: time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)}
	span := 24 * 3600.0
	if sc.At != "" {
		h, m, err := clock(sc.At)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: at %q: %w", sc.Name, sc.At, err)
		}
		sch.start = sch.start.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
		span = 60
		for _, l := range sc.Load {
			span = max(span, math.Ceil(l.WindowDuration().Seconds()))
		}
	}
	if duration > 0 {
		span = math.Ceil(duration.Seconds())
	}
	if span > maxSeconds {
		return nil, fmt.Errorf("scenario %s: a span of %s is longer than the planner simulates (%s)", sc.Name, time.Duration(span)*time.Second, time.Duration(maxSeconds)*time.Second)
	}
	sch.seconds = int(span)
	for i, l := range sc.Load {
		s, err := shape(l, span)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		s.index = i
		s.rate *= scale
		s.peak *= scale
		s.total *= scale
		sch.loads = append(sch.loads, s)
	}
	return sch, nil
}

// maxSeconds bounds a simulation: a week of seconds.
const maxSeconds = 7 * 24 * 3600

// clock reads "HH:MM".
func clock(s string) (h, m int, err error) {
	hh, mm, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("want HH:MM")
	}
	h, err1 := strconv.Atoi(hh)
	m, err2 := strconv.Atoi(mm)
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, fmt.Errorf("want HH:MM")
	}
	return h, m, nil
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
