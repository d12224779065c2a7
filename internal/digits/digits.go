// Package digits writes numbers the way every report prints them: digits
// grouped by thousands with commas (1,047), so that a figure reads the
// same in a check, a cost, a budget explanation and a capacity table.
package digits

import (
	"strconv"
	"strings"
)

// Group puts a comma between every three digits of the whole number s
// (decimal digits, with an optional leading minus): "-1234567" ->
// "-1,234,567". A fraction is the caller's to append.
func Group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Count writes n, grouped, and the noun, in the plural when n is not 1
// ("1 table", "2 tables", "1,047 items", "3 indexes", "2 entities"), so
// no report says "1 tables".
func Count[N ~int | ~int64](n N, noun string) string {
	s := Group(strconv.FormatInt(int64(n), 10))
	if n == 1 {
		return s + " " + noun
	}
	return s + " " + Plural(noun)
}

// Plural is an English noun's plural as the reports use them: index ->
// indexes, entity -> entities, item -> items.
func Plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) > 1 && strings.HasSuffix(noun, "y") && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
