package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/cardapio/cardapio/internal/jsonpos"
	"github.com/cardapio/cardapio/planner"
)

// MaxPlanBytes caps a plan's JSON: a day at one point a minute, with the
// hottest partitions of every table and index, is a few megabytes.
const MaxPlanBytes = 256 << 20

// maxCells caps the heatmap cells and series points a plan may hold in
// all, so that a crafted file cannot make a page of a billion cells.
const maxCells = 20_000_000

// ReadPlan reads a plan's JSON (cardapio plan --format json) into the
// planner's own result, and checks the figures the report draws.
func ReadPlan(name string, data []byte) (*planner.Result, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8 text: not a plan", name)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty: not a plan", name)
	}
	// The start is read as text first: a time the decoder cannot parse
	// is named, not reported in time's words.
	var head struct {
		Start     json.RawMessage `json:"start"`
		Resources json.RawMessage `json:"resources"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&head); err != nil {
		return nil, jsonpos.Wrap(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON document: not a plan", name)
	}
	if len(head.Resources) == 0 || string(head.Resources) == "null" {
		return nil, fmt.Errorf("%s: no \"resources\": not a plan of cardapio plan", name)
	}
	if len(head.Start) > 0 && string(head.Start) != "null" {
		var text string
		if err := json.Unmarshal(head.Start, &text); err != nil {
			return nil, fmt.Errorf("%s: start should be a time, not %s", name, clip(string(head.Start), 40))
		}
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			return nil, fmt.Errorf("%s: start %q is not an RFC 3339 time", name, clip(text, 40))
		}
	}
	var p planner.Result
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, jsonpos.Wrap(name, data, err)
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
		for _, pts := range [][]planner.Point{r.Read, r.Write} {
			cells += len(pts)
			for _, pt := range pts {
				if err := finite(pt.Consumed, pt.Demand, pt.Limit, pt.Throttled, pt.Hottest); err != nil {
					return nil, fmt.Errorf("%s: resources[%d] (%s): second %d: %v", name, i, resName(r.Table, r.Index), pt.Second, err)
				}
			}
		}
		if err := finite(r.PartitionRead, r.PartitionWrite); err != nil {
			return nil, fmt.Errorf("%s: resources[%d] (%s): partition caps: %v", name, i, resName(r.Table, r.Index), err)
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

// resName is an index's name, or its table's.
func resName(table, index string) string {
	if index != "" {
		return index
	}
	return table
}
