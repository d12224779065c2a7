// Package executor runs the catalog's business operations on a DynamoDB
// target: it builds each step's exact request from the model (keys from
// templates, expressions, names and values, consistency, projection,
// page size and order, every shard of a sharded index, transactions),
// sends it through aws-sdk-go-v2 with ReturnConsumedCapacity INDEXES,
// binds what reads return into later steps, and maps failures to the
// outcomes the model declares (onConditionFailed, onMissing), reading a
// cancelled transaction's CancellationReasons to find the action at
// fault.
//
// The budget gate measures operations with it, the load generator replays
// scenarios with it, and the code generator's output must send exactly
// its requests: an operation is compiled once (Compile) into plans whose
// static parts (expressions, names, key conditions) the generator can read
// as they are, and each run only fills in values.
//
// One code path serves every target: the embedded engine in process,
// cardapio serve, dynalite, DynamoDB Local and AWS. The executor talks to
// them through API, the handful of DynamoDB methods it uses, which
// *dynamodb.Client satisfies and a caller may wrap (to record requests,
// for example).
//
// Capacity is what the responses report, per step, per table and per
// index. Where a response carries none although AWS bills the request (a
// failed conditional write, a cancelled transaction), the figure comes
// from the capacity package's rules and is marked computed; the embedded
// engine reports those charges in engine.BilledHeader, which the executor
// reads, so a run there is measured throughout.
//
// Conventions the model leaves open, decided here as the static estimate
// (capacity/estimate) decides them, so that measured and static figures
// can be compared:
//
//   - a step runs in a variant unless its variants exclude it;
//   - a declared failure (succeed, stop, fail) ends the operation; retry
//     ends the run too, and Options.Retries re-runs the operation from
//     its first step that many times;
//   - one run of a query or scan reads, on each shard, the pages its
//     matches fill (split at the page size or 1 MB by capacity.Pager, as
//     the static estimate counts them), following LastEvaluatedKey; a
//     scan without matches reads its whole answer; Budget.Pages repeats
//     those requests, counted again at their measured figures
//     (StepResult.Repeated) instead of being sent again;
//   - a fan-out over a sharded index sends one query per shard value,
//     0 to count-1; over an index without shards, one query per worker;
//     the shards are read at once (up to 8 requests in flight) and
//     their answers taken in shard order, so figures, bindings and
//     failures are those of a sequential read;
//   - Seed writes through a Loader: target.Target puts the items into
//     the embedded engine with its bulk load (engine.Engine.Load, the
//     puts BatchWriteItem makes, without the wire), and elsewhere sends
//     ordinary batch writes: what it seeds is not measured, the steps
//     are, so both give the same figures.
package executor
