package throughput

// bucket is a token bucket refilled lazily from the clock: rate tokens a
// second, at most depth of them. Times are nanoseconds.
type bucket struct {
	tokens float64
	rate   float64
	depth  float64
	last   int64
	// The second a batch admission last decided on it, and the fraction
	// of its demand it passed then (AdmitSecond's starting point).
	batchSec  int64
	batchPass float64
}

// refill adds what accrued since the last refill.
func (b *bucket) refill(now int64) {
	if now <= b.last {
		return
	}
	b.tokens += b.rate * float64(now-b.last) / 1e9
	if b.tokens > b.depth {
		b.tokens = b.depth
	}
	b.last = now
}

// fits reports whether units can be taken now. A request larger than the
// whole bucket (a 400 KB item against a scaled-down cap) passes when the
// bucket is full and leaves it in debt, so that it is never refused for
// ever; it is then paid back before anything else passes.
func (b *bucket) fits(units float64) bool {
	if b.depth <= 0 {
		return units <= 0 // no capacity at all (0 provisioned)
	}
	need := units
	if need > b.depth {
		need = b.depth
	}
	return b.tokens >= need-1e-9*(1+need)
}

// take removes units (possibly into debt).
func (b *bucket) take(units float64) { b.tokens -= units }

// reset sets a new rate and depth, keeping the tokens up to the depth.
func (b *bucket) reset(rate, depth float64) {
	b.rate, b.depth = rate, depth
	if b.tokens > depth {
		b.tokens = depth
	}
}
