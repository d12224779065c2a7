package throughput

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Mode is a table's billing mode, spelled as DynamoDB's BillingMode.
type Mode string

// The billing modes.
const (
	Provisioned Mode = "PROVISIONED"
	OnDemand    Mode = "PAY_PER_REQUEST"
)

// ParseMode accepts DynamoDB's BillingMode values and the usual short
// forms ("provisioned", "on_demand", "on-demand", "ondemand"); "" is
// PROVISIONED, DynamoDB's default.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "PROVISIONED", "provisioned":
		return Provisioned, nil
	case "PAY_PER_REQUEST", "pay_per_request", "on_demand", "on-demand", "ondemand", "ON_DEMAND":
		return OnDemand, nil
	}
	return "", fmt.Errorf("unknown billing mode %q (want PROVISIONED or PAY_PER_REQUEST)", s)
}

// AWS's figures, in units per second.
const (
	DefaultPartitionRead  = 3000  // read units per partition
	DefaultPartitionWrite = 1000  // write units per partition
	DefaultWarmRead       = 12000 // a new on-demand table or index
	DefaultWarmWrite      = 4000
	DefaultTableQuota     = 40000 // per-table account quota, read and write each
)

// The model's defaults for what AWS does not publish.
const (
	// DefaultSplitAfter is how long a partition must stay hot before it
	// splits for heat. AWS publishes no figure; sources suggest minutes,
	// and the load model sweeps 2 to 15 minutes. Five minutes sits in
	// that range and is longer than the batches a simulation usually
	// throttles (so a split does not hide the throttling it explains).
	DefaultSplitAfter = 5 * time.Minute
	// DefaultSplitTheta is the fraction of a partition's cap that counts
	// as hot.
	DefaultSplitTheta = 0.8
	// DefaultPeakWindow is how long an on-demand table takes to adapt to
	// a new peak: traffic above twice the previous peak within this
	// window may throttle.
	DefaultPeakWindow = 30 * time.Minute
	// DefaultBurst is how much unused provisioned capacity is banked.
	DefaultBurst = 300 * time.Second
)

// Config sets up a Model. The zero value models AWS at full scale on the
// wall clock.
type Config struct {
	// Scale multiplies every capacity figure: partition caps, warm
	// throughput, quotas, maxima and provisioned capacity. With 0.01,
	// local traffic at 1/100 of production hits the limits production
	// traffic hits on AWS. Partition counts do not scale (they follow
	// the AWS figures), so keys spread over partitions as on AWS.
	// 0 means 1.
	Scale float64
	// Now is the clock; nil means time.Now. The model never sleeps: time
	// only passes when Now says so.
	Now func() time.Time
	// SplitAfter is how long demand must stay at or above SplitTheta of a
	// partition's cap before it splits for heat; 0 means
	// DefaultSplitAfter, negative disables splits for heat.
	SplitAfter time.Duration
	// SplitTheta is the hot fraction; 0 means DefaultSplitTheta.
	SplitTheta float64
	// PeakWindow is the on-demand adaptation delay; 0 means
	// DefaultPeakWindow.
	PeakWindow time.Duration
	// Burst is the banked unused provisioned capacity, in seconds of the
	// provisioned rate; 0 means DefaultBurst, negative means none.
	Burst time.Duration
	// PartitionRead and PartitionWrite are the per-partition caps in AWS
	// units; 0 means 3,000 and 1,000. (Raising PartitionRead to 4,500
	// models what one key was observed to serve to eventually
	// consistent queries.)
	PartitionRead, PartitionWrite float64
	// TableQuotaRead and TableQuotaWrite are the per-table account quota
	// of on-demand tables and indexes, in AWS units; 0 means 40,000.
	TableQuotaRead, TableQuotaWrite float64
	// History is how many seconds of per-second figures each partition
	// keeps for Snapshot; 0 means 60.
	History int
	// TopKeys is how many throttled keys each table or index tracks; 0
	// means 10.
	TopKeys int
	// MaxPartitions bounds the partitions of one table or index; 0 means
	// 4,096.
	MaxPartitions int
	// Region and Account appear in ARNs; default us-east-1 and
	// 000000000000.
	Region, Account string
}

// ResourceSpec describes the capacity of a table or of one of its global
// secondary indexes, in AWS units (the model applies Config.Scale).
type ResourceSpec struct {
	// Mode is the billing mode. For an index, "" means the table's mode
	// (DynamoDB bills a table and its indexes the same way); for a table,
	// "" means PROVISIONED.
	Mode Mode
	// ReadCapacity and WriteCapacity are the provisioned RCU and WCU.
	// An index of a provisioned table with both zero takes the table's.
	ReadCapacity, WriteCapacity float64
	// WarmRead and WarmWrite are the on-demand warm throughput, a floor
	// the resource can serve at once (raise them to pre-warm); 0 means
	// 12,000 and 4,000.
	WarmRead, WarmWrite float64
	// MaxRead and MaxWrite are MaxOnDemandThroughput; 0 or negative means
	// none (DynamoDB's -1).
	MaxRead, MaxWrite float64
	// SizeGB is the stored size, for the starting partition count.
	SizeGB float64
	// Partitions, when positive, is the starting partition count;
	// otherwise max(ceil(SizeGB/10), ceil(RCU/3000 + WCU/1000)) with the
	// provisioned capacity, or with the on-demand throughput the resource
	// can serve at once.
	Partitions int
}

// config is a validated Config with its defaults applied, in the units
// the model computes with (local units per second, nanoseconds).
type config struct {
	scale      float64
	now        func() time.Time
	splitAfter int64 // seconds; <0 never
	theta      float64
	peakWindow int64 // seconds
	burst      float64
	partCap    [2]float64 // AWS units
	quota      [2]float64 // AWS units
	history    int
	topKeys    int
	maxParts   int
	arnPrefix  string
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (c Config) check() (config, error) {
	var out config
	var errs []error
	num := func(name string, x float64) {
		if !finite(x) || x < 0 {
			errs = append(errs, fmt.Errorf("%s must be a finite number >= 0, got %v", name, x))
		}
	}
	num("scale", c.Scale)
	num("split theta", c.SplitTheta)
	num("partition read cap", c.PartitionRead)
	num("partition write cap", c.PartitionWrite)
	num("table read quota", c.TableQuotaRead)
	num("table write quota", c.TableQuotaWrite)
	if c.History < 0 || c.History > 86400 {
		errs = append(errs, fmt.Errorf("history must be between 0 and 86400 seconds, got %d", c.History))
	}
	if c.TopKeys < 0 || c.TopKeys > 10000 {
		errs = append(errs, fmt.Errorf("top keys must be between 0 and 10000, got %d", c.TopKeys))
	}
	if c.MaxPartitions < 0 || c.MaxPartitions > 1<<20 {
		errs = append(errs, fmt.Errorf("max partitions must be between 0 and %d, got %d", 1<<20, c.MaxPartitions))
	}
	if c.PeakWindow < 0 {
		errs = append(errs, fmt.Errorf("peak window must not be negative, got %v", c.PeakWindow))
	}
	if err := errors.Join(errs...); err != nil {
		return out, fmt.Errorf("throughput config: %w", err)
	}
	def := func(x, d float64) float64 {
		if x == 0 {
			return d
		}
		return x
	}
	out.scale = def(c.Scale, 1)
	out.now = c.Now
	if out.now == nil {
		out.now = time.Now
	}
	switch {
	case c.SplitAfter < 0:
		out.splitAfter = -1
	case c.SplitAfter == 0:
		out.splitAfter = int64(DefaultSplitAfter / time.Second)
	default:
		out.splitAfter = max(1, int64(c.SplitAfter/time.Second))
	}
	out.theta = def(c.SplitTheta, DefaultSplitTheta)
	out.peakWindow = int64(DefaultPeakWindow / time.Second)
	if c.PeakWindow > 0 {
		out.peakWindow = max(1, int64(c.PeakWindow/time.Second))
	}
	switch {
	case c.Burst < 0:
		out.burst = 0
	case c.Burst == 0:
		out.burst = DefaultBurst.Seconds()
	default:
		out.burst = c.Burst.Seconds()
	}
	out.partCap = [2]float64{def(c.PartitionRead, DefaultPartitionRead), def(c.PartitionWrite, DefaultPartitionWrite)}
	out.quota = [2]float64{def(c.TableQuotaRead, DefaultTableQuota), def(c.TableQuotaWrite, DefaultTableQuota)}
	out.history = c.History
	if out.history == 0 {
		out.history = 60
	}
	out.topKeys = c.TopKeys
	if out.topKeys == 0 {
		out.topKeys = 10
	}
	out.maxParts = c.MaxPartitions
	if out.maxParts == 0 {
		out.maxParts = 4096
	}
	region, account := c.Region, c.Account
	if region == "" {
		region = "us-east-1"
	}
	if account == "" {
		account = "000000000000"
	}
	out.arnPrefix = "arn:aws:dynamodb:" + region + ":" + account + ":table/"
	return out, nil
}

// normalize validates a spec and fills its defaults; table is the owning
// table's normalized spec when s describes an index.
func (s ResourceSpec) normalize(what string, table *ResourceSpec) (ResourceSpec, error) {
	var errs []error
	for _, f := range []struct {
		name string
		x    float64
	}{{"read capacity", s.ReadCapacity}, {"write capacity", s.WriteCapacity},
		{"warm read", s.WarmRead}, {"warm write", s.WarmWrite},
		{"size", s.SizeGB}} {
		if !finite(f.x) || f.x < 0 {
			errs = append(errs, fmt.Errorf("%s must be a finite number >= 0, got %v", f.name, f.x))
		}
	}
	for _, f := range []struct {
		name string
		x    float64
	}{{"max read", s.MaxRead}, {"max write", s.MaxWrite}} {
		if !finite(f.x) {
			errs = append(errs, fmt.Errorf("%s must be a finite number, got %v", f.name, f.x))
		}
	}
	if s.Partitions < 0 || s.Partitions > 1<<20 {
		errs = append(errs, fmt.Errorf("partitions must be between 0 and %d, got %d", 1<<20, s.Partitions))
	}
	switch s.Mode {
	case "":
		s.Mode = Provisioned
		if table != nil {
			s.Mode = table.Mode
		}
	case Provisioned, OnDemand:
	default:
		errs = append(errs, fmt.Errorf("unknown billing mode %q", s.Mode))
	}
	if table != nil && s.Mode != table.Mode && s.Mode != "" {
		errs = append(errs, fmt.Errorf("billing mode %s differs from the table's %s", s.Mode, table.Mode))
	}
	if err := errors.Join(errs...); err != nil {
		return s, fmt.Errorf("%s: %w", what, err)
	}
	if table != nil && s.Mode == Provisioned && s.ReadCapacity == 0 && s.WriteCapacity == 0 {
		s.ReadCapacity, s.WriteCapacity = table.ReadCapacity, table.WriteCapacity
	}
	if s.WarmRead == 0 {
		s.WarmRead = DefaultWarmRead
	}
	if s.WarmWrite == 0 {
		s.WarmWrite = DefaultWarmWrite
	}
	if s.MaxRead < 0 {
		s.MaxRead = 0
	}
	if s.MaxWrite < 0 {
		s.MaxWrite = 0
	}
	return s, nil
}
