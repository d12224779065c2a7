package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
)

func TestShape(t *testing.T) {
	steady := func(n float64, per string) Shape { return Shape{Steady: &Rate{Count: n, Per: per}} }
	cases := []struct {
		cell string
		want Shape
	}{
		{"120/s", steady(120, "second")},
		{"~40 req/s, one debtor, < 50 ms", Shape{Steady: &Rate{Count: 40, Per: "second"}, Latency: "50ms"}},
		{"2.000 por dia", steady(2000, "day")},
		{"2,000 per day", steady(2000, "day")},
		{"5k/min", steady(5000, "minute")},
		{"1,5 mil por hora", steady(1500, "hour")},
		{"3 por segundo", steady(3, "second")},
		{"1.200.000 por mês", steady(1.2e6, "month")},
		{"2.5 requests a second", steady(2.5, "second")},
		{"daily, ~80k items", steady(80000, "day")},
		{"peaks ~800 req/s on paydays", Shape{Peak: &Rate{Count: 800, Per: "second"}}},
		{"pico de 300/s na Black Friday", Shape{Peak: &Rate{Count: 300, Per: "second"}}},
		{"daily burst, ~2M items in < 20 min", Shape{Burst: &Burst{Volume: 2e6, Window: "20m", Every: "day"}}},
		{"todo dia, ~12 mil itens em 15 min", Shape{Burst: &Burst{Volume: 12000, Window: "15m", Every: "day"}}},
		{"rare, < 2 s", Shape{Latency: "2s"}},
		{"every webhook, MUST BE EXACT", Shape{Consistency: "exact"}},
		{"monthly", Shape{}},
		{"", Shape{}},
		// Past the format's bounds: read, refused, left to the team.
		{"2M/s", Shape{Rejected: "2000000 a second is over the format's bound of a million a second"}},
		{"5 billion per day", Shape{Rejected: "5000000000 a day is over the format's bound of a billion"}},
		{"9999999999999999999999999/s", Shape{}},
		{"1.2.3/s", Shape{}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ParseShape(c.cell), c.cell)
	}
}

func TestHeaders(t *testing.T) {
	for h, want := range map[string]Column{
		"ID": ColID, "Question": ColQuestion, "Pergunta": ColQuestion, "Asked by": ColAskedBy,
		"Quem pergunta": ColAskedBy, "Velocity / shape": ColShape, "Velocidade / forma": ColShape,
		"Rate/shape": ColShape, "Taxa": ColShape, "Consistency": ColConsistency, "Consistência": ColConsistency,
		"**Latência**": ColLatency, "If wrong": ColIfWrong, "Se errar": ColIfWrong, "Notes": ColNone,
	} {
		assert.Equal(t, want, header(h), h)
	}
}

// draft reads a table of testdata into a draft.
func draft(t *testing.T, name string) *Draft {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	tb, err := Parse(name, data)
	require.NoError(t, err)
	d, err := FromTable(NameFrom(name), tb)
	require.NoError(t, err)
	return d
}

// loads parses the draft's YAML as check does and holds it to what init
// expects: one error per question to design, nothing else.
func loads(t *testing.T, d *Draft) catalog.ErrorList {
	t.Helper()
	_, err := catalog.Parse("model.yaml", d.YAML())
	var errs catalog.ErrorList
	if err != nil {
		require.ErrorAs(t, err, &errs, "%s", d.YAML())
	}
	expected, other, missing := d.Expected(errs)
	require.Empty(t, other, "check finds only the questions to design\n%s", d.YAML())
	require.Empty(t, missing)
	require.Len(t, expected, len(d.Pending()))
	return errs
}

func TestPortugueseCSV(t *testing.T) {
	d := draft(t, "clinica.csv")
	assert.Equal(t, "clinica", d.Name)
	assert.Equal(t, []string{"CL01", "CL02", "CL03", "CL04", "CL05"}, d.Pending())
	assert.Equal(t, []string{"CL06", "CL07"}, d.Outsiders())
	assert.Equal(t, []string{"CL02"}, d.Unrated())
	byID := map[string]Pattern{}
	for _, p := range d.Patterns {
		byID[p.ID] = p
	}
	assert.Equal(t, []string{"app do paciente", "recepção"}, byID["CL01"].AskedBy)
	assert.Equal(t, "exact", byID["CL02"].Consistency)
	assert.Equal(t, "strong", byID["CL04"].Consistency)
	assert.Equal(t, &Rate{Count: 5000, Per: "minute"}, byID["CL04"].Shape.Steady)
	assert.Equal(t, &Burst{Volume: 12000, Window: "15m", Every: "day"}, byID["CL05"].Shape.Burst)
	assert.Equal(t, "s3ExportAthena", byID["CL06"].Outside.GoesTo)
	assert.Equal(t, "searchEngine", byID["CL07"].Outside.GoesTo)
	assert.Equal(t, "paciente marca em horário ocupado", byID["CL01"].IfWrong)
	loads(t, d)
}

func TestSkeletonChecks(t *testing.T) {
	m, err := catalog.Parse("model.yaml", (&Draft{Name: "shop"}).YAML())
	require.NoError(t, err)
	assert.Equal(t, "shop", m.Name)
}

// TestHostileCells: whatever a cell holds reaches the model as the same
// string, in a quoted scalar: nothing of it becomes a key, an anchor, a
// tag, a comment or a line of its own.
func TestHostileCells(t *testing.T) {
	for _, name := range []string{"hostile.md", "hostile.csv"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			require.NoError(t, err)
			tb, err := Parse(name, data)
			require.NoError(t, err)
			d, err := FromTable("hostile", tb)
			require.NoError(t, err)
			sameText(t, d)
			loads(t, d)
		})
	}
	d := draft(t, "hostile.md")
	assert.Equal(t, `"quoted" | piped: colon: value`, d.Patterns[0].Question)
	assert.Equal(t, "AP06", d.Patterns[5].ID, "an ID the format does not take is renumbered")
	d = draft(t, "hostile.csv")
	assert.Equal(t, "line one\nname: evil\n- injected", d.Patterns[0].Question)
}

// sameText parses the draft's YAML and finds every text of the table
// where it was put, unchanged, and the model's top level as init wrote
// it.
func sameText(t *testing.T, d *Draft) {
	t.Helper()
	var doc struct {
		Name           string
		AccessPatterns map[string]struct {
			Question string
			AskedBy  []string `yaml:"askedBy"`
			IfWrong  string   `yaml:"ifWrong"`
			Velocity struct{ Note string }
		} `yaml:"accessPatterns"`
	}
	var top map[string]any
	require.NoError(t, yaml.Unmarshal(d.YAML(), &doc), "%s", d.YAML())
	require.NoError(t, yaml.Unmarshal(d.YAML(), &top))
	allowed := map[string]bool{"formatVersion": true, "name": true, "description": true, "separator": true, "decisions": true, "tables": true, "attributes": true, "entities": true, "accessPatterns": true}
	for k := range top {
		assert.True(t, allowed[k], "no key of the table's text at the top level: %q", k)
	}
	assert.Equal(t, d.Name, doc.Name)
	require.Len(t, doc.AccessPatterns, len(d.Patterns))
	for _, p := range d.Patterns {
		got := doc.AccessPatterns[p.ID]
		assert.Equal(t, strings.ToValidUTF8(p.Question, "\uFFFD"), got.Question)
		if len(p.AskedBy) > 0 {
			assert.Equal(t, p.AskedBy, got.AskedBy)
		}
		assert.Equal(t, p.IfWrong, got.IfWrong)
		if p.Shape.Velocity() {
			assert.Equal(t, p.ShapeText, got.Velocity.Note)
		}
	}
}

func TestTableErrors(t *testing.T) {
	long := strings.Repeat("x", MaxCellBytes+1)
	many := "| ID | Question |\n|---|---|\n" + strings.Repeat("| | q |\n", MaxRows+1)
	cases := map[string]struct{ name, data, want string }{
		"no question column": {"q.csv", "ID,Who\nA1,x\n", "q.csv:1: no question column"},
		"empty question":     {"q.md", "| ID | Question |\n|---|---|\n| A1 | |\n", "q.md:3: the question is empty"},
		"duplicate id":       {"q.md", "| ID | Question |\n|---|---|\n| A1 | x |\n| A1 | y |\n", "q.md:4: the ID A1 is the one of line 3"},
		"long cell":          {"q.md", "| ID | Question |\n|---|---|\n| A1 | " + long + " |\n", "q.md:3: the question cell has 1001 bytes"},
		"many rows":          {"q.md", many, "q.md:503: more than 500 questions"},
		"many columns":       {"q.csv", "Question" + strings.Repeat(",c", MaxColumns) + "\nq\n", "q.csv:1: 33 columns"},
		"no table":           {"q.txt", "just prose\n", "q.txt:1: no question column"},
		"empty":              {"q.md", "", "q.md: no table"},
		"not utf-8":          {"q.md", "\xff\xfe", "q.md: not UTF-8"},
		"two question cols":  {"q.csv", "Question,Pergunta\na,b\n", "q.csv:1: two question columns"},
		"too big":            {"q.md", strings.Repeat("x", MaxTableBytes+1), "KiB"},
	}
	for name, c := range cases {
		_, err := Parse(c.name, []byte(c.data))
		if err == nil {
			var tb *Table
			tb, err = Parse(c.name, []byte(c.data))
			if err == nil {
				_, err = FromTable("m", tb)
			}
		}
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.True(t, input.Is(err), "%s: bad input, exit 2", name)
	}
	assert.Error(t, CheckName("1bad"))
	assert.Error(t, CheckName("a b"))
	assert.NoError(t, CheckName("rides"))
	assert.Equal(t, "questoes-da-clinica", NameFrom("docs/Questões da clínica.md"))
	assert.Equal(t, "model", NameFrom("123.md"))
}

// FuzzParse: whatever the table, reading it never panics, and what it
// reads reaches a model that YAML reads back to the same texts, none of
// them anywhere else, and that check refuses only for the questions left
// to design.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"clinica.csv", "hostile.md", "hostile.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(strings.HasSuffix(name, ".csv"), data)
	}
	f.Add(false, []byte("| Question |\n|-|\n| a |\n"))
	f.Add(true, []byte("Pergunta;Taxa\n\"x\n\";1,5 mil por hora\n"))
	f.Fuzz(func(t *testing.T, csv bool, data []byte) {
		name := "q.md"
		if csv {
			name = "q.csv"
		}
		tb, err := Parse(name, data)
		if err != nil {
			require.True(t, input.Is(err), "%v", err)
			return
		}
		require.LessOrEqual(t, len(tb.Rows), MaxRows)
		d, err := FromTable("fuzz", tb)
		if err != nil {
			require.True(t, input.Is(err), "%v", err)
			return
		}
		sameText(t, d)
		loads(t, d)
	})
}

func ExampleParseShape() {
	s := ParseShape("daily burst, ~2M items in < 20 min")
	fmt.Println(s.Burst.Volume, s.Burst.Window, s.Burst.Every)
	// Output: 2e+06 20m day
}
