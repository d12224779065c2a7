package html

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

var models = []string{"../../model.yaml", "../../examples/orders/model.yaml"}

func TestChartsEscapeAndScale(t *testing.T) {
	c := &BarChart{ID: "x", Title: "a <b>", Desc: "d & e", Unit: "US$", Bars: []Bar{{Label: "<script>", Values: []float64{3}}, {Label: "y", Values: []float64{0}}}}
	out := c.SVG()
	assert.NotContains(t, out, "<script>")
	assert.Contains(t, out, "&lt;script&gt;")
	assert.Contains(t, out, "a &lt;b&gt;")
	assert.Contains(t, out, "$3") // the value labelled
	// An all-zero or empty chart still has an axis.
	l := &LineChart{ID: "l", Lines: []Line{{Name: "z", Y: []float64{0, 0, math.NaN()}}}, X: []float64{0, 1, 2}}
	assert.Contains(t, l.SVG(), "<path")
	assert.Equal(t, []float64{0, 2, 4, 6, 8, 10}, ticks(9.5, 5))
	assert.Equal(t, []float64{0, 0.25, 0.5, 0.75, 1, 1.25}, ticks(1.2, 5))
	assert.Equal(t, "15k /s", tickLabel(15000, "/s"))
	assert.Equal(t, "$2.5", tickLabel(2.5, "US$"))
	assert.Equal(t, []float64{0, 3600, 7200, 10800, 14400}, timeTicks(4 * 3600)[:5])
}

func TestBusiestLoads(t *testing.T) {
	l := &Load{Loads: []string{"a", "b", "c"}, Timeline: []map[string]*Point{
		{"a": {Completed: 1}, "b": {Completed: 9}, "c": {Completed: 5}},
		{"a": {Completed: 2}},
	}}
	assert.Equal(t, []string{"b", "c"}, busiest(l, 2))
	assert.Equal(t, []string{"a", "b", "c"}, busiest(l, 3))
}
