package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/internal/readers"
)

// hostile is a report whose names and explanations carry what breaks
// naive writers: markup, pipes, backticks, control characters, CDATA
// ends, line breaks.
func hostile() *budget.Report {
	text := "a | b `code` ``` fence <tag> & ]]> \x01\x1b[31m\n*bold* _it_ [link](x)"
	budgetWRU := 1.0
	r := &budget.Report{Model: "dir/mo`del|.yaml", Name: "n<a>me", Target: "embedded engine", Kind: "embedded", Keys: "native", Retry: "no retries (1 attempt)",
		Results: []budget.Result{
			{Operation: "Op|<x>", Variant: "v`1", Verdict: budget.Fail, Measured: budget.Measured{WRU: 2}, Budget: budget.Limit{WRU: &budgetWRU},
				Explanation: text, Excesses: []budget.Excess{{Unit: "WRU", Measured: 2, Budget: 1, Over: 1, Text: text,
					Causes: []budget.Cause{{Kind: "item-size", Text: text, At: budget.Location{File: "m.yaml", Line: 3, Column: 1, Path: "entities.E"}}}}},
				Steps: []budget.Step{{ID: "s\x00", Kind: "put", Table: "t"}}},
			{Operation: "Other", Verdict: budget.Error, Explanation: text},
		}}
	r.Finish(false)
	return r
}

// TestHostileJUnit: the JUnit file stays well-formed XML that the
// schema and a CI reader accept, whatever the text holds.
func TestHostileJUnit(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, BudgetJUnit(&b, hostile()))
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		_, err := dec.Token()
		if err != nil {
			require.True(t, errors.Is(err, io.EOF), "well-formed XML: %v\n%s", err, b.String())
			break
		}
	}
	path := filepath.Join(t.TempDir(), "j.xml")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	if err := readers.JUnitXSD(path, "testdata/junit.xsd"); !errors.Is(err, readers.ErrMissing) {
		require.NoError(t, err)
	}
	if suites, err := readers.JUnitParse(path); !errors.Is(err, readers.ErrMissing) {
		require.NoError(t, err)
		require.Len(t, suites, 1)
		assert.Equal(t, 1, suites[0].Failures)
		assert.Equal(t, 1, suites[0].Errors)
	}
}

// TestHostileMarkdown: names cannot break the table or open markup, and
// an explanation cannot close its code fence.
func TestHostileMarkdown(t *testing.T) {
	var b bytes.Buffer
	BudgetMarkdown(&b, hostile())
	md := b.String()
	assert.Contains(t, md, "````text", "the fence is longer than any run of backticks inside")
	path := filepath.Join(t.TempDir(), "r.md")
	require.NoError(t, os.WriteFile(path, []byte(md), 0o644))
	html, tables, err := readers.Markdown(path)
	if errors.Is(err, readers.ErrMissing) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	for _, tb := range tables {
		for _, row := range tb.Rows {
			assert.Len(t, row, len(tb.Header), "a pipe in a name does not add a cell: %v", row)
		}
	}
	assert.NotContains(t, html, "<tag>", "markup is escaped")
	assert.NotContains(t, html, "<strong>bold</strong>")
	assert.Contains(t, tables[0].Rows[0][1], "Op|<x>/v`1")
}

// TestHostileSARIF: the log stays valid SARIF.
func TestHostileSARIF(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, BudgetSARIF(&b, hostile()))
	path := filepath.Join(t.TempDir(), "r.sarif")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	require.NoError(t, readers.SARIF(path))
	// Relative to the repository root, and a URI: its backtick and pipe escaped.
	assert.Contains(t, b.String(), `"uri": "reports/dir/mo%60del%7C.yaml"`)
}

// hostileStrings are what no text or Markdown output may print raw.
var hostileStrings = []struct{ in, raw string }{
	{"a\n::warning file=x::pwned", "\n::warning"},
	{"\x1b[31mred", "\x1b"},
	{"@org/team", "@org"},
	{"see https://evil.example", "https://evil"},
	{"www.evil.example", "www.evil"},
	{"rev\u202edir", "\u202e"},
	{"nul\x00", "\x00"},
	{"c1\u0085", "\u0085"},
	{"bad\xffutf8", "\xff"},
}

// TestEscapers: each output kind's escaper neutralises every hostile
// string (mentions and links only matter to Markdown).
func TestEscapers(t *testing.T) {
	for _, h := range hostileStrings {
		markdownOnly := strings.HasPrefix(h.raw, "@") || strings.Contains(h.raw, "evil")
		var b bytes.Buffer
		w := TextOut(&b)
		_, _ = w.Write([]byte("line " + h.in + "\n"))
		_, _ = w.Write([]byte(h.in + "\n")) // at the start of a line
		if !markdownOnly {
			assert.NotContains(t, Text(h.in), h.raw, "Text(%q)", h.in)
			assert.NotContains(t, b.String(), h.raw, "TextOut(%q)", h.in)
		}
		for name, md := range map[string]string{"mdText": mdText(h.in), "mdCode": mdCode(h.in)} {
			assert.NotContains(t, md, h.raw, "%s(%q)", name, h.in)
		}
		if block := mdBlock(h.in); h.raw == "\n::warning" {
			assert.NotRegexp(t, `(?m)^\s*::`, block, "mdBlock(%q): its lines are kept, none begins a workflow command", h.in)
		} else {
			assert.NotContains(t, block, h.raw, "mdBlock(%q)", h.in)
		}
	}
	// textOut keeps a character split across two writes whole.
	var b bytes.Buffer
	w := TextOut(&b)
	e := []byte("é\u202e")
	for i := range e {
		_, _ = w.Write(e[i : i+1])
	}
	_, _ = w.Write([]byte("\n"))
	assert.Equal(t, "é\\u202e\n", b.String())
}

// TestHostileReports: the hostile strings as a baseline's operation
// names and as notes go through budget's text and Markdown.
func TestHostileReports(t *testing.T) {
	for _, h := range hostileStrings {
		r := hostile()
		r.Notes = []string{h.in}
		r.Baseline = &budget.Comparison{File: h.in, Gone: 1, Deltas: []budget.Delta{{Operation: h.in, Variant: h.in, Status: budget.Gone}},
			Operations: []budget.OpDelta{{Operation: h.in, Basis: h.in}}}
		var text, md bytes.Buffer
		BudgetText(&text, r)
		BudgetMarkdown(&md, r)
		if !strings.HasPrefix(h.raw, "@") && !strings.Contains(h.raw, "evil") {
			assert.NotContains(t, text.String(), h.raw, "text of %q", h.in)
		}
		assert.NotContains(t, md.String(), h.raw, "Markdown of %q", h.in)
	}
}
