package loadgen

import "testing"

// TestSustained checks the demand an expectation reads: the busiest
// window of 1/scale seconds, averaged, gaps counted as idle seconds.
func TestSustained(t *testing.T) {
	for _, c := range []struct {
		scale float64
		want  int
	}{{1, 1}, {2, 1}, {0.5, 2}, {0.01, 100}, {0.003, 334}} {
		if got := sustainWindow(c.scale); got != c.want {
			t.Errorf("sustainWindow(%v) = %d, want %d", c.scale, got, c.want)
		}
	}
	secs := map[int64][2]float64{
		10: {4, 1}, 11: {0, 1}, 12: {8, 1}, 15: {2, 9}, 16: {2, 0},
	}
	for _, c := range []struct {
		write  bool
		window int
		want   float64
	}{
		{true, 1, 8},          // the busiest second
		{true, 3, 4},          // 10..12: (4+0+8)/3
		{true, 4, 3},          // 12..15 (8+0+0+2) or 10..13 (12): 12/4
		{true, 100, 16.0 / 7}, // longer than the span 10..16: over 7 s
		{false, 2, 4.5},       // 15..16 reads (9+0)/2 or 14..15: 9/2
		{false, 7, 12.0 / 7},  // the whole span
	} {
		if got := sustained(secs, c.write, c.window); got != c.want {
			t.Errorf("sustained(write=%v, %d) = %v, want %v", c.write, c.window, got, c.want)
		}
	}
	if got := sustained(nil, true, 5); got != 0 {
		t.Errorf("no seconds: %v", got)
	}
}
