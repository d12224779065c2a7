package estimate_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// shardRides shards openRides four ways on a computed rideShard.
var shardRides = []string{
	"  driverId: {type: S, unit: id, description: the driver who took the ride}\n", "  driverId: {type: S, unit: id, description: the driver who took the ride}\n  rideShard: {type: N, description: the ride's shard of openRides, computed: {kind: hashMod, hash: fnv1a32, input: rideId, modulo: 4}}\n",
	"      cityId: required\n", "      cityId: required\n      rideShard: required\n",
	"{rideId: r1, cityId: sao-paulo,", "{rideId: r1, rideShard: 0, cityId: sao-paulo,",
	"    partition: [cityId, queueStatus]\n", "    partition: [cityId, queueStatus, rideShard]\n",
	"    unsharded: a test of the gate\n", "    shards: {attribute: rideShard, count: 4}\n",
	"            queueStatus: {eq: OPEN}\n", "            queueStatus: {eq: OPEN}\n            rideShard: {eq: \"{rideShard}\"}\n          shards: {fanOut: all, workers: 4}\n",
	"        queueStatus: {eq: OPEN}\noperations", "        queueStatus: {eq: OPEN}\n        rideShard: {eq: \"{rideShard}\"}\n      shards: {fanOut: all, workers: 4}\noperations",
	"      cityId: {sample: sao-paulo}\n    volume: {perDay: 500000}", "      cityId: {sample: sao-paulo}\n      rideShard: {sample: 0}\n    volume: {perDay: 500000}",
	"item: {cityId: \"{cityId}\",", "item: {rideShard: \"{rideShard}\", cityId: \"{cityId}\",",
	"      requestedAt: {sample: \"2026-03-01T18:00:00.000Z\"}\n    volume: {perDay: 3000000}", "      requestedAt: {sample: \"2026-03-01T18:00:00.000Z\"}\n      rideShard: {sample: 0}\n    volume: {perDay: 3000000}",
	"      page: {rru: 0.5}", "      page: {rru: 2}",
}

// The ways a model says that the entries of an index concentrate on few
// values of a key attribute, each read by the peak gate on every step
// (the put that enters the queue, the rewrite of the entry, the update
// that takes it out), unsharded and over four shards.
var markers = []struct {
	name  string
	edits []string
	units float64 // unsharded, WCU/s on the hottest partition
	part  string
}{
	{
		// queueStatus: [OPEN], the sparse marker: every entry on OPEN.
		name: "one-value marker", units: 700 + 700 + 650,
		part: "queueStatus = OPEN (its one value: every entry on one partition)",
	},
	{
		// A numeric flag, 0 or 1: half the entries on each, as far as
		// the model says; the put writes 1.
		name: "boolean marker", units: 700 + 700/2.0 + 650/2.0,
		edits: []string{
			"  queueStatus: {type: S, description: the ride's place in the dispatch queue while it waits, enum: [OPEN]}", "  queueStatus: {type: N, description: 1 while the ride waits, integer: true, min: 0, max: 1}",
			"queueStatus: OPEN", "queueStatus: 1",
			"{eq: OPEN}", "{eq: 1}",
		},
		part: "queueStatus = one of 2 values",
	},
	{
		// Two states, one of which holds 90% of the rides waiting.
		name: "dominant status", units: 700 + 0.9*700 + 0.9*650,
		edits: []string{
			"enum: [OPEN]}", "enum: [OPEN, HELD]}",
			"      queueStatus: {presence: required, when: {status: REQUESTED}}", "      queueStatus: {presence: required, when: {status: REQUESTED}, values: {kind: weighted, weights: {OPEN: 0.9, HELD: 0.1}}}",
		},
		part: "queueStatus = OPEN (90% of RIDE's entries, as RIDE declares its values)",
	},
	{
		// The index keyed on status, of three values, and sorted on
		// queueStatus, present only while status is REQUESTED: only
		// requested rides enter it.
		name: "presence rule", units: 700 + 700 + 650,
		edits: []string{
			"partition: [cityId, queueStatus", "partition: [cityId, status",
			"sort: [requestedAt]", "sort: [queueStatus, requestedAt]",
			"queueStatus: {eq: OPEN}", "status: {eq: REQUESTED}",
		},
		part: "status = REQUESTED (every entry of RIDE on one partition, queueStatus, a key of openRides, is present only while status is REQUESTED)",
	},
}

func TestPeakMarkers(t *testing.T) {
	data, err := os.ReadFile("testdata/rides.yaml")
	require.NoError(t, err)
	for _, mk := range markers {
		for _, sharded := range []bool{false, true} {
			name := mk.name
			text, want := string(data), mk.units
			if sharded {
				name += "/sharded"
				text = strings.NewReplacer(shardRides...).Replace(text)
				want /= 4
			}
			text = strings.NewReplacer(mk.edits...).Replace(text)
			t.Run(name, func(t *testing.T) {
				q := structure(t, peaks(t, name+".yaml", []byte(text)), "openRides")
				require.NotNil(t, q.Write)
				assert.InDelta(t, want, q.Write.Units, 1e-6)
				require.Len(t, q.Write.Terms, 3)
				for _, term := range q.Write.Terms {
					assert.Greater(t, term.Share, 0.0, "%s: every step is weighed", term.Operation)
					assert.Contains(t, term.Partition+" "+strings.Join(fieldsOf(q.Write), " "), strings.Split(mk.part, " (")[0])
				}
				assert.Contains(t, strings.Join(fieldsOf(q.Write), "\n"), mk.part)
				assert.Equal(t, want > 1000, q.Write.Over())
				assert.Empty(t, q.Assumptions())
			})
		}
	}
}

func fieldsOf(l *estimate.PeakLoad) []string {
	var out []string
	for _, t := range l.Terms {
		out = append(out, t.Partition)
	}
	return out
}

// Nothing declared of a key attribute: the gate assumes it spreads, says
// so in the structure's assumptions, and the review asks for its domain.
func TestPeakAssumedSpread(t *testing.T) {
	data, err := os.ReadFile("testdata/rides.yaml")
	require.NoError(t, err)
	text := strings.NewReplacer("cardinality: 40}", "}", ", focus: {cityId: largest}", "").Replace(string(data))
	m, err := catalog.Parse("rides.yaml", []byte(text))
	require.NoError(t, err)
	p, err := estimate.New(m, capacity.Default()).Peaks()
	require.NoError(t, err)
	q := structure(t, p, "openRides")
	require.NotNil(t, q.Write)
	assert.Contains(t, strings.Join(q.Assumptions(), "\n"), "openRides: cityId is assumed to spread")
	var codes []string
	for _, f := range m.Warnings {
		codes = append(codes, f.Code+" "+f.Path)
	}
	assert.Contains(t, codes, catalog.CodeKeyDomain+" attributes.cityId")
}
