package loadgen

import (
	"math"
	"sort"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// Pacer gives the due time of every arrival of a load as a pure function
// of its number: arrival k (from 0) is due at the instant the shape's
// cumulative count reaches k, so the first is due at the shape's start
// and the rate at each instant is the shape's. Nothing here waits or
// reads a clock; the runner sleeps until each due time (open model:
// arrivals never wait for responses).
type Pacer struct {
	pts   []catalog.RatePoint
	cum   []float64 // cumulative count at each point
	count int64
}

// NewPacer returns the pacer of a shape with every rate multiplied by
// factor (the run's scale over its parts). The number of arrivals is the
// shape's count rounded to the nearest whole.
func NewPacer(s *catalog.Shape, factor float64) *Pacer {
	p := &Pacer{}
	if s == nil || len(s.Points) == 0 || !(factor > 0) {
		return p
	}
	p.pts = make([]catalog.RatePoint, len(s.Points))
	p.cum = make([]float64, len(s.Points))
	for i, pt := range s.Points {
		p.pts[i] = catalog.RatePoint{At: pt.At, PerSecond: pt.PerSecond * factor}
		if i > 0 {
			a := p.pts[i-1]
			p.cum[i] = p.cum[i-1] + (a.PerSecond+p.pts[i].PerSecond)/2*(pt.At-a.At).Seconds()
		}
	}
	total := p.cum[len(p.cum)-1]
	p.count = int64(math.Round(total))
	if p.count == 0 && total > 0 {
		// A load asked for a fraction of one arrival at this scale still
		// makes one: a scaled-down run must exercise every load.
		p.count = 1
	}
	return p
}

// Limit cuts the arrivals to the first n, each still due when the shape
// says.
func (p *Pacer) Limit(n int64) {
	if n >= 0 && n < p.count {
		p.count = n
	}
}

// Count is the number of arrivals.
func (p *Pacer) Count() int64 { return p.count }

// Span is how long the shape lasts.
func (p *Pacer) Span() time.Duration {
	if len(p.pts) == 0 {
		return 0
	}
	return p.pts[len(p.pts)-1].At - p.pts[0].At
}

// Due returns when arrival k is due, since the load's start; ok is false
// past the last arrival.
func (p *Pacer) Due(k int64) (time.Duration, bool) {
	if k < 0 || k >= p.count {
		return 0, false
	}
	c := float64(k)
	total := p.cum[len(p.cum)-1]
	if total < 1 {
		// The one arrival of a fractional load comes at the shape's
		// centre of mass would be as good; its start is simpler to read.
		c = 0
	}
	// The segment [i, i+1] whose cumulative range holds c, skipping
	// empty ones (a step, a rate of zero).
	i := sort.Search(len(p.cum), func(j int) bool { return p.cum[j] > c }) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(p.pts)-1 {
		return p.pts[len(p.pts)-1].At, true
	}
	a, b := p.pts[i], p.pts[i+1]
	need := c - p.cum[i]
	if need <= 0 {
		return a.At, true
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
		disc := r0*r0 + 4*acc*need
		if disc < 0 {
			disc = 0
		}
		d = 2 * need / (r0 + math.Sqrt(disc))
	}
	if d > T {
		d = T
	}
	return a.At + time.Duration(d*float64(time.Second)), true
}

// Rate is the arrivals a second at t since the load's start.
func (p *Pacer) Rate(t time.Duration) float64 {
	for i := 1; i < len(p.pts); i++ {
		a, b := p.pts[i-1], p.pts[i]
		if t >= a.At && t < b.At {
			if b.At == a.At {
				continue
			}
			return a.PerSecond + (b.PerSecond-a.PerSecond)*float64(t-a.At)/float64(b.At-a.At)
		}
	}
	return 0
}
