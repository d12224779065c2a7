package loadgen

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// The scheduler is the open model: arrivals come from the pacers (and
// from events: follow-ups, duplicates, dead-letter replays) at their due
// times on the scenario clock and are started then, whatever is still in
// flight; a response is never waited for before the next arrival. The
// only bound is the number of arrivals in flight: when every slot is
// taken the next arrival starts as soon as one frees, late, and is
// counted late with how late it was. Nothing due is ever dropped.

// event is one arrival due at an instant of the scenario clock.
type event struct {
	due time.Duration // since the clock's origin
	seq int64         // FIFO among equal due times
	a   *arrival
	// next, when set, is called as the event is taken, to schedule the
	// pacer's next arrival.
	next func() *event
}

type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].due != h[j].due {
		return h[i].due < h[j].due
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *eventHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return x
}

// scheduler runs events at their due times.
type scheduler struct {
	clock *Clock
	wall  Wall
	// lateAfter is how late (wall time) an arrival may start and still
	// count as on time; jumpAfter how long a wait with nothing in flight
	// must be before the clock jumps instead.
	lateAfter, jumpAfter time.Duration

	mu       sync.Mutex
	q        eventHeap
	seq      int64
	inflight int
	signal   chan struct{}
	slots    chan struct{}

	// start runs an event's arrival; it must call done when the arrival
	// has finished (after scheduling what it causes).
	start func(ev *event, behind time.Duration)
}

func newScheduler(clock *Clock, wall Wall, maxInflight int) *scheduler {
	if maxInflight < 1 {
		maxInflight = 1
	}
	return &scheduler{clock: clock, wall: wall, lateAfter: 10 * time.Millisecond, jumpAfter: 500 * time.Millisecond,
		signal: make(chan struct{}, 1), slots: make(chan struct{}, maxInflight)}
}

// push schedules an event; safe from any goroutine.
func (s *scheduler) push(ev *event) {
	s.mu.Lock()
	s.seq++
	ev.seq = s.seq
	heap.Push(&s.q, ev)
	s.mu.Unlock()
	s.notify()
}

func (s *scheduler) notify() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// done frees the slot of a finished arrival.
func (s *scheduler) done() {
	<-s.slots
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
	s.notify()
}

// pending returns the events not yet started (an interrupted run counts
// the due ones as offered, not attempted).
func (s *scheduler) pending() []*event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*event(nil), s.q...)
}

// run takes events in due order until none is left and none is in
// flight, or ctx is done.
func (s *scheduler) run(ctx context.Context) {
	for ctx.Err() == nil {
		s.mu.Lock()
		var ev *event
		if len(s.q) > 0 {
			ev = s.q[0]
		}
		inflight := s.inflight
		s.mu.Unlock()
		if ev == nil {
			if inflight == 0 {
				return
			}
			s.wait(ctx)
			continue
		}
		if ev.due > s.clock.Offset() {
			if s.clock.speed <= 0 {
				// The clock moves once the instant's arrivals are done.
				if inflight > 0 {
					s.wait(ctx)
					continue
				}
				s.clock.jump(ev.due)
				continue
			}
			w := s.clock.wallUntil(ev.due)
			if w > s.jumpAfter && inflight == 0 {
				s.clock.jump(ev.due)
				continue
			}
			s.wall.Sleep(ctx, w, s.signal)
			continue
		}
		s.mu.Lock()
		if len(s.q) == 0 || s.q[0] != ev {
			// An earlier event arrived meanwhile: take that one first.
			s.mu.Unlock()
			continue
		}
		heap.Pop(&s.q)
		s.mu.Unlock()
		if ev.next != nil {
			if n := ev.next(); n != nil {
				s.push(n)
			}
		}
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			s.push(ev)
			return
		}
		s.mu.Lock()
		s.inflight++
		s.mu.Unlock()
		behind := s.clock.wallOf(s.clock.Offset() - ev.due)
		if behind < 0 {
			behind = 0
		}
		s.start(ev, behind)
	}
}

func (s *scheduler) wait(ctx context.Context) {
	select {
	case <-s.signal:
	case <-ctx.Done():
	}
}

// drain waits until nothing is in flight, or ctx is done.
func (s *scheduler) drain(ctx context.Context) {
	for {
		s.mu.Lock()
		n := s.inflight
		s.mu.Unlock()
		if n == 0 || ctx.Err() != nil {
			return
		}
		s.wait(ctx)
	}
}
