package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/loadgen"
)

// cardapio load check against tables someone else wrote: a population
// loaded into a server by cardapio data (or kept by cardapio load), then
// changed by a program that knows nothing of cardapio but DynamoDB's API,
// as a faulty service would change them. Every planted violation is found
// with its keys, and the clean population holds every invariant the data
// alone can say.

// served is an embedded engine served over loopback, as cardapio serve
// does (without its TTL sweep, which would delete the population's items
// whose expiry, drawn as of the model's date, is past).
func served(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(engine.New(engine.Options{}).Handler())
	t.Cleanup(s.Close)
	return s.URL
}

// outsider is a plain aws-sdk-go-v2 client of the server: the program
// that plants the violations.
func outsider(url string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDPLANTER", "planter-secret", "")})
}

// firstWhere scans a table for the first items whose string attributes
// have the given values and which carry (or lack, with a leading !) the
// given attributes.
func firstWhere(t *testing.T, c *dynamodb.Client, table string, n int, want map[string]string, has ...string) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() && len(out) < n {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
	items:
		for _, it := range page.Items {
			for k, v := range want {
				s, ok := it[k].(*types.AttributeValueMemberS)
				if !ok || s.Value != v {
					continue items
				}
			}
			for _, a := range has {
				_, ok := it[strings.TrimPrefix(a, "!")]
				if ok == strings.HasPrefix(a, "!") {
					continue items
				}
			}
			out = append(out, it)
			if len(out) == n {
				break
			}
		}
	}
	require.Len(t, out, n, "%s: items with %v and %v", table, want, has)
	return out
}

func str(it map[string]types.AttributeValue, k string) string {
	switch v := it[k].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}

func key(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}
}

func keysText(it map[string]types.AttributeValue) string {
	return "PK " + str(it, "PK") + ", SK " + str(it, "SK")
}

func update(t *testing.T, c *dynamodb.Client, table string, it map[string]types.AttributeValue, expr string, names map[string]string, values map[string]types.AttributeValue) {
	t.Helper()
	in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(it), UpdateExpression: aws.String(expr), ExpressionAttributeValues: values}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	_, err := c.UpdateItem(context.Background(), in)
	require.NoError(t, err)
}

func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// loadCheck runs cardapio load check and decodes its JSON report.
func loadCheck(t *testing.T, wantCode int, args ...string) *loadgen.CheckReport {
	t.Helper()
	r := runCLI(append([]string{"load", "check", "--format", "json"}, args...), nil)
	require.Equal(t, wantCode, r.code, "stdout %s\nstderr %s", r.stdout, r.stderr)
	var rep loadgen.CheckReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	return &rep
}

func byName(rep *loadgen.CheckReport) map[string]loadgen.InvariantResult {
	out := map[string]loadgen.InvariantResult{}
	for _, v := range rep.Invariants {
		out[v.Name] = v
	}
	return out
}

// violatedAt asserts that an invariant names the item's keys among its
// violations.
func violatedAt(t *testing.T, res loadgen.InvariantResult, keys string) {
	t.Helper()
	for _, d := range res.Details {
		if d.Keys == keys {
			return
		}
	}
	t.Errorf("%s: no violation at %s: %+v", res.Name, keys, res.Details)
}

func TestLoadCheckPlantedInAPopulation(t *testing.T) {
	url := served(t)
	r := runCLI([]string{"data", "../../model.yaml", "--scale", "0.0001", "--endpoint-url", url, "--create-tables", "--quiet"}, nil)
	require.Equal(t, 0, r.code, r.stderr)

	// The generator's population holds every invariant of the data; those
	// of a run's ledger are said not checked, never ok.
	clean := byName(loadCheck(t, 0, "../../model.yaml", "--endpoint-url", url))
	for _, name := range []string{"settlement-applied-once", "contact-limit", "cured-off-the-agenda"} {
		assert.Zero(t, clean[name].Violations, "%s: %+v", name, clean[name].Details)
		assert.Positive(t, clean[name].Checked, name)
		assert.Empty(t, clean[name].Unchecked, name)
	}
	for _, name := range []string{"webhook-applied-once", "no-lost-update", "no-contact-after-payment"} {
		assert.Contains(t, clean[name].Unchecked, "--results", name)
	}

	c := outsider(url)
	const table = "collections"
	paid := firstWhere(t, c, table, 2, map[string]string{"type": "INSTALLMENT", "status": "PAID"})
	// A settlement applied twice: the instalment credited again.
	update(t, c, table, paid[0], "SET paidCents = paidCents + :x", nil, map[string]types.AttributeValue{":x": n(str(paid[0], "paidCents"))})
	// A paid instalment whose paidCents disagrees with its settlements.
	update(t, c, table, paid[1], "SET paidCents = paidCents - :x", nil, map[string]types.AttributeValue{":x": n("100")})
	// A debtor over the daily contact limit.
	limit := firstWhere(t, c, table, 1, map[string]string{"type": "LIMIT"})[0]
	update(t, c, table, limit, "SET attempts = :four", nil, map[string]types.AttributeValue{":four": n("4")})
	// A cured contract left in its bucket and on the agenda.
	cured := firstWhere(t, c, table, 1, map[string]string{"type": "CONTRACT", "status": "IN_COLLECTION"}, "bucket", "nextActionDate", "nextAction")[0]
	update(t, c, table, cured, "SET #s = :active, statusReason = :why", map[string]string{"#s": "status"},
		map[string]types.AttributeValue{":active": s("ACTIVE"), ":why": s("CURED_BY_PAYMENT")})

	got := byName(loadCheck(t, 3, "../../model.yaml", "--endpoint-url", url))
	assert.EqualValues(t, 2, got["settlement-applied-once"].Violations)
	violatedAt(t, got["settlement-applied-once"], keysText(paid[0]))
	violatedAt(t, got["settlement-applied-once"], keysText(paid[1]))
	assert.EqualValues(t, 1, got["contact-limit"].Violations)
	violatedAt(t, got["contact-limit"], keysText(limit))
	// GSI1 and GSI2: on the agenda and in a bucket.
	assert.EqualValues(t, 2, got["cured-off-the-agenda"].Violations)
	violatedAt(t, got["cured-off-the-agenda"], keysText(cured))

	// The text report prints each with its keys; a wrong prefix is bad
	// input, not an empty table that holds everything.
	r = runCLI([]string{"load", "check", "../../model.yaml", "--endpoint-url", url}, nil)
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stdout, "contact-limit: VIOLATED 1 time (")
	assert.Contains(t, r.stdout, keysText(limit)+": LIMIT item does not hold attempts <= :max")
	assert.Contains(t, r.stdout, "no-lost-update: NOT CHECKED")
	r = runCLI([]string{"load", "check", "../../model.yaml", "--endpoint-url", url, "--table-prefix", "nope-"}, nil)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "nope-collections")
}

// A run kept with its results file: the ledger invariants are checked
// too, against what was written after the run.
func TestLoadCheckPlantedAfterARun(t *testing.T) {
	url := served(t)
	results := filepath.Join(t.TempDir(), "payday.jsonl")
	r := runCLI([]string{"load", "../../model.yaml", "--scenario", "payday", "--scale", "0.01", "--population", "0.0002", "--duration", "20s",
		"--speed", "max", "--retry-attempts", "1", "--endpoint-url", url, "--keep", "--results", results, "--quiet", "--format", "json"}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	var sum loadgen.Summary
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum))
	require.NotEmpty(t, sum.Tables["collections"])
	table := sum.Tables["collections"]

	clean := byName(loadCheck(t, 0, "../../model.yaml", "--endpoint-url", url, "--results", results))
	for _, v := range clean {
		assert.Empty(t, v.Unchecked, v.Name)
		assert.Zero(t, v.Violations, "%s: %+v", v.Name, v.Details)
	}
	assert.Positive(t, clean["no-contact-after-payment"].Checked)
	assert.Positive(t, clean["no-lost-update"].Checked)

	c := outsider(url)
	// An SMS after a payment the run received: a contact recorded for
	// the contract an hour after its settlement.
	// (payday's clock starts at 2026-09-24T00:00-03:00, and its
	// settlements are received on it.)
	var paidNow map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table),
		FilterExpression:          aws.String("#t = :stl AND begins_with(receivedAt, :run)"),
		ExpressionAttributeNames:  map[string]string{"#t": "type"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":stl": s("SETTLEMENT"), ":run": s("2026-09-24T03:00")}})
	for p.HasMorePages() && paidNow == nil {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
		if len(page.Items) > 0 {
			paidNow = page.Items[0]
		}
	}
	require.NotNil(t, paidNow, "a settlement the run applied")
	contractID, _, _ := strings.Cut(str(paidNow, "appliedTo"), "#")
	contract := firstWhere(t, c, table, 1, map[string]string{"type": "CONTRACT", "contractId": contractID})[0]
	contact := map[string]types.AttributeValue{
		"PK": contract["PK"], "SK": s("CONTACT#2026-09-24T23:30:00-03:00"), "type": s("CONTACT"),
		"tenantId": contract["tenantId"], "debtorKey": contract["debtorKey"], "contactAt": s("2026-09-24T23:30:00-03:00"),
		"contractId": s(contractID), "channel": s("SMS"), "template": s("SMS_D15"), "result": s("DELIVERED"),
	}
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: contact})
	require.NoError(t, err)
	// A lost update: the contract's version set back, as a writer that
	// ignores the lock would leave it.
	update(t, c, table, contract, "SET version = version - :one", nil, map[string]types.AttributeValue{":one": n("1")})

	got := byName(loadCheck(t, 3, "../../model.yaml", "--endpoint-url", url, "--results", results))
	violatedAt(t, got["no-contact-after-payment"], keysText(contact))
	violatedAt(t, got["no-lost-update"], keysText(contract))
	assert.Zero(t, got["webhook-applied-once"].Violations)

	// A results file of another model is refused.
	r = runCLI([]string{"load", "check", "../../examples/orders/model.yaml", "--endpoint-url", url, "--results", results}, nil)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not orders")
}

func TestLoadCheckOrdersPlanted(t *testing.T) {
	url := served(t)
	model := "../../examples/orders/model.yaml"
	r := runCLI([]string{"data", model, "--scale", "0.0001", "--endpoint-url", url, "--create-tables", "--quiet"}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	clean := byName(loadCheck(t, 0, model, "--endpoint-url", url))
	for _, name := range []string{"payment-lookup-once", "done-off-the-queue"} {
		assert.Zero(t, clean[name].Violations, "%s: %+v", name, clean[name].Details)
		assert.Positive(t, clean[name].Checked, name)
	}
	assert.Contains(t, clean["no-lost-order-update"].Unchecked, "--results")

	c := outsider(url)
	const table = "orders"
	// A paid order with a second payment lookup.
	order := firstWhere(t, c, table, 1, map[string]string{"type": "ORDER", "status": "PAID"})[0]
	ref := map[string]types.AttributeValue{"PK": s("EXT#PAYMENT#pay_planted000001"), "SK": s("EXT"), "type": s("EXTERNAL_REF"),
		"system": s("PAYMENT"), "externalId": s("pay_planted000001"), "orderId": order["orderId"], "linkedAt": s("2026-09-24T09:00:00.000Z")}
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: ref})
	require.NoError(t, err)
	// An order shipped but still in the queue index.
	queued := firstWhere(t, c, table, 1, map[string]string{"type": "ORDER", "status": "PICKING"}, "queueStatus", "queueShard")[0]
	update(t, c, table, queued, "SET #s = :shipped", map[string]string{"#s": "status"}, map[string]types.AttributeValue{":shipped": s("SHIPPED")})

	got := byName(loadCheck(t, 3, model, "--endpoint-url", url))
	assert.EqualValues(t, 1, got["payment-lookup-once"].Violations)
	violatedAt(t, got["payment-lookup-once"], keysText(order))
	assert.EqualValues(t, 1, got["done-off-the-queue"].Violations)
	violatedAt(t, got["done-off-the-queue"], keysText(queued))
}
