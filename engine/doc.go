// Package engine is cardapio's embedded DynamoDB-compatible engine: in-memory
// tables with their global and local secondary indexes, the item, query,
// batch and transaction operations, time to live, and a server speaking
// DynamoDB's JSON 1.0 wire protocol so that any SDK or the AWS CLI can use
// it.
//
// It exists so that models can be exercised and billed without an AWS
// account: every operation reports ConsumedCapacity computed by the
// capacity package, and errors carry DynamoDB's exception names and
// wording.
//
// Items are held as compact binary encodings (see codec.go) in a B-tree per
// table, ordered by the hash of the partition key and then by sort key, as
// DynamoDB lays them out; index entries are small keys that point at the
// base record rather than copies of the item. Each table has its own lock;
// operations spanning tables take the locks in name order.
package engine
