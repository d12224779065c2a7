package calc

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Mode is how a result is rounded to its decimals.
type Mode string

// Rounding modes.
const (
	HalfEven Mode = "halfEven" // to the nearest; a tie to the even digit (banker's)
	HalfUp   Mode = "halfUp"   // to the nearest; a tie away from zero
	Down     Mode = "down"     // toward zero (truncation)
	Up       Mode = "up"       // away from zero
)

// Modes lists the rounding modes, for messages and docs.
var Modes = []Mode{HalfEven, HalfUp, Down, Up}

// MaxDecimals bounds the decimals a result is rounded to.
const MaxDecimals = 12

// Round rounds x to decimals digits after the point by mode. It rounds
// the shortest decimal that reads back as x (2.675, whose nearest double
// is 2.67499999..., is the 2.675 a person wrote), so that a formula's
// rounding is the one its author does by hand.
func Round(x float64, decimals int, mode Mode) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || decimals < 0 || decimals > MaxDecimals {
		return x
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok {
		return x
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	neg := r.Sign() < 0
	r.Abs(r)
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		// twice the remainder against the denominator: below, at or
		// above one half.
		half := new(big.Int).Lsh(rem, 1).Cmp(r.Denom())
		switch mode {
		case Up:
			q.Add(q, big.NewInt(1))
		case HalfUp:
			if half >= 0 {
				q.Add(q, big.NewInt(1))
			}
		case HalfEven:
			if half > 0 || (half == 0 && q.Bit(0) == 1) {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	out := new(big.Rat).SetFrac(q, scale)
	if neg {
		out.Neg(out)
	}
	f, _ := out.Float64()
	return f
}

// ParseMode reads a rounding mode's name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown rounding %q; expected halfEven, halfUp, down or up", s)
}
