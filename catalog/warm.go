package catalog

import (
	"fmt"

	"github.com/cardapio/cardapio/throughput"
)

// Warm throughput per index. On AWS each global index has a warm
// throughput of its own; a model declares it on the index
// (indexes.X.warmThroughput), and an index that declares none is warmed
// as its table is (billing.warmThroughput), which is what the endpoint,
// the engine's throughput model, the planner and the generated
// infrastructure all read through Index.Warm.

// Warm returns the warm throughput the index is created with: its own,
// or else its table's; nil when neither declares one (AWS's default).
// A local index shares its table's throughput and has none of its own.
func (x *Index) Warm() *Throughput {
	if x.Local {
		return nil
	}
	if x.WarmThroughput != nil {
		return x.WarmThroughput
	}
	if x.Table != nil {
		return x.Table.Billing.WarmThroughput
	}
	return nil
}

// indexWarm checks an index's own warm throughput: a global index's,
// at least the warm throughput AWS gives every new one in each direction
// it gives (throughput.DefaultWarmRead and DefaultWarmWrite), since one
// below would lower nothing: warm throughput only rises.
func (r *resolver) indexWarm(ptr string, x *Index, w *Throughput) {
	if w == nil {
		return
	}
	if x.Local {
		r.errAt(ptr, true, "declare it on the table (billing.warmThroughput)", "local index %s shares its table's throughput: it has no warm throughput of its own", x.Name)
		return
	}
	if w.Read == 0 && w.Write == 0 {
		r.errAt(ptr, true, "", "warm throughput needs read, write or both")
		return
	}
	for _, d := range []struct {
		f        string
		got, min int64
	}{{"read", w.Read, throughput.DefaultWarmRead}, {"write", w.Write, throughput.DefaultWarmWrite}} {
		if d.got != 0 && d.got < d.min {
			r.errAt(ptr+"/"+d.f, false, fmt.Sprintf("give at least %d, or leave %s out", d.min, d.f),
				"%d %s units a second is below the %d AWS gives every new global index: warm throughput only rises", d.got, d.f, d.min)
		}
	}
	x.WarmThroughput = w
}
