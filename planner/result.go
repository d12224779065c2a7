package planner

import "time"

// Result is a plan: what the scenario's span does to every table and
// index at the model's scale, second by second. It is the planner's one
// output: the text report and the HTML charts are drawn from it, and
// `cardapio plan --format json` prints it as is (its JSON names are part
// of the command's contract; fields are only ever added).
//
// Zero figures of a series point are left out (throttled, hottest).
// Seconds are counted from the scenario's start (Start); a series holds
// one point per Resolution seconds, each the busiest second of its
// interval (peak consumed, peak demand, the lowest limit) and the sum of
// its throttled units, so that a chart of a day at a minute per point
// still shows every throttled second.
type Result struct {
	Model string `json:"model"`
	// File is the model file planned, as its caller named it (empty when
	// the model came from elsewhere); it tells two plans of one model's
	// copies apart.
	File     string    `json:"file,omitempty"`
	Scenario string    `json:"scenario"`
	Start    time.Time `json:"start"`
	Seconds  int       `json:"seconds"`
	// Resolution is the seconds each series point and heatmap cell
	// covers.
	Resolution int `json:"resolution"`
	// WhatIf lists the changes from the model this plan ran with
	// (shards, warm throughput, billing), in words; empty for the model
	// as declared.
	WhatIf     []string    `json:"whatIf,omitempty"`
	Population Population  `json:"population"`
	Loads      []LoadPlan  `json:"loads"`
	Resources  []Resource  `json:"resources"`
	Throttled  Throttled   `json:"throttled"`
	First      []FirstHit  `json:"firstLimitHit,omitempty"`
	Advice     Advice      `json:"advice"`
	Cost       Cost        `json:"cost"`
	Notes      []string    `json:"notes,omitempty"`
	Heatmaps   []Heatmap   `json:"heatmaps"`
	Verdict    Verdict     `json:"verdict"`
	Elapsed    float64     `json:"elapsedSeconds"`
	Assumption Assumptions `json:"assumptions"`
}

// Population is how the model's items were placed.
type Population struct {
	// Items is the number of items the model declares (all entities, at
	// the scale); Sampled the items generated to place them.
	Items   float64 `json:"items"`
	Sampled int     `json:"sampled"`
	Note    string  `json:"note,omitempty"`
}

// LoadPlan is one load of the scenario: its operation's runs and what
// became of its requests.
type LoadPlan struct {
	Name      string  `json:"name"`
	Operation string  `json:"operation"`
	Shape     string  `json:"shape"`    // how its runs spread over the span, in words
	Variants  string  `json:"variants"` // how its budget variants are weighed
	Runs      float64 `json:"runs"`
	// Requests, Admitted and Throttled count requests over every step.
	Requests  float64 `json:"requests"`
	Admitted  float64 `json:"admitted"`
	Throttled float64 `json:"throttled"`
	// Reasons are its throttled requests by ThrottlingReason (a request
	// refused by two resources counts under both).
	Reasons map[string]float64 `json:"reasons,omitempty"`
	Steps   []StepPlan         `json:"steps"`
}

// StepPlan is one request kind of a load.
type StepPlan struct {
	ID        string   `json:"id"`
	Variant   string   `json:"variant,omitempty"`
	Share     float64  `json:"share"`
	PerRun    float64  `json:"perRun"`
	RRU       float64  `json:"rru"` // of one request, every structure
	WRU       float64  `json:"wru"`
	Keys      []string `json:"keys"` // where it lands, per structure
	Requests  float64  `json:"requests"`
	Throttled float64  `json:"throttled"`
}

// Resource is the table or one of its global secondary indexes.
type Resource struct {
	Table string `json:"table"`
	Index string `json:"index,omitempty"` // "" for the table
	Mode  string `json:"mode"`            // PROVISIONED or PAY_PER_REQUEST
	// Partitions at the start (after the size splits) and at the end.
	PartitionsStart int     `json:"partitionsStart"`
	PartitionsEnd   int     `json:"partitionsEnd"`
	SizeGB          float64 `json:"sizeGB"`
	// PartitionRead and PartitionWrite are one partition's caps.
	PartitionRead  float64 `json:"partitionRead"`
	PartitionWrite float64 `json:"partitionWrite"`
	// Totals over the span, in units.
	Consumed  Units `json:"consumed"`
	Throttled Units `json:"throttled"`
	// Peak is the busiest second's consumed units, PeakDemand the
	// busiest second's demand (consumed + throttled), each direction
	// apart.
	Peak       Units `json:"peak"`
	PeakDemand Units `json:"peakDemand"`
	// Read and Write are the per-second series (len Seconds/Resolution,
	// rounded up).
	Read  []Point `json:"read"`
	Write []Point `json:"write"`
	// Hottest are the partitions with the highest peak demand, hottest
	// first.
	Hottest []Partition `json:"hottest"`
}

// Units are read and write units.
type Units struct {
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
}

// Point is one interval of a series.
type Point struct {
	Second    int     `json:"t"`
	Consumed  float64 `json:"consumed"`            // the interval's busiest second
	Demand    float64 `json:"demand"`              // consumed + throttled, busiest second
	Limit     float64 `json:"limit"`               // the table-level limit, lowest in the interval
	Throttled float64 `json:"throttled,omitempty"` // units, summed over the interval
	// Hottest is the busiest partition's consumed units in the
	// interval's busiest second, against PartitionCap.
	Hottest float64 `json:"hottest,omitempty"`
}

// Partition is one partition of a resource: its hash range and its
// figures over the span.
type Partition struct {
	Lo string `json:"lo"` // hash range, hex, inclusive
	Hi string `json:"hi"`
	// Share is the part of the key space it owns.
	Share float64 `json:"share"`
	// Keys names the partition keys of the load it holds, when known.
	Keys       []string `json:"keys,omitempty"`
	Consumed   Units    `json:"consumed"`
	Throttled  Units    `json:"throttled"`
	PeakDemand Units    `json:"peakDemand"`
	// FirstThrottled is the first second it throttled, -1 when never.
	FirstThrottled int `json:"firstThrottled"`
}

// Throttled sums the span's refusals.
type Throttled struct {
	Requests float64 `json:"requests"`
	// Reasons are refused requests by ThrottlingReason, over every load.
	Reasons map[string]float64 `json:"reasons,omitempty"`
	// Units are the refused units per resource ("table" or
	// "table/index") and direction.
	Units map[string]Units `json:"units,omitempty"`
}

// FirstHit is the first second a limit refused a request.
type FirstHit struct {
	Table     string `json:"table"`
	Index     string `json:"index,omitempty"`
	Direction string `json:"direction"` // read or write
	// Limit is what refused: KeyRangeThroughputExceeded (a partition's
	// cap) or the table-level limit (ProvisionedThroughputExceeded,
	// warm throughput or twice the previous peak, AccountLimitExceeded,
	// MaxOnDemandThroughputExceeded), as ThrottlingReasons name them.
	Limit     string    `json:"limit"`
	Reason    string    `json:"reason"` // the ThrottlingReason
	Second    int       `json:"second"`
	At        time.Time `json:"at"`
	Partition string    `json:"partition"` // the hash range of the partition throttling most then
	Keys      []string  `json:"keys,omitempty"`
	Units     float64   `json:"units"` // throttled that second
}

// Advice is what would have given no throttling.
type Advice struct {
	// Warm is the warm throughput (table and each index) that serves the
	// span's busiest second at once: its peak demand.
	Warm []WarmAdvice `json:"warm"`
	// Shards is, for each sharded index that throttled on its
	// partitions, the smallest shard count found with no throttling of
	// it (0 when none up to the search's bound).
	Shards []ShardAdvice `json:"shards,omitempty"`
}

// WarmAdvice is one resource's warm throughput.
type WarmAdvice struct {
	Table string  `json:"table"`
	Index string  `json:"index,omitempty"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
	// StartRead and StartWrite are the table-level limits the resource
	// started the span with (its warm throughput on demand, its
	// capacity provisioned).
	StartRead  float64 `json:"startRead"`
	StartWrite float64 `json:"startWrite"`
	// Enough is false when partition caps would throttle whatever the
	// warm throughput (one key's demand above one partition's cap).
	Enough bool   `json:"enough"`
	Note   string `json:"note,omitempty"`
}

// ShardAdvice is one index's shard count.
type ShardAdvice struct {
	Index      string `json:"index"`
	Declared   int    `json:"declared"`
	Planned    int    `json:"planned"` // the count this plan ran with
	NoThrottle int    `json:"noThrottle"`
	Tried      []int  `json:"tried"`
}

// Cost is the span's US$ by the model's prices.
type Cost struct {
	USD    float64 `json:"usd"`
	Basis  string  `json:"basis"`
	RRU    float64 `json:"rru"` // consumed read units, every structure
	WRU    float64 `json:"wru"`
	Prices string  `json:"prices"`
}

// Heatmap is one resource's partitions over time: Cells[p][i] is
// partition Partitions[p]'s busiest second in interval i, as demand over
// the partition's cap (1 = at the cap; above: throttled), in the
// direction named. An interval is Resolution seconds: the series'
// resolution, or a multiple of it so that a heatmap has at most
// MaxHeatmapColumns columns.
type Heatmap struct {
	Table      string      `json:"table"`
	Index      string      `json:"index,omitempty"`
	Direction  string      `json:"direction"`
	Resolution int         `json:"resolution"`
	Partitions []string    `json:"partitions"` // hash ranges, lo-hi
	Cells      [][]float64 `json:"cells"`
}

// Verdict is the plan's answer.
type Verdict struct {
	Throttled bool   `json:"throttled"`
	Summary   string `json:"summary"`
}

// Assumptions are the model constants the plan ran with.
type Assumptions struct {
	SplitAfterSeconds float64 `json:"splitAfterSeconds"`
	PeakWindowSeconds float64 `json:"peakWindowSeconds"`
	Sample            int     `json:"sample"`
	Seed              uint64  `json:"seed"`
}

// MaxHeatmapColumns bounds a heatmap's intervals: a day at a minute each.
const MaxHeatmapColumns = 1440
