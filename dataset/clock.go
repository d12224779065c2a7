package dataset

import (
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// The generator makes a few dates an item, hundreds of millions in a
// full population: the time package's calendar (a zone lookup on every
// In, Date and AddDate, a layout interpreted on every AppendFormat) was a
// tenth of the work. Within one period of the model's zone (the offset
// constant, as America/Sao_Paulo's has been since 2019, or any fixed
// zone), a civil day is a number of days and an instant a number of
// nanoseconds: the arithmetic below gives the time package's results,
// byte for byte, and every date outside the period takes the time
// package's path as before.

// calendar is the model's zone within the period around asOf where its
// offset does not change.
type calendar struct {
	lo, hi int64 // the period, Unix nanoseconds [lo, hi), a day inside its bounds
	off    int64 // the zone's offset east of UTC, seconds
}

// Years the fast path formats: four digits, as the layouts write them.
var (
	calMin = time.Date(1, 1, 3, 0, 0, 0, 0, time.UTC).UnixNano()
	calMax = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano() // UnixNano's own limit
)

func newCalendar(loc *time.Location, asOf time.Time) calendar {
	t := asOf.In(loc)
	start, end := t.ZoneBounds()
	_, off := t.Zone()
	c := calendar{lo: calMin, hi: calMax, off: int64(off)}
	if !start.IsZero() {
		if y := start.Year(); y > 1 && y < 2262 {
			c.lo = max(c.lo, start.UnixNano()+86400e9)
		}
	}
	if !end.IsZero() {
		if y := end.Year(); y > 1 && y < 2262 {
			c.hi = min(c.hi, end.UnixNano()-86400e9)
		} else if y <= 1 {
			c.hi = c.lo
		}
	}
	return c
}

func (c *calendar) in(ns int64) bool { return ns >= c.lo && ns < c.hi }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil is the days since 1970-01-01 of a proleptic Gregorian
// date (month 1-12; day may overflow the month, as time.Date normalises).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + 1 - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468 + d - 1
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// addDate is t.AddDate(years, months, days).Add(secs) in the zone, for
// an instant of the period; false when the result leaves it.
func (c *calendar) addDate(ns int64, years, months, days, secs int64) (int64, bool) {
	const lim = 1 << 40
	if !c.in(ns) || years > 1e4 || years < -1e4 || months > 1e6 || months < -1e6 || days > lim || days < -lim || secs > lim || secs < -lim {
		return 0, false
	}
	sec := floorDiv(ns, 1e9)
	frac := ns - sec*1e9
	local := sec + c.off
	day := floorDiv(local, 86400)
	sod := local - day*86400
	if years != 0 || months != 0 {
		y, m, d := civilFromDays(day)
		m0 := m - 1 + months
		y += years + floorDiv(m0, 12)
		m0 -= floorDiv(m0, 12) * 12
		day = daysFromCivil(y, m0+1, d)
	}
	day += days
	out := (day*86400+sod-c.off+secs)*1e9 + frac
	if !c.in(out) {
		return 0, false
	}
	return out, true
}

// localDay is the civil day (days since 1970-01-01) of an instant of the
// period, and the seconds since its midnight.
func (c *calendar) localDay(ns int64) (day, sod int64) {
	local := floorDiv(ns, 1e9) + c.off
	day = floorDiv(local, 86400)
	return day, local - day*86400
}

// midnight is the instant a civil day starts, in the zone.
func (c *calendar) midnight(day int64) int64 { return (day*86400 - c.off) * 1e9 }

func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// appendDay writes a civil day as 2006-01-02.
func appendDay(b []byte, day int64) []byte {
	y, m, d := civilFromDays(day)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// appendStamp writes 2006-01-02T15:04:05 with digits of the fraction
// (truncated, as the time package writes .000) at the offset off; zone
// 'Z' writes Z for a zero offset (RFC 3339's Z07:00), 'z' always Z, '-'
// always ±hh:mm (-07:00).
func appendStamp(b []byte, ns, off int64, digits int, zone byte) []byte {
	sec := floorDiv(ns, 1e9)
	frac := ns - sec*1e9
	local := sec + off
	day := floorDiv(local, 86400)
	sod := local - day*86400
	b = appendDay(b, day)
	b = append(b, 'T')
	b = append2(b, sod/3600)
	b = append(b, ':')
	b = append2(b, sod/60%60)
	b = append(b, ':')
	b = append2(b, sod%60)
	if digits > 0 {
		b = append(b, '.')
		for i, p := 0, int64(1e8); i < digits; i, p = i+1, p/10 {
			b = append(b, byte('0'+frac/p%10))
		}
	}
	switch {
	case zone == 'z', zone == 'Z' && off == 0:
		return append(b, 'Z')
	}
	o := off / 60
	if o < 0 {
		b = append(b, '-')
		o = -o
	} else {
		b = append(b, '+')
	}
	b = append2(b, o/60)
	b = append(b, ':')
	return append2(b, o%60)
}

// instantZone is how an InstantFormat writes its zone: its offset in
// seconds and whether it writes Z; ok false for a form not understood
// (the time package then writes it).
func instantZone(f *catalog.InstantFormat) (off int64, digits int, z bool, ok bool) {
	switch f.Precision {
	case "s":
	case "ms":
		digits = 3
	case "us":
		digits = 6
	case "ns":
		digits = 9
	default:
		return 0, 0, false, false
	}
	if f.Offset == "Z" {
		return 0, digits, true, true
	}
	o := f.Offset
	if len(o) != 6 || (o[0] != '+' && o[0] != '-') || o[3] != ':' {
		return 0, 0, false, false
	}
	for _, i := range []int{1, 2, 4, 5} {
		if o[i] < '0' || o[i] > '9' {
			return 0, 0, false, false
		}
	}
	h := int64(o[1]-'0')*10 + int64(o[2]-'0')
	m := int64(o[4]-'0')*10 + int64(o[5]-'0')
	if h > 23 || m > 59 {
		return 0, 0, false, false
	}
	off = (h*60 + m) * 60
	if o[0] == '-' {
		off = -off
	}
	return off, digits, false, true
}

// parseDay reads 2006-01-02 strictly (what appendDay writes and
// time.Parse accepts); false otherwise.
func parseDay(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	var v [8]int64
	for i, j := range [8]int{0, 1, 2, 3, 5, 6, 8, 9} {
		c := s[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		v[i] = int64(c - '0')
	}
	y := v[0]*1000 + v[1]*100 + v[2]*10 + v[3]
	m := v[4]*10 + v[5]
	d := v[6]*10 + v[7]
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
