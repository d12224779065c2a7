package dataset

import (
	"math"
	"math/bits"
)

// Every value of the population is a function of the seed and of the
// item's address (its root entity and index, then each child's entity and
// ordinal), never of the order in which workers happen to run. An address
// is hashed into a 64-bit key; each attribute of the item draws from its
// own stream, keyed by the item key and the attribute, so adding a rule to
// one attribute never shifts another attribute's values.

// mix is the SplitMix64 finaliser: a bijection of 64-bit words whose
// output bits each depend on every input bit.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// golden is 2^64 / the golden ratio, SplitMix64's increment.
const golden = 0x9e3779b97f4a7c15

// key2 combines two words into one key.
func key2(a, b uint64) uint64 { return mix(a ^ mix(b+golden)) }

// attemptKeys are mix(attempt + golden) for the attempts an item has:
// the inner half of key2(x, attempt), once.
var attemptKeys = func() (k [maxRetries + 1]uint64) {
	for i := range k {
		k[i] = mix(uint64(i) + golden)
	}
	return k
}()

// slotKey is key2(key2(item, slot id), attempt), with key2's inner
// halves worked out once: a slot's stream, drawn for every value.
func slotKey(item uint64, s *slot, attempt uint64) uint64 {
	a := mix(item ^ s.idKey)
	if attempt < uint64(len(attemptKeys)) {
		return mix(a ^ attemptKeys[attempt])
	}
	return key2(a, attempt)
}

// hashString is FNV-1a over s, then mixed: a stable key for names.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// rng is a SplitMix64 stream: tiny, fast, and good enough for synthetic
// data (it passes BigCrush). The zero value is a valid stream.
type rng struct{ s uint64 }

func newRNG(key uint64) rng { return rng{s: key} }

// Uint64 returns the next word of the stream (also rand.Source for
// gofakeit).
func (r *rng) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

// Intn returns a uniform integer in [0, n); 0 when n <= 0. Lemire's
// multiply-shift, without the rejection step: the bias is below 2^-32 for
// the n a population uses.
func (r *rng) Intn(n int64) int64 {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int64(hi)
}

// Range returns a uniform integer in [lo, hi].
func (r *rng) Range(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Intn(hi-lo+1)
}

// Float returns a uniform float64 in [0, 1).
func (r *rng) Float() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Normal returns a standard normal deviate (Box-Muller).
func (r *rng) Normal() float64 {
	u := r.Float()
	if u < 1e-300 {
		u = 1e-300
	}
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.Float())
}

// Poisson returns a Poisson deviate of mean m: Knuth's product method
// for small means, a rounded normal approximation for large ones.
func (r *rng) Poisson(m float64) int64 {
	if m <= 0 {
		return 0
	}
	if m > 30 {
		n := math.Round(m + math.Sqrt(m)*r.Normal())
		if n < 0 {
			return 0
		}
		return int64(n)
	}
	l, k, p := math.Exp(-m), int64(0), 1.0
	for {
		p *= r.Float()
		if p <= l {
			return k
		}
		k++
	}
}
