package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkedCost is the cost example of capacity-rules.md 10: 1 million
// puts of 1.1 KB with one GSI = 3 million WRU = US$1.875.
func TestWorkedCost(t *testing.T) {
	per := Default().Write(gsiTable(), WriteOp{Kind: Put, After: workedItem(t, "A")}).Units()
	require.Equal(t, 3.0, per)
	assert.InDelta(t, 1.875, DefaultPrices().OnDemand(per*1e6, 0, Standard), 1e-9)
}

// TestLastroFigures reproduces the cost figures of lastro-reference.md 7.
func TestLastroFigures(t *testing.T) {
	p := DefaultPrices()
	// Leak 1, model A: 240M WRU, about US$150; model B: 6M WRU, about US$4.
	assert.InDelta(t, 150, p.OnDemand(240e6, 0, Standard), 1e-9)
	assert.InDelta(t, 3.75, p.OnDemand(6e6, 0, Standard), 1e-9)
	// Leak 2: an eventual Scan of 95 GB is about 12.5M RRU, US$1.56.
	// The article's GB is binary here: 95 x 2^30 / 4 KB x 0.5 = 12.45M
	// (decimal GB would give 11.6M).
	assert.InDelta(t, 12.45e6, ReadUnits(int(95*BinaryGB.Bytes()), Eventual), 0.01e6)
	assert.InDelta(t, 11.60e6, ReadUnits(int(95*DecimalGB.Bytes()), Eventual), 0.01e6)
	assert.InDelta(t, 1.5625, p.OnDemand(0, 12.5e6, Standard), 1e-9)
	// 28,800 scans a month: about US$45,000.
	assert.InDelta(t, 45000, 28800*p.OnDemand(0, 12.5e6, Standard), 100)
	// Storage: 95 GB about US$24.
	assert.InDelta(t, 23.75, p.Storage(95, Standard), 1e-9)
	assert.InDelta(t, 9.5, p.Storage(95, StandardIA), 1e-9)
}

// TestPricing covers each function of section 7.
func TestPricing(t *testing.T) {
	p := DefaultPrices()
	assert.InDelta(t, 0.125, p.OnDemand(0, 1e6, Standard), 1e-12)
	assert.InDelta(t, 0.78125, p.OnDemand(1e6, 0, StandardIA), 1e-12, "IA requests cost 125%")
	assert.InDelta(t, 0.15625, p.OnDemand(0, 1e6, StandardIA), 1e-12)

	// Provisioned: 100 WCU/s at 100% is 100 x 0.00065 x 730 = 47.45; at
	// 50% utilisation twice that.
	assert.InDelta(t, 47.45, p.Provisioned(100, 0, 1, Standard), 1e-9)
	assert.InDelta(t, 94.90, p.Provisioned(100, 0, 0.5, Standard), 1e-9)
	assert.InDelta(t, 9.49, p.Provisioned(0, 100, 1, Standard), 1e-9)
	assert.InDelta(t, 47.45, p.Provisioned(100, 0, 0, Standard), 1e-9, "an invalid utilisation counts as 100%")
	// The same steady 100 WRU/s on demand: 100 x 2,628,000 s = 262.8M WRU.
	assert.InDelta(t, 164.25, p.OnDemand(100*SecondsPerMonth, 0, Standard), 1e-6)

	assert.InDelta(t, 1.0, GB(1e9, DecimalGB), 1e-12)
	assert.InDelta(t, 1.0, GB(1<<30, BinaryGB), 1e-12)
	assert.InDelta(t, 1e9/(1<<30), GB(1e9, BinaryGB), 1e-12)

	assert.InDelta(t, 19, p.PITR(95), 1e-9)
	assert.InDelta(t, 9.5, p.Export(95), 1e-9)
	assert.InDelta(t, 15, p.Import(100), 1e-9, "an import is billed on the uncompressed source")
	assert.InDelta(t, 0.2, p.Streams(1e6), 1e-12)

	std, ia := p.Classes(1e6, 1e6, 1000)
	assert.InDelta(t, 0.75+250, std.Total(), 1e-9)
	assert.InDelta(t, 0.9375+100, ia.Total(), 1e-9)
	assert.Equal(t, "STANDARD_INFREQUENT_ACCESS", ia.Class.String())
	assert.Equal(t, "STANDARD", std.Class.String())
}

// TestDefaultPricesDocumented: every default figure says where it comes
// from and when.
func TestDefaultPricesDocumented(t *testing.T) {
	for _, l := range DefaultPrices().Lines() {
		assert.NotEmpty(t, l.Status, l.Key)
		assert.NotEmpty(t, l.Date, l.Key)
		assert.Positive(t, l.Value, l.Key)
	}
}

func TestLoadPrices(t *testing.T) {
	p, err := LoadPrices("prices.yaml", []byte(`
region: sa-east-1
writePerMillion: 1.5
readPerMillion: {value: 0.3, status: Price List API, date: 2026-10-01}
`))
	require.NoError(t, err)
	assert.Equal(t, "sa-east-1", p.Region)
	assert.Equal(t, Figure{1.5, "from prices.yaml", ""}, p.WritePerMillion)
	assert.Equal(t, Figure{0.3, "Price List API", "2026-10-01"}, p.ReadPerMillion)
	assert.Equal(t, DefaultPrices().StorageGBMonth, p.StorageGBMonth, "keys not given keep their defaults")

	p, err = LoadPrices("prices.json", []byte(`{"exportGB": 0.12}`))
	require.NoError(t, err)
	assert.Equal(t, 0.12, p.ExportGB.Value)

	_, err = LoadPrices("empty.yaml", nil)
	require.NoError(t, err)

	_, err = LoadPrices("bad.yaml", []byte("writePerMillion: cheap\nreadPerMilion: 1\nexportGB: {value: 1, colour: red}\nwcuHour: [1]\nrcuHour: {status: x}\n"))
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, `bad.yaml:1:18: writePerMillion: want a number from 0 to 1e+06, got "cheap"`, lines[0])
	assert.True(t, strings.HasPrefix(lines[1], `bad.yaml:2:1: unknown price "readPerMilion" (known: region, date, `), lines[1])
	assert.Equal(t, `bad.yaml:3:22: exportGB: unknown field "colour" (known: value, status, date)`, lines[2])
	assert.Equal(t, `bad.yaml:4:10: wcuHour: want a number or {value, status, date}`, lines[3])
	assert.Equal(t, `bad.yaml:5:10: rcuHour: missing value`, lines[4])

	_, err = LoadPrices("neg.yaml", []byte("exportGB: -1\n"))
	assert.EqualError(t, err, `neg.yaml:1:11: exportGB: want a number from 0 to 1e+06, got "-1"`)
	_, err = LoadPrices("list.yaml", []byte("- 1\n"))
	assert.EqualError(t, err, "list.yaml:1:1: a price file is a mapping of price names to figures")
	_, err = LoadPrices("syntax.yaml", []byte("a: [\n"))
	assert.EqualError(t, err, "syntax.yaml:1:1: invalid YAML: did not find expected node content")
	_, err = LoadPrices("nan.yaml", []byte("exportGB: .nan\nwcuHour: {value: .inf}\n"))
	assert.EqualError(t, err, "nan.yaml:1:11: exportGB: want a number from 0 to 1e+06, got \".nan\"\n"+
		"nan.yaml:2:18: wcuHour.value: want a number from 0 to 1e+06, got \".inf\"")
	_, err = LoadPrices("twice.yaml", []byte("exportGB: 1\nexportGB: 2\n"))
	assert.EqualError(t, err, "twice.yaml:2:1: exportGB is given twice (first at line 1)")
	_, err = LoadPrices("binary.yaml", []byte("a: \xc3\x28"))
	assert.EqualError(t, err, "binary.yaml:1:1: invalid YAML: invalid trailing UTF-8 octet")
}

// FuzzLoadPrices: price files are outside input; no panic, ever.
func FuzzLoadPrices(f *testing.F) {
	for _, s := range []string{"", "writePerMillion: 1", `{"exportGB": {"value": 2}}`, "a: [", "- 1", "region: {a: 1}", "x: &a 1\ny: *a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := LoadPrices("f.yaml", data)
		if err == nil {
			for _, l := range p.Lines() {
				if !(l.Value >= 0) || math.IsInf(l.Value, 0) {
					t.Fatalf("%s: %v", l.Key, l.Value)
				}
			}
			return
		}
		// Every error is positioned: file:line:col: message.
		for _, l := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(l, "f.yaml:") || strings.HasPrefix(l, "f.yaml:0:") || strings.Contains(l, ":0: ") {
				t.Fatalf("unpositioned: %q", l)
			}
		}
	})
}
