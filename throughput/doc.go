// Package throughput models DynamoDB's throughput limits so that the
// embedded engine can throttle as AWS does: which requests are refused,
// with which exception and ThrottlingReasons, and how much each
// partition served. It is a pure, deterministic library: time comes from
// an injected clock, nothing sleeps and nothing runs in the background,
// so hours of traffic can be replayed in a test by advancing a
// ManualClock.
//
// # What is modelled
//
// Each table and each global secondary index is split into partitions
// owning contiguous ranges of a 64-bit hash of the partition key (for a
// multi-attribute index key, of all its partition attributes together).
// The starting count is a parameter (ResourceSpec.Partitions) and
// defaults to the community heuristic max(ceil(GB/10),
// ceil(RCU/3000 + WCU/1000)), with the provisioned capacity or, on
// demand, the throughput the resource can serve at once. Partitions are
// added, never merged, when:
//   - capacity passes its previous high (a provisioned increase, a new
//     on-demand high-water mark, pre-warming, a larger size): every
//     partition wider than 1/n of the key space is halved, n from the
//     heuristic, so counts grow by doubling as splits do;
//   - a partition stays hot (the demand reaching it, served or refused by
//     its cap, at least Config.SplitTheta of its caps, default 0.8) for
//     Config.SplitAfter consecutive seconds (default 5 minutes; AWS
//     publishes no figure and the load model sweeps 2 to 15): it splits
//     at the median of the heat it saw, tracked per key with a small
//     space-saving sketch, so that two hot keys end up apart and a
//     single hot key alone on a partition, which still cannot exceed the
//     cap.
//
// Every admission passes two kinds of token bucket, read and write
// apart:
//   - per partition, the hard cap of 3,000 read and 1,000 write units a
//     second, holding at most one second of it. Nothing lifts this cap.
//   - per table or index, the table-level limit. Provisioned: the
//     provisioned rate, banking up to Config.Burst (300 s) of unused
//     capacity. The bucket is shared by all the partitions, which is
//     adaptive capacity taken as instant: a partition may use its even
//     share plus whatever the others leave unused, up to its cap. So a
//     150 RCU table idle for five minutes banks 45,000 units and then
//     serves 200 RCU for 900 s, or up to 3,000 RCU on one partition for
//     about 16 s. A new table starts with one second of its rate banked.
//     On-demand: min(max(warm throughput, 2 x the adapted peak), the
//     per-table account quota (40,000), MaxOnDemandThroughput), holding
//     one second of it. The adapted peak is the highest per-second
//     consumption seen at least Config.PeakWindow (30 minutes) ago, so
//     traffic may double the previous peak at once but not go beyond
//     within the window; reaching a new peak raises the rate (and adds
//     partitions) once the window has passed. Warm throughput defaults to
//     12,000 read and 4,000 write units for a table and for each index;
//     raising it pre-warms.
//
// A write that also writes global secondary indexes is admitted only if
// the table's buckets and every touched index partition's buckets can
// take it (all or nothing); an index that cannot refuses the base-table
// write with the index's reason and ARN (back-pressure). AdmitAll does
// the same across the items of a transaction. Refused requests consume
// nothing; they count as demand for heat and as throttled units.
//
// Config.Scale multiplies every capacity (partition caps, warm
// throughput, quotas, maxima, provisioned capacity) but not partition
// counts, so that local traffic at 1/100 with Scale 0.01 meets the same
// limits, on the same partitions, as the full traffic on AWS.
//
// # Reasons and exceptions
//
// A refusal names one reason per refusing resource,
// {Table|Index}{Read|Write}{Limit}, with the resource's ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/T or .../table/T/index/I). The
// limit is:
//   - KeyRangeThroughputExceeded: a partition's cap; or, on-demand, the
//     warm throughput or twice the previous peak (AWS has then not yet
//     split the partitions that would serve the traffic);
//   - ProvisionedThroughputExceeded: provisioned capacity and burst spent;
//   - AccountLimitExceeded: the on-demand per-table quota;
//   - MaxOnDemandThroughputExceeded: the configured on-demand maximum.
//
// When both the table-level limit and a partition cap refuse, the
// table-level reason is given. The exception follows the billing mode of
// the first refusing resource (the table itself, then the indexes in
// request order): ProvisionedThroughputExceededException for provisioned
// resources and ThrottlingException for on-demand ones, hot partitions
// included, which is what DynamoDB returns (on-demand hot keys come back
// as ThrottlingException with the "automatically scaling" message); in a
// transaction the matching cancellation codes are
// ProvisionedThroughputExceeded and ThrottlingError (Throttle.Code).
// RequestLimitExceeded, an account-wide quota over all tables, is not
// modelled.
//
// # A second at a time
//
// AdmitSecond decides a whole second of aggregated demand at once, for
// simulations of full-scale traffic (the planner): each Load is a kind of
// request, how many arrive in the second and what each charges, on which
// keys (hashes with shares, or spread over the key space). The buckets,
// partitions, splits, on-demand adaptation, reasons and figures are the
// ones Admit uses; the requests of a second are taken as a fluid arriving
// evenly, each bucket passing the fraction of the demand reaching it that
// its tokens and the second's refill cover, all or nothing per request
// across the buckets it needs, the pass fractions found together by
// iterating to a fixed point. Against Admit with requests arriving at
// random instants the two agree within a few percent (the tests measure
// it), except where requests of different sizes contend for one bucket:
// Admit lets a small request through whenever the tokens cover it, so
// small ones pass more often, while the fluid shares the bucket in
// proportion to demand (the units served are the same). Place splits
// partitions by size from where the data lies (near 10 GB, at the median
// of the data), which the engine, sizing tables at Define, does not.
//
// # Not modelled
//
// Reads and writes have separate partition caps rather than the linear
// combination AWS also mentions; burst is banked per table rather than
// per partition; partitions do not split on size while the engine runs
// (only SizeGB at Define counts; Place is for simulations); the on-demand
// adaptation is a step after the window rather than a ramp.
//
// # Observability
//
// Snapshot copies, per table and index, the current rates and banked
// tokens, per-partition totals and the last Config.History seconds of
// consumed and throttled units, the splits made, counts per reason and
// the most throttled keys (hash and the start of the key's text). It
// locks one table at a time and may run while admissions continue.
//
// Lag is the helper for the engine's optional index propagation delay.
package throughput
