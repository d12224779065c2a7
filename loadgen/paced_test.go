package loadgen

import (
	"testing"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// TestPacedFollowUps checks the follow-ups of a load with a count over a
// window start at its pace, scaled, never before they are asked for.
func TestPacedFollowUps(t *testing.T) {
	l := &loadRun{plan: &catalog.LoadPlan{Spacing: 100 * time.Millisecond}}
	var got []time.Duration
	for range 3 {
		got = append(got, l.paced(time.Second, 0.5)) // three items of one page
	}
	got = append(got, l.paced(5*time.Second, 0.5)) // a later page
	want := []time.Duration{time.Second, 1200 * time.Millisecond, 1400 * time.Millisecond, 5 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("paced = %v, want %v", got, want)
		}
	}
	free := &loadRun{plan: &catalog.LoadPlan{}}
	if d := free.paced(time.Second, 0.5); d != time.Second {
		t.Errorf("unpaced load moved to %v", d)
	}
}
