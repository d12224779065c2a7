package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// recordTable creates a table keyed on pk (and sk when skType is set)
// of the given types and returns it.
func recordTable(t testing.TB, e *Engine, name string, pkType, skType string) *table {
	in := &CreateTableInput{TableName: name, BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: pkType}},
		KeySchema:            []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, AttributeDefinition{AttributeName: "sk", AttributeType: skType})
		in.KeySchema = append(in.KeySchema, KeySchemaElement{AttributeName: "sk", KeyType: "RANGE"})
	}
	_, err := e.CreateTable(context.Background(), in)
	require.NoError(t, err)
	tb, err := e.table(name)
	require.NoError(t, err)
	return tb
}

func keyValue(typ, s string) attr.Value {
	switch typ {
	case "N":
		return attr.Num(s)
	case "B":
		return attr.Bin([]byte(s))
	}
	return attr.Str(s)
}

// recordItems are items of every type, whose names sort before, between
// and after the key's, with keys holding zero bytes.
func recordItems(pkType, skType string) []attr.Item {
	var out []attr.Item
	for i, k := range []struct{ pk, sk string }{{"a", "1"}, {"with\x00zero\x00", "2\x00"}, {"\x00", "-12.5"}, {strings.Repeat("k", 300), "0"}} {
		if pkType == "N" {
			k.pk = fmt.Sprint(i * 7)
		}
		if skType == "N" {
			k.sk = []string{"1", "-3", "12.25", "0"}[i]
		}
		it := attr.Item{
			{Name: "a\"q", Value: attr.Str("tab\there \"quoted\" é")},
			{Name: "b", Value: attr.Bin([]byte{0, 1, 2, 255})},
			{Name: "bs", Value: attr.BinSet("x", "y")},
			{Name: "f", Value: attr.Bool(false)},
			{Name: "l", Value: attr.ListOf(attr.Null(), attr.Num("-1.5"), attr.MapOf(attr.Item{{Name: "k", Value: attr.Str("v")}, {Name: "z", Value: attr.ListOf()}}))},
			{Name: "m", Value: attr.MapOf(attr.Item{})},
			{Name: "ns", Value: attr.NumSet("1", "2")},
			{Name: "pk", Value: keyValue(pkType, k.pk)},
			{Name: "q", Value: attr.Num("12345678901234567890")},
			{Name: "s", Value: attr.Str("")},
			{Name: "ss", Value: attr.StrSet("a")},
			{Name: "zz", Value: attr.Null()},
		}
		if skType != "" {
			it = append(it, attr.Field{Name: "sk", Value: keyValue(skType, k.sk)})
		}
		out = append(out, attr.Sorted(it))
		// The key alone, and the key with one attribute.
		key := attr.Item{{Name: "pk", Value: keyValue(pkType, k.pk)}}
		if skType != "" {
			key = append(key, attr.Field{Name: "sk", Value: keyValue(skType, k.sk)})
		}
		out = append(out, attr.Sorted(key), attr.Sorted(append(append(attr.Item(nil), key...), attr.Field{Name: "0", Value: attr.Str("first")})))
	}
	return out
}

// checkRecord stores it in tb and checks every way of reading it back:
// decoded, looked up attribute by attribute, written as JSON and in the
// portable form, each the item itself; and that a cut body never makes a
// reader panic.
func checkRecord(t *testing.T, e *Engine, tb *table, it attr.Item) {
	t.Helper()
	_, err := e.PutItem(context.Background(), &PutItemInput{TableName: tb.name, Item: it})
	require.NoError(t, err)
	key, ok := tb.tableKey(nil, it)
	require.True(t, ok)
	tb.mu.RLock()
	r := tb.get(key)
	tb.mu.RUnlock()
	require.NotNil(t, r)
	v := r.load()
	assert.Equal(t, key, v.key())
	assert.Equal(t, int32(tb.rules.ItemSize(it)), v.size)
	got, err := tb.decode(v)
	require.NoError(t, err)
	assert.True(t, attr.EqualItems(it, got), "decoded %v, stored %v", got, it)
	for _, f := range it {
		lv, ok := tb.lookup(v, f.Name)
		assert.True(t, ok, f.Name)
		assert.True(t, attr.EqualItems(attr.Item{f}, attr.Item{{Name: f.Name, Value: lv}}), "lookup %s: %v", f.Name, lv)
	}
	for _, name := range []string{"", "0a", "pj", "pl", "zzz"} {
		_, ok := tb.lookup(v, name)
		assert.False(t, ok, name)
	}
	js, ok := tb.appendJSON(nil, v, nil)
	assert.True(t, ok)
	assert.Equal(t, string(attr.AppendItemJSON(nil, it)), string(js))
	keep := func(name string) bool { return name == "pk" || name == "l" || name == "zz" }
	js, ok = tb.appendJSON(nil, v, keep)
	assert.True(t, ok)
	var kept attr.Item
	for _, f := range it {
		if keep(f.Name) {
			kept = append(kept, f)
		}
	}
	assert.Equal(t, string(attr.AppendItemJSON(nil, kept)), string(js))
	p := tb.portable(nil, v)
	assert.Equal(t, appendItem(nil, it), p, "the portable form is codec.go's")
	assert.Equal(t, len(p), tb.portableLen(v), "portableLen")
	assert.Equal(t, p, tb.portableCopy(v))
	for n := int(v.klen); n < len(v.b); n++ {
		cut := version{b: v.b[:n], klen: v.klen, size: v.size}
		_, _ = tb.decode(cut)
		_, _ = tb.appendJSON(nil, cut, nil)
		_ = tb.portable(nil, cut)
		_, _ = tb.lookup(cut, "zz")
	}
}

func TestRecordRoundTrip(t *testing.T) {
	e := New(Options{})
	for i, kt := range [][2]string{{"S", ""}, {"S", "N"}, {"B", "S"}, {"N", "B"}, {"S", "S"}, {"N", "N"}} {
		tb := recordTable(t, e, fmt.Sprintf("Tab%d", i), kt[0], kt[1])
		for _, it := range recordItems(kt[0], kt[1]) {
			checkRecord(t, e, tb, it)
		}
	}
}

// TestRecordNamesBounded: past its dictionary's bounds a table writes
// new names out in each item, and every item reads back the same.
func TestRecordNamesBounded(t *testing.T) {
	e := New(Options{})
	tb := recordTable(t, e, "Names", "S", "N")
	var items []attr.Item
	for i := 0; i < maxNames+50; i++ {
		it := attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Num(fmt.Sprint(i))},
			{Name: fmt.Sprintf("name%05d", i), Value: attr.Num("1")}, {Name: "common", Value: attr.Str("c")}})
		items = append(items, it)
		_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Names", Item: it})
		require.NoError(t, err)
	}
	assert.Equal(t, maxNames, len(tb.names.all()))
	for _, i := range []int{0, maxNames - 2, maxNames - 1, maxNames, maxNames + 49} {
		checkRecord(t, e, tb, items[i])
	}
	long := strings.Repeat("n", 200)
	checkRecord(t, e, tb, attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str("q")}, {Name: "sk", Value: attr.Num("1")}, {Name: long, Value: attr.Str("v")}}))
}

// TestRecordCompact: the key's S values and the dictionary's names are
// not stored again in the body.
func TestRecordCompact(t *testing.T) {
	e := New(Options{})
	tb := recordTable(t, e, "Compact", "S", "S")
	it := attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str("T#t001#D#712675cfd800f6e5")}, {Name: "sk", Value: attr.Str("CT#C-2026-000262#IN#004")},
		{Name: "principalCents", Value: attr.Num("22152")}, {Name: "originalDueDate", Value: attr.Str("2026-11-13")}})
	checkRecord(t, e, tb, it)
	key, _ := tb.tableKey(nil, it)
	tb.mu.RLock()
	v := tb.get(key).load()
	tb.mu.RUnlock()
	// count, then two fields: a one-byte name, a type, a length and the value.
	assert.Equal(t, 1+(3+5)+(3+10), len(v.body()))
	assert.Equal(t, versionHeader+len(key)+len(v.body()), v.mem())
}

// FuzzRecordBody: whatever a version's body holds, its readers never
// panic, and what they read agrees: the JSON written is the decoded
// item's, and the portable form decodes to it.
func FuzzRecordBody(f *testing.F) {
	e := New(Options{})
	tb := recordTable(f, e, "Fuzz", "S", "N")
	for _, it := range recordItems("S", "N") {
		_, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Fuzz", Item: it})
		require.NoError(f, err)
		key, _ := tb.tableKey(nil, it)
		f.Add(tb.get(key).load().body())
	}
	f.Add([]byte{1, 3, 'a', 'b', 'c', byte(attr.NULL)})
	f.Add([]byte{2, 0, byte(attr.S), 0, 0, byte(attr.BOOL), 1})
	key, _ := tb.tableKey(nil, attr.Item{{Name: "pk", Value: attr.Str("p\x00")}, {Name: "sk", Value: attr.Num("-7")}})
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append(append([]byte(nil), key...), body...)
		v := version{b: b, klen: uint32(len(key))}
		it, err := tb.decode(v)
		_, _ = tb.lookup(v, "pk")
		_, _ = tb.lookup(v, "m")
		js, ok := tb.appendJSON(nil, v, nil)
		p := tb.portable(nil, v)
		if err != nil {
			return
		}
		if ok && string(js) != string(attr.AppendItemJSON(nil, it)) {
			t.Fatalf("JSON %s, decoded item %v", js, it)
		}
		back, err := decodeItem(p)
		if err != nil || !attr.EqualItems(back, it) {
			t.Fatalf("portable form %q decodes to %v (%v), decoded item %v", p, back, err, it)
		}
		if n := tb.portableLen(v); n != len(p) {
			t.Fatalf("portableLen %d, portable form of %d bytes", n, len(p))
		}
	})
}

// TestRecordNamesConcurrent: names added by writers while readers walk
// snapshots (Scan pages past their first items, without the lock): every
// item a reader sees reads back whole, its own new name included.
func TestRecordNamesConcurrent(t *testing.T) {
	e := New(Options{})
	recordTable(t, e, "Grow", "S", "N")
	ctx := context.Background()
	put := func(i int) error {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Grow", Item: attr.Sorted(attr.Item{{Name: "pk", Value: attr.Str(fmt.Sprint("p", i%50))},
			{Name: "sk", Value: attr.Num(fmt.Sprint(i))}, {Name: fmt.Sprint("n", i), Value: attr.Num(fmt.Sprint(i))}})})
		return err
	}
	for i := 0; i < 300; i++ {
		require.NoError(t, put(i))
	}
	done := make(chan error, 1)
	go func() {
		for i := 300; i < 1300; i++ {
			if err := put(i); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for writing := true; writing; {
		select {
		case err := <-done:
			require.NoError(t, err)
			writing = false
		default:
		}
		out, err := e.Scan(ctx, &ScanInput{TableName: "Grow"})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(out.Items), 300)
		for _, it := range out.Items {
			sk, _ := it.Get("sk")
			v, ok := it.Get("n" + sk.Str)
			require.True(t, ok && v.Str == sk.Str, "item %v", it)
		}
	}
}

// TestLeanPutReplace: a put that asks nothing of the item it replaces
// (its old item is not decoded) replaces it whole, keeps the table's
// size right, and a later put asking ALL_OLD gets it back.
func TestLeanPutReplace(t *testing.T) {
	e := New(Options{})
	tb := recordTable(t, e, "Lean", "S", "N")
	ctx := context.Background()
	item := func(v string, extra int) attr.Item {
		it := attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Num("1")}, {Name: "v", Value: attr.Str(v)}}
		for i := 0; i < extra; i++ {
			it = append(it, attr.Field{Name: fmt.Sprint("x", i), Value: attr.Num(fmt.Sprint(i))})
		}
		return attr.Sorted(it)
	}
	for i, it := range []attr.Item{item("one", 5), item("two", 1), item("three", 3)} {
		w, err := e.prepareWrite(tb, putKind, it, nil, "", "", nil, nil, "")
		require.NoError(t, err)
		w.lean = true
		_, err = e.single(ctx, w)
		require.NoError(t, err)
		assert.Equal(t, i > 0, w.old != nil)
		assert.Nil(t, w.oldItem, "a lean put decodes nothing")
		got, err := e.GetItem(ctx, &GetItemInput{TableName: "Lean", Key: attr.Item{{Name: "pk", Value: attr.Str("p")}, {Name: "sk", Value: attr.Num("1")}}})
		require.NoError(t, err)
		assert.True(t, attr.EqualItems(it, got.Item))
		d, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Lean"})
		require.NoError(t, err)
		assert.Equal(t, int64(tb.rules.ItemSize(it)), d.Table.TableSizeBytes)
		assert.Equal(t, int64(1), d.Table.ItemCount)
	}
	out, err := e.PutItem(ctx, &PutItemInput{TableName: "Lean", Item: item("four", 0), ReturnValues: "ALL_OLD"})
	require.NoError(t, err)
	assert.True(t, attr.EqualItems(item("three", 3), out.Attributes))
}
