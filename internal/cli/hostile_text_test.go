package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileYAML is one YAML scalar holding what must never reach a
// terminal or a CI log raw: a line break followed by a GitHub Actions
// workflow command, a terminal colour sequence, a mention, a link, a
// right-to-left override, a NUL, a C1 control and a bell.
const hostileYAML = `"hx\n::warning file=x::pwned \e[31mred @org/team https://evil.example www.evil.example \u202Erev \0nul \x85c1 \a end"`

// hostileText is the same text as Go holds it.
const hostileText = "hx\n::warning file=x::pwned \x1b[31mred @org/team https://evil.example www.evil.example \u202erev \x00nul \u0085c1 \a end"

// hostileModel writes examples/orders/model.yaml with the hostile text
// in every kind of prose the text reports print: a question, a note of
// a load, an expectation, the model's and an attribute's description,
// a decision, a review answer, a population note.
func hostileModel(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/orders/model.yaml")
	require.NoError(t, err)
	s := string(src)
	for _, r := range []struct{ old, new string }{
		{"question: An order by its id", "question: " + hostileYAML},
		{"note: every external id of the month", "note: " + hostileYAML},
		{"- that: every lookup reads the base table strongly consistent; no GSI is read for an exact answer", "- that: " + hostileYAML},
		{"- that: the lookups spread over one partition per external id; no partition is hot", "- that: " + hostileYAML},
		{"decision: The base table is keyed by the order (PK ORDER#{orderId}); its notes live in the same item collection (SK NOTE#...).", "decision: " + hostileYAML},
		{"description: The order's identifier, generated at checkout.", "description: " + hostileYAML},
		{`gsi-owners: byCustomer the customer app's "My orders" screen; opsQueue the warehouse workers.`, "gsi-owners: " + hostileYAML},
		{`note: "20M orders of 2M customers, 10 each on average"`, "note: " + hostileYAML},
	} {
		require.Contains(t, s, r.old)
		s = strings.Replace(s, r.old, r.new, 1)
	}
	s = regexp.MustCompile(`(?m)^description: >-\n(  .*\n)+`).ReplaceAllString(s, "description: "+hostileYAML+"\n")
	path := filepath.Join(t.TempDir(), "model.yaml")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// rawHostile lists what of hostileText an output holds raw.
func rawHostile(out string, markdown bool) []string {
	var found []string
	for _, bad := range []string{"\x1b", "\x00", "\a", "\u202e", "\u0085"} {
		if strings.Contains(out, bad) {
			found = append(found, strings.Trim(bad, ""))
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			found = append(found, "a line beginning ::")
		}
	}
	if markdown {
		for _, bad := range []string{"@org", "https://evil", "www.evil"} {
			if strings.Contains(out, bad) {
				found = append(found, bad)
			}
		}
	}
	return found
}

// TestHostileTextOutputs pushes hostile text from a model and from a
// baseline through every text and Markdown output of check, cost, plan,
// load and budget: none of it comes out raw, and it does come out
// (escaped) where the report prints it.
func TestHostileTextOutputs(t *testing.T) {
	model := hostileModel(t)
	dir := t.TempDir()

	// A baseline whose operation names are hostile: budget compares with
	// it and names what is gone.
	base := filepath.Join(dir, "base.json")
	r := runCLI([]string{"budget", "--format", "json", "--only", "GetOrder", model}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	results := rep["results"].([]any)
	gone := map[string]any{}
	for k, v := range results[0].(map[string]any) {
		gone[k] = v
	}
	gone["operation"] = hostileText
	gone["variant"] = hostileText
	rep["results"] = append(results, gone)
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(base, data, 0o644))

	md := filepath.Join(dir, "r.md")
	for _, c := range []struct {
		name string
		args []string
		// shows is what the output must hold: the hostile text, escaped.
		shows string
	}{
		{"check", []string{"check", model}, `hx\n::warning`},
		{"cost", []string{"cost", model}, `hx\n::warning`},
		{"plan", []string{"plan", model, "--scenario", "month-end-lookups", "--no-search"}, `hx\n::warning`},
		{"load", []string{"load", model, "--scenario", "month-end-lookups", "--scale", "0.0001", "--duration", "1s", "--speed", "max", "--quiet"}, `hx\n::warning`},
		{"budget", []string{"budget", "--only", "GetOrder", "--baseline", base, "--markdown", md, model}, `hx\n::warning`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(c.args, nil)
			require.Contains(t, []int{ExitOK, ExitFailed}, r.code, r.stderr)
			assert.Empty(t, rawHostile(r.stdout, false), "stdout:\n%s", r.stdout)
			assert.Empty(t, rawHostile(r.stderr, false), "stderr:\n%s", r.stderr)
			if c.shows != "" {
				assert.Contains(t, r.stdout, c.shows)
			}
		})
	}
	t.Run("markdown", func(t *testing.T) {
		b, err := os.ReadFile(md)
		require.NoError(t, err)
		assert.Empty(t, rawHostile(string(b), true), "%s", b)
		assert.Contains(t, string(b), "@\u2060org/team", "the name is kept, unlinked")
	})
}
