package endpoint

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/cardapio/cardapio/attr"
)

// LoadConcurrency is how many batch writes one Load keeps in flight on a
// target reached through the SDK: enough that the client's encoding, the
// round trip and the server's work overlap.
const LoadConcurrency = 4

// Load writes items to a table. It is how runners set up the state they
// then measure, apart from the measurement: on the setup's own retry
// policy (SetupRetry, never the target's, which is the measured run's),
// a throttled batch waited for and sent again rather than failed, and
// what it took counted in t.Setup. On the embedded engine the items go to the engine's bulk
// load (engine.Engine.Load: the puts BatchWriteItem makes, indexes,
// stream and all, under one lock per chunk, neither billed nor
// throttled); elsewhere through the SDK client as ordinary batch writes,
// 25 a request, LoadConcurrency at a time, each body encoded once from
// the items (PreEncoded), retrying what the target leaves unprocessed
// (throttled). Batches may land in any order: an item whose key another
// item of the same call shares may end either way, so callers write each
// key once per call.
func (t *Target) Load(ctx context.Context, table string, items []attr.Item) error {
	if t.Engine != nil {
		if err := t.Engine.Load(ctx, table, items); err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	batches := make(chan []attr.Item)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range LoadConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			size := 0
			for b := range batches {
				if ctx.Err() != nil {
					continue
				}
				// A body of its own per request: the transport may
				// still hold the last one.
				body := BatchWriteBody(make([]byte, 0, size+size/4), table, b)
				size = len(body)
				if err := t.loadSDK(ctx, table, body); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	for len(items) > 0 && ctx.Err() == nil {
		n := min(25, len(items))
		select {
		case batches <- items[:n]:
		case <-ctx.Done():
		}
		items = items[n:]
	}
	close(batches)
	wg.Wait()
	if first == nil {
		first = parent.Err()
	}
	if first != nil {
		return fmt.Errorf("load %s: %w", table, first)
	}
	return nil
}

// BatchWriteBody appends the JSON body of a BatchWriteItem request that
// puts items into table, as the SDK would serialise it (for PreEncoded).
func BatchWriteBody(dst []byte, table string, items []attr.Item) []byte {
	dst = append(dst, `{"RequestItems":{`...)
	dst = strconv.AppendQuote(dst, table)
	dst = append(dst, `:[`...)
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"PutRequest":{"Item":`...)
		dst = attr.AppendItemJSON(dst, it)
		dst = append(dst, `}}`...)
	}
	return append(dst, `]}}`...)
}

// SetupRetry is the SDK retry policy of a run's setup writes (Load):
// attempts enough to ride out a throttled partition, no retry quota, so
// that a measured run's policy (--retry-attempts 1 to see every
// throttle) never fails its setup.
var SetupRetry = Retry{MaxAttempts: 10, MaxBackoff: 5 * time.Second}

var setupRetryer = SetupRetry.Retryer()

// setupThrottleLimit is how long Load keeps sending a batch the target
// throttles before it gives up.
const setupThrottleLimit = 15 * time.Minute

// SetupStats count what a target's setup writes took.
type SetupStats struct {
	// Requests are the BatchWriteItem calls, Resent those that sent
	// unprocessed items again, Throttled the calls the target throttled
	// past the SDK's attempts (waited for and sent again).
	Requests, Resent, Throttled atomic.Int64
}

// loadSDK sends one pre-encoded batch, then what the target leaves
// unprocessed as SDK values, until nothing is left.
func (t *Target) loadSDK(ctx context.Context, table string, body []byte) error {
	var in map[string][]types.WriteRequest
	own := func(o *dynamodb.Options) { o.Retryer = setupRetryer }
	throttledSince := time.Time{}
	delay := 50 * time.Millisecond
	return RetryUnprocessed(ctx, func() (int, error) {
		for {
			var out *dynamodb.BatchWriteItemOutput
			var err error
			t.Setup.Requests.Add(1)
			if in == nil {
				out, err = t.Client.BatchWriteItem(ctx, Placeholder(table), PreEncoded(body), own)
			} else {
				t.Setup.Resent.Add(1)
				out, err = t.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: in}, own)
			}
			if err != nil && isThrottle(err) && ctx.Err() == nil {
				// The setup never fails for a throttle: it waits, up to
				// setupThrottleLimit of throttles in a row.
				t.Setup.Throttled.Add(1)
				if throttledSince.IsZero() {
					throttledSince = time.Now()
				}
				if time.Since(throttledSince) > setupThrottleLimit {
					return 0, fmt.Errorf("throttled for %s: %w", setupThrottleLimit, err)
				}
				select {
				case <-ctx.Done():
					return 0, ctx.Err()
				case <-time.After(delay):
				}
				delay = min(2*delay, 5*time.Second)
				continue
			}
			if err != nil {
				return 0, err
			}
			throttledSince, delay = time.Time{}, 50*time.Millisecond
			in = out.UnprocessedItems
			if in == nil {
				in = map[string][]types.WriteRequest{}
			}
			return len(in[table]), nil
		}
	})
}

// isThrottle reports whether err is a throttle (the SDK's list of
// throttling error codes: ProvisionedThroughputExceededException,
// ThrottlingException, RequestLimitExceeded...).
func isThrottle(err error) bool {
	return retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary
}

// Placeholder is a valid BatchWriteItem input naming the table, for a
// call whose body PreEncoded replaces: the client validates and routes
// the input before serialising it.
func Placeholder(table string) *dynamodb.BatchWriteItemInput {
	return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{}}}},
	}}
}

// PreEncoded replaces the serialised body of one call with body, after
// the operation's serializer and before signing, so that the request is
// signed, sent, retried by the client's policy and its answer decoded as
// any other: the items are encoded once, from their attr form, instead
// of being converted to SDK values and serialised by reflection-free but
// allocation-heavy code, the dearest part of a bulk writer's work.
func PreEncoded(body []byte) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Serialize.Add(middleware.SerializeMiddlewareFunc("cardapio.PreEncodedBody",
				func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
					req, ok := in.Request.(*smithyhttp.Request)
					if !ok {
						return middleware.SerializeOutput{}, middleware.Metadata{}, fmt.Errorf("unexpected transport request %T", in.Request)
					}
					r, err := req.SetStream(bytes.NewReader(body))
					if err != nil {
						return middleware.SerializeOutput{}, middleware.Metadata{}, err
					}
					in.Request = r
					return next.HandleSerialize(ctx, in)
				}), middleware.After)
		})
	}
}

// RetryUnprocessed calls send until it leaves nothing unprocessed, with a
// capped exponential backoff, for as long as setupThrottleLimit (what a
// target leaves unprocessed is what it throttled): a batch call's
// UnprocessedItems or UnprocessedKeys.
func RetryUnprocessed(ctx context.Context, send func() (left int, err error)) error {
	delay := 10 * time.Millisecond
	began := time.Now()
	for attempt := 0; ; attempt++ {
		left, err := send()
		if err != nil || left == 0 {
			return err
		}
		if time.Since(began) > setupThrottleLimit {
			return fmt.Errorf("%d items still unprocessed after %d attempts in %s", left, attempt+1, setupThrottleLimit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}
