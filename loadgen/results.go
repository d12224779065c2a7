package loadgen

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/cardapio/cardapio/internal/digits"
)

// Summary is a run's report: what was offered, attempted and completed
// per load, the outcomes, latencies, throttling, dead letters, units,
// the hottest partitions, the invariants and the expectations. It is the
// last line of the results file and the document of --summary.
type Summary struct {
	OK       bool   `json:"ok"`
	Scenario string `json:"scenario"`
	Model    string `json:"model"`
	File     string `json:"file,omitempty"`
	Part     int    `json:"part"`
	Parts    int    `json:"parts"`
	// Merged is how many parts' results `load merge` combined (0: one
	// run's own).
	Merged int     `json:"merged,omitempty"`
	Scale  float64 `json:"scale"`
	// Population is the population's scale when it is smaller than
	// Scale.
	PopulationScale float64 `json:"populationScale,omitempty"`
	// Crowded is, by model table, how much more than at full scale each
	// subject of a random pick carries on that table's partitions: a
	// population smaller than the run's scale draws its fewer subjects
	// more often (--scale over --population). Partition figures of those
	// tables read up to that much hotter than full scale would.
	Crowded map[string]float64 `json:"crowded,omitempty"`
	// Speed is how much faster than real time the scenario clock ran; 0
	// is as fast as the target answers.
	Speed      float64 `json:"speed"`
	Seed       uint64  `json:"seed"`
	AsOf       string  `json:"asOf"`
	ClockStart string  `json:"clockStart"`
	ClockEnd   string  `json:"clockEnd"`
	Target     string  `json:"target"`
	// Tables are the names the run's tables had on the target (model
	// table -> name): where cardapio load check finds them when the run
	// kept them (--keep).
	Tables       map[string]string `json:"tables,omitempty"`
	Retry        string            `json:"retry"`
	Keys         string            `json:"keys,omitempty"`
	Throughput   string            `json:"throughput,omitempty"`
	Interrupted  bool              `json:"interrupted,omitempty"`
	WallSeconds  float64           `json:"wallSeconds"`
	SetupSeconds float64           `json:"setupSeconds"`
	// RunSeconds is the wall time from the first arrival's schedule to
	// the last arrival's end (the population's load and the invariants'
	// check excluded).
	RunSeconds float64 `json:"runSeconds"`

	Behind     Behind                `json:"behind"`
	Operations map[string]*LoadStats `json:"operations"`
	Throttles  map[string]int64      `json:"throttles"`
	// DeadLettered counts the messages that reached the dead-letter
	// ledger; Replayed those replayed. DeadLetters lists the first
	// deadSample (100) a run dead-lettered, sorted by load and arrival
	// (a merge: each part's), and DeadLetterLines counts the others, which
	// the results file lists on its "deadLetters" lines: a run's summary
	// stays small whatever it dead-letters.
	DeadLettered    int64             `json:"deadLettered"`
	Replayed        int64             `json:"replayed"`
	DeadLetters     []deadLetter      `json:"deadLetters,omitempty"`
	DeadLetterLines int64             `json:"deadLetterLines,omitempty"`
	Units           map[string]Units  `json:"units"`
	Partitions      []HotPartition    `json:"partitions,omitempty"`
	Population      PopulationStats   `json:"population"`
	Invariants      []InvariantResult `json:"invariants"`
	Expectations    []ExpectResult    `json:"expectations"`
	Notes           []string          `json:"notes,omitempty"`

	// Histograms are the latency histograms per load (HdrHistogram's
	// compressed base64), so that parts merge exactly.
	Histograms map[string]string `json:"histograms,omitempty"`
	// Groups are the partial sums of join invariants, kept only when the
	// run is one part of several (merge completes them).
	Groups map[string]map[string][3]float64 `json:"groups,omitempty"`
}

// Behind says whether the generator kept to its schedule.
type Behind struct {
	Late  int64   `json:"late"`
	MaxMs float64 `json:"maxMs"`
	P99Ms float64 `json:"p99Ms"`
	// LimitMs is --max-behind; Exceeded says the run fell further behind
	// than that, and fails.
	LimitMs  float64 `json:"limitMs,omitempty"`
	Exceeded bool    `json:"exceeded,omitempty"`
}

// LoadStats are one load's figures in the summary.
type LoadStats struct {
	Operation    string           `json:"operation"`
	Offered      int64            `json:"offered"`
	Attempted    int64            `json:"attempted"`
	Completed    int64            `json:"completed"`
	Late         int64            `json:"late"`
	Retried      int64            `json:"retried,omitempty"`
	Rereads      int64            `json:"rereads,omitempty"`
	Duplicates   int64            `json:"duplicates,omitempty"`
	DeadLettered int64            `json:"deadLettered,omitempty"`
	Replayed     int64            `json:"replayed,omitempty"`
	Outcomes     map[string]int64 `json:"outcomes"`
	Throttles    map[string]int64 `json:"throttles,omitempty"`
	Requests     map[string]int64 `json:"requests,omitempty"`
	LatencyMs    Latency          `json:"latencyMs"`
	BehindMs     Latency          `json:"behindMs"`
	Units        map[string]Units `json:"units,omitempty"`
}

// Units are what one table or index consumed: in total, and the highest
// second, local units and (divided by the scale) AWS's.
type Units struct {
	Index        bool    `json:"index,omitempty"`
	Read         float64 `json:"read"`
	Write        float64 `json:"write"`
	PeakRead     float64 `json:"peakReadPerSecond"`
	PeakWrite    float64 `json:"peakWritePerSecond"`
	PeakReadAWS  float64 `json:"peakReadPerSecondAtFullScale"`
	PeakWriteAWS float64 `json:"peakWritePerSecondAtFullScale"`
}

// HotPartition is one of the hottest partitions of a table or index.
type HotPartition struct {
	Table string `json:"table"`
	Index string `json:"index,omitempty"`
	// Demand is the most units a second the partition was asked for
	// (consumed plus throttled), at full scale (local units over the
	// scale), against its cap.
	WriteDemand    float64  `json:"writeDemandPerSecond"`
	ReadDemand     float64  `json:"readDemandPerSecond"`
	WriteThrottled float64  `json:"writeThrottled"`
	ReadThrottled  float64  `json:"readThrottled"`
	Keys           []string `json:"keys,omitempty"`
	// From says where the figure comes from: the engine's throughput
	// model, or the throttling reasons the target returned.
	From      string `json:"from"`
	Throttles int64  `json:"throttles,omitempty"`
	// Crowded is the table's Summary.Crowded factor: the partition's
	// figures may be up to that much above full scale's (0: none).
	Crowded float64 `json:"crowded,omitempty"`
}

// PopulationStats say what the run loaded and drew from.
type PopulationStats struct {
	Items    int64             `json:"items"`
	ByTable  map[string]int64  `json:"byTable,omitempty"`
	Subjects map[string]int64  `json:"subjects,omitempty"`
	Largest  map[string]string `json:"largest,omitempty"`
	Loaded   bool              `json:"loaded"`
	// Existing says the run wrote nothing: the tables held the
	// population, Verified sampled items of which it read first.
	Existing bool `json:"existing,omitempty"`
	Verified int  `json:"verified,omitempty"`
	// WriteUnits and CostUSD are what writing the population billed
	// (table and indexes, on-demand prices); Requests its batch writes,
	// Throttled those the target throttled or left unprocessed, sent
	// again on the setup's own retries.
	WriteUnits float64 `json:"writeUnits,omitempty"`
	CostUSD    float64 `json:"costUSD,omitempty"`
	Requests   int64   `json:"requests,omitempty"`
	Throttled  int64   `json:"throttled,omitempty"`
}

// InvariantResult is one invariant's verdict.
type InvariantResult struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Checked     int64       `json:"checked"`
	Violations  int64       `json:"violations"`
	Details     []Violation `json:"details,omitempty"`
	// Refused counts the ledger's messages the operation refused by an
	// outcome the model declares a stop (not expected to leave an item).
	Refused int64 `json:"refused,omitempty"`
	// Unchecked, when set, says why the invariant was not checked
	// (cardapio load check without the ledger it reads).
	Unchecked string `json:"unchecked,omitempty"`
	// Pending says the invariant is completed by merge (a join over the
	// parts).
	Pending bool `json:"pending,omitempty"`
}

// Violation is one violation, with the keys of what breaks it.
type Violation struct {
	Keys    string `json:"keys"`
	Message string `json:"message"`
}

// ExpectResult is one expectation's verdict.
type ExpectResult struct {
	Text    string        `json:"text"`
	Applies bool          `json:"applies"`
	Checked bool          `json:"checked"`
	OK      bool          `json:"ok"`
	Checks  []CheckResult `json:"checks,omitempty"`
}

// CheckResult is one check's measure.
type CheckResult struct {
	What  string   `json:"what"`
	Value *float64 `json:"value"`
	Max   *float64 `json:"max,omitempty"`
	Min   *float64 `json:"min,omitempty"`
	OK    bool     `json:"ok"`
	Note  string   `json:"note,omitempty"`
}

// Second is one line of the results stream: what happened during one
// second of wall time.
type Second struct {
	Type  string  `json:"type"`
	Wall  float64 `json:"wall"`
	Clock string  `json:"clock"`
	// ClockSeconds is how far the scenario's clock moved during the
	// line's second (--speed 60: about 60), the time base of the
	// throughput model's rates.
	ClockSeconds float64                `json:"clockSeconds"`
	InFlight     int                    `json:"inflight"`
	Loads        map[string]*SecondLoad `json:"loads"`
	// Units are what each table and index consumed during the second,
	// keyed as the summary's Units.
	Units map[string]*SecondUnits `json:"units"`
}

// SecondUnits are one table's or index's units during one line of the
// results stream. Read and Write are the local units the run's requests
// consumed (as their ConsumedCapacity reported them). Where the target
// is cardapio's engine with its throughput model, the limits are the
// model's table-level rates at the end of the second (local units a
// second of the scenario's clock: provisioned capacity, or the on-demand
// rate it has adapted to) and the throttled figures the units the model
// refused during the second; elsewhere they are left out.
type SecondUnits struct {
	Index          bool     `json:"index"`
	Read           float64  `json:"read"`
	Write          float64  `json:"write"`
	ReadLimit      *float64 `json:"readLimit,omitempty"`
	WriteLimit     *float64 `json:"writeLimit,omitempty"`
	ReadThrottled  *float64 `json:"readThrottled,omitempty"`
	WriteThrottled *float64 `json:"writeThrottled,omitempty"`
}

// SecondLoad is one load's second.
type SecondLoad struct {
	Offered      int64            `json:"offered"`
	Attempted    int64            `json:"attempted"`
	Completed    int64            `json:"completed"`
	Late         int64            `json:"late,omitempty"`
	DeadLettered int64            `json:"deadLettered,omitempty"`
	Outcomes     map[string]int64 `json:"outcomes,omitempty"`
	LatencyMs    Latency          `json:"latencyMs"`
	Hist         string           `json:"hist,omitempty"`
}

// Start is the first line of the results stream.
type Start struct {
	Type     string  `json:"type"`
	Scenario string  `json:"scenario"`
	Model    string  `json:"model"`
	Part     int     `json:"part"`
	Parts    int     `json:"parts"`
	Scale    float64 `json:"scale"`
	Speed    float64 `json:"speed"`
	Target   string  `json:"target"`
	Retry    string  `json:"retry"`
	Started  string  `json:"started"`
}

// stream writes the results file, line by line, flushed as it goes: a
// run that dies keeps what it measured.
type stream struct {
	mu sync.Mutex
	w  *bufio.Writer
	f  interface{ Sync() error }
}

func newStream(w io.Writer) *stream {
	if w == nil {
		return nil
	}
	s := &stream{w: bufio.NewWriter(w)}
	if f, ok := w.(interface{ Sync() error }); ok {
		s.f = f
	}
	return s
}

func (s *stream) write(v any) {
	if s == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(b)
	_ = s.w.WriteByte('\n')
	_ = s.w.Flush()
}

// summaryLine wraps the summary as the stream's last line.
type summaryLine struct {
	Type string `json:"type"`
	*Summary
}

// Judged reports whether anything judged the run: an expectation that
// applied or an invariant. A run that nothing judged passes only in the
// sense that it ran, and its badge says so.
func (s *Summary) Judged() bool {
	if len(s.Invariants) > 0 {
		return true
	}
	for _, x := range s.Expectations {
		if x.Applies {
			return true
		}
	}
	return false
}

// Seen says what the run saw that a verdict alone hides: its throttled
// requests, dead-lettered messages and invariant violations ("1,687
// throttles, 5,852 dead-lettered"); "" when it saw none. A PASS beside
// thousands of throttles then reads as what the expectations allowed,
// not as a quiet run.
func (s *Summary) Seen() string {
	var throttles, violations int64
	for _, n := range s.Throttles {
		throttles += n
	}
	for _, v := range s.Invariants {
		violations += v.Violations
	}
	var parts []string
	if throttles > 0 {
		parts = append(parts, digits.Count(throttles, "throttle"))
	}
	if s.DeadLettered > 0 {
		parts = append(parts, digits.Group(strconv.FormatInt(s.DeadLettered, 10))+" dead-lettered")
	}
	if violations > 0 {
		parts = append(parts, digits.Count(violations, "invariant violation"))
	}
	if s.Interrupted {
		parts = append(parts, "interrupted")
	}
	return strings.Join(parts, ", ")
}
