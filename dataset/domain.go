package dataset

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// A finite domain is the list of values an attribute can take when its
// values are drawn rather than unique: its enum, or its cardinality's
// values rendered by its pattern (t{n:03}: t001...t040).

// maxDomain caps a rendered domain: beyond it values are rendered on
// demand from their index.
const maxDomain = 1 << 16

// domainValues lists an attribute's finite domain, or nil when it has none
// (or it is larger than maxDomain).
func domainValues(a *catalog.Attribute) []string {
	if a == nil {
		return nil
	}
	if len(a.Enum) > 0 {
		return a.Enum
	}
	if a.Cardinality <= 0 || a.Cardinality > maxDomain {
		return nil
	}
	out := make([]string, a.Cardinality)
	for i := range out {
		out[i] = domainValue(a, int64(i))
	}
	return out
}

// domainValue renders value i (0-based) of an attribute's cardinality:
// by its pattern ({n} is i+1), a number for N, else a name and a number.
func domainValue(a *catalog.Attribute, i int64) string {
	if a.Values != nil && a.Values.Kind == "pattern" && a.Values.Pattern != "" {
		if s, ok := renderPattern(a.Values.Pattern, i+1, 0); ok {
			return s
		}
	}
	if a.Pattern != nil {
		// Value i of a domain given by a regular expression: drawn from
		// the expression with a stream keyed by i, so value i is always
		// the same string (a customer id that orders again and again).
		if rx, ok := newRegexGen(a.Pattern.Text); ok {
			r := newRNG(key2(hashString("value:"+a.Name), uint64(i)))
			for try := 0; try < 8; try++ {
				if b := rx.append(nil, &r); a.Pattern.MatchString(string(b)) {
					return string(b)
				}
			}
		}
	}
	if a.Type == attr.N {
		return strconv.FormatInt(i+1, 10)
	}
	w := len(strconv.FormatInt(max(a.Cardinality, 1), 10))
	return strings.ToUpper(prefixOf(a.Name)) + pad(i+1, w)
}

// prefixOf is a short readable prefix for synthetic values of an
// attribute: its first letters (productCode -> PROD).
func prefixOf(name string) string {
	if len(name) > 4 {
		return name[:4]
	}
	return name
}

func pad(n int64, w int) string {
	s := strconv.FormatInt(n, 10)
	if len(s) < w {
		s = strings.Repeat("0", w-len(s)) + s
	}
	return s
}

// renderPattern fills a value pattern: {n} or {n:0W} with n, {year} with
// year (the as-of year when 0; a number wider than W moves to earlier
// years, C-{year}-{n:06} giving C-2025-999999 before C-2026-000000).
func renderPattern(pat string, n int64, year int) (string, bool) {
	t, err := catalog.ParseTemplate(pat)
	if err != nil {
		return "", false
	}
	width := 0
	for _, p := range t.Parts {
		if p.Attr == "n" {
			width = p.Width
		}
	}
	hasYear := false
	for _, p := range t.Parts {
		if p.Attr == "year" {
			hasYear = true
		}
	}
	if hasYear && width > 0 && year > 0 {
		span := int64(math.Pow10(width))
		year -= int(n / span)
		n %= span
	}
	var b strings.Builder
	for _, p := range t.Parts {
		switch p.Attr {
		case "":
			b.WriteString(p.Literal)
		case "n":
			if p.Width > 0 {
				b.WriteString(pad(n, p.Width))
			} else {
				b.WriteString(strconv.FormatInt(n, 10))
			}
		case "year":
			b.WriteString(strconv.Itoa(year))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// weights returns the shares of a domain's values: a distribution's
// weights (values it does not list share what the listed ones leave,
// evenly), a zipf's, the attribute's skew (the largest values' shares,
// the rest uniform or zipf), or even shares; nil when the domain is not
// a finite one.
func weights(d *catalog.Distribution, dom []string, card int64, skew *catalog.Skew) []float64 {
	n := len(dom)
	if n == 0 {
		n = int(card)
	}
	if n <= 0 || n > maxDomain {
		return nil
	}
	w := make([]float64, n)
	switch {
	case d != nil && len(d.Weights) > 0 && len(dom) > 0:
		listed, unlisted := 0.0, 0
		for i, v := range dom {
			if x, ok := d.Weights[v]; ok {
				w[i] = x
				listed += x
			} else {
				unlisted++
			}
		}
		if unlisted > 0 && listed < 1 {
			rest := (1 - listed) / float64(unlisted)
			for i, v := range dom {
				if _, ok := d.Weights[v]; !ok {
					w[i] = rest
				}
			}
		}
	case d != nil && d.Kind == "zipf":
		s := 1.1
		if d.S != nil {
			s = *d.S
		}
		for i := range w {
			w[i] = 1 / math.Pow(float64(i+1), s)
		}
	case skew != nil:
		for i := range w {
			w[i] = skew.Share(int64(i))
		}
	default:
		for i := range w {
			w[i] = 1
		}
	}
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	if sum <= 0 {
		return nil
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// cumulative turns weights into a cumulative table for draws.
func cumulative(w []float64) []float64 {
	c := make([]float64, len(w))
	s := 0.0
	for i, x := range w {
		s += x
		c[i] = s
	}
	if len(c) > 0 {
		c[len(c)-1] = 1
	}
	return c
}

// pick returns the index whose cumulative range holds u in [0, 1).
func pick(cum []float64, u float64) int {
	i := sort.SearchFloat64s(cum, u)
	if i < len(cum) && cum[i] == u {
		i++
	}
	return min(i, len(cum)-1)
}

// rankDraw draws a value rank of a large domain (n values) by a skew,
// without a table of n weights: the top shares first, then the rest
// uniformly, or by Zipf's law through the inverse of its continuous
// distribution function (k^(1-s) grows linearly in u).
func rankDraw(sk *catalog.Skew, n int64, r *rng) int64 {
	u := r.Float()
	top := 0.0
	if sk != nil {
		for i, t := range sk.Top {
			if u < top+t {
				return int64(i)
			}
			top += t
		}
	}
	k0 := int64(0)
	if sk != nil {
		k0 = int64(len(sk.Top))
	}
	m := n - k0
	if m <= 0 {
		return max(n-1, 0)
	}
	v := (u - top) / math.Max(1-top, 1e-12) // uniform in [0, 1) over the rest
	if sk == nil || sk.Rest != "zipf" || sk.S <= 0 {
		return k0 + min(int64(v*float64(m)), m-1)
	}
	s := sk.S
	var k float64
	if math.Abs(s-1) < 1e-9 {
		k = math.Exp(v * math.Log(float64(m)+1))
	} else {
		e := 1 - s
		k = math.Pow(v*(math.Pow(float64(m)+1, e)-1)+1, 1/e)
	}
	return k0 + min(max(int64(k)-1, 0), m-1)
}
