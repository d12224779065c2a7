package throughput

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Data spread evenly splits every partition above 10 GB in two.
func TestPlaceEvenData(t *testing.T) {
	m, _ := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, nil))
	require.Len(t, m.Snapshot().Table("T").Resource("").Partitions, 8)
	added, err := m.Place("T", "", nil, 95)
	require.NoError(t, err)
	assert.Equal(t, 8, added)
	res := m.Snapshot().Table("T").Resource("")
	assert.Len(t, res.Partitions, 16)
	for _, s := range res.Splits {
		assert.False(t, s.Heat)
	}
	// Nothing more to do at the same size.
	added, err = m.Place("T", "", nil, 95)
	require.NoError(t, err)
	assert.Zero(t, added)
}

// A heavy key is cut away from the rest; alone it cannot be split, and
// the other data is split until every partition holds at most 10 GB.
func TestPlaceHeavyKey(t *testing.T) {
	m, _ := newModel(t, Config{})
	require.NoError(t, m.Define("T", ResourceSpec{Mode: OnDemand}, map[string]ResourceSpec{"G": {}}))
	heavy := keyHash("heavy")
	pts := []Point{{Hash: heavy, Weight: 30}}
	for i := range 64 {
		pts = append(pts, Point{Hash: spread(i), Weight: 0.5})
	}
	_, err := m.Place("T", "G", pts, 0)
	require.NoError(t, err)
	res := m.Snapshot().Table("T").Resource("G")
	var holder *PartitionStats
	for i, p := range res.Partitions {
		size := sizeIn(sortPts(pts), 0, p.Lo, p.Hi)
		if p.Lo <= heavy && heavy <= p.Hi {
			holder = &res.Partitions[i]
			assert.InDelta(t, 30, size, 1, "the heavy key's partition holds it and little else")
			continue
		}
		assert.LessOrEqual(t, size, 10.0)
	}
	require.NotNil(t, holder)
	_, err = m.Place("T", "nope", nil, 1)
	assert.Error(t, err)
	_, err = m.Place("T", "", nil, -1)
	assert.Error(t, err)
}

func sortPts(p []Point) []Point {
	out := append([]Point(nil), p...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Hash < out[j-1].Hash; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
