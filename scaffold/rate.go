package scaffold

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Bounds the format puts on a velocity (see docs/model-format.md): a
// rate's count at most a billion and a million a second; a burst is kept
// to what a day of the fastest rate could hold.
const (
	maxCount     = 1e9
	maxPerSecond = 1e6
	maxVolume    = 1e12
	maxWindow    = 31 * 24 * 3600 // seconds
)

// Rate is a count per unit of time, as the format writes it.
type Rate struct {
	Count float64
	Per   string // second minute hour day month
	When  string
}

// Burst is a volume within a window.
type Burst struct {
	Volume float64
	Window string // 20m
	Every  string // day week month, or ""
}

// Shape is what a rate/shape cell says, in the format's terms. Rejected
// holds what was read but falls outside the format's bounds (so it is
// left for the team to decide, never clipped).
type Shape struct {
	Steady, Peak *Rate
	Burst        *Burst
	Latency      string // 50ms, 2s
	Consistency  string // exact or strong when the cell says so
	Rejected     string
}

// Velocity reports whether the shape carries a rate the format takes.
func (s Shape) Velocity() bool { return s.Steady != nil || s.Peak != nil || s.Burst != nil }

// A number as a workshop writes it: ~120, 2.000 (Portuguese grouping),
// 2,000, 1,5, 5k, 2M, 2 mil, 1,5 milhão, 3 million.
const numRE = `(\d[\d.,]*)(?:(k|m|b)\b|\s*(mil|mi|milhao|milhoes|million|millions|thousand|bi|bilhao|bilhoes|billion|billions)\b)?`

var (
	unitRE = `(s|sec|secs|second|seconds|seg|segundo|segundos|min|mins|minute|minutes|minuto|minutos|h|hr|hour|hours|hora|horas|d|day|days|dia|dias|month|months|mes|meses)`
	// 120/s, 120 req/s, 120 requests per second, 2.000 por dia, 5k/min.
	rateRE = regexp.MustCompile(numRE + `\s*(?:[a-z]+\s*)?(?:/|\bper\b|\bpor\b|\ba\b|\bpor\s+cada\b)\s*` + unitRE + `\b`)
	// ~2M items in < 20 min, 2 mil itens em 20 min.
	burstRE = regexp.MustCompile(numRE + `\s*(?:[a-z]+\s*)?\b(?:in|em|within|dentro de|durante)\s*(?:<|<=|under|less than|menos de|ate)?\s*(\d+(?:[.,]\d+)?)\s*` + unitRE + `\b`)
	// < 50 ms, under 2 s, p99 30ms, até 200 ms.
	latencyRE = regexp.MustCompile(`(?:<|<=|under|less than|menos de|ate|p99|p95|sla)\s*(\d+(?:[.,]\d+)?)\s*(ms|s|sec|secs|seconds|seg|segundos)\b`)
	// ~80k items, once a day: a day's volume.
	countRE  = regexp.MustCompile(numRE + `\s*(?:items|itens|records|registros|requests|requisicoes|req|reqs|queries|consultas|calls|chamadas|events|eventos|messages|mensagens|rows|linhas|[a-z]+s)\b`)
	exactRE  = regexp.MustCompile(`\b(exact|exata|exato|exatas|exatos)\b`)
	strongRE = regexp.MustCompile(`\b(strong|strongly|forte)\b`)
	everyRE  = []struct {
		re    *regexp.Regexp
		every string
	}{
		{regexp.MustCompile(`\b(daily|diari[oa]|por dia|a day|per day|every day|todo dia|todos os dias|nightly|noturno|each day)\b`), "day"},
		{regexp.MustCompile(`\b(weekly|semanal|por semana|a week|per week|every week)\b`), "week"},
		{regexp.MustCompile(`\b(monthly|mensal|por mes|a month|per month|every month|todo mes)\b`), "month"},
	}
	peakWords = regexp.MustCompile(`\b(peak|peaks|pico|picos|spike|spikes|max|maximo)\b`)
)

// number reads a number as a workshop writes it. Separators followed by
// groups of exactly three digits group thousands (2.000, 1,200,000);
// otherwise the one separator is the decimal point (1,5; 2.5).
func number(digits, mult string) (float64, bool) {
	if len(digits) > 24 {
		return 0, false
	}
	digits = strings.TrimRight(digits, ".,")
	groups := strings.FieldsFunc(digits, func(r rune) bool { return r == '.' || r == ',' })
	text := digits
	if len(groups) > 1 {
		grouped := true
		for _, g := range groups[1:] {
			if len(g) != 3 {
				grouped = false
			}
		}
		switch {
		case grouped && !(len(groups) == 2 && mult != ""):
			text = strings.Join(groups, "")
		case len(groups) == 2:
			text = groups[0] + "." + groups[1]
		default:
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	switch mult {
	case "k", "mil", "thousand":
		v *= 1e3
	case "m", "mi", "milhao", "milhoes", "million", "millions":
		v *= 1e6
	case "b", "bi", "bilhao", "bilhoes", "billion", "billions":
		v *= 1e9
	}
	return v, true
}

// per names a unit of time as the format does, with its seconds.
func per(unit string) (string, float64) {
	switch {
	case unit == "ms":
		return "", 0.001
	case strings.HasPrefix(unit, "s"):
		return "second", 1
	case strings.HasPrefix(unit, "mi"):
		return "minute", 60
	case strings.HasPrefix(unit, "h"):
		return "hour", 3600
	case strings.HasPrefix(unit, "d"):
		return "day", 86400
	default:
		return "month", 30 * 86400
	}
}

// duration writes n units as the format's duration (20m, 2s, 50ms).
func duration(n, unit string) (string, float64, bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", "."), 64)
	if err != nil || v <= 0 || v > 1e6 {
		return "", 0, false
	}
	name, secs := per(unit)
	suffix := map[string]string{"": "ms", "second": "s", "minute": "m", "hour": "h", "day": "d", "month": "d"}[name]
	if name == "month" {
		v *= 30
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + suffix, v * secs, true
}

// every reads how often a burst or a volume comes round.
func every(f string) string {
	for _, e := range everyRE {
		if e.re.MatchString(f) {
			return e.every
		}
	}
	return ""
}

// ParseShape reads a rate/shape cell (and, when the table has one, a
// latency cell) into the format's velocity, latency and consistency.
// What it cannot read stays in the note for the team.
func ParseShape(cell string) Shape {
	var s Shape
	f := fold(cell)
	switch {
	case exactRE.MatchString(f):
		s.Consistency = "exact"
	case strongRE.MatchString(f):
		s.Consistency = "strong"
	}
	rest := f
	if m := burstRE.FindStringSubmatchIndex(rest); m != nil {
		sub := func(i int) string { return group(rest, m, i) }
		vol, ok := number(sub(1), sub(2)+sub(3))
		win, secs, wok := duration(sub(4), sub(5))
		switch {
		case !ok || !wok:
		case vol > maxVolume || secs > maxWindow || vol/secs > maxPerSecond:
			s.Rejected = fmt.Sprintf("a burst of %s in %s is beyond the format's bounds (%s a second at most)", plain(vol), win, plain(maxPerSecond))
		default:
			s.Burst = &Burst{Volume: vol, Window: win, Every: every(f)}
		}
		rest = rest[:m[0]] + " " + rest[m[1]:]
	}
	if m := rateRE.FindStringSubmatchIndex(rest); m != nil {
		sub := func(i int) string { return group(rest, m, i) }
		n, ok := number(sub(1), sub(2)+sub(3))
		unit, secs := per(sub(4))
		if ok && unit != "" {
			if r, why := bounded(n, unit, secs); r != nil {
				if peakWords.MatchString(rest[:m[0]]) || peakWords.MatchString(rest[m[1]:]) {
					s.Peak = r
				} else {
					s.Steady = r
				}
			} else {
				s.Rejected = why
			}
		}
		rest = rest[:m[0]] + " " + rest[m[1]:]
	}
	if s.Steady == nil && s.Peak == nil && s.Burst == nil && s.Rejected == "" {
		// A count with how often it comes round: daily, ~80k items.
		if e := every(f); e != "" {
			if m := countRE.FindStringSubmatch(rest); m != nil {
				if n, ok := number(m[1], m[2]+m[3]); ok {
					_, secs := per(e)
					if e == "week" {
						secs, e = 7*86400, "day"
						n /= 7
					}
					if r, why := bounded(n, e, secs); r != nil {
						s.Steady = r
					} else {
						s.Rejected = why
					}
				}
			}
		}
	}
	if m := latencyRE.FindStringSubmatch(rest); m != nil {
		if d, _, ok := duration(m[1], latencyUnit(m[2])); ok {
			s.Latency = d
		}
	}
	return s
}

// group is the text of submatch i of a match m of s, "" when it did not
// take part.
func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

func latencyUnit(u string) string {
	if u == "ms" {
		return u
	}
	return "s"
}

// bounded is the rate n per unit when the format takes it, or why not.
func bounded(n float64, unit string, secs float64) (*Rate, string) {
	switch {
	case n <= 0:
		return nil, ""
	case n > maxCount:
		return nil, fmt.Sprintf("%s a %s is over the format's bound of a billion", plain(n), unit)
	case n/secs > maxPerSecond:
		return nil, fmt.Sprintf("%s a %s is over the format's bound of a million a second", plain(n), unit)
	}
	return &Rate{Count: n, Per: unit}, ""
}

// plain writes a number without an exponent.
func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
