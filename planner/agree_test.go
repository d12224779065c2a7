package planner

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/throughput"
)

// The planner decides a second of demand at once (AdmitSecond); the
// engine decides request by request, each request one call to the
// throughput model's Admit (AdmitAll for the actions of a transaction)
// with its units on the hash of its partition key and its index charges,
// as the engine builds them. On the same scaled scenario, the incident of
// 00h07 at a tenth of the reference's scale (120,000 reschedules, caps a
// tenth), the two must agree: throttled requests per reason and admitted
// requests per load within 10% (the fluid takes a second's arrivals as
// even; the replay draws them at random instants and keys by weight).
func TestPlannerAgreesWithRequestByRequest(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	o := Options{Scenario: "midnight-0007", Shards: map[string]int{"GSI1": 1}, Scale: 0.1, Sample: 256}
	_, undo, err := applyShards(m, o.Shards)
	require.NoError(t, err)
	defer undo()
	var sc *catalog.Scenario
	for i := range m.Scenarios {
		if m.Scenarios[i].Name == o.Scenario {
			sc = &m.Scenarios[i]
		}
	}
	require.NotNil(t, sc)
	p, pop, sch, err := prepare(m, sc, o)
	require.NoError(t, err)

	newModel := func() (*throughput.Model, *throughput.ManualClock) {
		clk := throughput.NewManualClock(sch.start)
		tm, err := throughput.New(throughput.Config{Now: clk.Now, Scale: o.Scale})
		require.NoError(t, err)
		_, err = p.define(tm, pop, &Result{})
		require.NoError(t, err)
		return tm, clk
	}
	loads, roots, refs, plans, err := p.build(sch, nil)
	require.NoError(t, err)

	// The planner's way.
	fluid, fclk := newModel()
	var out []throughput.LoadResult
	fAdmitted := make([]float64, len(plans))
	var fReasons throughput.ReasonCounts
	for s := range sch.seconds {
		for _, rt := range roots {
			loads[rt.first].Count = rt.shape.at(s) * rt.share * rt.perRun
		}
		out = fluid.AdmitSecond(loads, out)
		for k, r := range out {
			if loads[k].After == 0 {
				fAdmitted[refs[k].load] += r.Admitted
			}
			fReasons.Add(&r.Reasons)
		}
		fclk.Advance(time.Second)
	}

	// The engine's way: each run at a random instant of its second, its
	// steps in turn while they pass, each request's keys drawn by weight.
	engine, eclk := newModel()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(ch *throughput.Charge) (uint64, []byte) {
		x := rng.Float64()
		for _, pt := range ch.Points {
			if x < pt.Weight {
				return pt.Hash, pt.Key
			}
			x -= pt.Weight
		}
		return rng.Uint64(), nil // the even rest: anywhere
	}
	type arrival struct {
		at   float64
		root int
	}
	eAdmitted := make([]float64, len(plans))
	eReasons := map[throughput.Reason]float64{}
	carry := make([]float64, len(roots))
	var reqs []throughput.Request
	// request makes one request of load k and, when it passes, the
	// requests of the step after it.
	var request func(k int) bool
	request = func(k int) bool {
		reqs = reqs[:0]
		table := -1
		for c := range loads[k].Charges {
			ch := &loads[k].Charges[c]
			h, key := pick(ch)
			switch {
			case ch.Index != "" && ch.Write:
				if table < 0 {
					reqs = append(reqs, throughput.Request{Table: ch.Table, Hash: rng.Uint64()})
					table = len(reqs) - 1
				}
				reqs[table].Indexes = append(reqs[table].Indexes, throughput.IndexCharge{Name: ch.Index, Hash: h, Key: key, Write: ch.Units})
			case ch.Index == "" && ch.Write && table < 0:
				reqs = append(reqs, throughput.Request{Table: ch.Table, Hash: h, Key: key, Write: ch.Units})
				table = len(reqs) - 1
			case ch.Index == "" && ch.Write:
				reqs[table].Hash, reqs[table].Key, reqs[table].Write = h, key, reqs[table].Write+ch.Units
			default:
				reqs = append(reqs, throughput.Request{Table: ch.Table, Index: ch.Index, Hash: h, Key: key, Read: ch.Units})
			}
		}
		if ths := engine.AdmitAll(reqs); ths != nil {
			seen := map[throughput.Reason]bool{}
			for _, th := range ths {
				if th == nil {
					continue
				}
				for _, r := range th.Reasons {
					if !seen[r.Reason] {
						seen[r.Reason] = true
						eReasons[r.Reason]++
					}
				}
			}
			return false
		}
		if next := k + 1; next < len(loads) && loads[next].After == next {
			for range int(math.Round(loads[next].Count)) {
				request(next)
			}
		}
		return true
	}
	for s := range sch.seconds {
		var arr []arrival
		for i, rt := range roots {
			want := rt.shape.at(s)*rt.share + carry[i]
			n := math.Floor(want)
			carry[i] = want - n
			for range int(n) {
				arr = append(arr, arrival{float64(s) + rng.Float64(), i})
			}
		}
		slices.SortFunc(arr, func(a, b arrival) int { return int(math.Copysign(1, a.at-b.at)) })
		for _, a := range arr {
			eclk.Set(sch.start.Add(time.Duration(a.at * float64(time.Second))))
			rt := roots[a.root]
			for range int(math.Round(rt.perRun)) {
				if request(rt.first) {
					eAdmitted[rt.load]++
				}
			}
		}
		eclk.Set(sch.start.Add(time.Duration(s+1) * time.Second))
	}
	for i := range plans {
		t.Logf("%s: admitted, planner %.0f, request by request %.0f", plans[i].Name, fAdmitted[i], eAdmitted[i])
		assert.InDelta(t, fAdmitted[i], eAdmitted[i], 0.10*max(fAdmitted[i], eAdmitted[i])+50, plans[i].Name)
	}

	total := 0.0
	fReasons.Each(func(r throughput.Reason, n float64) { total += n })
	require.Greater(t, total, 1000.0, "the scaled incident throttles")
	fReasons.Each(func(r throughput.Reason, n float64) {
		e := eReasons[r]
		t.Logf("%s: planner %.0f, request by request %.0f", r, n, e)
		assert.InDelta(t, n, e, 0.10*max(n, e)+50, "%s", r)
	})
	for r, e := range eReasons {
		if fReasons.Get(r) == 0 {
			assert.Less(t, e, 50.0, "%s only request by request", r)
		}
	}
}
