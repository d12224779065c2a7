package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/cardapio/cardapio/internal/jsonpos"
)

// MaxPlanBytes caps a plan's JSON: a day at one point a minute, with the
// hottest partitions of every table and index, is a few megabytes.
const MaxPlanBytes = 256 << 20

// maxCells caps the heatmap cells and series points a plan may hold in
// all, so that a crafted file cannot make a page of a billion cells.
const maxCells = 20_000_000

// Plan is what a report draws from `cardapio plan --format json`: the
// fields of the planner's result the report shows, under the same JSON
// names (the command's contract: fields are only added, so a newer plan
// still reads).
type Plan struct {
	Model      string         `json:"model"`
	Scenario   string         `json:"scenario"`
	StartText  string         `json:"start"`
	Start      time.Time      `json:"-"` // StartText read
	Seconds    int            `json:"seconds"`
	Resolution int            `json:"resolution"`
	WhatIf     []string       `json:"whatIf"`
	Resources  []PlanResource `json:"resources"`
	Throttled  struct {
		Requests float64            `json:"requests"`
		Reasons  map[string]float64 `json:"reasons"`
	} `json:"throttled"`
	First  []PlanFirstHit `json:"firstLimitHit"`
	Advice struct {
		Warm []struct {
			Table      string  `json:"table"`
			Index      string  `json:"index"`
			Read       float64 `json:"read"`
			Write      float64 `json:"write"`
			StartRead  float64 `json:"startRead"`
			StartWrite float64 `json:"startWrite"`
			Enough     bool    `json:"enough"`
			Note       string  `json:"note"`
		} `json:"warm"`
		Shards []struct {
			Index      string `json:"index"`
			Declared   int    `json:"declared"`
			Planned    int    `json:"planned"`
			NoThrottle int    `json:"noThrottle"`
		} `json:"shards"`
	} `json:"advice"`
	Cost struct {
		USD   float64 `json:"usd"`
		Basis string  `json:"basis"`
	} `json:"cost"`
	Heatmaps []PlanHeatmap `json:"heatmaps"`
	Verdict  struct {
		Throttled bool   `json:"throttled"`
		Summary   string `json:"summary"`
	} `json:"verdict"`
}

// PlanResource is the table or one of its indexes over the span.
type PlanResource struct {
	Table          string      `json:"table"`
	Index          string      `json:"index"`
	Mode           string      `json:"mode"`
	PartitionRead  float64     `json:"partitionRead"`
	PartitionWrite float64     `json:"partitionWrite"`
	Read           []PlanPoint `json:"read"`
	Write          []PlanPoint `json:"write"`
}

// Name is the index's name, or the table's.
func (r PlanResource) Name() string {
	if r.Index != "" {
		return r.Index
	}
	return r.Table
}

// PlanPoint is one interval of a resource's series.
type PlanPoint struct {
	Second    int     `json:"t"`
	Consumed  float64 `json:"consumed"`
	Demand    float64 `json:"demand"`
	Limit     float64 `json:"limit"`
	Throttled float64 `json:"throttled"`
	Hottest   float64 `json:"hottest"`
}

// PlanFirstHit is the first second a limit refused a request.
type PlanFirstHit struct {
	Table     string   `json:"table"`
	Index     string   `json:"index"`
	Direction string   `json:"direction"`
	Limit     string   `json:"limit"`
	Reason    string   `json:"reason"`
	Second    int      `json:"second"`
	Partition string   `json:"partition"`
	Keys      []string `json:"keys"`
	Units     float64  `json:"units"`
}

// PlanHeatmap is one resource's hottest partitions over time: each cell
// the partition's demand over its cap in one interval.
type PlanHeatmap struct {
	Table      string      `json:"table"`
	Index      string      `json:"index"`
	Direction  string      `json:"direction"`
	Partitions []string    `json:"partitions"`
	Cells      [][]float64 `json:"cells"`
}

// ReadPlan reads a plan's JSON (cardapio plan --format json).
func ReadPlan(name string, data []byte) (*Plan, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8 text: not a plan", name)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty: not a plan", name)
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, jsonpos.Wrap(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON document: not a plan", name)
	}
	if p.Resources == nil {
		return nil, fmt.Errorf("%s: no \"resources\": not a plan of cardapio plan", name)
	}
	if p.StartText != "" {
		t, err := time.Parse(time.RFC3339, p.StartText)
		if err != nil {
			return nil, fmt.Errorf("%s: start %q is not an RFC 3339 time", name, p.StartText)
		}
		p.Start = t
	}
	if p.Resolution == 0 {
		p.Resolution = 1
	}
	if p.Resolution < 0 || p.Resolution > 86400 {
		return nil, fmt.Errorf("%s: resolution %d: a point covers 1 s to a day", name, p.Resolution)
	}
	if len(p.Resources)+len(p.Heatmaps) > maxSeries {
		return nil, fmt.Errorf("%s: more than %d resources and heatmaps", name, maxSeries)
	}
	cells := 0
	for i, r := range p.Resources {
		for _, pts := range [][]PlanPoint{r.Read, r.Write} {
			cells += len(pts)
			for _, pt := range pts {
				if err := finite(pt.Consumed, pt.Demand, pt.Limit, pt.Throttled, pt.Hottest); err != nil {
					return nil, fmt.Errorf("%s: resources[%d] (%s): second %d: %v", name, i, r.Name(), pt.Second, err)
				}
			}
		}
		if err := finite(r.PartitionRead, r.PartitionWrite); err != nil {
			return nil, fmt.Errorf("%s: resources[%d] (%s): partition caps: %v", name, i, r.Name(), err)
		}
	}
	for i, h := range p.Heatmaps {
		if len(h.Cells) != len(h.Partitions) {
			return nil, fmt.Errorf("%s: heatmaps[%d]: %d rows of cells for %d partitions", name, i, len(h.Cells), len(h.Partitions))
		}
		for _, row := range h.Cells {
			cells += len(row)
			if err := finite(row...); err != nil {
				return nil, fmt.Errorf("%s: heatmaps[%d]: %v", name, i, err)
			}
		}
	}
	if cells > maxCells {
		return nil, fmt.Errorf("%s: %d points and cells, more than %d", name, cells, maxCells)
	}
	for k, v := range p.Throttled.Reasons {
		if err := finite(v); err != nil {
			return nil, fmt.Errorf("%s: throttled.reasons.%s: %v", name, k, err)
		}
	}
	return &p, nil
}
