package dataset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset/datasettest"
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

// TestLoansCoherence checks, on the loans model of the catalog's corpus
// (read back from the files a run writes), that the declared rules hold between items: a loan's bucket agrees
// with its oldest overdue due date as of the population's day and with
// its instalments, its balance and overdue count fold its instalments,
// the payments of a paid instalment add up to what it paid, a day's
// counter equals the account's payments that day and respects its max,
// and a loan's parts add up to its balance.
func TestLoansCoherence(t *testing.T) {
	p := population(t, models[1], 1, 9)
	items := outputItems(t, p)
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

// TestReferenceCoherence checks, reading the files a run writes as any
// reader of the output would (JSON lines decoded, items named by their
// discriminator), the reference population's rules between items:
// contracts of existing debtors, instalments of existing contracts, the
// delinquency fact and bucket of a contract agreeing with its
// instalments as of the run's as-of date (the model's and another),
// cured contracts off the agenda, pending promises pausing their
// contract, charges for instalments still to pay, settlements adding up
// to what an instalment paid, day counters equal to the day's contacts
// (at most 3), sparse index attributes present exactly as the presence
// rules say, debtor keys the HMAC of a valid CPF (decrypted from the
// stored documentEnc with the model's test key) with the tenant's test
// secret, and the declared shares (the largest tenant, contracts in
// collection, buckets).
func TestReferenceCoherence(t *testing.T) {
	for _, asOf := range []time.Time{time.Date(2026, 9, 24, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 11, 0, 0, 0, 0, time.UTC)} {
		t.Run(asOf.Format("2006-01-02"), func(t *testing.T) {
			p, err := New(loadModel(t, models[0]), Options{Scale: 0.0005, Seed: 17, AsOf: asOf})
			require.NoError(t, err)
			referenceCoherence(t, p, outputItems(t, p))
		})
	}
}

func referenceCoherence(t *testing.T, p *Population, items []Item) {
	key := testKey(p.Model.Name)
	keyed := 0
	for _, it := range items {
		if it.Entity != "PROFILE" {
			continue
		}
		pk := strings.Split(str(it.Item, "PK"), "#")
		enc, ok := it.Item.Get("documentEnc")
		require.True(t, ok && enc.Type == attr.B, "a profile without its encrypted document")
		plain, err := key.Open(nil, []byte(enc.Str[:12]), []byte(enc.Str[12:]), nil)
		require.NoError(t, err, "documentEnc does not decrypt with the model's test key")
		doc := string(plain)
		require.True(t, ValidCPF(doc), "the document %q is not a valid CPF", doc)
		want := catalog.HMACHex(TestSecret(p.Model.Name, pk[1]), catalog.NormalizeDigits(doc), 16)
		assert.Equal(t, want, pk[3], "debtorKey is the HMAC of the CPF with the tenant's test secret")
		keyed++
	}
	require.Greater(t, keyed, 1000)
	// Presence rules, on every item: an attribute is there only where its
	// rules allow it, and always where they require it; the index key
	// attributes among them make the sparse indexes hold exactly the
	// items the rules say.
	ruled, broken := 0, 0
	for _, it := range items {
		e := p.Model.Entity(it.Entity)
		indexKeys := map[string]bool{}
		for _, x := range e.Table.Indexes {
			for _, k := range x.KeyAttributes() {
				indexKeys[k] = true
			}
		}
		for _, ea := range e.Attributes {
			if ea.Presence == catalog.KeyOnly {
				continue // held by the keys, not stored
			}
			_, present := it.Item.Get(ea.Name)
			if ea.Needs(it.Item) && !present || present && !ea.Allows(it.Item) {
				broken++
				if broken <= 5 {
					t.Errorf("%s has %s = %v, its presence rules say required %v, allowed %v: %s", it.Entity, ea.Name, present, ea.Needs(it.Item), ea.Allows(it.Item), attr.AppendItemJSON(nil, it.Item))
				}
			}
			if indexKeys[ea.Name] && (len(ea.When) > 0 || len(ea.Unless) > 0) {
				ruled++
			}
		}
	}
	require.Zero(t, broken, "items that break a presence rule")
	require.Greater(t, ruled, 1000, "items with index keys under presence rules")
	es := byEntity(items)
	asOf := p.AsOf.Format("2006-01-02")

	profiles := map[string]bool{}
	for _, it := range es["PROFILE"] {
		profiles[str(it, "PK")] = true
	}
	type inst struct {
		status      string
		due, paid   int64
		owed        int64
		dueDate     string
		settlements int64
	}
	insts := map[string]*inst{} // contractId#seq
	perContract := map[string][]*inst{}
	for _, it := range es["INSTALLMENT"] {
		sk := strings.Split(str(it, "SK"), "#")
		due := num64(t, it, "principalCents") + num64(t, it, "interestCents") + num64(t, it, "fineCents") + num64(t, it, "lateInterestCents")
		in := &inst{status: str(it, "status"), due: due, paid: num64(t, it, "paidCents"), dueDate: str(it, "dueDate")}
		in.owed = due - in.paid
		insts[sk[1]+"#"+sk[3]] = in
		perContract[str(it, "PK")+"|"+sk[1]] = append(perContract[str(it, "PK")+"|"+sk[1]], in)
	}
	contractIDs := map[string]bool{}
	for _, it := range es["CONTRACT"] {
		contractIDs[str(it, "PK")+"|"+str(it, "contractId")] = true
	}
	for k := range perContract {
		assert.True(t, contractIDs[k], "instalments of %s, a contract that does not exist", k)
	}
	contracts := map[string]attr.Item{}
	tenants := map[string]int{}
	cured := 0
	inCollection := 0
	buckets := map[string]int{}
	for _, it := range es["CONTRACT"] {
		assert.True(t, profiles[str(it, "PK")], "a contract of a debtor without a profile")
		id := str(it, "contractId")
		contracts[id] = it
		tenants[str(it, "tenantId")]++
		ins := perContract[str(it, "PK")+"|"+id]
		require.NotEmpty(t, ins, "a contract without instalments")
		var owed int64
		oldest := ""
		for _, in := range ins {
			owed += in.owed
			if in.status == "OVERDUE" && (oldest == "" || in.dueDate < oldest) {
				oldest = in.dueDate
			}
		}
		assert.Equal(t, owed, num64(t, it, "outstandingCents"), "outstandingCents is what the instalments owe")
		switch str(it, "status") {
		case "IN_COLLECTION":
			inCollection++
			require.NotEmpty(t, oldest, "a contract in collection without an overdue instalment")
			assert.Equal(t, oldest, str(it, "oldestOverdueDueDate"))
			d, _ := time.ParseInLocation("2006-01-02", oldest, p.Loc)
			days := civilDays(d, p.AsOf)
			b := str(it, "bucket")
			buckets[b]++
			rg := map[string][2]float64{"D001_030": {1, 30}, "D031_060": {31, 60}, "D061_090": {61, 90}, "D091_PLUS": {91, 720}}[b]
			assert.True(t, days >= rg[0] && days <= rg[1], "bucket %s at %v days past due", b, days)
		case "ACTIVE":
			assert.Empty(t, oldest, "an active contract with an overdue instalment")
			for _, a := range []string{"bucket", "oldestOverdueDueDate", "nextActionDate", "nextAction"} {
				assert.False(t, has(it, a), "an active contract carries %s", a)
			}
		}
		if str(it, "statusReason") == "CURED_BY_PAYMENT" {
			cured++
			assert.False(t, has(it, "nextActionDate"), "a cured contract carries no nextActionDate")
		}
	}
	n := float64(len(es["CONTRACT"]))
	assert.InDelta(t, 0.6, float64(tenants["t001"])/n, 0.02, "the largest tenant holds 60%% of the contracts")
	assert.InDelta(t, 0.25, float64(inCollection)/n, 0.02, "25%% in collection")
	for b, w := range map[string]float64{"D001_030": 0.40, "D031_060": 0.25, "D061_090": 0.15, "D091_PLUS": 0.20} {
		assert.InDelta(t, w, float64(buckets[b])/float64(inCollection), 0.03, "bucket %s share", b)
	}

	assert.Greater(t, cured, 50, "cured contracts")
	// Pending promises pause their contract.
	pending := 0
	for _, it := range es["PROMISE"] {
		c := contracts[str(it, "contractId")]
		require.NotNil(t, c)
		assert.Equal(t, str(c, "PK"), str(it, "PK"))
		if str(it, "status") == "PENDING" {
			pending++
			assert.False(t, has(c, "nextActionDate"), "a contract with a pending promise is off the agenda")
			assert.Equal(t, "PROMISE_CHECK", str(it, "nextAction"))
		}
	}
	assert.Greater(t, pending, 10, "pending promises")
	// Charges are for instalments still to pay, of what they owe.
	charges := 0
	for _, it := range es["CHARGE"] {
		charges++
		in := insts[str(it, "contractId")+"#"+fmt.Sprintf("%03d", num64(t, it, "seq"))]
		require.NotNil(t, in, "a charge for no instalment")
		assert.Contains(t, []string{"OPEN", "OVERDUE"}, in.status)
		assert.Equal(t, in.owed, num64(t, it, "amountCents"))
		ref := strings.TrimPrefix(str(it, "PK"), "T#"+str(contracts[str(it, "contractId")], "tenantId")+"#CHG#")
		assert.True(t, ValidBoleto(ref) || regexp.MustCompile(`^[A-Z0-9]{26,35}$`).MatchString(ref), "charge ref %q", ref)
	}
	assert.Greater(t, charges, 100, "charges")
	// Settlements: applied to paid instalments, adding up to what they paid.
	require.Greater(t, len(es["SETTLEMENT"]), 1000, "settlements")
	for _, it := range es["SETTLEMENT"] {
		in := insts[str(it, "appliedTo")]
		require.NotNil(t, in, "a settlement applied to %s, which does not exist", str(it, "appliedTo"))
		assert.Equal(t, "PAID", in.status)
		in.settlements += num64(t, it, "amountCents")
	}
	for k, in := range insts {
		if in.status == "PAID" {
			assert.Equal(t, in.paid, in.settlements, "the settlements of %s add up to its paidCents", k)
		}
	}
	// Day counters: the debtor's contacts that day, at most 3, the last 8
	// days only; contacts name a contract of their debtor.
	perDay := map[string]int64{}
	since := p.AsOf.AddDate(0, 0, -8).Format("2006-01-02")
	for _, it := range es["CONTACT"] {
		c := contracts[str(it, "contractId")]
		require.NotNil(t, c)
		assert.Equal(t, str(c, "PK"), str(it, "PK"), "a contact about another debtor's contract")
		day := strings.TrimPrefix(str(it, "SK"), "CONTACT#")[:10]
		perDay[str(it, "PK")+"|"+day]++
	}
	counters := 0
	for _, it := range es["LIMIT"] {
		day := strings.TrimPrefix(str(it, "SK"), "LIMIT#")
		assert.Equal(t, perDay[str(it, "PK")+"|"+day], num64(t, it, "attempts"), "LIMIT %s of %s", day, str(it, "PK"))
		assert.True(t, day >= since && day < asOf)
		counters++
	}
	recent := 0
	for k, c := range perDay {
		assert.LessOrEqual(t, c, int64(3), "more than 3 contacts a day: %s", k)
		if day := k[strings.LastIndexByte(k, '|')+1:]; day >= since && day < asOf {
			recent++
		}
	}
	assert.Equal(t, recent, counters, "a counter for every day of the last 8 with contacts")
	assert.Greater(t, counters, 100, "day counters")
}

// TestOrdersCoherence checks the orders example, read back from the
// files a run writes: every lookup item
// points at an order whose payment or invoice id it is, every order's
// ids have their lookup and its list of external references, its line
// count is its number of lines, and its instants follow its life.
func TestOrdersCoherence(t *testing.T) {
	p := population(t, models[2], 0.0005, 3)
	items := outputItems(t, p)
	es := byEntity(items)
	orders := map[string]attr.Item{}
	for _, it := range es["ORDER"] {
		orders[str(it, "orderId")] = it
		lines, _ := it.Get("lineItems")
		assert.Equal(t, int64(len(lines.List)), num64(t, it, "itemCount"))
		assert.GreaterOrEqual(t, str(it, "updatedAt"), str(it, "createdAt"))
		refs, _ := it.Get("externalRefs")
		want := 1
		if has(it, "invoiceId") {
			want = 2
		}
		require.Len(t, refs.List, want)
		assert.Equal(t, str(it, "paymentId"), str(refs.List[0].Map, "id"))
	}
	lookups := map[string]bool{}
	for _, it := range es["EXTERNAL_REF"] {
		o := orders[str(it, "orderId")]
		require.NotNil(t, o, "a lookup of no order")
		id := str(it, "externalId")
		switch str(it, "system") {
		case "PAYMENT":
			assert.Equal(t, str(o, "paymentId"), id)
		case "INVOICE":
			assert.Equal(t, str(o, "invoiceId"), id)
		}
		lookups[str(it, "system")+"#"+id] = true
	}
	for _, o := range es["ORDER"] {
		assert.True(t, lookups["PAYMENT#"+str(o, "paymentId")], "an order without its payment's lookup")
		if has(o, "invoiceId") {
			assert.True(t, lookups["INVOICE#"+str(o, "invoiceId")], "an order without its invoice's lookup")
		}
	}
	for _, it := range es["ORDER_NOTE"] {
		o := orders[strings.TrimPrefix(str(it, "PK"), "ORDER#")]
		require.NotNil(t, o)
		at := strings.Split(str(it, "SK"), "#")[1]
		assert.Greater(t, at, str(o, "createdAt"), "a note before its order")
	}
}

// outputItems generates p into JSON-lines files with two workers and
// reads them back as any reader of the output would: each line decoded
// as DynamoDB JSON, each item named by its table's discriminator, or,
// in a table without one, by the entity whose key templates it matches.
func outputItems(t *testing.T, p *Population) []Item {
	t.Helper()
	fs, _ := files(t, p, Encoding{Format: "jsonl", Compression: "none"}, RunOptions{Workers: 2})
	var out []Item
	for _, k := range datasettest.Keys(fs) {
		if !strings.HasSuffix(k, ".jsonl") {
			continue
		}
		tb := p.Model.Table(strings.Split(k, "/")[0])
		require.NotNil(t, tb, "a file of no table: %s", k)
		for _, l := range lines(t, map[string][]byte{k: fs[k]}) {
			it, err := attr.DecodeItem([]byte(l))
			require.NoError(t, err, l)
			e := entityOf(p.Model, tb, it)
			require.NotNil(t, e, "an item of no entity: %s", l)
			out = append(out, Item{Entity: e.Name, Item: it})
		}
	}
	require.NotEmpty(t, out)
	return out
}

func entityOf(m *catalog.Model, tb *catalog.Table, it attr.Item) *catalog.Entity {
	if tb.Discriminator != "" {
		v, _ := it.Get(tb.Discriminator)
		for _, e := range m.Entities {
			if e.Table == tb && e.TypeValue == v.Str {
				return e
			}
		}
		return nil
	}
next:
	for _, e := range m.Entities {
		if e.Table != tb {
			continue
		}
		for _, k := range e.Key {
			v, ok := it.Get(k.Attribute)
			if !ok {
				continue next
			}
			if _, ok := k.Template.Match(v.Str); v.Type == attr.S && !ok {
				continue next
			}
		}
		return e
	}
	return nil
}
