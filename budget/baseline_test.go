package budget

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
)

func staticReport(t *testing.T, path string) *Report {
	t.Helper()
	m := load(t, path)
	r := &Report{Model: path, Name: m.Name, Results: static(t, m)}
	r.Finish(false)
	return r
}

func encode(t *testing.T, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(r))
	return b.Bytes()
}

// TestBaselineRoundTrip: a report read back is the report, for what a
// comparison uses.
func TestBaselineRoundTrip(t *testing.T) {
	r := staticReport(t, "../model.yaml")
	got, err := ReadBaseline("base.json", bytes.NewReader(encode(t, r)))
	require.NoError(t, err)
	require.Len(t, got.Results, len(r.Results))
	for i := range r.Results {
		assert.Equal(t, r.Results[i].Name(), got.Results[i].Name())
		assert.Equal(t, r.Results[i].Measured, got.Results[i].Measured)
	}
}

// TestBaselineErrors: what is not a report of the gate is refused, with
// the file, and the line where JSON breaks.
func TestBaselineErrors(t *testing.T) {
	good := string(encode(t, staticReport(t, "../model.yaml")))
	for name, c := range map[string]struct{ data, want string }{
		"empty":        {"", "base.json: empty file"},
		"not json":     {"hello", "base.json: line 1: invalid character"},
		"cut short":    {good[:len(good)/2], "cut short"},
		"two":          {good + good, "more than one JSON document"},
		"no results":   {`{"ok": true}`, `no "results"`},
		"wrong type":   {`{"results": [{"operation": "A", "measured": {"wru": "eight"}}]}`, "results.measured.wru should be float64, not a JSON string"},
		"no operation": {`{"results": [{"variant": "x"}]}`, "results[0] has no operation"},
		"negative":     {`{"results": [{"operation": "A", "measured": {"wru": -1}}]}`, "results[0] (A): measured units must be finite and not negative"},
		"index":        {`{"results": [{"operation": "A", "measured": {"indexes": {"G": {"rru": -2}}}}]}`, "index G: negative units"},
		"twice":        {`{"results": [{"operation": "A", "variant": "v"}, {"operation": "A", "variant": "v"}]}`, "A/v appears twice"},
		"huge":         {strings.Repeat(" ", MaxBaselineBytes+1), "larger than 16 MB"},
	} {
		_, err := ReadBaseline("base.json", strings.NewReader(c.data))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.Contains(t, err.Error(), "base.json", name)
	}
}

// TestCompare: deltas per variant, new and gone ones, and what the
// change costs a month by the estimate's arithmetic.
func TestCompare(t *testing.T) {
	m := load(t, "../model.yaml")
	base := staticReport(t, "../model.yaml")
	now := staticReport(t, "../model.yaml")
	// ApplySettlement/partial costs 2 WRU more, MoveBucket/move 1 less;
	// DebtorView/typical is new, OnboardDebtor/new gone.
	var kept []Result
	for _, r := range now.Results {
		switch r.Name() {
		case "ApplySettlement/partial":
			r.Measured.WRU += 2
			r.Measured.Tables = map[string]Units{"collections": {WRU: r.Measured.Tables["collections"].WRU + 2, RRU: r.Measured.Tables["collections"].RRU}}
		case "MoveBucket/move":
			r.Measured.WRU--
			r.Measured.Tables = map[string]Units{"collections": {WRU: r.Measured.Tables["collections"].WRU - 1}}
		case "OnboardDebtor/new":
			continue
		}
		kept = append(kept, r)
	}
	now.Results = kept
	var bkept []Result
	for _, r := range base.Results {
		if r.Name() != "DebtorView/typical" {
			bkept = append(bkept, r)
		}
	}
	base.Results = bkept
	prices := estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)
	c := Compare(m, capacity.Default(), prices, now, base, "base.json")
	assert.Equal(t, 1, c.Dearer)
	assert.Equal(t, 1, c.Cheaper)
	assert.Equal(t, 1, c.New)
	assert.Equal(t, 1, c.Gone)
	byName := map[string]Delta{}
	for _, d := range c.Deltas {
		byName[d.Name()] = d
	}
	assert.Equal(t, Dearer, byName["ApplySettlement/partial"].Status)
	assert.Equal(t, Units{WRU: 2}, byName["ApplySettlement/partial"].Delta)
	assert.Equal(t, Cheaper, byName["MoveBucket/move"].Status)
	assert.Equal(t, New, byName["DebtorView/typical"].Status)
	assert.Equal(t, Gone, byName["OnboardDebtor/new"].Status)
	assert.Equal(t, Same, byName["ClaimContact/allowed"].Status)

	// ApplySettlement: 8.1M runs a month, partial 15% of them, 2 WRU
	// more at the model's US$ 0.625 a million; MoveBucket 2M runs (its
	// only variant), 1 WRU less.
	ops := map[string]OpDelta{}
	for _, o := range c.Operations {
		ops[o.Operation] = o
	}
	require.Len(t, ops, 2, "%+v", c.Operations)
	assert.InDelta(t, 8_100_000*0.15*2*0.625/1e6, ops["ApplySettlement"].USDMonth, 1e-9)
	assert.InDelta(t, -2_000_000*1*0.625/1e6, ops["MoveBucket"].USDMonth, 1e-9)
	assert.InDelta(t, ops["ApplySettlement"].USDMonth+ops["MoveBucket"].USDMonth, c.USDMonth, 1e-9)

	// Dearer fails only with --fail-on-increase.
	now.Baseline = c
	now.Finish(false)
	assert.True(t, now.OK)
	now.Finish(true)
	assert.False(t, now.OK)
	for _, r := range now.Results {
		if r.Name() == "ApplySettlement/partial" {
			assert.Equal(t, Fail, r.Verdict)
			assert.Contains(t, r.Explanation, "dearer than the baseline (base.json), fatal under --fail-on-increase: +2 WRU")
		}
	}
	assert.Equal(t, 1, now.Summary.Fail)
}

// FuzzReadBaseline: whatever the file holds, ReadBaseline returns a
// report or an error naming the file, never panics, and what it accepts
// holds only finite, non-negative units and named operations.
func FuzzReadBaseline(f *testing.F) {
	f.Add([]byte(`{"results": [{"operation": "A", "variant": "v", "measured": {"wru": 1, "rru": 0.5, "tables": {"t": {"wru": 1}}}}]}`))
	f.Add([]byte(`{"results": []}`))
	f.Add([]byte(`{"results": [{"operation": ""}]}`))
	f.Add([]byte(`[1, 2]`))
	f.Add([]byte(`{"results": [{"operation": "A", "measured": {"wru": 1e400}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadBaseline("fuzz.json", bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, res := range r.Results {
			if res.Operation == "" || res.Measured.WRU < 0 || res.Measured.RRU < 0 {
				t.Fatalf("accepted %+v", res)
			}
		}
	})
}
