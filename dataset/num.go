package dataset

import (
	"math"
	"strconv"
)

// num is a number of a rule: an integer while every operand is one (money
// in cents, counts), a float otherwise.
type num struct {
	i     int64
	f     float64
	float bool
}

func intNum(i int64) num { return num{i: i} }

func parseNum(s string) (num, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return num{i: i}, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return num{}, false
	}
	return num{f: f, float: true}, true
}

func (a num) toFloat() float64 {
	if a.float {
		return a.f
	}
	return float64(a.i)
}

func (a num) int() int64 {
	if a.float {
		return int64(math.Round(a.f))
	}
	return a.i
}

func (a num) add(b num) num {
	if !a.float && !b.float {
		return num{i: a.i + b.i}
	}
	return num{f: a.toFloat() + b.toFloat(), float: true}
}

func (a num) neg() num {
	if a.float {
		return num{f: -a.f, float: true}
	}
	return num{i: -a.i}
}

func (a num) less(b num) bool {
	if !a.float && !b.float {
		return a.i < b.i
	}
	return a.toFloat() < b.toFloat()
}

// appendNum writes the number as DynamoDB reads it: an integer, or the
// shortest decimal that round-trips.
func appendNum(dst []byte, a num) []byte {
	if !a.float {
		return strconv.AppendInt(dst, a.i, 10)
	}
	if a.f == math.Trunc(a.f) && math.Abs(a.f) < 1e15 {
		return strconv.AppendInt(dst, int64(a.f), 10)
	}
	return strconv.AppendFloat(dst, a.f, 'f', -1, 64)
}
