// Package digits writes numbers the way every report prints them: digits
// grouped by thousands with commas (1,047), so that a figure reads the
// same in a check, a cost, a budget explanation and a capacity table.
package digits

import "strings"

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
