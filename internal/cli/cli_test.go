package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// End-to-end tests of bad input through Main: whatever the file holds,
// check and cost exit 2 with positioned errors on stderr and nothing on
// stdout (check --format json: one JSON document), never a panic, a Go
// type or a raw library message.

// positioned matches "file:line:col: message".
var positioned = regexp.MustCompile(`^(?:cardapio: )?(.+):(\d+):(\d+): \S`)

// leaks are texts that only a bug puts in front of a user.
var leaks = []string{"panic", "goroutine", "runtime error", "map[", "interface {}", "[]interface", "*catalog", "catalog.", "yaml: unmarshal errors", "json: cannot", "%!", "<nil>"}

type cliRun struct {
	stdout, stderr string
	code           int
}

func runCLI(args []string, stdin []byte) cliRun {
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(stdin), &out, &errb)
	return cliRun{out.String(), errb.String(), code}
}

// assertPositioned checks that stderr lists positioned errors, each
// followed by at most one hint, and leaks nothing.
func assertPositioned(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range leaks {
		assert.NotContains(t, stderr, l)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	require.NotEmpty(t, lines)
	hints := 0
	for i, l := range lines {
		if m := positioned.FindStringSubmatch(l); m != nil {
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			assert.GreaterOrEqual(t, line, 1, l)
			assert.GreaterOrEqual(t, col, 1, l)
			hints = 0
			continue
		}
		switch {
		case strings.HasPrefix(l, "hint: "):
			hints++
			assert.Equal(t, 1, hints, "two hints in a row: %q", stderr)
			assert.Positive(t, i, "a hint before any error")
		case strings.HasPrefix(l, "(and "):
		default:
			t.Errorf("line neither positioned nor a hint: %q", l)
		}
	}
}

// badModels writes models broken in the ways a file gets broken, and
// returns their paths by name.
func badModels(t *testing.T) map[string]string {
	dir := t.TempDir()
	ref, err := os.ReadFile("../../model.yaml")
	require.NoError(t, err)
	files := map[string][]byte{
		"empty":         {},
		"blank":         []byte("\n \n"),
		"scalar":        []byte("just text\n"),
		"binary":        {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe},
		"nul":           append(append([]byte{}, ref[:5000]...), 0),
		"invalid-utf8":  append(append([]byte{}, ref[:7000]...), 0xc3, 0x28),
		"utf16":         {0xff, 0xfe, 'f', 0, 'o', 0, 'r', 0},
		"control-char":  bytes.Replace(ref, []byte("name: lastro"), []byte("name: last\x1bro"), 1),
		"huge":          bytes.Repeat(ref, 120), // 10 MiB and more
		"deep":          []byte("formatVersion: 1\nname: x\ntables: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"),
		"two-documents": append(append(append([]byte{}, ref...), "\n---\n"...), ref...),
		"json":          []byte(`{"formatVersion": 1, "name": "x", "tables": {"t": {"partitionKey": 1}}`),
		"tab-indent":    bytes.Replace(ref, []byte("\n  "), []byte("\n\t"), 1),
		"misindent":     bytes.Replace(ref, []byte("\n      pageSize:"), []byte("\n     pageSize:"), 1),
		"unclosed":      bytes.Replace(ref, []byte("askedBy: ["), []byte("askedBy: [["), 1),
		"alias-unknown": bytes.Replace(ref, []byte("consistency: eventual"), []byte("consistency: *eventual"), 1),
		"renamed-attr":  bytes.Replace(ref, []byte("\n  contractId:"), []byte("\n  contractIdx:"), 1),
		"renamed-index": bytes.Replace(ref, []byte("\n  GSI1:"), []byte("\n  GSI7:"), 1),
		"wrong-type":    bytes.Replace(ref, []byte("formatVersion: 2"), []byte("formatVersion: [2]"), 1),
	}
	for _, off := range []int{1, 100, 1000, 5000, 12345, 30000, 50000, 70000} {
		files["truncated-"+strconv.Itoa(off)] = ref[:off]
	}
	paths := map[string]string{"missing": filepath.Join(dir, "missing.yaml"), "directory": dir}
	for name, data := range files {
		p := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths[name] = p
	}
	return paths
}

func TestBadModelsExitTwo(t *testing.T) {
	other := "../../examples/model-b.yaml"
	for name, path := range badModels(t) {
		unreadable := name == "missing" || name == "directory"
		t.Run(name, func(t *testing.T) {
			// A model cut at a section boundary (or in a trailing text) may
			// still be a valid model: then it must pass, not crash.
			if strings.HasPrefix(name, "truncated-") && runCLI([]string{"check", path}, nil).code == ExitOK {
				return
			}
			for _, args := range [][]string{{"check", path}, {"cost", path}, {"cost", "--format", "json", path}, {"cost", "--compare", other, path}} {
				r := runCLI(args, nil)
				require.Equal(t, ExitBadInput, r.code, "%v\n%s", args, r.stderr)
				assert.Empty(t, r.stdout, "%v: results only on success", args)
				if unreadable {
					assert.Regexp(t, `^cardapio: read model .+: `, r.stderr)
					continue
				}
				assertPositioned(t, r.stderr)
			}

			r := runCLI([]string{"check", "--format", "json", path}, nil)
			require.Equal(t, ExitBadInput, r.code)
			var doc struct {
				OK     bool `json:"ok"`
				Errors []struct {
					File         string
					Line, Column int
					Message      string
				}
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), "stdout is one JSON document: %q", r.stdout)
			assert.False(t, doc.OK)
			require.NotEmpty(t, doc.Errors)
			for _, e := range doc.Errors {
				assert.Equal(t, path, e.File)
				if !unreadable {
					assert.GreaterOrEqual(t, e.Line, 1, e.Message)
					assert.GreaterOrEqual(t, e.Column, 1, e.Message)
				}
				for _, l := range leaks {
					assert.NotContains(t, e.Message, l)
				}
			}
		})
	}
}

// TestBadModelPositions: the error names the line that was broken, not
// the top of the block around it.
func TestBadModelPositions(t *testing.T) {
	ref, err := os.ReadFile("../../model.yaml")
	require.NoError(t, err)
	lineOf := func(data []byte, s string) int {
		i := bytes.Index(data, []byte(s))
		require.GreaterOrEqual(t, i, 0, s)
		return bytes.Count(data[:i], []byte("\n")) + 1
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, old, new string }{
		{"misindent", "\n      pageSize:", "\n     pageSize:"},
		{"control", "name: lastro", "name: last\x1bro"},
		{"alias", "consistency: eventual", "consistency: *eventual"},
		{"tab", "\n    question:", "\n\tquestion:"},
	} {
		data := bytes.Replace(ref, []byte(c.old), []byte(c.new), 1)
		want := lineOf(data, c.new[min(1, len(c.new)-1):])
		path := filepath.Join(dir, c.name+".yaml")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		r := runCLI([]string{"check", path}, nil)
		require.Equal(t, ExitBadInput, r.code)
		m := positioned.FindStringSubmatch(r.stderr)
		require.NotNil(t, m, r.stderr)
		got, _ := strconv.Atoi(m[2])
		assert.Equal(t, want, got, "%s: %s", c.name, r.stderr)
	}
}

// TestOutputStreams: results go to stdout and nothing to stderr on
// success; errors go to stderr and nothing to stdout.
func TestOutputStreams(t *testing.T) {
	item := []byte(`{"PK":{"S":"T#t042#D#9f2c"},"n":{"N":"12.5"}}`)
	for _, args := range [][]string{
		{"check", "../../model.yaml"},
		{"check", "--format", "json", "../../model.yaml"},
		{"cost", "../../model.yaml"},
		{"cost", "--format", "json", "../../examples/model-a.yaml"},
		{"cost", "--compare", "../../examples/model-a.yaml", "../../examples/model-b.yaml"},
		{"capacity", "item", "-"},
		{"capacity", "item", "--format", "json", "-"},
		{"capacity", "item", "--jsonl", "--format", "json", "-"},
	} {
		r := runCLI(args, item)
		require.Equal(t, ExitOK, r.code, "%v: %s", args, r.stderr)
		assert.NotEmpty(t, r.stdout, "%v", args)
		assert.Empty(t, r.stderr, "%v", args)
		if slicesContain(args, "json") {
			assert.True(t, json.Valid([]byte(r.stdout)), "%v: %s", args, r.stdout)
		}
	}
	for _, args := range [][]string{
		{"check", "--format", "yaml", "../../model.yaml"},
		{"cost", "--utilisation", "2", "../../model.yaml"},
		{"cost", "--compare", "../../model.yaml"},
		{"capacity", "item", "--format", "json", "-"},
		{"capacity", "item", "--numbers", "other", "-"},
		{"capacity", "item"},
		{"nonsense"},
	} {
		r := runCLI(args, []byte(`{"a":`))
		assert.Equal(t, ExitBadInput, r.code, "%v", args)
		assert.Empty(t, r.stdout, "%v", args)
		assert.True(t, strings.HasPrefix(r.stderr, "cardapio: "), "%v: %q", args, r.stderr)
	}
}

func slicesContain(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestCapacityItemBadInput: malformed items are refused with a position
// (or the name of the input for a whole-item problem) and exit 2.
func TestCapacityItemBadInput(t *testing.T) {
	for name, doc := range map[string]string{
		"empty":           ``,
		"blank":           " \n\t",
		"not-object":      `[1]`,
		"null":            `null`,
		"attribute-plain": `{"a":"x"}`,
		"no-tag":          `{"a":{}}`,
		"two-tags":        `{"a":{"S":"x","N":"1"}}`,
		"unknown-tag":     `{"a":{"STR":"x"}}`,
		"lower-tag":       `{"a":{"s":"x"}}`,
		"number-as-json":  `{"a":{"N":1}}`,
		"number-text":     `{"a":{"N":"1,5"}}`,
		"39-digits":       `{"a":{"N":"123456789012345678901234567890123456789"}}`,
		"underflow":       `{"a":{"N":"1E-131"}}`,
		"overflow":        `{"a":{"N":"1E126"}}`,
		"huge-exponent":   `{"a":{"N":"1E9999999999999999999999"}}`,
		"long-number":     `{"a":{"N":"0.` + strings.Repeat("0", 50000) + `1"}}`,
		"empty-set":       `{"a":{"SS":[]}}`,
		"duplicate-set":   `{"a":{"NS":["1","1.00"]}}`,
		"duplicate-name":  `{"a":{"S":"x"},"\u0061":{"S":"y"}}`,
		"base64":          `{"a":{"B":"not base64!"}}`,
		"base64-set":      `{"a":{"BS":["YQ==","%%"]}}`,
		"bool-text":       `{"a":{"BOOL":"true"}}`,
		"null-false":      `{"a":{"NULL":false}}`,
		"truncated":       `{"a":{"S":"x"`,
		"trailing-comma":  `{"a":{"S":"x"},}`,
		"trailing-data":   `{"a":{"S":"x"}} {}`,
		"invalid-utf8":    "{\"a\":{\"S\":\"\xff\"}}",
		"nul":             "{\"a\":{\"S\":\"\x00\"}}",
		"bom":             "\ufeff{\"a\":{\"S\":\"x\"}}",
		"deep":            `{"a":` + strings.Repeat(`{"L":[`, 40) + `{"S":"x"}` + strings.Repeat(`]}`, 40) + `}`,
		"deep-json":       strings.Repeat(`[`, 100000),
		"over-400KB":      `{"a":{"S":"` + strings.Repeat("x", 409600) + `"}}`,
		"over-16MB":       `{"a":{"S":"` + strings.Repeat("x", 17<<20) + `"}}`,
		"response":        `{"Item":{"a":{"S":"x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{"capacity", "item", "-"}, {"capacity", "item", "--format", "json", "-"}} {
				r := runCLI(args, []byte(doc))
				require.Equal(t, ExitBadInput, r.code, "%v\n%s", args, r.stderr)
				assert.Empty(t, r.stdout)
				assert.Regexp(t, `^cardapio: stdin(:\d+:\d+)?: \S`, r.stderr)
				assert.LessOrEqual(t, len(r.stderr), 400, "a message a person can read")
				for _, l := range leaks {
					assert.NotContains(t, r.stderr, l)
				}
			}
		})
	}
	r := runCLI([]string{"capacity", "item", "-"}, []byte(`{"Item":{"a":{"S":"x"}}}`))
	assert.Contains(t, r.stderr, `hint: this is a response with the item under "Item"`)

	// Every item in a stream is checked; bad lines are named, good ones counted.
	r = runCLI([]string{"capacity", "item", "--jsonl", "--format", "json", "-"}, []byte("{\"a\":{\"S\":\"x\"}}\n{\"a\":{\"X\":1}}\n\n{\"a\":{\"N\":\"1E200\"}}\n"))
	require.Equal(t, ExitBadInput, r.code)
	assert.True(t, json.Valid([]byte(r.stdout)), r.stdout)
	assert.Contains(t, r.stdout, `"items":1,"badLines":2`)
	assert.Contains(t, r.stderr, "cardapio: stdin:2:")
	assert.Contains(t, r.stderr, "cardapio: stdin:4:")
}
