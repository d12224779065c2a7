package estimate

import (
	"fmt"
	"math"
)

// USD formats dollars for a report: cents from US$1, four significant
// digits below, "0" for nothing.
func USD(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.Abs(f) >= 0.01:
		c := math.Round(f * 100)
		return Num(math.Trunc(c/100)) + fmt.Sprintf(".%02d", int(math.Abs(math.Mod(c, 100))))
	case math.Abs(f) >= 0.0001:
		return fmt.Sprintf("%.4f", f)
	}
	return "<0.0001"
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// Pct formats a share (0.55 for 55%) as a percent rounded to two
// decimals with no trailing zeros ("55%", "2.5%"), so every report writes
// a percent one way: a share computed as 0.55 is 55.00000000000001 once
// multiplied, which Num alone would print "55.00" beside a "5".
func Pct(share float64) string {
	return Num(round2(share*100)) + "%"
}
