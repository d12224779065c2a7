// Package budget is the budget gate: it runs every business operation of
// a model, in every budget variant, on an engine, measures what each one
// consumes (ReturnConsumedCapacity INDEXES: per table and per index), and
// compares the measured units with the budgets the model declares. CI
// fails on the measured figure, not on an estimate.
//
// Before any request the model is judged as check judges it (Judge, the
// static gate): variants whose static estimate exceeds their budget,
// partitions hotter than they serve at a declared peak, and under strict
// the review warnings the model does not accept are findings that fail
// the gate, explained in check's words. check, budget and report take
// this one verdict and only render it.
//
// Each variant runs in isolation: the model's tables are created once
// under a prefix of the run's own, and emptied before every variant, so
// what one variant writes never changes what the next one measures. The
// tables are deleted at the end, after a failure or an interruption too,
// and no table the run did not create is ever touched.
//
// Beside each measured figure stands the static estimate of
// capacity/estimate. The measured figure decides the verdict; a
// disagreement is reported as drift, except where the target is known to
// report differently from AWS (an engine that reports no index capacity),
// which the report states instead. A figure the response did not carry
// (AWS reports nothing for a failed conditional write or a cancelled
// transaction, yet bills them) comes from the capacity rules and is marked
// computed.
//
// An excess is explained from the billing rules that produced the units
// (capacity's reasons name their rule) and from the catalog: which item
// crossed which size boundary and which of its attributes weigh most, the
// projection that copies attributes into an index, the index whose key
// the write changes, a transaction's doubling, a failed condition that is
// still billed, a page summed past 4 KB. Each cause carries the place in
// model.yaml a reviewer would change. Nothing is inferred from names.
package budget
