package dataset

import (
	"fmt"
	"math"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/calc"
	"github.com/cardapio/cardapio/catalog"
)

// calcGen compiles a calc rule: the formula over the numbers its names
// hold, rounded as the rule names. A name without a value, or a result
// that is not a finite number (a division by zero), leaves the attribute
// absent.
func (p *Population) calcGen(n *Node, _ *slot, c *catalog.Calc) (genFn, []name, bool, error) {
	names := c.Expr.Names()
	refs := make([]name, len(names))
	for i, nm := range names {
		x, ok := p.resolve(n, nm)
		if !ok {
			return nil, nil, false, fmt.Errorf("the formula reads %s, which is not in scope", nm)
		}
		refs[i] = x
	}
	e, mode, dec := c.Expr, c.Round, c.Decimals
	return func(g *gen, f *frame, _ *rng) (attr.Value, bool) {
		x, ok := e.EvalIndexed(func(i int) (float64, bool) {
			v := g.ref(f, refs[i])
			if v == nil || v.Type != attr.N {
				return 0, false
			}
			x, ok := parseNum(v.Str)
			return x.toFloat(), ok
		})
		if !ok {
			return attr.Value{}, false
		}
		if mode != "" {
			x = calc.Round(x, dec, mode)
		}
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return g.num(int64(x)), true
		}
		return g.numValue(num{f: x, float: true}), true
	}, refs, false, nil
}

// geohashGen compiles a geohash rule: the cell of the latitude and
// longitude in scope at the rule's precision.
func (p *Population) geohashGen(n *Node, _ *slot, gh *catalog.Geohash) (genFn, []name, bool, error) {
	lat, ok := p.resolve(n, gh.Lat)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is not in scope", gh.Lat)
	}
	lon, ok := p.resolve(n, gh.Lon)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is not in scope", gh.Lon)
	}
	prec := gh.Precision
	return func(g *gen, f *frame, _ *rng) (attr.Value, bool) {
		a, b := g.ref(f, lat), g.ref(f, lon)
		if a == nil || b == nil {
			return attr.Value{}, false
		}
		x, ok1 := parseNum(a.Str)
		y, ok2 := parseNum(b.Str)
		if !ok1 || !ok2 {
			return attr.Value{}, false
		}
		h, ok := geohashEncode(x.toFloat(), y.toFloat(), prec)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Str(g.keepBytes(h)), true
	}, []name{lat, lon}, false, nil
}

const geohashBase32 = "0123456789bcdefghjkmnpqrstuvwxyz"

// geohashEncode is the standard geohash (Niemeyer's, base 32) of a
// point with prec characters: bits alternate longitude and latitude,
// longitude first, each halving its interval. False outside
// [-90, 90] x [-180, 180].
func geohashEncode(lat, lon float64, prec int) ([]byte, bool) {
	if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 || prec < 1 || prec > catalog.MaxGeohashPrecision {
		return nil, false
	}
	latLo, latHi, lonLo, lonHi := -90.0, 90.0, -180.0, 180.0
	out := make([]byte, 0, prec)
	for i := 0; len(out) < prec; i++ {
		ch := 0
		for b := 0; b < 5; b++ {
			if (i*5+b)%2 == 0 {
				ch = ch<<1 | halve(&lonLo, &lonHi, lon)
			} else {
				ch = ch<<1 | halve(&latLo, &latHi, lat)
			}
		}
		out = append(out, geohashBase32[ch])
	}
	return out, true
}

// halve narrows [lo, hi] to its half holding x: 1 for the upper half
// (x at the midpoint included), 0 for the lower.
func halve(lo, hi *float64, x float64) int {
	mid := (*lo + *hi) / 2
	if x >= mid {
		*lo = mid
		return 1
	}
	*hi = mid
	return 0
}

// geohashCell is the box a geohash names: its latitude and longitude
// bounds, the inverse of geohashEncode. False for a character outside the
// alphabet.
func geohashCell(h string) (latLo, latHi, lonLo, lonHi float64, ok bool) {
	latLo, latHi, lonLo, lonHi = -90, 90, -180, 180
	for i := 0; i < len(h); i++ {
		v := strings.IndexByte(geohashBase32, h[i])
		if v < 0 {
			return 0, 0, 0, 0, false
		}
		for b := 0; b < 5; b++ {
			// the bit's side, as a point beyond either end of the interval
			side := math.Inf(-1)
			if v>>(4-b)&1 == 1 {
				side = math.Inf(1)
			}
			if (i*5+b)%2 == 0 {
				halve(&lonLo, &lonHi, side)
			} else {
				halve(&latLo, &latHi, side)
			}
		}
	}
	return latLo, latHi, lonLo, lonHi, true
}

// refMatches compiles a reference's match: each pair's name in the
// target's scope, and the item's own name resolved without the
// reference (it is read before the reference is chosen).
func (p *Population) refMatches(n, t *Node, ms []catalog.RefMatch) ([][2]name, error) {
	var out [][2]name
	saved := n.comp.ref
	n.comp.ref = nil
	defer func() { n.comp.ref = saved }()
	for _, m := range ms {
		tn, ok := p.resolve(t, m.Target)
		if !ok || tn.up != 0 || tn.builtin != 0 {
			return nil, fmt.Errorf("match: %s is not %s's own", m.Target, t.Name())
		}
		on, ok := p.resolve(n, m.Own)
		if !ok {
			return nil, fmt.Errorf("match: %s is not in the scope of %s", m.Own, n.Name())
		}
		out = append(out, [2]name{tn, on})
	}
	return out, nil
}

// matchHolds reports whether candidate x's matched attributes equal the
// item's own values (numbers compared as numbers).
func (g *gen) matchHolds(x *frame, match [][2]name, own []*attr.Value) bool {
	for i, m := range match {
		v := g.ref(x, m[0])
		if v == nil || own[i] == nil || !attr.Equal(*v, *own[i]) {
			return false
		}
	}
	return true
}
