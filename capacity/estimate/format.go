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
