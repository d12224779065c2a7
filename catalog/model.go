package catalog

import (
	"fmt"
	"math"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// Model is a resolved, validated model. Everything downstream (capacity,
// generator, engine runner, dataset, planner) reads it and never the
// YAML. A Model and everything it points to must be treated as read-only;
// slices are sorted by name (access patterns by id) for deterministic output.
type Model struct {
	Source         string // file name the model was read from
	Name           string
	Description    string
	Timezone       string // IANA zone of civil dates, for example America/Sao_Paulo
	Separator      string // key separator, "#" when not declared
	Prefixes       []Prefix
	Decisions      []Decision
	Tables         []*Table
	Attributes     []*Attribute
	Entities       []*Entity
	Indexes        []*Index
	AccessPatterns []*AccessPattern
	Operations     []*Operation
	Scale          Scale
	Pricing        Pricing
	Figures        []Figure
	Scenarios      []Scenario
	// Invariants are the properties of the data every load run must
	// leave true (the invariants section), sorted by name.
	Invariants []*Invariant
	Review     Review
	// Dataset holds the rules of the dataset generator (the dataset
	// section); nil when the model has none.
	Dataset *Dataset
	// Acknowledged are the breaking changes this version accepts (the
	// acknowledge section), in the model's order.
	Acknowledged []Acknowledgement
	// Warnings are the review findings, sorted by position. They are not
	// part of the model's meaning: two loads of equivalent documents may
	// place them differently.
	Warnings []Finding

	doc *tnode // the normalised document, for Marshal
}

// Prefix is one entry of the prefix dictionary.
type Prefix struct{ Tag, Meaning string }

// Decision is one recorded design decision.
type Decision struct{ Name, Decision, Why string }

// Table is a DynamoDB table.
type Table struct {
	Name          string
	Description   string
	PartitionKey  string
	SortKey       string // "" when the table has no sort key
	Discriminator string // attribute naming the entity of each item, or ""
	Billing       Billing
	Class         string // STANDARD or STANDARD_INFREQUENT_ACCESS
	TTL           string // TTL attribute, or ""
	Stream        *Stream
	PITR          bool
	Export        string
	// SizeGB is the declared size of the table's data (items, in the unit
	// of Pricing.GB), nil when it is to be computed from populations.
	SizeGB    *float64
	Isolation *Isolation
	Entities  []*Entity // entities stored in the table
	Indexes   []*Index  // its secondary indexes
}

// KeyAttributes returns the table's key attribute names, partition first.
func (t *Table) KeyAttributes() []string {
	if t.SortKey == "" {
		return []string{t.PartitionKey}
	}
	return []string{t.PartitionKey, t.SortKey}
}

// Billing is a table's capacity mode.
type Billing struct {
	Mode           string      `json:"mode"` // onDemand or provisioned
	Read           *Capacity   `json:"read,omitempty"`
	Write          *Capacity   `json:"write,omitempty"`
	MaxOnDemand    *Throughput `json:"maxOnDemand,omitempty"`
	WarmThroughput *Throughput `json:"warmThroughput,omitempty"`
	Why            string      `json:"why,omitempty"`
}

// Capacity is provisioned capacity in one direction.
type Capacity struct {
	Units       int64        `json:"units"`
	AutoScaling *AutoScaling `json:"autoScaling,omitempty"`
}

// AutoScaling is target-tracking auto scaling.
type AutoScaling struct {
	Min               int64   `json:"min"`
	Max               int64   `json:"max"`
	TargetUtilization float64 `json:"targetUtilization"`
}

// Throughput is read and write units per second.
type Throughput struct {
	Read  int64 `json:"read,omitempty"`
	Write int64 `json:"write,omitempty"`
}

// Stream is a table's DynamoDB Streams setting.
type Stream struct {
	View      string   `json:"view"`
	Consumers []string `json:"consumers,omitempty"`
}

// Isolation is tenant isolation by dynamodb:LeadingKeys.
type Isolation struct {
	LeadingKeys string   `json:"leadingKeys"`
	Actions     []string `json:"actions,omitempty"`
}

// Units of attribute values.
const (
	UnitCents        = "cents"
	UnitCivilDate    = "civilDate"
	UnitInstant      = "instant"
	UnitEpochSeconds = "epochSeconds"
)

// Attribute is one entry of the attribute dictionary.
type Attribute struct {
	Name            string
	Type            attr.Type
	Description     string
	Unit            string // see the Unit constants; "" when not declared
	Timezone        string // for civil dates: the declared zone or the model's
	Cardinality     int64  // estimated distinct values, 0 when unknown
	Size            int    // typical value size in bytes, 0 when unknown
	PII             bool
	Encrypted       bool
	CalendarDerived bool
	Stored          bool // false: derived at read time, never written
	Derived         *Derived
	Derivation      string
	Computed        *Computed
	Immutable       bool
	Values          *Distribution
	// Skew is how items spread over the attribute's values when not
	// evenly; nil when they spread evenly (or nothing is known).
	Skew *Skew
	// Domain holds the values the attribute may take. Its Enum is the
	// attribute's Enum.
	Domain
}

// Derived describes a stored value derived from other attributes.
type Derived struct {
	From    []string `json:"from"`
	Rule    string   `json:"rule"`
	Changes string   `json:"changes,omitempty"`
	Why     string   `json:"why,omitempty"`
}

// Distribution tells the dataset generator how to draw values.
type Distribution struct {
	Kind    string             `json:"kind"`
	Min     *float64           `json:"min,omitempty"`
	Max     *float64           `json:"max,omitempty"`
	Mean    *float64           `json:"mean,omitempty"`
	Stddev  *float64           `json:"stddev,omitempty"`
	S       *float64           `json:"s,omitempty"`
	Weights map[string]float64 `json:"weights,omitempty"`
	Value   any                `json:"value,omitempty"`
	From    string             `json:"from,omitempty"`
	To      string             `json:"to,omitempty"`
	Pattern string             `json:"pattern,omitempty"`
}

// Presence of an attribute on an entity.
type Presence string

// Presences.
const (
	Required Presence = "required" // always present
	Optional Presence = "optional" // present in some states (sparse indexes)
	KeyOnly  Presence = "key"      // only inside key templates, not stored
)

// EntityAttr is one attribute an entity carries, with its presence rules.
type EntityAttr struct {
	Name      string
	Presence  Presence
	Attribute *Attribute // its entry in the dictionary
	// When, if set, confines the attribute to the items that match it:
	// outside it the item does not carry it; inside, Presence applies
	// (required: always there while it holds). Unless, if set, makes it
	// absent from the items that match it. A sparse index keyed on the
	// attribute holds exactly the items these rules let carry it.
	When, Unless []Condition
	// Values is how the attribute's values spread over this entity's
	// items (the share of contracts in collection); nil when not
	// declared, and then the dictionary's Attribute.Values applies.
	Values *Distribution
	// Share is, for an optional attribute, the fraction of the items (of
	// those When lets carry it) that do; nil when not declared. Values
	// are shares among the items that carry it.
	Share *float64
	Note  string
}

// Condition is one term of a presence rule or of a population's where:
// the attribute has one of the values. The terms of a rule must all hold.
type Condition struct {
	Attribute string
	Values    []attr.Value // typed by the attribute
}

// Holds reports whether the item satisfies every condition. An item that
// lacks an attribute satisfies no condition on it.
func Holds(conds []Condition, it attr.Item) bool {
	for _, c := range conds {
		v, ok := it.Get(c.Attribute)
		if !ok {
			return false
		}
		match := false
		for _, w := range c.Values {
			match = match || attr.Equal(v, w)
		}
		if !match {
			return false
		}
	}
	return true
}

// Allows reports whether the presence rules let an item carry the
// attribute.
func (ea EntityAttr) Allows(it attr.Item) bool {
	if len(ea.When) > 0 && !Holds(ea.When, it) {
		return false
	}
	return len(ea.Unless) == 0 || !Holds(ea.Unless, it)
}

// Needs reports whether the item must carry the attribute: required, and
// allowed by its rules.
func (ea EntityAttr) Needs(it attr.Item) bool {
	return (ea.Presence == Required || ea.Presence == KeyOnly) && ea.Allows(it)
}

// KeyPart is the template of one table key attribute of an entity.
type KeyPart struct {
	Attribute string
	Template  *KeyTemplate
	// Type is the key attribute's type. A key of type N or B is one
	// placeholder whose value it takes as it is (a natural numeric key,
	// such as a reading's epoch second); an S key is the rendered text.
	Type attr.Type
}

// Value computes the key attribute's value from the values of the
// template's placeholders; sep, when set, is refused inside string
// values (RenderSep).
func (k KeyPart) Value(values map[string]attr.Value, sep string) (attr.Value, error) {
	if k.Type != attr.S && k.Type != attr.Invalid && len(k.Template.Parts) == 1 && k.Template.Parts[0].Attr != "" {
		ph := k.Template.Parts[0].Attr
		v, ok := values[ph]
		if !ok {
			return attr.Value{}, fmt.Errorf("template %q: no value for {%s}", k.Template.Text, ph)
		}
		if v.Type != k.Type {
			return attr.Value{}, fmt.Errorf("key %s is %s, but {%s} is %s", k.Attribute, k.Type, ph, v.Type)
		}
		return v, nil
	}
	s, err := k.Template.RenderSep(values, sep)
	if err != nil {
		return attr.Value{}, err
	}
	return attr.Str(s), nil
}

// Natural reports whether the key attribute is its own template: a
// natural key such as {deviceId} for deviceId.
func (k KeyPart) Natural() bool {
	return len(k.Template.Parts) == 1 && k.Template.Parts[0].Attr == k.Attribute && k.Template.Parts[0].Width == 0
}

// Sample is a named sample item, complete with rendered keys and the
// discriminator.
type Sample struct {
	Name string
	Item attr.Item
}

// Entity is an item type.
type Entity struct {
	Name        string
	TypeValue   string // value of the table's discriminator attribute
	Table       *Table
	Description string
	Collection  string
	Key         []KeyPart // in table key order: partition, then sort
	Attributes  []EntityAttr
	AppendOnly  bool
	Population  *Population
	Samples     []Sample
	Indexes     []*Index // indexes the entity can enter

	keyDefs map[string]*Attribute // the table key attributes' entries, for CheckItem
}

// Has returns the presence of the attribute on the entity ("" when it
// does not carry it). Table key attributes and the discriminator are
// always present.
func (e *Entity) Has(name string) Presence {
	for _, a := range e.Attributes {
		if a.Name == name {
			return a.Presence
		}
	}
	for _, k := range e.Key {
		if k.Attribute == name {
			return Required
		}
	}
	if e.Table != nil && e.Table.Discriminator == name {
		return Required
	}
	return ""
}

// Sample returns the named sample item. The name "absent" returns a nil
// item and true: the item does not exist.
func (e *Entity) Sample(name string) (attr.Item, bool) {
	if name == Absent {
		return nil, true
	}
	for _, s := range e.Samples {
		if s.Name == name {
			return s.Item, true
		}
	}
	return nil, false
}

// KeyOf renders the table key attributes of an item of this entity from
// values (attributes, key-only inputs included).
func (e *Entity) KeyOf(values map[string]attr.Value) (attr.Item, error) {
	var key attr.Item
	for _, k := range e.Key {
		v, err := k.Value(values, "")
		if err != nil {
			return nil, err
		}
		key = key.With(k.Attribute, v)
	}
	return key, nil
}

// Absent is the sample name for "no item".
const Absent = "absent"

// Population is how many items of an entity exist at the declared scale:
// Total items, or a number per item of the Parent entity (the items hang
// off their parent: an instalment's contract, a note's order). It is what
// the dataset generator expands and what storage and the planner count.
type Population struct {
	// As declared: total, or per (the parent's name) with mean, share or
	// a distribution.
	Total *int64   `json:"total,omitempty"`
	Per   string   `json:"per,omitempty"`
	Mean  *float64 `json:"mean,omitempty"`
	Share *float64 `json:"share,omitempty"`
	Note  string   `json:"note,omitempty"`

	// Parent is the entity named by Per, nil for a total.
	Parent *Entity `json:"-"`
	// Where confines the children to the parent items that match it
	// (contacts hang off contracts in collection only); ParentShare is
	// the fraction of the parent's items that match, 1 without Where.
	Where       []Condition `json:"-"`
	ParentShare float64     `json:"-"`
	// PerParent is how many children each matching parent has; nil for a
	// total. A mean alone is fixed, a share is a count of 0 or 1.
	PerParent *Count `json:"-"`
	// Items is the number of items at the declared scale: Total, or the
	// parent's Items x ParentShare x PerParent.Mean. Known is false when
	// the chain up to a total is incomplete.
	Items float64 `json:"-"`
	Known bool    `json:"-"`
}

// Count kinds: how the number of children per parent spreads.
const (
	CountFixed   = "fixed"   // every parent has the mean (rounded down or up so the mean holds)
	CountUniform = "uniform" // Min..Max, every count equally likely
	CountZipf    = "zipf"    // 1..Max, count k weighs k^-S
	CountShares  = "shares"  // a table: count -> fraction of parents
)

// Count is the distribution of the number of children per parent item.
type Count struct {
	Kind string
	// Mean is the average count per parent, whatever the kind.
	Mean float64
	// Min and Max bound uniform (Max alone bounds zipf).
	Min, Max int64
	// S is the exponent of zipf.
	S float64
	// Shares is the table of shares, by count ascending; it adds up to 1.
	Shares []CountShare
}

// CountShare is one row of a table of shares: the fraction of parents
// that have Count children.
type CountShare struct {
	Count int64
	Share float64
}

// Skew is how items spread over the values of an attribute when not
// evenly (the largest tenant holds 60% of the contracts, the rest by
// Zipf's law): Top are the shares of the largest values, largest first,
// and the other values share the rest, uniformly or with the k-th of them
// weighing k^-S. N is the number of distinct values it spreads over (the
// attribute's Distinct).
type Skew struct {
	Top    []float64
	Rest   string // uniform or zipf
	S      float64
	Growth string
	Note   string
	N      int64
	norm   float64 // sum of k^-S over the rest, for zipf
}

// Share returns the fraction of items holding the value of the given
// rank (0 is the largest).
func (s *Skew) Share(rank int64) float64 {
	if rank < 0 || rank >= s.N {
		return 0
	}
	if rank < int64(len(s.Top)) {
		return s.Top[rank]
	}
	rest := 1.0
	for _, t := range s.Top {
		rest -= t
	}
	m := s.N - int64(len(s.Top))
	if rest <= 0 || m <= 0 {
		return 0
	}
	if s.Rest != "zipf" {
		return rest / float64(m)
	}
	k := float64(rank - int64(len(s.Top)) + 1)
	return rest * math.Pow(k, -s.S) / s.norm
}

// Largest returns the share of the largest value.
func (s *Skew) Largest() float64 { return s.Share(0) }

// Index is a secondary index.
type Index struct {
	Name        string
	Alias       string
	Local       bool
	Table       *Table
	Description string
	Owner       string
	Partition   []string // partition key attributes, in order
	Sort        []string // sort key attributes, in order (may be empty)
	Projection  Projection
	Sparse      *Sparse
	Entries     []*Entity // entities that carry every key attribute (required or optional)
	Shards      *Shards
	Synthetic   *Synthetic
	Alarm       string
	Unsharded   string
	Serves      []*AccessPattern
	// WarmThroughput is the index's own warm throughput, nil when it
	// declares none (Warm: then its table's).
	WarmThroughput *Throughput
}

// KeyAttributes returns partition then sort attributes.
func (x *Index) KeyAttributes() []string {
	return append(append([]string{}, x.Partition...), x.Sort...)
}

// Projects reports whether an index entry carries the attribute: table
// keys, index keys, and under INCLUDE the listed attributes, under ALL
// everything.
func (x *Index) Projects(name string) bool {
	switch x.Projection.Type {
	case "ALL":
		return true
	case "INCLUDE":
		for _, a := range x.Projection.Attributes {
			if a == name {
				return true
			}
		}
	}
	for _, a := range x.KeyAttributes() {
		if a == name {
			return true
		}
	}
	return x.Table != nil && (name == x.Table.PartitionKey || name == x.Table.SortKey)
}

// Projection is what an index copies.
type Projection struct {
	Type       string   `json:"type"` // ALL, KEYS_ONLY, INCLUDE
	Attributes []string `json:"attributes,omitempty"`
}

// Sparse declares which entities are expected to enter an index.
type Sparse struct {
	Entities []string
	Note     string
}

// Shards is the write sharding of an index partition.
type Shards struct {
	Attribute           string   `json:"attribute"`
	Count               int      `json:"count"`
	Formula             string   `json:"formula,omitempty"`
	PeakWritesPerSecond *float64 `json:"peakWritesPerSecond,omitempty"`
}

// Synthetic is the concatenated-key fallback of a multi-attribute index.
type Synthetic struct {
	Partition *SyntheticKey
	Sort      *SyntheticKey // nil when the index has no sort key
}

// SyntheticKey is one concatenated key attribute.
type SyntheticKey struct {
	Attribute string
	Template  *KeyTemplate
}

// Consistency levels of access patterns.
const (
	Eventual = "eventual"
	Strong   = "strong"
	Exact    = "exact"
)

// AccessPattern is one question of the menu.
type AccessPattern struct {
	ID          string
	Question    string
	AskedBy     []string
	Velocity    *Velocity
	Latency     time.Duration // 0 when not declared
	Consistency string        // eventual, strong or exact
	IfWrong     string
	Answer      *Answer      // nil when NotAnswered is set
	NotAnswered *NotAnswered // nil when the table answers it
	Operations  []*Operation // operations that serve it
	// Params are the named placeholders of the answer that are not
	// attributes (the bounds of a range), sorted by name; each is typed
	// by the attribute it bounds.
	Params []*Param
}

// Velocity is how fast a question is asked.
type Velocity struct {
	Steady *Rate  `json:"steady,omitempty"`
	Burst  *Burst `json:"burst,omitempty"`
	Peak   *Rate  `json:"peak,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Rate is count per unit of time.
type Rate struct {
	Count float64 `json:"count"`
	Per   string  `json:"per"` // second, minute, hour, day, month
	When  string  `json:"when,omitempty"`
	// Peaks are the names of the scale's peaks when this rate holds.
	Peaks []string `json:"peaks,omitempty"`
}

// PerSecond converts the rate to a per-second figure (a month is 30 days).
func (r Rate) PerSecond() float64 {
	switch r.Per {
	case "minute":
		return r.Count / 60
	case "hour":
		return r.Count / 3600
	case "day":
		return r.Count / 86400
	case "month":
		return r.Count / (30 * 86400)
	}
	return r.Count
}

// Burst is a volume within a window.
type Burst struct {
	Volume float64 `json:"volume"`
	Window string  `json:"window"`
	Every  string  `json:"every,omitempty"`
	At     string  `json:"at,omitempty"`
}

// WindowDuration parses Window.
func (b Burst) WindowDuration() time.Duration { d, _ := parseDuration(b.Window); return d }

// NotAnswered declares a question out of the table.
type NotAnswered struct {
	GoesTo string `json:"goesTo"` // s3ExportAthena, searchEngine, stream, elsewhere
	Why    string `json:"why"`
}

// Answer is the structure that answers a question.
type Answer struct {
	Table          *Table
	Index          *Index // nil: the base table
	Operation      string // GetItem, Query, PutItem, UpdateItem
	Key            []KeyCondition
	Order          string // ascending or descending ("" = ascending)
	PageSize       int
	Shards         *FanOut
	ConsistentRead bool
	Note           string
}

// Structure names the table or index that answers.
func (a *Answer) Structure() string {
	if a.Index != nil {
		return a.Index.Name
	}
	return a.Table.Name
}

// Key condition operators.
const (
	OpEq         = "eq"
	OpBeginsWith = "beginsWith"
	OpBetween    = "between"
	OpLt         = "lt"
	OpLe         = "le"
	OpGt         = "gt"
	OpGe         = "ge"
)

// KeyCondition is a condition on one key attribute. Between has two
// operands, the others one.
type KeyCondition struct {
	Attribute string
	Op        string
	Operands  []Operand
}

// FanOut is how a sharded index is read.
type FanOut struct {
	FanOut  string `json:"fanOut"` // all or one
	Workers int    `json:"workers,omitempty"`
}

// Operand is a value in a request: exactly one of Param (the whole value
// is one parameter, typed by it), Template (a string rendered from
// parameters; a template without placeholders is a string constant),
// Literal (a constant of any type), List (an L value whose elements are
// operands) or Map (an M value whose members are operands). List and Map
// are used only when some element needs a parameter, so that a list or
// map built from parameters (the line items of an order, the element
// list_append adds) is filled in like any other value; a constant list
// or map is a Literal.
type Operand struct {
	Param    string
	Template *KeyTemplate
	Literal  *attr.Value
	List     []Operand
	Map      []Assign // members sorted by name
	// IsList and IsMap tell an empty composite from no composite; they
	// are set with List and Map.
	IsList, IsMap bool
}

// Resolve computes the operand's value from parameter values (and the
// attributes bound by earlier steps, under their own names).
func (o Operand) Resolve(params map[string]attr.Value) (attr.Value, error) {
	switch {
	case o.Param != "":
		v, ok := params[o.Param]
		if !ok {
			return attr.Value{}, &missingParamError{o.Param}
		}
		return v, nil
	case o.Template != nil:
		s, err := o.Template.Render(params)
		if err != nil {
			return attr.Value{}, err
		}
		return attr.Str(s), nil
	case o.Literal != nil:
		return *o.Literal, nil
	case o.IsList:
		out := make([]attr.Value, 0, len(o.List))
		for _, e := range o.List {
			v, err := e.Resolve(params)
			if err != nil {
				return attr.Value{}, err
			}
			out = append(out, v)
		}
		return attr.ListOf(out...), nil
	case o.IsMap:
		it := make(attr.Item, 0, len(o.Map))
		for _, m := range o.Map {
			v, err := m.Value.Resolve(params)
			if err != nil {
				return attr.Value{}, err
			}
			it = append(it, attr.Field{Name: m.Attribute, Value: v})
		}
		return attr.MapOf(it), nil
	}
	return attr.Null(), nil
}

// Placeholders lists the parameters the operand needs, in order, each
// once.
func (o Operand) Placeholders() []string {
	switch {
	case o.Param != "":
		return []string{o.Param}
	case o.Template != nil:
		return o.Template.Placeholders()
	case o.IsList, o.IsMap:
		var out []string
		seen := map[string]bool{}
		add := func(e Operand) {
			for _, ph := range e.Placeholders() {
				if !seen[ph] {
					seen[ph] = true
					out = append(out, ph)
				}
			}
		}
		for _, e := range o.List {
			add(e)
		}
		for _, m := range o.Map {
			add(m.Value)
		}
		return out
	}
	return nil
}

// IsConstant reports whether the operand needs no parameter.
func (o Operand) IsConstant() bool { return len(o.Placeholders()) == 0 }

type missingParamError struct{ name string }

func (e *missingParamError) Error() string { return "missing value for parameter " + e.name }

// Param is one operation input.
type Param struct {
	Name        string
	Type        attr.Type
	Attribute   *Attribute // nil for an explicitly typed parameter
	Description string
	Sample      *attr.Value // value for sample runs, nil when not declared
}

// StepKind is the kind of DynamoDB request of a step.
type StepKind string

// Step kinds.
const (
	Get            StepKind = "get"
	Put            StepKind = "put"
	Update         StepKind = "update"
	Delete         StepKind = "delete"
	Query          StepKind = "query"
	Scan           StepKind = "scan"
	ConditionCheck StepKind = "conditionCheck"
	Transaction    StepKind = "transaction"
)

// IsWrite reports whether the kind writes (or checks, in a transaction).
func (k StepKind) IsWrite() bool {
	return k == Put || k == Update || k == Delete || k == ConditionCheck || k == Transaction
}

// Step is one step of an operation, or one action of a transaction.
type Step struct {
	ID          string
	Description string
	Pattern     *AccessPattern
	Kind        StepKind
	Request     *Request // nil for a transaction
	Items       []*Step  // the actions of a transaction, in request order
	Why         string   // why a transaction is needed
	Bind        []string // attributes of the read item later steps use
	When        string
	Variants    []string // budget variants the step runs in; empty: all
}

// In reports whether the step runs in the budget variant.
func (s *Step) In(variant string) bool {
	if len(s.Variants) == 0 {
		return true
	}
	for _, v := range s.Variants {
		if v == variant {
			return true
		}
	}
	return false
}

// Request is the complete material of one DynamoDB request. Key holds
// every table key attribute (rendered from the entity's templates when the
// model does not spell it out); a put writes Key, Item and, when the table
// has a discriminator, the entity's TypeValue.
type Request struct {
	Table                               *Table
	Index                               *Index // queries on an index
	Entity                              *Entity
	Key                                 []Assign       // get, update, delete, conditionCheck: key attribute values
	KeyCondition                        []KeyCondition // query
	Item                                []Assign       // put: the non-key attributes
	Update                              string
	Condition                           string
	Filter                              string
	Projection                          []string
	Names                               map[string]string // #name -> attribute
	Values                              []NamedValue      // :name -> operand, sorted by name
	ReturnValues                        string
	ReturnValuesOnConditionCheckFailure string
	ConsistentRead                      bool
	Order                               string
	PageSize                            int
	Shards                              *FanOut
	OnConditionFailed                   *Failure
	OnMissing                           *Failure
	Before                              string // sample name, Absent, or "" when not declared
	After                               string
	Sample                              string
	Matches                             []Match // a scan without matches reads everything

	sep string // the model's key separator, for Render
}

// Assign is an attribute and the operand giving its value.
type Assign struct {
	Attribute string
	Value     Operand
}

// NamedValue is one expression attribute value.
type NamedValue struct {
	Name  string
	Value Operand
}

// Failure is what a failed condition or a missing item means.
type Failure struct {
	Meaning string `json:"meaning"`
	Outcome string `json:"outcome"` // succeed, stop, retry, fail
}

// Match is what a query page matches, for static estimates.
type Match struct {
	Entity *Entity
	Sample string
	Count  int
}

// Budget is the capacity budget of one variant of an operation.
type Budget struct {
	Name        string
	Description string
	WRU         *float64 // nil: no write budget declared
	RRU         *float64 // nil: no read budget declared
	FailedStep  string   // id of the step or action whose condition fails
	Samples     map[string]SampleOverride
	Pages       int
	// Share is the fraction of the operation's runs that take this
	// variant, for monthly figures; nil when not declared (then the
	// dearest variant is charged).
	Share     *float64
	Reasoning string
	// Params are the values that replace parameters' samples in this
	// variant, by parameter name; nil when the variant runs with the
	// samples (Operation.SampleInputsIn).
	Params map[string]attr.Value
}

// SampleOverride replaces a step's samples in one budget variant.
type SampleOverride struct {
	Before, After, Sample *string
}

// SamplesFor returns the before, after and read samples of a step in this
// variant: the step's own, replaced by the variant's overrides.
func (b *Budget) SamplesFor(s *Step) (before, after, sample string) {
	if s.Request != nil {
		before, after, sample = s.Request.Before, s.Request.After, s.Request.Sample
	}
	if o, ok := b.Samples[s.ID]; ok {
		if o.Before != nil {
			before = *o.Before
		}
		if o.After != nil {
			after = *o.After
		}
		if o.Sample != nil {
			sample = *o.Sample
		}
	}
	return before, after, sample
}

// Volume is how often an operation runs. PerDay and PerMonth are runs of
// the whole business: a volume declared per item of an entity (Relative)
// is resolved into them.
type Volume struct {
	PerDay        *float64 `json:"perDay,omitempty"`
	PerMonth      *float64 `json:"perMonth,omitempty"`
	PeakPerSecond *float64 `json:"peakPerSecond,omitempty"`
	When          string   `json:"when,omitempty"`
	// Peaks are the names of the scale's peaks when it runs at
	// PeakPerSecond.
	Peaks []string `json:"peaks,omitempty"`
	// Relative is the volume as declared per item of an entity, nil for
	// an absolute one.
	Relative *RelativeVolume `json:"-"`
}

// RelativeVolume is a volume declared per item of an entity (10 runs a
// month per contract in collection): the runs of the business are these
// times Items.
type RelativeVolume struct {
	Entity   *Entity
	Where    []Condition
	PerDay   *float64 // per matching item
	PerMonth *float64
	// Items is the number of matching items at the declared scale.
	Items float64
}

// Operation is a business operation.
type Operation struct {
	Name        string
	Description string
	Serves      []*AccessPattern
	Trigger     string
	Idempotency string
	Params      []*Param // sorted by name
	Steps       []*Step
	Volume      Volume
	Budgets     []*Budget // sorted by name
}

// Param returns the named parameter.
func (o *Operation) Param(name string) *Param {
	for _, p := range o.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Step returns the step or transaction action with the id.
func (o *Operation) Step(id string) *Step {
	for _, s := range o.Steps {
		if s.ID == id {
			return s
		}
		for _, it := range s.Items {
			if it.ID == id {
				return it
			}
		}
	}
	return nil
}

// Scale is the size and shape of the business beyond what the entities
// (populations) and the attributes (skews, value shares) say.
type Scale struct {
	// BusinessUnit is what cost is reported per 1,000 of; nil when the
	// model does not say.
	BusinessUnit *BusinessUnit
	// StorageGB is the declared storage of all tables, 0 when not given.
	StorageGB float64
	// Peaks are the calendar's peak days, sorted by name.
	Peaks   []*Peak
	History string
	Note    string
}

// BusinessUnit is the unit of the business the cost is counted per 1,000
// of (contracts, orders, accounts).
type BusinessUnit struct {
	Name   string  // the unit in the plural
	Entity *Entity // whose population counts it; nil when Count is declared
	Count  float64 // the number of units at the declared scale
}

// Peak is a day of the calendar that drives peaks.
type Peak struct {
	Name        string
	Rule        string
	Description string
	// Factor is the day's volume over an ordinary day's (1 when not
	// declared).
	Factor  float64
	Prewarm bool
}

// Pricing holds list prices in US$.
type Pricing struct {
	Region              string  `json:"region,omitempty"`
	AsOf                string  `json:"asOf,omitempty"`
	WritePerMillion     float64 `json:"writePerMillion,omitempty"`
	ReadPerMillion      float64 `json:"readPerMillion,omitempty"`
	StoragePerGBMonth   float64 `json:"storagePerGBMonth,omitempty"`
	IAStoragePerGBMonth float64 `json:"iaStoragePerGBMonth,omitempty"`
	IARequestFactor     float64 `json:"iaRequestFactor,omitempty"`
	ProvisionedDiscount float64 `json:"provisionedDiscount,omitempty"`
	GB                  string  `json:"gb,omitempty"` // decimal (default) or binary
	Note                string  `json:"note,omitempty"`
}

// Figure is a reference figure to reproduce.
type Figure struct {
	Name       string
	Statement  string
	Value      *float64
	Unit       string
	Derivation string
}

// Scenario is a time-shaped workload.
type Scenario struct {
	Name        string
	Description string
	At          string
	Day         string
	Peak        *Peak // the peak day it is, nil when not one
	Load        []LoadItem
	// Expect are the expectations' words; Expectations the same with the
	// checks that decide them (scenario.go).
	Expect       []string
	Expectations []Expectation
	// Date is the civil day the scenario's clock starts on; nil: the
	// population's as-of date.
	Date *time.Time
	// Start is At, as time since that day's midnight (0 without At).
	Start time.Duration
	// Duration is how long loads given by a rate without a window run
	// (DefaultDuration when not declared).
	Duration time.Duration
	// Then names the scenarios that follow on the same day and data,
	// each at its own time.
	Then []string
	// File is where the scenario was declared (the model, or a scenario
	// file).
	File string
}

// DefaultDuration is how long a load given by a rate runs when neither
// it nor its scenario says.
const DefaultDuration = time.Minute

// LoadItem is one operation's part of a scenario.
type LoadItem struct {
	Operation string  `json:"operation"`
	Count     float64 `json:"count,omitempty"`
	Window    string  `json:"window,omitempty"`
	Rate      *Rate   `json:"rate,omitempty"`
	// PeakPerSecond is the highest rate within the window, when the
	// count does not arrive evenly; nil: Count/Window (or Rate).
	PeakPerSecond *float64 `json:"peakPerSecond,omitempty"`
	// Focus pins the load to one value of partition-key attributes:
	// attribute -> "largest" (the value the attribute's skew makes the
	// largest), so that the whole load lands on that value's partitions.
	Focus  map[string]string `json:"focus,omitempty"`
	Tenant string            `json:"tenant,omitempty"`
	Note   string            `json:"note,omitempty"`
	// Name is how reports call the load: the operation's name unless the
	// scenario gives another (two loads of one operation).
	Name string `json:"name,omitempty"`
	// Plan is what the load generator runs (scenario.go).
	Plan *LoadPlan `json:"-"`
}

// Review holds review answers and accepted findings.
type Review struct {
	Answers map[string]string
	Accept  []Accept
}

// Accept acknowledges one review finding.
type Accept struct {
	Code   string `json:"code"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Lookups by name; nil when absent.

// Table returns the named table.
func (m *Model) Table(name string) *Table {
	for _, t := range m.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Attribute returns the named attribute.
func (m *Model) Attribute(name string) *Attribute {
	for _, a := range m.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Entity returns the named entity.
func (m *Model) Entity(name string) *Entity {
	for _, e := range m.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Index returns the named index.
func (m *Model) Index(name string) *Index {
	for _, x := range m.Indexes {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// AccessPattern returns the access pattern with the id.
func (m *Model) AccessPattern(id string) *AccessPattern {
	for _, a := range m.AccessPatterns {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Peak returns the named peak of the scale.
func (m *Model) Peak(name string) *Peak {
	for _, p := range m.Scale.Peaks {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Operation returns the named operation.
func (m *Model) Operation(name string) *Operation {
	for _, o := range m.Operations {
		if o.Name == name {
			return o
		}
	}
	return nil
}
