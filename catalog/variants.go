package catalog

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/cardapio/cardapio/attr"
)

// A budget variant may run with other parameter values than the
// operation's samples (the car entered another cell, the note is the
// longest the desk writes): Budget.Params replaces those samples in the
// variant, and every reader of a variant's values (the static estimate,
// the sample claims, the executor's measured run) takes them from
// SampleInputsIn, so the units follow the values.

// budgetParams resolves a variant's parameter overrides: each names a
// declared parameter and is a value of its type and domain.
func (r *resolver) budgetParams(ptr string, op *Operation, raw map[string]json.RawMessage) map[string]attr.Value {
	if len(raw) == 0 {
		return nil
	}
	var names []string
	for _, p := range op.Params {
		names = append(names, p.Name)
	}
	out := map[string]attr.Value{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		pptr := ptr + "/" + escapePtr(name)
		prm := op.Param(name)
		if prm == nil {
			r.errAt(pptr, true, didYouMean(name, names), "operation %s has no parameter %q", op.Name, name)
			continue
		}
		if prm.Type == attr.Invalid {
			continue // reported on the parameter
		}
		v, err := decodeAny(raw[name])
		if err != nil {
			r.errf(pptr, "%v", err)
			continue
		}
		tv, err := typedValue(v, prm.Type, prm.Attribute)
		if err != nil {
			r.errf(pptr, "parameter %s: %v", name, err)
			continue
		}
		out[name] = tv
	}
	return out
}

// SampleInputsIn returns the inputs of a sample run of the operation in
// budget variant b: every parameter's sample, replaced by the variant's
// own values (b nil: the samples alone).
func (o *Operation) SampleInputsIn(b *Budget) Inputs {
	in := o.SampleInputs()
	if b != nil {
		maps.Copy(in, b.Params)
	}
	return in
}
