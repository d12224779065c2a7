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
// Determinism: every value is a function of the seed and of the item's
// address (root entity and index, then each child's entity and ordinal),
// drawn from a stream of its own per attribute. Roots are cut into
// blocks sized from the model; workers generate blocks in parallel and
// the output is written in block order, so the bytes do not depend on the
// number of workers, and --part i/n (consecutive blocks of about 1/n of
// the items) gives n disjoint slices whose union is the whole.
//
// The load generator and the planner use the same model: Expected and
// Roots count items without generating them, Generator.Tree generates
// the items of any root on demand, identical to a full run's.
package dataset
