package dataset

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// The tree's key set agrees with a map through growth and many resets,
// repeated keys included.
func TestKeySet(t *testing.T) {
	s := newKeySet()
	r := newRNG(7)
	for tree := 0; tree < 300; tree++ {
		want := map[uint64]bool{}
		n := int(r.Intn(2000))
		for i := 0; i < n; i++ {
			h := r.Uint64() % uint64(n+1) // repeats
			if tree%7 == 0 {
				h = uint64(i) << 40 // hashes sharing low bits
			}
			if got := s.add(h); got != !want[h] {
				t.Fatalf("tree %d: add(%d) = %v, seen before %v", tree, h, got, want[h])
			}
			want[h] = true
		}
		s.reset()
	}
	s.stamp = ^uint32(0)
	s.add(1)
	s.reset()
	if !s.add(1) {
		t.Fatal("a key of the tree before the stamp wrapped is still in the set")
	}
}

// The generator's comparisons are attr's, plain integers included.
func TestCompareAsAttr(t *testing.T) {
	texts := []string{"0", "1", "9", "10", "11", "99", "100", "007", "-1", "-10", "1.0", "1.5", "1e1", "10.00", "", "x", "123456789012345678901234567890123456789", "12345678901234567890123456789012345678"}
	var vals []attr.Value
	for _, s := range texts {
		vals = append(vals, attr.Num(s), attr.Str(s))
	}
	vals = append(vals, attr.Bool(true), attr.StrSet("a"))
	for i := range vals {
		for j := range vals {
			a, b := vals[i], vals[j]
			require.Equal(t, attr.Equal(a, b), equal(&a, &b), "%v = %v", a, b)
			wc, wok := attr.Compare(a, b)
			gc, gok := compare(&a, &b)
			require.Equal(t, wok, gok, "%v ? %v", a, b)
			if wok {
				require.Equal(t, wc < 0, gc < 0, "%v < %v", a, b)
				require.Equal(t, wc > 0, gc > 0, "%v > %v", a, b)
			}
		}
	}
}
