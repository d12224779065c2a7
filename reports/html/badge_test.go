package html

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/loadgen"
)

// A load run's badge follows its expectations and invariants and says
// what the run saw: the fixture's run fails its invariants and throttled;
// the same run with them holding passes, throttles still told; a run
// that nothing judged only ran.
func TestLoadBadge(t *testing.T) {
	f, err := os.Open("testdata/load.jsonl")
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLoad("load.jsonl", f)
	require.NoError(t, err)
	page := func() string {
		t.Helper()
		s, err := SideOf(models[1])
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, (&Report{Side: *s, Load: l, LoadFrom: "load.jsonl"}).Write(&b))
		return b.String()
	}
	assert.Contains(t, page(), `<span class="mark">FAIL · 187 throttles, 187 dead-lettered, 13 invariant violations</span> <strong>load run</strong>`)

	var inv []loadgen.InvariantResult
	for _, v := range l.Summary.Invariants {
		v.Violations, v.Details = 0, nil
		inv = append(inv, v)
	}
	l.Summary.Invariants, l.Summary.OK = inv, true
	assert.Contains(t, page(), `<span class="mark">PASS · 187 throttles, 187 dead-lettered</span> <strong>load run</strong>`)

	l.Summary.Invariants, l.Summary.Expectations = nil, nil
	assert.Contains(t, page(), `<li class="card info"><span class="mark">RAN · 187 throttles, 187 dead-lettered</span> <strong>load run</strong>`)
}
