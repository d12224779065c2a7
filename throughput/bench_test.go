package throughput

import (
	"testing"
)

// benchModel is an on-demand table with one index, scaled up so that
// nothing throttles: the benchmarks measure the admitted path.
func benchModel(b *testing.B) *Model {
	m, err := New(Config{Scale: 1e6})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Define("T", ResourceSpec{Mode: OnDemand}, map[string]ResourceSpec{"G": {}}); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkAdmitWrite admits a base-table write that also writes one
// index entry, on the wall clock.
func BenchmarkAdmitWrite(b *testing.B) {
	m := benchModel(b)
	key := []byte("contract#0001")
	ix := []IndexCharge{{Name: "G", Key: key, Write: 1}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h := spread(i)
		ix[0].Hash = h * 31
		if th := m.Admit(Request{Table: "T", Hash: h, Key: key, Write: 1, Indexes: ix}); th != nil {
			b.Fatal(th)
		}
		i++
	}
}

// BenchmarkAdmitWriteParallel is the same from all procs on one table.
func BenchmarkAdmitWriteParallel(b *testing.B) {
	m := benchModel(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ix := []IndexCharge{{Name: "G", Write: 1}}
		i := 0
		for pb.Next() {
			h := spread(i)
			ix[0].Hash = h * 31
			if th := m.Admit(Request{Table: "T", Hash: h, Write: 1, Indexes: ix}); th != nil {
				b.Error(th)
				return
			}
			i++
		}
	})
}

// BenchmarkAdmitThrottled measures refusals (one hot key far over its
// cap), which build a Throttle.
func BenchmarkAdmitThrottled(b *testing.B) {
	m, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Define("T", ResourceSpec{Mode: OnDemand}, nil); err != nil {
		b.Fatal(err)
	}
	key := []byte("hot")
	b.ReportAllocs()
	for b.Loop() {
		m.Admit(Request{Table: "T", Hash: 1, Key: key, Write: 1000})
	}
}
