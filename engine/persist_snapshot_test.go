package engine

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// TestSnapshotItemsWithoutLock: a data snapshot walks the tree as it was
// at its cut, without the table's lock. Writes made from inside the walk
// (which would wait forever for a lock the walk held) go through, and
// the walk hands every item of the cut once, in order, and none written
// after it.
func TestSnapshotItemsWithoutLock(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	const n = 300
	for i := 0; i < n; i++ {
		putTab(t, e, attr.Item{{Name: "pk", Value: attr.Str(fmt.Sprintf("p%03d", i))}, {Name: "sk", Value: attr.Num("1")}})
	}
	tab, err := e.table("Tab")
	if err != nil {
		t.Fatal(err)
	}
	tab.mu.RLock()
	snap := tab.items.snapshot()
	tab.mu.RUnlock()
	var seen []string
	writes := 0
	count, err := writeItems(tab, snap, 500, func(vals [][]byte) error {
		for _, v := range vals {
			it, err := decodeItem(v) // the portable form
			if err != nil {
				return err
			}
			pk, _ := it.Get("pk")
			seen = append(seen, pk.Str)
		}
		// The table's write lock, taken while the walk is under way.
		putTab(t, e, attr.Item{{Name: "pk", Value: attr.Str("new" + strconv.Itoa(writes))}, {Name: "sk", Value: attr.Num("1")}})
		delTab(t, e, attr.Item{{Name: "pk", Value: attr.Str(fmt.Sprintf("p%03d", writes))}, {Name: "sk", Value: attr.Num("1")}})
		writes++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if writes < 2 {
		t.Fatalf("%d chunks: the walk was not cut", writes)
	}
	if count != n || len(seen) != n {
		t.Fatalf("%d items handed (%d counted), want %d", len(seen), count, n)
	}
	have := map[string]bool{}
	for _, pk := range seen {
		if have[pk] || pk[0] != 'p' {
			t.Fatalf("item %s handed twice or written after the cut", pk)
		}
		have[pk] = true
	}
}

func putTab(t *testing.T, e *Engine, it attr.Item) {
	t.Helper()
	if _, err := e.PutItem(context.Background(), &PutItemInput{TableName: "Tab", Item: it}); err != nil {
		t.Fatal(err)
	}
}

func delTab(t *testing.T, e *Engine, key attr.Item) {
	t.Helper()
	if _, err := e.DeleteItem(context.Background(), &DeleteItemInput{TableName: "Tab", Key: key}); err != nil {
		t.Fatal(err)
	}
}
