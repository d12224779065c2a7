package catalog

import (
	"regexp/syntax"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// The executable side of scenarios and the model's invariants: what the
// load generator replays and what it proves on the data afterwards. The
// format is declarative and generic: a load names an operation of the
// model, how its arrivals spread over time, which items of the synthetic
// population they are about, where each parameter's value comes from and
// which budget variant each arrival runs; an invariant names entities,
// attributes and expressions. Nothing here, nor in the load generator,
// knows a model's names.

// Shape is how a load's arrivals spread over its span: a piecewise-linear
// rate over time since the load's start, in arrivals a second (a step is
// two points at the same instant). The integral over the span is the
// load's count.
type Shape struct {
	// Kind is what the model wrote: even, trapezoid (peakPerSecond),
	// ramp, points, steps, bursts or curve.
	Kind   string
	Points []RatePoint
}

// RatePoint is the rate at one instant of a shape.
type RatePoint struct {
	At        time.Duration
	PerSecond float64
}

// Span is the time from the first to the last point.
func (s *Shape) Span() time.Duration {
	if s == nil || len(s.Points) == 0 {
		return 0
	}
	return s.Points[len(s.Points)-1].At - s.Points[0].At
}

// Count is the number of arrivals the shape makes: its integral.
func (s *Shape) Count() float64 {
	if s == nil {
		return 0
	}
	n := 0.0
	for i := 1; i < len(s.Points); i++ {
		a, b := s.Points[i-1], s.Points[i]
		n += (a.PerSecond + b.PerSecond) / 2 * (b.At - a.At).Seconds()
	}
	return n
}

// Peak is the highest rate of the shape.
func (s *Shape) Peak() float64 {
	p := 0.0
	if s != nil {
		for _, pt := range s.Points {
			p = max(p, pt.PerSecond)
		}
	}
	return p
}

// Scaled returns the shape with every rate multiplied by f.
func (s *Shape) Scaled(f float64) *Shape {
	out := &Shape{Kind: s.Kind, Points: make([]RatePoint, len(s.Points))}
	for i, pt := range s.Points {
		out.Points[i] = RatePoint{pt.At, pt.PerSecond * f}
	}
	return out
}

// Subjects are the items of the synthetic population a load's arrivals
// are about: one (or, with PickRandom, any) item of Entity that meets
// Where and When. Each arrival's context holds the subject, its ancestors
// in the population and the items of the same tree whose keys the
// subject's attributes give.
type Subjects struct {
	Entity *Entity
	// Where restricts the subject's own attributes; Largest lists the
	// attributes that must hold their most frequent value (focus:
	// largest), found in the population as loaded.
	Where   []Condition
	Largest []string
	// When is a condition over the context (ENTITY.attribute paths).
	When *Expr
	// Pick is each (every subject at most once, in a random order: the
	// default) or random (drawn with replacement).
	Pick string
}

// Picks.
const (
	PickEach   = "each"
	PickRandom = "random"
)

// Follows makes a load's arrivals the consequence of another load's:
// one per completed arrival of Load (Each arrival), or one per item its
// reads returned (Each item), After later on the scenario clock.
type Follows struct {
	Load  string
	Each  string
	After time.Duration
	// Outcome restricts the causes: ok (the default: applied or a
	// declared success), applied, or any.
	Outcome string
	// Entity is the entity of the items read (Each item), the context
	// name they take.
	Entity *Entity
}

// Follow kinds.
const (
	EachArrival = "arrival"
	EachItem    = "item"
)

// MixEntry is one way an arrival can run: a budget variant, chosen for
// the arrivals whose context meets When (the first entry that matches
// wins) or, among the entries without When, by Share; Params override
// the load's.
type MixEntry struct {
	Variant string
	Share   float64
	When    *Expr
	Params  []*Source
}

// Duplicates replays a share of a load's arrivals as duplicates of
// themselves (a provider resending a webhook), After later.
type Duplicates struct {
	Share float64
	After time.Duration
}

// DeadLetter says when the messages whose retries ran out are replayed:
// at a clock time (ReplayAt, an offset from the scenario day's midnight)
// or After the failure; nil Rate replays them as fast as they go.
type DeadLetter struct {
	ReplayAt *time.Duration
	After    time.Duration
	Rate     float64 // replays a second, 0: unpaced
}

// LoadPlan is the executable part of a load: everything the load
// generator needs beyond the operation and its rate.
type LoadPlan struct {
	// Start is when the load starts, since the scenario day's midnight.
	Start time.Duration
	// Shape spreads the count; nil for a load that follows another.
	Shape *Shape
	// Duration is the span of a rate given without a window.
	Subjects   *Subjects
	Follows    *Follows
	Mix        []MixEntry
	Params     []*Source // sorted by parameter
	Duplicates *Duplicates
	DeadLetter *DeadLetter
	// Retries is how many times an arrival whose failure the model
	// declares retry is re-read and run again before it is dead-lettered.
	Retries int
	// Cap is the most arrivals a load that follows another makes (its
	// count), 0: no cap.
	Cap float64
	// Spacing is, for a load that follows another with a count and a
	// window, the mean time between its arrivals (window / count): the
	// follow-ups of one cause (the items of one page) are spread at that
	// pace, as the workers that take them would, instead of all starting
	// at the instant their page came back. 0: no pacing.
	Spacing time.Duration
}

// SourceKind is where a parameter's value comes from.
type SourceKind string

// Source kinds.
const (
	SourceValue    SourceKind = "value"    // a constant
	SourceCopy     SourceKind = "copy"     // a path of the context
	SourceExpr     SourceKind = "expr"     // an update-expression operand over the context (a + b, a - b, if_not_exists, list_append)
	SourceDate     SourceKind = "date"     // a date or instant shifted (clock, asOf or a path)
	SourceUnique   SourceKind = "unique"   // a value no other arrival has, within the attribute's domain
	SourceMap      SourceKind = "map"      // a path's value looked up in a table
	SourceOneOf    SourceKind = "oneOf"    // one of several constants, by weight
	SourceSequence SourceKind = "sequence" // the arrival's number modulo Modulo, plus From
	SourceShards   SourceKind = "shards"   // the shard values of an index, in turn
	SourceSpread   SourceKind = "spread"   // an attribute's values in proportion to the population's
	SourceTemplate SourceKind = "template" // text rendered from paths of the context
	SourceComputed SourceKind = "computed" // the attribute's computation over the other values
	SourceSample   SourceKind = "sample"   // the parameter's sample
	SourceClock    SourceKind = "clock"    // the scenario clock, in the attribute's format
)

// Source is how one parameter gets its value, for each arrival.
type Source struct {
	Param *Param
	Kind  SourceKind
	// Explicit is false for a source the load generator chose because
	// the load names none (reported with the run).
	Explicit bool
	Value    attr.Value   // value
	Path     *Path        // copy, map, date (nil: the clock)
	Expr     *Expr        // expr: SET of the parameter
	Date     *DateShift   // date
	Map      []MapEntry   // map
	Default  *attr.Value  // map: when the value is not in the table
	Choices  []attr.Value // oneOf
	Weights  []float64    // oneOf
	Modulo   int64        // sequence
	From     int64        // sequence
	Index    *Index       // shards
	Attr     *Attribute   // spread, computed
	Template []TemplatePart
}

// MapEntry is one row of a map source.
type MapEntry struct {
	From string // the canonical text of the value
	To   attr.Value
}

// TemplatePart is literal text or a path of a template source.
type TemplatePart struct {
	Literal string
	Path    *Path
	Width   int
}

// Path names a value of an arrival's context: an entity's attribute
// (ENTITY.attr), another parameter, a value of the arrival that caused
// this one (cause.name), the scenario clock (clock) or the population's
// as-of date (asOf).
type Path struct {
	Text   string
	Entity *Entity // entity paths
	Attr   string  // entity and cause paths: the attribute or value
	Param  string  // parameter paths
	Cause  bool
	Clock  bool
	AsOf   bool
}

// DateShift is a date source: From (the clock when nil) shifted by
// calendar units, formatted as the parameter's attribute wants (a civil
// date, an instant in its format, epoch seconds).
type DateShift struct {
	From                 *Path
	Years, Months, Days  int
	Hours, Minutes, Secs int
	// Step, when set, is added once per arrival number: arrival k is
	// shifted k steps more (one query per day of the week).
	Step *DateShift
}

// Expr is a condition or operand expression of the scenario or invariant
// language: DynamoDB's expression syntax over an item, with names and
// values. Attribute names that are reserved words may be written as they
// are; they get placeholders of their own.
type Expr struct {
	Text string // as written
	// Cond is the parsed condition (nil for an operand expression).
	Cond *expr.Condition
	// Update is an operand parsed as "SET #out = operand".
	Update *expr.Update
	// Paths are the document paths the expression reads.
	Paths []string
}

// Out is the attribute an operand expression's update sets.
const ExprOut = "cardapio_out"

// Holds evaluates a condition expression on an item (false for an
// operand expression).
func (e *Expr) Holds(it attr.Item) bool { return e != nil && e.Cond != nil && e.Cond.Eval(it) }

// Eval evaluates an operand expression on an item.
func (e *Expr) Eval(it attr.Item) (attr.Value, bool, error) {
	out, err := e.Update.Apply(it)
	if err != nil {
		return attr.Value{}, false, err
	}
	v, ok := out.Get(ExprOut)
	return v, ok, nil
}

// Expectation is one expected outcome of a scenario: its words and, when
// a machine can decide it, the checks that decide it. If, when set,
// limits it to models whose design matches (an index sharded or not).
type Expectation struct {
	Text   string
	If     *Guard
	Checks []Check
}

// Guard limits an expectation to a design.
type Guard struct {
	Index   *Index
	Sharded bool
}

// Applies reports whether the guard holds for the model the index
// belongs to (always, for a nil guard).
func (g *Guard) Applies() bool {
	if g == nil || g.Index == nil {
		return true
	}
	return (g.Index.Shards != nil) == g.Sharded
}

// Check is one measurable fact of a run, compared with Max, Min or
// Equals.
type Check struct {
	// Load is the load (its name) the metric is about; "" for every load.
	Load string
	// Table and Index name the resource of unit and partition metrics.
	Table *Table
	Index *Index
	// Metric is one of the Metric constants.
	Metric string
	// Outcome, Reason and Kind refine outcome, throttled and requests.
	Outcome, Reason, Kind string
	// Invariant names an invariant that must hold.
	Invariant string
	Max, Min  *float64
}

// Metrics a check can read.
const (
	MetricOffered        = "offered"
	MetricAttempted      = "attempted"
	MetricCompleted      = "completed"
	MetricLate           = "late"
	MetricOutcome        = "outcome"
	MetricThrottled      = "throttled"
	MetricDeadLettered   = "deadLettered"
	MetricReplayed       = "replayed"
	MetricRequests       = "requests"
	MetricLatencyP50     = "latencyP50"
	MetricLatencyP99     = "latencyP99"
	MetricLatencyMax     = "latencyMax"
	MetricReadUnits      = "readUnits"
	MetricWriteUnits     = "writeUnits"
	MetricIndexReadUnits = "indexReadUnits"
	MetricPartitionWrite = "partitionWriteUnits"
	MetricPartitionRead  = "partitionReadUnits"
)

// Metrics lists the metric names, for errors and docs.
var Metrics = []string{MetricOffered, MetricAttempted, MetricCompleted, MetricLate, MetricOutcome, MetricThrottled,
	MetricDeadLettered, MetricReplayed, MetricRequests, MetricLatencyP50, MetricLatencyP99, MetricLatencyMax,
	MetricReadUnits, MetricWriteUnits, MetricIndexReadUnits, MetricPartitionWrite, MetricPartitionRead}

// Invariant is a property of the data that every run must leave true,
// checked at its end against the table (a strongly consistent read of
// every item) and the load generator's ledger of arrivals.
type Invariant struct {
	Name        string
	Description string
	// Exactly one of the kinds is set.
	Each     *EachInvariant
	Sum      *SumInvariant
	Ledger   *LedgerInvariant
	Versions *VersionsInvariant
}

// EachInvariant holds of every item of an entity that meets Where:
// Holds is true, and it is in none of NotIn (sparse indexes whose key
// attributes it must not carry together).
type EachInvariant struct {
	Entity *Entity
	Where  *Expr
	Holds  *Expr
	NotIn  []*Index
}

// SumInvariant joins two entities by key: for every group, the
// aggregate of Of equals Equals' attribute (or the constant Const).
type SumInvariant struct {
	Of     Side
	Equals *Side
	Const  *float64
}

// Side is one side of a join: the items of Entity meeting Where, grouped
// by Key (a template over their attributes), aggregating Value (the sum
// of an attribute, or "" for the count of items).
type Side struct {
	Entity *Entity
	Where  *Expr
	Key    *KeyTemplate
	Value  string
}

// LedgerInvariant holds of every arrival of an operation (every arrival
// the load generator received, dead-lettered ones included): Exists, an
// item of an entity keyed by the arrival's values, is there exactly
// once; or Forbid, no item matching the arrival is.
type LedgerInvariant struct {
	Operation *Operation
	Exists    *Entity
	Forbid    *ForbidRule
}

// ForbidRule is the items an arrival must not have caused or met: items
// of Entity whose Match attributes equal the arrival's values (item
// attribute -> arrival path) and whose Later instants come after the
// arrival's (item attribute -> arrival path).
type ForbidRule struct {
	Entity *Entity
	Match  []PathPair
	Later  []PathPair
}

// PathPair pairs an item attribute with a path of an arrival's values.
type PathPair struct {
	Attr string
	Path *Path
}

// VersionsInvariant: no lost update on Entity. Every write of the run
// that guards Attribute (a condition Attribute = :expected) read a
// distinct version of its item, and each item's final Attribute is its
// first plus the writes applied to it.
type VersionsInvariant struct {
	Entity    *Entity
	Attribute string
}

// Invariant returns the named invariant.
func (m *Model) Invariant(name string) *Invariant {
	for _, v := range m.Invariants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Scenario returns the named scenario.
func (m *Model) Scenario(name string) *Scenario {
	for i := range m.Scenarios {
		if m.Scenarios[i].Name == name {
			return &m.Scenarios[i]
		}
	}
	return nil
}

// Nth returns the n-th string of the pattern's language, in an order
// where the first characters vary slowest: distinct n give distinct
// strings until the language runs out (ok false when the pattern cannot
// be enumerated: an empty class, or a language with fewer than n+1
// strings). Unbounded repetitions take their least count, plus one when
// that is zero. The load generator makes unique identifiers with it.
func (p *Pattern) Nth(n uint64) (string, bool) {
	re, err := syntax.Parse(p.Text, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	var b strings.Builder
	if !nth(re, &n, &b) || n != 0 {
		return "", false
	}
	return b.String(), true
}

// nth writes the string of re selected by the low digits of *n (mixed
// radix, the last position varying fastest) and divides them out.
func nth(re *syntax.Regexp, n *uint64, b *strings.Builder) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		size := uint64(0)
		for i := 0; i+1 < len(re.Rune); i += 2 {
			size += uint64(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if size == 0 {
			return false
		}
		k := *n % size
		*n /= size
		for i := 0; i+1 < len(re.Rune); i += 2 {
			w := uint64(re.Rune[i+1]-re.Rune[i]) + 1
			if k < w {
				b.WriteRune(re.Rune[i] + rune(k))
				break
			}
			k -= w
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		k := *n % 36
		*n /= 36
		b.WriteByte("0123456789abcdefghijklmnopqrstuvwxyz"[k])
	case syntax.OpConcat:
		// The last part varies fastest: fill the parts from the right.
		parts := make([]string, len(re.Sub))
		for i := len(re.Sub) - 1; i >= 0; i-- {
			var sb strings.Builder
			if !nth(re.Sub[i], n, &sb) {
				return false
			}
			parts[i] = sb.String()
		}
		for _, s := range parts {
			b.WriteString(s)
		}
	case syntax.OpAlternate:
		k := *n % uint64(len(re.Sub))
		*n /= uint64(len(re.Sub))
		return nth(re.Sub[k], n, b)
	case syntax.OpCapture:
		return nth(re.Sub[0], n, b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		count := re.Min
		if re.Op == syntax.OpRepeat && re.Max > re.Min {
			count = re.Max
		}
		if count == 0 && re.Op != syntax.OpQuest {
			count = 1
		}
		parts := make([]string, count)
		for i := count - 1; i >= 0; i-- {
			var sb strings.Builder
			if !nth(re.Sub[0], n, &sb) {
				return false
			}
			parts[i] = sb.String()
		}
		for _, s := range parts {
			b.WriteString(s)
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}
