package engine

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// This file uses only the engine's public API (and attr), so that
// bench/engine-store.sh compiles it into an older revision too and
// measures both with the very same code.

// storeItem is an item shaped like the reference model's typical one
// (about 170 bytes as DynamoDB counts them: string keys, a dozen
// attributes of camel-case names, numbers and short strings): the
// partition of i/10, the sort key of i%10.
func storeItem(i int) attr.Item {
	return attr.Sorted(attr.Item{
		{Name: "PK", Value: attr.Str(fmt.Sprintf("T#t001#D#%016x", i/10*2654435761))},
		{Name: "SK", Value: attr.Str(fmt.Sprintf("CT#C-2026-%06d#IN#%03d", i/10, i%10))},
		{Name: "dueDate", Value: attr.Str("2026-11-13")},
		{Name: "fineCents", Value: attr.Num(strconv.Itoa(i % 900))},
		{Name: "interestCents", Value: attr.Num(strconv.Itoa(i % 7000))},
		{Name: "paidCents", Value: attr.Num("0")},
		{Name: "principalCents", Value: attr.Num(strconv.Itoa(20000 + i%9000))},
		{Name: "seq", Value: attr.Num(strconv.Itoa(i % 10))},
		{Name: "status", Value: attr.Str("OPEN")},
		{Name: "type", Value: attr.Str("INSTALLMENT")},
		{Name: "version", Value: attr.Num("25")},
	})
}

func storeKey(i int) attr.Item {
	it := storeItem(i)
	pk, _ := it.Get("PK")
	sk, _ := it.Get("SK")
	return attr.Item{{Name: "PK", Value: pk}, {Name: "SK", Value: sk}}
}

func storeTable(b testing.TB, e *Engine, name string) {
	_, err := e.CreateTable(context.Background(), &CreateTableInput{TableName: name, BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "PK", AttributeType: "S"}, {AttributeName: "SK", AttributeType: "S"}},
		KeySchema:            []KeySchemaElement{{AttributeName: "PK", KeyType: "HASH"}, {AttributeName: "SK", KeyType: "RANGE"}}})
	if err != nil {
		b.Fatal(err)
	}
}

func storeCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStoreCost: the process's CPU time (GC included) of one
// GetItem, one PutItem of a new item, one PutItem replacing an item and
// one Query of a 10-item partition, in process, in a table of 100,000
// reference-like items; and the live heap a stored item takes against
// its bytes as DynamoDB counts them (heap-B/item, raw-B/item).
func BenchmarkStoreCost(b *testing.B) {
	const stored = 100_000
	ctx := context.Background()
	e := New(Options{})
	storeTable(b, e, "Store")
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := 0; i < stored; i++ {
		if _, err := e.PutItem(ctx, &PutItemInput{TableName: "Store", Item: storeItem(i)}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	desc, err := e.DescribeTable(ctx, &DescribeTableInput{TableName: "Store"})
	if err != nil {
		b.Fatal(err)
	}
	heap := float64(m1.HeapAlloc-m0.HeapAlloc) / stored
	raw := float64(desc.Table.TableSizeBytes) / stored
	items := make([]attr.Item, stored)
	keys := make([]attr.Item, stored)
	for i := range items {
		items[i], keys[i] = storeItem(i), storeKey(i)
	}
	run := func(b *testing.B, op func(i int) error) {
		b.ReportAllocs()
		c0 := storeCPU()
		for i := 0; i < b.N; i++ {
			if err := op(i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((storeCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.Run("heap", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
		}
		b.ReportMetric(heap, "heap-B/item")
		b.ReportMetric(raw, "raw-B/item")
		b.ReportMetric(heap/raw, "heap/raw")
	})
	b.Run("get", func(b *testing.B) {
		run(b, func(i int) error {
			out, err := e.GetItem(ctx, &GetItemInput{TableName: "Store", Key: keys[(i*7919)%stored]})
			if err == nil && out.Item == nil {
				err = fmt.Errorf("item %d missing", (i*7919)%stored)
			}
			return err
		})
	})
	b.Run("put-new", func(b *testing.B) {
		run(b, func(i int) error {
			it := items[i%stored].With("SK", attr.Str("new#"+strconv.Itoa(i)))
			_, err := e.PutItem(ctx, &PutItemInput{TableName: "Store", Item: it})
			return err
		})
	})
	b.Run("put-replace", func(b *testing.B) {
		run(b, func(i int) error {
			_, err := e.PutItem(ctx, &PutItemInput{TableName: "Store", Item: items[(i*7919)%stored]})
			return err
		})
	})
	b.Run("query10", func(b *testing.B) {
		run(b, func(i int) error {
			pk, _ := keys[((i*7919)%stored)/10*10].Get("PK")
			out, err := e.Query(ctx, &QueryInput{TableName: "Store", KeyConditionExpression: "PK = :p",
				ExpressionAttributeValues: map[string]attr.Value{":p": pk}})
			if err == nil && len(out.Items) < 10 {
				err = fmt.Errorf("%d items", len(out.Items))
			}
			return err
		})
	})
}
