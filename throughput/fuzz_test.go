package throughput

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// FuzzModel runs arbitrary sequences of definitions (any numbers,
// NaN and infinities included), admissions and clock moves: nothing may
// panic, bad specs must be refused with an error, and a partition never
// serves more than its cap allows in a second (one second banked plus
// one of refill, plus one oversized request).
func FuzzModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x00\x40\x59\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08\x02\x10"))
	f.Add([]byte("\x01\x7f\xf8\x00\x00\x00\x00\x00\x01\x02\xff\xff\xff\xff\xff\xff\xff\xff\x03\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func(n int) []byte {
			if len(data) < n {
				b := make([]byte, n)
				copy(b, data)
				data = nil
				return b
			}
			b := data[:n]
			data = data[n:]
			return b
		}
		num := func() float64 { return math.Float64frombits(binary.BigEndian.Uint64(next(8))) }
		scale := float64(next(1)[0]%4+1) / 4
		m, clk := newModel(t, Config{Scale: scale, SplitAfter: time.Duration(next(1)[0]%5) * time.Second, History: 5, MaxPartitions: 64})
		maxUnits := 0.0
		for len(data) > 0 {
			switch next(1)[0] % 5 {
			case 0:
				mode := []Mode{Provisioned, OnDemand, "", "bad"}[next(1)[0]%4]
				spec := ResourceSpec{Mode: mode, ReadCapacity: num(), WriteCapacity: num(), WarmWrite: num(), MaxWrite: num(), Partitions: int(next(1)[0])}
				gsi := ResourceSpec{WriteCapacity: num(), SizeGB: num()}
				err := m.Define("T", spec, map[string]ResourceSpec{"G": gsi})
				for _, x := range []float64{spec.ReadCapacity, spec.WriteCapacity, spec.WarmWrite, gsi.WriteCapacity, gsi.SizeGB} {
					if (!finite(x) || x < 0) && err == nil {
						t.Fatalf("spec with %v accepted", x)
					}
				}
			case 1, 2:
				h := binary.BigEndian.Uint64(next(8))
				u := float64(next(1)[0]) / 8
				maxUnits = max(maxUnits, u)
				m.Admit(Request{Table: "T", Hash: h, Write: u, Read: u / 2,
					Indexes: []IndexCharge{{Name: "G", Hash: h * 31, Write: u}, {Name: "G", Hash: h * 17, Write: 1}}})
			case 3:
				m.AdmitAll([]Request{{Table: "T", Hash: uint64(next(1)[0]) << 56, Write: 1}, {Table: "T", Index: "G", Read: 3}})
			case 4:
				clk.Advance(time.Duration(next(1)[0]) * 37 * time.Millisecond)
			}
		}
		s := m.Snapshot()
		if tb := s.Table("T"); tb != nil {
			for _, r := range tb.Resources {
				for _, p := range r.Partitions {
					for _, sec := range p.Seconds {
						if limit := 2*DefaultPartitionWrite*scale + maxUnits + 1; sec.WriteConsumed > limit {
							t.Fatalf("partition %x..%x wrote %v in a second (limit %v)", p.Lo, p.Hi, sec.WriteConsumed, limit)
						}
					}
				}
			}
		}
	})
}
