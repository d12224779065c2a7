package capacity

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// item builds an attr.Item from name/value pairs.
func item(kv ...any) attr.Item {
	fs := make([]attr.Field, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		fs = append(fs, attr.Field{Name: kv[i].(string), Value: kv[i+1].(attr.Value)})
	}
	return attr.Sorted(fs)
}

// TestWorkedItemSize is the item-size example of capacity-rules.md 10.
func TestWorkedItemSize(t *testing.T) {
	r := Default()
	it := item(
		"pk", attr.Str("USER#123"),
		"sk", attr.Str("PROFILE"),
		"age", attr.Num("42"),
		"tags", attr.StrSet("a", "bb"),
		"addr", attr.MapOf(item("city", attr.Str("Oslo"), "zip", attr.Num("15"))),
		"flags", attr.ListOf(attr.Bool(true), attr.Null()),
	)
	get := func(n string) attr.Value { v, _ := it.Get(n); return v }
	assert.Equal(t, 10, len("pk")+r.ValueSize(get("pk")))
	assert.Equal(t, 9, len("sk")+r.ValueSize(get("sk")))
	assert.Equal(t, 5, len("age")+r.ValueSize(get("age")))
	assert.Equal(t, 7, len("tags")+r.ValueSize(get("tags")))
	assert.Equal(t, 22, len("addr")+r.ValueSize(get("addr")))
	assert.Equal(t, 12, len("flags")+r.ValueSize(get("flags")))
	size := r.ItemSize(it)
	assert.Equal(t, 65, size)
	assert.Equal(t, 1.0, WriteUnits(size))
	assert.Equal(t, 0.5, ReadUnits(size, Eventual))
}

// TestStringsAndBinary follows 1.1 and 1.2: UTF-8 bytes of names and
// strings, raw bytes of binary, 1 byte for BOOL and NULL.
func TestStringsAndBinary(t *testing.T) {
	r := Default()
	assert.Equal(t, len("ação"), r.ValueSize(attr.Str("ação")), "UTF-8 bytes, not runes")
	assert.Equal(t, 6, r.ValueSize(attr.Str("ação")))
	assert.Equal(t, 3, r.ValueSize(attr.Bin([]byte{0, 1, 2})), "raw bytes, not base64")
	assert.Equal(t, 1, r.ValueSize(attr.Bool(false)))
	assert.Equal(t, 1, r.ValueSize(attr.Null()))
	assert.Equal(t, 0, r.ValueSize(attr.Value{}), "an unset value has no size")
	// Names count in UTF-8 bytes too: "ção" is 5 bytes, "x" string 1.
	assert.Equal(t, 6, r.ItemSize(item("ção", attr.Str("x"))))
}

// TestNumberMeasured covers every example of 1.3 under the measured rule.
func TestNumberMeasured(t *testing.T) {
	r := Default()
	for text, want := range map[string]int{
		"27": 2, "-27": 3, "461": 3, "1.5": 3, "100.5": 4, "0.0000001": 2,
		"1786461547": 6, "0": 1, "-0": 1, "0.000": 1, "1E125": 2, "1e125": 2,
		"110": 2, "11000": 2, "10010": 3, "1001000": 3,
		"007": 2, "7.000": 2, "+5": 2, "1.5E1": 2, "12345E-2": 1 + 2 + 1,
		"12345678901234567890123456789012345678":  20,
		"-12345678901234567890123456789012345678": 21,
		"1.2345678901234567890123456789012345678": 20, // capped at 20
		"-1.234567890123456789012345678901234567": 21, // capped at 20, +1
		"not a number": 1,
	} {
		assert.Equal(t, want, r.NumberSize(text), text)
	}
}

// TestNumberDigitPairs covers the alternative model of 1.3 and the four
// literals on which the models disagree.
func TestNumberDigitPairs(t *testing.T) {
	r := Rules{Numbers: NumberDigitPairs}
	for text, want := range map[string]int{
		"27": 2, "-27": 3, "461": 3, "1.5": 3, "100.5": 4, "0.0000001": 2,
		"1786461547": 6, "0": 1, "1E125": 2,
		"110": 3, "11000": 3, "10010": 4, "1001000": 4,
		"0.01": 2, "0.001": 2, "10.01": 3, "100.01": 4,
		"1.2345678901234567890123456789012345678": 21, // 20 pairs + 1
		"-1.234567890123456789012345678901234567": 21, // capped
		"123456789012345678901234567890123456789": 20, // too precise: measured
	} {
		assert.Equal(t, want, r.NumberSize(text), text)
	}
	assert.Equal(t, "pairs", NumberDigitPairs.String())
	assert.Equal(t, "measured", NumberMeasured.String())
}

// TestNumberSizeDoesNotAllocate guards the hot path of 1.3.
func TestNumberSizeDoesNotAllocate(t *testing.T) {
	r := Default()
	p := Rules{Numbers: NumberDigitPairs}
	n := testing.AllocsPerRun(100, func() {
		_ = r.NumberSize("-1786461547.125")
		_ = p.NumberSize("-1786461547.125")
	})
	assert.Zero(t, n)
}

// TestListsAndMaps follows 1.4: 3 + Σ(1 + element), map keys counted,
// nesting summed.
func TestListsAndMaps(t *testing.T) {
	r := Default()
	assert.Equal(t, 3, r.ValueSize(attr.ListOf()))
	assert.Equal(t, 3, r.ValueSize(attr.MapOf(nil)))
	assert.Equal(t, 3+(1+2)+(1+1), r.ValueSize(attr.ListOf(attr.Str("ab"), attr.Bool(true))))
	assert.Equal(t, 3+(1+1+4), r.ValueSize(attr.MapOf(item("k", attr.Str("vvvv")))))
	nested := attr.ListOf(attr.MapOf(item("a", attr.ListOf(attr.Num("1")))))
	// list: 3 + 1 + map(3 + 1 + "a" 1 + list(3 + 1 + 2))
	assert.Equal(t, 3+1+(3+1+1+(3+1+2)), r.ValueSize(nested))
}

// TestSets follows 1.5: the sum of the members, no overhead.
func TestSets(t *testing.T) {
	r := Default()
	assert.Equal(t, 3, r.ValueSize(attr.StrSet("a", "bb")))
	assert.Equal(t, 4, r.ValueSize(attr.BinSet("\x00\x01", "\x02\x03")))
	assert.Equal(t, 2+3, r.ValueSize(attr.NumSet("27", "-27")))
	// The live corroboration of 1.5: 20,479 members of 38 digits, 20 B
	// each, fit in 400 KB only without a per-member byte.
	ms := make([]string, 20479)
	for i := range ms {
		ms[i] = "12345678901234567890123456789012345678"
	}
	assert.Equal(t, 409580, r.ValueSize(attr.NumSet(ms...)))
}

// TestLimits follows 1.6.
func TestLimits(t *testing.T) {
	r := Default()
	tab := &Table{Name: "T", PK: "pk", SK: "sk",
		GSIs: []Index{{Name: "G", PK: []string{"g"}, SK: []string{"h"}}}}
	ok := item("pk", attr.Str("a"), "sk", attr.Str("b"))
	require.NoError(t, r.CheckItem(tab, ok))

	// 409,600 B exactly is allowed, one more byte is not.
	pad := MaxItemSize - r.ItemSize(ok) - len("d")
	require.NoError(t, r.CheckItem(tab, ok.With("d", attr.Str(strings.Repeat("x", pad)))))
	err := r.CheckItem(tab, ok.With("d", attr.Str(strings.Repeat("x", pad+1))))
	var le *LimitError
	require.True(t, errors.As(err, &le))
	assert.Equal(t, MaxItemSize+1, le.Size)
	assert.EqualError(t, err, "item is 409,601 B, over the 409,600 B limit")

	assert.NoError(t, r.CheckItem(tab, ok.With("pk", attr.Str(strings.Repeat("p", 2048)))))
	assert.EqualError(t, r.CheckItem(tab, ok.With("pk", attr.Str(strings.Repeat("p", 2049)))),
		"partition key pk is 2,049 B, over the 2,048 B limit")
	assert.NoError(t, r.CheckItem(tab, ok.With("sk", attr.Bin(make([]byte, 1024)))))
	assert.EqualError(t, r.CheckItem(tab, ok.With("sk", attr.Bin(make([]byte, 1025)))),
		"sort key sk is 1,025 B, over the 1,024 B limit")
	assert.EqualError(t, r.CheckItem(tab, ok.With("h", attr.Str(strings.Repeat("h", 1025)))),
		"G sort key h is 1,025 B, over the 1,024 B limit")
	assert.EqualError(t, r.CheckItem(tab, ok.Without("sk")), "sort key sk is missing")
	assert.EqualError(t, r.CheckItem(tab, ok.With("pk", attr.Bool(true))), "partition key pk is of type BOOL, not S, N or B")

	// With LSIs, the item plus its LSI entries must fit in 400 KB.
	lsi := &Table{Name: "T", PK: "pk", SK: "sk", LSIs: []Index{{Name: "L", SK: []string{"l"}}}}
	big := ok.With("l", attr.Str("x")).With("d", attr.Str(strings.Repeat("x", 250000)))
	err = r.CheckItem(lsi, big)
	require.True(t, errors.As(err, &le))
	assert.Equal(t, "item with its LSI entries", le.What)
	assert.NoError(t, r.CheckItem(lsi, big.Without("l")), "not in the sparse LSI: no entry")
}

// contract is a Lastro CONTRACT header of about 300 bytes.
func contract() attr.Item {
	return item(
		"PK", attr.Str("T#t042#D#9f2c1a7e4b0d3e61"),
		"SK", attr.Str("CT#C-2026-004512"),
		"type", attr.Str("CONTRACT"),
		"tenantId", attr.Str("t042"),
		"contractId", attr.Str("C-2026-004512"),
		"debtorKey", attr.Str("9f2c1a7e4b0d3e61"),
		"productCode", attr.Str("CREDIARIO_12X"),
		"currency", attr.Str("BRL"),
		"chargesPolicy", attr.Str("CP#v3"),
		"status", attr.Str("IN_COLLECTION"),
		"statusReason", attr.Str("OLDEST_INSTALLMENT_OVERDUE"),
		"oldestOverdueDueDate", attr.Str("2026-08-10"),
		"bucket", attr.Str("D031_060"),
		"outstandingCents", attr.Num("292740"),
		"nextActionDate", attr.Str("2026-09-24"),
		"nextAction", attr.Str("SMS_D45"),
		"shard", attr.Num("7"),
		"channelPrefs", attr.StrSet("SMS", "EMAIL"),
		"lastContactAt", attr.Str("2026-09-20T10:31:00Z"),
		"version", attr.Num("22"),
		"updatedAt", attr.Str("2026-09-20T10:31:00Z"),
	)
}

func TestContractSize(t *testing.T) {
	// 17 strings 364 B; outstandingCents 16+4, shard 5+2, channelPrefs 12+8, version 7+2.
	assert.Equal(t, 430, Default().ItemSize(contract()))
}

// BenchmarkItemSize sizes an already-decoded item of about 300-400 bytes;
// the requirement is at least 5 million items/s per core and no
// allocation.
func BenchmarkItemSize(b *testing.B) {
	r := Default()
	it := contract()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += r.ItemSize(it)
	}
	if n == 0 {
		b.Fatal("no size")
	}
}

// TestStored follows 1.7 and 1.8: 100 B per item and per index entry,
// 48 B more per item in a global table; none of it changes units.
func TestStored(t *testing.T) {
	assert.Equal(t, 1126+100+410+100, Stored(1126, []int{410}, false))
	assert.Equal(t, 65+100+48, Stored(65, nil, true))
	r := Default()
	tab := &Table{Name: "T", PK: "pk", GSIs: []Index{{Name: "G", PK: []string{"g"}, Projection: ProjectKeysOnly}, {Name: "H", PK: []string{"h"}}}}
	it := item("pk", attr.Str("k"), "g", attr.Str("v"), "x", attr.Str("12345"))
	// item 3+2+6 = 11; G entry pk + g = 5; not in H (sparse).
	assert.Equal(t, 11+100+5+100, r.StoredBytes(tab, it, false))
	assert.Equal(t, 11+100+48+5+100, r.StoredBytes(tab, it, true))
}
