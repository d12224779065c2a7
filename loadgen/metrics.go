package loadgen

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cardapio/cardapio/executor"
)

// Latencies are recorded in microseconds, from 1 µs to 1 hour, with three
// significant digits (HdrHistogram): percentiles within 0.1%, a fixed
// memory footprint, and histograms of parts that merge exactly.
const (
	histLowest  = 1
	histHighest = int64(time.Hour / time.Microsecond)
	histDigits  = 3
)

func newHist() *hdr.Histogram { return hdr.New(histLowest, histHighest, histDigits) }

// Outcome kinds of the summary, beyond the executor's (applied,
// already-applied, limit-reached, version-conflict, not-found, throttled,
// transaction-conflict, error..., and a plain failed condition by its
// meaning: executor.Outcome.Label).
const (
	// A cancelled transaction's throttled action carries a code
	// (ThrottlingError, ProvisionedThroughputExceeded) and a message, no
	// ThrottlingReasons: its throttle is counted by what the message
	// names. The reason is what throttled it, as AWS's reasons are, so
	// that "throttled by" reads once before it.
	TxnIndexThrottled = "a global secondary index, in a transaction"
	TxnTableThrottled = "the table, in a transaction"

	OutcomeSkipped     = "skipped"     // the subject no longer met its selection when read again
	OutcomeInterrupted = "interrupted" // the run stopped before the arrival finished
	OutcomeUnmatched   = "unmatched"   // no variant of the mix matched the arrival's context
)

// loadStats are one load's figures, cumulative and for the current
// interval (the JSON-lines second). Safe for concurrent use.
type loadStats struct {
	mu        sync.Mutex
	name      string
	offered   int64
	attempted int64
	completed int64
	late      int64
	retried   int64 // re-read and run again (a declared retry)
	rereads   int64 // requests spent reading the context again
	dead      int64 // dead-lettered
	replayed  int64
	dups      int64 // duplicates sent
	outcomes  map[string]int64
	throttles map[string]int64
	requests  map[string]int64 // by step kind
	hist      *hdr.Histogram
	behind    *hdr.Histogram // how late arrivals started, µs of wall time
	interval  *hdr.Histogram
	iv        intervalCounts
	// units consumed by table and index, per second of the scenario clock.
	units map[string]*unitSeries
}

// intervalCounts are what changed during the current interval.
type intervalCounts struct {
	offered, attempted, completed, late, dead int64
	outcomes                                  map[string]int64
	// units consumed by table and index during the interval.
	units map[string]*SecondUnits
}

func newIntervalCounts() intervalCounts {
	return intervalCounts{outcomes: map[string]int64{}, units: map[string]*SecondUnits{}}
}

// addSecondUnits adds what a table or index consumed to an interval's figures.
func addSecondUnits(m map[string]*SecondUnits, name string, r, w float64, index bool) {
	u := m[name]
	if u == nil {
		u = &SecondUnits{Index: index}
		m[name] = u
	}
	u.Read += r
	u.Write += w
}

func newLoadStats(name string) *loadStats {
	return &loadStats{name: name, outcomes: map[string]int64{}, throttles: map[string]int64{}, requests: map[string]int64{},
		hist: newHist(), behind: newHist(), interval: newHist(), iv: newIntervalCounts(), units: map[string]*unitSeries{}}
}

func (s *loadStats) offer(n int64) {
	s.mu.Lock()
	s.offered += n
	s.iv.offered += n
	s.mu.Unlock()
}

// start records an arrival that started, late by behind (wall time).
func (s *loadStats) start(behind time.Duration, late bool) {
	s.mu.Lock()
	s.attempted++
	s.iv.attempted++
	if late {
		s.late++
		s.iv.late++
	}
	if behind > 0 {
		_ = s.behind.RecordValue(clampMicros(behind))
	}
	s.mu.Unlock()
}

// unreasoned names a throttle that came without ThrottlingReasons.
func unreasoned(msg string) string {
	if strings.Contains(msg, "global secondary index") {
		return TxnIndexThrottled
	}
	return TxnTableThrottled
}

func clampMicros(d time.Duration) int64 {
	us := d.Microseconds()
	if us < histLowest {
		us = histLowest
	}
	if us > histHighest {
		us = histHighest
	}
	return us
}

// finish records an arrival's end: its outcome kind, latency, what it
// consumed (at the scenario second it ended in) and its requests.
func (s *loadStats) finish(kind string, latency time.Duration, res *executor.Result, second int64, completed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if completed {
		s.completed++
		s.iv.completed++
		us := clampMicros(latency)
		_ = s.hist.RecordValue(us)
		_ = s.interval.RecordValue(us)
	}
	s.outcomes[kind]++
	s.iv.outcomes[kind]++
	if res == nil {
		return
	}
	for _, t := range res.Outcome.Throttling {
		s.throttles[t.Reason]++
	}
	if res.Outcome.Kind == executor.Throttled && len(res.Outcome.Throttling) == 0 {
		s.throttles[unreasoned(res.Outcome.Message)]++
	}
	for _, st := range res.Steps {
		s.requests[string(st.Kind)] += int64(st.Requests)
	}
	for t, c := range res.Capacity.Tables {
		s.unitsOf(t).add(second, c.Read, c.Write, false)
		addSecondUnits(s.iv.units, t, c.Read, c.Write, false)
	}
	for x, c := range res.Capacity.Indexes {
		s.unitsOf(x).add(second, c.Read, c.Write, true)
		addSecondUnits(s.iv.units, x, c.Read, c.Write, true)
	}
}

func (s *loadStats) unitsOf(name string) *unitSeries {
	u := s.units[name]
	if u == nil {
		u = &unitSeries{perSecond: map[int64][2]float64{}}
		s.units[name] = u
	}
	return u
}

func (s *loadStats) deadLetter() {
	s.mu.Lock()
	s.dead++
	s.iv.dead++
	s.mu.Unlock()
}

func (s *loadStats) add(f *int64) {
	s.mu.Lock()
	*f++
	s.mu.Unlock()
}

// unitSeries is the units one table or index consumed, per scenario
// second.
type unitSeries struct {
	index     bool
	read      float64
	write     float64
	perSecond map[int64][2]float64
}

func (u *unitSeries) add(second int64, r, w float64, index bool) {
	u.index = index
	u.read += r
	u.write += w
	p := u.perSecond[second]
	p[0] += r
	p[1] += w
	u.perSecond[second] = p
}

// peak is the highest per-second read and write units.
func (u *unitSeries) peak() (r, w float64) {
	for _, p := range u.perSecond {
		r, w = max(r, p[0]), max(w, p[1])
	}
	return r, w
}

// Latency is a histogram's summary, in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

func latencyOf(h *hdr.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{P50: ms(h.ValueAtPercentile(50)), P90: ms(h.ValueAtPercentile(90)), P99: ms(h.ValueAtPercentile(99)),
		P999: ms(h.ValueAtPercentile(99.9)), Max: ms(h.Max())}
}

// encodeHist writes a histogram in HdrHistogram's compressed, base64
// form (the one its log files use).
func encodeHist(h *hdr.Histogram) string {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// decodeHist reads encodeHist's form.
func decodeHist(s string) (*hdr.Histogram, error) {
	if s == "" {
		return newHist(), nil
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
