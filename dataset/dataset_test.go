package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// models are the models every test runs on: the two examples, the
// catalog's dataset corpus model and a model written from the format's
// documentation alone.
var models = []string{"../model.yaml", "../catalog/testdata/valid/dataset.yaml", "../examples/orders/model.yaml", "testdata/library.yaml"}

func loadModel(t testing.TB, path string) *catalog.Model {
	t.Helper()
	m, err := catalog.Load(path)
	require.NoError(t, err)
	return m
}

func population(t testing.TB, path string, scale float64, seed uint64) *Population {
	t.Helper()
	// The as-of date of the model's dataset section, or the reference's.
	p, err := New(loadModel(t, path), Options{Scale: scale, Seed: seed, AsOf: time.Date(2026, 9, 24, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	return p
}

// memSink keeps a run's output in memory, each table's encoded blocks in
// the order the run hands them over, under the key <table>/data/all<ext>
// (the names a file sink's objects end with, so that decompress reads
// them): the generator's output without files.
type memSink struct {
	enc  Encoding
	data map[string][]byte
}

func (s *memSink) Encoding() Encoding { return s.enc }

func (s *memSink) Write(_ context.Context, o *Output) error {
	ext := ".json"
	if s.enc.Format == "jsonl" {
		ext = ".jsonl"
	}
	for _, t := range o.Tables {
		if t.Items > 0 {
			k := t.Table.Name + "/data/all" + ext + Extension(s.enc.Compression)
			s.data[k] = append(s.data[k], t.Data...)
		}
	}
	return nil
}

func (s *memSink) Close(context.Context) error { return nil }

// files runs the population into a memSink and returns its tables' bytes.
func files(t testing.TB, p *Population, enc Encoding, ro RunOptions) (map[string][]byte, *Result) {
	t.Helper()
	s := &memSink{enc: enc, data: map[string][]byte{}}
	res, err := p.Run(context.Background(), s, ro)
	require.NoError(t, err)
	return s.data, res
}

// TestDeterministic: the same seed gives the same bytes whatever the
// number of workers; another seed other bytes.
func TestDeterministic(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 7)
			var first map[string][]byte
			for _, w := range []int{1, 2, 5} {
				got, _ := files(t, p, Encoding{Format: "s3-import", Compression: "zstd"}, RunOptions{Workers: w})
				require.NotEmpty(t, got, "the tables' data")
				if first == nil {
					first = got
					continue
				}
				datasettest.Same(t, first, got, fmt.Sprintf("%d workers", w))
			}
			other := population(t, path, datasettest.SmallScale(path), 8)
			got, _ := files(t, other, Encoding{Format: "jsonl", Compression: "none"}, RunOptions{Workers: 2})
			again, _ := files(t, p, Encoding{Format: "jsonl", Compression: "none"}, RunOptions{Workers: 2})
			for k := range got {
				if strings.HasSuffix(k, ".jsonl") {
					assert.False(t, bytes.Equal(got[k], again[k]), "seeds 7 and 8 give the same %s", k)
				}
			}
		})
	}
}

// lines decompresses and splits the data objects of a file set.
func lines(t testing.TB, fs map[string][]byte) []string {
	t.Helper()
	var out []string
	for _, k := range datasettest.Keys(fs) {
		if !strings.Contains(k, "/data/") {
			continue
		}
		data := datasettest.Decompress(t, k, fs[k])
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestParts: n parts are disjoint and together exactly the whole, for
// several n.
func TestParts(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 3)
			whole, _ := files(t, p, Encoding{Format: "s3-import", Compression: "gzip"}, RunOptions{Workers: 2})
			all := lines(t, whole)
			sort.Strings(all)
			for _, n := range []int{2, 3, 7} {
				var union []string
				seen := map[string]int{}
				for i := 0; i < n; i++ {
					fs, _ := files(t, p, Encoding{Format: "s3-import", Compression: "gzip"}, RunOptions{Part: i, Parts: n, Workers: 2})
					ls := lines(t, fs)
					for _, l := range ls {
						if prev, ok := seen[l]; ok {
							t.Fatalf("parts %d and %d of %d share a line: %.80s", prev, i, n, l)
						}
						seen[l] = i
					}
					union = append(union, ls...)
				}
				sort.Strings(union)
				require.Equal(t, len(all), len(union), "%d parts", n)
				assert.True(t, equalStrings(all, union), "the union of %d parts is not the whole", n)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func tableOf(p *Population, name string) *catalog.Table { return p.Model.Table(name) }

// TestItemsFollowTheModel: every item has its entity's discriminator,
// keys that its templates render from its own values (and match back),
// attributes of the dictionary's types and enums, the attributes its
// entity requires, and fits DynamoDB's size limits.
func TestItemsFollowTheModel(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 11)
			items, err := p.Items()
			require.NoError(t, err)
			require.NotEmpty(t, items)
			rules := capacity.Default()
			bad := 0
			for _, gi := range items {
				err := checkItem(p, gi, rules)
				// The catalog's own checks: types, domains, presence rules,
				// keys rendered from the item.
				for _, e := range p.Model.Entity(gi.Entity).CheckItem(gi.Item) {
					err = errors.Join(err, e)
				}
				if err != nil {
					bad++
					if bad < 10 {
						t.Errorf("%s %s: %v", gi.Entity, attr.AppendItemJSON(nil, gi.Item), err)
					}
				}
			}
			assert.Zero(t, bad, "items that break the model")
		})
	}
}

// checkItem checks an item against its entity.
func checkItem(p *Population, gi Item, rules capacity.Rules) error {
	m := p.Model
	e := m.Entity(gi.Entity)
	it := gi.Item
	if d := e.Table.Discriminator; d != "" {
		v, _ := it.Get(d)
		if v.Str != e.TypeValue {
			return fmt.Errorf("discriminator %s = %q", d, v.Str)
		}
	}
	if err := rules.CheckItem(estimate.Table(e.Table), it); err != nil {
		return err
	}
	for _, k := range e.Key {
		v, ok := it.Get(k.Attribute)
		if !ok {
			return fmt.Errorf("no key %s", k.Attribute)
		}
		parts, ok := k.Template.Match(v.Str)
		if v.Type == attr.S && !ok {
			return fmt.Errorf("key %s %q does not match %s", k.Attribute, v.Str, k.Template.Text)
		}
		// Stored attributes that the key holds agree with it.
		for name, text := range parts {
			if sv, ok := it.Get(name); ok && sv.Type == attr.S && sv.Str != text {
				return fmt.Errorf("key %s holds %s = %q but the item has %q", k.Attribute, name, text, sv.Str)
			}
		}
	}
	for _, f := range it {
		if f.Name == e.Table.PartitionKey || f.Name == e.Table.SortKey || f.Name == e.Table.Discriminator {
			continue
		}
		a := m.Attribute(f.Name)
		if a == nil {
			return fmt.Errorf("%s is not in the dictionary", f.Name)
		}
		if e.Has(f.Name) == "" || e.Has(f.Name) == catalog.KeyOnly {
			return fmt.Errorf("%s is not an attribute %s stores", f.Name, e.Name)
		}
		if f.Value.Type != a.Type {
			return fmt.Errorf("%s is %s, the dictionary says %s", f.Name, f.Value.Type, a.Type)
		}
		if len(a.Enum) > 0 && !contains(a.Enum, f.Value.Str) {
			return fmt.Errorf("%s = %q is not in its enum", f.Name, f.Value.Str)
		}
		switch a.Unit {
		case catalog.UnitCivilDate:
			if _, err := time.Parse("2006-01-02", f.Value.Str); err != nil {
				return fmt.Errorf("%s = %q is not a civil date", f.Name, f.Value.Str)
			}
		case catalog.UnitInstant:
			if _, err := time.Parse(time.RFC3339Nano, f.Value.Str); err != nil {
				return fmt.Errorf("%s = %q is not an instant", f.Name, f.Value.Str)
			}
		}
		if a.Type == attr.N {
			if err := attr.ValidNumber(f.Value.Str); err != nil {
				return fmt.Errorf("%s: %v", f.Name, err)
			}
		}
		if a.Computed != nil && a.Computed.Kind == catalog.KindHashMod {
			in, _ := it.Get(a.Computed.Input)
			if in.Str != "" && f.Value.Str != fmt.Sprint(catalog.HashMod(in.Str, a.Computed.Modulo)) {
				return fmt.Errorf("%s = %s, its computation gives %d", f.Name, f.Value.Str, catalog.HashMod(in.Str, a.Computed.Modulo))
			}
		}
	}
	for _, ea := range e.Attributes {
		if ea.Presence == catalog.Required && ea.Needs(it) {
			if _, ok := it.Get(ea.Name); !ok {
				return fmt.Errorf("required %s missing", ea.Name)
			}
		}
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// cpfText finds CPFs: formatted, or a run of exactly 11 digits that is
// not the fraction of a decimal number (a duration's 1.66047270506 s has
// a valid CPF's digits about one time in a hundred).
var cpfText = regexp.MustCompile(`(?:^|[^0-9.])([0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}|[0-9]{11})(?:[^0-9]|$)`)

// TestNoPersonalDataInKeys looks into every key of every item, table and
// index keys alike: no CPF (a run of 11 digits, formatted or not, with
// valid check digits) and no value of an attribute marked pii.
func TestNoPersonalDataInKeys(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 5)
			pii := map[string]bool{}
			var piiValues []string
			for _, a := range p.Model.Attributes {
				if a.PII {
					pii[a.Name] = true
				}
			}
			// The values of pii attributes, drawn for computations and
			// never stored, are collected from the generator's frames.
			collect := &piiCollector{pii: pii}
			g := newGen(p, func(n *Node, it attr.Item) {})
			g.observe = collect.observe
			off, err := p.offsets()
			require.NoError(t, err)
			for _, b := range p.Blocks() {
				g.block(off, b)
			}
			piiValues = collect.values
			items, err := p.Items()
			require.NoError(t, err)
			piiSet := map[string]bool{}
			for _, v := range piiValues {
				piiSet[v] = true
				piiSet[catalog.NormalizeDigits(v)] = true
			}
			checked := 0
			for _, gi := range items {
				e := p.Model.Entity(gi.Entity)
				var keyAttrs []string
				keyAttrs = append(keyAttrs, e.Table.KeyAttributes()...)
				for _, x := range e.Table.Indexes {
					keyAttrs = append(keyAttrs, x.KeyAttributes()...)
				}
				for _, k := range keyAttrs {
					v, ok := gi.Item.Get(k)
					if !ok || v.Type != attr.S {
						continue
					}
					checked++
					for _, m := range cpfText.FindAllStringSubmatch(v.Str, -1) {
						assert.False(t, ValidCPF(m[1]), "%s key %s holds a CPF: %s", gi.Entity, k, v.Str)
					}
					// Every part of the key (between separators) and the
					// whole key are compared with the personal values.
					for _, part := range append(strings.Split(v.Str, p.Model.Separator), v.Str) {
						assert.False(t, piiSet[part], "%s key %s holds a personal value: %s", gi.Entity, k, v.Str)
					}
				}
			}
			assert.Greater(t, checked, 1000)
		})
	}
}

type piiCollector struct {
	pii    map[string]bool
	values []string
	seen   map[string]bool
}

func (c *piiCollector) observe(name string, v attr.Value) {
	if !c.pii[name] || v.Type != attr.S || len(v.Str) < 6 {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[v.Str] && len(c.values) < 2000 {
		c.seen[v.Str] = true
		c.values = append(c.values, strings.Clone(v.Str))
	}
}
