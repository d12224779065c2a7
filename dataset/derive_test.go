package dataset

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/calc"
	"github.com/cardapio/cardapio/catalog"
)

// TestGeohashVectors: the encoding is the standard one (published
// vectors), and a cell decodes into the box that holds its point.
func TestGeohashVectors(t *testing.T) {
	for _, c := range []struct {
		lat, lon float64
		prec     int
		want     string
	}{
		{57.64911, 10.40744, 11, "u4pruydqqvj"},
		{42.6, -5.6, 5, "ezs42"},
		{0, 0, 5, "s0000"},
		{-90, -180, 4, "0000"},
		{90, 180, 4, "zzzz"},
		{-23.5505, -46.6333, 6, "6gyf4b"},
	} {
		got, ok := geohashEncode(c.lat, c.lon, c.prec)
		require.True(t, ok)
		assert.Equal(t, c.want, string(got), "%v,%v", c.lat, c.lon)
		latLo, latHi, lonLo, lonHi, ok := geohashCell(c.want)
		require.True(t, ok)
		assert.True(t, latLo <= c.lat && c.lat <= latHi && lonLo <= c.lon && c.lon <= lonHi, "%s holds %v,%v", c.want, c.lat, c.lon)
	}
	for _, bad := range [][2]float64{{91, 0}, {0, 181}, {math.NaN(), 0}} {
		_, ok := geohashEncode(bad[0], bad[1], 5)
		assert.False(t, ok, "%v", bad)
	}
	_, _, _, _, ok := geohashCell("ab!")
	assert.False(t, ok)
}

// TestDerivedRules generates the credit model (an independent model of
// the commands' tests) and holds every item to its rules: each
// instalment is the Price-table formula over its contract's principal,
// rate and term rounded half-even to the cent, and the total the
// instalment times the term; a computed shard is present exactly while
// its presence rule (an entity's when, or a dataset rule's cases) lets
// it be, and is then its computation; an optional attribute with a share
// is carried by about that share; a geohash cell holds its branch's
// point; a customer's branch is one the population holds although the
// dictionary draws branch ids from values; and an event's charge is the
// charge of its own instalment (a reference matched on an attribute).
func TestDerivedRules(t *testing.T) {
	const path = "../internal/cli/testdata/datamodels/credit.yaml"
	p := population(t, path, 1, 11)
	items, err := p.Items()
	require.NoError(t, err)
	num := func(it attr.Item, name string) float64 {
		v, ok := it.Get(name)
		require.True(t, ok, "%s carries %s", it, name)
		f, err := strconv.ParseFloat(v.Str, 64)
		require.NoError(t, err)
		return f
	}
	str := func(it attr.Item, name string) (string, bool) {
		v, ok := it.Get(name)
		return v.Str, ok
	}
	branches := map[string]bool{}
	charges := map[string]string{} // customer#contract#seq -> chargeId
	type event struct{ key, charge string }
	var events []event
	counts := map[string]int{}
	phones := 0
	for _, x := range items {
		it := x.Item
		counts[x.Entity]++
		switch x.Entity {
		case "BRANCH":
			id, _ := str(it, "branchId")
			branches[id] = true
			lat, lon := num(it, "lat"), num(it, "lon")
			cell, ok := str(it, "cell")
			require.True(t, ok)
			require.Len(t, cell, 6)
			latLo, latHi, lonLo, lonHi, ok := geohashCell(cell)
			require.True(t, ok)
			assert.True(t, latLo <= lat && lat <= latHi && lonLo <= lon && lon <= lonHi, "cell %s holds %v,%v", cell, lat, lon)
			want, _ := geohashEncode(lat, lon, 6)
			assert.Equal(t, string(want), cell)
		case "CUSTOMER":
			if _, ok := str(it, "phone"); ok {
				phones++
			}
		case "CONTRACT":
			pr, rate, term := num(it, "principalCents"), num(it, "monthlyRate"), num(it, "term")
			inst := calc.Round(pr*rate/(1-math.Pow(1+rate, -term)), 0, calc.HalfEven)
			assert.Equal(t, inst, num(it, "instalmentCents"), "the instalment of %v at %v for %v", pr, rate, term)
			assert.Equal(t, inst*term, num(it, "totalCents"))
			id, _ := str(it, "contractId")
			st, _ := str(it, "contractStatus")
			q, hasQ := it.Get("queueShard")
			assert.Equal(t, st == "ACTIVE", hasQ, "queueShard on a %s contract", st)
			if hasQ {
				assert.Equal(t, strconv.Itoa(catalog.HashMod(id, 8)), q.Str)
			}
			rv, hasR := it.Get("reviewShard")
			assert.Equal(t, rate > 0.03, hasR, "reviewShard at a rate of %v", rate)
			if hasR {
				assert.Equal(t, strconv.Itoa(catalog.HashMod(id, 4)), rv.Str)
			}
		case "CHARGE", "EVENT":
			pk, _ := str(it, "PK")
			sk, _ := str(it, "SK")
			var cust, contract, rest string
			cust = pk
			contract, rest, _ = cutAfter(sk, "K#", "#")
			if x.Entity == "CHARGE" {
				seq, _, _ := cutAfter(rest, "I#", "#")
				n, _ := strconv.Atoi(seq)
				id, _ := str(it, "chargeId")
				charges[cust+"|"+contract+"|"+strconv.Itoa(n)] = id
				continue
			}
			id, _ := str(it, "chargeId")
			events = append(events, event{cust + "|" + contract + "|" + strconv.Itoa(int(num(it, "instalmentNo"))), id})
		}
	}
	for _, x := range items {
		if x.Entity == "CUSTOMER" {
			b, _ := str(x.Item, "branchId")
			assert.True(t, branches[b], "customer of branch %s, which the population does not hold", b)
		}
	}
	require.NotEmpty(t, events)
	for _, e := range events {
		c, ok := charges[e.key]
		require.True(t, ok, "the event's instalment %s has a charge", e.key)
		assert.Equal(t, c, e.charge, "the event of %s names its own instalment's charge", e.key)
	}
	share := float64(phones) / float64(counts["CUSTOMER"])
	assert.InDelta(t, 0.3, share, 0.05, "customers with a phone (share 0.3 of %d)", counts["CUSTOMER"])
	t.Logf("items %v; phone share %.3f", counts, share)
}

// cutAfter returns what follows prefix in s up to sep, and the rest.
func cutAfter(s, prefix, sep string) (string, string, bool) {
	for i := 0; i+len(prefix) <= len(s); i++ {
		if s[i:i+len(prefix)] == prefix {
			s = s[i+len(prefix):]
			for j := 0; j < len(s); j++ {
				if s[j:j+1] == sep {
					return s[:j], s[j+1:], true
				}
			}
			return s, "", true
		}
	}
	return "", "", false
}

// TestGeohashCells: every driver of the ride-hailing model (an
// independent model of the commands' tests) carries the geohash cell of
// its drawn position, which decodes into a box holding it.
func TestGeohashCells(t *testing.T) {
	p := population(t, "../internal/cli/testdata/models/ridehail.yaml", 1, 3)
	items, err := p.Items()
	require.NoError(t, err)
	n := 0
	for _, x := range items {
		if x.Entity != "DRIVER" {
			continue
		}
		n++
		lat, _ := x.Item.Get("lat")
		lon, _ := x.Item.Get("lon")
		cell, ok := x.Item.Get("cell")
		require.True(t, ok)
		a, _ := strconv.ParseFloat(lat.Str, 64)
		b, _ := strconv.ParseFloat(lon.Str, 64)
		latLo, latHi, lonLo, lonHi, ok := geohashCell(cell.Str)
		require.True(t, ok, cell.Str)
		require.Len(t, cell.Str, 5)
		require.True(t, latLo <= a && a <= latHi && lonLo <= b && b <= lonHi, "cell %s holds %v,%v", cell.Str, a, b)
	}
	require.Equal(t, 2000, n)
}
