package html

import (
	"fmt"
	"math"
	"strings"
)

// The charts are SVG written here, inline in the page: no script, no
// font or stylesheet fetched, so a report opens offline, as a CI
// artifact, and prints. Every chart carries a title and a description
// for screen readers, labels its marks directly (the value beside each
// bar, the name at the end of each line), and tells series apart by
// pattern and dash as well as by colour. The page shows the same figures
// in a table beside each chart.

// Chart geometry, in the viewBox's units: the page draws a chart at most
// 1,200 px wide, so a unit is a pixel on a 1280 px screen and text keeps
// the size given here.
const (
	chartWidth = 1200
	fontSize   = 16 // labels and ticks
	smallFont  = 14 // the smallest text in a chart
	rowHeight  = 34 // one bar of a horizontal bar chart
)

// palette holds colours told apart by most readers, colour-blind or not
// (Okabe and Ito's), darkened enough to stand against white on a
// projector; fills pairs each with a pattern, so that no series depends
// on its colour alone.
var palette = []string{"#0b5394", "#b45f06", "#38761d", "#741b47", "#7f6000", "#134f5c"}

// fills are the fill patterns of series i: solid, hatched, dotted, cross,
// then again with the next colours.
var fills = []string{"solid", "hatch", "dots", "cross"}

func colour(i int) string { return palette[i%len(palette)] }

// fill returns the fill of series i, a colour or a pattern defined by
// defs.
func fill(id string, i int) string {
	if f := fills[i%len(fills)]; f != "solid" {
		return fmt.Sprintf("url(#%s-%s-%d)", id, f, i%len(palette))
	}
	return colour(i)
}

// hatch is the fill of the hatch laid on a mark beyond its limit.
func hatch(id string) string { return "url(#" + id + "-over)" }

// dash returns the dash pattern of line series i.
func dash(i int) string {
	return []string{"", "10 5", "3 4", "14 4 3 4"}[i%4]
}

// svg gathers one chart's marks; the template "chart" draws them, so
// that every label, title and attribute is escaped in its own context.
type svg struct {
	ID    string
	W, H  float64
	Title string
	Desc  string
	// Patterns are the fill patterns of the series, and the "over"
	// hatch, each drawn once in the chart's defs.
	Patterns []pattern
	Marks    []mark
	open     []*group
}

// pattern is the fill pattern of series I (Kind hatch, dots or cross),
// in colour Colour.
type pattern struct {
	Kind   string
	I      int
	Colour string
}

// mark is one element of a chart; exactly one field is set.
type mark struct {
	Rect   *rect
	Line   *line
	Text   *text
	Path   *path
	Circle *circle
	Group  *group
}

type rect struct {
	X, Y, W, H   float64
	Prec         int // decimals of x and width: 1, or 2 in a heatmap
	RX           float64
	Fill, Stroke string
	StrokeWidth  float64
	Dash         string
	Title        string
}

type line struct {
	X1, Y1, X2, Y2 float64
	Stroke         string
	Width          float64
	Dash           string
}

type text struct {
	X, Y   float64
	Size   int
	Anchor string
	Class  string
	Text   string
}

type path struct {
	D      string
	Stroke string
	Width  float64
	Dash   string
	Title  string
}

type circle struct {
	CX, CY, R float64
	Fill      string
}

// group is a <g> with a title: its tooltip and accessible name.
type group struct {
	Title string
	Marks []mark
}

func newSVG(id string, w, h float64) *svg { return &svg{ID: id, W: w, H: h} }

// add appends a mark to the open group, or to the chart.
func (s *svg) add(m mark) {
	if n := len(s.open); n > 0 {
		s.open[n-1].Marks = append(s.open[n-1].Marks, m)
		return
	}
	s.Marks = append(s.Marks, m)
}

// group opens a group titled title; end closes it.
func (s *svg) group(title string) {
	g := &group{Title: title}
	s.add(mark{Group: g})
	s.open = append(s.open, g)
}

func (s *svg) end() { s.open = s.open[:len(s.open)-1] }

func (s *svg) rect(r rect)     { s.add(mark{Rect: &r}) }
func (s *svg) line(l line)     { s.add(mark{Line: &l}) }
func (s *svg) path(p path)     { s.add(mark{Path: &p}) }
func (s *svg) circle(c circle) { s.add(mark{Circle: &c}) }

// text writes a label; anchor is start, middle or end.
func (s *svg) text(x, y float64, size int, anchor, class, t string) {
	s.add(mark{Text: &text{X: x, Y: y, Size: size, Anchor: anchor, Class: class, Text: t}})
}

// defs declares the fill patterns of n series.
func (s *svg) defs(n int) {
	for i := range n {
		if f := fills[i%len(fills)]; f != "solid" {
			s.Patterns = append(s.Patterns, pattern{Kind: f, I: i % len(palette), Colour: colour(i)})
		}
	}
}

// done names the chart and returns it, ready for the template.
func (s *svg) done(title, desc string) *svg {
	s.Title, s.Desc = title, desc
	return s
}

// String draws the chart as SVG markup, by the template "chart".
func (s *svg) String() string {
	var b strings.Builder
	// The templates are fixed and the builder cannot fail to write: an
	// error here is a bug, caught by the package's tests.
	_ = pages.ExecuteTemplate(&b, "chart", s)
	return b.String()
}

// ticks returns round values covering [0, top] for an axis: about n of
// them, steps of 1, 2 or 5 times a power of ten.
func ticks(top float64, n int) []float64 {
	if !(top > 0) || math.IsInf(top, 0) {
		return []float64{0, 1}
	}
	raw := top / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	k := math.Ceil(top/step - 1e-9)
	if !(step > 0) || math.IsInf(step, 0) || !(k >= 1) || k > 50 {
		return []float64{0, top} // figures too small or too large for round steps
	}
	out := make([]float64, 0, int(k)+1)
	for i := 0; i <= int(k); i++ {
		out = append(out, float64(i)*step)
	}
	return out
}

// tickLabel writes an axis value with its unit, short: 1.5k, 2M.
func tickLabel(v float64, unit string) string {
	var s string
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		s = trim(v/1e9) + "G"
	case a >= 1e6:
		s = trim(v/1e6) + "M"
	case a >= 1e3:
		s = trim(v/1e3) + "k"
	default:
		s = trim(v)
	}
	switch unit {
	case "":
		return s
	case "US$":
		return "$" + s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}

func trim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// clip shortens a label to n runes, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Bar is one row of a horizontal bar chart: one value per series.
type Bar struct {
	Label  string
	Values []float64
	// Texts are the labels written at the end of each bar (the figure
	// with its unit); a value's own tick label when empty.
	Texts []string
	// Over marks the bars beyond their limit: hatched and labelled.
	Over []bool
	// Title is the bar's tooltip and accessible name (the full label).
	Title string
}

// BarChart is a horizontal bar chart: one row per Bar, series grouped in
// each row, an axis of Unit below, and an optional vertical reference
// line at Line (a budget at 100%, a limit).
type BarChart struct {
	ID, Title, Desc string
	Unit            string
	Series          []string // legend; one series needs none
	Bars            []Bar
	Line            *float64
	LineLabel       string
	LabelWidth      float64 // room for the row labels; 300 when 0
}

// SVG draws the chart.
func (c *BarChart) SVG() string { return c.chart().String() }

// chart lays the bars out.
func (c *BarChart) chart() *svg {
	ns := max(1, len(c.Series))
	lw := c.LabelWidth
	if lw == 0 {
		lw = 300
	}
	top := 0.0
	for _, b := range c.Bars {
		for _, v := range b.Values {
			top = max(top, v)
		}
	}
	if c.Line != nil {
		top = max(top, *c.Line*1.15)
	}
	ts := ticks(top, 6)
	top = ts[len(ts)-1]
	legend := 0.0
	if len(c.Series) > 1 {
		legend = 36
	}
	band := float64(rowHeight)
	if ns > 1 {
		band = float64(ns)*22 + 12
	}
	head := 30.0 + legend
	plotH := band * float64(len(c.Bars))
	h := head + plotH + 50
	right := 150.0 // room for the value labels past the longest bar
	x0, x1 := lw, float64(chartWidth)-right
	xs := func(v float64) float64 { return x0 + (x1-x0)*v/top }
	s := newSVG(c.ID, chartWidth, h)
	s.defs(ns)
	if legend > 0 {
		x := x0
		for i, name := range c.Series {
			s.rect(rect{X: x, Y: 8, W: 22, H: 18, Fill: fill(c.ID, i), Stroke: colour(i)})
			s.text(x+28, 23, fontSize, "start", "", name)
			x += 40 + float64(len([]rune(name)))*9
		}
	}
	// Grid and axis.
	for _, t := range ts {
		x := xs(t)
		s.line(line{X1: x, Y1: head - 6, X2: x, Y2: head + plotH, Stroke: "#ccc", Width: 1})
		s.text(x, head+plotH+22, smallFont, "middle", "tick", tickLabel(t, c.Unit))
	}
	s.line(line{X1: x0, Y1: head + plotH, X2: x1, Y2: head + plotH, Stroke: "#000", Width: 1.5})
	for r, b := range c.Bars {
		y := head + band*float64(r)
		label := clip(b.Label, int((lw-16)/10))
		t := b.Title
		if t == "" {
			t = b.Label
		}
		s.group(t)
		s.text(x0-10, y+band/2+5, fontSize, "end", "label", label)
		bh := (band - 12) / float64(ns)
		for i, v := range b.Values {
			by := y + 6 + bh*float64(i)
			w := max(0, xs(v)-x0)
			s.rect(rect{X: x0, Y: by, W: w, H: bh - 2, Fill: fill(c.ID, i), Stroke: colour(i), StrokeWidth: 1})
			over := i < len(b.Over) && b.Over[i]
			if over {
				s.rect(rect{X: x0, Y: by, W: w, H: bh - 2, Fill: hatch(c.ID)})
			}
			txt := tickLabel(v, c.Unit)
			if i < len(b.Texts) && b.Texts[i] != "" {
				txt = b.Texts[i]
			}
			if over {
				txt += " OVER"
			}
			tx := x0 + w + 6
			if c.Line != nil && tx < xs(*c.Line)+8 && tx > xs(*c.Line)-60 {
				tx = xs(*c.Line) + 8 // clear of the reference line
			}
			s.text(tx, by+bh/2+4, smallFont, "start", "value", txt)
		}
		s.end()
	}
	if c.Line != nil {
		x := xs(*c.Line)
		s.line(line{X1: x, Y1: head - 8, X2: x, Y2: head + plotH, Stroke: "#000", Width: 3, Dash: "8 4"})
		s.text(x, head-12, fontSize, "middle", "", c.LineLabel)
	}
	return s.done(c.Title, c.Desc)
}

// Line is one series of a line chart.
type Line struct {
	Name string
	Y    []float64 // one value per X; NaN leaves a gap
	// Limit draws the series as a reference: black, thick, dashed.
	Limit bool
}

// LineChart draws series over time: X in seconds from the start, with
// labels XLabels at chosen ticks.
type LineChart struct {
	ID, Title, Desc string
	Unit            string // of Y
	X               []float64
	XLabel          func(float64) string
	// Time makes the X ticks round times (a minute, a quarter, an hour).
	Time  bool
	Lines []Line
}

// SVG draws the chart.
func (c *LineChart) SVG() string { return c.chart().String() }

// chart lays the lines out.
func (c *LineChart) chart() *svg {
	const left, right, head, foot = 90.0, 200.0, 20.0, 50.0
	const plotH = 300.0
	h := head + plotH + foot
	s := newSVG(c.ID, chartWidth, h)
	s.defs(len(c.Lines))
	xmin, xmax := 0.0, 1.0
	if len(c.X) > 0 {
		xmin, xmax = c.X[0], c.X[len(c.X)-1]
		if xmax <= xmin {
			xmax = xmin + 1
		}
	}
	top := 0.0
	for _, l := range c.Lines {
		for _, v := range l.Y {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	ts := ticks(top*1.05, 5)
	top = ts[len(ts)-1]
	x0, x1 := left, float64(chartWidth)-right
	xs := func(v float64) float64 { return x0 + (x1-x0)*(v-xmin)/(xmax-xmin) }
	ys := func(v float64) float64 { return head + plotH - plotH*v/top }
	for _, t := range ts {
		y := ys(t)
		s.line(line{X1: x0, Y1: y, X2: x1, Y2: y, Stroke: "#ccc"})
		s.text(x0-8, y+5, smallFont, "end", "tick", tickLabel(t, c.Unit))
	}
	xt := ticks(xmax-xmin, 6)
	if c.Time {
		xt = timeTicks(xmax - xmin)
	}
	for _, t := range xt {
		x := xs(xmin + t)
		if x > x1+0.5 {
			break
		}
		s.line(line{X1: x, Y1: head + plotH, X2: x, Y2: head + plotH + 6, Stroke: "#000"})
		lab := tickLabel(xmin+t, "s")
		if c.XLabel != nil {
			lab = c.XLabel(xmin + t)
		}
		s.text(x, head+plotH+24, smallFont, "middle", "tick", lab)
	}
	s.line(line{X1: x0, Y1: head + plotH, X2: x1, Y2: head + plotH, Stroke: "#000", Width: 1.5})
	s.line(line{X1: x0, Y1: head, X2: x0, Y2: head + plotH, Stroke: "#000", Width: 1.5})
	// Direct labels at the right end, nudged apart so that they do not
	// overlap.
	type endLabel struct {
		y    float64
		name string
		i    int
	}
	var ends []endLabel
	for i, l := range c.Lines {
		var d strings.Builder
		pen := false
		lastY := math.NaN()
		for j, v := range l.Y {
			if j >= len(c.X) {
				break
			}
			if math.IsNaN(v) {
				pen = false
				continue
			}
			op := "L"
			if !pen {
				op = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f", op, xs(c.X[j]), ys(v))
			pen = true
			lastY = ys(v)
		}
		if d.Len() == 0 {
			continue
		}
		stroke, width, da := colour(i), 2.5, dash(i)
		if l.Limit {
			stroke, width, da = "#000", 3, "8 4"
		}
		s.path(path{D: d.String(), Stroke: stroke, Width: width, Dash: da, Title: l.Name})
		ends = append(ends, endLabel{lastY, l.Name, i})
	}
	for i := 1; i < len(ends); i++ { // insertion sort by y
		for j := i; j > 0 && ends[j].y < ends[j-1].y; j-- {
			ends[j], ends[j-1] = ends[j-1], ends[j]
		}
	}
	prev := -1e9
	for _, e := range ends {
		y := max(e.y+5, prev+18)
		prev = y
		s.text(x1+8, y, smallFont, "start", "label", clip(e.name, 22))
	}
	return s.done(c.Title, c.Desc)
}

// Heatmap draws rows (partitions) against time columns, each cell
// shaded by its value against 1 (its limit): lighter below, darkest at
// the limit, and cells at or over the limit crossed, so that the
// hottest cells stand out without colour.
type Heatmap struct {
	ID, Title, Desc string
	Rows            []string
	Cols            []string // column labels, one every few columns drawn
	Cells           [][]float64
}

// SVG draws the heatmap.
func (c *Heatmap) SVG() string { return c.chart().String() }

// chart lays the cells out.
func (c *Heatmap) chart() *svg {
	const left, head, foot = 330.0, 16.0, 90.0
	cellH := 30.0
	cols := 0
	for _, r := range c.Cells {
		cols = max(cols, len(r))
	}
	cols = max(cols, 1)
	x0, x1 := left, float64(chartWidth)-20
	cw := (x1 - x0) / float64(cols)
	h := head + cellH*float64(len(c.Rows)) + foot
	s := newSVG(c.ID, chartWidth, h)
	s.defs(0)
	for r, name := range c.Rows {
		y := head + cellH*float64(r)
		s.text(x0-8, y+cellH/2+5, smallFont, "end", "label", clip(name, 34))
		for j := 0; j < len(c.Cells[r]); j++ {
			v := c.Cells[r][j]
			if math.IsNaN(v) {
				continue
			}
			s.rect(rect{X: x0 + cw*float64(j), Y: y, W: cw + 0.3, H: cellH - 2, Prec: 2, Fill: heat(v),
				Title: name + " " + colAt(c.Cols, j) + ": " + trim(100*v) + "% of the limit"})
			if v >= 1 {
				s.rect(rect{X: x0 + cw*float64(j), Y: y, W: cw + 0.3, H: cellH - 2, Prec: 2, Fill: hatch(c.ID)})
			}
		}
	}
	yb := head + cellH*float64(len(c.Rows))
	step := max(1, cols/8)
	for j := 0; j < cols; j += step {
		x := x0 + cw*(float64(j)+0.5)
		s.line(line{X1: x, Y1: yb, X2: x, Y2: yb + 6, Stroke: "#000"})
		s.text(x, yb+24, smallFont, "middle", "tick", colAt(c.Cols, j))
	}
	// The scale.
	ly := yb + 44
	s.text(x0, ly+16, smallFont, "end", "", "share of limit ")
	for i, v := range []float64{0.1, 0.25, 0.5, 0.75, 0.9, 1} {
		x := x0 + 8 + float64(i)*110
		s.rect(rect{X: x, Y: ly, W: 34, H: 22, Fill: heat(v), Stroke: "#000"})
		if v >= 1 {
			s.rect(rect{X: x, Y: ly, W: 34, H: 22, Fill: hatch(c.ID)})
		}
		lab := trim(100*v) + "%"
		if v >= 1 {
			lab = "≥ 100% (throttles)"
		}
		s.text(x+40, ly+16, smallFont, "start", "", lab)
	}
	return s.done(c.Title, c.Desc)
}

func colAt(cols []string, j int) string {
	if j < len(cols) {
		return cols[j]
	}
	return fmt.Sprint(j)
}

// heat maps a share of the limit to a shade of one hue, light to dark:
// its lightness alone carries the value, so that it survives greyscale
// printing.
func heat(v float64) string {
	v = math.Max(0, math.Min(1, v))
	l := 96 - 76*v // lightness, 96% (nothing) to 20% (the limit)
	return fmt.Sprintf("hsl(12, 85%%, %.0f%%)", l)
}

// timeTicks returns about six ticks over span seconds at a round step of
// time.
func timeTicks(span float64) []float64 {
	if !(span > 0) || span/86400 > 7 {
		return ticks(span, 6)
	}
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
		step = s
		if span/s <= 7 {
			break
		}
	}
	var out []float64
	for i := 0; float64(i)*step <= span+1e-9; i++ {
		out = append(out, float64(i)*step)
	}
	return out
}
