package attr

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNumberValid(t *testing.T) {
	nines38 := strings.Repeat("9", 38)
	cases := []struct{ in, canon string }{
		{"0", "0"},
		{"-0", "0"},
		{"+0", "0"},
		{"0.000", "0"},
		{"0E999999999999999999", "0"},
		{"1", "1"},
		{"+1", "1"},
		{"-1", "-1"},
		{"1.50", "1.5"},
		{"001.500", "1.5"},
		{"1E2", "100"},
		{"1e2", "100"},
		{"1E+2", "100"},
		{"15E-1", "1.5"},
		{"-2.5e-3", "-0.0025"},
		{".5", "0.5"},
		{"5.", "5"},
		{"100.5", "100.5"},
		{"1000", "1000"},
		{"0.0000001", "0.0000001"},
		{"123.456E1", "1234.56"},
		{"123.456E3", "123456"},
		{"123.456E-3", "0.123456"},
		{nines38, nines38},
		{"0." + nines38, "0." + nines38},
		{"1" + strings.Repeat("0", 60), "1" + strings.Repeat("0", 60)},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1"},
		{"-1E-130", "-0." + strings.Repeat("0", 129) + "1"},
		{"9.9999999999999999999999999999999999999E+125", nines38 + strings.Repeat("0", 88)},
		{"-9.9999999999999999999999999999999999999E+125", "-" + nines38 + strings.Repeat("0", 88)},
		{"1E125", "1" + strings.Repeat("0", 125)},
		{"10E124", "1" + strings.Repeat("0", 125)},
		{"0.01E-128", "0." + strings.Repeat("0", 129) + "1"},
		{"1" + strings.Repeat("0", 50) + "1", ""}, // 52 digits, but only leading/trailing zeros are free
	}
	for _, c := range cases {
		n, err := ParseNumber(c.in)
		if c.canon == "" {
			assert.ErrorIs(t, err, ErrTooPrecise, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.canon, n.String(), c.in)
		got, err := CanonicalNumber(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.canon, got, c.in)
		assert.NoError(t, ValidNumber(c.in))
		// The canonical text parses to the same number.
		again, err := ParseNumber(got)
		require.NoError(t, err, got)
		assert.Equal(t, n, again, c.in)
	}
}

func TestParseNumberErrors(t *testing.T) {
	cases := []struct {
		in   string
		want error
	}{
		{"", ErrNotNumber},
		{"-", ErrNotNumber},
		{"+", ErrNotNumber},
		{".", ErrNotNumber},
		{"-.", ErrNotNumber},
		{"1.2.3", ErrNotNumber},
		{"1e", ErrNotNumber},
		{"1e+", ErrNotNumber},
		{"e5", ErrNotNumber},
		{"1e5.5", ErrNotNumber},
		{" 1", ErrNotNumber},
		{"1 ", ErrNotNumber},
		{"0x10", ErrNotNumber},
		{"NaN", ErrNotNumber},
		{"Infinity", ErrNotNumber},
		{"--1", ErrNotNumber},
		{"1_000", ErrNotNumber},
		{"١", ErrNotNumber},
		{strings.Repeat("1", 39), ErrTooPrecise},
		{"1." + strings.Repeat("1", 38), ErrTooPrecise},
		{"-0.000" + strings.Repeat("7", 39), ErrTooPrecise},
		{"1E126", ErrOverflow},
		{"-1E126", ErrOverflow},
		{"1" + strings.Repeat("0", 126), ErrOverflow},
		{"1E99999999999999999999999", ErrOverflow},
		{"9.99999999999999999999999999999999999999E+125", ErrTooPrecise},
		{"1E-131", ErrUnderflow},
		{strings.Repeat("1", 39) + "E200", ErrOverflow}, // range is checked first
		{"0." + strings.Repeat("1", 39) + "E-130", ErrUnderflow},
		{"-0.9E-130", ErrUnderflow},
		{"1E-99999999999999999999999", ErrUnderflow},
	}
	for _, c := range cases {
		_, err := ParseNumber(c.in)
		assert.ErrorIs(t, err, c.want, "%q", c.in)
		_, err = CanonicalNumber(c.in)
		assert.ErrorIs(t, err, c.want, "%q", c.in)
		assert.ErrorIs(t, ValidNumber(c.in), c.want, "%q", c.in)
	}
	assert.Equal(t, "A value provided cannot be converted into a number", ErrNotNumber.Error())
	assert.Equal(t, "Attempting to store more than 38 significant digits in a Number", ErrTooPrecise.Error())
	assert.Contains(t, ErrOverflow.Error(), "Number overflow.")
	assert.Contains(t, ErrUnderflow.Error(), "Number underflow.")
}

func TestNumberAccessors(t *testing.T) {
	n, err := ParseNumber("-0012.3400e1")
	require.NoError(t, err)
	assert.True(t, n.Negative())
	assert.False(t, n.IsZero())
	assert.Equal(t, "1234", n.Digits())
	assert.Equal(t, 3, n.Exp())
	assert.Equal(t, "123.4", n.Neg().String())
	var zero Number
	assert.True(t, zero.IsZero())
	assert.Equal(t, "0", zero.String())
	assert.Equal(t, zero, zero.Neg())
}

func TestCompareNumbers(t *testing.T) {
	// Sorted ascending; equal neighbours are grouped in one row.
	order := [][]string{
		{"-9.9999999999999999999999999999999999999E+125"},
		{"-1E125"},
		{"-100", "-1E2", "-100.000"},
		{"-99.99999999999999999999999999999999999"},
		{"-1.5", "-15E-1"},
		{"-1"},
		{"-0.5", "-.5"},
		{"-1E-130"},
		{"0", "-0", "0.0", "+0", "0E10"},
		{"1E-130"},
		{"0.1E-128"},
		{"0.000000000000000000000000000000000000000000001"},
		{"0.5"},
		{"1", "1.0", "1.00000", "0.1E1", "+1"},
		{"1.0000000000000000000000000000000000001"},
		{"1.5"},
		{"2"},
		{"10"},
		{"99"},
		{"100", "1E2"},
		{"100.5"},
		{"1E125"},
		{"9.9999999999999999999999999999999999999E+125"},
	}
	for i, gi := range order {
		for j, gj := range order {
			for _, a := range gi {
				for _, b := range gj {
					want := 0
					if i < j {
						want = -1
					} else if i > j {
						want = 1
					}
					assert.Equal(t, want, CompareNumbers(a, b), "%s vs %s", a, b)
					na, err := ParseNumber(a)
					require.NoError(t, err)
					nb, err := ParseNumber(b)
					require.NoError(t, err)
					assert.Equal(t, want, na.Cmp(nb), "%s vs %s", a, b)
				}
			}
		}
	}
	// Invalid texts order after valid ones, by bytes among themselves.
	assert.Equal(t, -1, CompareNumbers("1E200", "abc"))
	assert.Equal(t, -1, CompareNumbers("5", "x"))
	assert.Equal(t, 1, CompareNumbers("x", "5"))
	assert.Equal(t, -1, CompareNumbers("a", "b"))
	assert.Equal(t, 0, CompareNumbers("a", "a"))
}

func TestCompareNumbersAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		CompareNumbers("123456.789", "-1.5E10")
	})
	assert.Zero(t, allocs)
}

func TestSignificantDigits(t *testing.T) {
	cases := []struct {
		in              string
		intSig, fracSig int
		neg, zero       bool
	}{
		{"27", 2, 0, false, false},
		{"-27", 2, 0, true, false},
		{"461", 3, 0, false, false},
		{"1.5", 1, 1, false, false},
		{"100.5", 3, 1, false, false},
		{"0.0000001", 0, 1, false, false},
		{"1786461547", 10, 0, false, false},
		{"1E125", 1, 0, false, false},
		{"110", 2, 0, false, false},
		{"11000", 2, 0, false, false},
		{"10010", 4, 0, false, false},
		{"1001000", 4, 0, false, false},
		{"-0012.3400", 2, 2, true, false},
		{"0", 0, 0, false, true},
		{"-0.000", 0, 0, false, true},
		{"12.345E1", 3, 2, false, false},
		{"12.345E5", 5, 0, false, false},
		{"12.345E-2", 0, 5, false, false},
		{"1.5E-3", 0, 2, false, false},
		{strings.Repeat("9", 40), 40, 0, false, false},
		{"junk", 0, 0, false, false},
	}
	for _, c := range cases {
		i, f, neg, zero := SignificantDigits(c.in)
		assert.Equal(t, []any{c.intSig, c.fracSig, c.neg, c.zero}, []any{i, f, neg, zero}, c.in)
	}
}

func TestAddSubNumbers(t *testing.T) {
	nines38 := strings.Repeat("9", 38)
	cases := []struct {
		a, b, sum, diff string
		sumErr, diffErr error
	}{
		{a: "1", b: "2", sum: "3", diff: "-1"},
		{a: "1.5", b: "1.5", sum: "3", diff: "0"},
		{a: "0.1", b: "0.2", sum: "0.3", diff: "-0.1"},
		{a: "-5", b: "3", sum: "-2", diff: "-8"},
		{a: "1E2", b: "1E-2", sum: "100.01", diff: "99.99"},
		{a: "0", b: "-7.25", sum: "-7.25", diff: "7.25"},
		{a: nines38, b: "1", sum: "1" + strings.Repeat("0", 38), diff: strings.Repeat("9", 37) + "8"},
		{a: "1E37", b: "1", sum: "1" + strings.Repeat("0", 36) + "1", diff: strings.Repeat("9", 37)},
		{a: "1E38", b: "1", sumErr: ErrTooPrecise, diff: strings.Repeat("9", 38)},
		{a: "1E38", b: "0.1", sumErr: ErrTooPrecise, diffErr: ErrTooPrecise},
		{a: "9.9999999999999999999999999999999999999E+125", b: "1E88", sumErr: ErrOverflow, diff: "9.9999999999999999999999999999999999998E+125"},
		{a: "1E-130", b: "1E-130", sum: "0." + strings.Repeat("0", 129) + "2", diff: "0"},
		{a: "2E-130", b: "1.5E-130", sum: "3.5E-130", diffErr: ErrUnderflow},
	}
	for _, c := range cases {
		sum, err := AddNumbers(c.a, c.b)
		if c.sumErr != nil {
			assert.ErrorIs(t, err, c.sumErr, "%s+%s", c.a, c.b)
		} else if assert.NoError(t, err, "%s+%s", c.a, c.b) {
			assert.Equal(t, 0, CompareNumbers(c.sum, sum), "%s+%s = %s", c.a, c.b, sum)
			canon, _ := CanonicalNumber(c.sum)
			assert.Equal(t, canon, sum)
		}
		diff, err := SubNumbers(c.a, c.b)
		if c.diffErr != nil {
			assert.ErrorIs(t, err, c.diffErr, "%s-%s", c.a, c.b)
		} else if assert.NoError(t, err, "%s-%s", c.a, c.b) {
			assert.Equal(t, 0, CompareNumbers(c.diff, diff), "%s-%s = %s", c.a, c.b, diff)
		}
	}
	_, err := AddNumbers("x", "1")
	assert.ErrorIs(t, err, ErrNotNumber)
	_, err = SubNumbers("1", "1E999")
	assert.ErrorIs(t, err, ErrOverflow)
}

// ratOf converts a valid number text to an exact rational for checking.
func ratOf(t testing.TB, text string) *big.Rat {
	n, err := ParseNumber(text)
	require.NoError(t, err)
	r, ok := new(big.Rat).SetString(n.String())
	require.True(t, ok, n.String())
	return r
}

func TestAddAgainstRat(t *testing.T) {
	vals := []string{"0", "1", "-1", "0.5", "123.456", "-98765.4321", "1E20", "-3E-10", "7.77E7", "1E-5"}
	for _, a := range vals {
		for _, b := range vals {
			sum, err := AddNumbers(a, b)
			require.NoError(t, err)
			want := new(big.Rat).Add(ratOf(t, a), ratOf(t, b))
			assert.Equal(t, 0, want.Cmp(ratOf(t, sum)), "%s+%s=%s", a, b, sum)
			diff, err := SubNumbers(a, b)
			require.NoError(t, err)
			want = new(big.Rat).Sub(ratOf(t, a), ratOf(t, b))
			assert.Equal(t, 0, want.Cmp(ratOf(t, diff)), "%s-%s=%s", a, b, diff)
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.50", "1E2", ".5", "5.", "-1E-130", "1E126", "1e", "abc",
		"9.9999999999999999999999999999999999999E+125", strings.Repeat("1", 39), "0.000100", "+7e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNumber(s)
		if err != nil {
			_, _, _, _ = SignificantDigits(s)
			return
		}
		canon := n.String()
		again, err := ParseNumber(canon)
		require.NoError(t, err, "canonical %q of %q", canon, s)
		assert.Equal(t, n, again)
		assert.Equal(t, canon, again.String())
		assert.Equal(t, 0, CompareNumbers(s, canon))
		// Exactness against big.Rat, whose syntax covers ours.
		want, ok := new(big.Rat).SetString(s)
		if ok {
			got, ok := new(big.Rat).SetString(canon)
			require.True(t, ok)
			assert.Equal(t, 0, want.Cmp(got), "%q -> %q", s, canon)
		}
		i, fr, neg, zero := SignificantDigits(s)
		assert.LessOrEqual(t, i+fr, MaxDigits)
		assert.Equal(t, n.IsZero(), zero)
		assert.Equal(t, n.Negative(), neg)
		assert.Equal(t, len(n.Digits()), i+fr)
		sum, err := AddNumbers(s, "0")
		require.NoError(t, err)
		assert.Equal(t, canon, sum)
		diff, err := SubNumbers(s, s)
		require.NoError(t, err)
		assert.Equal(t, "0", diff)
	})
}

func BenchmarkCompareNumbers(b *testing.B) {
	pairs := [][2]string{
		{"123456.789", "123456.7890001"},
		{"-1.5E10", "42"},
		{"0.000001", "1E-6"},
		{"99999999999999999999999999999999999999", "99999999999999999999999999999999999998"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := pairs[i%len(pairs)]
		CompareNumbers(p[0], p[1])
	}
}
