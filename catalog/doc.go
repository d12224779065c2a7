// Package catalog loads, validates and resolves a cardapio model
// (model.yaml): tables, the attribute dictionary, entities with key
// templates and sample items, secondary indexes, access patterns,
// business operations with capacity budgets, and the scale of the
// business.
//
// It is the only package that reads YAML. Load and Parse go through four
// stages: YAML nodes with positions (yaml.v3, input size, nesting and
// alias expansion capped), the embedded JSON Schema (package schema),
// semantic checks, and resolution into one *Model whose cross references
// are pointers. Every problem comes back at once as an ErrorList of
// positioned errors ("model.yaml:14:9: indexes.GSI1.partition[2]: unknown
// attribute "shrd"" plus at most one hint); design smells that do not make
// the model wrong are returned as Model.Warnings.
//
// Downstream packages (capacity estimates, the code generator, the
// operation runner, the dataset generator and the planner) take the
// resolved Model and never re-parse: key templates are parsed and typed,
// sample items are attr.Items, operation steps carry complete request
// material.
package catalog
