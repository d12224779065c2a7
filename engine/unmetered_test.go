package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Writes under Unmetered pass whatever the limits, as an import does, and
// leave the model's buckets to the requests that follow.
func TestUnmetered(t *testing.T) {
	e, _ := modelled(t, Options{})
	newTable(t, e)
	imp := Unmetered(ctx)
	for i := range 50 {
		_, err := e.PutItem(imp, &PutItemInput{TableName: "Tab", Item: item("hot", i, withGSI("T1#2026-12-01", i)...)})
		require.NoError(t, err, "write %d of the import", i)
	}
	_, err := e.TransactWriteItems(imp, &TransactWriteItemsInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{TableName: "Tab", Item: item("hot", 50)}}, {Put: &TransactPut{TableName: "Tab", Item: item("hot", 51)}}}})
	require.NoError(t, err)
	s, ok := e.Throughput()
	require.True(t, ok)
	assert.Zero(t, s.Table("Tab").Resource("").Totals.WriteConsumed, "an import consumes nothing of the model")

	// The same key, metered: ten writes a second, then a refusal.
	n := 0
	for ; n < 20 && err == nil; n++ {
		_, err = e.PutItem(ctx, &PutItemInput{TableName: "Tab", Item: item("hot", 100+n)})
	}
	errType(t, err, ErrThrottling)
	assert.Equal(t, 11, n, fmt.Sprint("metered writes after the import: ", n))
}
