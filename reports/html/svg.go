package html

import (
	"fmt"
	"math"
	"strings"
	"text/template"
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

// dash returns the dash pattern of line series i.
func dash(i int) string {
	return []string{"", "10 5", "3 4", "14 4 3 4"}[i%4]
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// svg builds one chart.
type svg struct {
	id   string
	w, h float64
	b    strings.Builder
}

func newSVG(id string, w, h float64) *svg { return &svg{id: id, w: w, h: h} }

func (s *svg) f(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a label; anchor is start, middle or end.
func (s *svg) text(x, y float64, size int, anchor, class, t string) {
	s.f(`<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s"`, x, y, size, anchor)
	if class != "" {
		s.f(` class="%s"`, class)
	}
	s.f(`>%s</text>`, esc(t))
}

// defs writes the fill patterns of n series.
func (s *svg) defs(n int) {
	s.f(`<defs>`)
	for i := range n {
		c := colour(i)
		k := i % len(palette)
		switch fills[i%len(fills)] {
		case "hatch":
			s.f(`<pattern id="%s-hatch-%d" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff"/><rect width="4" height="8" fill="%s"/></pattern>`, s.id, k, c)
		case "dots":
			s.f(`<pattern id="%s-dots-%d" width="7" height="7" patternUnits="userSpaceOnUse"><rect width="7" height="7" fill="%s" opacity="0.35"/><circle cx="3.5" cy="3.5" r="2.2" fill="%s"/></pattern>`, s.id, k, c, c)
		case "cross":
			s.f(`<pattern id="%s-cross-%d" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#fff"/><path d="M0 0L8 8M8 0L0 8" stroke="%s" stroke-width="2.2"/></pattern>`, s.id, k, c)
		}
	}
	// over: the hatch laid on a mark beyond its limit, black on the mark.
	s.f(`<pattern id="%s-over" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="3" height="10" fill="#000" opacity="0.55"/></pattern>`, s.id)
	s.f(`</defs>`)
}

// String wraps the marks in the svg element with its title and
// description.
func (s *svg) String(title, desc string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="%s" viewBox="0 0 %.0f %.0f" width="100%%" style="max-width:%.0fpx" role="img" aria-labelledby="%s-t %s-d" font-family="inherit">`,
		s.id, s.w, s.h, s.w, s.id, s.id)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, s.id, esc(title), s.id, esc(desc))
	b.WriteString(s.b.String())
	b.WriteString(`</svg>`)
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
func (c *BarChart) SVG() string {
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
			s.f(`<rect x="%.1f" y="8" width="22" height="18" fill="%s" stroke="%s"/>`, x, fill(c.ID, i), colour(i))
			s.text(x+28, 23, fontSize, "start", "", name)
			x += 40 + float64(len([]rune(name)))*9
		}
	}
	// Grid and axis.
	for _, t := range ts {
		x := xs(t)
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc" stroke-width="1"/>`, x, head-6, x, head+plotH)
		s.text(x, head+plotH+22, smallFont, "middle", "tick", tickLabel(t, c.Unit))
	}
	s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.5"/>`, x0, head+plotH, x1, head+plotH)
	for r, b := range c.Bars {
		y := head + band*float64(r)
		label := clip(b.Label, int((lw-16)/10))
		t := b.Title
		if t == "" {
			t = b.Label
		}
		s.f(`<g><title>%s</title>`, esc(t))
		s.text(x0-10, y+band/2+5, fontSize, "end", "label", label)
		bh := (band - 12) / float64(ns)
		for i, v := range b.Values {
			by := y + 6 + bh*float64(i)
			w := max(0, xs(v)-x0)
			s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" stroke-width="1"/>`, x0, by, w, bh-2, fill(c.ID, i), colour(i))
			over := i < len(b.Over) && b.Over[i]
			if over {
				s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="url(#%s-over)"/>`, x0, by, w, bh-2, c.ID)
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
		s.f(`</g>`)
	}
	if c.Line != nil {
		x := xs(*c.Line)
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="3" stroke-dasharray="8 4"/>`, x, head-8, x, head+plotH)
		s.text(x, head-12, fontSize, "middle", "", c.LineLabel)
	}
	return s.String(c.Title, c.Desc)
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
func (c *LineChart) SVG() string {
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
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/>`, x0, y, x1, y)
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
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>`, x, head+plotH, x, head+plotH+6)
		lab := tickLabel(xmin+t, "s")
		if c.XLabel != nil {
			lab = c.XLabel(xmin + t)
		}
		s.text(x, head+plotH+24, smallFont, "middle", "tick", lab)
	}
	s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.5"/>`, x0, head+plotH, x1, head+plotH)
	s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.5"/>`, x0, head, x0, head+plotH)
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
		s.f(`<path d="%s" fill="none" stroke="%s" stroke-width="%.1f"`, d.String(), stroke, width)
		if da != "" {
			s.f(` stroke-dasharray="%s"`, da)
		}
		s.f(`><title>%s</title></path>`, esc(l.Name))
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
	return s.String(c.Title, c.Desc)
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
func (c *Heatmap) SVG() string {
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
			s.f(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s">`, x0+cw*float64(j), y, cw+0.3, cellH-2, heat(v))
			s.f(`<title>%s %s: %s of the limit</title></rect>`, esc(name), esc(colAt(c.Cols, j)), trim(100*v)+"%")
			if v >= 1 {
				s.f(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="url(#%s-over)"/>`, x0+cw*float64(j), y, cw+0.3, cellH-2, c.ID)
			}
		}
	}
	yb := head + cellH*float64(len(c.Rows))
	step := max(1, cols/8)
	for j := 0; j < cols; j += step {
		x := x0 + cw*(float64(j)+0.5)
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>`, x, yb, x, yb+6)
		s.text(x, yb+24, smallFont, "middle", "tick", colAt(c.Cols, j))
	}
	// The scale.
	ly := yb + 44
	s.text(x0, ly+16, smallFont, "end", "", "share of limit ")
	for i, v := range []float64{0.1, 0.25, 0.5, 0.75, 0.9, 1} {
		x := x0 + 8 + float64(i)*110
		s.f(`<rect x="%.1f" y="%.1f" width="34" height="22" fill="%s" stroke="#000"/>`, x, ly, heat(v))
		if v >= 1 {
			s.f(`<rect x="%.1f" y="%.1f" width="34" height="22" fill="url(#%s-over)"/>`, x, ly, c.ID)
		}
		lab := trim(100*v) + "%"
		if v >= 1 {
			lab = "≥ 100% (throttles)"
		}
		s.text(x+40, ly+16, smallFont, "start", "", lab)
	}
	return s.String(c.Title, c.Desc)
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
