package catalog

import "encoding/json"

// The raw* types mirror the schema one to one. They are filled from the
// schema-valid document and turned into the resolved model; nothing
// outside this package sees them.

type rawModel struct {
	FormatVersion  int                         `json:"formatVersion"`
	Name           string                      `json:"name"`
	Description    string                      `json:"description"`
	Timezone       string                      `json:"timezone"`
	Separator      string                      `json:"separator"`
	Prefixes       map[string]string           `json:"prefixes"`
	Decisions      map[string]rawDecision      `json:"decisions"`
	Tables         map[string]rawTable         `json:"tables"`
	Attributes     map[string]rawAttribute     `json:"attributes"`
	Entities       map[string]rawEntity        `json:"entities"`
	Indexes        map[string]rawIndex         `json:"indexes"`
	AccessPatterns map[string]rawAccessPattern `json:"accessPatterns"`
	Operations     map[string]rawOperation     `json:"operations"`
	Scale          *rawScale                   `json:"scale"`
	Pricing        *Pricing                    `json:"pricing"`
	Figures        map[string]rawFigure        `json:"figures"`
	Scenarios      map[string]rawScenario      `json:"scenarios"`
	Invariants     map[string]rawInvariant     `json:"invariants"`
	Review         *rawReview                  `json:"review"`
	Dataset        *rawDataset                 `json:"dataset"`
	Acknowledge    []rawAcknowledgement        `json:"acknowledge"`
}

type rawDecision struct {
	Decision string `json:"decision"`
	Why      string `json:"why"`
}

type rawTable struct {
	Description   string     `json:"description"`
	PartitionKey  string     `json:"partitionKey"`
	SortKey       string     `json:"sortKey"`
	Discriminator string     `json:"discriminator"`
	Billing       *Billing   `json:"billing"`
	Class         string     `json:"class"`
	TTL           string     `json:"ttl"`
	Stream        *Stream    `json:"stream"`
	PITR          bool       `json:"pitr"`
	Export        string     `json:"export"`
	SizeGB        *float64   `json:"sizeGB"`
	Isolation     *Isolation `json:"isolation"`
}

type rawAttribute struct {
	Type            string        `json:"type"`
	Description     string        `json:"description"`
	Unit            string        `json:"unit"`
	Timezone        string        `json:"timezone"`
	Cardinality     int64         `json:"cardinality"`
	Size            int           `json:"size"`
	PII             bool          `json:"pii"`
	Encrypted       bool          `json:"encrypted"`
	CalendarDerived bool          `json:"calendarDerived"`
	Stored          *bool         `json:"stored"`
	Derived         *Derived      `json:"derived"`
	Derivation      string        `json:"derivation"`
	Computed        *rawComputed  `json:"computed"`
	Immutable       bool          `json:"immutable"`
	Values          *Distribution `json:"values"`
	Skew            *rawSkew      `json:"skew"`
	rawDomain
}

// rawDomain is the domain fields an attribute, a list element and a map
// member share.
type rawDomain struct {
	Enum      []json.RawMessage         `json:"enum"`
	Min       *json.Number              `json:"min"`
	Max       *json.Number              `json:"max"`
	Integer   bool                      `json:"integer"`
	MinLength *int                      `json:"minLength"`
	MaxLength *int                      `json:"maxLength"`
	Pattern   *string                   `json:"pattern"`
	MinItems  *int                      `json:"minItems"`
	MaxItems  *int                      `json:"maxItems"`
	Items     *rawValueDomain           `json:"items"`
	Fields    map[string]rawValueDomain `json:"fields"`
	Instant   *rawInstant               `json:"instant"`
}

type rawValueDomain struct {
	Type     string `json:"type"`
	Unit     string `json:"unit"`
	Optional bool   `json:"optional"`
	rawDomain
}

type rawInstant struct {
	Offset    string `json:"offset"`
	Precision string `json:"precision"`
}

type rawSkew struct {
	Top    []float64 `json:"top"`
	Rest   string    `json:"rest"`
	S      *float64  `json:"s"`
	Growth string    `json:"growth"`
	Note   string    `json:"note"`
}

type rawComputed struct {
	Kind      string `json:"kind"`
	Hash      string `json:"hash"`
	Input     string `json:"input"`
	Modulo    int    `json:"modulo"`
	Algorithm string `json:"algorithm"`
	Secret    string `json:"secret"`
	SecretBy  string `json:"secretBy"`
	Normalize string `json:"normalize"`
	HexLength int    `json:"hexLength"`
	Template  string `json:"template"`
	Rotation  string `json:"rotation"`
}

type rawEntity struct {
	Table       string                                `json:"table"`
	Description string                                `json:"description"`
	Collection  string                                `json:"collection"`
	Key         map[string]string                     `json:"key"`
	Attributes  map[string]json.RawMessage            `json:"attributes"`
	AppendOnly  bool                                  `json:"appendOnly"`
	Population  *rawPopulation                        `json:"population"`
	Samples     map[string]map[string]json.RawMessage `json:"samples"`
}

// rawEntityAttr is the long form of an entity's attribute.
type rawEntityAttr struct {
	Presence string                     `json:"presence"`
	When     map[string]json.RawMessage `json:"when"`
	Unless   map[string]json.RawMessage `json:"unless"`
	Values   *Distribution              `json:"values"`
	Share    *float64                   `json:"share"`
	Note     string                     `json:"note"`
}

type rawPopulation struct {
	Total        *int64                     `json:"total"`
	Per          string                     `json:"per"`
	Mean         *float64                   `json:"mean"`
	Share        *float64                   `json:"share"`
	Distribution *rawCount                  `json:"distribution"`
	Where        map[string]json.RawMessage `json:"where"`
	Note         string                     `json:"note"`
}

type rawCount struct {
	Kind   string             `json:"kind"`
	Min    *int64             `json:"min"`
	Max    *int64             `json:"max"`
	S      *float64           `json:"s"`
	Shares map[string]float64 `json:"shares"`
}

type rawScale struct {
	BusinessUnit *struct {
		Name   string   `json:"name"`
		Entity string   `json:"entity"`
		Count  *float64 `json:"count"`
	} `json:"businessUnit"`
	StorageGB float64            `json:"storageGB"`
	Peaks     map[string]rawPeak `json:"peaks"`
	History   string             `json:"history"`
	Note      string             `json:"note"`
}

type rawPeak struct {
	Rule        string   `json:"rule"`
	Description string   `json:"description"`
	Factor      *float64 `json:"factor"`
	Prewarm     bool     `json:"prewarm"`
}

type rawVolume struct {
	PerDay        *float64                   `json:"perDay"`
	PerMonth      *float64                   `json:"perMonth"`
	PeakPerSecond *float64                   `json:"peakPerSecond"`
	When          string                     `json:"when"`
	Peaks         []string                   `json:"peaks"`
	Per           string                     `json:"per"`
	Where         map[string]json.RawMessage `json:"where"`
}

type rawIndex struct {
	Table       string     `json:"table"`
	Alias       string     `json:"alias"`
	Kind        string     `json:"kind"`
	Description string     `json:"description"`
	Owner       string     `json:"owner"`
	Partition   []string   `json:"partition"`
	Sort        []string   `json:"sort"`
	Projection  Projection `json:"projection"`
	Sparse      *rawSparse `json:"sparse"`
	Shards      *Shards    `json:"shards"`
	Synthetic   *rawSynth  `json:"synthetic"`
	Alarm       string     `json:"alarm"`
	Unsharded   string     `json:"unsharded"`
	// WarmThroughput is the index's own warm throughput.
	WarmThroughput *Throughput `json:"warmThroughput"`
}

type rawSparse struct {
	Entities []string `json:"entities"`
	Note     string   `json:"note"`
}

type rawSynth struct {
	Partition *rawSynthKey `json:"partition"`
	Sort      *rawSynthKey `json:"sort"`
}

type rawSynthKey struct {
	Attribute string `json:"attribute"`
	Template  string `json:"template"`
}

type rawAccessPattern struct {
	Question    string       `json:"question"`
	AskedBy     []string     `json:"askedBy"`
	Velocity    *Velocity    `json:"velocity"`
	Latency     string       `json:"latency"`
	Consistency string       `json:"consistency"`
	IfWrong     string       `json:"ifWrong"`
	Answer      *rawAnswer   `json:"answer"`
	NotAnswered *NotAnswered `json:"notAnswered"`
	// Params names the placeholders that are not attributes: two bounds
	// of one attribute (from, to), each typed by the attribute it bounds.
	Params map[string]rawPatternParam `json:"params"`
}

type rawPatternParam struct {
	Attribute   string `json:"attribute"`
	Description string `json:"description"`
}

type rawAnswer struct {
	Table          string                     `json:"table"`
	Index          string                     `json:"index"`
	Operation      string                     `json:"operation"`
	Key            map[string]json.RawMessage `json:"key"`
	Order          string                     `json:"order"`
	PageSize       int                        `json:"pageSize"`
	Shards         *FanOut                    `json:"shards"`
	ConsistentRead bool                       `json:"consistentRead"`
	Note           string                     `json:"note"`
}

type rawParam struct {
	Attribute   string          `json:"attribute"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Sample      json.RawMessage `json:"sample"`
}

type rawRequest struct {
	Table                               string                     `json:"table"`
	Index                               string                     `json:"index"`
	Entity                              string                     `json:"entity"`
	Key                                 map[string]json.RawMessage `json:"key"`
	Item                                map[string]json.RawMessage `json:"item"`
	Update                              string                     `json:"update"`
	Condition                           string                     `json:"condition"`
	Filter                              string                     `json:"filter"`
	Projection                          []string                   `json:"projection"`
	Names                               map[string]string          `json:"names"`
	Values                              map[string]json.RawMessage `json:"values"`
	ReturnValues                        string                     `json:"returnValues"`
	ReturnValuesOnConditionCheckFailure string                     `json:"returnValuesOnConditionCheckFailure"`
	ConsistentRead                      bool                       `json:"consistentRead"`
	Order                               string                     `json:"order"`
	PageSize                            int                        `json:"pageSize"`
	Shards                              *FanOut                    `json:"shards"`
	OnConditionFailed                   *Failure                   `json:"onConditionFailed"`
	OnMissing                           *Failure                   `json:"onMissing"`
	Before                              *string                    `json:"before"`
	After                               *string                    `json:"after"`
	Sample                              *string                    `json:"sample"`
	Matches                             []rawMatch                 `json:"matches"`
}

type rawMatch struct {
	Entity string `json:"entity"`
	Sample string `json:"sample"`
	Count  int    `json:"count"`
}

type rawTxItem struct {
	ID             string      `json:"id"`
	Description    string      `json:"description"`
	Put            *rawRequest `json:"put"`
	Update         *rawRequest `json:"update"`
	Delete         *rawRequest `json:"delete"`
	ConditionCheck *rawRequest `json:"conditionCheck"`
	Variants       []string    `json:"variants"`
}

type rawStep struct {
	ID             string      `json:"id"`
	Description    string      `json:"description"`
	Pattern        string      `json:"pattern"`
	Get            *rawRequest `json:"get"`
	Put            *rawRequest `json:"put"`
	Update         *rawRequest `json:"update"`
	Delete         *rawRequest `json:"delete"`
	Query          *rawRequest `json:"query"`
	Scan           *rawRequest `json:"scan"`
	ConditionCheck *rawRequest `json:"conditionCheck"`
	Transaction    *struct {
		Items []rawTxItem `json:"items"`
		Why   string      `json:"why"`
	} `json:"transaction"`
	Bind     []string `json:"bind"`
	When     string   `json:"when"`
	Variants []string `json:"variants"`
}

type rawBudget struct {
	Description string                       `json:"description"`
	WRU         *float64                     `json:"wru"`
	RRU         *float64                     `json:"rru"`
	FailedStep  string                       `json:"failedStep"`
	Samples     map[string]rawSampleOverride `json:"samples"`
	Pages       int                          `json:"pages"`
	Share       *float64                     `json:"share"`
	Reasoning   string                       `json:"reasoning"`
	// Params replace parameter samples in the variant.
	Params map[string]json.RawMessage `json:"params"`
}

type rawSampleOverride struct {
	Before *string `json:"before"`
	After  *string `json:"after"`
	Sample *string `json:"sample"`
}

type rawOperation struct {
	Description string               `json:"description"`
	Serves      []string             `json:"serves"`
	Trigger     string               `json:"trigger"`
	Idempotency string               `json:"idempotency"`
	Params      map[string]rawParam  `json:"params"`
	Steps       []rawStep            `json:"steps"`
	Volume      *rawVolume           `json:"volume"`
	Budgets     map[string]rawBudget `json:"budgets"`
}

type rawFigure struct {
	Statement  string   `json:"statement"`
	Value      *float64 `json:"value"`
	Unit       string   `json:"unit"`
	Derivation string   `json:"derivation"`
}

type rawScenario struct {
	Description string            `json:"description"`
	At          string            `json:"at"`
	Day         string            `json:"day"`
	Peak        string            `json:"peak"`
	Date        string            `json:"date"`
	Duration    string            `json:"duration"`
	Then        []string          `json:"then"`
	Load        []rawLoad         `json:"load"`
	Expect      []json.RawMessage `json:"expect"`
}

type rawReview struct {
	Answers map[string]string `json:"answers"`
	Accept  []Accept          `json:"accept"`
}
