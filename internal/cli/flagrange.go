package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// number is what a range-checked flag holds.
type number interface {
	~int | ~int64 | ~uint | ~float64
}

// Spans of time the flags' ranges use.
const (
	day  = 24 * time.Hour
	week = 7 * day
)

// span is the values a numeric flag accepts: lo to hi, lo itself
// refused when open (a scale or a ratio that must be above zero).
type span[T number] struct {
	lo, hi T
	open   bool
}

// between is the closed span [lo, hi].
func between[T number](lo, hi T) span[T] { return span[T]{lo: lo, hi: hi} }

// above is the span (lo, hi]: over lo, up to hi.
func above[T number](lo, hi T) span[T] { return span[T]{lo: lo, hi: hi, open: true} }

// ranged is a numeric flag that refuses, when it is parsed, a value
// outside its span, NaN and the infinities: every count, rate, scale and
// duration a command reads from the command line bounds a loop or an
// allocation, so none may reach the command unchecked. The flag's
// default is the command's own and is not checked (0 may mean "the
// default" while an explicit 0 is refused). word, when set, is a word
// the flag takes beside numbers (load --speed max) and the value it
// stands for.
type ranged[T number] struct {
	p       *T
	s       span[T]
	kind    string // int, number or duration: the flag's type in the help
	word    string
	wordVal T
}

func (r *ranged[T]) Type() string { return r.kind }

func (r *ranged[T]) String() string {
	if r.word != "" && *r.p == r.wordVal {
		return r.word
	}
	return r.show(*r.p)
}

// show prints v as the flag is written.
func (r *ranged[T]) show(v T) string {
	switch x := any(v).(type) {
	case time.Duration:
		return shortDuration(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// shortDuration writes d as a person would: 168h, 10m, 0.
func shortDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Range describes the span as the error and the help say it.
func (r *ranged[T]) Range() string {
	lo, hi := r.show(r.s.lo), r.show(r.s.hi)
	var s string
	if r.s.open {
		s = fmt.Sprintf("over %s and up to %s", lo, hi)
	} else {
		s = fmt.Sprintf("from %s to %s", lo, hi)
	}
	if r.word != "" {
		s += ", or " + r.word
	}
	return s
}

func (r *ranged[T]) Set(text string) error {
	text = strings.TrimSpace(text)
	if r.word != "" && text == r.word {
		*r.p = r.wordVal
		return nil
	}
	v, err := r.parse(text)
	if err != nil || !r.in(v) {
		return fmt.Errorf("must be %s %s", article(r.kind), r.Range())
	}
	*r.p = v
	return nil
}

// in reports whether v is in the span (NaN never is).
func (r *ranged[T]) in(v T) bool {
	if f, ok := any(v).(float64); ok && math.IsNaN(f) {
		return false
	}
	if v < r.s.lo || v > r.s.hi {
		return false
	}
	return !r.s.open || v != r.s.lo
}

func (r *ranged[T]) parse(text string) (T, error) {
	var v any
	var err error
	switch any(*new(T)).(type) {
	case time.Duration:
		v, err = time.ParseDuration(text)
	case float64:
		v, err = strconv.ParseFloat(text, 64)
	case int:
		v, err = strconv.Atoi(text)
	case int64:
		v, err = strconv.ParseInt(text, 10, 64)
	case uint:
		var u uint64
		u, err = strconv.ParseUint(text, 10, 0)
		v = uint(u)
	}
	if err != nil {
		return 0, err
	}
	return v.(T), nil
}

func article(kind string) string {
	switch kind {
	case "int":
		return "an integer"
	case "duration":
		return "a duration"
	}
	return "a number"
}

// rangeVar defines a range-checked numeric flag: the help gives its
// range, and a value outside it is refused when the command line is
// parsed (exit 2, the flag and its range named).
func rangeVar[T number](f *pflag.FlagSet, p *T, name string, def T, s span[T], usage string) {
	defineRanged(f, &ranged[T]{p: p, s: s, kind: kindOf[T]()}, name, def, usage)
}

// rangeOrWord is rangeVar for a flag that also takes one word, standing
// for the value given (load --speed max).
func rangeOrWord[T number](f *pflag.FlagSet, p *T, name string, def T, s span[T], word string, wordVal T, usage string) {
	defineRanged(f, &ranged[T]{p: p, s: s, kind: kindOf[T](), word: word, wordVal: wordVal}, name, def, usage)
}

func defineRanged[T number](f *pflag.FlagSet, r *ranged[T], name string, def T, usage string) {
	*r.p = def
	f.Var(r, name, usage+" ("+r.Range()+")")
}

func kindOf[T number]() string {
	switch any(*new(T)).(type) {
	case time.Duration:
		return "duration"
	case float64:
		return "number"
	}
	return "int"
}
