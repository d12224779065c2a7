package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func ordersModel(t *testing.T) (*Model, []byte) {
	t.Helper()
	data, err := os.ReadFile("../examples/orders/model.yaml")
	require.NoError(t, err)
	m, err := Parse("orders.yaml", data)
	require.NoError(t, err)
	return m, data
}

// TestOrdersModel reads the second model's facts where their readers
// find them.
func TestOrdersModel(t *testing.T) {
	m, _ := ordersModel(t)
	var ids []string
	for _, ap := range m.AccessPatterns {
		ids = append(ids, ap.ID)
	}
	assert.Equal(t, []string{"OP01", "OP02", "OP03", "OP04", "OP05", "OP06"}, ids)
	assert.Empty(t, m.Warnings)

	// A customer's orders in a period: two bounds of createdAt, named.
	op6 := m.AccessPattern("OP06")
	require.Len(t, op6.Params, 2)
	assert.Equal(t, "createdAt", op6.Params[0].Attribute.Name)
	rgs := m.Operation("CustomerOrdersBetween").Ranges()
	require.Len(t, rgs, 1)
	assert.Equal(t, [3]string{"createdAt", "from", "to"}, [3]string{rgs[0].Attribute.Name, rgs[0].Lower.Name, rgs[0].Upper.Name})
	span, ok := rgs[0].SampleSpan()
	assert.True(t, ok)
	assert.Equal(t, int64(31*86400-1), span)

	assert.Equal(t, "orders", m.Scale.BusinessUnit.Name)
	assert.Equal(t, 20e6, m.Scale.BusinessUnit.Count)
	assert.Equal(t, 20e6, m.Entity("ORDER").Population.Items)
	assert.InDelta(t, 20e6*0.52, m.Entity("ORDER_NOTE").Population.Items, 1e-3)
	assert.InDelta(t, 20e6*1.85, m.Entity("EXTERNAL_REF").Population.Items, 1e-3)
	c := m.Attribute("customerId")
	assert.Equal(t, int64(2e6), c.Skew.N)
	assert.InDelta(t, 1, func() float64 {
		s := 0.0
		for r := int64(0); r < c.Skew.N; r += 1 {
			s += c.Skew.Share(r)
		}
		return s
	}(), 1e-9, "the customers' shares add up")
	assert.Greater(t, c.Skew.Largest(), 100*c.Skew.Share(c.Skew.N-1), "a long tail")

	q := m.Index("opsQueue")
	assert.Equal(t, 10, q.Shards.Count)
	assert.Equal(t, []*Entity{m.Entity("ORDER")}, q.Entries)
	order := m.Entity("ORDER")
	qs := order.attr("queueStatus")
	assert.Equal(t, []Condition{{Attribute: "status", Values: []attr.Value{attr.Str("PLACED"), attr.Str("PAID"), attr.Str("PICKING")}}}, qs.When)
	for _, s := range order.Samples {
		_, inQueue := s.Item.Get("queueStatus")
		st, _ := s.Item.Get("status")
		assert.Equal(t, st.Str == "PLACED" || st.Str == "PAID" || st.Str == "PICKING", inQueue, s.Name)
		assert.Empty(t, order.CheckItem(s.Item), s.Name)
	}
	assert.NotNil(t, m.Peak("month-end"))
	assert.Equal(t, []string{"month-end"}, m.AccessPattern("OP04").Velocity.Peak.Peaks)
}

// TestOrdersRequests: the requests of the second model need nothing a
// program would have to guess: line items from a list parameter, the
// payment lookup keyed by a fixed part, the invoice appended from a list
// built of parameters.
func TestOrdersRequests(t *testing.T) {
	m, _ := ordersModel(t)
	calls, err := m.Operation("CreateOrder").SampleRun("new")
	require.NoError(t, err)
	require.Len(t, calls, 1)
	require.Len(t, calls[0].Actions, 2)
	order, lookup := calls[0].Actions[0], calls[0].Actions[1]
	lines, _ := order.Item.Get("lineItems")
	require.Equal(t, attr.L, lines.Type)
	assert.Len(t, lines.List, 2)
	assert.Empty(t, m.Entity("ORDER").CheckItem(order.Item))
	pk, _ := lookup.Item.Get("PK")
	assert.Equal(t, attr.Str("EXT#PAYMENT#pay_1NfQ9x2LmZ8kRt"), pk, "the fixed part comes from the item's system: PAYMENT")
	assert.Equal(t, "EXT#PAYMENT#{paymentId}", m.Operation("CreateOrder").Step("payment-lookup").Request.Key[0].Value.Template.Text)
	assert.Empty(t, m.Entity("EXTERNAL_REF").CheckItem(lookup.Item))

	calls, err = m.Operation("PaymentConfirmed").SampleRun("paid")
	require.NoError(t, err)
	assert.Equal(t, attr.Item{{Name: "PK", Value: attr.Str("EXT#PAYMENT#pay_1NfQ9x2LmZ8kRt")}, {Name: "SK", Value: attr.Str("EXT")}}, calls[0].Key, "SK from the entity's template")
	sk, _ := calls[1].Key.Get("PK")
	assert.Equal(t, attr.Str("ORDER#ord-7k2m9q4x1b3c"), sk, "orderId bound by the lookup")

	calls, err = m.Operation("AttachInvoice").SampleRun("new")
	require.NoError(t, err)
	ref, _ := calls[0].Actions[0].Values.Get(":ref")
	assert.Equal(t, attr.ListOf(attr.MapOf(attr.Item{{Name: "id", Value: attr.Str("NF-000418223")}, {Name: "system", Value: attr.Str("INVOICE")}})), ref)
	pk, _ = calls[0].Actions[1].Item.Get("PK")
	assert.Equal(t, attr.Str("EXT#INVOICE#NF-000418223"), pk)

	calls, err = m.Operation("ClaimNextOrder").SampleRun("claimed")
	require.NoError(t, err)
	require.Len(t, calls, 2, "a worker reads its own shard")
	assert.Equal(t, "queueStatus = :queueStatus AND queueShard = :queueShard", calls[0].KeyCondition)
}

// TestOrdersRegressions plants, one at a time, the mistakes a team makes
// in such a model and checks each is caught with its cause at its line.
func TestOrdersRegressions(t *testing.T) {
	_, data := ordersModel(t)
	src := string(data)
	cases := []struct {
		name  string
		edits [][2]string
		want  string
	}{
		{"a misspelt enum value in an expression",
			[][2]string{{`":claimed": IN_PROGRESS`, `":claimed": IN_PROGRES`}},
			`orders.yaml:839:32: operations.ClaimNextOrder.steps[1].update.values.:claimed: :claimed is assigned to queueStatus: "IN_PROGRES" is not a value of queueStatus (did you mean "IN_PROGRESS"?)`},
		{"a shipped sample that keeps its queue attributes",
			[][2]string{{"        status: SHIPPED\n        totalCents: 15970\n        currency: BRL\n        lineItems:\n          - {sku: TEE-0042, qty: 2, unitPriceCents: 4990}\n          - {sku: CAP-0007, qty: 1, unitPriceCents: 5990}\n        itemCount: 2\n        priority: 2\n", "        status: SHIPPED\n        totalCents: 15970\n        currency: BRL\n        lineItems:\n          - {sku: TEE-0042, qty: 2, unitPriceCents: 4990}\n          - {sku: CAP-0007, qty: 1, unitPriceCents: 5990}\n        itemCount: 2\n        priority: 2\n        queueStatus: PENDING\n        queueShard: 3\n"}},
			`orders.yaml:441:9: entities.ORDER.samples.shipped.queueStatus: queueStatus is present, but it exists only while status is PLACED, PAID or PICKING (here status is SHIPPED)`},
		{"shipping that forgets to leave the queue",
			[][2]string{{` REMOVE queueStatus, queueShard, claimedBy, claimedAt"`, `"`}, {"          before: picking\n          after: shipped\n", "          before: picking\n"}},
			`orders.yaml:991:19: operations.ShipOrder.steps[0].update.update: the ORDER item the update leaves of sample picking breaks its entity's rules: queueShard: present, but it exists only while status is PLACED, PAID or PICKING (here status is SHIPPED); queueStatus: present, but it exists only while status is PLACED, PAID or PICKING (here status is SHIPPED)`},
		{"a fixed key part that is no value of its attribute",
			[][2]string{{`key: {PK: "EXT#PAYMENT#{paymentId}"}`, `key: {PK: "EXT#PAYMNT#{paymentId}"}`}},
			`orders.yaml:871:21: operations.PaymentConfirmed.steps[0].get.key.PK: the fixed part "PAYMNT" stands for system: "PAYMNT" is not a value of system (did you mean "PAYMENT"?)`},
		{"a key of another entity's shape",
			[][2]string{{`key: {PK: "EXT#PAYMENT#{paymentId}"}`, `key: {PK: "ORDER#{paymentId}"}`}},
			`orders.yaml:871:21: operations.PaymentConfirmed.steps[0].get.key.PK: "ORDER#{paymentId}" does not have the shape of the template of EXTERNAL_REF`},
		{"a line-item list past its bound",
			[][2]string{{"    minItems: 1\n    maxItems: 50\n", "    minItems: 1\n    maxItems: 1\n"}},
			`orders.yaml:672:11: operations.CreateOrder.params.lineItems.sample: 2 elements, more than the 1 lineItems allows`},
		{"a priority out of its range",
			[][2]string{{`      priority: {sample: 2}`, `      priority: {sample: 9}`}},
			`orders.yaml:677:26: operations.CreateOrder.params.priority.sample: 9 is above the maximum 5 of priority`},
		{"an instant key written with another offset",
			[][2]string{{`        noteAt: "2026-09-24T09:30:00.250Z"`, `        noteAt: "2026-09-24T06:30:00.250-03:00"`}},
			`orders.yaml:487:17: entities.ORDER_NOTE.samples.address.noteAt: noteAt: "2026-09-24T06:30:00.250-03:00" is not written in the instant format: UTC with milliseconds, such as 2026-09-24T03:07:01.000Z`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := src
			for _, e := range c.edits {
				require.Contains(t, text, e[0])
				text = strings.Replace(text, e[0], e[1], 1)
			}
			_, err := Parse("orders.yaml", []byte(text))
			require.Error(t, err)
			var lines []string
			for _, l := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(l, "hint: ") {
					lines = append(lines, l)
				}
			}
			assert.Contains(t, lines, c.want, "errors:\n%v", err)
		})
	}
}
