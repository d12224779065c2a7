// Package estimate turns a model into figures before anything runs: the
// static capacity of every business operation, step by step, in each of
// its budget variants, and the monthly bill those operations, the stored
// items and the table options come to.
//
// It applies the billing rules of the capacity package to the catalog's
// sample items and never re-implements one: an operation's figure is the
// sum of capacity.Rules.ExplainWrite and ExplainRead over its steps, with
// their reasons kept in words. What the catalog leaves to convention is
// decided here, once:
//
//   - a step runs in a variant unless its variants exclude it;
//   - after the failing step of a variant (Budget.FailedStep) no later step
//     runs: stop, succeed and fail end the operation, and a retry is
//     another run of it;
//   - a transaction whose action fails is cancelled. DynamoDB reports no
//     capacity for it and does not document its billing, so each action is
//     charged as an upper bound: its failed-write units (capacity's
//     FailedWrite rule) doubled as in any transaction, with no index charge;
//   - a query's matches are one page of one shard; a fan-out over every
//     shard multiplies that page by the shard count, a page ends at the
//     page size or at 1 MB (capacity.Pager), and Budget.Pages repeats it;
//   - a scan without matches reads the whole table (or index) at its size.
//
// Monthly figures take volumes as 30-day months (a day volume x 30), as the
// catalog converts rates; provisioned capacity is billed over capacity's
// 730-hour month.
package estimate
