// Package engine is cardapio's embedded DynamoDB-compatible engine:
// tables with their global and local secondary indexes, the item, query,
// batch and transaction operations, time to live, streams, in memory or
// kept in a data directory, and a server speaking DynamoDB's JSON 1.0
// wire protocol (and the streams API) so that any SDK or the AWS CLI can
// use it.
//
// It exists so that models can be exercised and billed without an AWS
// account: every operation reports ConsumedCapacity computed by the
// capacity package, and errors carry DynamoDB's exception names and
// wording.
//
// # Use
//
// In process, New returns an Engine whose methods take and return the
// request and response shapes of DynamoDB's API (CreateTable, PutItem,
// Query, TransactWriteItems, ...), with attr values for items; failures
// are *Error values whose Type is the exception name. Handler serves the
// same engine over HTTP; cardapio serve runs it on a local port.
//
// # Storage
//
// Items are held as compact binary encodings in a B-tree per table,
// ordered by the hash of the partition key and then by sort key, as
// DynamoDB lays them out (keys.go); Query turns key conditions into byte
// ranges, and parallel Scan segments are ranges of the hash. An item is
// one allocation: its table key, then its attributes with the key's
// string values left out (the key holds them) and their names numbered
// in a dictionary of the table (record.go); what leaves memory (the data
// log, stream records) is the portable form of codec.go. Index entries
// are small keys that point at the base record rather than copies of
// the item. A record's bytes are never modified in place, so readers
// decode outside the lock.
//
// # Concurrency
//
// Each table has its own lock; operations spanning tables take the locks
// in name order. A transaction checks every condition and prepares under
// the locks, marks its items in flight, and commits after re-taking them:
// writes and transactions reaching an item in flight meanwhile fail with
// TransactionConflict, as on DynamoDB.
//
// # Hooks
//
// Options.Admit is asked before a write is applied or a read returned,
// with the units each partition (table and index, by key hash) would
// consume, all parts of a request decided together. Options.OnSchema
// reports table definitions as they change.
//
// # Throughput
//
// Options.Throughput plugs in the throughput model (package throughput,
// glue in throttle.go): tables and their GSIs are defined in it from
// their billing mode, provisioned capacity, warm throughput and
// OnDemandThroughput as they are created, updated and deleted; every
// write and read is admitted by it after the Admit hook. A refusal is
// the exception DynamoDB returns, ThrottlingException or
// ProvisionedThroughputExceededException with ThrottlingReasons; a
// transaction is cancelled with ThrottlingError or
// ProvisionedThroughputExceeded for the actions at fault; batch items
// refused come back unprocessed, and the batch fails only when all are.
// DescribeTable shows on-demand warm throughput as the model has adapted
// it. Engine.Throughput and ThroughputHandler expose the model's
// per-partition figures.
//
// # Index propagation
//
// With Options.IndexLag, changes to global secondary indexes are queued
// per table (in write order) instead of applied, and applied once due,
// by the engine's clock, before the next index read or write of the
// table. Delayed entries point at a frozen copy of the record (sharing
// its bytes), so an index shows the item as it was when the change was
// made until a later change propagates. The table itself, and local
// secondary indexes, are never delayed.
//
// # Serving
//
// Server serves the wire protocol for one engine (Engine.Handler, or
// ServerOptions.Engine: one space for every region and account) or for an
// engine per region and account, created as clients first sign for them
// (spaces.go). Every request must carry a SigV4 signature; with
// ServerOptions.Keys it is verified (package auth), and with
// ServerOptions.Policies the request is authorized by the identity's IAM
// policies, its condition keys read from the request and the table's
// key schema (authz.go, package iam). Table ARNs in requests must name
// the space's region and account. Serve runs a Server on a listener with
// its Limits (limits.go): bodies read as they arrive within a cap on the
// memory requests hold, a cap on connections that closes the longest
// idle one, timeouts, and a draining shutdown.
//
// # Streams
//
// A table created or updated with a StreamSpecification has a stream
// (stream.go): every change that alters an item, whatever the write path
// (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems,
// TTL deletions), appends one record from the single place stored state
// changes, in commit order, with the keys and the images its view type
// keeps (shared with the stored records). TTL deletions carry the
// service's userIdentity. Shards rotate every StreamOptions.ShardLife,
// records are trimmed after StreamOptions.Retention by the engine's
// clock (and beyond StreamOptions.MaxBytes), iterators expire after 15
// minutes. The streams API (stream_api.go, DynamoDBStreams_20120810) is
// answered on the same port as the tables API.
//
// # Data
//
// Open keeps an engine's tables in a data directory (persist*.go): an
// append-only log of checksummed records (definitions, item changes with
// their stream records, a transaction as one record), compacted into
// snapshots taken in the background, replayed by Open, which cuts a torn
// tail at its last intact record. Data.Sync says when a write is on
// stable storage: before it is acknowledged (SyncAlways, with group
// commit) or every Data.Interval. DataDir keeps a server's spaces each in
// its own directory.
package engine
