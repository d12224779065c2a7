package catalog

import (
	"errors"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/schema"
)

// ScenarioFile is a file of scenarios and invariants over a model (the
// load generator's --scenario FILE): the model's own sections' format,
// resolved against the model's operations, entities and indexes.
type ScenarioFile struct {
	Scenarios  []Scenario
	Invariants []*Invariant
}

// LoadScenarioFile reads and resolves a scenario file against m.
func LoadScenarioFile(m *Model, path string) (*ScenarioFile, error) {
	f, err := files.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario file %s: %w", path, files.Reason(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read scenario file %s: %w", path, files.Reason(err))
	}
	return ParseScenarioFile(m, path, data)
}

// ParseScenarioFile resolves a scenario file's text against m. Errors are
// an ErrorList positioned in the file.
func ParseScenarioFile(m *Model, name string, data []byte) (*ScenarioFile, error) {
	tree, paths, errs := parseTree(name, data)
	if errs != nil {
		return nil, finish(errs, data)
	}
	doc := tree.toAny()
	sch, err := schema.CompiledScenarioFile()
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, ErrorList{{Pos: Pos{name, 1, 1}, Msg: err.Error()}}
		}
		var errs ErrorList
		collectLeaves(ve, func(l *jsonschema.ValidationError) {
			errs = append(errs, schemaError(name, paths, l)...)
		})
		return nil, finish(errs, data)
	}
	var raw rawModel
	if errs := decodeRaw(name, doc, paths, &raw); errs != nil {
		return nil, finish(errs, data)
	}
	r := newResolver(name, paths, &raw)
	mm := *m
	r.m = &mm
	for _, a := range m.Attributes {
		r.attrs[a.Name] = a
	}
	out := &ScenarioFile{}
	out.Invariants = r.resolveInvariants("/invariants", raw.Invariants)
	for _, v := range out.Invariants {
		if m.Invariant(v.Name) != nil {
			r.errAt("/invariants/"+escapePtr(v.Name), true, "", "the model already has an invariant %s", v.Name)
		}
	}
	mm.Invariants = append(append([]*Invariant(nil), m.Invariants...), out.Invariants...)
	out.Scenarios = r.resolveScenarios("/scenarios", raw.Scenarios)
	r.checkThen("/scenarios", out.Scenarios, func(n string) *Scenario {
		for i := range out.Scenarios {
			if out.Scenarios[i].Name == n {
				return &out.Scenarios[i]
			}
		}
		return m.Scenario(n)
	})
	r.checkInvariantRefs("/scenarios", out.Scenarios)
	if len(r.errs) > 0 {
		return nil, finish(r.errs, data)
	}
	return out, nil
}
