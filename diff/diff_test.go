package diff

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// The expectations below are worked out from the model files themselves
// (read as plain YAML, not through the catalog) and from AWS's published
// rules: a write unit per 1 KB written, per item and per index entry; a
// new on-demand index or table takes 4,000 write units a second at once;
// US$ are the write units at the price a million.

// yamlDoc reads a model file as a plain YAML tree.
func yamlDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(data, &doc))
	return doc
}

// at walks a YAML tree by keys.
func at(t *testing.T, doc any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		require.True(t, ok, "%s is not a mapping", k)
		doc = m[k]
	}
	return doc
}

func number(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	t.Fatalf("%v is not a number", v)
	return 0
}

// rawSize adds up the names and the text of a sample's values: a bound
// of what DynamoDB sizes it at (numbers are no longer than their text),
// enough to show an item or entry fits 1 KB.
func rawSize(t *testing.T, sample map[string]any, keys map[string]string) int {
	t.Helper()
	n := 0
	for k, v := range sample {
		n += len(k) + len(strings.TrimSpace(strings.ReplaceAll(yamlText(t, v), "\n", "")))
	}
	for k, v := range keys {
		n += len(k) + len(v) + 64 // the rendered key, and room for its placeholders' values
	}
	return n
}

func yamlText(t *testing.T, v any) string {
	b, err := yaml.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func change(r *Report, path string) *Change {
	for i := range r.Changes {
		if r.Changes[i].Path == path {
			return &r.Changes[i]
		}
	}
	return nil
}

func step(r *Report, kind, path string) *Step {
	for i := range r.Migration {
		if r.Migration[i].Kind == kind && r.Migration[i].Path == path {
			return &r.Migration[i]
		}
	}
	return nil
}

// lineOf returns the 1-based line of the first line of path holding text
// after line from.
func lineOf(t *testing.T, path, text string, from int) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for i, l := range strings.Split(string(data), "\n") {
		if i+1 > from && strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line holds %q", path, text)
	return 0
}

func TestParkingPair(t *testing.T) {
	const basePath, headPath = "testdata/parking/base.yaml", "testdata/parking/head.yaml"
	base, head := loadT(t, basePath), loadT(t, headPath)
	r, err := Compare(base, head, Options{})
	require.NoError(t, err)

	// The populations, as the file declares them.
	doc := yamlDoc(t, basePath)
	garages := number(t, at(t, doc, "entities", "GARAGE", "population", "total"))
	permits := garages * number(t, at(t, doc, "entities", "PERMIT", "population", "mean"))
	sessions := permits * number(t, at(t, doc, "entities", "SESSION", "population", "mean"))
	require.Equal(t, 10000.0, permits)
	require.Equal(t, 30000.0, sessions)
	// Every item and entry of the pair fits 1 KB.
	for _, e := range []string{"PERMIT", "SESSION"} {
		for _, s := range at(t, doc, "entities", e, "samples").(map[string]any) {
			require.Less(t, rawSize(t, s.(map[string]any), map[string]string{"PK": "G#", "SK": "PERMIT#"}), 1024)
		}
	}
	write := capacity.DefaultPrices().WritePerMillion.Value / 1e6

	// What changed, and what breaks.
	for path, breaking := range map[string]bool{
		"entities.PERMIT.key.SK":      true,
		"indexes.byHolder.projection": false, // widened
		"indexes.byPlate":             false,
		"accessPatterns.PK02":         true,
		"accessPatterns.PK04":         false,
		"operations.GarageDay":        true,
		"operations.PlateSessions":    false,
		"api.Client.GarageDay":        true,
		"api.Client.PK02":             true,
		"api.Client.PK04":             false,
		"api.ByHolderEntry.Tier":      false,
	} {
		c := change(r, path)
		require.NotNil(t, c, path)
		assert.Equal(t, breaking, c.Breaking, path)
		if breaking {
			assert.NotEmpty(t, c.Acknowledged, path)
		}
	}
	assert.Equal(t, "entity.key", change(r, "entities.PERMIT.key.SK").Kind)
	assert.Equal(t, "index.added", change(r, "indexes.byPlate").Kind)
	assert.Equal(t, "accessPattern.removed", change(r, "accessPatterns.PK02").Kind)
	// Positions are HEAD's lines.
	assert.Equal(t, lineOf(t, headPath, `SK: "PERMIT#{plate}"`, 0), change(r, "entities.PERMIT.key.SK").Line)
	assert.Equal(t, lineOf(t, headPath, "  byPlate:", 0), change(r, "indexes.byPlate").Line)
	assert.Equal(t, lineOf(t, headPath, "projection: {type: INCLUDE, attributes: [tier", 0), change(r, "indexes.byHolder.projection").Line)
	assert.True(t, r.OK, r.Failures)

	// The plan: the indexes first, then the rewrite.
	require.Len(t, r.Migration, 3)
	rebuild, create, rewrite := r.Migration[0], r.Migration[1], r.Migration[2]
	assert.Equal(t, StepRebuildIndex, rebuild.Kind)
	assert.Equal(t, StepCreateIndex, create.Kind)
	assert.Equal(t, StepRewriteEntity, rewrite.Kind)
	assert.False(t, rebuild.Online)
	assert.True(t, create.Online)
	assert.True(t, rewrite.DualWrite)
	// byHolder holds every permit, one entry each.
	assert.InDelta(t, permits, rebuild.WriteUnits, 1e-6)
	// byPlate holds every session.
	assert.InDelta(t, sessions, create.WriteUnits, 1e-6)
	assert.InDelta(t, sessions, create.Items, 1e-6)
	// A permit moves: a put of the item and its byHolder entry, a delete
	// of both.
	assert.InDelta(t, permits*4, rewrite.WriteUnits, 1e-6)
	assert.Greater(t, rewrite.ReadUnits, 0.0)
	for _, s := range r.Migration {
		assert.InDelta(t, s.WriteUnits*write+s.ReadUnits*capacity.DefaultPrices().ReadPerMillion.Value/1e6, s.USD, 1e-9, s.Step)
		assert.InDelta(t, s.WriteUnits/4000, s.Seconds, 1e-9, s.Step)
	}
	assert.InDelta(t, permits+sessions+permits*4, r.MigrationTotal.WriteUnits, 1e-6)

	// The month: HEAD's byPlate is written by Enter and Exit.
	assert.Greater(t, r.MonthlyUSD.Head, r.MonthlyUSD.Base)
	var enter *Budget
	for i := range r.Run.Budgets {
		if r.Run.Budgets[i].Name == "Enter/typical" {
			enter = &r.Run.Budgets[i]
		}
	}
	require.NotNil(t, enter)
	assert.Equal(t, 1.0, enter.Base.WRU)
	assert.Equal(t, 2.0, enter.Head.WRU)
}

func TestParkingUnacknowledged(t *testing.T) {
	data, err := os.ReadFile("testdata/parking/head.yaml")
	require.NoError(t, err)
	text := string(data)
	head, err := catalog.Parse("head.yaml", []byte(text[:strings.Index(text, "\nacknowledge:")+1]))
	require.NoError(t, err)
	r, err := Compare(loadT(t, "testdata/parking/base.yaml"), head, Options{})
	require.NoError(t, err)
	assert.False(t, r.OK)
	_, open := r.Breaking()
	assert.Len(t, open, 7)
	assert.Len(t, r.Failures, 7)
}

// A pattern renamed is a function of the generated client gone and
// another come: code calling the old one no longer compiles.
func TestRenamedPattern(t *testing.T) {
	data, err := os.ReadFile("testdata/parking/base.yaml")
	require.NoError(t, err)
	renamed := strings.NewReplacer("PK03", "PK09").Replace(string(data))
	head, err := catalog.Parse("renamed.yaml", []byte(renamed))
	require.NoError(t, err)
	r, err := Compare(loadT(t, "testdata/parking/base.yaml"), head, Options{})
	require.NoError(t, err)
	gone := change(r, "api.Client.PK03")
	require.NotNil(t, gone)
	assert.True(t, gone.Breaking)
	assert.Equal(t, "api.removed", gone.Kind)
	assert.NotNil(t, change(r, "api.Client.PK09"))
	assert.Empty(t, r.Migration, "a renamed question moves no data")
	// A changed signature: PK01 takes its garage as an id, not a string.
	sig := strings.Replace(string(data), `SK: {eq: "P#{plate}"}`, `SK: {eq: "P#{holder}"}`, 1)
	head, err = catalog.Parse("sig.yaml", []byte(sig))
	require.NoError(t, err)
	r, err = Compare(loadT(t, "testdata/parking/base.yaml"), head, Options{})
	require.NoError(t, err)
	c := change(r, "api.Client.PK01")
	require.NotNil(t, c, "changes: %v", r.Changes)
	assert.Equal(t, "api.changed", c.Kind)
	assert.True(t, c.Breaking)
}

func TestLastroPair(t *testing.T) {
	const headPath = "../examples/diff/lastro.yaml"
	r, err := Compare(loadT(t, "../model.yaml"), loadT(t, headPath), Options{})
	require.NoError(t, err)
	doc := yamlDoc(t, "../model.yaml")
	profiles := number(t, at(t, doc, "entities", "PROFILE", "population", "total"))
	contracts := profiles * number(t, at(t, doc, "entities", "CONTRACT", "population", "mean"))
	instalments := contracts * number(t, at(t, doc, "entities", "INSTALLMENT", "population", "mean"))
	limits := profiles * number(t, at(t, doc, "entities", "LIMIT", "population", "mean"))
	warm := number(t, at(t, doc, "tables", "collections", "billing", "warmThroughput", "write"))
	price := capacity.DefaultPrices().WritePerMillion.Value
	if p, ok := at(t, doc, "pricing").(map[string]any); ok && p["writePerMillion"] != nil {
		price = number(t, p["writePerMillion"])
	}

	assert.True(t, change(r, "entities.LIMIT.key.SK").Breaking)
	assert.NotEmpty(t, change(r, "entities.LIMIT.key.SK").Acknowledged)
	assert.Equal(t, lineOf(t, headPath, `SK: "DAY#{localDate}"`, 0), change(r, "entities.LIMIT.key.SK").Line)
	assert.False(t, change(r, "indexes.GSI4").Breaking)
	assert.False(t, change(r, "indexes.GSI2.projection").Breaking, "widened")
	assert.True(t, r.OK, r.Failures)

	gsi4 := step(r, StepCreateIndex, "indexes.GSI4")
	require.NotNil(t, gsi4)
	// Every instalment carries originalDueDate; a keys-only entry fits 1 KB.
	assert.InDelta(t, instalments, gsi4.WriteUnits, 1e-6)
	assert.InDelta(t, instalments*price/1e6, gsi4.USD, 1e-9)
	assert.InDelta(t, instalments/warm, gsi4.Seconds, 1e-9)

	gsi2 := step(r, StepRebuildIndex, "indexes.GSI2")
	require.NotNil(t, gsi2)
	// GSI2 holds the contracts in collection: 25% of them (the model's
	// note and the status weights), an entry each.
	assert.InEpsilon(t, contracts*0.25, gsi2.WriteUnits, 0.03)

	limit := step(r, StepRewriteEntity, "entities.LIMIT.key")
	require.NotNil(t, limit)
	// A small counter in no index: a put and a delete of one unit each.
	assert.InDelta(t, limits*2, limit.WriteUnits, 1e-6)
	assert.Less(t, indexOfStep(r, gsi4), indexOfStep(r, limit), "indexes before the rewrite")
}

func indexOfStep(r *Report, s *Step) int { return s.Order }

func TestOrdersPair(t *testing.T) {
	r, err := Compare(loadT(t, "../examples/orders/model.yaml"), loadT(t, "../examples/diff/orders.yaml"), Options{})
	require.NoError(t, err)
	c := change(r, "attributes.lineItems")
	require.NotNil(t, c)
	assert.Contains(t, c.Text, "lineItems[].title")
	// Orders cross 1 KB: every write of one pays a unit more, and the
	// budgets written for orders under 1 KB fail.
	created := change(r, "operations.CreateOrder.budgets.new")
	require.NotNil(t, created)
	assert.True(t, created.Breaking)
	assert.Empty(t, created.Acknowledged)
	assert.False(t, r.OK)
	assert.Greater(t, r.MonthlyUSD.Head, r.MonthlyUSD.Base)
	assert.Empty(t, r.Migration, "a new member moves no item")
	for _, b := range r.Run.Budgets {
		if b.Name == "CreateOrder/new" {
			// A transaction bills the order's put twice: 1 KB more is 2 WRU more.
			assert.Equal(t, b.Base.WRU+2, b.Head.WRU)
		}
	}
}

func TestMaxIncrease(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    Limit
		base    float64
		head    float64
		exceeds bool
	}{
		{"10%", Limit{10, true}, 100, 111, true},
		{"10%", Limit{10, true}, 100, 110, false},
		{"25", Limit{25, false}, 100, 126, true},
		{"$25", Limit{25, false}, 100, 125, false},
		{"US$0", Limit{0, false}, 1, 1.01, true},
		{"3 USD", Limit{3, false}, 1, 3.9, false},
		{"0%", Limit{0, true}, 0, 1, true},
	} {
		l, err := ParseLimit(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, l, c.in)
		assert.Equal(t, c.exceeds, l.Exceeded(c.base, c.head), c.in)
	}
	for _, bad := range []string{"", "%", "ten", "-5", "NaN", "Inf%", "1e400", "5%%"} {
		_, err := ParseLimit(bad)
		assert.Error(t, err, bad)
	}
	r, err := Compare(loadT(t, "testdata/parking/base.yaml"), loadT(t, "testdata/parking/head.yaml"), Options{MaxIncrease: &Limit{10, true}})
	require.NoError(t, err)
	assert.False(t, r.OK)
	require.Len(t, r.Failures, 1)
	assert.Contains(t, r.Failures[0], "--max-increase 10%")
}

func TestRehearseParking(t *testing.T) {
	base, head := loadT(t, "testdata/parking/base.yaml"), loadT(t, "testdata/parking/head.yaml")
	r, err := Compare(base, head, Options{})
	require.NoError(t, err)
	require.NoError(t, r.Rehearse(context.Background(), base, head, RehearseOptions{Scale: 0.1}, Options{}))
	rh := r.Rehearsal
	require.NotNil(t, rh)
	require.Len(t, rh.Steps, 3)
	// At a tenth of the population: 5 garages, 1,000 permits, 3,000
	// sessions; byHolder 1,000 entries, byPlate 3,000, the permits'
	// move 4 units each.
	for i, want := range []float64{1000, 3000, 4000} {
		s := rh.Steps[i]
		assert.True(t, s.Agree, "%d: %s", s.Order, s.Why)
		assert.Equal(t, want, s.Measured, s.Step)
		assert.InEpsilon(t, s.Measured, s.Estimated, Tolerance, s.Step)
		assert.InEpsilon(t, s.Measured, s.OnItems, Tolerance, s.Step)
	}
	assert.Contains(t, rh.Invariants, "keys of PERMIT: 1000 items, 0 not as HEAD's templates render them")
	assert.True(t, r.OK, r.Failures)
}

func TestRehearseLastro(t *testing.T) {
	if testing.Short() {
		t.Skip("loads tens of thousands of items")
	}
	base, head := loadT(t, "../model.yaml"), loadT(t, "../examples/diff/lastro.yaml")
	r, err := Compare(base, head, Options{})
	require.NoError(t, err)
	require.NoError(t, r.Rehearse(context.Background(), base, head, RehearseOptions{}, Options{}))
	require.Len(t, r.Rehearsal.Steps, 3)
	for _, s := range r.Rehearsal.Steps {
		assert.True(t, s.Agree, "%d: %s", s.Order, s.Why)
		assert.LessOrEqual(t, math.Abs(s.Measured-s.OnItems), Tolerance*s.OnItems, s.Step)
	}
	assert.True(t, r.OK, r.Failures)
}

func TestRehearseScaleBounded(t *testing.T) {
	base, head := loadT(t, "../model.yaml"), loadT(t, "../examples/diff/lastro.yaml")
	r, err := Compare(base, head, Options{})
	require.NoError(t, err)
	for _, scale := range []float64{0.5, -1, math.NaN(), math.Inf(1), 2} {
		err := r.Rehearse(context.Background(), base, head, RehearseOptions{Scale: scale}, Options{})
		require.Error(t, err, "%g", scale)
	}
}

// An attribute HEAD drops is removed from the items that carry it after
// the deploy, one UpdateItem each; settings change in place and write
// nothing.
func TestRemovedAttributeAndSettings(t *testing.T) {
	data, err := os.ReadFile("testdata/parking/base.yaml")
	require.NoError(t, err)
	text := strings.NewReplacer(
		"      bays: required\n", "",
		"      one: {garageId: gar-007, city: LIS, bays: 420}", "      one: {garageId: gar-007, city: LIS}",
		"    class: STANDARD\n", "    class: STANDARD_INFREQUENT_ACCESS\n    ttl: expiresAt\n",
		"  feeCents: {type: N", "  expiresAt: {type: N, unit: epochSeconds, description: when the item expires (TTL)}\n  feeCents: {type: N",
	).Replace(string(data))
	base := loadT(t, "testdata/parking/base.yaml")
	head, err := catalog.Parse("head.yaml", []byte(text))
	require.NoError(t, err)
	r, err := Compare(base, head, Options{})
	require.NoError(t, err)
	c := change(r, "entities.GARAGE.attributes.bays")
	require.NotNil(t, c)
	assert.True(t, c.Breaking)
	assert.NotNil(t, change(r, "tables.parking.class"))
	assert.NotNil(t, change(r, "tables.parking.ttl"))

	garages := number(t, at(t, yamlDoc(t, "testdata/parking/base.yaml"), "entities", "GARAGE", "population", "total"))
	var kinds []string
	for _, s := range r.Migration {
		kinds = append(kinds, s.Kind)
		switch s.Kind {
		case StepTableSetting:
			assert.Zero(t, s.WriteUnits, s.Step)
			assert.True(t, s.Online, s.Step)
		case StepRemoveAttribute:
			// A small garage, in no index: one unit each.
			assert.InDelta(t, garages, s.WriteUnits, 1e-9)
			assert.Equal(t, PhaseCleanUp, s.Phase)
			// Standard-IA bills requests at its factor.
			p := capacity.DefaultPrices()
			assert.InDelta(t, garages*p.WritePerMillion.Value/1e6*p.IARequestFactor.Value, s.USD, 1e-12)
		}
	}
	assert.Equal(t, []string{StepTableSetting, StepTableSetting, StepRemoveAttribute}, kinds)

	require.NoError(t, r.Rehearse(context.Background(), base, head, RehearseOptions{Scale: 0.2}, Options{}))
	require.Len(t, r.Rehearsal.Steps, 1)
	s := r.Rehearsal.Steps[0]
	assert.Equal(t, garages*0.2, s.Measured)
	assert.True(t, s.Agree, s.Why)

}
