package endpoint

import (
	"context"
	"math"
	"sync"
	"time"
)

// Bucket paces writes to a rate of units a second (a token bucket of a
// second's worth): the cap a setup write puts on itself, so that it
// leaves the target's capacity to what else runs.
type Bucket struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

// NewBucket returns a bucket of rate units a second, full.
func NewBucket(rate float64) *Bucket {
	return &Bucket{rate: rate, tokens: rate, last: time.Now()}
}

// Take waits until n units may be spent (a request larger than a
// second's worth waits for a full bucket and leaves it in debt).
func (b *Bucket) Take(ctx context.Context, n float64) error {
	for {
		b.mu.Lock()
		now := time.Now()
		b.tokens = math.Min(b.rate, b.tokens+now.Sub(b.last).Seconds()*b.rate)
		b.last = now
		if b.tokens >= n || b.tokens >= b.rate {
			b.tokens -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((n - b.tokens) / b.rate * float64(time.Second))
		b.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
