package dataset

import "testing"

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
