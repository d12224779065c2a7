package loadgen

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
)

// loadedModel loads a model's population at a tiny scale into a new
// embedded engine.
func loadedModel(t *testing.T, path string, scale float64) (*catalog.Model, *endpoint.Target, *endpoint.Tables) {
	t.Helper()
	m, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := tg.CreateTables(ctx, m, endpoint.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pop, err := dataset.New(m, dataset.Options{Scale: scale, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadPopulation(ctx, pop, 0, 1, tg, tables, nil, nil, nil, true, nil); err != nil {
		t.Fatal(err)
	}
	return m, tg, tables
}

// scanWhere returns the first items of a table whose attributes hold the
// given string values.
func scanWhere(t *testing.T, tg *endpoint.Target, table string, n int, want map[string]string, absent ...string) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(tg.Client, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() && len(out) < n {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
	items:
		for _, it := range page.Items {
			for k, v := range want {
				s, ok := it[k].(*types.AttributeValueMemberS)
				if !ok || s.Value != v {
					continue items
				}
			}
			for _, k := range absent {
				if _, ok := it[k]; ok {
					continue items
				}
			}
			out = append(out, it)
			if len(out) == n {
				break
			}
		}
	}
	if len(out) < n {
		t.Fatalf("%s: %d items with %v, want %d", table, len(out), want, n)
	}
	return out
}

func check(t *testing.T, m *catalog.Model, tg *endpoint.Target, tables *endpoint.Tables) map[string]InvariantResult {
	t.Helper()
	res, _, err := checkInvariants(context.Background(), tg, tables.Names(), m.Invariants, invariantInput{m: m, parts: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]InvariantResult{}
	for _, r := range res {
		out[r.Name] = r
	}
	return out
}

func put(t *testing.T, tg *endpoint.Target, table string, it map[string]types.AttributeValue) {
	t.Helper()
	if _, err := tg.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func numOf(it map[string]types.AttributeValue, k string) string {
	if n, ok := it[k].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// TestInvariantsCatchPlantedViolations loads the reference model's
// population (every invariant holds of it), then writes around the
// executor, as a faulty service would: an instalment credited twice for
// one settlement, a day counter pushed past the contact limit, a cured
// contract left on the agenda. The check finds each, with its keys, and
// nothing else.
func TestInvariantsCatchPlantedViolations(t *testing.T) {
	m, tg, tables := loadedModel(t, "../model.yaml", 0.0002)
	tb := m.Tables[0]
	name := tables.Name(tb.Name)
	clean := check(t, m, tg, tables)
	for n, r := range clean {
		if r.Violations != 0 {
			t.Fatalf("the generated population breaks %s: %+v", n, r.Details)
		}
	}
	if len(clean) != len(m.Invariants) || clean["settlement-applied-once"].Checked == 0 || clean["contact-limit"].Checked == 0 {
		t.Fatalf("invariants not all checked: %+v", clean)
	}

	// A settlement applied twice: the instalment's paidCents counts what
	// it was paid twice.
	inst := scanWhere(t, tg, name, 1, map[string]string{"type": "INSTALLMENT", "status": "PAID"})[0]
	paid, err := strconv.ParseInt(numOf(inst, "paidCents"), 10, 64)
	if err != nil || paid == 0 {
		t.Fatalf("a paid instalment with paidCents %q", numOf(inst, "paidCents"))
	}
	inst["paidCents"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(2*paid, 10)}
	put(t, tg, name, inst)
	// A counter pushed past the daily limit.
	lim := scanWhere(t, tg, name, 1, map[string]string{"type": "LIMIT"})[0]
	lim["attempts"] = &types.AttributeValueMemberN{Value: "4"}
	put(t, tg, name, lim)
	// A cured contract left on the agenda: ACTIVE, but still keyed in GSI1.
	con := scanWhere(t, tg, name, 1, map[string]string{"type": "CONTRACT", "status": "IN_COLLECTION"})[0]
	if _, ok := con["nextActionDate"]; !ok {
		con = scanWhere(t, tg, name, 1, map[string]string{"type": "CONTRACT", "status": "IN_COLLECTION"}, "promiseId")[0]
	}
	con["status"] = &types.AttributeValueMemberS{Value: "ACTIVE"}
	delete(con, "bucket")
	put(t, tg, name, con)

	got := check(t, m, tg, tables)
	key := func(it map[string]types.AttributeValue) string {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		return pk.Value
	}
	for _, tc := range []struct {
		inv  string
		item map[string]types.AttributeValue
	}{{"settlement-applied-once", inst}, {"contact-limit", lim}, {"cured-off-the-agenda", con}} {
		r := got[tc.inv]
		if r.Violations != 1 || len(r.Details) != 1 {
			t.Errorf("%s: %d violations %+v, want 1", tc.inv, r.Violations, r.Details)
			continue
		}
		if !strings.Contains(r.Details[0].Keys, key(tc.item)) {
			t.Errorf("%s: violation keys %q, want the planted item's %s", tc.inv, r.Details[0].Keys, key(tc.item))
		}
	}
	for n, r := range got {
		switch n {
		case "settlement-applied-once", "contact-limit", "cured-off-the-agenda":
		default:
			if r.Violations != 0 {
				t.Errorf("%s: %d violations %+v, none planted", n, r.Violations, r.Details)
			}
		}
	}
}

// TestOrdersInvariantsCatchPlantedViolations: the orders example's own
// invariants, from its model, on its population: a paid order whose
// payment lookup is missing, and a delivered order left in the queue.
func TestOrdersInvariantsCatchPlantedViolations(t *testing.T) {
	m, tg, tables := loadedModel(t, "../examples/orders/model.yaml", 0.0002)
	name := tables.Name(m.Tables[0].Name)
	for n, r := range check(t, m, tg, tables) {
		if r.Violations != 0 {
			t.Fatalf("the generated population breaks %s: %+v", n, r.Details)
		}
	}
	ord := scanWhere(t, tg, name, 1, map[string]string{"type": "ORDER", "status": "PAID"})[0]
	pay := ord["paymentId"].(*types.AttributeValueMemberS).Value
	if _, err := tg.Client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(name),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "EXT#PAYMENT#" + pay}, "SK": &types.AttributeValueMemberS{Value: "EXT"}}}); err != nil {
		t.Fatal(err)
	}
	done := scanWhere(t, tg, name, 1, map[string]string{"type": "ORDER", "status": "DELIVERED"})[0]
	done["queueStatus"] = &types.AttributeValueMemberS{Value: "PENDING"}
	done["queueShard"] = &types.AttributeValueMemberN{Value: "3"}
	put(t, tg, name, done)
	got := check(t, m, tg, tables)
	for _, n := range []string{"payment-lookup-once", "done-off-the-queue"} {
		if got[n].Violations != 1 {
			t.Errorf("%s: %d violations %+v, want 1", n, got[n].Violations, got[n].Details)
		}
	}
}
