package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxPlanBytes caps a plan's JSON: a day at one second for a few dozen
// partitions is well under it.
const MaxPlanBytes = 256 << 20

// Plan is what a report draws from cardapio plan's JSON: the timeline of
// every table and index against its limit, the hottest partitions over
// time, and the throttled units by reason.
type Plan struct {
	Model    string `json:"model"`
	Scenario string `json:"scenario"`
	OK       bool   `json:"ok"`
	// Start is the scenario clock of the first second; Step the seconds
	// each point of the series covers.
	Start string `json:"start"`
	Step  int    `json:"stepSeconds"`
	// Structures are the table and each index, Partitions the hottest.
	Structures []PlanSeries       `json:"structures"`
	Partitions []PlanSeries       `json:"partitions"`
	Throttled  map[string]float64 `json:"throttledByReason"`
}

// PlanSeries is one table, index or partition over time: units consumed
// a second against its limit, writes and reads.
type PlanSeries struct {
	Name          string    `json:"name"`
	ConsumedWrite []float64 `json:"consumedWrite"`
	LimitWrite    []float64 `json:"limitWrite"`
	ConsumedRead  []float64 `json:"consumedRead"`
	LimitRead     []float64 `json:"limitRead"`
}

// ReadPlan reads a plan's JSON (cardapio plan --format json).
func ReadPlan(name string, data []byte) (*Plan, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8 text: not a plan", name)
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, positioned(name, data, 1, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON document: not a plan", name)
	}
	if p.Structures == nil {
		return nil, fmt.Errorf("%s: no \"structures\": not a plan of cardapio plan", name)
	}
	if p.Step == 0 {
		p.Step = 1 // a point a second when the plan does not say
	}
	if p.Step < 0 || p.Step > 86400 {
		return nil, fmt.Errorf("%s: stepSeconds %d: a step of 1 s to a day", name, p.Step)
	}
	if len(p.Structures)+len(p.Partitions) > maxSeries {
		return nil, fmt.Errorf("%s: more than %d series", name, maxSeries)
	}
	for i, s := range append(append([]PlanSeries{}, p.Structures...), p.Partitions...) {
		for _, xs := range [][]float64{s.ConsumedWrite, s.LimitWrite, s.ConsumedRead, s.LimitRead} {
			if err := finite(xs...); err != nil {
				return nil, fmt.Errorf("%s: series %d (%s): %v", name, i, s.Name, err)
			}
		}
	}
	for k, v := range p.Throttled {
		if err := finite(v); err != nil {
			return nil, fmt.Errorf("%s: throttledByReason.%s: %v", name, k, err)
		}
	}
	return &p, nil
}
