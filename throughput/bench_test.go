package throughput

import (
	"fmt"
	"testing"
	"time"
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

// BenchmarkAdmitSecond decides one second of a day's simulation: eight
// loads on a table and three indexes, keys spread evenly or on the 16
// shards of two dates, one saturated partition.
func BenchmarkAdmitSecond(b *testing.B) {
	clk := NewManualClock(epoch)
	m, err := New(Config{Now: clk.Now})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Define("T", ResourceSpec{Mode: OnDemand, WarmWrite: 8000, WarmRead: 24000, SizeGB: 95},
		map[string]ResourceSpec{"G1": {}, "G2": {}, "G3": {}}); err != nil {
		b.Fatal(err)
	}
	shards := func(day string, n int) []Point {
		var ps []Point
		for s := range n {
			k := fmt.Sprintf("t001#%s#%d", day, s)
			ps = append(ps, Point{Hash: keyHash(k), Weight: 1 / float64(n), Key: []byte(k)})
		}
		return ps
	}
	today, tomorrow := shards("2026-09-24", 16), shards("2026-09-25", 16)
	hot := shards("2026-09-26", 1)
	loads := []Load{
		{Count: 2000, Charges: []Charge{{Table: "T", Write: true, Units: 1, Even: 1}, {Table: "T", Index: "G1", Write: true, Units: 1, Points: today}, {Table: "T", Index: "G1", Write: true, Units: 1, Points: tomorrow}}},
		{Count: 800, Charges: []Charge{{Table: "T", Units: 1, Even: 1}}},
		{Count: 1, After: 2, Charges: []Charge{{Table: "T", Write: true, Units: 6, Even: 1}, {Table: "T", Index: "G2", Write: true, Units: 1, Even: 1}}},
		{Count: 40, Charges: []Charge{{Table: "T", Units: 2.5, Even: 1}}},
		{Count: 1500, Charges: []Charge{{Table: "T", Write: true, Units: 1, Even: 1}, {Table: "T", Index: "G3", Write: true, Units: 1, Points: hot}}},
		{Count: 16, Charges: []Charge{{Table: "T", Index: "G1", Units: 55.5, Points: today}}},
		{Count: 5, Charges: []Charge{{Table: "T", Index: "G2", Units: 4, Even: 1}}},
		{Count: 700, Charges: []Charge{{Table: "T", Write: true, Units: 1, Even: 1}}},
	}
	var out []LoadResult
	b.ReportAllocs()
	for b.Loop() {
		out = m.AdmitSecond(loads, out)
		clk.Advance(time.Second)
	}
}
