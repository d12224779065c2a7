package migrate

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/yamltext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMigrateReference upgrades the reference model as it was before
// formatVersion 2 and checks that nothing but the upgrade changed: every
// comment and every line outside scale kept, every fact of the old scale
// still there, the result loading, and a second migration a no-op.
func TestMigrateReference(t *testing.T) {
	v1, err := os.ReadFile("testdata/lastro-v1.yaml")
	require.NoError(t, err)
	_, err = catalog.Parse("lastro-v1.yaml", v1)
	require.Error(t, err, "the old scale is refused")
	assert.Contains(t, err.Error(), "run cardapio migrate lastro-v1.yaml")

	out, notes, err := Migrate("lastro-v1.yaml", v1)
	require.NoError(t, err)
	assert.Contains(t, notes, "formatVersion 1 -> 2")
	m, err := catalog.Parse("lastro-v2.yaml", out)
	require.NoError(t, err, "%s", out)

	in := strings.Split(string(v1), "\n")
	got := strings.Split(string(out), "\n")
	// Every comment kept, in order.
	j := 0
	for _, l := range in {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		for j < len(got) && got[j] != l {
			j++
		}
		require.Less(t, j, len(got), "comment lost: %q", l)
	}
	// Outside scale and formatVersion, every line as it was, in order.
	scale := false
	j = 0
	for _, l := range in {
		switch {
		case l == "scale:":
			scale = true
			continue
		case scale && l != "" && l[0] != ' ':
			scale = false
		}
		if scale || strings.HasPrefix(l, "formatVersion:") {
			continue
		}
		l = oldTenant.ReplaceAllString(l, "") // rewritten as focus, or dropped
		for j < len(got) && oldTenant.ReplaceAllString(got[j], "") != l {
			j++
		}
		require.Less(t, j, len(got), "line lost: %q", l)
	}

	assert.Equal(t, "contracts", m.Scale.BusinessUnit.Name)
	assert.Equal(t, 8e6, m.Scale.BusinessUnit.Count)
	assert.Equal(t, 95.0, m.Scale.StorageGB)
	require.Len(t, m.Scale.Peaks, 3)
	assert.Equal(t, 3.0, m.Peak("fifth-business-day").Factor)
	assert.True(t, m.Peak("inss").Prewarm)
	figures := map[string]float64{}
	for _, f := range m.Figures {
		if f.Value != nil {
			figures[f.Name] = *f.Value
		}
	}
	for name, want := range map[string]float64{
		"scale-debtors": 6e6, "scale-instalmentsPerContract": 10, "scale-delinquentShare": 0.25,
		"scale-buckets-D001_030": 0.4, "scale-buckets-D031_060": 0.25, "scale-buckets-D061_090": 0.15, "scale-buckets-D091_PLUS": 0.2,
		"scale-tenants": 40, "scale-tenants-largest-share": 0.6, "scale-eventsPerInstalment": 2,
		"scale-contactsPerDelinquentContractPerMonth": 10, "scale-smsShare": 0.5, "scale-promisesPerDay": 80000,
		"scale-settlementsPerDay": 270000, "scale-bucketMovesPerMonth": 2e6,
	} {
		assert.Equal(t, want, figures[name], name)
	}

	again, notes, err := Migrate("lastro-v2.yaml", out)
	require.NoError(t, err)
	assert.Equal(t, out, again)
	assert.Equal(t, "lastro-v2.yaml is already at formatVersion 2", notes[0])
}

var oldTenant = regexp.MustCompile(`, tenant: [a-z]+`)

// TestMigrateSmall covers the shapes a small model takes: a flow-style
// scale, no figures section, comments inside scale, CRLF line ends.
func TestMigrateSmall(t *testing.T) {
	base, err := os.ReadFile("../catalog/testdata/valid/minimal.yaml")
	require.NoError(t, err)
	flow := string(base) + "scale: {contracts: 1000, storageGB: 2, smsShare: 0.5}\n"
	out, _, err := Migrate("m.yaml", []byte(flow))
	require.NoError(t, err)
	assert.Contains(t, string(out), "scale: {businessUnit: {name: contracts, count: 1000}, storageGB: 2}\n")
	assert.Contains(t, string(out), "\nfigures:\n  scale-smsShare:\n")
	m, err := catalog.Parse("m.yaml", out)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, 1000.0, m.Scale.BusinessUnit.Count)

	block := strings.ReplaceAll(string(base)+"scale:\n  # how many\n  contracts: 1000 # today\n  paydays:\n    month-end: {rule: last day, peakFactor: 2}\n  history: kept a year\nfigures:\n  a: {statement: x}\n", "\n", "\r\n")
	out, _, err = Migrate("m.yaml", []byte(block))
	require.NoError(t, err)
	assert.Contains(t, string(out), "scale:\r\n  # how many\r\n  businessUnit: {name: contracts, count: 1000} # today\r\n  peaks:\r\n    month-end: {rule: last day, factor: 2}\r\n  history: kept a year\r\n")
	m, err = catalog.Parse("m.yaml", out)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, 2.0, m.Peak("month-end").Factor)

	_, _, err = Migrate("m.yaml", []byte("formatVersion: 7\nname: x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "formatVersion 7")
	_, _, err = Migrate("m.yaml", []byte("- a list\n"))
	require.Error(t, err)
}

// FuzzMigrate: no input panics; a migration that succeeds gives text
// that parses as YAML whenever the input did, and migrating it again
// changes nothing.
func FuzzMigrate(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	more, _ := filepath.Glob("../catalog/testdata/valid/*.yaml")
	seeds = append(seeds, more...)
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("formatVersion: 1\nscale: {contracts: 5, paydays: {a: {rule: x, peakFactor: 2}}}\n"))
	f.Add([]byte("formatVersion: 1\nscale:\n  # c\n  contracts: 5 # n\n  tenants: {count: 3, largestShare: 0.5}\nfigures:\n  x: {statement: y}\n"))
	f.Add([]byte("formatVersion: 2\nattributes:\n  r: {type: S, skew: {top: [0.5]}}\nscenarios:\n  a:\n    load:\n      - {tenant: any, operation: A}\n      - {operation: B, tenant: largest, count: 1}\n      - operation: C\n        tenant: largest # c\n      - operation: D\n        tenant: any\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		out, _, err := Migrate("fuzz.yaml", data)
		if err != nil {
			return
		}
		if yamltext.DecodeAll(out) != nil && yamltext.DecodeAll(yamltext.LFBreaks(data)) == nil {
			t.Fatalf("migration broke the YAML:\n%s", out)
		}
		again, _, err := Migrate("fuzz.yaml", out)
		if err != nil {
			t.Fatalf("the migrated text does not migrate: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("a second migration changed the text:\n%s\n---\n%s", out, again)
		}
	})
}
