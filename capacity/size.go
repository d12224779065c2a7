package capacity

import "github.com/cardapio/cardapio/attr"

// NumberModel chooses how the size of a number is computed. AWS documents
// only an approximation; two models fit every literal measured so far and
// disagree on a few integers with inner or trailing zeros (110, 11000,
// 10010, 1001000).
type NumberModel uint8

const (
	// NumberMeasured is 1 + ceil(intSig/2) + ceil(fracSig/2), plus 1 for a
	// negative number, after trimming leading and trailing zeros; zero is
	// 1 byte; at most 20 bytes (21 if negative). It matched 34 literals
	// measured byte-exact against the 400 KB limit, hence the default.
	NumberMeasured NumberModel = iota
	// NumberDigitPairs counts base-100 digit pairs aligned on the decimal
	// point (after trimming zero pairs at both ends), plus 1, plus 1 for a
	// negative number, capped at 21: the storage layout of a
	// decimal-exponent number.
	NumberDigitPairs
)

// String names the model as the options of the command line do.
func (m NumberModel) String() string {
	if m == NumberDigitPairs {
		return "pairs"
	}
	return "measured"
}

// FailedWriteRule chooses what a conditional write whose condition failed
// consumes: the sources disagree (capacity-rules.md 3.5).
type FailedWriteRule uint8

const (
	// FailedLarger charges max(ceil(existing), ceil(new)) write units, or 1
	// when no item exists (the current developer guide, as digested by a
	// third party). The default: it is never below the other two.
	FailedLarger FailedWriteRule = iota
	// FailedNewItem charges the size of the new item when one exists, and
	// 1 unit for a new item (the 2023 developer guide).
	FailedNewItem
	// FailedExisting charges the existing item's size, or the new item's
	// for a PutItem on a missing key (AWS's own calculator, said to be
	// verified live).
	FailedExisting
)

// String names the rule.
func (f FailedWriteRule) String() string {
	switch f {
	case FailedNewItem:
		return "new-item"
	case FailedExisting:
		return "existing"
	}
	return "larger"
}

// Rules holds the choices DynamoDB leaves open. The zero value is the
// default: measured number sizes, failed writes charged on the larger item,
// index charges in transactions not doubled.
type Rules struct {
	Numbers     NumberModel
	FailedWrite FailedWriteRule
	// DoubleIndexInTxn doubles secondary-index charges in TransactWriteItems
	// as the table charge is. Captures show index charges at 1x, so it is
	// off by default; AWS does not say.
	DoubleIndexInTxn bool
}

// Default returns the rules measured against live DynamoDB.
func Default() Rules { return Rules{} }

// Size limits of DynamoDB, in bytes (capacity-rules.md 1.6).
const (
	MaxItemSize         = 409600 // 400 KB, names included
	MaxPartitionKeySize = 2048
	MaxSortKeySize      = 1024
)

// Storage overheads, billed as stored bytes only; they never change read or
// write units (capacity-rules.md 1.7, 1.8).
const (
	ItemOverhead        = 100 // per item and per index entry
	GlobalTableOverhead = 48  // more per item in a global table
)

// ItemSize returns the size of an item: for each attribute, the UTF-8 bytes
// of its name plus the size of its value. It does not allocate.
func (r Rules) ItemSize(it attr.Item) int {
	n := 0
	for i := range it {
		n += len(it[i].Name) + r.size(&it[i].Value)
	}
	return n
}

// ValueSize returns the size of one attribute value, without its name:
// strings in UTF-8 bytes, binary in raw bytes, BOOL and NULL 1, numbers by
// r.Numbers, lists and maps 3 + Σ(1 + element) with map keys counted, sets
// the sum of their members with no overhead.
func (r Rules) ValueSize(v attr.Value) int { return r.size(&v) }

// size works on a pointer: a Value is about 100 bytes, and copying one per
// attribute would dominate the cost of sizing.
func (r Rules) size(v *attr.Value) int {
	switch v.Type {
	case attr.S, attr.B:
		return len(v.Str)
	case attr.N:
		return r.NumberSize(v.Str)
	case attr.BOOL, attr.NULL:
		return 1
	case attr.L:
		n := 3 + len(v.List)
		for i := range v.List {
			n += r.size(&v.List[i])
		}
		return n
	case attr.M:
		n := 3 + len(v.Map)
		for i := range v.Map {
			n += len(v.Map[i].Name) + r.size(&v.Map[i].Value)
		}
		return n
	case attr.SS, attr.BS:
		n := 0
		for _, m := range v.Set {
			n += len(m)
		}
		return n
	case attr.NS:
		n := 0
		for _, m := range v.Set {
			n += r.NumberSize(m)
		}
		return n
	}
	return 0
}

// NumberSize returns the stored size of a number given as decimal text
// (optionally signed, with a fraction and an exponent). Text that is not a
// number is sized as zero (1 byte); validating numbers is attr's job.
func (r Rules) NumberSize(text string) int {
	if n, ok := plainIntSize(text); ok && r.Numbers != NumberDigitPairs {
		return n
	}
	return r.numberSize(text)
}

// numberSize is NumberSize for any text.
func (r Rules) numberSize(text string) int {
	intSig, fracSig, neg, zero := attr.SignificantDigits(text)
	if zero || intSig+fracSig == 0 {
		return 1
	}
	sign := 0
	if neg {
		sign = 1
	}
	if r.Numbers == NumberDigitPairs {
		if n, err := attr.ParseNumber(text); err == nil {
			// value = 0.d1...dn × 10^exp: the leading digit has power
			// exp-1 and the last exp-n; a pair holds powers 2k and 2k+1.
			exp, digits := n.Exp(), intSig+fracSig
			pairs := floorHalf(exp-1) - floorHalf(exp-digits) + 1
			return min(1+pairs+sign, 21)
		}
		// Beyond DynamoDB's limits: no layout to follow, size as measured.
	}
	return min(1+(intSig+1)/2+(fracSig+1)/2, 20) + sign
}

// plainIntSize is NumberSize's measured model for the commonest text, a
// non-negative integer of at most 38 digits with no leading zero (a
// count, cents, an epoch): its significant digits are those up to the
// last non-zero one. ok is false for any other text, which the general
// path sizes (TestNumberSizeFastPath compares the two).
func plainIntSize(text string) (int, bool) {
	if len(text) == 0 || len(text) > 38 || (text[0] == '0' && len(text) > 1) {
		return 0, false
	}
	sig := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if c != '0' {
			sig = i + 1
		}
	}
	if sig == 0 {
		return 1, true // "0"
	}
	return min(1+(sig+1)/2, 20), true
}

// floorHalf is ⌊x/2⌋ for negative x too.
func floorHalf(x int) int {
	if x >= 0 {
		return x / 2
	}
	return -((-x + 1) / 2)
}
