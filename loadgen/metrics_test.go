package loadgen

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestHistogramPercentiles records a skewed sample of latencies and
// compares the HDR percentiles with the exact ones: within the
// histogram's three significant digits.
func TestHistogramPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := newHist()
	var xs []int64
	for i := 0; i < 200000; i++ {
		// Log-normal around 1 ms, with a tail to seconds.
		v := int64(math.Exp(r.NormFloat64()*1.2+7)) + 1
		xs = append(xs, v)
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	for _, p := range []float64{50, 90, 99, 99.9, 100} {
		idx := int(math.Ceil(p/100*float64(len(xs)))) - 1
		// The exact percentile is the sample at the rank; HDR rounds the
		// rank to the nearest (one either side) and the value to its
		// bucket (0.1%).
		lo, hi := float64(xs[max(idx-1, 0)]), float64(xs[min(idx+1, len(xs)-1)])
		got := float64(h.ValueAtPercentile(p))
		if got < lo*(1-0.001) || got > hi*(1+0.001) {
			t.Errorf("p%g: HDR %v, exact %v (ranks either side %v..%v)", p, got, xs[idx], lo, hi)
		}
	}
	// Merging two halves' histograms gives the whole's percentiles.
	a, b := newHist(), newHist()
	for i, v := range xs {
		if i%2 == 0 {
			_ = a.RecordValue(v)
		} else {
			_ = b.RecordValue(v)
		}
	}
	ea, _ := decodeHist(encodeHist(a))
	eb, _ := decodeHist(encodeHist(b))
	ea.Merge(eb)
	for _, p := range []float64{50, 99, 99.9} {
		if ea.ValueAtPercentile(p) != h.ValueAtPercentile(p) {
			t.Errorf("merged p%g %d, whole %d", p, ea.ValueAtPercentile(p), h.ValueAtPercentile(p))
		}
	}
	if ea.TotalCount() != h.TotalCount() || ea.Max() != h.Max() {
		t.Errorf("merged count %d max %d, whole %d %d", ea.TotalCount(), ea.Max(), h.TotalCount(), h.Max())
	}
}
