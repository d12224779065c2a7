package throughput

import (
	"hash/fnv"
	"math/bits"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var epoch = time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)

// keyHash places a test key: FNV-1a, then a 64-bit finalizer so that the
// high bits spread.
func keyHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	x := h.Sum64()
	x ^= x >> 31
	x *= 0x7fb5d329728ea185
	x ^= x >> 27
	x *= 0x81dadef4bc2dd44d
	x ^= x >> 33
	return x
}

// spread is the i-th of a sequence of hashes that covers the key space
// evenly in every window (the bit-reversed counter).
func spread(i int) uint64 { return bits.Reverse64(uint64(i)) }

func newModel(t testing.TB, c Config) (*Model, *ManualClock) {
	t.Helper()
	clk := NewManualClock(epoch)
	c.Now = clk.Now
	m, err := New(c)
	require.NoError(t, err)
	return m, clk
}

// tally counts admissions and throttles and keeps the first throttle.
type tally struct {
	admitted, throttled int
	first               *Throttle
	firstAt             time.Duration
}

func (t *tally) ratio() float64 { return float64(t.throttled) / float64(t.admitted+t.throttled) }

// drive issues rate requests a second for d, advancing the clock between
// them; send makes request i.
func drive(clk *ManualClock, rate float64, d time.Duration, send func(i int) *Throttle) tally {
	var out tally
	step := time.Duration(float64(time.Second) / rate)
	start := clk.Now()
	n := int(d.Seconds() * rate)
	for i := range n {
		if th := send(i); th != nil {
			out.throttled++
			if out.first == nil {
				out.first, out.firstAt = th, clk.Now().Sub(start)
			}
		} else {
			out.admitted++
		}
		clk.Advance(step)
	}
	return out
}
