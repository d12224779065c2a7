package catalog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// FuzzLoad: no input panics; every error is positioned; a model that
// loads survives marshal and reload unchanged. Run it with
// -fuzzminimizetime 0s: minimising inputs of the size of a model stalls
// the engine.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/valid/*.yaml")
	more, _ := filepath.Glob("testdata/invalid/*.yaml")
	seeds = append(seeds, more...)
	seeds = append(seeds, "../examples/orders/model.yaml")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("\x00\x01\x02"))
	f.Add([]byte("formatVersion: 1\nname: x\ntables: {t: {partitionKey: PK}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.yaml", data)
		if err != nil {
			var el ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("not an ErrorList: %v", err)
			}
			if len(el) == 0 {
				t.Fatal("empty error list")
			}
			// A position is inside the file: yaml.v3 counts "\r" as a line
			// break too, hence the generous bound.
			lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r"))
			for _, e := range el {
				if e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("unpositioned error: %v", e)
				}
				if e.Pos.Line > lines {
					t.Fatalf("error after the last line (%d): %v", lines, e)
				}
			}
			return
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		m2, err := Parse("fuzz.yaml", out)
		if err != nil {
			t.Fatalf("reload of marshalled model: %v\n%s", err, out)
		}
		if !m.Equal(m2) {
			t.Fatalf("model changed in the round trip:\n%s", out)
		}
	})
}

// FuzzCheckValue: any value, held to the domain of every attribute of
// the example models (enums, ranges, patterns, lengths, elements and
// members, instant forms) and to every entity as an item, never panics,
// and an error names what it refuses in plain words.
func FuzzCheckValue(f *testing.F) {
	var models []*Model
	for _, p := range []string{"../model.yaml", "../examples/orders/model.yaml", "testdata/valid/domains.yaml"} {
		m, err := Load(p)
		if err != nil {
			f.Fatal(err)
		}
		models = append(models, m)
	}
	for _, s := range []string{`{"S":"IN_PROGRES"}`, `{"N":"9"}`, `{"N":"-0.5e3"}`, `{"S":"2026-09-24T03:07:01.000Z"}`,
		`{"L":[{"M":{"sku":{"S":"TEE-0042"},"qty":{"N":"0"}}}]}`, `{"M":{"sms":{"BOOL":true},"x":{"NULL":true}}}`,
		`{"SS":["a","b"]}`, `{"S":"\u00e9\u00e9\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := attr.DecodeValue(data)
		if err != nil {
			return
		}
		for _, m := range models {
			for _, a := range m.Attributes {
				if err := a.Check(v); err != nil && strings.Contains(err.Error(), "%!") {
					t.Fatalf("%s: badly formatted error: %v", a.Name, err)
				}
			}
			if v.Type == attr.M {
				for _, e := range m.Entities {
					_ = e.CheckItem(v.Map)
				}
			}
		}
	})
}
