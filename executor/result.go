package executor

import (
	"encoding/json"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// Kind is the outcome of one run of an operation.
type Kind string

// Outcomes. The failure kinds are the catalog's (catalog.FailureKind),
// read from each request's shape; the model's words for them are in
// Outcome.Meaning.
const (
	Applied         Kind = "applied"
	AlreadyApplied  Kind = Kind(catalog.FailAlreadyApplied)
	Exists          Kind = Kind(catalog.FailExists)
	LimitReached    Kind = Kind(catalog.FailLimitReached)
	VersionConflict Kind = Kind(catalog.FailVersionConflict)
	NotFound        Kind = Kind(catalog.FailNotFound)
	ConditionFailed Kind = Kind(catalog.FailCondition)
	// Conflict is a transaction cancelled by another one on the same
	// item (TransactionConflict).
	Conflict  Kind = "transaction-conflict"
	Throttled Kind = "throttled"
	Error     Kind = "error"
)

// Outcome is how a run ended.
type Outcome struct {
	Kind Kind `json:"kind"`
	// Step is the step (step/action for a transaction action) whose
	// result decided the outcome; "" when every step ran.
	Step string `json:"step,omitempty"`
	// Meaning and Declared are the model's failure: its words, and what
	// the operation does (succeed, stop, retry, fail).
	Meaning  string `json:"meaning,omitempty"`
	Declared string `json:"declared,omitempty"`
	// Throttling lists the reasons of a throttled request.
	Throttling []Throttle `json:"throttling,omitempty"`
	// Message is the error's text, for Error, Conflict and Throttled.
	Message string `json:"message,omitempty"`
	Err     error  `json:"-"`
}

// OK reports whether the run did what the model says it should: every
// step applied, or a failure the model declares a success or a stop.
func (o Outcome) OK() bool {
	switch o.Kind {
	case Applied:
		return true
	case Throttled, Error, Conflict:
		return false
	}
	return o.Declared == "succeed" || o.Declared == "stop"
}

// Label is the outcome as a load counts and prints it: its kind, but a
// plain failed condition by the name of the model's meaning
// (catalog.MeaningLabel: "contract-settled-or-owes"), since
// "condition-failed" tells one refusal from no other.
func (o Outcome) Label() string {
	if o.Kind == ConditionFailed {
		if l := catalog.MeaningLabel(o.Meaning); l != "" {
			return l
		}
	}
	return string(o.Kind)
}

// Retry reports whether the model says to retry the operation.
func (o Outcome) Retry() bool { return o.Declared == "retry" }

// Throttle is one ThrottlingReason of a throttled request.
type Throttle struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

// Result is one run of an operation.
type Result struct {
	Operation string       `json:"operation"`
	Variant   string       `json:"variant,omitempty"`
	Outcome   Outcome      `json:"outcome"`
	Steps     []StepResult `json:"steps"`
	// Attempts counts the runs a retried operation took (1 without).
	Attempts int `json:"attempts"`
	// Capacity is the run's total, per table and per index.
	Capacity Capacity `json:"capacity"`
	// Values are the parameters and bound attributes the run ended
	// with, with Options.Keep (nil otherwise).
	Values map[string]attr.Value `json:"-"`
}

// StepResult is what one step sent and consumed.
type StepResult struct {
	ID       string           `json:"id"`
	Kind     catalog.StepKind `json:"kind"`
	Requests int              `json:"requests"`
	// Repeated counts the pages of a variant that reads its answer more
	// than once (Budget.Pages) that were counted again, at the figure
	// measured for the same request, rather than sent again.
	Repeated int `json:"repeated,omitempty"`
	// Items is how many items a read returned (after filters).
	Items int `json:"items,omitempty"`
	// Failed tells that this step's condition failed or its item was
	// missing (its Outcome is the run's).
	Failed   bool     `json:"failed,omitempty"`
	Capacity Capacity `json:"capacity"`
	// LastKey is where a paginated read stopped, nil when it read to the
	// end.
	LastKey map[string]types.AttributeValue `json:"-"`
	// Found are the items the read returned, with Options.Keep.
	Found []map[string]types.AttributeValue `json:"-"`
}

// Capacity is consumed capacity in read and write units, in total, per
// table (by the model's table names) and per index (by index name).
type Capacity struct {
	WRU     float64                      `json:"wru"`
	RRU     float64                      `json:"rru"`
	Tables  map[string]capacity.Capacity `json:"tables,omitempty"`
	Indexes map[string]capacity.Capacity `json:"indexes,omitempty"`
	// Computed is set when some figure came from the billing rules
	// because the target reported none (a failed conditional write or a
	// cancelled transaction on AWS or an emulator); ComputedUnits says
	// how many of the units did.
	Computed      bool    `json:"computed,omitempty"`
	ComputedUnits float64 `json:"computedUnits,omitempty"`
	// Missing is set when a target reported no capacity at all for a
	// request that has one (an emulator that ignores
	// ReturnConsumedCapacity).
	Missing bool `json:"missing,omitempty"`
}

// add adds one table's charge, as the model names the table.
func (c *Capacity) add(table string, x capacity.Consumed, computed bool) {
	t := x.Total()
	c.WRU += t.Write
	c.RRU += t.Read
	if computed {
		c.Computed = true
		c.ComputedUnits += t.Write + t.Read
	}
	if x.Table != (capacity.Capacity{}) || len(x.GSIs)+len(x.LSIs) == 0 {
		if c.Tables == nil {
			c.Tables = map[string]capacity.Capacity{}
		}
		c.Tables[table] = c.Tables[table].Add(x.Table)
	}
	for _, m := range []map[string]capacity.Capacity{x.GSIs, x.LSIs} {
		for k, v := range m {
			if c.Indexes == nil {
				c.Indexes = map[string]capacity.Capacity{}
			}
			c.Indexes[k] = c.Indexes[k].Add(v)
		}
	}
}

// Add adds o to c.
func (c *Capacity) Add(o Capacity) {
	c.WRU += o.WRU
	c.RRU += o.RRU
	c.Computed = c.Computed || o.Computed
	c.ComputedUnits += o.ComputedUnits
	c.Missing = c.Missing || o.Missing
	for k, v := range o.Tables {
		if c.Tables == nil {
			c.Tables = map[string]capacity.Capacity{}
		}
		c.Tables[k] = c.Tables[k].Add(v)
	}
	for k, v := range o.Indexes {
		if c.Indexes == nil {
			c.Indexes = map[string]capacity.Capacity{}
		}
		c.Indexes[k] = c.Indexes[k].Add(v)
	}
}

// IndexNames returns the indexes charged, sorted.
func (c *Capacity) IndexNames() []string {
	out := make([]string, 0, len(c.Indexes))
	for k := range c.Indexes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fromSDK converts a response's ConsumedCapacity. Responses of
// non-transactional requests give CapacityUnits only: write says whether
// they are write or read units.
func fromSDK(cc *types.ConsumedCapacity, write bool) capacity.Consumed {
	c := capacity.Consumed{TableName: aws.ToString(cc.TableName)}
	split := func(total, r, w *float64) capacity.Capacity {
		switch {
		case r != nil || w != nil:
			return capacity.Capacity{Read: aws.ToFloat64(r), Write: aws.ToFloat64(w)}
		case write:
			return capacity.Capacity{Write: aws.ToFloat64(total)}
		}
		return capacity.Capacity{Read: aws.ToFloat64(total)}
	}
	if cc.Table != nil {
		c.Table = split(cc.Table.CapacityUnits, cc.Table.ReadCapacityUnits, cc.Table.WriteCapacityUnits)
	} else if len(cc.GlobalSecondaryIndexes)+len(cc.LocalSecondaryIndexes) == 0 {
		// TOTAL only (an emulator without INDEXES): the whole charge is
		// the table's.
		c.Table = split(cc.CapacityUnits, cc.ReadCapacityUnits, cc.WriteCapacityUnits)
	}
	for k, v := range cc.GlobalSecondaryIndexes {
		if c.GSIs == nil {
			c.GSIs = map[string]capacity.Capacity{}
		}
		c.GSIs[k] = split(v.CapacityUnits, v.ReadCapacityUnits, v.WriteCapacityUnits)
	}
	for k, v := range cc.LocalSecondaryIndexes {
		if c.LSIs == nil {
			c.LSIs = map[string]capacity.Capacity{}
		}
		c.LSIs[k] = split(v.CapacityUnits, v.ReadCapacityUnits, v.WriteCapacityUnits)
	}
	return c
}

// wireConsumed is ConsumedCapacity as engine.BilledHeader carries it.
type wireConsumed struct {
	TableName              *string
	CapacityUnits          *float64
	ReadCapacityUnits      *float64
	WriteCapacityUnits     *float64
	Table                  *wireUnits
	GlobalSecondaryIndexes map[string]wireUnits
	LocalSecondaryIndexes  map[string]wireUnits
}

type wireUnits struct {
	CapacityUnits, ReadCapacityUnits, WriteCapacityUnits *float64
}

func (w wireConsumed) sdk() *types.ConsumedCapacity {
	cc := &types.ConsumedCapacity{TableName: w.TableName, CapacityUnits: w.CapacityUnits, ReadCapacityUnits: w.ReadCapacityUnits, WriteCapacityUnits: w.WriteCapacityUnits}
	conv := func(u wireUnits) types.Capacity {
		return types.Capacity{CapacityUnits: u.CapacityUnits, ReadCapacityUnits: u.ReadCapacityUnits, WriteCapacityUnits: u.WriteCapacityUnits}
	}
	if w.Table != nil {
		t := conv(*w.Table)
		cc.Table = &t
	}
	for _, m := range []struct {
		src map[string]wireUnits
		dst *map[string]types.Capacity
	}{{w.GlobalSecondaryIndexes, &cc.GlobalSecondaryIndexes}, {w.LocalSecondaryIndexes, &cc.LocalSecondaryIndexes}} {
		if len(m.src) == 0 {
			continue
		}
		*m.dst = map[string]types.Capacity{}
		for k, v := range m.src {
			(*m.dst)[k] = conv(v)
		}
	}
	return cc
}

// parseBilled reads engine.BilledHeader: an object or a list of them.
func parseBilled(h string) []*types.ConsumedCapacity {
	if h == "" {
		return nil
	}
	var list []wireConsumed
	if h[0] == '{' {
		var one wireConsumed
		if json.Unmarshal([]byte(h), &one) != nil {
			return nil
		}
		list = []wireConsumed{one}
	} else if json.Unmarshal([]byte(h), &list) != nil {
		return nil
	}
	out := make([]*types.ConsumedCapacity, len(list))
	for i, w := range list {
		out[i] = w.sdk()
	}
	return out
}
