package throughput

import (
	"sync"
	"time"
)

// Lag delays index mutations so that index reads see base-table writes
// only after a propagation delay, as DynamoDB's asynchronous global
// secondary indexes do. The engine pushes each index mutation when the
// base write commits and drains the due ones before serving an index
// read; mutations come out in the order they went in, so two changes to
// one index entry apply in order. It is safe for concurrent use and
// never sleeps: time passes only by the clock.
type Lag[T any] struct {
	lag time.Duration
	now func() time.Time

	mu    sync.Mutex
	queue []pending[T]
	head  int
}

type pending[T any] struct {
	due time.Time
	v   T
}

// NewLag returns a queue releasing values lag after they were pushed;
// now is the clock (nil means time.Now). A lag of zero or less releases
// every value at the next Drain.
func NewLag[T any](lag time.Duration, now func() time.Time) *Lag[T] {
	if now == nil {
		now = time.Now
	}
	return &Lag[T]{lag: max(lag, 0), now: now}
}

// Delay is the queue's lag.
func (l *Lag[T]) Delay() time.Duration { return l.lag }

// Push queues v, due lag from now.
func (l *Lag[T]) Push(v T) {
	due := l.now().Add(l.lag)
	l.mu.Lock()
	l.queue = append(l.queue, pending[T]{due: due, v: v})
	l.mu.Unlock()
}

// Drain passes every due value to apply, oldest first, and returns how
// many it passed. apply runs with the queue locked, so that concurrent
// drains cannot apply values out of order; it must not call back into
// the queue.
func (l *Lag[T]) Drain(apply func(T)) int {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for l.head < len(l.queue) && !l.queue[l.head].due.After(now) {
		v := l.queue[l.head].v
		var zero pending[T]
		l.queue[l.head] = zero
		l.head++
		n++
		apply(v)
	}
	l.compact()
	return n
}

// Flush passes every queued value to apply, due or not (shutdown, or a
// strongly consistent view for tests), and returns how many.
func (l *Lag[T]) Flush(apply func(T)) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for ; l.head < len(l.queue); l.head++ {
		v := l.queue[l.head].v
		var zero pending[T]
		l.queue[l.head] = zero
		n++
		apply(v)
	}
	l.compact()
	return n
}

// Len is how many values wait.
func (l *Lag[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue) - l.head
}

// Next is when the oldest waiting value becomes due; ok is false when
// nothing waits.
func (l *Lag[T]) Next() (due time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head == len(l.queue) {
		return time.Time{}, false
	}
	return l.queue[l.head].due, true
}

// compact reclaims the drained front of the queue.
func (l *Lag[T]) compact() {
	switch {
	case l.head == len(l.queue):
		l.queue, l.head = l.queue[:0], 0
	case l.head > 64 && l.head*2 > len(l.queue):
		n := copy(l.queue, l.queue[l.head:])
		clear(l.queue[n:])
		l.queue, l.head = l.queue[:n], 0
	}
}
