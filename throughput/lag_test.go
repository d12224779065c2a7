package throughput

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLagReleasesInOrderAfterTheDelay(t *testing.T) {
	clk := NewManualClock(epoch)
	l := NewLag[string](50*time.Millisecond, clk.Now)
	assert.Equal(t, 50*time.Millisecond, l.Delay())
	_, ok := l.Next()
	assert.False(t, ok)

	l.Push("a")
	clk.Advance(20 * time.Millisecond)
	l.Push("b")
	var got []string
	apply := func(s string) { got = append(got, s) }

	assert.Zero(t, l.Drain(apply), "nothing is due before the lag")
	due, ok := l.Next()
	require.True(t, ok)
	assert.Equal(t, epoch.Add(50*time.Millisecond), due)

	clk.Advance(30 * time.Millisecond) // a is due exactly now
	assert.Equal(t, 1, l.Drain(apply))
	assert.Equal(t, []string{"a"}, got)
	assert.Equal(t, 1, l.Len())

	clk.Advance(time.Hour)
	l.Push("c")
	assert.Equal(t, 1, l.Drain(apply))
	assert.Equal(t, []string{"a", "b"}, got)
	assert.Equal(t, 1, l.Flush(apply), "flush releases what is not yet due")
	assert.Equal(t, []string{"a", "b", "c"}, got)
	assert.Zero(t, l.Len())
}

func TestLagZeroReleasesAtOnce(t *testing.T) {
	l := NewLag[int](-time.Second, nil)
	l.Push(1)
	l.Push(2)
	var got []int
	assert.Equal(t, 2, l.Drain(func(v int) { got = append(got, v) }))
	assert.Equal(t, []int{1, 2}, got)
}

// Many pushes and drains keep the order and lose nothing, also while the
// queue compacts.
func TestLagConcurrentOrder(t *testing.T) {
	clk := NewManualClock(epoch)
	l := NewLag[int](time.Millisecond, clk.Now)
	const per = 2000
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int
	apply := func(v int) { got = append(got, v) } // runs under the queue's lock
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				mu.Lock() // pushes of one value and clock moves in one order
				l.Push(g*per + i)
				clk.Advance(time.Microsecond)
				mu.Unlock()
				if i%7 == 0 {
					l.Drain(apply)
				}
			}
		}()
	}
	wg.Wait()
	clk.Advance(time.Second)
	l.Drain(apply)
	require.Len(t, got, 4*per)
	last := map[int]int{}
	for _, v := range got {
		g := v / per
		if prev, ok := last[g]; ok {
			assert.Less(t, prev, v, "values of one producer stay in order")
		}
		last[g] = v
	}
}
