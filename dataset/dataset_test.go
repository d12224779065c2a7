package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
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

// smallScale gives a population of a few tens of thousands of items.
func smallScale(p string) float64 {
	switch {
	case strings.HasSuffix(p, "dataset.yaml"):
		return 1
	case strings.Contains(p, "orders"):
		return 0.0005
	case strings.HasSuffix(p, "library.yaml"):
		return 0.1
	case strings.HasSuffix(p, "helpdesk.yaml"):
		return 0.05
	case strings.HasSuffix(p, "telemetry.yaml"):
		return 0.2
	case strings.HasSuffix(p, "courses.yaml"), strings.HasSuffix(p, "ridehail.yaml"):
		return 1
	case strings.HasSuffix(p, "credit.yaml"):
		return 0.1
	}
	return 0.0001
}

// files runs a file sink into dir and returns every file's bytes by path.
func files(t testing.TB, p *Population, o FileOptions, ro RunOptions) (map[string][]byte, *Result) {
	t.Helper()
	s, err := NewFileSink(p, o)
	require.NoError(t, err)
	res, err := p.Run(context.Background(), s, ro)
	require.NoError(t, err)
	out := map[string][]byte{}
	require.NoError(t, filepath.Walk(o.Dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(o.Dir, path)
		out[filepath.ToSlash(rel)] = b
		return err
	}))
	return out, res
}

// TestDeterministic: the same seed gives the same bytes whatever the
// number of workers; another seed other bytes.
func TestDeterministic(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path), 7)
			var first map[string][]byte
			for _, w := range []int{1, 2, 5} {
				got, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "zstd", ObjectUnits: 5000}, RunOptions{Workers: w})
				require.Greater(t, len(got), 2, "several objects and a manifest")
				if first == nil {
					first = got
					continue
				}
				require.Equal(t, keys(first), keys(got))
				for k := range first {
					assert.True(t, bytes.Equal(first[k], got[k]), "%s differs with %d workers", k, w)
				}
			}
			other := population(t, path, smallScale(path), 8)
			got, _ := files(t, other, FileOptions{Dir: t.TempDir(), Format: "jsonl", Compression: "none"}, RunOptions{Workers: 2})
			again, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "jsonl", Compression: "none"}, RunOptions{Workers: 2})
			for k := range got {
				if strings.HasSuffix(k, ".jsonl") {
					assert.False(t, bytes.Equal(got[k], again[k]), "seeds 7 and 8 give the same %s", k)
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lines decompresses and splits the data objects of a file set.
func lines(t testing.TB, fs map[string][]byte) []string {
	t.Helper()
	var out []string
	for _, k := range keys(fs) {
		if !strings.Contains(k, "/data/") {
			continue
		}
		data := decompress(t, k, fs[k])
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

func decompress(t testing.TB, name string, b []byte) []byte {
	t.Helper()
	switch {
	case strings.HasSuffix(name, ".zst"):
		d, err := zstd.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		defer d.Close()
		out, err := io.ReadAll(d)
		require.NoError(t, err)
		return out
	case strings.HasSuffix(name, ".gz"):
		r, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		return out
	}
	return b
}

// TestParts: n parts are disjoint and together exactly the whole, for
// several n.
func TestParts(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path), 3)
			whole, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "gzip"}, RunOptions{Workers: 2})
			all := lines(t, whole)
			sort.Strings(all)
			for _, n := range []int{2, 3, 7} {
				var union []string
				seen := map[string]int{}
				for i := 0; i < n; i++ {
					fs, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "gzip", Part: i, Parts: n}, RunOptions{Part: i, Parts: n, Workers: 2})
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

// TestImportFiles: every line is {"Item": ...} in DynamoDB JSON that the
// project's decoder reads, the keys are unique, and the manifest's
// counts, bytes and checksums are those of the objects.
func TestImportFiles(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path), 1)
			dir := t.TempDir()
			fs, res := files(t, p, FileOptions{Dir: dir, Format: "s3-import", Compression: "zstd", ObjectUnits: 3000}, RunOptions{})
			var m Manifest
			require.NoError(t, json.Unmarshal(fs["manifest.json"], &m))
			require.NotEmpty(t, m.Tables)
			for _, tm := range m.Tables {
				assert.Equal(t, "DYNAMODB_JSON", tm.InputFormat)
				assert.Equal(t, "ZSTD", tm.InputCompressionType)
				require.Greater(t, len(tm.Objects), 1, "objects rotate at the unit budget")
				var items int64
				seen := map[string]bool{}
				for _, o := range tm.Objects {
					require.True(t, strings.HasPrefix(o.Key, tm.KeyPrefix), o.Key)
					b := fs[o.Key]
					sum := sha256.Sum256(b)
					assert.Equal(t, hex.EncodeToString(sum[:]), o.SHA256)
					assert.Equal(t, int64(len(b)), o.CompressedBytes)
					raw := decompress(t, o.Key, b)
					assert.Equal(t, int64(len(raw)), o.Bytes)
					sc := bufio.NewScanner(bytes.NewReader(raw))
					sc.Buffer(nil, 1<<20)
					n := int64(0)
					for sc.Scan() {
						var wrap struct{ Item json.RawMessage }
						require.NoError(t, json.Unmarshal(sc.Bytes(), &wrap))
						it, err := attr.DecodeItem(wrap.Item)
						require.NoError(t, err)
						pk, _ := it.Get(tableOf(p, tm.Table).PartitionKey)
						sk, _ := it.Get(tableOf(p, tm.Table).SortKey)
						k := pk.Str + "\x00" + sk.Str
						require.False(t, seen[k], "key repeated: %s %s", pk.Str, sk.Str)
						seen[k] = true
						n++
					}
					assert.Equal(t, o.Items, n, o.Key)
					items += n
				}
				assert.Equal(t, tm.Items, items)
				assert.Equal(t, res.Tables[tm.Table].Items, items)
			}
		})
	}
}

func tableOf(p *Population, name string) *catalog.Table { return p.Model.Table(name) }

// TestItemsFollowTheModel: every item has its entity's discriminator,
// keys that its templates render from its own values (and match back),
// attributes of the dictionary's types and enums, the attributes its
// entity requires, and fits DynamoDB's size limits.
func TestItemsFollowTheModel(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path), 11)
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
			p := population(t, path, smallScale(path), 5)
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

// TestNoPersonalDataInLogs runs the command's library on every model,
// to files and into the embedded engine, with progress lines on: no
// progress line, summary (text or JSON) or manifest holds a CPF or the
// value of an attribute marked pii (as stored, or in base64).
func TestNoPersonalDataInLogs(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path)/4, 1)
			pii := map[string]bool{}
			for _, a := range p.Model.Attributes {
				if a.PII {
					pii[a.Name] = true
				}
			}
			var values []string
			for _, it := range outputItems(t, p) {
				for _, f := range it.Item {
					if pii[f.Name] && len(f.Value.Str) >= 6 && len(values) < 5000 {
						values = append(values, f.Value.Str, base64.StdEncoding.EncodeToString([]byte(f.Value.Str)))
					}
				}
			}
			var logs bytes.Buffer
			for _, c := range []Config{
				{Out: t.TempDir(), Format: "jsonl", Compression: "none"},
				{Serve: true},
			} {
				c.Scale, c.Seed, c.AsOf, c.Progress = smallScale(path)/4, 1, "2026-09-24", &logs
				rep, err := Execute(context.Background(), p.Model, c)
				require.NoError(t, err)
				require.NoError(t, rep.Summary.Text(&logs))
				require.NoError(t, rep.JSON(&logs))
			}
			text := logs.String()
			assert.Contains(t, text, "data: ", "progress lines")
			if path == models[0] {
				require.NotEmpty(t, values, "the reference stores encrypted documents")
			}
			for _, m := range cpfText.FindAllStringSubmatch(text, -1) {
				assert.False(t, ValidCPF(m[1]), "a CPF in the logs: %s", m[1])
			}
			for _, v := range values {
				if strings.Contains(text, v) {
					t.Fatalf("a personal value in the logs: %q", v)
				}
			}
		})
	}
}
