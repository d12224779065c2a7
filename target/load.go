package target

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
)

// Load writes items to a table. It is how runners set up the state they
// then measure. On the embedded engine the items go to the engine's bulk
// load (engine.Engine.Load: the puts BatchWriteItem makes, indexes,
// stream and all, under one lock per chunk, neither billed nor
// throttled); elsewhere through the SDK client as ordinary batch writes,
// 25 a request, retrying what the target leaves unprocessed (throttled).
func (t *Target) Load(ctx context.Context, table string, items []attr.Item) error {
	if t.Engine != nil {
		if err := t.Engine.Load(ctx, table, items); err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
		return nil
	}
	for len(items) > 0 {
		n := min(25, len(items))
		batch := items[:n]
		items = items[n:]
		if err := t.loadSDK(ctx, table, batch); err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
	}
	return nil
}

func (t *Target) loadSDK(ctx context.Context, table string, batch []attr.Item) error {
	reqs := make([]types.WriteRequest, len(batch))
	for i, it := range batch {
		reqs[i].PutRequest = &types.PutRequest{Item: attr.ToSDKItem(it)}
	}
	in := map[string][]types.WriteRequest{table: reqs}
	return retryUnprocessed(ctx, func() (int, error) {
		out, err := t.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: in})
		if err != nil {
			return 0, err
		}
		in = out.UnprocessedItems
		return len(in[table]), nil
	})
}

// retryUnprocessed calls send until it leaves nothing unprocessed, with a
// capped exponential backoff, at most 20 times.
func retryUnprocessed(ctx context.Context, send func() (left int, err error)) error {
	delay := 10 * time.Millisecond
	for attempt := 0; ; attempt++ {
		left, err := send()
		if err != nil || left == 0 {
			return err
		}
		if attempt >= 20 {
			return fmt.Errorf("%d items still unprocessed after %d attempts", left, attempt+1)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}
