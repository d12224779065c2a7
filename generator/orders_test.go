package generator_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/examples/orders"
)

func ordersHarness(t *testing.T) *harness {
	m, err := catalog.Load("../examples/orders/model.yaml")
	require.NoError(t, err)
	return &harness{
		model: m,
		newClient: func(db any, prefix string) any {
			return orders.New(db.(orders.DynamoDB), orders.DefaultTables().WithPrefix(prefix))
		},
		createTables: func(ctx context.Context, db *dynamodb.Client) error {
			return orders.CreateTables(ctx, db, orders.DefaultTables())
		},
		pageSize: func(n int) any { return orders.PageSize(n) },
		failure:  new(*orders.Failure),
		keys:     catalog.KeysNative,
	}
}

func TestOrdersPatterns(t *testing.T) { ordersHarness(t).checkPatterns(t, 60) }

func TestOrdersOperations(t *testing.T) { ordersHarness(t).checkOperations(t) }

func TestOrdersAgreesWithExecutor(t *testing.T) {
	ordersHarness(t).checkAgreement(t, catalog.KeysNative)
}

func openOrders(t *testing.T) (*orders.Client, *dynamodb.Client) {
	t.Helper()
	tg, err := endpoint.Open(context.Background(), endpoint.Options{})
	require.NoError(t, err)
	require.NoError(t, orders.CreateTables(context.Background(), tg.Client, orders.DefaultTables()))
	return orders.New(tg.Client, orders.DefaultTables()), tg.Client
}

func checkout(id string, n int) orders.CreateOrderInput {
	return orders.CreateOrderInput{
		OrderID: id, CustomerID: "cus-4f8a2b9c1d", CreatedAt: fmt.Sprintf("2026-09-24T08:59:%02d.345Z", n%60),
		LineItems: []orders.LineItem{{SKU: "TEE-0042", Qty: 2, UnitPriceCents: 4990}, {SKU: "CAP-0007", Qty: 1, UnitPriceCents: 5990}},
		ItemCount: 2, TotalCents: 15970, Currency: orders.CurrencyBrl, Priority: int64(1 + n%5),
		QueueShard: orders.QueueShardOf(id), PaymentID: fmt.Sprintf("pay_%014d", n),
	}
}

// A retried checkout finds its order and changes nothing; a resent
// payment webhook is acknowledged as already paid.
func TestOrdersRetriedCheckoutAndPayment(t *testing.T) {
	c, _ := openOrders(t)
	bg := context.Background()
	in := checkout("ord-7k2m9q4x1b3c", 1)
	in.PaymentID = "pay_1NfQ9x2LmZ8kRt"
	res, err := c.CreateOrder(bg, in)
	require.NoError(t, err)
	assert.Positive(t, res.Capacity.WriteUnits)
	_, err = c.CreateOrder(bg, in)
	require.ErrorIs(t, err, orders.ErrOrderExists)
	var f *orders.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "succeed", f.Outcome)

	got, _, err := c.OP01(bg, "ord-7k2m9q4x1b3c")
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, []orders.LineItem{{SKU: "TEE-0042", Qty: 2, UnitPriceCents: 4990}, {SKU: "CAP-0007", Qty: 1, UnitPriceCents: 5990}}, got.LineItems)
	assert.Equal(t, orders.StatusPlaced, got.Status)

	pay := orders.PaymentConfirmedInput{PaymentID: in.PaymentID, Expected: 1, Now: "2026-09-24T09:10:00.000Z"}
	_, err = c.PaymentConfirmed(bg, pay)
	require.NoError(t, err)
	_, err = c.PaymentConfirmed(bg, pay)
	require.ErrorIs(t, err, orders.ErrAlreadyPaid, "the provider resends its webhook")
	_, err = c.PaymentConfirmed(bg, orders.PaymentConfirmedInput{PaymentID: "pay_00000000000000", Expected: 1, Now: "2026-09-24T09:10:00.000Z"})
	require.ErrorIs(t, err, orders.ErrExternalRefNotFound)
}

// Three workers per shard drain the preparation queue at once: every order
// is claimed exactly once, a worker that loses a race is told so.
func TestOrdersQueueUnderContention(t *testing.T) {
	c, _ := openOrders(t)
	bg := context.Background()
	const n = 40
	for i := range n {
		_, err := c.CreateOrder(bg, checkout(fmt.Sprintf("ord-%012d", i), i))
		require.NoError(t, err)
	}
	queued, _, err := orders.Collect(c.OP03(bg, orders.PageSize(7)))
	require.NoError(t, err)
	require.Len(t, queued, n, "every new order is in the queue, across its 10 shards")
	for i := 1; i < len(queued); i++ {
		a, b := queued[i-1], queued[i]
		assert.True(t, a.Priority < b.Priority || a.Priority == b.Priority && a.CreatedAt <= b.CreatedAt, "merged in the queue's order")
	}
	var mu sync.Mutex
	claimed := map[string]string{}
	lost := 0
	var wg sync.WaitGroup
	for shard := range int64(10) {
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w-%d%d", shard, w)
				for {
					res, err := c.ClaimNextOrder(bg, orders.ClaimNextOrderInput{QueueShard: shard, Worker: worker, Now: "2026-09-24T09:00:03.120Z"})
					var f *orders.Failure
					switch {
					case errors.As(err, &f) && f.Outcome == "retry":
						mu.Lock()
						lost++
						mu.Unlock()
						continue
					case errors.Is(err, orders.ErrNoItem):
						return // the shard is drained
					case err != nil:
						t.Error(err)
						return
					}
					mu.Lock()
					if prev, dup := claimed[res.Page[0].OrderID]; dup {
						t.Errorf("%s claimed twice, by %s and %s", res.Page[0].OrderID, prev, worker)
					}
					claimed[res.Page[0].OrderID] = worker
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	assert.Len(t, claimed, n, "every order claimed exactly once")
	t.Logf("%d claims, %d lost races", len(claimed), lost)
	left, _, err := orders.Collect(c.OP03(bg))
	require.NoError(t, err)
	assert.Empty(t, left, "no PENDING entry left")
}
