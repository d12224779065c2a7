package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// byEntity groups generated items by entity.
func byEntity(items []Item) map[string][]attr.Item {
	out := map[string][]attr.Item{}
	for _, it := range items {
		out[it.Entity] = append(out[it.Entity], it.Item)
	}
	return out
}

func str(it attr.Item, name string) string {
	v, _ := it.Get(name)
	return v.Str
}

func num64(t *testing.T, it attr.Item, name string) int64 {
	t.Helper()
	v, ok := it.Get(name)
	require.True(t, ok, "no %s in %s", name, attr.AppendItemJSON(nil, it))
	n, err := strconv.ParseInt(v.Str, 10, 64)
	require.NoError(t, err)
	return n
}

func has(it attr.Item, name string) bool { _, ok := it.Get(name); return ok }

// TestLoansCoherence checks, on the loans model of the catalog's corpus,
// that the declared rules hold between items: a loan's bucket agrees
// with its oldest overdue due date as of the population's day and with
// its instalments, its balance and overdue count fold its instalments,
// the payments of a paid instalment add up to what it paid, a day's
// counter equals the account's payments that day and respects its max,
// and a loan's parts add up to its balance.
func TestLoansCoherence(t *testing.T) {
	p := population(t, models[1], 1, 9)
	items, err := p.Items()
	require.NoError(t, err)
	es := byEntity(items)
	asOf := p.AsOf
	loanKey := func(it attr.Item) string { return str(it, "PK") + "|" + strings.Split(str(it, "SK"), "#I#")[0] }
	type agg struct {
		overdue, balance int64
		oldest           string
		n                int
	}
	insts := map[string]*agg{}
	paid := map[string]int64{} // loanId#seq -> paid
	for _, it := range es["INSTALMENT"] {
		k := loanKey(it)
		a := insts[k]
		if a == nil {
			a = &agg{}
			insts[k] = a
		}
		a.n++
		a.balance += num64(t, it, "amount") - num64(t, it, "paid")
		st := str(it, "status")
		due := str(it, "dueDate")
		switch st {
		case "OVERDUE":
			a.overdue++
			if a.oldest == "" || due < a.oldest {
				a.oldest = due
			}
			assert.Less(t, due, asOf.Format("2006-01-02"), "an overdue instalment is due before as-of")
			assert.Zero(t, num64(t, it, "paid"))
		case "PAID":
			assert.Equal(t, num64(t, it, "amount"), num64(t, it, "paid"))
		case "OPEN":
			assert.GreaterOrEqual(t, due, asOf.Format("2006-01-02"), "an open instalment is not yet due")
		}
		sk := str(it, "SK")
		loan := strings.TrimPrefix(strings.Split(sk, "#I#")[0], "L#")
		seq := strings.Split(sk, "#I#")[1]
		if st == "PAID" {
			paid[loan+"#"+seq] = num64(t, it, "paid")
		}
	}
	require.NotEmpty(t, insts)
	bands := map[string][2]float64{"D030": {1, 30}, "D060": {31, 60}, "D999": {61, 365}}
	late := 0
	for _, it := range es["LOAN"] {
		a := insts[str(it, "PK")+"|"+str(it, "SK")]
		require.NotNil(t, a, "a loan without instalments")
		assert.Equal(t, a.balance, num64(t, it, "balance"))
		assert.Equal(t, a.overdue, num64(t, it, "overdue"))
		switch str(it, "status") {
		case "LATE":
			late++
			require.True(t, has(it, "bucket") && has(it, "oldestDue"))
			assert.Equal(t, a.oldest, str(it, "oldestDue"), "the oldest overdue instalment's due date")
			d, _ := time.ParseInLocation("2006-01-02", str(it, "oldestDue"), p.Loc)
			days := civilDays(d, asOf)
			rg := bands[str(it, "bucket")]
			assert.True(t, days >= rg[0] && days <= rg[1], "bucket %s for %v days past due", str(it, "bucket"), days)
		case "CURRENT":
			assert.False(t, has(it, "bucket") || has(it, "oldestDue"), "a current loan carries no delinquency")
			assert.Zero(t, a.overdue)
		}
	}
	assert.InDelta(t, 0.3, float64(late)/float64(len(es["LOAN"])), 0.06, "late share")

	// Payments: each names a paid instalment, and a paid instalment's
	// payments add up to what it paid.
	sums := map[string]int64{}
	perDay := map[string]int{}
	for _, it := range es["PAYMENT"] {
		to := str(it, "appliedTo")
		_, ok := paid[to]
		require.True(t, ok, "payment applied to %s, which is not a paid instalment", to)
		sums[to] += num64(t, it, "amount")
		at, err := time.Parse(time.RFC3339, str(it, "paidAt"))
		require.NoError(t, err)
		day := at.In(p.Loc).Format("2006-01-02")
		perDay[strings.SplitN(str(it, "PK"), "#P#", 2)[0]+"|"+str(it, "accountKey")+"|"+day]++
	}
	for k, v := range paid {
		assert.Equal(t, v, sums[k], "payments of %s", k)
	}
	// Day counters: the account's payments that day, at most 2, only for
	// the last 60 days, and every such day has one.
	since := asOf.AddDate(0, 0, -60).Format("2006-01-02")
	counters := 0
	for _, it := range es["PAYDAY"] {
		pk := strings.Split(str(it, "PK"), "#A#")
		day := strings.TrimPrefix(str(it, "SK"), "DAY#")
		n := num64(t, it, "payments")
		assert.Equal(t, int64(perDay[pk[0]+"|"+pk[1]+"|"+day]), n, "day %s of %s", day, pk[1])
		assert.LessOrEqual(t, n, int64(2))
		assert.GreaterOrEqual(t, day, since)
		counters++
	}
	recent := 0
	for k, n := range perDay {
		assert.LessOrEqual(t, n, 2, "a day over its max: %s", k)
		if day := k[strings.LastIndex(k, "|")+1:]; day >= since && day < asOf.Format("2006-01-02") {
			recent++
		}
	}
	assert.Equal(t, recent, counters, "one counter for every recent day with payments")

	// Parts: a loan's parts add up to its balance.
	parts := map[string]int64{}
	for _, it := range es["PART"] {
		parts[str(it, "PK")+"|"+strings.Split(str(it, "SK"), "#S#")[0]] += num64(t, it, "share")
	}
	for _, it := range es["LOAN"] {
		if v, ok := parts[str(it, "PK")+"|"+str(it, "SK")]; ok {
			assert.Equal(t, num64(t, it, "balance"), v, fmt.Sprintf("parts of %s", str(it, "SK")))
		}
	}
}
