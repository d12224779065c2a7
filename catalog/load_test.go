package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

func TestValidModels(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/*.yaml")
	require.NoError(t, err)
	// testdata/natural holds models keyed by natural attributes, which
	// the code generator does not handle yet (it walks testdata/valid).
	natural, err := filepath.Glob("testdata/natural/*.yaml")
	require.NoError(t, err)
	files = append(files, natural...)
	files = append(files, "../model.yaml", "../examples/orders/model.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := Load(f)
			require.NoError(t, err)
			assert.NotEmpty(t, m.AccessPatterns)
		})
	}
}

func TestReferenceModel(t *testing.T) {
	m, err := Load("../model.yaml")
	require.NoError(t, err)
	ids := []string{}
	for _, ap := range m.AccessPatterns {
		ids = append(ids, ap.ID)
	}
	for _, id := range []string{"AP01", "AP02", "AP03", "AP04", "AP05", "AP06", "AP07", "AP08", "AP09", "AP10", "AP11", "AP12"} {
		assert.Contains(t, ids, id)
	}
	for _, id := range []string{"AP11", "AP12"} {
		ap := m.AccessPattern(id)
		require.NotNil(t, ap)
		assert.Nil(t, ap.Answer)
		require.NotNil(t, ap.NotAnswered)
		assert.Equal(t, "s3ExportAthena", ap.NotAnswered.GoesTo)
	}

	gsi1 := m.Index("GSI1")
	require.NotNil(t, gsi1)
	assert.Equal(t, []string{"tenantId", "nextActionDate", "shard"}, gsi1.Partition)
	assert.Equal(t, []string{"nextAction", "contractId"}, gsi1.Sort)
	assert.Equal(t, Projection{Type: "INCLUDE", Attributes: []string{"debtorKey", "bucket", "outstandingCents", "channelPrefs"}}, gsi1.Projection)
	require.NotNil(t, gsi1.Shards)
	assert.Equal(t, 16, gsi1.Shards.Count)
	assert.Equal(t, []string{"CONTRACT", "PROMISE"}, entityNames(gsi1.Entries))
	assert.Equal(t, "T#{tenantId}#ACT#{nextActionDate}#{shard:02}", gsi1.Synthetic.Partition.Template.Text)
	assert.Equal(t, []string{"AP03", "AP04", "AP10"}, apIDs(gsi1.Serves))

	gsi2 := m.Index("GSI2")
	require.NotNil(t, gsi2)
	assert.Equal(t, []string{"tenantId", "bucket"}, gsi2.Partition)
	assert.Equal(t, []string{"outstandingCents", "contractId"}, gsi2.Sort)
	assert.Equal(t, []string{"CONTRACT"}, entityNames(gsi2.Entries))
	assert.Equal(t, []string{"AP05"}, apIDs(gsi2.Serves))

	contract := m.Entity("CONTRACT")
	require.NotNil(t, contract)
	it, ok := contract.Sample("article")
	require.True(t, ok)
	pk, _ := it.Get("PK")
	sk, _ := it.Get("SK")
	assert.Equal(t, attr.Str("T#t042#D#9f2c1a7e4b0d3e61"), pk)
	assert.Equal(t, attr.Str("CT#C-2026-004512"), sk)
	bal, _ := it.Get("outstandingCents")
	assert.Equal(t, attr.Num("292740"), bal)
	typ, _ := it.Get("type")
	assert.Equal(t, attr.Str("CONTRACT"), typ)

	inst := m.Entity("INSTALLMENT")
	it, ok = inst.Sample("article")
	require.True(t, ok)
	sk, _ = it.Get("SK")
	assert.Equal(t, attr.Str("CT#C-2026-004512#IN#007"), sk)
	_, hasContract := it.Get("contractId")
	assert.False(t, hasContract, "key-only attributes stay in the key")

	apply := m.Operation("ApplySettlement")
	require.NotNil(t, apply)
	require.Len(t, apply.Steps, 2)
	assert.Equal(t, Transaction, apply.Steps[1].Kind)
	budgets := map[string]float64{}
	for _, b := range apply.Budgets {
		if b.WRU != nil {
			budgets[b.Name] = *b.WRU
		}
	}
	assert.Equal(t, 8.0, budgets["cures"])
	view := m.Operation("DebtorView")
	require.NotNil(t, view.Budgets[0].RRU)
	assert.Equal(t, 4.0, *view.Budgets[0].RRU)
	// scale: see TestReferenceScale

	for _, w := range m.Warnings {
		assert.NotEmpty(t, w.Accepted, "unaccepted warning on the reference model: %s", w)
	}
}

func entityNames(es []*Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func apIDs(aps []*AccessPattern) []string {
	var out []string
	for _, a := range aps {
		out = append(out, a.ID)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, f := range []string{"../model.yaml", "../examples/orders/model.yaml", "testdata/valid/indexed.yaml", "testdata/valid/domains.yaml"} {
		m, err := Load(f)
		require.NoError(t, err)
		out, err := m.Marshal()
		require.NoError(t, err)
		m2, err := Parse(f, out)
		require.NoError(t, err, string(out))
		assert.True(t, m.Equal(m2), "%s changed in the round trip", f)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/does-not-exist.yaml")
	require.Error(t, err)
	var el ErrorList
	assert.False(t, errors.As(err, &el), "a missing file is not a bad model")
}

func TestInputLimits(t *testing.T) {
	big := make([]byte, MaxInputBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	_, err := Parse("big.yaml", big)
	var el ErrorList
	require.ErrorAs(t, err, &el)
	assert.Contains(t, el[0].Msg, "larger than")

	bomb := []byte("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 9; i++ {
		n := string(rune('b' + i))
		bomb = append(bomb, []byte(n+": &"+n+" [*"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+", *"+prev+"]\n")...)
		prev = n
	}
	_, err = Parse("bomb.yaml", bomb)
	require.ErrorAs(t, err, &el)
	assert.Contains(t, el.Error(), "too large")
}

func BenchmarkLoadReference(b *testing.B) {
	data, err := os.ReadFile("../model.yaml")
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("model.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestErrorListCapAndOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/valid/minimal.yaml")
	require.NoError(t, err)
	var extra []byte
	for i := 0; i < 25; i++ {
		extra = append(extra, []byte("    bogus"+string(rune('a'+i))+": 1\n")...)
	}
	// 25 unknown fields inside the table.
	src := strings.Replace(string(data), "    sortKey: SK\n", "    sortKey: SK\n"+string(extra), 1)
	_, err = Parse("m.yaml", []byte(src))
	var el ErrorList
	require.ErrorAs(t, err, &el)
	require.Len(t, el, 25)
	for i := 1; i < len(el); i++ {
		assert.Less(t, el[i-1].Pos.Line, el[i].Pos.Line, "sorted by position")
	}
	text := el.Error()
	assert.True(t, strings.HasSuffix(text, "(and 5 more errors)"), text)
	assert.Equal(t, MaxErrors+1, strings.Count(text, "\n")+1-strings.Count(text, "hint:"))
}

// TestLargeModel: a model of two thousand operations (the reference's
// copied under other names) is not taken for an alias bomb, which the
// invalid corpus keeps refused.
func TestLargeModel(t *testing.T) {
	data, err := os.ReadFile("../model.yaml")
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, "operations:")
	require.Positive(t, start)
	end := start + 1
	for end < len(lines) && (lines[end] == "" || strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "#")) {
		end++
	}
	name := regexp.MustCompile(`^  ([A-Za-z][A-Za-z0-9]*):`)
	out := append([]string(nil), lines[:end]...)
	for k := 1; len(out) < 40*len(lines); k++ {
		for _, l := range lines[start+1 : end] {
			out = append(out, name.ReplaceAllString(l, fmt.Sprintf("  ${1}Copy%d:", k)))
		}
	}
	out = append(out, lines[end:]...)
	m, err := Parse("large.yaml", []byte(strings.Join(out, "\n")))
	require.NoError(t, err)
	assert.Greater(t, len(m.Operations), 2000)
}
