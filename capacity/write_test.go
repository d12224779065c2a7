package capacity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// padTo returns it with a string attribute "x" added so that the item is
// exactly size bytes.
func padTo(t *testing.T, it attr.Item, name string, size int) attr.Item {
	t.Helper()
	n := size - Default().ItemSize(it) - len(name)
	require.GreaterOrEqual(t, n, 0, "item already over %d B", size)
	out := it.With(name, attr.Str(strings.Repeat("x", n)))
	require.Equal(t, size, Default().ItemSize(out))
	return out
}

// gsiTable has one GSI keyed on g, projecting "summary" only.
func gsiTable() *Table {
	return &Table{Name: "T", PK: "pk", SK: "sk", GSIs: []Index{{
		Name: "G1", PK: []string{"g"}, Projection: ProjectInclude, Include: []string{"summary"},
	}}}
}

// workedItem is the 1,126 B item of capacity-rules.md 10 whose G1 entry is
// 410 B.
func workedItem(t *testing.T, g string) attr.Item {
	base := item("pk", attr.Str("p1"), "sk", attr.Str("s1"), "g", attr.Str(g))
	withSummary := padTo(t, base, "summary", 410)
	return padTo(t, withSummary, "x", 1126)
}

// TestWorkedPut is the Put example of capacity-rules.md 10.
func TestWorkedPut(t *testing.T) {
	r := Default()
	plain := &Table{Name: "T", PK: "pk", SK: "sk"}
	it := workedItem(t, "A")
	e, ok := r.EntrySize(gsiTable(), &gsiTable().GSIs[0], it)
	require.True(t, ok)
	require.Equal(t, 410, e)

	assert.Equal(t, 2.0, r.Write(plain, WriteOp{Kind: Put, After: it}).Units())
	assert.Equal(t, 4.0, r.Write(plain, WriteOp{Kind: Put, After: it, Txn: true}).Units())

	c := r.Write(gsiTable(), WriteOp{Kind: Put, After: it})
	assert.Equal(t, Capacity{Write: 2}, c.Table)
	assert.Equal(t, map[string]Capacity{"G1": {Write: 1}}, c.GSIs)
	assert.Equal(t, 3.0, c.Units())

	// In a transaction only the table charge doubles (3.6): 4 + 1.
	c, why := r.ExplainWrite(gsiTable(), WriteOp{Kind: Put, After: it, Txn: true, Label: "CONTRACT"})
	assert.Equal(t, 5.0, c.Units())
	assert.Equal(t, []string{
		"table: put new CONTRACT 1,126 B, 102 B over 1 KB: 2 WRU",
		"table: in a transaction: x2 (prepare + commit) = 4 WRU",
		"G1: entry enters the index, put 410 B, fits 1 KB: 1 WRU; index charges are not doubled in a transaction",
	}, reasons(why))
	assert.Equal(t, 1.0, c.GSIs["G1"].Write)
	// With the option, index charges double too: 6.
	c, why = Rules{DoubleIndexInTxn: true}.ExplainWrite(gsiTable(), WriteOp{Kind: Put, After: it, Txn: true})
	assert.Equal(t, 6.0, c.Units())
	assert.Equal(t, "G1: in a transaction, doubled by option: 2 WRU", why[len(why)-1].String())
}

func reasons(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// TestWorkedKeyChange is "update that changes that item's GSI key" of
// capacity-rules.md 10: 2 + (1 + 1).
func TestWorkedKeyChange(t *testing.T) {
	r := Default()
	c, why := r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: workedItem(t, "A"), After: workedItem(t, "B"), Label: "CONTRACT"})
	assert.Equal(t, 4.0, c.Units())
	assert.Equal(t, 2.0, c.GSIs["G1"].Write)
	require.Len(t, why, 2)
	assert.Equal(t, "table: update CONTRACT, larger of before 1,126 B and after 1,126 B: 1,126 B, 102 B over 1 KB: 2 WRU", why[0].String())
	assert.Equal(t, "G1: key changes: delete 410 B (1) + put 410 B (1) = 2 WRU", why[1].String())
}

// TestWorkedProjectedShrink is "update shrinking a projected attribute" of
// capacity-rules.md 10 and the 3,017 B <-> 18 B row of section 5: entry
// 3,017 -> 18 B, item 3,023 -> 24 B: table 3 + GSI 3.
func TestWorkedProjectedShrink(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk", SK: "sk", GSIs: []Index{{
		Name: "G", PK: []string{"gsiPk"}, Projection: ProjectInclude, Include: []string{"proj"},
	}}}
	// The captured item: pk s6, sk 1, gsiPk g, proj of 3,000 characters.
	big := item("pk", attr.Str("s6"), "sk", attr.Str("1"), "gsiPk", attr.Str("g"), "proj", attr.Str(strings.Repeat("a", 3000)))
	e, _ := r.EntrySize(tab, &tab.GSIs[0], big)
	require.Equal(t, 3017, e)
	big = big.With("o", attr.Str("12345"))
	require.Equal(t, 3023, r.ItemSize(big))
	small := big.With("proj", attr.Str("a"))
	require.Equal(t, 24, r.ItemSize(small))
	e, _ = r.EntrySize(tab, &tab.GSIs[0], small)
	require.Equal(t, 18, e)

	for _, op := range []WriteOp{{Kind: Update, Before: big, After: small}, {Kind: Update, Before: small, After: big}} {
		c, why := r.ExplainWrite(tab, op)
		assert.Equal(t, 3.0, c.Table.Write)
		assert.Equal(t, 3.0, c.GSIs["G"].Write, "one write of the larger entry, either way")
		assert.Equal(t, 6.0, c.Units())
		assert.Contains(t, why[1].Text, "one write of the larger")
	}

	// The key-change rows of section 5: 3,017 B -> 18 B under a new key
	// costs 3 + 1; 1,517 B -> 1,517 B costs 4.
	moved := small.With("gsiPk", attr.Str("h"))
	assert.Equal(t, 4.0, r.Write(tab, WriteOp{Kind: Update, Before: big, After: moved}).GSIs["G"].Write)
	mid := big.With("proj", attr.Str(strings.Repeat("a", 1500)))
	e, _ = r.EntrySize(tab, &tab.GSIs[0], mid)
	require.Equal(t, 1517, e)
	c := r.Write(tab, WriteOp{Kind: Update, Before: mid, After: mid.With("gsiPk", attr.Str("h"))})
	assert.Equal(t, 4.0, c.GSIs["G"].Write)
}

// TestWorkedNonProjected is "update of a non-projected attribute only" of
// capacity-rules.md 10: table charge only, no index in the response.
func TestWorkedNonProjected(t *testing.T) {
	r := Default()
	before := workedItem(t, "A")
	after := before.With("x", attr.Str("changed"))
	c, why := r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: before, After: after})
	assert.Equal(t, 2.0, c.Units())
	assert.Nil(t, c.GSIs)
	assert.NotContains(t, string(c.AppendJSON(nil, LevelIndexes)), "GlobalSecondaryIndexes")
	assert.Equal(t, "G1: no projected attribute changes: no charge, absent from the response", why[len(why)-1].String())
}

// TestTransactionCapture is the capture of 3.6: a GSI key move at 1,517 B
// per side reported table 4, GSI 4.
func TestTransactionCapture(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk", GSIs: []Index{{Name: "G", PK: []string{"g"}}}}
	a := padTo(t, item("pk", attr.Str("k"), "g", attr.Str("A")), "x", 1517)
	b := a.With("g", attr.Str("B"))
	c := r.Write(tab, WriteOp{Kind: Update, Before: a, After: b, Txn: true})
	assert.Equal(t, 4.0, c.Table.Write)
	assert.Equal(t, 4.0, c.GSIs["G"].Write)
}

// TestPutReplace follows 3.1: a replacing Put is charged on the larger of
// the two items.
func TestPutReplace(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk"}
	small := padTo(t, item("pk", attr.Str("k")), "x", 100)
	large := padTo(t, item("pk", attr.Str("k")), "x", 3000)
	assert.Equal(t, 3.0, r.Write(tab, WriteOp{Kind: Put, Before: large, After: small}).Units())
	assert.Equal(t, 3.0, r.Write(tab, WriteOp{Kind: Put, Before: small, After: large}).Units())
	assert.Equal(t, 1.0, r.Write(tab, WriteOp{Kind: Put, After: small}).Units())
}

// TestUpdate follows 3.2: the larger of before and after; an upsert on the
// after-image. 3 KB -> 100 B costs 3; 2,017 B -> 117 B costs 2.
func TestUpdate(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk"}
	k := item("pk", attr.Str("k"))
	assert.Equal(t, 3.0, r.Write(tab, WriteOp{Kind: Update, Before: padTo(t, k, "x", 3072), After: padTo(t, k, "x", 100)}).Units())
	assert.Equal(t, 2.0, r.Write(tab, WriteOp{Kind: Update, Before: padTo(t, k, "x", 2017), After: padTo(t, k, "x", 117)}).Units())
	assert.Equal(t, 2.0, r.Write(tab, WriteOp{Kind: Update, After: padTo(t, k, "x", 2017)}).Units(), "upsert")
	assert.Equal(t, 1.0, r.Write(tab, WriteOp{Kind: Update, Before: k}).Units(), "no after image: unchanged item")

	// 5.5: an upsert charges each index once, as an insert.
	c := r.Write(gsiTable(), WriteOp{Kind: Update, After: workedItem(t, "A")})
	assert.Equal(t, map[string]Capacity{"G1": {Write: 1}}, c.GSIs)
}

// TestDelete follows 3.3 and 3.6: the deleted item's size; a missing key
// costs 1, 2 in a transaction; leaving every index.
func TestDelete(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk"}
	assert.Equal(t, 1.0, r.Write(tab, WriteOp{Kind: Delete}).Units())
	assert.Equal(t, 2.0, r.Write(tab, WriteOp{Kind: Delete, Txn: true}).Units())
	assert.Equal(t, 3.0, r.Write(tab, WriteOp{Kind: Delete, Before: padTo(t, item("pk", attr.Str("k")), "x", 2049), After: item("pk", attr.Str("k"))}).Units(),
		"After is ignored for a delete")
	c := r.Write(gsiTable(), WriteOp{Kind: Delete, Before: workedItem(t, "A")})
	assert.Equal(t, 2.0, c.Table.Write)
	assert.Equal(t, 1.0, c.GSIs["G1"].Write, "the entry leaves the index")
}

// TestBatchWrite follows 3.4: each item rounded, then added: 500 B + 3.5 KB
// costs 5, not 4.
func TestBatchWrite(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk"}
	var c Consumed
	c.Add(r.Write(tab, WriteOp{Kind: Put, After: padTo(t, item("pk", attr.Str("a")), "x", 500)}))
	c.Add(r.Write(tab, WriteOp{Kind: Put, After: padTo(t, item("pk", attr.Str("b")), "x", 3584)}))
	assert.Equal(t, 5.0, c.Units())
	assert.Equal(t, "T", c.TableName)
}

// TestFailedWrite follows 3.5: each rule, no index charge.
func TestFailedWrite(t *testing.T) {
	tab := gsiTable()
	existing := padTo(t, item("pk", attr.Str("k"), "sk", attr.Str("s"), "g", attr.Str("A")), "x", 3000)
	next := padTo(t, item("pk", attr.Str("k"), "sk", attr.Str("s"), "g", attr.Str("B")), "x", 1500)
	cases := []struct {
		rule           FailedWriteRule
		replace, fresh float64 // Put over existing, Put on a missing key
		del            float64
	}{
		{FailedLarger, 3, 1, 3},
		{FailedNewItem, 2, 1, 3},
		{FailedExisting, 3, 2, 3},
	}
	for _, tc := range cases {
		r := Rules{FailedWrite: tc.rule}
		c, why := r.ExplainWrite(tab, WriteOp{Kind: Put, Before: existing, After: next, Failed: true})
		assert.Equal(t, tc.replace, c.Units(), tc.rule.String())
		assert.Nil(t, c.GSIs, "no index charge on failure")
		assert.Contains(t, why[0].Text, "failed its condition")
		assert.Equal(t, tc.fresh, r.Write(tab, WriteOp{Kind: Put, After: next, Failed: true}).Units(), tc.rule.String())
		assert.Equal(t, tc.del, r.Write(tab, WriteOp{Kind: Delete, Before: existing, Failed: true}).Units(), tc.rule.String())
	}
	assert.Equal(t, Rules{}, Default(), "the larger rule is the default")

	// A failed condition in a transaction cancels it: nothing is reported.
	c := Default().Write(tab, WriteOp{Kind: Put, Before: existing, After: next, Failed: true, Txn: true})
	assert.Zero(t, c.Units())
}

// TestConditionCheck follows 3.6: 2 x ceil(checked item), no index charge.
func TestConditionCheck(t *testing.T) {
	r := Default()
	checked := workedItem(t, "A")
	c := r.Write(gsiTable(), WriteOp{Kind: ConditionCheck, Before: checked, After: checked})
	assert.Equal(t, 4.0, c.Units())
	assert.Nil(t, c.GSIs)
	assert.True(t, c.Txn)
	assert.Equal(t, 2.0, r.Write(gsiTable(), WriteOp{Kind: ConditionCheck}).Units(), "missing item")
}

// TestReplay follows 3.7: 2 x ceil(max(old, new) / 4 KB) read units per
// action.
func TestReplay(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk"}
	k := item("pk", attr.Str("k"))
	c := r.Replay(tab, WriteOp{Kind: Update, Before: padTo(t, k, "x", 5000), After: padTo(t, k, "x", 100)})
	assert.Equal(t, Capacity{Read: 4}, c.Table)
	assert.Equal(t, 2.0, r.Replay(tab, WriteOp{Kind: Put, After: k}).Units())
}

// TestIndexMembership follows 5.2 and 9.5: an item is in an index only if
// every key attribute is present and scalar; multi-attribute keys need all
// of them.
func TestIndexMembership(t *testing.T) {
	ix := &Index{Name: "GSI1", PK: []string{"tenantId", "nextActionDate", "shard"}, SK: []string{"nextAction", "contractId"}}
	it := contract()
	assert.True(t, ix.Member(it))
	assert.False(t, ix.Member(it.Without("nextActionDate")), "sparse: a partition attribute missing")
	assert.False(t, ix.Member(it.Without("contractId")), "sparse: a sort attribute missing")
	assert.False(t, ix.Member(it.With("shard", attr.StrSet("a"))), "a set is not a key type")
	assert.False(t, ix.Member(nil))
}

// TestEntrySize follows 1.8 and 9.6: table keys + index keys counted once +
// projected attributes, without the 100 B storage overhead.
func TestEntrySize(t *testing.T) {
	r := Default()
	tab := &Table{Name: "collections", PK: "PK", SK: "SK"}
	it := contract()
	size := func(names ...string) int {
		n := 0
		for _, name := range names {
			v, ok := it.Get(name)
			require.True(t, ok, name)
			n += len(name) + r.ValueSize(v)
		}
		return n
	}
	gsi1 := &Index{Name: "GSI1", PK: []string{"tenantId", "nextActionDate", "shard"}, SK: []string{"nextAction", "contractId"},
		Projection: ProjectInclude, Include: []string{"debtorKey", "bucket", "outstandingCents", "channelPrefs", "shard"}}
	e, ok := r.EntrySize(tab, gsi1, it)
	require.True(t, ok)
	assert.Equal(t, size("PK", "SK", "tenantId", "nextActionDate", "shard", "nextAction", "contractId",
		"debtorKey", "bucket", "outstandingCents", "channelPrefs"), e, "shard counted once")

	keys := &Index{Name: "K", PK: []string{"tenantId"}, SK: []string{"PK"}, Projection: ProjectKeysOnly}
	e, _ = r.EntrySize(tab, keys, it)
	assert.Equal(t, size("PK", "SK", "tenantId"), e, "a table key that is also an index key counted once")

	all := &Index{Name: "A", PK: []string{"bucket"}}
	e, _ = r.EntrySize(tab, all, it)
	assert.Equal(t, r.ItemSize(it), e)
	assert.Equal(t, "ALL KEYS_ONLY INCLUDE", ProjectAll.String()+" "+ProjectKeysOnly.String()+" "+ProjectInclude.String())
}

// TestAmplificationTable walks every row of the table of section 5 on a
// KEYS_ONLY and an ALL index.
func TestAmplificationTable(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk", GSIs: []Index{
		{Name: "K", PK: []string{"g"}, Projection: ProjectKeysOnly},
		{Name: "A", PK: []string{"g"}},
	}}
	k := item("pk", attr.Str("k"))
	in := k.With("g", attr.Str("A"))
	write := func(before, after attr.Item) map[string]Capacity {
		return r.Write(tab, WriteOp{Kind: Put, Before: before, After: after}).GSIs
	}
	assert.Nil(t, write(k, k.With("x", attr.Str("1"))), "absent -> absent: omitted")
	assert.Equal(t, map[string]Capacity{"K": {Write: 1}, "A": {Write: 1}}, write(k, in), "enter")
	assert.Equal(t, map[string]Capacity{"K": {Write: 1}, "A": {Write: 1}}, write(in, k), "leave")
	assert.Equal(t, map[string]Capacity{"K": {Write: 2}, "A": {Write: 2}}, write(in, in.With("g", attr.Str("B"))), "key change")
	assert.Equal(t, map[string]Capacity{"A": {Write: 1}}, write(in, in.With("x", attr.Str("1"))),
		"non-key change: ALL reacts, KEYS_ONLY does not")
	assert.Nil(t, write(in, in), "identical overwrite: omitted")

	// Sets are compared without order (5.1); numbers by value.
	s1 := in.With("tags", attr.StrSet("a", "b")).With("n", attr.Num("1.0"))
	s2 := in.With("tags", attr.StrSet("b", "a")).With("n", attr.Num("1"))
	assert.Nil(t, write(s1, s2))
	// A key attribute of a non-scalar type leaves the index.
	assert.Equal(t, map[string]Capacity{"K": {Write: 1}, "A": {Write: 1}}, write(in, in.With("g", attr.ListOf())))
}

// TestLSIWrite follows 5.3: an LSI is charged like a GSI and reported under
// LocalSecondaryIndexes.
func TestLSIWrite(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk", SK: "sk", LSIs: []Index{{Name: "L", SK: []string{"d"}, Projection: ProjectKeysOnly}}}
	it := item("pk", attr.Str("k"), "sk", attr.Str("s"), "d", attr.Str("2026-01-01"))
	c := r.Write(tab, WriteOp{Kind: Put, After: it})
	assert.Equal(t, map[string]Capacity{"L": {Write: 1}}, c.LSIs)
	assert.Nil(t, c.GSIs)
	c = r.Write(tab, WriteOp{Kind: Update, Before: it, After: it.With("d", attr.Str("2026-01-02"))})
	assert.Equal(t, 2.0, c.LSIs["L"].Write)
}

// BenchmarkWrite measures the engine's path: an update moving GSI1 on a
// Lastro contract.
func BenchmarkWrite(b *testing.B) {
	r := Default()
	tab := &Table{Name: "collections", PK: "PK", SK: "SK", GSIs: []Index{{
		Name: "GSI1", PK: []string{"tenantId", "nextActionDate", "shard"}, SK: []string{"nextAction", "contractId"},
		Projection: ProjectInclude, Include: []string{"debtorKey", "bucket", "outstandingCents", "channelPrefs"},
	}}}
	before := contract()
	after := before.With("nextActionDate", attr.Str("2026-09-25"))
	b.ReportAllocs()
	for b.Loop() {
		r.Write(tab, WriteOp{Kind: Update, Before: before, After: after})
	}
}

// TestExpire follows 3.8: TTL deletes consume no write throughput.
func TestExpire(t *testing.T) {
	c, why := Default().ExplainWrite(gsiTable(), WriteOp{Kind: Expire, Before: workedItem(t, "A")})
	assert.Zero(t, c.Units())
	assert.Nil(t, c.GSIs)
	assert.Contains(t, why[0].Text, "TTL")
	assert.Equal(t, "TTL delete", Expire.String())
}

// TestPutFigures: Put agrees with Write and StoredBytes, in and out of
// indexes, local ones included.
func TestPutFigures(t *testing.T) {
	r := Default()
	lsi := &Table{Name: "T", PK: "pk", SK: "sk", GSIs: gsiTable().GSIs, LSIs: []Index{{Name: "L1", SK: []string{"l"}, Projection: ProjectKeysOnly}}}
	for _, tb := range []*Table{{Name: "T", PK: "pk", SK: "sk"}, gsiTable(), lsi} {
		for _, it := range []attr.Item{
			workedItem(t, "A"),
			item("pk", attr.Str("p"), "sk", attr.Str("s")),
			item("pk", attr.Str("p"), "sk", attr.Str("s"), "l", attr.Num("12"), "summary", attr.Str("abc")),
		} {
			f := r.Put(tb, it)
			assert.Equal(t, r.ItemSize(it), f.Size)
			assert.Equal(t, r.Write(tb, WriteOp{Kind: Put, After: it}).Total().Write, f.WriteUnits)
			assert.Equal(t, r.StoredBytes(tb, it, false), f.StoredBytes)
		}
	}
}
