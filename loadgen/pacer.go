package loadgen

import (
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
	shape *catalog.Shape // scaled
	cum   []float64      // cumulative count at each point
	count int64
}

// NewPacer returns the pacer of a shape with every rate multiplied by
// factor (the run's scale over its parts). The number of arrivals is the
// shape's count rounded to the nearest whole (catalog.Arrivals), and
// arrival k is due at the shape's catalog.Due: the planner reads the
// same schedule from the same functions.
func NewPacer(s *catalog.Shape, factor float64) *Pacer {
	p := &Pacer{}
	if s == nil || len(s.Points) == 0 || !(factor > 0) {
		return p
	}
	p.shape = s.Scaled(factor)
	p.cum = p.shape.Cumulative()
	p.count = catalog.Arrivals(p.cum[len(p.cum)-1])
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
func (p *Pacer) Span() time.Duration { return p.shape.Span() }

// Due returns when arrival k is due, since the load's start; ok is false
// past the last arrival.
func (p *Pacer) Due(k int64) (time.Duration, bool) {
	if k < 0 || k >= p.count {
		return 0, false
	}
	return p.shape.Due(p.cum, k), true
}

// Rate is the arrivals a second at t since the load's start.
func (p *Pacer) Rate(t time.Duration) float64 {
	if p.shape == nil {
		return 0
	}
	pts := p.shape.Points
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if t >= a.At && t < b.At {
			if b.At == a.At {
				continue
			}
			return a.PerSecond + (b.PerSecond-a.PerSecond)*float64(t-a.At)/float64(b.At-a.At)
		}
	}
	return 0
}
