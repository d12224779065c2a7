package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numericTypes are pflag's type names of numeric flags.
var numericTypes = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "float32": true, "float64": true,
	"duration": true, "count": true, "number": true}

// unranged are the numeric flags any value of their type suits: a seed
// bounds no loop.
var unranged = map[string]bool{"seed": true}

// rangedFlag is one range-checked flag of the command tree.
type rangedFlag struct {
	path []string // the command's words after cardapio
	flag *pflag.Flag
}

// allFlags walks the command tree and returns every flag with its
// command's words.
func allFlags(t *testing.T) []rangedFlag {
	t.Helper()
	var out []rangedFlag
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		c.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, rangedFlag{path, f}) })
		for _, k := range c.Commands() {
			walk(k, append(append([]string(nil), path...), k.Name()))
		}
	}
	walk(newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}), nil)
	require.NotEmpty(t, out)
	return out
}

// rangeOf is what a ranged flag's Range and bad values are read from.
type rangeOf interface {
	Range() string
	bad() []string
}

// bad returns values just outside the span, and those no span holds.
func (r *ranged[T]) bad() []string {
	out := []string{"", "x"}
	switch any(r.s.hi).(type) {
	case time.Duration:
		out = append(out, r.show(r.s.hi+1), r.show(r.s.lo-1), "1000000h")
	case float64:
		out = append(out, "NaN", "+Inf", "-Inf", "1e300", "-1e300", r.show(r.s.hi*2+1), r.show(r.s.lo-1))
	default:
		out = append(out, r.show(r.s.hi+1), "1e9", "99999999999999999999", fmt.Sprint(int64(r.s.lo)-1))
	}
	if r.s.open {
		out = append(out, r.show(r.s.lo))
	}
	return out
}

// Every numeric flag of every command is range-checked.
func TestEveryNumericFlagIsRanged(t *testing.T) {
	for _, f := range allFlags(t) {
		if !numericTypes[f.flag.Value.Type()] || unranged[f.flag.Name] {
			continue
		}
		_, ok := f.flag.Value.(rangeOf)
		assert.True(t, ok, "cardapio %s --%s is a %s flag without a range (define it with rangeVar)", strings.Join(f.path, " "), f.flag.Name, f.flag.Value.Type())
	}
}

// Every ranged flag refuses values outside its range with exit 2, naming
// the flag and its range, before the command does anything.
func TestBadFlagValuesExitTwo(t *testing.T) {
	n := 0
	for _, f := range allFlags(t) {
		r, ok := f.flag.Value.(rangeOf)
		if !ok {
			continue
		}
		for _, v := range r.bad() {
			args := append(append([]string(nil), f.path...), "--"+f.flag.Name+"="+v)
			refused(t, args, "--"+f.flag.Name, r.Range())
			n++
		}
	}
	assert.Greater(t, n, 100)
}

// The flags and values found to hang, exhaust memory or be taken as
// something else.
func TestBadFlagValuesFound(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"load", "--speed", "1e300"}, "--speed"},
		{[]string{"load", "--speed", "1e-300"}, "--speed"},
		{[]string{"load", "--speed", "0"}, "--speed"},
		{[]string{"load", "--duration", "1000000h"}, "--duration"},
		{[]string{"load", "--duration", "-5s"}, "--duration"},
		{[]string{"load", "--max-inflight", "1000000000"}, "--max-inflight"},
		{[]string{"load", "--max-inflight", "-1"}, "--max-inflight"},
		{[]string{"load", "--population", "0"}, "--population"},
		{[]string{"load", "--scale", "0"}, "--scale"},
		{[]string{"data", "--workers", "1000000000"}, "--workers"},
		{[]string{"data", "--serve", "--concurrency", "1000000000"}, "--concurrency"},
		{[]string{"data", "--scale", "0"}, "--scale"},
		{[]string{"plan", "--scale", "0"}, "--scale"},
		{[]string{"cost", "--utilisation", "NaN"}, "--utilisation"},
		{[]string{"cost", "--utilisation", "0"}, "--utilisation"},
	} {
		refused(t, append(c.args, "../../model.yaml"), c.flag, "")
	}
	// Within range, a flag is taken: max is a speed.
	var sp float64
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	rangeOrWord(fs, &sp, "speed", 1, between(0.001, 1e6), "max", 0, "")
	require.NoError(t, fs.Parse([]string{"--speed", "max"}))
	assert.Zero(t, sp)
	require.NoError(t, fs.Parse([]string{"--speed", "60"}))
	assert.Equal(t, 60.0, sp)
}

// refused runs cardapio with args and asserts exit 2 and a message
// naming flag and, when given, its range.
func refused(t *testing.T, args []string, flag, rng string) {
	t.Helper()
	code, errOut := within(t, args...)
	assert.Equal(t, ExitBadInput, code, "cardapio %s: %s", strings.Join(args, " "), errOut)
	assert.Contains(t, errOut, flag, "cardapio %s", strings.Join(args, " "))
	assert.Contains(t, errOut, rng, "cardapio %s", strings.Join(args, " "))
}
