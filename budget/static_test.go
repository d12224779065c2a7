package budget

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

func load(t *testing.T, path string) *catalog.Model {
	t.Helper()
	m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	require.NoError(t, err)
	return m
}

func static(t *testing.T, m *catalog.Model) []Result {
	t.Helper()
	vs, err := estimate.New(m, capacity.Default()).Operations()
	require.NoError(t, err)
	return Static(m, capacity.Default(), vs)
}

// TestStaticReference: the reference model's static figures hold every
// budget, as check says, and each result is placed at its budget.
func TestStaticReference(t *testing.T) {
	m := load(t, "../model.yaml")
	rs := static(t, m)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.Equal(t, Pass, r.Verdict, r.Name())
		assert.Empty(t, r.Drift, r.Name())
		assert.Empty(t, r.Explanation, r.Name())
		assert.Positive(t, r.At.Line, r.Name())
		if r.Variant != "" {
			assert.Equal(t, "operations."+r.Operation+".budgets."+r.Variant, r.At.Path)
		}
	}
}

// TestExplainOver: an excess names the steps, the rules and the causes,
// each at the line of the model that decides it.
func TestExplainOver(t *testing.T) {
	m := load(t, "../internal/cli/testdata/check/over.yaml")
	var over *Result
	rs := static(t, m)
	for i := range rs {
		if rs[i].Verdict == Fail {
			require.Nil(t, over, "one variant over budget")
			over = &rs[i]
		}
	}
	require.NotNil(t, over)
	assert.Equal(t, "MoveBucket/move", over.Name())
	require.Len(t, over.Excesses, 1)
	x := over.Excesses[0]
	assert.Equal(t, WRU, x.Unit)
	assert.Equal(t, 4.0, x.Measured)
	assert.Equal(t, 3.0, x.Budget)
	assert.Equal(t, 1.0, x.Over)
	assert.Equal(t, "operations.MoveBucket.budgets.move.wru", x.At.Path)
	assert.Contains(t, lineAt(t, "../internal/cli/testdata/check/over.yaml", x.At.Line), "wru: 3")
	require.Len(t, x.Causes, 2)

	key := x.Causes[0]
	assert.Equal(t, CauseIndexKeyChange, key.Kind)
	assert.Equal(t, "GSI2", key.Target)
	assert.Equal(t, 2.0, key.Extra)
	assert.Contains(t, key.Text, "bucket D031_060 -> D061_090")
	assert.Contains(t, key.Text, "deletes the old entry and puts the new one")
	assert.Equal(t, "indexes.GSI2.partition[1]", key.At.Path)
	assert.Contains(t, lineAt(t, "../internal/cli/testdata/check/over.yaml", key.At.Line), "bucket")

	size := x.Causes[1]
	assert.Equal(t, CauseItemSize, size.Kind)
	assert.Equal(t, 1.0, size.Extra)
	assert.Contains(t, size.Text, "CONTRACT is 1,047 B, 23 B over 1 KB")
	assert.Contains(t, size.Text, "notes (S, 785 B)")
	assert.Equal(t, "entities.CONTRACT.attributes.notes", size.At.Path)

	for _, s := range []string{"MoveBucket/move is estimated at 4 WRU against a budget of 3: 1 WRU over.", "step move (update on collections): 4 WRU",
		"GSI2: key changes: delete 193 B (1) + put 193 B (1) = 2 WRU", "causes, those of the design first, dearest first:"} {
		assert.Contains(t, over.Explanation, s)
	}
}

func lineAt(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := readFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	require.Less(t, n-1, len(lines))
	return lines[n-1]
}
