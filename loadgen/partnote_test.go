package loadgen

import (
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// A partition expectation without partition figures says what gives
// them: on the embedded engine, --throughput.
func TestPartitionNoteSaysWhatToAdd(t *testing.T) {
	max := 100.0
	c := catalog.Check{Metric: catalog.MetricPartitionWrite, Table: &catalog.Table{Name: "T"}, Max: &max}
	cr := measure(c, &Summary{Target: endpoint.EmbeddedName}, nil)
	if cr.OK || !strings.Contains(cr.Note, "run again with --throughput") {
		t.Errorf("embedded engine without its throughput model: ok %v, note %q", cr.OK, cr.Note)
	}
	cr = measure(c, &Summary{Target: "http://127.0.0.1:8000"}, nil)
	if cr.OK || !strings.Contains(cr.Note, "cardapio serve --throughput") {
		t.Errorf("a server: ok %v, note %q", cr.OK, cr.Note)
	}
}
