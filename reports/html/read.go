package html

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/internal/jsonpos"
)

// Result files come from other runs, other machines, or a mistake on the
// command line: each reader caps what it takes, checks what it draws
// (finite, not negative), and names the file, line and column of the
// first thing wrong.

// ReadBudget reads a report of cardapio budget (--format json,
// --write-baseline), with the checks of a baseline.
func ReadBudget(name string, data []byte) (*budget.Report, error) {
	if err := notJSONLines(name, data, "a report of cardapio budget"); err != nil {
		return nil, err
	}
	return budget.ReadBaseline(name, bytes.NewReader(data))
}

// notJSONLines refuses a file of several JSON documents (a load's
// results given as --budget) before a decoder's less helpful words.
func notJSONLines(name string, data []byte, what string) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not UTF-8 text: not %s", name, what)
	}
	return nil
}

// lineError positions a decoding error of line n of a JSON-lines file,
// b, as "name:n:column: message".
func lineError(name string, n int, b []byte, err error) error {
	e := jsonpos.Wrap(name, b, err).Error()
	if rest, ok := strings.CutPrefix(e, name+":1:"); ok {
		return fmt.Errorf("%s:%d:%s", name, n, rest)
	}
	if rest, ok := strings.CutPrefix(e, name+": "); ok {
		return fmt.Errorf("%s:%d: %s", name, n, rest)
	}
	return errors.New(e)
}

// MaxLoadBytes caps a load run's results file: a day at one line a
// second, with a few dozen loads, is well under it.
const MaxLoadBytes = 512 << 20

// maxLoadLine caps one line of it.
const maxLoadLine = 4 << 20

// maxPoints is the most points a timeline keeps: longer runs are drawn
// at a coarser step (two seconds a point, then four...), so memory does
// not grow with the run.
const maxPoints = 1200

// Load is what a report draws from a load run's results: its start, its
// seconds as timelines, and its summary.
type Load struct {
	Scenario string
	Model    string
	Target   string
	Scale    float64
	// Seconds is how many second lines the file holds; Step how many of
	// them each point of the timelines covers.
	Seconds  int
	Step     int
	Clocks   []string // the scenario clock at each point
	Span     []int    // the seconds each point covers
	Loads    []string // the loads, by name
	Timeline []map[string]*Point
	Summary  *LoadSummary
}

// Point is one load's figures over one step of the timeline.
type Point struct {
	Offered, Completed, Throttled float64 // summed over the step's seconds
	// P50 and P99 are the highest latency percentiles of the step's
	// seconds, in milliseconds.
	P50, P99 float64
}

// The shapes of the results file, as the load generator writes them:
// a "start" line, one "second" line per second of wall time, then a
// "summary" line.
type loadLine struct {
	Type     string                 `json:"type"`
	Scenario string                 `json:"scenario"`
	Model    string                 `json:"model"`
	Target   string                 `json:"target"`
	Scale    float64                `json:"scale"`
	Clock    string                 `json:"clock"`
	Loads    map[string]*secondLoad `json:"loads"`
	OK       *bool                  `json:"ok"`
	Ops      map[string]*LoadStats  `json:"operations"`
	Throttle map[string]int64       `json:"throttles"`
	Units    map[string]LoadUnits   `json:"units"`
	Parts    []HotPartition         `json:"partitions"`
	Invars   []LoadInvariant        `json:"invariants"`
	Expects  []json.RawMessage      `json:"expectations"`
}

type secondLoad struct {
	Offered   float64          `json:"offered"`
	Completed float64          `json:"completed"`
	Outcomes  map[string]int64 `json:"outcomes"`
	LatencyMs Latency          `json:"latencyMs"`
}

// Latency is a load's latency percentiles, in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// LoadStats are one load's totals in the summary.
type LoadStats struct {
	Operation string           `json:"operation"`
	Offered   int64            `json:"offered"`
	Completed int64            `json:"completed"`
	Outcomes  map[string]int64 `json:"outcomes"`
	Throttles map[string]int64 `json:"throttles"`
	LatencyMs Latency          `json:"latencyMs"`
}

// LoadUnits are what one table or index consumed in a load run.
type LoadUnits struct {
	Index        bool    `json:"index"`
	Read         float64 `json:"read"`
	Write        float64 `json:"write"`
	PeakReadAWS  float64 `json:"peakReadPerSecondAtFullScale"`
	PeakWriteAWS float64 `json:"peakWritePerSecondAtFullScale"`
}

// HotPartition is one of a load run's hottest partitions.
type HotPartition struct {
	Table          string   `json:"table"`
	Index          string   `json:"index"`
	WriteDemand    float64  `json:"writeDemandPerSecond"`
	ReadDemand     float64  `json:"readDemandPerSecond"`
	WriteThrottled float64  `json:"writeThrottled"`
	ReadThrottled  float64  `json:"readThrottled"`
	Keys           []string `json:"keys"`
}

// LoadInvariant is one invariant's verdict.
type LoadInvariant struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Checked     int64  `json:"checked"`
	Violations  int64  `json:"violations"`
}

// LoadSummary is the summary line of a load run.
type LoadSummary struct {
	OK         bool
	Operations map[string]*LoadStats
	Throttles  map[string]int64
	Units      map[string]LoadUnits
	Partitions []HotPartition
	Invariants []LoadInvariant
}

// ReadLoad reads a load run's results file: JSON lines, a start line,
// second lines, and a summary line (absent when the run was cut short:
// the seconds are drawn, the summary is said to be missing).
func ReadLoad(name string, r io.Reader) (*Load, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxLoadBytes+1))
	sc.Buffer(make([]byte, 0, 64<<10), maxLoadLine)
	l := &Load{Step: 1}
	loads := map[string]bool{}
	n, total := 0, 0
	started := false
	for sc.Scan() {
		n++
		b := sc.Bytes()
		total += len(b) + 1
		if total > MaxLoadBytes {
			return nil, fmt.Errorf("%s: larger than %d MiB: not a load run's results", name, MaxLoadBytes>>20)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("%s:%d: not UTF-8 text: not a load run's results", name, n)
		}
		var ln loadLine
		if err := json.Unmarshal(b, &ln); err != nil {
			return nil, lineError(name, n, b, err)
		}
		if !started && ln.Type != "start" {
			return nil, fmt.Errorf("%s:%d:1: the first line should be the run's start ({\"type\":\"start\",...}), not %q: not a load run's results", name, n, ln.Type)
		}
		if l.Summary != nil {
			return nil, fmt.Errorf("%s:%d:1: a line after the summary", name, n)
		}
		switch ln.Type {
		case "start":
			if started {
				return nil, fmt.Errorf("%s:%d:1: a second start line: two runs in one file?", name, n)
			}
			started = true
			l.Scenario, l.Model, l.Target, l.Scale = ln.Scenario, ln.Model, ln.Target, ln.Scale
		case "second":
			p := map[string]*Point{}
			for k, s := range ln.Loads {
				if s == nil {
					continue
				}
				if err := finite(s.Offered, s.Completed, s.LatencyMs.P50, s.LatencyMs.P99); err != nil {
					return nil, fmt.Errorf("%s:%d:1: load %s: %v", name, n, k, err)
				}
				th := float64(s.Outcomes["throttled"])
				if th < 0 {
					return nil, fmt.Errorf("%s:%d:1: load %s: negative throttles", name, n, k)
				}
				p[k] = &Point{Offered: s.Offered, Completed: s.Completed, Throttled: th, P50: s.LatencyMs.P50, P99: s.LatencyMs.P99}
				if !loads[k] {
					if len(loads) >= maxSeries {
						return nil, fmt.Errorf("%s:%d:1: more than %d loads", name, n, maxSeries)
					}
					loads[k] = true
				}
			}
			l.add(ln.Clock, p)
		case "summary":
			s := &LoadSummary{Operations: ln.Ops, Throttles: ln.Throttle, Units: ln.Units, Partitions: ln.Parts, Invariants: ln.Invars}
			if ln.OK != nil {
				s.OK = *ln.OK
			}
			for k, u := range s.Units {
				if err := finite(u.Read, u.Write, u.PeakReadAWS, u.PeakWriteAWS); err != nil {
					return nil, fmt.Errorf("%s:%d:1: units of %s: %v", name, n, k, err)
				}
			}
			for k, v := range s.Throttles {
				if v < 0 {
					return nil, fmt.Errorf("%s:%d:1: throttles %s: negative", name, n, k)
				}
			}
			for i, p := range s.Partitions {
				if err := finite(p.WriteDemand, p.ReadDemand, p.WriteThrottled, p.ReadThrottled); err != nil {
					return nil, fmt.Errorf("%s:%d:1: partitions[%d]: %v", name, n, i, err)
				}
			}
			l.Summary = s
		default:
			return nil, fmt.Errorf("%s:%d:1: unknown line type %q (start, second or summary)", name, n, ln.Type)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d MiB: not a load run's results", name, n+1, maxLoadLine>>20)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !started {
		return nil, fmt.Errorf("%s: empty: not a load run's results", name)
	}
	for k := range loads {
		l.Loads = append(l.Loads, k)
	}
	sort.Strings(l.Loads)
	return l, nil
}

// maxSeries caps the loads (and structures) a file may name.
const maxSeries = 1000

// add appends one second to the timeline, halving its resolution when it
// grows past maxPoints.
func (l *Load) add(clock string, p map[string]*Point) {
	l.Seconds++
	if n := len(l.Timeline); n > 0 && l.Span[n-1] < l.Step {
		merge(l.Timeline[n-1], p)
		l.Span[n-1]++
		return
	}
	if len(l.Timeline) == maxPoints {
		// Every point is full: pairs make points of twice the step.
		for i := 0; i < maxPoints/2; i++ {
			a := l.Timeline[2*i]
			merge(a, l.Timeline[2*i+1])
			l.Timeline[i], l.Clocks[i], l.Span[i] = a, l.Clocks[2*i], l.Span[2*i]+l.Span[2*i+1]
		}
		l.Timeline, l.Clocks, l.Span = l.Timeline[:maxPoints/2], l.Clocks[:maxPoints/2], l.Span[:maxPoints/2]
		l.Step *= 2
	}
	l.Timeline = append(l.Timeline, p)
	l.Clocks = append(l.Clocks, clock)
	l.Span = append(l.Span, 1)
}

// merge adds b's seconds into a: rates are summed (divided by seconds
// when read), percentiles keep the highest.
func merge(a, b map[string]*Point) {
	for k, q := range b {
		p := a[k]
		if p == nil {
			a[k] = q
			continue
		}
		p.Offered += q.Offered
		p.Completed += q.Completed
		p.Throttled += q.Throttled
		p.P50 = max(p.P50, q.P50)
		p.P99 = max(p.P99, q.P99)
	}
}

// finite checks figures a chart draws.
func finite(vs ...float64) error {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%v is not a finite figure of at least 0", v)
		}
	}
	return nil
}
