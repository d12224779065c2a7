package throughput

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Admissions from many goroutines and snapshots taken meanwhile agree:
// every request is counted once, consumed or throttled, per partition
// and per table.
func TestConcurrentAdmitAndSnapshot(t *testing.T) {
	m, clk := newModel(t, Config{Scale: 0.01})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, map[string]ResourceSpec{"G": {}}))
	require.NoError(t, m.Define("U", ResourceSpec{ReadCapacity: 100, WriteCapacity: 100}, nil))
	const workers, per = 8, 3000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				s := m.Snapshot()
				assert.Len(t, s.Tables, 2)
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				k := spread(w*per + i)
				m.Admit(Request{Table: "T", Hash: k, Write: 1, Indexes: []IndexCharge{{Name: "G", Hash: k >> 3, Write: 1}}})
				m.Admit(Request{Table: "U", Hash: k, Read: 0.5})
				m.AdmitAll([]Request{{Table: "U", Hash: k, Write: 2}, {Table: "T", Hash: k, Write: 2}})
				if i%100 == 0 {
					clk.Advance(100 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	s := m.Snapshot()
	tT, tU := s.Table("T").Resource(""), s.Table("U").Resource("")
	assert.InDelta(t, workers*per*(1+2), tT.Totals.WriteConsumed+tT.Totals.WriteThrottled, 1e-6)
	assert.InDelta(t, workers*per*0.5, tU.Totals.ReadConsumed+tU.Totals.ReadThrottled, 1e-6)
	for _, r := range []*ResourceStats{tT, tU, s.Table("T").Resource("G")} {
		var sum Totals
		for _, p := range r.Partitions {
			sum.ReadConsumed += p.Totals.ReadConsumed
			sum.WriteConsumed += p.Totals.WriteConsumed
			sum.ReadThrottled += p.Totals.ReadThrottled
			sum.WriteThrottled += p.Totals.WriteThrottled
		}
		assert.InDelta(t, r.Totals.WriteConsumed, sum.WriteConsumed, 1e-6)
		assert.InDelta(t, r.Totals.WriteThrottled, sum.WriteThrottled, 1e-6)
		assert.InDelta(t, r.Totals.ReadConsumed, sum.ReadConsumed, 1e-6)
	}
}
