package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// TestBreakdownWorkedItem explains the item of capacity-rules.md 10: the
// top-level parts add up to ItemSize, and each container's value is its
// overhead plus its children's parts.
func TestBreakdownWorkedItem(t *testing.T) {
	r := Default()
	it := item(
		"pk", attr.Str("USER#123"),
		"age", attr.Num("-4.2"),
		"addr", attr.MapOf(item("city", attr.Str("Oslo"), "zip", attr.Num("15"))),
		"flags", attr.ListOf(attr.Bool(true), attr.Null()),
		"tags", attr.StrSet("a", "bb"),
	)
	parts := r.Breakdown(it, 0)
	top := 0
	for _, p := range parts {
		if p.Depth == 0 {
			top += p.Size()
		}
	}
	assert.Equal(t, r.ItemSize(it), top)

	byName := map[string]Part{}
	for _, p := range parts {
		byName[p.Name] = p
	}
	assert.Equal(t, Part{Depth: 0, Name: "addr", Type: attr.M, NameBytes: 4, ValueBytes: 18,
		Note: "3 + 2 elements x 1 + their names and values"}, byName["addr"])
	assert.Equal(t, Part{Depth: 1, Name: "city", Type: attr.S, NameBytes: 4, ValueBytes: 4, Element: 1, Note: "UTF-8 bytes"}, byName["city"])
	assert.Equal(t, 3+byName["city"].Size()+byName["zip"].Size(), byName["addr"].ValueBytes)
	assert.Equal(t, Part{Depth: 1, Name: "[1]", Type: attr.NULL, ValueBytes: 1, Element: 1, Note: "1 byte"}, byName["[1]"])
	assert.Equal(t, "1 + ceil(1/2) + ceil(1/2) + 1 (negative)", byName["age"].Note)
	assert.Equal(t, 4, byName["age"].ValueBytes)
	assert.Equal(t, "2 members, summed, no overhead", byName["tags"].Note)
	assert.Equal(t, "zero: 1 byte", Default().numberNote("0.00"))
	assert.Equal(t, "1 + base-100 digit pairs + 1 (negative)", Rules{Numbers: NumberDigitPairs}.numberNote("-110"))
}

// TestBreakdownCap lists at most maxChildren elements and sums the rest.
func TestBreakdownCap(t *testing.T) {
	r := Default()
	list := attr.ListOf(attr.Str("a"), attr.Str("bb"), attr.Str("ccc"))
	parts := r.Breakdown(item("l", list, "m", attr.MapOf(item("x", attr.Num("1"), "y", attr.Num("2")))), 1)
	require.Len(t, parts, 6)
	assert.Equal(t, Part{Depth: 1, Name: "...", ValueBytes: (1 + 2) + (1 + 3), Note: "2 more elements"}, parts[2])
	assert.Equal(t, Part{Depth: 1, Name: "...", ValueBytes: 1 + 1 + 2, Note: "1 more elements"}, parts[5])
}

// TestHistogram checks exact nearest-rank percentiles and per-item units.
func TestHistogram(t *testing.T) {
	var h SizeHistogram
	assert.Zero(t, h.Percentile(50))
	for size := 1; size <= 100; size++ {
		require.True(t, h.Add(size*100))
	}
	assert.False(t, h.Add(MaxItemSize+1))
	assert.Equal(t, uint64(1), h.Over)
	assert.Equal(t, uint64(100), h.Count())
	assert.Equal(t, uint64(505000), h.Total())
	assert.Equal(t, 10000, h.Max())
	assert.Equal(t, 5000, h.Percentile(50))
	assert.Equal(t, 9000, h.Percentile(90))
	assert.Equal(t, 9900, h.Percentile(99))
	assert.Equal(t, 10000, h.Percentile(100))
	assert.Equal(t, 100, h.Percentile(0.1))

	var o SizeHistogram
	o.Add(MaxItemSize)
	h.Merge(&o)
	assert.Equal(t, MaxItemSize, h.Max())
	assert.Equal(t, uint64(101), h.Count())

	var small SizeHistogram
	small.Add(500)
	small.Add(3584)
	small.Add(5000)
	w, r := small.Units()
	assert.Equal(t, 1.0+4+5, w)
	assert.Equal(t, 1.0+1+2, r)
}

// FuzzItemSize sizes whatever items the decoder accepts: no panic, the
// breakdown adds up to the item size under both number models, and the
// size limits are reported as errors.
func FuzzItemSize(f *testing.F) {
	for _, s := range []string{
		`{"pk":{"S":"USER#123"},"age":{"N":"-4.2E3"},"tags":{"NS":["1","10010"]}}`,
		`{"m":{"M":{"l":{"L":[{"B":"AAEC"},{"BOOL":false},{"NULL":true}]}}}}`,
		`{"n":{"N":"0.0000000000000000000000000000000000001"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := attr.DecodeItem(data)
		if err != nil {
			return
		}
		for _, r := range []Rules{Default(), {Numbers: NumberDigitPairs}} {
			size := r.ItemSize(it)
			top := 0
			for _, p := range r.Breakdown(it, 0) {
				if p.Depth == 0 {
					top += p.Size()
				}
			}
			assert.Equal(t, size, top)
			assert.Equal(t, size > MaxItemSize, r.CheckItem(nil, it) != nil)
		}
	})
}
