package migrate

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOldTenant: a scenario load's tenant, the first models' word, is
// still read as the focus it means, with an old-field finding at its
// line; cardapio migrate rewrites it as focus, and the result reads as
// the model always did, without findings.
func TestOldTenant(t *testing.T) {
	data, err := os.ReadFile("../model.yaml")
	require.NoError(t, err)
	ref, err := catalog.Parse("model.yaml", data)
	require.NoError(t, err)

	src := string(data)
	for old, repl := range map[string]string{
		// the pin said only the old way
		"peakPerSecond: 2000\n        focus: {tenantId: largest}\n": "peakPerSecond: 2000\n        tenant: largest\n",
		// nothing pinned, said the old way
		"window: 20m\n        note: debtors paying": "window: 20m\n        tenant: any\n        note: debtors paying",
		// both words
		"count: 7\n        focus: {tenantId: largest}\n": "count: 7\n        focus: {tenantId: largest}\n        tenant: largest\n",
	} {
		require.Contains(t, src, old)
		src = strings.Replace(src, old, repl, 1)
	}
	m, err := catalog.Parse("model.yaml", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"tenantId": "largest"}, scenario(m, "midnight-0007").Load[0].Focus, "tenant: largest is focus on the skewed attribute")
	assert.Nil(t, scenario(m, "midnight-0007").Load[1].Focus)
	var old []catalog.Finding
	for _, f := range m.Warnings {
		if f.Code == catalog.CodeOldField {
			old = append(old, f)
		}
	}
	require.Len(t, old, 3)
	lines := strings.Split(src, "\n")
	for _, f := range old {
		assert.Contains(t, lines[f.Pos.Line-1], "tenant:", "%s", f)
	}
	assert.Contains(t, old[0].Msg, "read as focus: {tenantId: largest}")
	assert.Contains(t, old[0].Hint, "cardapio migrate")
	assert.Contains(t, old[1].Msg, "drop it")

	out, notes, err := Migrate("model.yaml", []byte(src))
	require.NoError(t, err)
	assert.Len(t, notes, 4, "%q", notes)
	assert.Equal(t, string(data), string(out), "the migration gives back the model as the new format says it")

	bad := strings.Replace(src, "tenant: any", "tenant: biggest", 1)
	_, err = catalog.Parse("model.yaml", []byte(bad))
	require.Error(t, err)
	before := bad[:strings.Index(bad, "tenant: biggest")+len("tenant: ")]
	line, col := strings.Count(before, "\n")+1, len(before)-strings.LastIndex(before, "\n")
	assert.Contains(t, err.Error(), fmt.Sprintf(`model.yaml:%d:%d: scenarios.midnight-0007.load[1].tenant: "biggest" is not allowed here; expected one of "largest", "any"`, line, col))

	// What made tenant: largest readable: one attribute names its largest values.
	for _, a := range ref.Attributes {
		if a.Skew != nil && len(a.Skew.Top) > 0 {
			assert.Equal(t, "tenantId", a.Name)
		}
	}
}

// TestMigrateTenantShapes: block and flow load items, first, middle and
// last pairs, quoted values; a second migration changes nothing.
func TestMigrateTenantShapes(t *testing.T) {
	in := `formatVersion: 2
name: x
attributes:
  region:
    type: S
    skew: {top: [0.5]}
scenarios:
  a:
    load:
      - {tenant: any, operation: A, count: 1}
      - {operation: B, tenant: "largest", count: 1}
      - {operation: C, count: 1, tenant: any}
      - operation: D
        tenant: largest # the busiest region
        count: 1
      - operation: E
        tenant: any
      - tenant: any
        operation: F
`
	want := `formatVersion: 2
name: x
attributes:
  region:
    type: S
    skew: {top: [0.5]}
scenarios:
  a:
    load:
      - {operation: A, count: 1}
      - {operation: B, focus: {region: largest}, count: 1}
      - {operation: C, count: 1}
      - operation: D
        focus: {region: largest} # the busiest region
        count: 1
      - operation: E
      - tenant: any
        operation: F
`
	out, notes, err := Migrate("x.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, want, string(out))
	assert.Contains(t, notes, "scenarios.a.load[5].tenant: left as it is (drop it by hand)")
	again, _, err := Migrate("x.yaml", out)
	require.NoError(t, err)
	assert.Equal(t, want, string(again))

	two := strings.Replace(in, "  region:\n", "  zone:\n    type: S\n    skew: {top: [0.3]}\n  region:\n", 1)
	out, notes, err = Migrate("x.yaml", []byte(two))
	require.NoError(t, err)
	assert.Contains(t, string(out), "{operation: B, tenant: \"largest\", count: 1}", "two skewed attributes: which one is the author's to say")
	assert.Contains(t, notes, "scenarios.a.load[1].tenant: left as it is: write focus: {ATTRIBUTE: largest} with the attribute whose largest value takes the load")
}

func scenario(m *catalog.Model, name string) catalog.Scenario {
	for _, s := range m.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return catalog.Scenario{}
}
