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
// Where DynamoDB's behaviour is undocumented or the sources disagree the
// choice is a named field of Rules with a documented default; Default
// returns the rules measured against live DynamoDB:
//
//   - Rules.Numbers: how numbers are sized (NumberMeasured, or the
//     base-100 digit-pair model NumberDigitPairs).
//   - Rules.FailedWrite: what a failed conditional write costs
//     (FailedLarger, FailedNewItem, FailedExisting).
//   - Rules.DoubleIndexInTxn: whether transactions double index charges
//     (captures say no).
//
// Decisions where the sources are silent, kept here so that they can be
// found and revisited:
//
//   - A Query or Scan page ends after the item that brings the data read
//     to 1 MB or more, or after Limit items (Pager). The item crossing
//     1 MB is read and charged; the next page starts after it.
//   - A read served by an index alone (a GSI Query, an LSI Query without
//     fetches) leaves Table out of the wire shape instead of reporting 0.
//   - An LSI Query charges its entries to the LSI and the base items it
//     fetches (each rounded to 4 KB) to the table.
//   - A GetItem read of a missing item costs the minimum (1, or 0.5 when
//     eventually consistent); BatchGetItem, being GetItems added up,
//     charges its missing keys the same way.
//   - A failed condition inside a transaction cancels it: Write returns
//     nothing, as DynamoDB reports nothing.
//   - Numbers under the measured rule are capped at 20 bytes (21 when
//     negative), as measured; under the pair model at 21.
//   - Storage dollars take decimal GB (10^9 B, as AWS's calculator bills)
//     unless BinaryGB is asked for.
//
// Sizes are in bytes and units are float64, because an eventually
// consistent read of a small item costs 0.5.
package capacity
