package engine

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestConcurrentTransactions runs transactions and plain writes on the
// same items from many goroutines: each either applies completely or
// fails with a conflict (or a failed condition), and no increment is lost.
func TestConcurrentTransactions(t *testing.T) {
	e := New(Options{})
	newTable(t, e)
	for _, k := range []int{1, 2} {
		_, err := e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("c", k, attr.Field{Name: "n", Value: attr.Num("0")})})
		require.NoError(t, err)
	}
	incr := func(k int) TransactWriteItem {
		return TransactWriteItem{Update: &TransactUpdate{TableName: "Tab", Key: item("c", k), UpdateExpression: "ADD n :one",
			ExpressionAttributeValues: vals(":one", attr.Num("1"))}}
	}
	var mu sync.Mutex
	applied := map[int]int{}
	codes := map[string]int{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if i%5 == 0 {
					_, err := e.UpdateItem(ctx, &UpdateItemInput{TableName: "Tab", Key: item("c", 1), UpdateExpression: "ADD n :one", ExpressionAttributeValues: vals(":one", attr.Num("1"))})
					mu.Lock()
					if err == nil {
						applied[1]++
					} else {
						codes[err.(*Error).Type]++
					}
					mu.Unlock()
					continue
				}
				_, err := e.TransactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{incr(1), incr(2)}})
				mu.Lock()
				if err == nil {
					applied[1]++
					applied[2]++
				} else {
					ee := err.(*Error)
					codes[ee.Type]++
					for _, r := range ee.CancellationReasons {
						codes[r.Code]++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, k := range []int{1, 2} {
		got, err := e.GetItem(ctx, &GetItemInput{TableName: "Tab", Key: item("c", k), ConsistentRead: true})
		require.NoError(t, err)
		n, _ := got.Item.Get("n")
		assert.Equal(t, strconv.Itoa(applied[k]), n.Str, "item %d", k)
	}
	for code := range codes {
		assert.Contains(t, []string{ErrTransactionCanceled, ErrTransactionConflict, "TransactionConflict", "None"}, code)
	}
	t.Logf("applied %v, failures %v", applied, codes)
}
