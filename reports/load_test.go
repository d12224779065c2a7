package reports

import (
	"strings"
	"testing"

	"github.com/cardapio/cardapio/loadgen"
)

// A throttle's reason reads after "throttled by" once: AWS's reasons and
// the transaction's own read alike.
func TestLoadTextThrottleReasons(t *testing.T) {
	s := &loadgen.Summary{
		Operations: map[string]*loadgen.LoadStats{"Pay": {
			Operation: "Pay",
			Throttles: map[string]int64{loadgen.TxnTableThrottled: 2, "IndexWriteKeyRangeThroughputExceeded": 3},
		}},
	}
	var b strings.Builder
	LoadText(&b, s)
	out := b.String()
	for _, want := range []string{"throttled by the table, in a transaction 2", "throttled by IndexWriteKeyRangeThroughputExceeded 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "throttled by transaction throttled") {
		t.Errorf("the reason repeats itself:\n%s", out)
	}
}
