// Package dataset generates a model's synthetic population: every item
// the declared scale implies, coherent (every key follows its entity's
// template, every value its attribute's domain, children agree with their
// parents, derived values with what they derive from), deterministic, and
// ready for DynamoDB's import from S3 or a BatchWriteItem load.
//
// The population model (Population) is built from the resolved catalog
// alone. Entities with a population form trees: a root entity has a total
// (scaled by --scale), a child entity a count per parent item (a mean, a
// share, a total spread over the parents, or a parent attribute). An
// item's attributes come, in this order, from the model's dataset rules
// (catalog.Dataset: states, variables, copies, templates, sums, dates,
// cases, aggregates over children, bands, formats), from the attribute's
// computation (a shard hash, a keyed hash with a per-tenant test
// secret), from the same-named attribute of its reference or parent, or
// from its dictionary entry (values, enum, cardinality, unit, type).
// Nothing here knows an entity or attribute by name.
//
// An item may name a root item of another tree (a loan's borrower, an
// enrolment's student): by a dataset ref to that root entity, or by
// carrying its identifier with no rule of its own. It draws the root's
// index from its own stream and reads that root's values as generating
// it computes them, so the item it names exists in every run and part.
//
// Measure sizes each entity's items as a run draws them, on trees spread
// over the population; cost prices storage with those means, so that
// cardapio data's storage and cost's agree.
//
// Determinism: every value is a function of the seed and of the item's
// address (root entity and index, then each child's entity and ordinal),
// drawn from a stream of its own per attribute. Roots are cut into
// blocks sized from the model; workers generate blocks in parallel and
// the output is written in block order, so the bytes do not depend on the
// number of workers, and --part i/n (consecutive blocks of about 1/n of
// the items) gives n disjoint slices whose union is the whole.
//
// The package writes no file and draws no progress bar: a Run hands
// its blocks to a Sink (the load sink here, the files of the import from
// S3 and the checkpoints in dataset/output, which runs cardapio data).
//
// The load generator and the planner use the same model: Expected and
// Roots count items without generating them, Generator.Tree generates
// the items of any root on demand, identical to a full run's.
package dataset
