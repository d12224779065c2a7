package dataset

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibraryCoherence runs a model written from the format's
// documentation alone (testdata/library.yaml: members, loans, fines,
// renewals, a day's renewal counter; none of the examples' shapes) and
// checks its rules on the files a run writes: loans of existing members,
// due dates 21 days after borrowing, returned loans and only they with a
// return date inside the loan, overdue loans and only they in the sparse
// index with the due date they missed, one fine per overdue loan, the
// member's open loans and fines folding its loans, renewals only of loans
// out, day counters equal to the day's renewals (at most 2, the last 30
// days), the declared shares (states, the largest branch), and member
// keys that are keyed hashes, never a stored name.
func TestLibraryCoherence(t *testing.T) {
	p, err := New(loadModel(t, "testdata/library.yaml"), Options{Scale: 0.25, Seed: 6})
	require.NoError(t, err)
	items := outputItems(t, p)
	es := byEntity(items)
	asOf := p.AsOf.Format("2006-01-02")
	day := func(s string) time.Time {
		d, err := time.ParseInLocation("2006-01-02", s, p.Loc)
		require.NoError(t, err)
		return d
	}
	require.Len(t, es["MEMBER"], 5000)
	members := map[string]bool{}
	branches := map[string]int{}
	names := map[string]bool{}
	hexKey := regexp.MustCompile(`^BR#br[0-9]{2}#M#[0-9a-f]{20}$`)
	for _, it := range es["MEMBER"] {
		assert.Regexp(t, hexKey, str(it, "PK"))
		members[str(it, "PK")] = true
		branches[str(it, "branchId")]++
		names[str(it, "fullName")] = true
	}
	top := 0
	for _, n := range branches {
		top = max(top, n)
	}
	assert.InDelta(t, 0.5, float64(top)/5000, 0.01, "the largest branch holds half the members")

	type loan struct{ state, due string }
	loans := map[string]loan{} // PK|loanId
	open := map[string]int64{}
	states := map[string]int{}
	for _, it := range es["LOAN"] {
		require.True(t, members[str(it, "PK")], "a loan of no member")
		id := strings.TrimPrefix(str(it, "SK"), "LOAN#")
		st, due, out := str(it, "state"), str(it, "dueOn"), str(it, "borrowedOn")
		loans[str(it, "PK")+"|"+id] = loan{st, due}
		states[st]++
		assert.Equal(t, day(out).AddDate(0, 0, 21).Format("2006-01-02"), due, "due 21 days after borrowing")
		assert.Equal(t, st == "RETURNED", has(it, "returnedOn"), "returnedOn exactly on returned loans")
		if st == "RETURNED" {
			back := str(it, "returnedOn")
			assert.True(t, back > out && back <= due, "returned %s, borrowed %s, due %s", back, out, due)
		} else {
			open[str(it, "PK")]++
		}
		assert.Equal(t, st == "OVERDUE", has(it, "overdueSince"), "in the sparse index exactly when overdue")
		switch st {
		case "OVERDUE":
			assert.Equal(t, due, str(it, "overdueSince"))
			assert.Less(t, due, asOf)
		case "OUT":
			assert.GreaterOrEqual(t, due, asOf, "a loan out is not yet due")
		}
	}
	n := float64(len(es["LOAN"]))
	require.Equal(t, 20000, len(es["LOAN"]), "4 loans a member")
	for st, w := range map[string]float64{"OUT": 0.3, "OVERDUE": 0.1, "RETURNED": 0.6} {
		assert.InDelta(t, w, float64(states[st])/n, 0.02, "%s share", st)
	}
	fines := map[string]int64{}
	fined := map[string]int{}
	for _, it := range es["FINE"] {
		id := strings.TrimSuffix(strings.TrimPrefix(str(it, "SK"), "LOAN#"), "#FINE")
		l, ok := loans[str(it, "PK")+"|"+id]
		require.True(t, ok, "a fine of no loan")
		assert.Equal(t, "OVERDUE", l.state)
		fined[str(it, "PK")+"|"+id]++
		fines[str(it, "PK")] += num64(t, it, "amountCents")
	}
	assert.Equal(t, states["OVERDUE"], len(fined), "one fine per overdue loan")
	for _, it := range es["MEMBER"] {
		assert.Equal(t, open[str(it, "PK")], num64(t, it, "openLoans"))
		assert.Equal(t, fines[str(it, "PK")], num64(t, it, "finesCents"))
	}
	perDay := map[string]int64{}
	for _, it := range es["RENEWAL"] {
		sk := strings.Split(strings.TrimPrefix(str(it, "SK"), "LOAN#"), "#R#")
		l, ok := loans[str(it, "PK")+"|"+sk[0]]
		require.True(t, ok, "a renewal of no loan")
		assert.Equal(t, "OUT", l.state, "only loans out are renewed")
		at, err := time.Parse(time.RFC3339, sk[1])
		require.NoError(t, err)
		perDay[str(it, "PK")+"|"+at.In(p.Loc).Format("2006-01-02")]++
	}
	require.NotEmpty(t, es["RENEWAL"])
	since := p.AsOf.AddDate(0, 0, -30).Format("2006-01-02")
	counters := 0
	for _, it := range es["RENEWDAY"] {
		d := strings.TrimPrefix(str(it, "SK"), "RENEW#")
		assert.Equal(t, perDay[str(it, "PK")+"|"+d], num64(t, it, "renewals"), "the day's renewals")
		assert.True(t, d >= since && d < asOf, "a counter of %s", d)
		counters++
	}
	recent := 0
	for k, c := range perDay {
		assert.LessOrEqual(t, c, int64(2), "more than 2 renewals a day: %s", k)
		if d := k[strings.LastIndexByte(k, '|')+1:]; d >= since && d < asOf {
			recent++
		}
	}
	assert.Equal(t, recent, counters, "a counter for every recent day with renewals")
	for _, it := range items {
		for _, k := range []string{"PK", "SK"} {
			for _, part := range strings.Split(str(it.Item, k), "#") {
				assert.False(t, names[part], "a name in a key: %s", str(it.Item, k))
			}
		}
	}
}
