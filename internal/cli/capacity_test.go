package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden files are rewritten by: go test ./internal/cli -run Capacity -update
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// run runs cardapio and returns what a user sees: stdout, stderr and the
// exit code, in one text.
func run(args []string, stdin io.Reader) string {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := Main(args, stdin, &out, &errb)
	return fmt.Sprintf("$ cardapio %s\n%s--- stderr\n%s--- exit %d\n", strings.Join(args, " "), out.String(), errb.String(), code)
}

// golden compares got with testdata/capacity/<name>.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "capacity", name+".golden")
	if updating() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), got)
}

func TestCapacityItemGolden(t *testing.T) {
	td := func(f string) string { return filepath.Join("testdata", "capacity", f) }
	cases := []struct {
		name string
		args []string
	}{
		{"worked-text", []string{"capacity", "item", td("worked.json")}},
		{"worked-json", []string{"capacity", "item", "--format", "json", td("worked.json")}},
		{"numbers-measured", []string{"capacity", "item", td("numbers.json")}},
		{"numbers-pairs", []string{"capacity", "item", "--numbers", "pairs", td("numbers.json")}},
		{"truncated", []string{"capacity", "item", td("truncated.json")}},
		{"unknown-tag", []string{"capacity", "item", td("unknown-tag.json")}},
		{"trailing-comma", []string{"capacity", "item", td("trailing-comma.json")}},
		{"missing-file", []string{"capacity", "item", td("no-such-file.json")}},
		{"bad-numbers-flag", []string{"capacity", "item", "--numbers", "binary", td("worked.json")}},
		{"bad-format-flag", []string{"capacity", "item", "--format", "xml", td("worked.json")}},
		{"no-file", []string{"capacity", "item"}},
		{"stream-good", []string{"capacity", "item", "--jsonl", td("good.jsonl")}},
		{"stream-good-json", []string{"capacity", "item", "--jsonl", "--format", "json", td("good.jsonl")}},
		{"stream-bad", []string{"capacity", "item", "--jsonl", td("stream.jsonl")}},
		{"stream-bad-json", []string{"capacity", "item", "--jsonl", "--workers", "1", "--format", "json", td("stream.jsonl")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, strings.ReplaceAll(run(tc.args, nil), string(filepath.Separator), "/"))
		})
	}
}

// TestCapacityItemStdin reads "-" and checks the exact JSON shape.
func TestCapacityItemStdin(t *testing.T) {
	in := `{"pk":{"S":"` + strings.Repeat("x", 4094) + `"}}`
	got := run([]string{"capacity", "item", "--format", "json", "-"}, strings.NewReader(in))
	assert.Equal(t, "$ cardapio capacity item --format json -\n"+
		`{"sizeBytes":4096,"writeUnits":4,"readUnitsStrong":1,"readUnitsEventual":0.5,"transactWriteUnits":8,"transactReadUnits":2}`+
		"\n--- stderr\n--- exit 0\n", got)
}

// TestCapacityItemTooBig: over 400 KB is one clear message and exit 2, for
// one item and for a line of a stream.
func TestCapacityItemTooBig(t *testing.T) {
	in := `{"pk":{"S":"` + strings.Repeat("x", 409599) + `"}}`
	got := run([]string{"capacity", "item", "-"}, strings.NewReader(in))
	assert.Equal(t, "$ cardapio capacity item -\n--- stderr\ncardapio: stdin: item is 409,601 B, over the 409,600 B limit\n--- exit 2\n", got)

	ok := `{"pk":{"S":"` + strings.Repeat("x", 409598) + `"}}`
	got = run([]string{"capacity", "item", "--format", "json", "-"}, strings.NewReader(ok))
	assert.Contains(t, got, `{"sizeBytes":409600,"writeUnits":400,`)

	huge := strings.NewReader(`{"pk":{"S":"` + strings.Repeat("x", 17<<20) + `"}}`)
	got = run([]string{"capacity", "item", "-"}, huge)
	assert.Contains(t, got, "cardapio: stdin: over 16 MB, too large for one item (a stream of items needs --jsonl)\n--- exit 2\n")

	stream := ok + "\n" + in + "\n" + ok + "\n"
	got = run([]string{"capacity", "item", "--jsonl", "--format", "json", "-"}, strings.NewReader(stream))
	assert.Contains(t, got, `{"items":2,"badLines":1,"totalBytes":819200,`)
	assert.Contains(t, got, "cardapio: stdin:2: item is 409,601 B, over the 409,600 B limit\n--- exit 2\n")
}

// TestCapacityItemWorkersAgree: the stream's output does not depend on how
// many goroutines decode it.
func TestCapacityItemWorkersAgree(t *testing.T) {
	file := filepath.Join("testdata", "capacity", "stream.jsonl")
	one := run([]string{"capacity", "item", "--jsonl", "--workers", "1", file}, nil)
	for _, w := range []string{"2", "3", "8"} {
		got := run([]string{"capacity", "item", "--jsonl", "--workers", w, file}, nil)
		assert.Equal(t, one, strings.Replace(got, "--workers "+w, "--workers 1", 1))
	}
}

func TestGroupUnits(t *testing.T) {
	assert.Equal(t, "2,000,000", groupUnits(2e6))
	assert.Equal(t, "1,000,000.5", groupUnits(1000000.5))
	assert.Equal(t, "0.5", groupUnits(0.5))
	assert.Equal(t, "-1,234", thousands(-1234))
	assert.Equal(t, "999", thousands(999))
}
