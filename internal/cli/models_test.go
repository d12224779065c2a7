package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// Models written from docs/model-format.md alone, for domains unlike the
// two examples (testdata/models: a helpdesk with an SLA queue sharded
// eight ways, IoT telemetry in day buckets with TTL and a natural-key
// registry, ...). Every command runs on each of them through Main, and a
// reader of this file's own checks what `data` wrote: every item's keys
// against its entity's templates, the catalog's item checks, references
// to parents that exist, no personal data in any key, counts against the
// populations and bytes against cost's storage figure. A model added to
// the directory is covered with no Go written for it; its scenarios are
// written so that every arrival applies.

// modelsScale keeps the populations small enough for 2 cores.
const modelsScale = 0.2

// modelRun runs the CLI and keeps what it printed in *out, which the
// test reads for personal data at the end.
func modelRun(out *[]string, args ...string) cliRun {
	r := runCLI(args, nil)
	*out = append(*out, r.stdout, r.stderr)
	return r
}

// checkAndCost loads the model at path and runs check (which must pass)
// and cost on it, the commands' output kept in printed: the model and
// cost's storage figure.
func checkAndCost(t *testing.T, path string, printed *[]string) (*catalog.Model, float64) {
	t.Helper()
	m, err := catalog.Load(path)
	require.NoError(t, err)
	r := modelRun(printed, "check", path)
	require.Equal(t, ExitOK, r.code, r.stdout+r.stderr)
	r = modelRun(printed, "cost", path, "--format", "json")
	require.Equal(t, ExitOK, r.code, r.stderr)
	var cost struct{ StorageGB float64 }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &cost))
	return m, cost.StorageGB
}

func independentModels(t *testing.T) []string {
	paths, err := filepath.Glob("testdata/models/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	return paths
}

func TestIndependentModels(t *testing.T) {
	for _, path := range independentModels(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			var printed []string
			m, storageGB := checkAndCost(t, path, &printed)
			require.Positive(t, storageGB)

			r := modelRun(&printed, "budget", path)
			require.Equal(t, ExitOK, r.code, r.stdout+r.stderr)

			out := filepath.Join(t.TempDir(), "report.html")
			r = modelRun(&printed, "report", path, "--no-measure", "--out", out)
			require.Equal(t, ExitOK, r.code, r.stderr)
			assert.FileExists(t, out)

			whole, personal := checkData(t, m, path, storageGB, &printed)

			// The population loads into the embedded engine whole.
			r = modelRun(&printed, "data", path, "--scale", fmt.Sprint(modelsScale), "--serve", "--quiet", "--summary", "json")
			require.Equal(t, ExitOK, r.code, r.stderr)
			var served dataSummary
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &served), r.stdout)
			assert.Equal(t, whole, served.Summary.Items)

			require.NotEmpty(t, m.Scenarios, "a model of this directory declares scenarios")
			for _, sc := range m.Scenarios {
				r = modelRun(&printed, "plan", path, "--scenario", sc.Name, "--scale", "0.01", "--no-search")
				assert.Equal(t, ExitOK, r.code, "plan %s: %s%s", sc.Name, r.stdout, r.stderr)
				assert.NotRegexp(t, `(^|\s)-0(\s|$)`, r.stdout, "a negative zero in the plan")
				checkLoad(t, path, sc.Name, &printed)
			}

			// No value of an attribute marked pii in anything a command
			// printed or wrote to its results.
			require.NotEmpty(t, personal, "a model of this directory has pii attributes")
			for _, text := range printed {
				for v := range personal {
					if strings.Contains(text, v) {
						t.Errorf("the pii value %q in a command's output", v)
					}
				}
			}
		})
	}
}

// checkLoad runs a scenario of the model on the embedded engine and
// holds its summary: every arrival attempted, completed and applied,
// every invariant checked and kept.
func checkLoad(t *testing.T, path, scenario string, printed *[]string) {
	t.Helper()
	dir := t.TempDir()
	summary, results := filepath.Join(dir, "summary.json"), filepath.Join(dir, "results.jsonl")
	r := modelRun(printed, "load", path, "--scenario", scenario, "--scale", fmt.Sprint(modelsScale), "--speed", "max", "--quiet",
		"--summary", summary, "--results", results)
	require.Equal(t, ExitOK, r.code, "load %s:\n%s%s", scenario, r.stdout, r.stderr)
	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	var s struct {
		OK         bool
		Operations map[string]struct {
			Offered, Attempted, Completed int
			Outcomes                      map[string]int
		}
		Invariants []struct {
			Name                string
			Checked, Violations int
		}
	}
	require.NoError(t, json.Unmarshal(b, &s))
	res, err := os.ReadFile(results)
	require.NoError(t, err)
	*printed = append(*printed, string(b), string(res))
	assert.True(t, s.OK)
	require.NotEmpty(t, s.Operations)
	for name, op := range s.Operations {
		assert.Positive(t, op.Offered, name)
		assert.Equal(t, op.Offered, op.Attempted, name)
		assert.Equal(t, op.Attempted, op.Completed, name)
		assert.Equal(t, map[string]int{"applied": op.Completed}, op.Outcomes, "%s: every arrival applies", name)
	}
	require.NotEmpty(t, s.Invariants)
	for _, inv := range s.Invariants {
		assert.Positive(t, inv.Checked, inv.Name)
		assert.Zero(t, inv.Violations, inv.Name)
	}
	out := filepath.Join(dir, "report.html")
	r = modelRun(printed, "report", path, "--no-measure", "--load", results, "--out", out)
	assert.Equal(t, ExitOK, r.code, r.stderr)
	html, err := os.ReadFile(out)
	require.NoError(t, err)
	*printed = append(*printed, string(html))

	// Two parts, merged, hold as the whole run does.
	merge := []string{"load", "merge"}
	for i := range 2 {
		res := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i))
		r = modelRun(printed, "load", path, "--scenario", scenario, "--scale", fmt.Sprint(modelsScale), "--speed", "max", "--quiet",
			"--part", fmt.Sprintf("%d/2", i), "--results", res)
		require.Equal(t, ExitOK, r.code, "load %s part %d/2:\n%s%s", scenario, i, r.stdout, r.stderr)
		merge = append(merge, res)
	}
	r = modelRun(printed, merge...)
	assert.Equal(t, ExitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "2 of 2 parts merged: ok")
}

// dataSummary is the part of `data --summary json` the test reads.
type dataSummary struct {
	Summary struct {
		Items    int
		Entities []struct {
			Entity   string
			Items    int
			Declared float64
		}
		Tables []struct {
			Table  string
			GB     float64
			CostGB float64
		}
	}
}

// checkData generates the population as JSON lines with one worker and
// with three, and in two parts, and reads it; it returns the items.
func checkData(t *testing.T, m *catalog.Model, path string, costGB float64, printed *[]string) (int, map[string]bool) {
	t.Helper()
	dir := t.TempDir()
	gen := func(name string, extra ...string) (string, dataSummary) {
		out := filepath.Join(dir, name)
		args := append([]string{"data", path, "--scale", fmt.Sprint(modelsScale), "--format", "jsonl", "--compression", "none",
			"--out", out, "--quiet", "--summary", "json"}, extra...)
		r := modelRun(printed, args...)
		require.Equal(t, ExitOK, r.code, r.stderr)
		var s dataSummary
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
		return out, s
	}
	one, sum := gen("one", "--workers", "1")
	three, _ := gen("three", "--workers", "3")
	p0, _ := gen("p0", "--part", "0/2", "--workers", "2")
	p1, _ := gen("p1", "--part", "1/2", "--workers", "2")

	lines := dataLines(t, one)
	require.NotEmpty(t, lines)
	assert.Equal(t, lines, dataLines(t, three), "the same seed gives the same bytes whatever the workers")
	a, b := dataLines(t, p0), dataLines(t, p1)
	union := map[string][]string{}
	for table := range lines {
		seen := map[string]bool{}
		for _, l := range a[table] {
			seen[l] = true
		}
		for _, l := range b[table] {
			assert.False(t, seen[l], "an item in both parts: %s", l)
		}
		union[table] = append(append([]string{}, a[table]...), b[table]...)
		sort.Strings(union[table])
		want := append([]string{}, lines[table]...)
		sort.Strings(want)
		assert.Equal(t, want, union[table], "table %s: the parts' union is the whole", table)
	}

	counts, personal := readPopulation(t, m, lines)

	// Counts agree with the populations at the scale: roots exactly,
	// children per parent item generated within five standard
	// deviations of the count's distribution (each parent draws its own).
	total := 0
	for _, e := range m.Entities {
		p := e.Population
		if p == nil || !p.Known {
			continue
		}
		got := float64(counts[e.Name])
		total += counts[e.Name]
		if p.Total != nil {
			assert.Equal(t, math.Round(float64(*p.Total)*modelsScale), got, "%s: a root's total at the scale", e.Name)
			continue
		}
		parents := float64(counts[p.Parent.Name]) * p.ParentShare
		want := parents * p.PerParent.Mean
		sd := math.Sqrt(parents * countVariance(p.PerParent))
		assert.InDelta(t, want, got, 5*sd+2, "%s: %v items for %v expected of %v parents (%v declared at the scale)",
			e.Name, got, want, parents, p.Items*modelsScale)
	}
	assert.Equal(t, sum.Summary.Items, total)
	for _, es := range sum.Summary.Entities {
		assert.Equal(t, counts[es.Entity], es.Items, "the summary's count of %s", es.Entity)
	}

	// Bytes agree with cost's storage figure, which sizes each entity by
	// its first sample where the generator draws every item.
	gb := 0.0
	for _, ts := range sum.Summary.Tables {
		gb += ts.GB
	}
	assert.InEpsilon(t, costGB*modelsScale, gb, 0.3, "generated %v GB against cost's %v GB at scale %v", gb, costGB*modelsScale, modelsScale)
	return total, personal
}

// countVariance is the variance of a count of children per parent.
func countVariance(c *catalog.Count) float64 {
	switch c.Kind {
	case catalog.CountUniform:
		n := float64(c.Max - c.Min + 1)
		return (n*n - 1) / 12
	case catalog.CountShares:
		v := 0.0
		for _, sh := range c.Shares {
			d := float64(sh.Count) - c.Mean
			v += sh.Share * d * d
		}
		return v
	case catalog.CountZipf:
		return c.Mean * float64(c.Max)
	}
	return 0.25 // fixed: the mean rounded down or up
}

// dataLines reads the JSON lines of every table a data run wrote, by
// table, in file order.
func dataLines(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "data", "*.jsonl"))
	require.NoError(t, err)
	sort.Strings(files)
	out := map[string][]string{}
	for _, f := range files {
		table := filepath.Base(filepath.Dir(filepath.Dir(f)))
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			out[table] = append(out[table], sc.Text())
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	return out
}

// Texts that look like personal data: an e-mail, a phone number, a CPF.
var personalInKey = []*regexp.Regexp{
	regexp.MustCompile(`[^\s@#]+@[^\s@#]+\.[A-Za-z]{2,}`),
	regexp.MustCompile(`\(?\b\d{2,3}\)?[ .-]\d{3,5}[ .-]\d{4}\b`),
	regexp.MustCompile(`\b\d{3}\.?\d{3}\.?\d{3}-?\d{2}\b`),
}

// readPopulation is the reader: each line is one item of one entity of
// its table, whose key attributes read back through the entity's
// templates, which the catalog's own checks accept, whose key holds no
// personal data, and whose parent (the items its population hangs off)
// exists with the values the child's key shares with it. It returns the
// items per entity and the values of pii attributes it read (those long
// enough not to occur by chance).
func readPopulation(t *testing.T, m *catalog.Model, lines map[string][]string) (map[string]int, map[string]bool) {
	t.Helper()
	counts := map[string]int{}
	personal := map[string]bool{}
	type seen struct {
		e    *catalog.Entity
		vals map[string]string
	}
	var items []seen
	for table, ls := range lines {
		tb := m.Table(table)
		require.NotNil(t, tb, "a directory named after no table: %s", table)
		var ents []*catalog.Entity
		for _, e := range m.Entities {
			if e.Table == tb {
				ents = append(ents, e)
			}
		}
		for _, l := range ls {
			assertNoDuplicateNames(t, l)
			it, err := attr.DecodeItem([]byte(l))
			require.NoError(t, err, l)
			e, vals := entityOf(tb, ents, it)
			if !assert.NotNil(t, e, "an item of no entity of %s: %s", table, l) {
				continue
			}
			counts[e.Name]++
			for _, err := range e.CheckItem(it) {
				t.Errorf("%s item breaks the catalog's checks: %v: %s", e.Name, err, l)
			}
			var keys []string
			for _, k := range e.Key {
				if v, ok := it.Get(k.Attribute); ok && v.Type == attr.S {
					keys = append(keys, v.Str)
				}
			}
			for _, ea := range e.Attributes {
				a := m.Attribute(ea.Name)
				if a == nil || !a.PII {
					continue
				}
				if v, ok := it.Get(a.Name); ok && v.Type == attr.S && v.Str != "" {
					if len(v.Str) >= 8 {
						personal[v.Str] = true
					}
					for _, k := range keys {
						assert.NotContains(t, k, v.Str, "%s: the pii attribute %s in a key", e.Name, a.Name)
					}
				}
			}
			for _, k := range keys {
				for _, re := range personalInKey {
					assert.False(t, re.MatchString(k), "%s: key %q looks like personal data (%s)", e.Name, k, re)
				}
			}
			items = append(items, seen{e, vals})
		}
	}
	// References: a child's values of the names it shares with its
	// parent (copied down, or in both keys) are those of a parent item;
	// a name the child's dataset rules give a value of its own (an
	// overloaded index key each entity writes by its own template) is
	// not copied.
	tuples := map[string]map[string]bool{}
	ruled := func(e *catalog.Entity, n string) bool {
		if m.Dataset == nil || m.Dataset.Entities[e.Name] == nil {
			return false
		}
		return m.Dataset.Entities[e.Name].Rules[n] != nil
	}
	shared := func(child, parent *catalog.Entity) []string {
		var names []string
		for _, n := range entityNames(child) {
			if slices.Contains(entityNames(parent), n) && !ruled(child, n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		return names
	}
	tuple := func(vals map[string]string, names []string) string {
		var b strings.Builder
		for _, n := range names {
			b.WriteString(vals[n])
			b.WriteByte(0)
		}
		return b.String()
	}
	for _, x := range items {
		for _, y := range m.Entities {
			if y.Population == nil || y.Population.Parent != x.e {
				continue
			}
			names := shared(y, x.e)
			id := y.Name + "/" + strings.Join(names, ",")
			if tuples[id] == nil {
				tuples[id] = map[string]bool{}
			}
			tuples[id][tuple(x.vals, names)] = true
		}
	}
	for _, x := range items {
		p := x.e.Population
		if p == nil || p.Parent == nil {
			continue
		}
		names := shared(x.e, p.Parent)
		if len(names) == 0 {
			continue
		}
		id := x.e.Name + "/" + strings.Join(names, ",")
		assert.True(t, tuples[id][tuple(x.vals, names)], "%s %v: no %s with these %v", x.e.Name, x.vals, p.Parent.Name, names)
	}
	return counts, personal
}

// entityOf finds the entity of an item (its discriminator, or the one
// entity of the table whose templates its keys read back through) and
// the item's values by name: its attributes and its key placeholders,
// which must agree where both are there.
func entityOf(tb *catalog.Table, ents []*catalog.Entity, it attr.Item) (*catalog.Entity, map[string]string) {
	var cands []*catalog.Entity
	if d := tb.Discriminator; d != "" {
		if v, ok := it.Get(d); ok {
			for _, e := range ents {
				if e.TypeValue == v.Str {
					cands = append(cands, e)
				}
			}
		}
	} else {
		cands = ents
	}
next:
	for _, e := range cands {
		vals := map[string]string{}
		for _, f := range it {
			if s, ok := scalarText(f.Value); ok {
				vals[f.Name] = s
			}
		}
		for _, k := range e.Key {
			v, ok := it.Get(k.Attribute)
			if !ok {
				continue next
			}
			s, _ := scalarText(v)
			parts, ok := k.Template.Match(s)
			if !ok {
				continue next
			}
			for _, part := range k.Template.Parts {
				if t, ok := parts[part.Attr]; ok && part.Width > 0 {
					// A zero-padded number reads back as the number.
					if t = strings.TrimLeft(t, "0"); t == "" {
						t = "0"
					}
					parts[part.Attr] = t
				}
			}
			for name, text := range parts {
				if old, ok := vals[name]; ok && old != text && name != k.Attribute {
					continue next
				}
				vals[name] = text
			}
		}
		return e, vals
	}
	return nil, nil
}

func scalarText(v attr.Value) (string, bool) {
	switch v.Type {
	case attr.S:
		return v.Str, true
	case attr.N:
		return v.Str, true
	}
	return "", false
}

// entityNames are the attributes an entity carries and its key
// placeholders.
func entityNames(e *catalog.Entity) []string {
	var names []string
	for _, ea := range e.Attributes {
		names = append(names, ea.Name)
	}
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			if !slices.Contains(names, ph) {
				names = append(names, ph)
			}
		}
	}
	return names
}

// assertNoDuplicateNames fails a line whose item names an attribute
// twice (JSON decoders keep the last and hide it; DynamoDB refuses it).
func assertNoDuplicateNames(t *testing.T, line string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	names := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		name := tok.(string)
		assert.False(t, names[name], "attribute %s twice in %s", name, line)
		names[name] = true
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
}

// TestIndependentModelsGenerate generates every model's Go package and
// compiles and vets them in a module of their own.
func TestIndependentModelsGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generated packages")
	}
	dir := t.TempDir()
	for _, path := range independentModels(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		r := runCLI([]string{"generate", path, "--out", filepath.Join(dir, name)}, nil)
		require.Equal(t, ExitOK, r.code, r.stderr)
		// The synthetic fallback, for engines without multi-attribute keys.
		r = runCLI([]string{"generate", path, "--keys", "synthetic", "--out", filepath.Join(dir, name+"synthetic")}, nil)
		require.Equal(t, ExitOK, r.code, r.stderr)
	}
	vetGenerated(t, dir)
}

// vetGenerated vets the generated packages under dir, in a module of
// their own that requires this one.
func vetGenerated(t *testing.T, dir string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	gomod := "module outside\n\ngo 1.26\n\nrequire github.com/cardapio/cardapio v0.0.0\n\nreplace github.com/cardapio/cardapio => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "go vet of the generated packages:\n%s", out.String())
}

// TestIndependentModelWithoutSynthetic: asked for synthetic keys (a
// target without multi-attribute keys), a model whose index has no
// synthetic fallback is refused before any table is created, positioned
// at the index, exit 2.
func TestIndependentModelWithoutSynthetic(t *testing.T) {
	b, err := os.ReadFile("testdata/models/helpdesk.yaml")
	require.NoError(t, err)
	text := regexp.MustCompile(`(?m)^    synthetic:\n(      .*\n)+`).ReplaceAllString(string(b), "")
	require.NotContains(t, text, "synthetic:")
	path := filepath.Join(t.TempDir(), "helpdesk.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	for _, args := range [][]string{
		{"budget", path, "--keys", "synthetic"},
		{"load", path, "--scenario", "monday-triage", "--keys", "synthetic", "--scale", "0.01", "--quiet"},
	} {
		r := runCLI(args, nil)
		assert.Equal(t, ExitBadInput, r.code, "%v: %s", args, r.stderr)
		assertPositioned(t, r.stderr)
		assert.Contains(t, r.stderr, "indexes.slaQueue: a key of several attributes, and no synthetic fallback")
	}
}

// TestIndependentModelsBareCatalog: without their dataset sections the
// models still get a population the reader accepts, from the catalog
// alone (populations, domains, presence rules, copies from the parent).
func TestIndependentModelsBareCatalog(t *testing.T) {
	for _, path := range independentModels(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			text := string(b)
			i := strings.Index(text, "\ndataset:")
			require.Positive(t, i, "a model of this directory has a dataset section")
			bare := filepath.Join(t.TempDir(), filepath.Base(path))
			require.NoError(t, os.WriteFile(bare, []byte(text[:i+1]), 0o644))
			m, err := catalog.Load(bare)
			require.NoError(t, err)
			var printed []string
			r := modelRun(&printed, "cost", bare, "--format", "json")
			require.Equal(t, ExitOK, r.code, r.stderr)
			var cost struct{ StorageGB float64 }
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &cost))
			_, personal := checkData(t, m, bare, cost.StorageGB, &printed)
			for _, text := range printed {
				for v := range personal {
					assert.NotContains(t, text, v, "a pii value in a command's output")
				}
			}
		})
	}
}

// TestIndependentModelPlantedViolations: a program that is not cardapio
// writes around the model into a population cardapio data loaded (a
// solved ticket left in the SLA queue, with comments it does not have),
// and cardapio load check finds each violation with its keys.
func TestIndependentModelPlantedViolations(t *testing.T) {
	path := "testdata/models/helpdesk.yaml"
	url := served(t)
	r := runCLI([]string{"data", path, "--scale", "0.05", "--endpoint-url", url, "--create-tables", "--quiet"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	clean := byName(loadCheck(t, ExitOK, path, "--endpoint-url", url))
	require.Positive(t, clean["solved-off-the-queue"].Checked)
	require.Positive(t, clean["comments-counted"].Checked)

	_, err := outsider(url).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("desk"), Item: map[string]types.AttributeValue{
		"PK": s("ACC#acc-planted1"), "SK": s("TK#T-99999999"), "type": s("TICKET"), "ticketId": s("T-99999999"),
		"subject": s("planted"), "requesterEmail": s("someone@example.com"), "status": s("SOLVED"), "priority": n("2"),
		"queue": s("TECH"), "queueShard": n("1"), "slaDueAt": s("2026-09-24T12:00:00.000Z"),
		"openedAt": s("2026-09-24T08:00:00.000Z"), "updatedAt": s("2026-09-24T09:00:00.000Z"), "commentCount": n("3"), "version": n("2"),
	}})
	require.NoError(t, err)
	got := byName(loadCheck(t, ExitFailed, path, "--endpoint-url", url))
	assert.EqualValues(t, 1, got["solved-off-the-queue"].Violations)
	violatedAt(t, got["solved-off-the-queue"], "PK ACC#acc-planted1, SK TK#T-99999999")
	assert.EqualValues(t, 1, got["comments-counted"].Violations)
	violatedAt(t, got["comments-counted"], "PK ACC#acc-planted1, SK TK#T-99999999")
}
