package throughput

// Usage is what a table or one of its indexes did in one second, read
// cheaply after each AdmitSecond by simulations that chart every second
// (Snapshot copies far more).
type Usage struct {
	Index string // "" for the table
	Mode  Mode
	// ReadRate and WriteRate are the table-level limits now (local units
	// a second), and ReadLimit and WriteLimit what sets them, as in
	// ResourceStats.
	ReadRate, WriteRate   float64
	ReadLimit, WriteLimit string
	// PartitionRead and PartitionWrite are one partition's caps (local
	// units a second).
	PartitionRead, PartitionWrite float64
	// Totals are the second's units over every partition.
	Totals Totals
	// Partitions are every partition in hash order with the second's
	// units (zero for a partition the second did not touch).
	Partitions []PartitionUsage
	// Splits counts the splits made so far.
	Splits int
}

// PartitionUsage is one partition's units in one second.
type PartitionUsage struct {
	Lo, Hi uint64
	Totals
}

// Usage fills dst (reusing its memory) with the table's and its indexes'
// figures for the second the clock is in, the table first, then the
// indexes in the order given (all of them, by name, when indexes is nil).
// ok is false for a table not defined.
func (m *Model) Usage(tableName string, indexes []string, dst []Usage) ([]Usage, bool) {
	t := m.lookup(tableName)
	if t == nil {
		return dst[:0], false
	}
	now, sec := m.clock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return dst[:0], false
	}
	if indexes == nil {
		for n := range t.gsis {
			indexes = append(indexes, n)
		}
		sortStrings(indexes)
	}
	res := make([]*resource, 0, 1+len(indexes))
	res = append(res, t.base)
	for _, n := range indexes {
		if r := t.gsis[n]; r != nil {
			res = append(res, r)
		}
	}
	for len(dst) < len(res) {
		dst = append(dst, Usage{})
	}
	dst = dst[:len(res)]
	for i, r := range res {
		r.advance(&m.c, now, sec)
		u := &dst[i]
		parts := u.Partitions[:0]
		*u = Usage{Index: r.index, Mode: r.spec.Mode,
			ReadRate: r.flow[read].limit.rate, WriteRate: r.flow[write].limit.rate,
			ReadLimit: limitNames[r.flow[read].binding], WriteLimit: limitNames[r.flow[write].binding],
			PartitionRead: r.partCap[read], PartitionWrite: r.partCap[write], Splits: len(r.split)}
		for _, p := range r.parts {
			pu := PartitionUsage{Lo: p.lo, Hi: p.hi}
			n := int64(len(p.ring))
			if n > 0 {
				if s := &p.ring[((sec%n)+n)%n]; s.sec == sec {
					pu.Totals = Totals{ReadConsumed: s.consumed[read], WriteConsumed: s.consumed[write],
						ReadThrottled: s.throttled[read], WriteThrottled: s.throttled[write]}
				}
			}
			u.Totals.ReadConsumed += pu.ReadConsumed
			u.Totals.WriteConsumed += pu.WriteConsumed
			u.Totals.ReadThrottled += pu.ReadThrottled
			u.Totals.WriteThrottled += pu.WriteThrottled
			parts = append(parts, pu)
		}
		u.Partitions = parts
	}
	return dst, true
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
