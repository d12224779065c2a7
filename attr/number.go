package attr

import (
	"bytes"
	"errors"
	"math/big"
	"strings"
)

// DynamoDB stores numbers as decimals of at most MaxDigits significant
// digits whose magnitude is zero or lies between 1E-130 and
// 9.9999999999999999999999999999999999999E+125. The limits below are
// expressed on the form 0.d1d2...dn × 10^exp used by Number.
const (
	// MaxDigits is the number of significant digits DynamoDB keeps.
	MaxDigits = 38
	maxExp    = 126  // 9.99...E+125 = 0.999... × 10^126
	minExp    = -129 // 1E-130 = 0.1 × 10^-129
)

// The number errors carry DynamoDB's ValidationException wording, so an
// engine can return them verbatim.
var (
	ErrNotNumber  = errors.New("A value provided cannot be converted into a number")
	ErrTooPrecise = errors.New("Attempting to store more than 38 significant digits in a Number")
	ErrOverflow   = errors.New("Number overflow. Attempting to store a number with magnitude larger than supported range")
	ErrUnderflow  = errors.New("Number underflow. Attempting to store a number with magnitude smaller than supported range")
)

// Number is a valid DynamoDB number, held exactly as its significant
// digits and a decimal exponent: value = ±0.d1d2...dn × 10^exp. It is a
// fixed-size value type: parsing, comparing and copying do not allocate.
// The zero Number is 0.
type Number struct {
	neg bool
	n   uint8 // significant digits in dig; 0 means zero
	exp int16
	dig [MaxDigits]byte // ASCII digits, first and last not '0'
}

// decimal is the result of scanning number text before the range checks:
// n may exceed MaxDigits (only the first MaxDigits digits are kept) and
// exp is only bounded by saturation.
type decimal struct {
	neg bool
	n   int
	exp int
	dig [MaxDigits]byte
}

// expCap bounds exponents while scanning so that absurd exponents
// ("1E99999999999999999999") neither overflow nor wrap around.
const expCap = 1 << 24

// scan parses the syntax accepted by DynamoDB (and Java's BigDecimal):
// an optional sign, digits with an optional decimal point (at least one
// digit in all), and an optional exponent "e" or "E" with optional sign.
// Leading and trailing zeros are dropped.
func scan(text string, d *decimal) bool {
	*d = decimal{}
	i := 0
	if i < len(text) && (text[i] == '+' || text[i] == '-') {
		d.neg = text[i] == '-'
		i++
	}
	mantDigits, intDigits, firstSig := 0, 0, -1
	pendingZeros := 0
	point := false
	for ; i < len(text); i++ {
		c := text[i]
		if c == '.' {
			if point {
				return false
			}
			point = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if !point {
			intDigits++
		}
		if c == '0' {
			if firstSig >= 0 {
				pendingZeros++
			}
			mantDigits++
			continue
		}
		if firstSig < 0 {
			firstSig = mantDigits
		}
		for ; pendingZeros > 0; pendingZeros-- {
			d.push('0')
		}
		d.push(c)
		mantDigits++
	}
	if mantDigits == 0 {
		return false
	}
	e := 0
	if i < len(text) {
		if text[i] != 'e' && text[i] != 'E' {
			return false
		}
		i++
		eneg := false
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			eneg = text[i] == '-'
			i++
		}
		if i == len(text) {
			return false
		}
		for ; i < len(text); i++ {
			c := text[i]
			if c < '0' || c > '9' {
				return false
			}
			if e < expCap {
				e = e*10 + int(c-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	if d.n == 0 {
		d.neg = false
		return true
	}
	d.exp = intDigits - firstSig + e
	return true
}

func (d *decimal) push(c byte) {
	if d.n < MaxDigits {
		d.dig[d.n] = c
	}
	d.n++
}

// check applies DynamoDB's range and precision limits, range first as
// DynamoDB reports them.
func (d *decimal) check() error {
	switch {
	case d.n == 0:
		return nil
	case d.exp > maxExp:
		return ErrOverflow
	case d.exp < minExp:
		return ErrUnderflow
	case d.n > MaxDigits:
		return ErrTooPrecise
	}
	return nil
}

func (d *decimal) number() Number {
	return Number{neg: d.neg, n: uint8(d.n), exp: int16(d.exp), dig: d.dig}
}

// ParseNumber parses number text as DynamoDB does, returning one of the
// Err* number errors for text DynamoDB would reject.
func ParseNumber(text string) (Number, error) {
	var d decimal
	if !scan(text, &d) {
		return Number{}, ErrNotNumber
	}
	if err := d.check(); err != nil {
		return Number{}, err
	}
	return d.number(), nil
}

// ValidNumber reports whether DynamoDB accepts text as a number.
func ValidNumber(text string) error {
	var d decimal
	if !scan(text, &d) {
		return ErrNotNumber
	}
	return d.check()
}

// CanonicalNumber returns the text DynamoDB sends back for a stored
// number: plain decimal notation without exponent, redundant zeros or
// plus sign ("1.50" -> "1.5", "1E2" -> "100", "-0" -> "0").
func CanonicalNumber(text string) (string, error) {
	n, err := ParseNumber(text)
	if err != nil {
		return "", err
	}
	return n.String(), nil
}

// IsZero reports whether n is zero.
func (n Number) IsZero() bool { return n.n == 0 }

// Negative reports whether n is below zero.
func (n Number) Negative() bool { return n.neg }

// Digits returns the significant digits (no leading or trailing zeros;
// "" for zero).
func (n Number) Digits() string { return string(n.dig[:n.n]) }

// Exp returns the decimal exponent e of n = ±0.Digits × 10^e.
func (n Number) Exp() int { return int(n.exp) }

// String returns the canonical text of n (see CanonicalNumber).
func (n Number) String() string {
	if n.n == 0 {
		return "0"
	}
	var b strings.Builder
	digits, exp := int(n.n), int(n.exp)
	size := digits + 2
	if exp <= 0 {
		size += 1 - exp
	} else if exp > digits {
		size += exp - digits
	}
	b.Grow(size)
	if n.neg {
		b.WriteByte('-')
	}
	switch {
	case exp <= 0:
		b.WriteString("0.")
		for i := exp; i < 0; i++ {
			b.WriteByte('0')
		}
		b.Write(n.dig[:digits])
	case exp >= digits:
		b.Write(n.dig[:digits])
		for i := digits; i < exp; i++ {
			b.WriteByte('0')
		}
	default:
		b.Write(n.dig[:exp])
		b.WriteByte('.')
		b.Write(n.dig[exp:digits])
	}
	return b.String()
}

// Cmp compares n and m numerically: -1, 0 or +1.
func (n Number) Cmp(m Number) int {
	return cmpDec(n.neg, n.n == 0, int(n.exp), n.dig[:n.n], m.neg, m.n == 0, int(m.exp), m.dig[:m.n])
}

func cmpDec(aneg, azero bool, aexp int, adig []byte, bneg, bzero bool, bexp int, bdig []byte) int {
	as, bs := sign(aneg, azero), sign(bneg, bzero)
	if as != bs {
		if as < bs {
			return -1
		}
		return 1
	}
	if as == 0 {
		return 0
	}
	mag := 0
	switch {
	case aexp != bexp:
		if aexp < bexp {
			mag = -1
		} else {
			mag = 1
		}
	default:
		mag = bytes.Compare(adig, bdig)
	}
	return mag * as
}

func sign(neg, zero bool) int {
	switch {
	case zero:
		return 0
	case neg:
		return -1
	}
	return 1
}

// CompareNumbers compares two number texts exactly: -1, 0 or +1
// ("1.0" equals "1", "1E2" equals "100"). It does not allocate. Texts
// that are not valid numbers (see ParseNumber) order after every valid
// number and among themselves by their bytes, so that the order stays
// total; callers validate numbers before relying on their order.
func CompareNumbers(a, b string) int {
	var x, y decimal
	aok := scan(a, &x) && x.check() == nil
	bok := scan(b, &y) && y.check() == nil
	switch {
	case aok && bok:
		return cmpDec(x.neg, x.n == 0, x.exp, x.dig[:x.n], y.neg, y.n == 0, y.exp, y.dig[:y.n])
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// SignificantDigits counts the significant digits of number text after
// trimming leading and trailing zeros, split at the decimal point:
// intSig left of it, fracSig right of it ("100.5" -> 3, 1; "1E125" -> 1,
// 0; "0.0000001" -> 0, 1). Item sizes depend on these counts. Text that
// is not a number reports zero counts and zero false; text beyond the
// range limits is still counted.
func SignificantDigits(text string) (intSig, fracSig int, negative, zero bool) {
	var d decimal
	if !scan(text, &d) {
		return 0, 0, false, false
	}
	if d.n == 0 {
		return 0, 0, false, true
	}
	switch {
	case d.exp <= 0:
		intSig = 0
	case d.exp >= d.n:
		intSig = d.n
	default:
		intSig = d.exp
	}
	return intSig, d.n - intSig, d.neg, false
}

// AddNumbers returns a+b in canonical text. The sum is exact; a result
// that needs more than 38 significant digits or leaves the supported
// range fails with the same errors as storing such a number would.
func AddNumbers(a, b string) (string, error) { return apply(a, b, Number.Add) }

// SubNumbers returns a-b in canonical text, like AddNumbers.
func SubNumbers(a, b string) (string, error) { return apply(a, b, Number.Sub) }

func apply(a, b string, op func(Number, Number) (Number, error)) (string, error) {
	x, err := ParseNumber(a)
	if err != nil {
		return "", err
	}
	y, err := ParseNumber(b)
	if err != nil {
		return "", err
	}
	z, err := op(x, y)
	if err != nil {
		return "", err
	}
	return z.String(), nil
}

// Neg returns -n.
func (n Number) Neg() Number {
	if n.n != 0 {
		n.neg = !n.neg
	}
	return n
}

// Sub returns n-m, see Add.
func (n Number) Sub(m Number) (Number, error) { return n.Add(m.Neg()) }

// Add returns n+m exactly, or an error when the sum does not fit a
// DynamoDB number.
func (n Number) Add(m Number) (Number, error) {
	if n.n == 0 {
		return m, nil
	}
	if m.n == 0 {
		return n, nil
	}
	// Write both as integer coefficient × 10^low and add coefficients.
	low := min(int(n.exp)-int(n.n), int(m.exp)-int(m.n))
	x := n.coefficient(low)
	y := m.coefficient(low)
	x.Add(x, y)
	if x.Sign() == 0 {
		return Number{}, nil
	}
	var d decimal
	text := x.String()
	if !scan(text, &d) {
		return Number{}, ErrNotNumber // unreachable: big.Int text is a number
	}
	if d.n != 0 {
		d.exp += low
	}
	if err := d.check(); err != nil {
		return Number{}, err
	}
	return d.number(), nil
}

// coefficient returns n as an integer scaled by 10^-low.
func (n Number) coefficient(low int) *big.Int {
	c, _ := new(big.Int).SetString(string(n.dig[:n.n]), 10)
	if shift := int(n.exp) - int(n.n) - low; shift > 0 {
		c.Mul(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	}
	if n.neg {
		c.Neg(c)
	}
	return c
}
