package estimate

import "testing"

// A percent is written one way: rounded to two decimals, no trailing
// zeros, whatever float noise the multiplication left.
func TestPct(t *testing.T) {
	for _, c := range []struct {
		share float64
		want  string
	}{
		{0.55, "55%"},
		{0.05, "5%"},
		{0.7, "70%"},
		{0.025, "2.5%"},
		{1.0 / 3, "33.33%"},
		{0.99999999, "100%"},
		{0, "0%"},
	} {
		if got := Pct(c.share); got != c.want {
			t.Errorf("Pct(%v) = %q, want %q", c.share, got, c.want)
		}
	}
}
