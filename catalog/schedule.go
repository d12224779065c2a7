package catalog

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// The one reading of a load's schedule. The load generator's pacer and
// the planner both take a load's arrivals from here: the shape a run
// gives it (RunShape), the arrivals up to an instant (Cum), their whole
// number (Arrivals, Before) and when each is due (Due). Neither re-derives
// a shape from the raw fields.

// MaxSpan bounds a scenario's schedule: every load ends within a week of
// its scenario's start, so a second-by-second simulation and a run on the
// scenario's clock are bounded before they start.
const MaxSpan = 7 * 24 * time.Hour

// Cumulative returns the arrivals from the first point to each point.
func (s *Shape) Cumulative() []float64 {
	if s == nil || len(s.Points) == 0 {
		return nil
	}
	cum := make([]float64, len(s.Points))
	for i := 1; i < len(s.Points); i++ {
		a, b := s.Points[i-1], s.Points[i]
		cum[i] = cum[i-1] + (a.PerSecond+b.PerSecond)/2*(b.At-a.At).Seconds()
	}
	return cum
}

// Cum is the arrivals from the shape's start to t (the integral of its
// rate), given the shape's Cumulative.
func (s *Shape) Cum(cum []float64, t time.Duration) float64 {
	n := len(s.Points)
	if n == 0 || t <= s.Points[0].At {
		return 0
	}
	if t >= s.Points[n-1].At {
		return cum[n-1]
	}
	// The last point at or before t.
	i := sort.Search(n, func(j int) bool { return s.Points[j].At > t }) - 1
	a, b := s.Points[i], s.Points[i+1]
	d := (t - a.At).Seconds()
	T := (b.At - a.At).Seconds()
	return cum[i] + a.PerSecond*d + (b.PerSecond-a.PerSecond)/(2*T)*d*d
}

// Arrivals is the whole number of arrivals a shape makes: its count
// rounded to the nearest whole, and one for a load asked for a fraction
// of one (a scaled-down run still exercises every load).
func Arrivals(total float64) int64 {
	n := int64(math.Round(total))
	if n == 0 && total > 0 {
		return 1
	}
	return n
}

// Before is how many of n arrivals are due before t: those with
// k < Cum(t) (see Due).
// The one arrival of a fractional load is due at the start.
func (s *Shape) Before(cum []float64, n int64, t time.Duration) int64 {
	if n <= 0 || len(s.Points) == 0 || t <= s.Points[0].At {
		return 0
	}
	if cum[len(cum)-1] < 1 {
		return n
	}
	c := math.Ceil(s.Cum(cum, t))
	if c >= float64(n) {
		return n
	}
	return int64(c)
}

// Due is when arrival k (from 0) is due, since the shape's start: the
// last instant at which its cumulative count has not passed k (the
// inverse of Cum, to the nanosecond), so that arrival k is before t
// exactly when k < Cum(t).
func (s *Shape) Due(cum []float64, k int64) time.Duration {
	n := len(s.Points)
	if n == 0 {
		return 0
	}
	c := float64(k)
	if cum[n-1] < 1 {
		c = 0
	}
	// The segment [i, i+1] whose cumulative range holds c, skipping
	// empty ones (a step, a rate of zero).
	i := sort.Search(n, func(j int) bool { return cum[j] > c }) - 1
	if i < 0 {
		i = 0
	}
	if i >= n-1 {
		return s.Points[n-1].At
	}
	a, b := s.Points[i], s.Points[i+1]
	need := c - cum[i]
	if need <= 0 {
		return a.At
	}
	T := (b.At - a.At).Seconds()
	r0, r1 := a.PerSecond, b.PerSecond
	var d float64
	if r1 == r0 {
		d = need / r0
	} else {
		// c(d) = r0 d + (r1-r0)/(2T) d^2; the stable root of
		// a d^2 + r0 d - need = 0.
		acc := (r1 - r0) / (2 * T)
		disc := max(r0*r0+4*acc*need, 0)
		d = 2 * need / (r0 + math.Sqrt(disc))
	}
	d = min(d, T)
	due := a.At + time.Duration(d*float64(time.Second))
	// The root's rounding can land a hair either side; settle on the
	// last nanosecond at which Cum has not passed c, so that arrival k
	// is before t exactly when k < Cum(t), as Before counts.
	for due > a.At && s.Cum(cum, due) > c {
		due--
	}
	for due < b.At && s.Cum(cum, due+1) <= c {
		due++
	}
	return due
}

// RunShape is the shape of a load's arrivals in a run: its own, with a
// load given by a rate (over its window or not) run for d when d > 0 (a
// run's --duration). Nil for a load that follows another.
func (li *LoadItem) RunShape(d time.Duration) *Shape {
	if li.Plan == nil || li.Plan.Shape == nil {
		return nil
	}
	s := li.Plan.Shape
	if d > 0 && s.Kind == "even" && li.Rate != nil && len(s.Points) > 0 {
		rate := s.Points[0].PerSecond
		return &Shape{Kind: "even", Points: []RatePoint{{At: 0, PerSecond: rate}, {At: d, PerSecond: rate}}}
	}
	return s
}

// RunLoads is what a run of a scenario replays: its loads, then those of
// the scenarios it continues with (Then, found by find), each at its own
// time; a name already taken is prefixed with its scenario's.
func RunLoads(sc *Scenario, find func(string) *Scenario) ([]LoadItem, error) {
	var loads []LoadItem
	names := map[string]bool{}
	add := func(s *Scenario, prefix bool) {
		for _, li := range s.Load {
			if prefix && names[li.Name] {
				li.Name = s.Name + "/" + li.Name
			}
			names[li.Name] = true
			loads = append(loads, li)
		}
	}
	add(sc, false)
	for _, n := range sc.Then {
		t := find(n)
		if t == nil {
			return nil, fmt.Errorf("scenario %s continues with %s, which does not exist", sc.Name, n)
		}
		add(t, true)
	}
	return loads, nil
}
