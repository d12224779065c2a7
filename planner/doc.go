// Package planner predicts what a scenario's day does to a model's tables
// and indexes at full scale, partition by partition, without storing an
// item: the capacity planning before a peak that no laptop could do by
// loading 8 million items.
//
// The population is placed, not materialised: the dataset generator's
// model of it is sampled (the same items, value for value, a full load
// would write), each sampled item standing for its share of the whole,
// and the bytes each item and index entry weighs at the hash of its
// partition key split every table and global index into partitions near
// 10 GB, as DynamoDB does; the throughput model adds the partitions that
// throughput calls for. Every operation of the scenario becomes, per
// second, requests with the capacity rules' units (the static estimate of
// each step in each budget variant), landing on the partition keys the
// peak gate's spread reading gives (a skewed tenant, a day's date, the
// shards of an index), and each second is admitted at once by the
// throughput model the engine uses (throughput.Model.AdmitSecond): burst,
// adaptive capacity, on-demand scaling to twice the previous peak, warm
// throughput, splits for heat, GSI back-pressure and ThrottlingReasons
// are that model's, not re-implemented here.
//
// The Result says, per second, what each table and index consumed
// against its limit and what its hottest partitions did, the throttled
// requests by reason and units by resource, the first second each limit
// refused, the warm throughput and shard count that would have throttled
// nothing, and the span's US$. What-ifs (Options.Shards, Warm, Billing)
// change the model for one plan.
package planner
