package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Bad input to cardapio load exits 2 with a message on stderr, before any
// population is loaded.
func TestLoadBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "../../model.yaml"}, "--scenario is required"},
		{[]string{"load", "../../model.yaml", "--scenario", "midnight"}, "no scenario \"midnight\""},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--speed", "fast"}, `"--speed" flag: must be a number from 0.001 to 1000000, or max`},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--part", "3/2"}, "--part must be"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--retry-attempts", "0"}, "--retry-attempts"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--scale", "-1"}, "--scale"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--scale", "0.004", "--throughput"}, "a partition then serves 4 WCU a second, less than one ApplySettlement/partial (10 WRU, its budget)"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--format", "xml"}, "--format"},
		{[]string{"load", "../../model.yaml", "--scenario", "./nope.yaml"}, "nope.yaml"},
		{[]string{"load", "no-such-model.yaml", "--scenario", "payday"}, "no-such-model.yaml"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--part", "auto/4"}, "neither JOB_COMPLETION_INDEX"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--part", "auto"}, "--part must be"},
		{[]string{"load", "../../model.yaml", "--scenario", "payday", "--scale", "0.0001", "--existing"}, "--existing runs against tables that already hold the population"},
	} {
		r := runCLI(tc.args, nil)
		assert.Equal(t, ExitBadInput, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, tc.args)
		assert.Empty(t, r.stdout, tc.args)
		for _, l := range leaks {
			assert.NotContains(t, r.stderr, l, tc.args)
		}
	}
}
