package planner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/planner"
)

// The planner places the loads by the peak gate's reading of the keys:
// the ride queue's sparse marker (queueStatus, of one value) puts the
// largest city's requests, offers and acceptances on one partition of
// openRides, 2,050 WCU/s, as check says.
func TestPlanAgreesOnMarker(t *testing.T) {
	m := load(t, "../capacity/estimate/testdata/rides.yaml")
	p, err := estimate.New(m, capacity.Default()).Peaks()
	require.NoError(t, err)
	var gate float64
	for _, s := range p.Structures {
		if s.Index == "openRides" {
			gate = s.Write.Units
		}
	}
	assert.InDelta(t, 2050, gate, 1e-6)
	r, err := planner.Plan(m, planner.Options{Scenario: "evening-rush"})
	require.NoError(t, err)
	x := resource(t, r, "openRides")
	require.NotEmpty(t, x.Hottest)
	assert.InDelta(t, gate, x.Hottest[0].PeakDemand.Write, 1e-6)
	assert.True(t, r.Verdict.Throttled, r.Verdict.Summary)
}
