package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON is the JSON Schema (draft 2020-12) of model.yaml, as shipped.
//
//go:embed model.schema.json
var JSON []byte

// URL is the identifier the schema is compiled under; validation errors
// carry locations relative to it.
const URL = "https://cardapio.dev/schema/model.schema.json"

// compiled is built once: the schema is immutable, and compiling it takes
// longer than validating a model.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(URL) })

// compile compiles the embedded schema's definition at url (the whole
// schema, or one of its $defs).
func compile(url string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSON))
	if err != nil {
		return nil, fmt.Errorf("read embedded schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(URL, doc); err != nil {
		return nil, fmt.Errorf("add embedded schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile embedded schema: %w", err)
	}
	return s, nil
}

// Compiled returns the compiled schema, ready to validate a decoded
// document (maps, slices, strings, json.Number, bools and nils).
func Compiled() (*jsonschema.Schema, error) { return compiled() }

var tree = sync.OnceValue(func() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(JSON, &m) // the embedded file is checked by the tests
	return m
})

// Properties returns the property names declared by the schema object at
// the given JSON pointer fragment (for example "/$defs/index"), so that an
// unknown field can be answered with the nearest known one.
func Properties(fragment string) []string {
	var cur any = tree()
	for _, tok := range splitPointer(fragment) {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil
	}
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	return names
}

func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	var out []string
	start := 1
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			tok := p[start:i]
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			out = append(out, tok)
			start = i + 1
		}
	}
	return out
}

// ScenarioFileURL is the schema of a scenario file (cardapio load
// --scenario FILE): the scenarios and invariants sections of a model,
// over a model that gives everything else.
const ScenarioFileURL = URL + "#/$defs/scenarioFile"

var compiledScenarioFile = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(ScenarioFileURL) })

// CompiledScenarioFile returns the compiled schema of a scenario file.
func CompiledScenarioFile() (*jsonschema.Schema, error) { return compiledScenarioFile() }
