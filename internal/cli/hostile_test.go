package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is a model check accepted once and a later command hung on,
// ran out of memory with or printed infinities for: a base model with
// one figure changed.
type hostile struct {
	name, base, old, new string
	scenario             string   // a scenario of the base, for plan and load
	want                 string   // the check's message
	also                 []string // more old, new pairs
}

var hostileModels = []hostile{
	{"list of a billion elements", "../../examples/orders/model.yaml", "lineItems: {list: {count: [1, 6]}}", "lineItems: {list: {count: 1000000000}}", "queue-0900",
		"list.count: 1000000000 is above the maximum 10000", nil},
	{"list of a billion elements at most", "../../examples/orders/model.yaml", "lineItems: {list: {count: [1, 6]}}", "lineItems: {list: {count: [1, 1000000000]}}", "queue-0900",
		"is above the maximum 10000", nil},
	{"list of 10,000 elements over the item limit", "../../examples/orders/model.yaml", "lineItems: {list: {count: [1, 6]}}", "lineItems: {list: {count: 10000}}", "queue-0900",
		"list.count: a list of 10000 elements like lineItems's samples' (41 bytes each) is 410000 bytes, over DynamoDB's item limit of 409600",
		[]string{"- {sku: TEE-0042, qty: 2, unitPriceCents: 4990}", "- {sku: TEE-0042, qty: 999, unitPriceCents: 4990000}"}},
	{"volume of 1.7e308 a day", "../../examples/orders/model.yaml", "volume: {perDay: 60000, peakPerSecond: 1500, when: campaign", "volume: {perDay: 1.7e308, peakPerSecond: 1500, when: campaign", "queue-0900",
		"volume.perDay: 1.7e+308 is above the maximum 100000000000", nil},
	{"a billion pages", "testdata/models/telemetry.yaml", "typical: {rru: 1, reasoning:", "typical: {rru: 1, pages: 1000000000, reasoning:", "reconnect-burst",
		"pages: 1000000000 is above the maximum 1000", nil},
	{"rate of 10^12 a second", "testdata/models/telemetry.yaml", "rate: {count: 100, per: second}", "rate: {count: 1000000000000, per: second}", "reconnect-burst",
		"rate.count: 1000000000000 is above the maximum 1000000000", nil},
	{"rate of 2 million a second", "testdata/models/telemetry.yaml", "rate: {count: 100, per: second}", "rate: {count: 2000000, per: second}", "reconnect-burst",
		"the load asks for 2e+06 arrivals a second, over the 1000000", nil},
	{"window of a million hours", "testdata/models/telemetry.yaml", "        window: 20s\n        subjects: {entity: DEVICE", "        window: 1000000h\n        subjects: {entity: DEVICE", "reconnect-burst",
		`"1000000h" is not a positive duration of at most a week`, nil},
	{"runs of 1e300 a day", "testdata/models/telemetry.yaml", "volume: {perDay: 100000}", "volume: {perDay: 1e300}", "reconnect-burst",
		"perDay: 1e+300 is above the maximum", nil},
	{"price of 1e300", "testdata/models/library.yaml", "formatVersion: 2\n", "formatVersion: 2\npricing: {writePerMillion: 1e300}\n", "",
		"writePerMillion: 1e+300 is above the maximum 1000000", nil},
}

// Every hostile model is refused by check, positioned, and every command
// that reads a model refuses it the same way, at once.
func TestHostileModelsRefused(t *testing.T) {
	dir := t.TempDir()
	for i, h := range hostileModels {
		base, err := os.ReadFile(h.base)
		require.NoError(t, err)
		require.Contains(t, string(base), h.old, h.name)
		path := filepath.Join(dir, fmt.Sprintf("hostile-%d.yaml", i))
		text := strings.Replace(string(base), h.old, h.new, 1)
		for j := 0; j+1 < len(h.also); j += 2 {
			require.Contains(t, text, h.also[j], h.name)
			text = strings.ReplaceAll(text, h.also[j], h.also[j+1])
		}
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))

		code, errOut := within(t, "check", path)
		require.Equal(t, ExitBadInput, code, "%s: %s", h.name, errOut)
		assert.Contains(t, errOut, h.want, h.name)
		assert.Regexp(t, `hostile-\d+\.yaml:\d+:\d+: `, errOut, h.name)
		first := strings.SplitN(errOut, "\n", 2)[0]

		out := filepath.Join(dir, "out")
		runs := [][]string{{"cost", path}, {"cost", "--format", "json", path}, {"data", path, "--scale", "0.0001", "--out", out},
			{"budget", path}, {"report", path, "--out", filepath.Join(dir, "report.html")}}
		if h.scenario != "" {
			runs = append(runs, []string{"plan", path, "--scenario", h.scenario}, []string{"load", path, "--scenario", h.scenario, "--quiet"})
		}
		for _, args := range runs {
			code, errOut := within(t, args...)
			assert.Equal(t, ExitBadInput, code, "%s: %v: %s", h.name, args, errOut)
			assert.Contains(t, errOut, first, "%s: %v gives check's verdict", h.name, args)
		}
	}
}

// A model of thousands of entities, which check reads at once, costs
// about as fast: cost's work follows the model's size (it compared every
// pair of entities).
func TestManyEntitiesCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "many.yaml")
	require.NoError(t, os.WriteFile(path, manyEntities(3000), 0o644))
	code, errOut := within(t, "check", path)
	require.Equal(t, ExitOK, code, errOut)
	code, errOut = within(t, "cost", path)
	require.Equal(t, ExitOK, code, errOut)
}

// manyEntities is a model of n root entities of one table sharing their
// attributes.
func manyEntities(n int) []byte {
	var b bytes.Buffer
	b.WriteString("formatVersion: 2\nname: many\ntables:\n  items: {partitionKey: PK, sortKey: SK}\nattributes:\n" +
		"  PK: {type: S, description: partition key}\n  SK: {type: S, description: sort key}\n" +
		"  id: {type: S, description: identifier}\n  v: {type: N, description: a value}\nentities:\n")
	for i := range n {
		fmt.Fprintf(&b, "  E%d:\n    key: {PK: \"E%d#{id}\", SK: \"X\"}\n    attributes: {id: key, v: required}\n    population: {total: 1000}\n    samples: {one: {id: a%d, v: 1}}\n", i, i, i)
	}
	b.WriteString("accessPatterns:\n  AP01:\n    question: one item\n    askedBy: [app]\n    consistency: eventual\n" +
		"    answer:\n      table: items\n      key: {PK: {eq: \"E0#{id}\"}, SK: {eq: \"X\"}}\n")
	return b.Bytes()
}

// A load whose population the memory cannot hold is refused before it
// loads anything, with the figure and the flag that fits: here under a
// Go memory limit of 256 MiB (GOMEMLIMIT).
func TestLoadRefusesWhatMemoryCannotHold(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "256MiB")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	code, errOut := within(t, "load", "../../examples/orders/model.yaml", "--scenario", "queue-0900", "--quiet")
	require.Equal(t, ExitBadInput, code, errOut)
	assert.Contains(t, errOut, "the run would hold about")
	assert.Contains(t, errOut, "more than the 268.4 MB available (GOMEMLIMIT): give --population 0.00")
	// Against a server the engine's tables are not the runner's, and it
	// keeps no copy of the subjects, only their index: the same run fits
	// and goes on to the server (here, none listening).
	code, errOut = within(t, "load", "../../examples/orders/model.yaml", "--scenario", "queue-0900", "--quiet", "--endpoint-url", "http://127.0.0.1:1")
	assert.Equal(t, ExitInternal, code, errOut)
	assert.NotContains(t, errOut, "the run would hold about")
	assert.Contains(t, errOut, "127.0.0.1:1")
}

// within runs cardapio with args; the wait is a safety net for a run
// that would hang, not a measure of time.
func within(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code int
		err  string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		done <- result{code, errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.err
	case <-time.After(5 * time.Minute):
		t.Fatalf("cardapio %s did not return", strings.Join(args, " "))
		return 0, ""
	}
}

// BenchmarkCostEntities costs models of n entities: the time per model
// grows with n, not with its square.
func BenchmarkCostEntities(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		path := filepath.Join(b.TempDir(), "many.yaml")
		require.NoError(b, os.WriteFile(path, manyEntities(n), 0o644))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if code := Main([]string{"cost", path}, nil, io.Discard, io.Discard); code != ExitOK {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// The largest figures the schema allows (runs, prices) give a bill of
// finite numbers: printed as numbers and encoded as JSON.
func TestLargestFiguresStayFinite(t *testing.T) {
	base, err := os.ReadFile("../../model.yaml")
	require.NoError(t, err)
	text := regexp.MustCompile(`perDay: [0-9.e+]+`).ReplaceAllString(string(base), "perDay: 100000000000")
	text = regexp.MustCompile(`(?m)^(  (?:writePerMillion|readPerMillion|storagePerGBMonth|iaStoragePerGBMonth)): [0-9.]+$`).ReplaceAllString(text, "$1: 1000000")
	require.Contains(t, text, "writePerMillion: 1000000")
	path := filepath.Join(t.TempDir(), "largest.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	for _, format := range []string{"text", "json"} {
		var out, errb bytes.Buffer
		code := Main([]string{"cost", "--format", format, path}, strings.NewReader(""), &out, &errb)
		require.Equal(t, ExitOK, code, errb.String())
		for _, bad := range []string{"Inf", "NaN", "-9223372036854775808"} {
			assert.NotContains(t, out.String(), bad, format)
		}
	}
}
