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
	"github.com/cardapio/cardapio/loadgen"
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

// Load is what a report draws from a load run's results (the load
// generator's start, second and summary lines, read by its own types):
// its start, its seconds as timelines, and its summary.
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
	// Units are, at each point, what each table and index consumed,
	// refused and was limited to (the second lines' units, by the
	// summary's names); Clock the scenario seconds each point covers,
	// the time base of their rates. Structures names them all.
	Units      []map[string]*UnitPoint
	Clock      []float64
	Structures []string
	// Summary is the run's last line, the load generator's own; nil when
	// the run was cut short.
	Summary *loadgen.Summary
}

// Point is one load's figures over one step of the timeline.
type Point struct {
	Offered, Completed, Throttled float64 // summed over the step's seconds
	// P50 and P99 are the highest latency percentiles of the step's
	// seconds, in milliseconds.
	P50, P99 float64
}

// UnitPoint is one table's or index's units over one step of the
// timeline, local units summed over the step's seconds; the limits are
// the lowest of the step's (local units a second of the scenario's
// clock), NaN where the target gave none.
type UnitPoint struct {
	Index                                      bool
	Read, Write, ReadThrottled, WriteThrottled float64
	ReadLimit, WriteLimit                      float64
}

// ReadLoad reads a load run's results file: JSON lines, a start line,
// second lines, and a summary line (absent when the run was cut short:
// the seconds are drawn, the summary is said to be missing).
func ReadLoad(name string, r io.Reader) (*Load, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxLoadBytes+1))
	sc.Buffer(make([]byte, 0, 64<<10), maxLoadLine)
	l := &Load{Step: 1}
	loads, structures := map[string]bool{}, map[string]bool{}
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
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &kind); err != nil {
			return nil, lineError(name, n, b, err)
		}
		if !started && kind.Type != "start" {
			return nil, fmt.Errorf("%s:%d:1: the first line should be the run's start ({\"type\":\"start\",...}), not %q: not a load run's results", name, n, kind.Type)
		}
		if l.Summary != nil {
			return nil, fmt.Errorf("%s:%d:1: a line after the summary", name, n)
		}
		switch kind.Type {
		case "start":
			if started {
				return nil, fmt.Errorf("%s:%d:1: a second start line: two runs in one file?", name, n)
			}
			var st loadgen.Start
			if err := json.Unmarshal(b, &st); err != nil {
				return nil, lineError(name, n, b, err)
			}
			started = true
			l.Scenario, l.Model, l.Target, l.Scale = st.Scenario, st.Model, st.Target, st.Scale
		case "second":
			var sec loadgen.Second
			if err := json.Unmarshal(b, &sec); err != nil {
				return nil, lineError(name, n, b, err)
			}
			p := map[string]*Point{}
			for k, s := range sec.Loads {
				if s == nil {
					continue
				}
				th := s.Outcomes["throttled"]
				if s.Offered < 0 || s.Completed < 0 || th < 0 {
					return nil, fmt.Errorf("%s:%d:1: load %s: negative counts", name, n, k)
				}
				if err := finite(s.LatencyMs.P50, s.LatencyMs.P99); err != nil {
					return nil, fmt.Errorf("%s:%d:1: load %s: %v", name, n, k, err)
				}
				p[k] = &Point{Offered: float64(s.Offered), Completed: float64(s.Completed), Throttled: float64(th), P50: s.LatencyMs.P50, P99: s.LatencyMs.P99}
				if !loads[k] {
					if len(loads) >= maxSeries {
						return nil, fmt.Errorf("%s:%d:1: more than %d loads", name, n, maxSeries)
					}
					loads[k] = true
				}
			}
			u := map[string]*UnitPoint{}
			for k, su := range sec.Units {
				if su == nil {
					continue
				}
				up := &UnitPoint{Index: su.Index, Read: su.Read, Write: su.Write, ReadLimit: math.NaN(), WriteLimit: math.NaN()}
				if su.ReadThrottled != nil {
					up.ReadThrottled = *su.ReadThrottled
				}
				if su.WriteThrottled != nil {
					up.WriteThrottled = *su.WriteThrottled
				}
				if su.ReadLimit != nil {
					up.ReadLimit = *su.ReadLimit
				}
				if su.WriteLimit != nil {
					up.WriteLimit = *su.WriteLimit
				}
				if err := finite(up.Read, up.Write, up.ReadThrottled, up.WriteThrottled); err != nil {
					return nil, fmt.Errorf("%s:%d:1: units of %s: %v", name, n, k, err)
				}
				for _, lim := range []float64{up.ReadLimit, up.WriteLimit} {
					if !math.IsNaN(lim) {
						if err := finite(lim); err != nil {
							return nil, fmt.Errorf("%s:%d:1: limit of %s: %v", name, n, k, err)
						}
					}
				}
				if !structures[k] {
					if len(structures) >= maxSeries {
						return nil, fmt.Errorf("%s:%d:1: more than %d tables and indexes", name, n, maxSeries)
					}
					structures[k] = true
				}
				u[k] = up
			}
			if err := finite(sec.ClockSeconds); err != nil {
				return nil, fmt.Errorf("%s:%d:1: clockSeconds: %v", name, n, err)
			}
			l.add(sec.Clock, p, u, sec.ClockSeconds)
		case "summary":
			var s loadgen.Summary
			if err := json.Unmarshal(b, &s); err != nil {
				return nil, lineError(name, n, b, err)
			}
			if err := checkSummary(&s); err != nil {
				return nil, fmt.Errorf("%s:%d:1: %v", name, n, err)
			}
			l.Summary = &s
		case "ledger":
			// The run's ledger, for cardapio load check: nothing the
			// report draws.
		default:
			return nil, fmt.Errorf("%s:%d:1: unknown line type %q (start, second, ledger or summary)", name, n, kind.Type)
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
	for k := range structures {
		l.Structures = append(l.Structures, k)
	}
	sort.Strings(l.Structures)
	return l, nil
}

// checkSummary checks the figures of a load run's summary the report
// draws, and drops loads without figures.
func checkSummary(s *loadgen.Summary) error {
	for k, u := range s.Units {
		if err := finite(u.Read, u.Write, u.PeakReadAWS, u.PeakWriteAWS); err != nil {
			return fmt.Errorf("units of %s: %v", k, err)
		}
	}
	for k, v := range s.Throttles {
		if v < 0 {
			return fmt.Errorf("throttles %s: negative", k)
		}
	}
	for i, p := range s.Partitions {
		if err := finite(p.WriteDemand, p.ReadDemand, p.WriteThrottled, p.ReadThrottled); err != nil {
			return fmt.Errorf("partitions[%d]: %v", i, err)
		}
	}
	for k, o := range s.Operations {
		if o == nil {
			delete(s.Operations, k)
			continue
		}
		if o.Offered < 0 || o.Completed < 0 {
			return fmt.Errorf("operations.%s: negative counts", k)
		}
		if err := finite(o.LatencyMs.P50, o.LatencyMs.P90, o.LatencyMs.P99, o.LatencyMs.P999, o.LatencyMs.Max); err != nil {
			return fmt.Errorf("operations.%s: %v", k, err)
		}
	}
	return nil
}

// maxSeries caps the loads (and structures) a file may name.
const maxSeries = 1000

// add appends one second to the timeline, halving its resolution when it
// grows past maxPoints.
func (l *Load) add(clock string, p map[string]*Point, u map[string]*UnitPoint, secs float64) {
	l.Seconds++
	if n := len(l.Timeline); n > 0 && l.Span[n-1] < l.Step {
		merge(l.Timeline[n-1], p)
		mergeUnits(l.Units[n-1], u)
		l.Clock[n-1] += secs
		l.Span[n-1]++
		return
	}
	if len(l.Timeline) == maxPoints {
		// Every point is full: pairs make points of twice the step.
		for i := 0; i < maxPoints/2; i++ {
			a, au := l.Timeline[2*i], l.Units[2*i]
			merge(a, l.Timeline[2*i+1])
			mergeUnits(au, l.Units[2*i+1])
			l.Timeline[i], l.Units[i], l.Clocks[i], l.Span[i] = a, au, l.Clocks[2*i], l.Span[2*i]+l.Span[2*i+1]
			l.Clock[i] = l.Clock[2*i] + l.Clock[2*i+1]
		}
		h := maxPoints / 2
		l.Timeline, l.Units, l.Clocks, l.Span, l.Clock = l.Timeline[:h], l.Units[:h], l.Clocks[:h], l.Span[:h], l.Clock[:h]
		l.Step *= 2
	}
	l.Timeline = append(l.Timeline, p)
	l.Units = append(l.Units, u)
	l.Clock = append(l.Clock, secs)
	l.Clocks = append(l.Clocks, clock)
	l.Span = append(l.Span, 1)
}

// mergeUnits adds b's seconds into a: units are summed, limits keep the
// lowest.
func mergeUnits(a, b map[string]*UnitPoint) {
	low := func(x, y float64) float64 {
		if math.IsNaN(x) {
			return y
		}
		if math.IsNaN(y) {
			return x
		}
		return min(x, y)
	}
	for k, q := range b {
		p := a[k]
		if p == nil {
			a[k] = q
			continue
		}
		p.Read += q.Read
		p.Write += q.Write
		p.ReadThrottled += q.ReadThrottled
		p.WriteThrottled += q.WriteThrottled
		p.ReadLimit, p.WriteLimit = low(p.ReadLimit, q.ReadLimit), low(p.WriteLimit, q.WriteLimit)
	}
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
