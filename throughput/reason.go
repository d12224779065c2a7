package throughput

import "strings"

// Reason is one of DynamoDB's sixteen throttling reasons,
// {Table|Index}{Read|Write}{LimitType}, spelled exactly as in the
// ThrottlingReasons member of a throttling exception.
type Reason string

// The sixteen reasons.
const (
	TableReadKeyRangeThroughputExceeded     Reason = "TableReadKeyRangeThroughputExceeded"
	TableReadProvisionedThroughputExceeded  Reason = "TableReadProvisionedThroughputExceeded"
	TableReadAccountLimitExceeded           Reason = "TableReadAccountLimitExceeded"
	TableReadMaxOnDemandThroughputExceeded  Reason = "TableReadMaxOnDemandThroughputExceeded"
	TableWriteKeyRangeThroughputExceeded    Reason = "TableWriteKeyRangeThroughputExceeded"
	TableWriteProvisionedThroughputExceeded Reason = "TableWriteProvisionedThroughputExceeded"
	TableWriteAccountLimitExceeded          Reason = "TableWriteAccountLimitExceeded"
	TableWriteMaxOnDemandThroughputExceeded Reason = "TableWriteMaxOnDemandThroughputExceeded"
	IndexReadKeyRangeThroughputExceeded     Reason = "IndexReadKeyRangeThroughputExceeded"
	IndexReadProvisionedThroughputExceeded  Reason = "IndexReadProvisionedThroughputExceeded"
	IndexReadAccountLimitExceeded           Reason = "IndexReadAccountLimitExceeded"
	IndexReadMaxOnDemandThroughputExceeded  Reason = "IndexReadMaxOnDemandThroughputExceeded"
	IndexWriteKeyRangeThroughputExceeded    Reason = "IndexWriteKeyRangeThroughputExceeded"
	IndexWriteProvisionedThroughputExceeded Reason = "IndexWriteProvisionedThroughputExceeded"
	IndexWriteAccountLimitExceeded          Reason = "IndexWriteAccountLimitExceeded"
	IndexWriteMaxOnDemandThroughputExceeded Reason = "IndexWriteMaxOnDemandThroughputExceeded"
)

// reasons holds the sixteen reasons in a fixed order (resource, then
// direction, then limit), so that a table counts them in an array.
var reasons = [16]Reason{
	TableReadKeyRangeThroughputExceeded, TableReadProvisionedThroughputExceeded,
	TableReadAccountLimitExceeded, TableReadMaxOnDemandThroughputExceeded,
	TableWriteKeyRangeThroughputExceeded, TableWriteProvisionedThroughputExceeded,
	TableWriteAccountLimitExceeded, TableWriteMaxOnDemandThroughputExceeded,
	IndexReadKeyRangeThroughputExceeded, IndexReadProvisionedThroughputExceeded,
	IndexReadAccountLimitExceeded, IndexReadMaxOnDemandThroughputExceeded,
	IndexWriteKeyRangeThroughputExceeded, IndexWriteProvisionedThroughputExceeded,
	IndexWriteAccountLimitExceeded, IndexWriteMaxOnDemandThroughputExceeded,
}

// AllReasons returns the sixteen reasons.
func AllReasons() []Reason { return append([]Reason(nil), reasons[:]...) }

// limit is why a bucket refused: the last part of a Reason.
type limit uint8

const (
	keyRange    limit = iota // a partition's cap, or an on-demand table not yet scaled
	provisioned              // provisioned capacity plus burst
	account                  // the per-table account quota (on-demand)
	maxOnDemand              // the table's or index's MaxOnDemandThroughput
)

// The directions, as indexes into per-direction arrays.
const (
	read  = 0
	write = 1
)

// reasonIndex places a reason in the reasons array.
func reasonIndex(index bool, dir int, l limit) int {
	i := dir*4 + int(l)
	if index {
		i += 8
	}
	return i
}

// The exceptions that carry ThrottlingReasons.
const (
	// ExceptionProvisioned is returned for throttling of provisioned
	// tables and indexes, hot partitions included.
	ExceptionProvisioned = "ProvisionedThroughputExceededException"
	// ExceptionThrottling is returned for every throttling of on-demand
	// tables and indexes, hot partitions included.
	ExceptionThrottling = "ThrottlingException"
)

// DynamoDB's messages. The provisioned ones and the on-demand capacity
// ones are those the service sends (the SDKs document them as
// cancellation messages of transactions); the account and maximum
// throughput ones are modelled on the service's wording.
const (
	msgProvisionedTable = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgProvisionedIndex = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API."
	msgOnDemandTable    = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	msgOnDemandIndex    = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
	msgAccount          = "Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase"
	msgMaxOnDemand      = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
)

// ThrottlingReason is one entry of an exception's ThrottlingReasons: the
// limit hit and the ARN of the table or index that hit it.
type ThrottlingReason struct {
	Reason   Reason `json:"reason"`
	Resource string `json:"resource"`
}

// Throttle is a refused request: the exception DynamoDB would return, its
// message, and the reasons, the first of which decided the exception. A
// base-table write refused by one of its indexes (back-pressure) carries
// the index's reason and ARN.
type Throttle struct {
	Exception string
	Message   string
	Reasons   []ThrottlingReason
	// OnDemand reports whether the first reason's resource is on-demand,
	// which decides the exception and the cancellation code.
	OnDemand bool
}

// Error makes a Throttle usable as an error.
func (t *Throttle) Error() string { return t.Exception + ": " + t.Message }

// Code is the cancellation reason code a transaction item carries when
// it is throttled: ProvisionedThroughputExceeded for provisioned
// resources, ThrottlingError for on-demand ones.
func (t *Throttle) Code() string {
	if t.OnDemand {
		return "ThrottlingError"
	}
	return "ProvisionedThroughputExceeded"
}

// Has reports whether r is among the throttle's reasons.
func (t *Throttle) Has(r Reason) bool {
	for _, x := range t.Reasons {
		if x.Reason == r {
			return true
		}
	}
	return false
}

// String lists the reasons, for logs.
func (t *Throttle) String() string {
	var b strings.Builder
	b.WriteString(t.Exception)
	for i, r := range t.Reasons {
		if i == 0 {
			b.WriteString(" [")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(string(r.Reason))
		b.WriteString(" ")
		b.WriteString(r.Resource)
	}
	if len(t.Reasons) > 0 {
		b.WriteString("]")
	}
	return b.String()
}

// newThrottle words the exception for a first reason on a resource.
func newThrottle(onDemand, index bool, l limit) *Throttle {
	t := &Throttle{OnDemand: onDemand, Exception: ExceptionProvisioned}
	switch {
	case onDemand && l == account:
		t.Exception, t.Message = ExceptionThrottling, msgAccount
	case onDemand && l == maxOnDemand:
		t.Exception, t.Message = ExceptionThrottling, msgMaxOnDemand
	case onDemand && index:
		t.Exception, t.Message = ExceptionThrottling, msgOnDemandIndex
	case onDemand:
		t.Exception, t.Message = ExceptionThrottling, msgOnDemandTable
	case index:
		t.Message = msgProvisionedIndex
	default:
		t.Message = msgProvisionedTable
	}
	return t
}
