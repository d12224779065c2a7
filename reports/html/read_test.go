package html

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const start = `{"type":"start","scenario":"s","model":"m","scale":0.01,"target":"embedded engine"}`

func second(clock string, completed int) string {
	return fmt.Sprintf(`{"type":"second","clock":%q,"loads":{"A":{"offered":%d,"completed":%d,"outcomes":{"ok":%d,"throttled":1},"latencyMs":{"p50":1,"p99":%d}}}}`,
		clock, completed, completed, completed, completed)
}

func TestReadLoadErrorsArePositioned(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "run.jsonl: empty: not a load run's results"},
		{"no start", second("c", 1) + "\n", "run.jsonl:1:1: the first line should be the run's start"},
		{"syntax", start + "\n" + `{"type":"second","loads":{"A":{"offered":1,}}}` + "\n", "run.jsonl:2:44: invalid JSON: '}' looking for beginning of object key string"},
		{"type", start + "\n" + `{"type":"second","loads":{"A":{"offered":"many"}}}` + "\n", "run.jsonl:2:42: loads.offered: got a JSON string, want a number"},
		{"negative", start + "\n" + `{"type":"second","loads":{"A":{"completed":-3}}}` + "\n", "run.jsonl:2:1: load A: negative counts"},
		{"unknown type", start + "\n" + `{"type":"minute"}` + "\n", `run.jsonl:2:1: unknown line type "minute"`},
		{"after summary", start + "\n" + `{"type":"summary","ok":true}` + "\n" + second("c", 1) + "\n", "run.jsonl:3:1: a line after the summary"},
		{"two starts", start + "\n" + start + "\n", "run.jsonl:2:1: a second start line"},
		{"cut short", start + "\n" + `{"type":"second","loads":{"A":{"off`, "run.jsonl:2:"},
		{"not utf-8", start + "\n\xff\xfe\n", "run.jsonl:2: not UTF-8"},
		{"negative units", start + "\n" + `{"type":"second","clockSeconds":1,"units":{"GSI1":{"write":-2}}}` + "\n", "run.jsonl:2:1: units of GSI1: -2 is not a finite figure"},
		{"negative limit", start + "\n" + `{"type":"second","clockSeconds":1,"units":{"GSI1":{"write":2,"writeLimit":-1}}}` + "\n", "run.jsonl:2:1: limit of GSI1: -1 is not a finite figure"},
		{"negative clock", start + "\n" + `{"type":"second","clockSeconds":-1}` + "\n", "run.jsonl:2:1: clockSeconds: -1 is not a finite figure"},
		{"a budget report", `{"model":"model.yaml","results":[]}`, `run.jsonl:1:1: the first line should be the run's start`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadLoad("run.jsonl", strings.NewReader(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestReadLoadLongLine(t *testing.T) {
	in := start + "\n" + `{"type":"second","clock":"` + strings.Repeat("x", maxLoadLine) + `"}` + "\n"
	_, err := ReadLoad("run.jsonl", strings.NewReader(in))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run.jsonl:2: a line longer than 4 MiB")
}

// A long run is kept at a coarser step: the points stay under maxPoints
// and the totals are those of every second.
func TestReadLoadCoarsensLongRuns(t *testing.T) {
	var b strings.Builder
	b.WriteString(start + "\n")
	const n = 5000
	want := 0
	for i := range n {
		b.WriteString(second(fmt.Sprintf("t%d", i), i%7) + "\n")
		want += i % 7
	}
	l, err := ReadLoad("run.jsonl", strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, n, l.Seconds)
	assert.Equal(t, 8, l.Step)
	assert.LessOrEqual(t, len(l.Timeline), maxPoints)
	got, secs := 0.0, 0
	for i, p := range l.Timeline {
		got += p["A"].Completed
		secs += l.Span[i]
		assert.Equal(t, 6.0, max(p["A"].P99, 0)) // the highest p99 of each step: i%7 reaches 6 within 8 seconds
	}
	assert.Equal(t, float64(want), got)
	assert.Equal(t, n, secs)
	assert.Equal(t, "t0", l.Clocks[0])
	assert.Equal(t, "t8", l.Clocks[1])
	assert.Nil(t, l.Summary)
}

// Units a second coarsen alike: sums of units and clock seconds, the
// lowest limit of a step.
func TestReadLoadCoarsensUnits(t *testing.T) {
	var b strings.Builder
	b.WriteString(start + "\n")
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, `{"type":"second","clock":"t%d","clockSeconds":2,"units":{"T":{"write":%d,"writeLimit":%d,"writeThrottled":1}}}`+"\n", i, i%3, 100-i%5)
	}
	l, err := ReadLoad("run.jsonl", strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, 4, l.Step)
	assert.Equal(t, []string{"T"}, l.Structures)
	write, thr, secs := 0.0, 0.0, 0.0
	for i, u := range l.Units {
		write += u["T"].Write
		thr += u["T"].WriteThrottled
		secs += l.Clock[i]
		assert.Equal(t, 8.0, l.Clock[i])
		assert.LessOrEqual(t, u["T"].WriteLimit, 97.0)
	}
	assert.Equal(t, float64(n), write) // 0+1+2 every three seconds
	assert.Equal(t, float64(n), thr)
	assert.Equal(t, 2.0*n, secs)
}

// The fixture is the load generator's own results file: cardapio load
// examples/unsharded-gsi1.yaml --scenario examples/midnight-peak.yaml
// --scale 0.01 --population 0.0004 --throughput --speed 2
// --retry-attempts 1 --seed 3 --results load.jsonl.
func TestReadLoadFixture(t *testing.T) {
	f, err := os.Open("testdata/load.jsonl")
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLoad("load.jsonl", f)
	require.NoError(t, err)
	assert.Equal(t, 28, l.Seconds)
	assert.Equal(t, 1, l.Step)
	assert.Len(t, l.Loads, 5)
	require.NotNil(t, l.Summary)
	assert.Positive(t, l.Summary.Throttles["IndexWriteKeyRangeThroughputExceeded"])
	assert.NotEmpty(t, l.Summary.Partitions)
	// Units a second per table and index, with the model's limits and
	// what it refused: GSI1 throttles while the reschedules run.
	assert.Contains(t, l.Structures, "GSI1")
	require.Len(t, l.Units, len(l.Timeline))
	thr, secs := 0.0, 0.0
	for i, u := range l.Units {
		secs += l.Clock[i]
		if g := u["GSI1"]; g != nil {
			thr += g.WriteThrottled
			assert.Equal(t, 80.0, g.WriteLimit, "GSI1's warm 8,000 WCU/s at scale 0.01")
		}
	}
	assert.Positive(t, thr)
	assert.Greater(t, secs, 40.0, "the scenario's clock moved through the peak minute")
}

func TestReadPlanErrorsArePositioned(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "plan.json: empty: not a plan"},
		{"syntax", "{\n  \"resources\": [,]\n}", "plan.json:2:17: invalid JSON: ','"},
		{"type", "{\"resources\": [{\"table\": 3}]}", "plan.json:1:26: resources.table: got a JSON number, want a string"},
		{"not a plan", `{"results": []}`, `plan.json: no "resources": not a plan`},
		{"two documents", `{"resources": []} {}`, "more than one JSON document"},
		{"negative", `{"resources": [{"table": "T", "write": [{"t": 4, "consumed": -2}]}]}`, "plan.json: resources[0] (T): second 4: -2 is not a finite figure"},
		{"heatmap rows", `{"resources": [], "heatmaps": [{"partitions": ["a-b"], "cells": []}]}`, "heatmaps[0]: 0 rows of cells for 1 partitions"},
		{"resolution", `{"resources": [], "resolution": -5}`, "resolution -5"},
		{"reason", `{"resources": [], "throttled": {"reasons": {"X": -1}}}`, "throttled.reasons.X: -1 is not a finite"},
		{"start", `{"resources": [], "start": "noon"}`, `plan.json: start "noon" is not an RFC 3339 time`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadPlan("plan.json", []byte(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// The fixture is the planner's own output: cardapio plan of the
// reference model with GSI1 unsharded (internal/cli/testdata/check/
// unsharded-gsi1.yaml), scenario midnight-0007, --resolution 10.
func TestReadPlanFixture(t *testing.T) {
	data, err := os.ReadFile("testdata/plan.json")
	require.NoError(t, err)
	p, err := ReadPlan("plan.json", data)
	require.NoError(t, err)
	assert.True(t, p.Verdict.Throttled)
	assert.Equal(t, 10, p.Resolution)
	assert.NotEmpty(t, p.Heatmaps)
	assert.NotEmpty(t, p.First)
	assert.Greater(t, p.Throttled.Reasons["IndexWriteKeyRangeThroughputExceeded"], 0.0)
}

func TestReadBudgetErrorsArePositioned(t *testing.T) {
	_, err := ReadBudget("budget.json", []byte("{\n \"results\": [{\"operation\": 1}]}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "budget.json: line 2")
	_, err = ReadBudget("budget.json", []byte(start+"\n"+second("c", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than one JSON document")
}

func FuzzReadLoad(f *testing.F) {
	f.Add([]byte(start + "\n" + second("2026-12-01T00:07:00Z", 3) + "\n" + second("2026-12-01T00:07:01Z", 5) + "\n"))
	f.Add([]byte(start + "\n" + second("c", 3) + "\n" + `{"type":"summary","ok":true,"units":{"T":{"read":1}}}`))
	f.Add([]byte(start + "\n{\"type\":\"second\",\"loads\":{\"A\":null}}\n"))
	f.Add([]byte(start + "\n" + `{"type":"second","clock":"c","clockSeconds":2,"units":{"GSI1":{"index":true,"write":36,"writeLimit":80,"writeThrottled":41},"T":null}}` + "\n" +
		`{"type":"second","clock":"d","clockSeconds":0,"units":{"GSI1":{"read":1,"readLimit":240}}}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := ReadLoad("f.jsonl", bytes.NewReader(in))
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "f.jsonl"), err.Error())
			return
		}
		render(t, &Report{Load: l, LoadFrom: "f.jsonl"})
	})
}

func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`{"model":"m","scenario":"s","start":"2026-12-01T00:00:00Z","seconds":20,"resolution":10,"resources":[{"table":"T","partitionWrite":1000,"write":[{"t":0,"consumed":300,"demand":400,"limit":4000,"throttled":3,"hottest":900},{"t":10,"consumed":5,"demand":5,"limit":4000}]}],"heatmaps":[{"table":"T","index":"I","direction":"write","partitions":["c000-dfff","0-1"],"cells":[[1.3,0.2],[0.1,0.5]]}],"throttled":{"requests":3,"reasons":{"IndexWriteKeyRangeThroughputExceeded":3}},"firstLimitHit":[{"table":"T","second":4,"keys":["k"]}],"advice":{"warm":[{"table":"T","write":400}],"shards":[{"index":"I","declared":1,"noThrottle":3}]},"verdict":{"throttled":true,"summary":"s"}}`))
	f.Add([]byte(`{"resources":[{"table":"T","read":[{"t":1,"demand":2}]}],"heatmaps":[{"partitions":["p"],"cells":[[5]]}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ReadPlan("f.json", in)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "f.json"), err.Error())
			return
		}
		render(t, &Report{Plan: p, PlanFrom: "f.json"})
	})
}

func FuzzReadBudget(f *testing.F) {
	f.Add([]byte(`{"results":[{"operation":"A","variant":"v","measured":{"wru":1,"rru":2},"budget":{"wru":1}}]}`))
	f.Add([]byte(`{"results":[]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := ReadBudget("f.json", in)
		if err != nil {
			return
		}
		render(t, &Report{Budget: b, BudgetFrom: "f.json"})
	})
}

var fuzzSide *Side

// SideOf loads a model and works out its static results as the report
// command does; the external tests set it (reports/collect imports this
// package).
var SideOf func(path string) (*Side, error)

// render writes a report of the orders example with r's results, and
// checks it is one document.
func render(t *testing.T, r *Report) {
	t.Helper()
	if fuzzSide == nil {
		s, err := SideOf(models[1])
		require.NoError(t, err)
		fuzzSide = s
	}
	r.Side = *fuzzSide
	var b bytes.Buffer
	require.NoError(t, r.Write(&b))
	assert.True(t, strings.HasSuffix(b.String(), "</html>\n"))
	assert.NotContains(t, b.String(), "NaN")
	assert.NotContains(t, b.String(), "Inf")
}
