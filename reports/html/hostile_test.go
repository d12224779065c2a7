package html

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is text a model, a results file or a path may carry: markup,
// an attribute breaking out of its quotes, a script URL, the end of the
// style and title elements.
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`javascript:alert(3)`,
	`</style><style>body{display:none}</style>`,
	`</title><b>4</b>`,
	`' onmouseover='alert(5)`,
}

// Text from outside reaches the page as text: in the header, the cards,
// the map's chart titles and labels, tables, intros and the commands of
// the missing sections, every hostile string is escaped, and the page
// holds no element or attribute it did not write itself.
func TestHostileTextIsEscaped(t *testing.T) {
	src, err := os.ReadFile(models[1])
	require.NoError(t, err)
	all := strings.Join(hostile, " ")
	yaml := strings.Replace(string(src), "question: An order by its id", "question: '"+strings.ReplaceAll(all, "'", "''")+"'", 1)
	yaml = strings.Replace(yaml, "description: >-\n  Orders of an e-commerce platform", "description: >-\n  "+strings.ReplaceAll(all, "'", "''")+" Orders of an e-commerce platform", 1)
	require.NotEqual(t, string(src), yaml)
	path := filepath.Join(t.TempDir(), "model.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	s, err := SideOf(path)
	require.NoError(t, err)
	require.Contains(t, s.Model.Description, hostile[0])

	f, err := os.Open("testdata/load.jsonl")
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLoad("load.jsonl", f)
	require.NoError(t, err)
	l.Scenario, l.Target = all, all
	r := &Report{Side: *s, Load: l, LoadFrom: all}
	r.Path = all
	r.Model.Name = all
	var b bytes.Buffer
	require.NoError(t, r.Write(&b))
	page := b.String()

	// The page is large: failures name what was sought, not the page.
	has := func(sub, where string) {
		t.Helper()
		assert.True(t, strings.Contains(page, sub), "%s: %q not found", where, sub)
	}
	for _, h := range append(hostile, "<script", "<img", "<b>") {
		if strings.HasPrefix(h, "javascript:") {
			continue // harmless as text; never a link (below)
		}
		assert.False(t, strings.Contains(page, h), "%q written raw", h)
	}
	assert.Equal(t, 1, strings.Count(page, "<style>"), "one style element")
	assert.Equal(t, 1, strings.Count(page, "</style>"))
	assert.False(t, regexp.MustCompile(`(?i)\son\w+\s*=`).MatchString(tagsOf(page)), "an event handler attribute")
	assert.False(t, regexp.MustCompile(`(?i)(href|src)\s*=\s*["']?\s*javascript:`).MatchString(page), "a script URL")
	// The text is there, escaped, in each place it reaches.
	esc := "&lt;script&gt;alert(1)&lt;/script&gt;"
	has("<title>"+esc, "the document's title")
	has(`<h1>`+esc, "the heading")
	has(`<p class="desc">`+esc, "the description")
	has(`<p class="meta">`+esc, "the model's path")
	has(`<g><title>OP01: `+esc, "the map's tooltip")
	has(`<td class="n">`+esc, "the map's table")
	has(`<strong>load run</strong><br>`+esc, "the load run's card")
	has(`<h2 id="load-h">Load run: `+esc, "a section's heading")
	has(`<code>cardapio plan `+esc, "a missing section's command")
	has("&#34;&gt;&lt;img src=x onerror=alert(2)&gt;", "an attribute break-out, as text")
}

// tagsOf returns the page's tags without their text: what the browser
// reads as elements and attributes.
func tagsOf(page string) string {
	return strings.Join(regexp.MustCompile(`<[^>]*>`).FindAllString(page, -1), "\n")
}
