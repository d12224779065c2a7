package loadgen

import (
	"context"
	"sync"
	"time"
)

// Wall is the real clock arrivals are paced against. Tests give a fake
// one; nothing else in the runner reads the time of day.
type Wall interface {
	Now() time.Time
	// Sleep waits for d, or until wake receives, or ctx is done.
	Sleep(ctx context.Context, d time.Duration, wake <-chan struct{})
}

// realWall is the machine's clock.
type realWall struct{}

func (realWall) Now() time.Time { return time.Now() }

func (realWall) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
	}
}

// Clock is the scenario's clock: the civil day's midnight (origin) plus
// an offset that runs Speed times faster than the wall while arrivals are
// due, and jumps over the gaps when nothing is in flight (from the end of
// the night's batch to 08:00). With Speed 0 it moves only by jumps: each
// instant lasts as long as the arrivals due at it take. The engine and its
// throughput model read it, so a compressed run meets the limits at the
// same instants of the scenario as a run in real time.
type Clock struct {
	mu       sync.Mutex
	origin   time.Time
	off      time.Duration // the offset at wallBase
	wallBase time.Time
	speed    float64
	wall     Wall
}

func newClock(origin time.Time, start time.Duration, speed float64, wall Wall) *Clock {
	return &Clock{origin: origin, off: start, wallBase: wall.Now(), speed: speed, wall: wall}
}

// Offset is the time since the origin.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offsetLocked()
}

func (c *Clock) offsetLocked() time.Duration {
	if c.speed <= 0 {
		return c.off
	}
	return c.off + time.Duration(float64(c.wall.Now().Sub(c.wallBase))*c.speed)
}

// Now is the scenario's instant.
func (c *Clock) Now() time.Time { return c.origin.Add(c.Offset()) }

// jump moves the clock forward to off (never back).
func (c *Clock) jump(off time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.offsetLocked(); off < cur {
		off = cur
	}
	c.off, c.wallBase = off, c.wall.Now()
}

// start sets the clock running at speed from now on: it stands at the
// scenario's start while the population loads, however long that takes.
func (c *Clock) start(speed float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off, c.wallBase, c.speed = c.offsetLocked(), c.wall.Now(), speed
}

// wallUntil is the wall time until the clock reads off.
func (c *Clock) wallUntil(off time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := off - c.offsetLocked()
	if c.speed <= 0 || d <= 0 {
		return 0
	}
	return time.Duration(float64(d) / c.speed)
}

// wallOf converts a span of the scenario clock to wall time (itself when
// the clock only jumps).
func (c *Clock) wallOf(d time.Duration) time.Duration {
	if c.speed <= 0 {
		return d
	}
	return time.Duration(float64(d) / c.speed)
}
