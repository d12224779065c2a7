// Package diff compares two versions of a model, BASE and HEAD, the way a
// pull request changes one: what changed in the model's words, what the
// month costs before and after (the cost package's bill, one engine for
// both), what it costs to get from one to the other (an ordered
// migration plan, each step priced by capacity's billing rules on the
// population the dataset package draws), and what breaks for the code
// generated from BASE. Rehearse plays the plan on the embedded engine
// and measures what each step consumed.
//
// A change is named by a dotted path into the model (indexes.X.projection,
// entities.E.key.SK, api.GetOrder) that the model's acknowledge list
// names to accept a breaking change; the verdict fails on a breaking
// change nobody acknowledged, or on a monthly cost that grew past the
// limit asked.
package diff
