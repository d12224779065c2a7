package catalog

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestReferenceScale reads every fact of the reference's size where its
// readers (cost, the dataset generator, the planner) find it.
func TestReferenceScale(t *testing.T) {
	m := reference(t)
	u := m.Scale.BusinessUnit
	require.NotNil(t, u)
	assert.Equal(t, "contracts", u.Name)
	assert.Equal(t, m.Entity("CONTRACT"), u.Entity)
	assert.Equal(t, 8e6, u.Count)
	assert.Equal(t, 95.0, m.Scale.StorageGB)
	assert.Contains(t, m.Scale.History, "collections-history")

	items := func(e string) float64 {
		p := m.Entity(e).Population
		require.NotNil(t, p, e)
		require.True(t, p.Known, e)
		return p.Items
	}
	assert.Equal(t, 8e6, items("CONTRACT"))
	assert.Equal(t, 6e6, items("PROFILE"), "6M debtors")
	assert.Equal(t, 80e6, items("INSTALLMENT"), "10 per contract")
	assert.Equal(t, 160e6, items("EVENT"), "2 per instalment")
	assert.Equal(t, 80000.0, items("PROMISE"))
	inst := m.Entity("INSTALLMENT").Population
	assert.Equal(t, m.Entity("CONTRACT"), inst.Parent)
	assert.Equal(t, &Count{Kind: CountFixed, Mean: 10}, inst.PerParent)
	ag := m.Entity("AGREEMENT").Population
	assert.Equal(t, CountShares, ag.PerParent.Kind)
	assert.Equal(t, []CountShare{{0, 0.95}, {1, 0.05}}, ag.PerParent.Shares)

	// 25% of contracts in collection, and only those have contacts.
	contract := m.Entity("CONTRACT")
	status := contract.attr("status")
	share, ok := status.Values.WeightOf(status.Attribute, []attr.Value{attr.Str("IN_COLLECTION")})
	require.True(t, ok)
	assert.Equal(t, 0.25, share)
	contact := m.Entity("CONTACT").Population
	assert.Equal(t, []Condition{{Attribute: "status", Values: []attr.Value{attr.Str("IN_COLLECTION")}}}, contact.Where)
	assert.Equal(t, 0.25, contact.ParentShare)
	assert.Equal(t, 20e6, contact.Items, "10 a month per contract in collection")
	sms := m.Entity("CONTACT").attr("channel")
	half, _ := sms.Values.WeightOf(sms.Attribute, []attr.Value{attr.Str("SMS")})
	assert.Equal(t, 0.5, half)
	email, _ := sms.Values.WeightOf(sms.Attribute, []attr.Value{attr.Str("EMAIL")})
	assert.Equal(t, 0.125, email, "the other four channels share the rest evenly")
	bucket := m.Attribute("bucket")
	b31, _ := bucket.Values.WeightOf(bucket, []attr.Value{attr.Str("D031_060")})
	assert.Equal(t, 0.25, b31)

	// The tenants: 40, the largest holding 60%, the rest by Zipf's law.
	tenant := m.Attribute("tenantId")
	require.NotNil(t, tenant.Skew)
	assert.Equal(t, int64(40), tenant.Skew.N)
	assert.Equal(t, 0.6, tenant.Skew.Largest())
	sum := 0.0
	for r := int64(0); r < 40; r++ {
		sum += tenant.Skew.Share(r)
		if r > 0 {
			assert.LessOrEqual(t, tenant.Skew.Share(r+1), tenant.Skew.Share(r))
		}
	}
	assert.InDelta(t, 1, sum, 1e-9)
	assert.InDelta(t, 0.4/harmonic(39), tenant.Skew.Share(1), 1e-12)
	assert.Contains(t, tenant.Skew.Growth, "double in two years")
	n, ok := m.Attribute("shard").Distinct()
	assert.True(t, ok)
	assert.Equal(t, int64(16), n)

	// Rates: settlements, contacts and reschedules per contract in
	// collection, bucket moves; the paydays by name.
	claim := m.Operation("ClaimContact").Volume
	require.NotNil(t, claim.Relative)
	assert.Equal(t, 2e6, claim.Relative.Items)
	assert.Equal(t, 10.0, *claim.Relative.PerMonth)
	assert.Equal(t, 20e6, *claim.PerMonth)
	assert.Equal(t, 20e6, *m.Operation("RescheduleNextAction").Volume.PerMonth)
	assert.Equal(t, 270000.0, *m.Operation("ApplySettlement").Volume.PerDay)
	assert.Equal(t, 2e6, *m.Operation("MoveBucket").Volume.PerMonth)
	assert.Equal(t, []string{"fifth-business-day", "inss", "holiday-eve"}, m.Operation("ApplySettlement").Volume.Peaks)
	require.Len(t, m.Scale.Peaks, 3)
	pd := m.Peak("fifth-business-day")
	require.NotNil(t, pd)
	assert.Equal(t, 3.0, pd.Factor)
	assert.True(t, pd.Prewarm)
	assert.Equal(t, 2.5, m.Peak("inss").Factor)
	assert.Equal(t, 1.5, m.Peak("holiday-eve").Factor)
	assert.False(t, m.Peak("holiday-eve").Prewarm)
	assert.Equal(t, []string{"fifth-business-day", "inss", "holiday-eve"}, m.AccessPattern("AP06").Velocity.Peak.Peaks)
	for _, s := range m.Scenarios {
		if s.Name == "payday" {
			assert.Equal(t, pd, s.Peak)
		}
	}
}

func harmonic(n int) float64 {
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / float64(k)
	}
	return h
}

// TestPresenceRules: the rules of the reference hold on its samples, and
// CheckItem says what a broken item breaks.
func TestPresenceRules(t *testing.T) {
	m := reference(t)
	for _, e := range m.Entities {
		for _, s := range e.Samples {
			assert.Empty(t, e.CheckItem(s.Item), "%s/%s", e.Name, s.Name)
		}
	}
	c := m.Entity("CONTRACT")
	cured, _ := c.Sample("cured")
	bad := cured.With("bucket", attr.Str("D031_060"))
	errs := c.CheckItem(bad)
	require.Len(t, errs, 1)
	assert.Equal(t, "bucket: present, but it exists only while status is IN_COLLECTION (here status is ACTIVE)", errs[0].Error())
	full, _ := c.Sample("full")
	errs = c.CheckItem(full.With("outstandingCents", attr.Num("-1")).With("shard", attr.Num("16")).Without("version"))
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	assert.ElementsMatch(t, []string{
		"outstandingCents: -1 is below the minimum 0 of outstandingCents",
		"shard: 16 is above the maximum 15 of shard",
		"version: missing: it is required",
	}, msgs)
	errs = c.CheckItem(full.With("SK", attr.Str("CT#C-2026-000001")))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "is not what its template CT#{contractId} renders")
}

// TestDomainChecks holds values to every kind of bound.
func TestDomainChecks(t *testing.T) {
	m := reference(t)
	cases := []struct {
		attr string
		v    attr.Value
		err  string
	}{
		{"bucket", attr.Str("D031_06"), `"D031_06" is not a value of bucket (did you mean "D031_060"?)`},
		{"seq", attr.Num("7.5"), "7.5 is not a whole number, which seq holds"},
		{"seq", attr.Num("1000"), "1000 is above the maximum 999 of seq"},
		{"finePct", attr.Num("0.03"), "0.03 is above the maximum 0.02 of finePct"},
		{"debtorKey", attr.Str("9F2C1A7E4B0D3E61"), `"9F2C1A7E4B0D3E61" does not match the pattern of debtorKey: [0-9a-f]{16}`},
		{"eventAt", attr.Str("2026-09-23T18:40:12Z"), `"2026-09-23T18:40:12Z" is not written in the instant format: UTC with milliseconds, such as 2026-09-24T03:07:01.000Z`},
		{"contactAt", attr.Str("2026-09-20T12:00:04Z"), `"2026-09-20T12:00:04Z" is not written in the instant format: offset -03:00 with whole seconds, such as 2026-09-24T00:07:01-03:00`},
		{"imputationOrder", attr.ListOf(), "0 elements, fewer than the 1 imputationOrder needs"},
		{"imputationOrder", attr.ListOf(attr.Str("fine"), attr.Str("fin")), `element 1: "fin" is not a value of imputationOrder[] (did you mean "fine"?)`},
		{"channelPrefs", attr.MapOf(attr.Item{{Name: "smss", Value: attr.Bool(true)}}), `smss is not a member of channelPrefs (did you mean "sms"?)`},
		{"channelPrefs", attr.MapOf(attr.Item{{Name: "sms", Value: attr.Str("yes")}}), "member sms: expected a BOOL, got an S"},
		{"outstandingCents", attr.Str("1"), "expected an N, got an S"},
	}
	for _, c := range cases {
		a := m.Attribute(c.attr)
		require.NotNil(t, a, c.attr)
		err := a.Check(c.v)
		if assert.Error(t, err, c.attr) {
			assert.Equal(t, c.err, err.Error())
		}
	}
	for _, ok := range []struct {
		attr string
		v    attr.Value
	}{
		{"eventAt", attr.Str("2026-09-23T18:40:12.512Z")},
		{"contactAt", attr.Str("2026-09-20T09:00:04-03:00")},
		{"seq", attr.Num("7")},
		{"imputationOrder", attr.ListOf(attr.Str("interest"), attr.Str("principal"))},
	} {
		assert.NoError(t, m.Attribute(ok.attr).Check(ok.v), ok.attr)
	}
}

// TestZipfNorm: the approximated tail agrees with the exact sum.
func TestZipfNorm(t *testing.T) {
	for _, s := range []float64{0.5, 0.7, 1, 1.2, 2} {
		for _, m := range []int64{1, 39, 10000, 10001, 123456} {
			exact := 0.0
			for k := int64(1); k <= m; k++ {
				exact += math.Pow(float64(k), -s)
			}
			assert.InEpsilon(t, exact, zipfNorm(m, s), 1e-12, "s %v m %d", s, m)
		}
	}
}
