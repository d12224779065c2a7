package loadgen

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

func even(rate float64, d time.Duration) *catalog.Shape {
	return &catalog.Shape{Kind: "even", Points: []catalog.RatePoint{{At: 0, PerSecond: rate}, {At: d, PerSecond: rate}}}
}

func TestPacerEven(t *testing.T) {
	p := NewPacer(even(10, 2*time.Second), 1)
	if p.Count() != 20 {
		t.Fatalf("count %d, want 20", p.Count())
	}
	for k := int64(0); k < 20; k++ {
		d, ok := p.Due(k)
		if !ok || d != time.Duration(k)*100*time.Millisecond {
			t.Fatalf("arrival %d due %v %v, want %v", k, d, ok, time.Duration(k)*100*time.Millisecond)
		}
	}
	if _, ok := p.Due(20); ok {
		t.Fatal("an arrival past the count")
	}
	// Scaled: the same shape at a tenth has a tenth of the arrivals, at a
	// tenth of the rate.
	q := NewPacer(even(10, 2*time.Second), 0.1)
	if q.Count() != 2 {
		t.Fatalf("scaled count %d, want 2", q.Count())
	}
	if d, _ := q.Due(1); d != time.Second {
		t.Fatalf("scaled arrival 1 due %v, want 1s", d)
	}
}

func TestPacerRamp(t *testing.T) {
	// From 0 to 100 a second over 10 s: 500 arrivals, the cumulative count
	// at t is 5 t^2, so arrival k is due at sqrt(k/5).
	s := &catalog.Shape{Kind: "ramp", Points: []catalog.RatePoint{{At: 0, PerSecond: 0}, {At: 10 * time.Second, PerSecond: 100}}}
	p := NewPacer(s, 1)
	if p.Count() != 500 {
		t.Fatalf("count %d", p.Count())
	}
	for _, k := range []int64{1, 5, 20, 125, 320, 499} {
		d, _ := p.Due(k)
		want := time.Duration(sqrt(float64(k)/5) * float64(time.Second))
		if diff := d - want; diff > time.Microsecond || diff < -time.Microsecond {
			t.Errorf("arrival %d due %v, want %v", k, d, want)
		}
	}
	// Due times never go back.
	var last time.Duration
	for k := int64(0); k < p.Count(); k++ {
		d, _ := p.Due(k)
		if d < last {
			t.Fatalf("arrival %d due %v before %v", k, d, last)
		}
		last = d
	}
}

func TestPacerSteps(t *testing.T) {
	// 10/s for 1 s, then nothing for 1 s, then 20/s for 1 s (a burst).
	s := &catalog.Shape{Kind: "steps", Points: []catalog.RatePoint{
		{At: 0, PerSecond: 10}, {At: time.Second, PerSecond: 10}, {At: time.Second, PerSecond: 0},
		{At: 2 * time.Second, PerSecond: 0}, {At: 2 * time.Second, PerSecond: 20}, {At: 3 * time.Second, PerSecond: 20}}}
	p := NewPacer(s, 1)
	if p.Count() != 30 {
		t.Fatalf("count %d", p.Count())
	}
	for k := int64(0); k < 30; k++ {
		d, _ := p.Due(k)
		if d >= time.Second && d < 2*time.Second {
			t.Fatalf("arrival %d due %v, in the gap", k, d)
		}
	}
	if d, _ := p.Due(10); d != 2*time.Second {
		t.Fatalf("first of the burst due %v", d)
	}
	if d, _ := p.Due(11); d != 2*time.Second+50*time.Millisecond {
		t.Fatalf("second of the burst due %v", d)
	}
}

func sqrt(x float64) float64 {
	z := x
	if z == 0 {
		return 0
	}
	for i := 0; i < 60; i++ {
		z = (z + x/z) / 2
	}
	return z
}

// fakeWall is a wall clock that moves only when the scheduler sleeps (or
// a test advances it), so the schedule is exact and no test depends on
// timing.
type fakeWall struct {
	mu  sync.Mutex
	now time.Time
}

func (w *fakeWall) Now() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now }
func (w *fakeWall) Sleep(_ context.Context, d time.Duration, _ <-chan struct{}) {
	w.advance(d)
}
func (w *fakeWall) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	w.mu.Lock()
	w.now = w.now.Add(d)
	w.mu.Unlock()
}

// TestSchedulerOnTimeAndLate paces 20 arrivals at 10 a second under a
// fake clock: each starts at its due instant; then with one slot and
// every arrival holding it 250 ms, they start late, each counted with how
// late it was, and none is dropped.
func TestSchedulerOnTimeAndLate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		slots    int
		hold     time.Duration
		wantLate int
	}{{"on time", 8, 0, 0}, {"late", 1, 250 * time.Millisecond, 19}} {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeWall{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			clock := newClock(w.now, 0, 1, w)
			s := newScheduler(clock, w, tc.slots)
			p := NewPacer(even(10, 2*time.Second), 1)
			var starts []time.Duration
			var behinds []time.Duration
			var next func(k int64) *event
			next = func(k int64) *event {
				due, ok := p.Due(k)
				if !ok {
					return nil
				}
				return &event{due: due, next: func() *event { return next(k + 1) }}
			}
			s.push(next(0))
			s.start = func(ev *event, behind time.Duration) {
				starts = append(starts, clock.Offset())
				behinds = append(behinds, behind)
				// The arrival runs synchronously here: it holds its slot
				// for tc.hold of the fake wall, then frees it.
				w.advance(tc.hold)
				go s.done()
			}
			s.run(context.Background())
			if len(starts) != 20 {
				t.Fatalf("%d arrivals started, want 20", len(starts))
			}
			late := 0
			for k, st := range starts {
				due, _ := p.Due(int64(k))
				if st < due {
					t.Fatalf("arrival %d started at %v, before its due %v", k, st, due)
				}
				if behinds[k] > s.lateAfter {
					late++
				}
				if tc.hold == 0 && st != due {
					t.Fatalf("arrival %d started at %v, due %v", k, st, due)
				}
			}
			if late != tc.wantLate {
				t.Fatalf("%d late, want %d (behind %v)", late, tc.wantLate, behinds)
			}
		})
	}
}
