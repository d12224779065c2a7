// Package capacity is the one home of DynamoDB's billing rules: item and
// index-entry sizes, the 1 KB / 4 KB rounding of write and read units,
// write amplification on secondary indexes, transactions, failed
// conditional writes, Query and Scan summation, the ConsumedCapacity shape,
// and the prices that turn units into dollars.
//
// The engine, the static estimator, the budget checker and the planner all
// call this package; nothing else re-implements a rule, so a correction made
// here reaches every number the toolkit prints.
//
// Where DynamoDB's behaviour is undocumented or the sources disagree (the
// size of some numbers, what a failed conditional write costs, whether a
// transaction doubles index charges) the choice is a named field of Rules
// with a documented default; Default returns the rules measured against
// live DynamoDB.
//
// Sizes are in bytes and units are float64, because an eventually
// consistent read of a small item costs 0.5.
package capacity
