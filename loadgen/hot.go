package loadgen

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/throughput"
)

// heat follows the partitions of the tables and indexes as the run goes:
// from the engine's throughput model where the target is cardapio (in
// process, or cardapio serve's GET /cardapio/throughput), otherwise from
// the ThrottlingReasons the target returned.
type heat struct {
	mu     sync.Mutex
	source func(context.Context) (throughput.Snapshot, bool)
	scale  float64
	names  map[string]string // created table -> model table
	parts  map[partKey]*partHeat
	seen   bool
	// last are every resource's cumulative figures at the previous
	// sample; iv what changed since the interval began, by the
	// summary's unit keys (a table's model name, an index's name).
	last map[partKey]throughput.Totals
	iv   map[string]*resourceSecond
}

// resourceSecond is a table's or index's throughput figures over one
// interval of the results stream: its table-level rates at the end and
// the units it throttled.
type resourceSecond struct {
	index                         bool
	readRate, writeRate           float64
	readThrottled, writeThrottled float64
}

type partKey struct {
	table, index string
	lo           uint64
}

type partHeat struct {
	wDemand, rDemand       float64 // local units, the highest second
	wThrottled, rThrottled float64
	keys                   map[string]bool
	// secs is the demand of every second seen (scenario clock, Unix
	// seconds): write and read, local units.
	secs map[int64][2]float64
}

// newHeat returns the heat of a target, nil when it has no throughput
// figures to give.
func newHeat(tg *endpoint.Target, tables *endpoint.Tables) *heat {
	h := &heat{parts: map[partKey]*partHeat{}, names: map[string]string{}, last: map[partKey]throughput.Totals{}, iv: map[string]*resourceSecond{}}
	for model, name := range tables.Names() {
		h.names[name] = model
	}
	switch {
	case tg.Engine != nil:
		h.source = func(context.Context) (throughput.Snapshot, bool) { return tg.Engine.Throughput() }
	case tg.Kind == endpoint.Endpoint:
		url := strings.TrimRight(tg.Name, "/") + engine.ThroughputPath + "?region=" + tg.Region
		client := &http.Client{Timeout: 5 * time.Second}
		h.source = func(ctx context.Context) (throughput.Snapshot, bool) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return throughput.Snapshot{}, false
			}
			resp, err := client.Do(req)
			if err != nil {
				return throughput.Snapshot{}, false
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return throughput.Snapshot{}, false
			}
			var s throughput.Snapshot
			if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&s); err != nil {
				return throughput.Snapshot{}, false
			}
			return s, true
		}
	default:
		return nil
	}
	return h
}

// sample reads the figures once and keeps the highest second of every
// partition.
func (h *heat) sample(ctx context.Context) {
	if h == nil {
		return
	}
	s, ok := h.source(ctx)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = true
	if s.Scale > 0 {
		h.scale = s.Scale
	}
	for _, t := range s.Tables {
		model, ok := h.names[t.Table]
		if !ok {
			continue
		}
		for _, r := range t.Resources {
			h.interval(model, r)
			for _, p := range r.Partitions {
				k := partKey{model, r.Index, p.Lo}
				ph := h.parts[k]
				if ph == nil {
					ph = &partHeat{keys: map[string]bool{}, secs: map[int64][2]float64{}}
					h.parts[k] = ph
				}
				for _, sec := range p.Seconds {
					w, r := sec.WriteConsumed+sec.WriteThrottled, sec.ReadConsumed+sec.ReadThrottled
					ph.wDemand = max(ph.wDemand, w)
					ph.rDemand = max(ph.rDemand, r)
					// A second seen by two samples: the later is the
					// fuller.
					at := sec.At.Unix()
					was := ph.secs[at]
					ph.secs[at] = [2]float64{max(was[0], w), max(was[1], r)}
				}
				ph.wThrottled = max(ph.wThrottled, p.Totals.WriteThrottled)
				ph.rThrottled = max(ph.rThrottled, p.Totals.ReadThrottled)
			}
			for _, ks := range r.TopThrottled {
				for _, p := range r.Partitions {
					if ks.Hash >= p.Lo && ks.Hash <= p.Hi {
						if ph := h.parts[partKey{model, r.Index, p.Lo}]; ph != nil && len(ph.keys) < 5 {
							ph.keys[ks.Key] = true
						}
					}
				}
			}
		}
	}
}

// interval notes a resource's rates and the units it throttled since
// the previous sample (h.mu held).
func (h *heat) interval(model string, r throughput.ResourceStats) {
	k := partKey{table: model, index: r.Index}
	prev := h.last[k]
	h.last[k] = r.Totals
	name := model
	if r.Index != "" {
		name = r.Index
	}
	rs := h.iv[name]
	if rs == nil {
		rs = &resourceSecond{index: r.Index != ""}
		h.iv[name] = rs
	}
	rs.readRate, rs.writeRate = r.ReadRate, r.WriteRate
	rs.readThrottled += max(0, r.Totals.ReadThrottled-prev.ReadThrottled)
	rs.writeThrottled += max(0, r.Totals.WriteThrottled-prev.WriteThrottled)
}

// baseline takes the resources' cumulative figures as they are before
// the run, so that the first interval counts only the run's throttles.
func (h *heat) baseline(ctx context.Context) {
	if h == nil {
		return
	}
	s, ok := h.source(ctx)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range s.Tables {
		if model, ok := h.names[t.Table]; ok {
			for _, r := range t.Resources {
				h.last[partKey{table: model, index: r.Index}] = r.Totals
			}
		}
	}
}

// takeInterval merges the throughput figures of the interval that ends
// into a second's units: the rates as limits, the throttled units, and a
// line for every resource the model knows, traffic or not. The interval
// then starts afresh.
func (h *heat) takeInterval(units map[string]*SecondUnits) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for name, rs := range h.iv {
		u := units[name]
		if u == nil {
			u = &SecondUnits{Index: rs.index}
			units[name] = u
		}
		rl, wl, rt, wt := rs.readRate, rs.writeRate, rs.readThrottled, rs.writeThrottled
		u.ReadLimit, u.WriteLimit, u.ReadThrottled, u.WriteThrottled = &rl, &wl, &rt, &wt
		rs.readThrottled, rs.writeThrottled = 0, 0
	}
}

// hottest returns, per table and index, its hottest partitions (by write
// demand, then read), at full scale.
func (h *heat) hottest(perResource int) []HotPartition {
	if h == nil || !h.seen {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	scale := h.scale
	if scale <= 0 {
		scale = 1
	}
	by := map[[2]string][]HotPartition{}
	for k, p := range h.parts {
		if p.wDemand == 0 && p.rDemand == 0 {
			continue
		}
		hp := HotPartition{Table: k.table, Index: k.index, WriteDemand: p.wDemand / scale, ReadDemand: p.rDemand / scale,
			WriteThrottled: p.wThrottled / scale, ReadThrottled: p.rThrottled / scale, From: "throughput model"}
		for key := range p.keys {
			hp.Keys = append(hp.Keys, key)
		}
		sort.Strings(hp.Keys)
		r := [2]string{k.table, k.index}
		by[r] = append(by[r], hp)
	}
	var out []HotPartition
	var rs [][2]string
	for r := range by {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] || rs[i][0] == rs[j][0] && rs[i][1] < rs[j][1] })
	for _, r := range rs {
		ps := by[r]
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].WriteDemand != ps[j].WriteDemand {
				return ps[i].WriteDemand > ps[j].WriteDemand
			}
			return ps[i].ReadDemand > ps[j].ReadDemand
		})
		if len(ps) > perResource {
			ps = ps[:perResource]
		}
		out = append(out, ps...)
	}
	return out
}

// maxDemand is the highest demand a second of any partition of a table
// or index, at full scale, sustained over the run's window (see
// sustained); ok is false without figures.
func (h *heat) maxDemand(table, index string, write bool) (v float64, window int, ok bool) {
	if h == nil || !h.seen {
		return 0, 0, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	scale := h.scale
	if scale <= 0 {
		scale = 1
	}
	window = sustainWindow(scale)
	best, found := 0.0, false
	for k, p := range h.parts {
		if k.table != table || k.index != index {
			continue
		}
		found = true
		best = max(best, sustained(p.secs, write, window)/scale)
	}
	return best, window, found
}

// sustainWindow is how many seconds of a run at scale carry as many
// requests as one second at full scale: ceil(1/scale). A second of a
// 1/100 run holds a hundredth of the arrivals, so its busiest second is
// a small count's luckiest draw, far above the full-scale second's rate
// it stands for; the mean over 1/scale seconds has the full second's
// count and so its spread.
func sustainWindow(scale float64) int {
	if scale >= 1 {
		return 1
	}
	return int(math.Ceil(1/scale - 1e-9))
}

// sustained is the highest mean demand over window consecutive seconds
// (seconds without traffic count as zero); a span shorter than the
// window is averaged over the span.
func sustained(secs map[int64][2]float64, write bool, window int) float64 {
	if len(secs) == 0 {
		return 0
	}
	i := 1
	if write {
		i = 0
	}
	ats := make([]int64, 0, len(secs))
	for at := range secs {
		ats = append(ats, at)
	}
	slices.Sort(ats)
	span := int(ats[len(ats)-1]-ats[0]) + 1
	w := min(window, span)
	best, sum := 0.0, 0.0
	lo := 0
	for _, at := range ats {
		sum += secs[at][i]
		for ats[lo] <= at-int64(w) {
			sum -= secs[ats[lo]][i]
			lo++
		}
		best = max(best, sum)
	}
	return best / float64(w)
}
