package budget

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
)

// The static gate finds the ride queue's hot partition at openRides'
// line, the excess of over.yaml at its budget (and, under --strict, its
// warnings not accepted), and nothing on the reference model.
func TestJudge(t *testing.T) {
	g, err := Judge(load(t, "../capacity/estimate/testdata/rides.yaml"), capacity.Default(), false)
	require.NoError(t, err)
	require.Len(t, g.Findings, 1)
	f := g.Findings[0]
	assert.Equal(t, FindingHot, f.Kind)
	assert.Equal(t, "openRides", f.Name)
	assert.Equal(t, "indexes.openRides", f.At.Path)
	assert.Contains(t, lineAt(t, "../capacity/estimate/testdata/rides.yaml", f.At.Line), "openRides:")
	assert.True(t, strings.HasPrefix(f.Text, "2,050 WCU/s on `cityId = its largest value (focus), queueStatus = OPEN"), f.Text)
	assert.Equal(t, "cardapio: hot partition: "+f.At.Where()+": "+f.Text, f.Line())
	assert.Equal(t, "1 hot partition", g.Summary())
	assert.False(t, g.OK())

	m := load(t, "../internal/cli/testdata/check/over.yaml")
	g, err = Judge(m, capacity.Default(), false)
	require.NoError(t, err)
	require.Len(t, g.Findings, 1)
	assert.Equal(t, FindingOverBudget, g.Findings[0].Kind)
	assert.Equal(t, g.Result("MoveBucket", "move").Excesses[0].Text, g.Findings[0].Text)
	assert.Equal(t, "1 variant over budget", g.Summary())
	g, err = Judge(m, capacity.Default(), true)
	require.NoError(t, err)
	review := g.Of(FindingReview)
	require.Len(t, review, 2, "its two size-boundary warnings, not accepted")
	assert.Equal(t, "entities.CONTRACT.samples.d031", review[0].At.Path)
	assert.True(t, strings.HasPrefix(review[0].Line(), "cardapio: --strict: warning not accepted: "), review[0].Line())
	assert.Equal(t, "1 variant over budget, 2 review warnings not accepted (--strict)", g.Summary())

	g, err = Judge(load(t, "../model.yaml"), capacity.Default(), true)
	require.NoError(t, err)
	assert.True(t, g.OK(), g.Summary())
}
