package catalog

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// exampleModels are the models every capability is shown on.
var exampleModels = []string{"../model.yaml", "../examples/orders/model.yaml"}

// TestRenderComplete renders every step of every operation and budget
// variant of the example models from the parameters' samples and checks
// that each request is complete: every key attribute present, every
// expression parses over exactly the names and values the request
// defines, no placeholder left unfilled.
func TestRenderComplete(t *testing.T) {
	for _, path := range exampleModels {
		m, err := Load(path)
		if path != exampleModels[0] && err != nil && strings.Contains(err.Error(), "no such file") {
			continue // the second model lands separately
		}
		require.NoError(t, err, path)
		for _, op := range m.Operations {
			for _, b := range op.Budgets {
				t.Run(m.Name+"/"+op.Name+"/"+b.Name, func(t *testing.T) {
					calls, err := op.SampleRun(b.Name)
					require.NoError(t, err)
					require.NotEmpty(t, calls)
					for _, c := range calls {
						checkCall(t, m, c, false)
					}
				})
			}
		}
	}
}

// checkCall verifies that a rendered request is complete.
func checkCall(t *testing.T, m *Model, c *Call, inTx bool) {
	t.Helper()
	if c.Action == "TransactWriteItems" {
		require.NotEmpty(t, c.Actions, c.Step)
		for _, a := range c.Actions {
			checkCall(t, m, a, true)
		}
		return
	}
	tb := m.Table(c.Table)
	require.NotNil(t, tb, "%s: table %q", c.Step, c.Table)
	values := map[string]attr.Value{}
	for _, f := range c.Values {
		values[f.Name] = f.Value
		noPlaceholder(t, c.Step+" "+f.Name, f.Value)
	}
	sc := expr.NewScope(c.Names, values)
	for _, ex := range []struct {
		text string
		f    func(string) error
	}{
		{c.Update, func(s string) error { _, err := sc.Update(s); return err }},
		{c.Condition, func(s string) error { _, err := sc.Condition(s); return err }},
		{c.Filter, func(s string) error { _, err := sc.Filter(s); return err }},
		{c.Projection, func(s string) error { _, err := sc.Projection(s); return err }},
	} {
		if ex.text != "" {
			require.NoError(t, ex.f(ex.text), "%s: %s", c.Step, ex.text)
		}
	}
	switch c.Action {
	case "Query":
		pk, sk := []string{tb.PartitionKey}, []string{}
		if tb.SortKey != "" {
			sk = []string{tb.SortKey}
		}
		if c.Index != "" {
			x := m.Index(c.Index)
			require.NotNil(t, x)
			pk, sk = x.Partition, x.Sort
		}
		_, err := sc.KeyCondition(c.KeyCondition, pk, sk)
		require.NoError(t, err, "%s: %s", c.Step, c.KeyCondition)
	case "PutItem", "Put":
		for _, k := range tb.KeyAttributes() {
			v, ok := c.Item.Get(k)
			require.True(t, ok, "%s: the item has no %s", c.Step, k)
			assert.NotEmpty(t, v.Str, "%s: %s is empty", c.Step, k)
		}
		for _, f := range c.Item {
			noPlaceholder(t, c.Step+" "+f.Name, f.Value)
		}
	case "Scan":
	default:
		require.Len(t, c.Key, len(tb.KeyAttributes()), "%s: key %v", c.Step, c.Key)
		for _, k := range tb.KeyAttributes() {
			v, ok := c.Key.Get(k)
			require.True(t, ok, "%s: the key has no %s", c.Step, k)
			noPlaceholder(t, c.Step+" "+k, v)
		}
	}
	require.NoError(t, sc.Check(), "%s: every name and value defined is used", c.Step)
	if inTx {
		assert.Contains(t, []string{"Put", "Update", "Delete", "ConditionCheck"}, c.Action)
	}
}

func noPlaceholder(t *testing.T, what string, v attr.Value) {
	t.Helper()
	switch v.Type {
	case attr.S:
		assert.NotRegexp(t, `\{[A-Za-z_][A-Za-z0-9_]*(:0[0-9]+)?\}`, v.Str, "%s: unfilled placeholder", what)
	case attr.L:
		for _, e := range v.List {
			noPlaceholder(t, what, e)
		}
	case attr.M:
		for _, f := range v.Map {
			noPlaceholder(t, what+"."+f.Name, f.Value)
		}
	}
}

// TestRenderReference pins the requests of the settlement webhook: the
// charge lookup, and the transaction of the variant that cures.
func TestRenderReference(t *testing.T) {
	m := reference(t)
	op := m.Operation("ApplySettlement")
	calls, err := op.SampleRun("cures")
	require.NoError(t, err)
	require.Len(t, calls, 2)
	get := calls[0]
	assert.Equal(t, "GetItem", get.Action)
	assert.Equal(t, "collections", get.Table)
	assert.True(t, get.ConsistentRead)
	assert.Equal(t, attr.Item{{Name: "PK", Value: attr.Str("T#t042#CHG#E2E7Q9X4K2M8P0R5T3V1W6Y8Z")}, {Name: "SK", Value: attr.Str("CHG")}}, get.Key)
	assert.Equal(t, "debtorKey, contractId, seq", get.Projection)

	tx := calls[1]
	assert.Equal(t, "TransactWriteItems", tx.Action)
	require.Len(t, tx.Actions, 3, "settlement, instalment and the cure's contract update")
	stl := tx.Actions[0]
	assert.Equal(t, "Put", stl.Action)
	pk, _ := stl.Item.Get("PK")
	assert.Equal(t, attr.Str("T#t042#STL#E00038166202609240007s1a2b3c4d5"), pk)
	typ, _ := stl.Item.Get("type")
	assert.Equal(t, attr.Str("SETTLEMENT"), typ)
	applied, _ := stl.Item.Get("appliedTo")
	assert.Equal(t, attr.Str("C-2026-004512#007"), applied, "bound by the charge lookup")
	cure := tx.Actions[2]
	assert.Equal(t, "contract-cure", cure.Step)
	sk, _ := cure.Key.Get("SK")
	assert.Equal(t, attr.Str("CT#C-2026-004512"), sk)
	assert.Equal(t, map[string]string{"#bucket": "bucket", "#status": "status"}, cure.Names)

	// A query on a reserved key attribute names it; fan-out renders one
	// query per shard.
	pf := m.Operation("PortfolioByBucket")
	calls, err = pf.SampleRun("page")
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "tenantId = :tenantId AND #bucket = :bucket", calls[0].KeyCondition)
	assert.Equal(t, map[string]string{"#bucket": "bucket"}, calls[0].Names)
	assert.True(t, calls[0].Descending)
	assert.Equal(t, 100, calls[0].Limit)

	ag := m.Operation("DunningAgenda")
	calls, err = ag.SampleRun("page-per-shard")
	require.NoError(t, err)
	require.Len(t, calls, 16)
	for i, c := range calls {
		v, ok := c.Values.Get(":shard")
		require.True(t, ok)
		assert.Equal(t, attr.Num(strconv.Itoa(i)), v)
	}
	assert.Equal(t, "tenantId = :tenantId AND nextActionDate = :nextActionDate AND #shard = :shard AND begins_with(nextAction, :nextAction)", calls[0].KeyCondition)

	// Missing inputs are named.
	_, err = op.Steps[0].Render("", Inputs{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tenantId")
	_, err = op.Steps[1].Render("", op.SampleInputs())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "name the variant")
}

// TestRenderComposite fills lists and maps built from parameters, and a
// list parameter, in puts and expression values.
func TestRenderComposite(t *testing.T) {
	m, err := Load("testdata/valid/composite.yaml")
	require.NoError(t, err)
	require.NotNil(t, m.AccessPattern("carts.by-id"))
	calls, err := m.Operation("OpenCart").SampleRun("new")
	require.NoError(t, err)
	require.Len(t, calls, 1)
	lines, _ := calls[0].Item.Get("cartLines")
	assert.Equal(t, attr.ListOf(attr.MapOf(attr.Item{{Name: "qty", Value: attr.Num("2")}, {Name: "sku", Value: attr.Str("A-1")}})), lines)
	owner, _ := calls[0].Item.Get("owner")
	assert.Equal(t, attr.MapOf(attr.Item{{Name: "name", Value: attr.Str("ana")}, {Name: "since", Value: attr.Str("day c1")}}), owner)

	calls, err = m.Operation("AddLine").SampleRun("typical")
	require.NoError(t, err)
	require.Len(t, calls, 2)
	line, _ := calls[1].Values.Get(":line")
	assert.Equal(t, attr.ListOf(attr.MapOf(attr.Item{{Name: "qty", Value: attr.Num("1")}, {Name: "sku", Value: attr.Str("B-2")}})), line)
	for _, c := range calls {
		checkCall(t, m, c, false)
	}
}

// TestNaturalKeys: a table keyed by natural attributes, one of them a
// number, renders typed keys from the parameters and takes the samples'
// values as keys.
func TestNaturalKeys(t *testing.T) {
	m, err := Load("testdata/natural/telemetry.yaml")
	require.NoError(t, err)
	r := m.Entity("READING")
	plain, ok := r.Sample("plain")
	require.True(t, ok)
	at, _ := plain.Get("at")
	assert.Equal(t, attr.Num("1790000000"), at, "a numeric key keeps its type")
	assert.Empty(t, r.CheckItem(plain))
	calls, err := m.Operation("Report").SampleRun("one")
	require.NoError(t, err)
	at, _ = calls[0].Item.Get("at")
	assert.Equal(t, attr.Num("1790000000"), at)
	dev, _ := calls[0].Item.Get("deviceId")
	assert.Equal(t, attr.Str("dev-000042"), dev)
	assert.Empty(t, r.CheckItem(calls[0].Item))
	calls, err = m.Operation("Ack").SampleRun("one")
	require.NoError(t, err)
	assert.Equal(t, attr.Item{{Name: "at", Value: attr.Num("1790000060")}, {Name: "deviceId", Value: attr.Str("dev-000042")}}, calls[0].Key)
	for _, op := range m.Operations {
		for _, b := range op.Budgets {
			calls, err := op.SampleRun(b.Name)
			require.NoError(t, err)
			for _, c := range calls {
				checkCall(t, m, c, false)
			}
		}
	}
	// One reading in a hundred raises an alert: the readings of a device
	// follow a zipf count.
	pop := r.Population
	assert.Equal(t, CountZipf, pop.PerParent.Kind)
	assert.Greater(t, pop.Items, 0.0)
	assert.InDelta(t, pop.Items, 50000*pop.PerParent.Mean, 1e-6)
}
