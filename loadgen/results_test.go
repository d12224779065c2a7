package loadgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// readSeconds decodes the per-second lines of a results stream.
func readSeconds(t *testing.T, b []byte) []Second {
	t.Helper()
	var out []Second
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var head struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatalf("results line %q: %v", sc.Text(), err)
		}
		if head.Type != "second" {
			continue
		}
		var s Second
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no per-second line in the results")
	}
	return out
}

// checkSecondUnits: the units of the per-second lines add up to the
// summary's per table and index (same keys, same index flag), and carry
// limits and throttled units exactly when the throughput model gives
// them. It returns how many tables and indexes the summary names.
func checkSecondUnits(t *testing.T, sum *Summary, secs []Second, limits bool) int {
	t.Helper()
	got := map[string]*SecondUnits{}
	for _, s := range secs {
		for name, u := range s.Units {
			if (u.ReadLimit != nil) != limits || (u.WriteThrottled != nil) != limits {
				t.Errorf("%s at %s: limits %v, throttled %v; want them present: %v", name, s.Clock, u.ReadLimit, u.WriteThrottled, limits)
			}
			if limits && u.WriteLimit != nil && *u.WriteLimit <= 0 && !u.Index {
				t.Errorf("%s at %s: write limit %v", name, s.Clock, *u.WriteLimit)
			}
			g := got[name]
			if g == nil {
				g = &SecondUnits{Index: u.Index}
				got[name] = g
			}
			g.Read += u.Read
			g.Write += u.Write
		}
	}
	for name, want := range sum.Units {
		g := got[name]
		if g == nil {
			t.Errorf("%s: in the summary's units, in no per-second line", name)
			continue
		}
		if g.Index != want.Index || math.Abs(g.Read-want.Read) > 1e-6*(1+want.Read) || math.Abs(g.Write-want.Write) > 1e-6*(1+want.Write) {
			t.Errorf("%s: per-second lines add up to index %v read %v write %v; the summary says %v %v %v", name, g.Index, g.Read, g.Write, want.Index, want.Read, want.Write)
		}
	}
	for name, g := range got {
		if _, ok := sum.Units[name]; !ok && (g.Read != 0 || g.Write != 0) {
			t.Errorf("%s: consumed %v/%v in the per-second lines, not in the summary", name, g.Read, g.Write)
		}
	}
	return len(sum.Units)
}

// throttledUnits adds a table's or index's throttled units over the
// lines.
func throttledUnits(secs []Second, name string) (r, w float64) {
	for _, s := range secs {
		if u := s.Units[name]; u != nil && u.ReadThrottled != nil {
			r += *u.ReadThrottled
			w += *u.WriteThrottled
		}
	}
	return r, w
}
