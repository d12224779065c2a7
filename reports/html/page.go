package html

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/planner"
)

// page is the view the template "page" writes: the header's figures,
// the summary cards, the sections without results, and each section as
// a list of blocks (paragraphs, charts, tables), laid out here.
type page struct {
	Name, Path, Generated, Counts, Description string
	Cards                                      []card
	Missing                                    []missing
	Sections                                   []*section
}

// card is one summary card: its state (ok, bad or info) is told by its
// mark's words as well as by its border.
type card struct {
	State, Mark, Title, Text string
}

// missing is a section without its results, and the command that makes
// them.
type missing struct {
	Section, Why, Command string
}

// section is one section of the report: its intro, then its blocks.
// Missing names the results it lacks, for the list at the top.
type section struct {
	ID, Title, Intro string
	Blocks           []block
	Missing          []missing
	charts           int
}

// block is one paragraph, chart or table of a section; exactly one
// field is set.
type block struct {
	Para   *para
	Absent *missing
	Figure *figure
	Table  *table
}

// para is a paragraph, with an optional leading name in bold.
type para struct {
	Class, Strong, Text string
}

// figure is a chart and its caption.
type figure struct {
	Chart   *svg
	Caption string
}

// table is a captioned table; a row's first cell heads the row.
type table struct {
	Caption string
	Head    []string
	Rows    [][]cell
}

// cell is a table cell; numeric cells are right-aligned.
type cell struct {
	Text    string
	Numeric bool
}

// chartID returns an id for a chart's svg and its patterns, unique in
// the page: the section's id, the chart's number in it, its name.
func (p *section) chartID(name string) string {
	p.charts++
	return fmt.Sprintf("%s%d-%s", p.ID, p.charts, name)
}

// Write renders the report as one HTML document.
func (r *Report) Write(w io.Writer) error {
	p := header(r)
	p.Cards = cards(r)
	for _, s := range []*section{mapSection(r), budgetSection(r), costSection(r), compareSection(r), loadSection(r), planSection(r)} {
		p.Sections = append(p.Sections, s)
		p.Missing = append(p.Missing, s.Missing...)
	}
	// The page is written whole or not at all.
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, "page", p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// header is the page with the model's name, file, counts and
// description.
func header(r *Report) *page {
	m := r.Model
	p := &page{Name: m.Name, Path: r.Path, Description: m.Description}
	if !r.Generated.IsZero() {
		p.Generated = r.Generated.UTC().Format(time.RFC3339)
	}
	p.Counts = fmt.Sprintf("%s, %s, %s, %s", digits.Count(len(m.AccessPatterns), "access pattern"), digits.Count(len(m.Tables), "table"), digits.Count(len(m.Indexes), "index"), digits.Count(len(m.Operations), "operation"))
	return p
}

// cards are the summary cards.
func cards(r *Report) []card {
	var out []card
	over, hot := 0, len(r.Gate.Of(budget.FindingHot))
	for _, res := range r.Gate.Static {
		if res.Verdict != budget.Pass {
			over++
		}
	}
	badge := func(state, mark, title, text string) {
		out = append(out, card{state, mark, title, text})
	}
	judged := func(ok bool, title, text string) {
		if ok {
			badge("ok", "PASS", title, text)
		} else {
			badge("bad", "FAIL", title, text)
		}
	}
	judged(over == 0 && hot == 0, "check", fmt.Sprintf("%s estimated, %d over budget; %s at the declared peaks", digits.Count(len(r.Variants), "variant"), over, digits.Count(hot, "hot partition")))
	if b := r.Budget; b != nil {
		judged(b.OK, "budget gate", fmt.Sprintf("%s measured on %s: %d pass, %d fail, %d error", digits.Count(b.Summary.Variants, "variant"), b.Target, b.Summary.Pass, b.Summary.Fail, b.Summary.Error))
	}
	bill := fmt.Sprintf("requests US$ %s, storage US$ %s", estimate.USD(r.Bill.RequestsUSD), estimate.USD(r.Bill.StorageUSD))
	if r.Bill.Unit != "" && r.Bill.PerThousandUSD > 0 {
		bill += fmt.Sprintf("; US$ %s per 1,000 %s", estimate.USD(r.Bill.PerThousandUSD), r.Bill.Unit)
	}
	badge("info", "US$", estimate.USD(r.Bill.TotalUSD)+" a month", bill)
	if l := r.Load; l != nil && l.Summary != nil {
		// The badge follows the run's expectations and invariants, and
		// says what the run saw beside them.
		state, mark := "ok", "PASS"
		switch {
		case !l.Summary.OK:
			state, mark = "bad", "FAIL"
		case !l.Summary.Judged():
			state, mark = "info", "RAN"
		}
		if seen := l.Summary.Seen(); seen != "" {
			mark += " · " + seen
		}
		badge(state, mark, "load run", fmt.Sprintf("%s: %s on %s", l.Scenario, digits.Count(l.Seconds, "second"), l.Target))
	}
	if pl := r.Plan; pl != nil {
		judged(!pl.Verdict.Throttled, "plan", fmt.Sprintf("%s: %s", pl.Scenario, planShort(pl)))
	}
	return out
}

// section names the section; what follows is added to it.
func (p *section) section(id, title, intro string) {
	p.ID, p.Title, p.Intro = id, title, intro
}

// add appends a block to the section.
func (p *section) add(b block) { p.Blocks = append(p.Blocks, b) }

// para adds a paragraph of the given class ("" for none).
func (p *section) para(class, text string) { p.add(block{Para: &para{Class: class, Text: text}}) }

// absent writes a section without its results: what is missing and the
// command that makes it, here and in the list at the top.
func (p *section) absent(id, title, section, why, command string) {
	p.section(id, title, "")
	p.add(block{Absent: &missing{Why: strings.ToUpper(why[:1]) + why[1:], Command: command}})
	p.Missing = append(p.Missing, missing{section, why, command})
}

// table adds rows under a header; numeric cells are right-aligned.
func (p *section) table(caption string, head []string, rows [][]string) {
	t := &table{Caption: caption, Head: head}
	for _, r := range rows {
		cells := make([]cell, len(r))
		for i, c := range r {
			cells[i] = cell{c, numeric(c)}
		}
		t.Rows = append(t.Rows, cells)
	}
	p.add(block{Table: t})
}

func numeric(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "US$ "), "$")
	if s == "" || s == "-" {
		return s == "-"
	}
	c := s[0]
	return c >= '0' && c <= '9' || c == '<' || c == '-' && len(s) > 1
}

// figure adds a chart with its caption, which says it is summed up in
// the table after it.
func (p *section) figure(chart *svg, caption string) {
	p.add(block{Figure: &figure{chart, caption}})
}

// --- the access-pattern map

// mapSection draws every question to the structure that answers it: the
// table, each index, the places outside the table a question goes to,
// and the questions nothing answers.
func mapSection(r *Report) *section {
	p := &section{}
	mp := r.Model.Map()
	p.section("map", "Access patterns: the structure that answers each question",
		"Each question the business asks (an access pattern of the catalog) is joined to the table or index that answers it, or to where it goes outside the table. A question no structure answers is joined to the last box, drawn dashed.")
	type box struct {
		name, kind string
		rows       []int
	}
	var boxes []*box
	byName := map[string]*box{}
	get := func(name, kind string) *box {
		if b := byName[name]; b != nil {
			return b
		}
		b := &box{name: name, kind: kind}
		byName[name] = b
		boxes = append(boxes, b)
		return b
	}
	for _, s := range mp.Structures {
		label := s.Name
		if s.Alias != "" {
			label += " (" + s.Alias + ")"
		}
		kind := s.Kind
		if s.Shards > 0 {
			kind += ", " + digits.Count(s.Shards, "shard")
		}
		b := get(s.Name, kind)
		b.name = label
	}
	const looseBox = "\x00loose"
	for i, ap := range mp.Patterns {
		var b *box
		switch {
		case ap.Loose:
			b = get(looseBox, "no structure answers")
			b.name = "no structure answers it"
		case ap.Kind == "elsewhere":
			b = get("\x00"+ap.GoesTo, "outside the table")
			b.name = ap.GoesTo
		default:
			b = byName[ap.Structure]
			if b == nil {
				b = get(ap.Structure, ap.Kind)
			}
		}
		b.rows = append(b.rows, i)
	}
	// The loose box last.
	sort.SliceStable(boxes, func(i, j int) bool { return boxes[j].kind == "no structure answers" && boxes[i].kind != boxes[j].kind })
	const rowH, head = 40.0, 40.0
	n := len(mp.Patterns)
	boxH := func(b *box) float64 { return max(60, 26*float64(len(b.rows))+34) }
	total := 0.0
	for _, b := range boxes {
		total += boxH(b) + 16
	}
	h := head + max(rowH*float64(n), total) + 20
	id := p.chartID("map")
	s := newSVG(id, chartWidth, h)
	s.defs(len(boxes))
	s.text(20, 26, fontSize, "start", "", "Question (access pattern)")
	s.text(840, 26, fontSize, "start", "", "Structure that answers it")
	rowOf := map[int]float64{}
	for i, ap := range mp.Patterns {
		y := head + rowH*float64(i)
		rowOf[i] = y + rowH/2
		s.group(ap.ID + ": " + ap.Question + " (" + ap.Consistency + ")")
		s.rect(rect{X: 10, Y: y + 3, W: 520, H: rowH - 6, Fill: "#f4f4f4", Stroke: "#555"})
		s.text(20, y+rowH/2+6, fontSize, "start", "label", ap.ID+"  "+clip(ap.Question, 50))
		s.end()
	}
	y := head
	for bi, b := range boxes {
		bh := boxH(b)
		stroke := colour(bi)
		if b.kind == "outside the table" || b.kind == "no structure answers" {
			stroke = "#333"
		}
		s.group(b.name + ": " + b.kind + ", answers " + digits.Count(len(b.rows), "question"))
		frame := rect{X: 840, Y: y, W: 345, H: bh, RX: 6, Fill: "#fff", Stroke: stroke, StrokeWidth: 3}
		if b.kind == "no structure answers" {
			frame.Dash = "10 6"
		}
		s.rect(frame)
		s.text(856, y+26, fontSize, "start", "label", clip(b.name, 36))
		s.text(856, y+48, smallFont, "start", "label", b.kind)
		s.end()
		for k, ri := range b.rows {
			ty := y + 20 + float64(k)*(bh-30)/math.Max(1, float64(len(b.rows)-1))
			if len(b.rows) == 1 {
				ty = y + bh/2
			}
			sy := rowOf[ri]
			d := dash(bi)
			if b.kind == "no structure answers" {
				d = "10 6"
			}
			s.path(path{D: fmt.Sprintf("M530 %.1f C 690 %.1f, 690 %.1f, 840 %.1f", sy, sy, ty, ty), Stroke: stroke, Width: 2.5, Dash: d,
				Title: mp.Patterns[ri].ID + " → " + b.name})
			s.circle(circle{CX: 840, CY: ty, R: 4, Fill: stroke})
		}
		y += bh + 16
	}
	p.figure(s.done("Access patterns to structures", fmt.Sprintf("%d questions joined to the %d structures or destinations that answer them; the table below lists the same.", n, len(boxes))),
		"Each line joins a question to what answers it; the same in the table below.")
	var rows [][]string
	for _, ap := range mp.Patterns {
		where, how := ap.Structure, ap.Call+" "+ap.Key
		switch {
		case ap.Loose:
			where, how = "none", "no structure answers it and no destination is declared"
		case ap.Kind == "elsewhere":
			where, how = "outside the table", ap.GoesTo
		default:
			where = ap.Kind + " " + ap.Structure
		}
		var extra []string
		if ap.PageSize > 0 {
			extra = append(extra, fmt.Sprintf("pages of %d", ap.PageSize))
		}
		if ap.Shards != "" {
			extra = append(extra, ap.Shards)
		}
		if len(extra) > 0 {
			how += "; " + strings.Join(extra, "; ")
		}
		rows = append(rows, []string{ap.ID, ap.Question, ap.Consistency, where, how, strings.Join(ap.Operations, ", ")})
	}
	p.table("Access patterns and what answers them", []string{"ID", "Question", "Read", "Answered by", "How", "Run by"}, rows)
	var srows [][]string
	for _, st := range mp.Structures {
		qs := strings.Join(st.Questions, " ")
		if st.Loose {
			qs = "serves no question"
		}
		name := st.Name
		if st.Alias != "" {
			name += " (" + st.Alias + ")"
		}
		srows = append(srows, []string{name, st.Kind, st.Key, qs})
	}
	p.table("Structures and the questions they serve", []string{"Structure", "Kind", "Key", "Questions"}, srows)
	return p
}

// --- budgets

// budgetSection draws each variant's units against its budget: measured
// by a run of the gate when there is one, the static estimate otherwise.
func budgetSection(r *Report) *section {
	p := &section{}
	type row struct {
		name             string
		wru, rru         float64
		swru, srru       float64
		bw, br           *float64
		verdict, explain string
	}
	var rows []row
	if b := r.Budget; b != nil {
		for _, x := range b.Results {
			rows = append(rows, row{x.Name(), x.Measured.WRU, x.Measured.RRU, x.Static.WRU, x.Static.RRU, x.Budget.WRU, x.Budget.RRU, string(x.Verdict), firstLine(x.Explanation)})
		}
		p.section("budgets", "Budgets: measured units per operation",
			fmt.Sprintf("Each business operation, in each budget variant, as measured by the budget gate (%s; keys %s; %s). Bars show the measured units as a share of the budget: the dashed line is the budget; a bar past it is hatched and marked OVER.", r.BudgetFrom, b.Keys, b.Retry))
	} else {
		for _, v := range r.Variants {
			verdict, ex := "pass", ""
			if res := r.Gate.Result(v.Operation, v.Name); res != nil && res.Verdict != budget.Pass {
				verdict, ex = "over", firstLine(res.Explanation)
			}
			rows = append(rows, row{variantName(v.Operation, v.Name), v.WRU, v.RRU, v.WRU, v.RRU, v.BudgetWRU, v.BudgetRRU, verdict, ex})
		}
		p.section("budgets", "Budgets: static units per operation",
			"Each business operation, in each budget variant, as the static estimate charges it (no engine run was given). Bars show the units as a share of the budget: the dashed line is the budget.")
		p.Missing = append(p.Missing, missing{"Measured budgets", "no run of the budget gate: the static estimate is shown instead",
			fmt.Sprintf("cardapio budget %s --format json > budget.json && cardapio report %s --budget budget.json --out report.html", r.Path, r.Path)})
	}
	for _, unit := range []string{"WRU", "RRU"} {
		var bars []Bar
		for _, x := range rows {
			got, lim := x.wru, x.bw
			if unit == "RRU" {
				got, lim = x.rru, x.br
			}
			if lim == nil || *lim <= 0 {
				continue
			}
			share := 100 * got / *lim
			bars = append(bars, Bar{Label: x.name, Values: []float64{share}, Over: []bool{got > *lim+1e-9},
				Texts: []string{fmt.Sprintf("%s / %s %s", estimate.Num(got), estimate.Num(*lim), unit)},
				Title: fmt.Sprintf("%s: %s %s of a budget of %s", x.name, estimate.Num(got), unit, estimate.Num(*lim))})
		}
		if len(bars) == 0 {
			continue
		}
		hundred := 100.0
		what := map[string]string{"WRU": "write", "RRU": "read"}[unit]
		c := &BarChart{ID: p.chartID("budget-" + strings.ToLower(unit)), Unit: "%", Bars: bars, Line: &hundred, LineLabel: "budget", LabelWidth: 340,
			Title: fmt.Sprintf("%s request units against budget", strings.ToUpper(what[:1])+what[1:]),
			Desc:  fmt.Sprintf("%s with a %s budget; each bar is the units as a share of its budget, labelled with units and budget.", digits.Count(len(bars), "variant"), unit)}
		p.figure(c.chart(), fmt.Sprintf("%s units as a share of each variant's budget (100%% = the budget).", unit))
	}
	var trows [][]string
	for _, x := range rows {
		trows = append(trows, []string{x.name, estimate.Num(x.wru), lim(x.bw), estimate.Num(x.swru), estimate.Num(x.rru), lim(x.br), estimate.Num(x.srru), x.verdict, x.explain})
	}
	head := []string{"Variant", "WRU", "WRU budget", "WRU static", "RRU", "RRU budget", "RRU static", "Verdict", "Why"}
	p.table("Units per variant against budget", head, trows)
	return p
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lim(f *float64) string {
	if f == nil {
		return "-"
	}
	return estimate.Num(*f)
}

func variantName(op, v string) string {
	if v == "" {
		return op
	}
	return op + "/" + v
}

// --- cost

func costSection(r *Report) *section {
	p := &section{}
	b := r.Bill
	p.section("cost", "Monthly cost by operation and by structure",
		fmt.Sprintf("A month of the model at its declared volumes, on demand, at %s prices of %s (US$). Total %s: requests %s, storage %s, backups %s, exports %s.",
			b.Region, b.PriceDate, estimate.USD(b.TotalUSD), estimate.USD(b.RequestsUSD), estimate.USD(b.StorageUSD), estimate.USD(b.PITRUSD), estimate.USD(b.ExportUSD)))
	ops := append([]estimate.OpMonth(nil), b.Operations...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].USD > ops[j].USD })
	var bars []Bar
	var rows [][]string
	for _, o := range ops {
		bars = append(bars, Bar{Label: o.Operation, Values: []float64{o.USD}, Texts: []string{"$" + estimate.USD(o.USD)}})
		rows = append(rows, []string{o.Operation, estimate.Num(o.Runs), estimate.Num(o.UnitWRU), estimate.Num(o.UnitRRU), estimate.USD(o.USD), o.Basis})
	}
	if len(bars) > 0 {
		c := &BarChart{ID: p.chartID("cost-ops"), Unit: "US$", Bars: bars, Title: "Monthly request cost by operation",
			Desc: digits.Count(len(bars), "operation") + ", dearest first; requests only."}
		p.figure(c.chart(), "US$ a month of each operation's requests, dearest first.")
	}
	if len(b.Unpriced) > 0 {
		p.para("", fmt.Sprintf("Not priced (no volume declared): %s.", strings.Join(b.Unpriced, ", ")))
	}
	p.table("Operations a month", []string{"Operation", "Runs", "WRU a run", "RRU a run", "US$", "Variants charged"}, rows)
	var sbars []Bar
	var srows [][]string
	for _, s := range r.Structures {
		name := s.Name
		if s.Index == "" {
			name += " (table)"
		}
		vals := []float64{s.RequestsUSD, s.StorageUSD}
		sbars = append(sbars, Bar{Label: name, Values: vals, Texts: []string{"requests $" + estimate.USD(s.RequestsUSD), "storage $" + estimate.USD(s.StorageUSD)}})
		if s.Index != "" {
			sbars[len(sbars)-1].Values = vals[:1]
			sbars[len(sbars)-1].Texts = sbars[len(sbars)-1].Texts[:1]
		}
		st := estimate.USD(s.StorageUSD)
		if s.Index != "" {
			st = "in its table"
		}
		srows = append(srows, []string{name, estimate.Num(s.WRU), estimate.Num(s.RRU), estimate.USD(s.RequestsUSD), st})
	}
	if len(sbars) > 0 {
		c := &BarChart{ID: p.chartID("cost-structures"), Unit: "US$", Bars: sbars, Series: []string{"requests", "storage, backups, exports"},
			Title: "Monthly cost by table and index", Desc: "Requests charged to each table and index, and each table's storage (its index entries included)."}
		p.figure(c.chart(), "US$ a month charged to each table and index: requests (solid) and the table's storage (hatched).")
	}
	p.table("Tables and indexes a month", []string{"Structure", "WRU", "RRU", "Requests US$", "Storage US$"}, srows)
	var lrows [][]string
	for _, l := range b.Lines {
		lrows = append(lrows, []string{l.Line, estimate.USD(l.USD), l.On, l.Price})
	}
	p.table("What each line of the month is billed on", []string{"Line", "US$", "Billed on", "Price (source)"}, lrows)
	for _, f := range b.Figures {
		p.para("", fmt.Sprintf("The model's figure %s, which counts PITR or exports: US$ %s a month (%s).", f.Name, estimate.Num(f.USD), f.Statement))
	}
	pr := b.Provisioned
	p.para("", fmt.Sprintf("Provisioned alternative at %s%% utilisation: %s a month tracking the load, %s keeping the declared peaks all month.",
		trim(100*pr.Utilisation), estimate.USD(pr.USD), estimate.USD(pr.PeakUSD)))
	return p
}

// --- comparison

func compareSection(r *Report) *section {
	p := &section{}
	o := r.Other
	if o == nil {
		p.absent("compare", "Model against model", "Comparison", "no second model to compare with",
			fmt.Sprintf("cardapio report %s --compare OTHER.yaml --out report.html", r.Path))
		return p
	}
	a, b := r.Model.Name, o.Model.Name
	if a == b {
		a, b = r.Path, o.Path
	}
	p.section("compare", "Model against model: "+a+" and "+b,
		fmt.Sprintf("%s (%s) beside %s (%s): the month's cost, operation by operation, and the static units of every budget variant.", a, r.Path, b, o.Path))
	p.table("The month of each model", []string{"Figure", a, b, "Ratio"}, [][]string{
		{"total US$", estimate.USD(r.Bill.TotalUSD), estimate.USD(o.Bill.TotalUSD), ratio(o.Bill.TotalUSD, r.Bill.TotalUSD)},
		{"requests US$", estimate.USD(r.Bill.RequestsUSD), estimate.USD(o.Bill.RequestsUSD), ratio(o.Bill.RequestsUSD, r.Bill.RequestsUSD)},
		{"storage US$", estimate.USD(r.Bill.StorageUSD), estimate.USD(o.Bill.StorageUSD), ratio(o.Bill.StorageUSD, r.Bill.StorageUSD)},
		{"storage GB", estimate.Num(r.Bill.StorageGB), estimate.Num(o.Bill.StorageGB), ratio(o.Bill.StorageGB, r.Bill.StorageGB)},
		{"WRU a month", estimate.Num(r.Bill.WRU), estimate.Num(o.Bill.WRU), ratio(o.Bill.WRU, r.Bill.WRU)},
		{"RRU a month", estimate.Num(r.Bill.RRU), estimate.Num(o.Bill.RRU), ratio(o.Bill.RRU, r.Bill.RRU)},
		{"access patterns", fmt.Sprint(len(r.Model.AccessPatterns)), fmt.Sprint(len(o.Model.AccessPatterns)), ""},
		{"indexes", fmt.Sprint(len(r.Model.Indexes)), fmt.Sprint(len(o.Model.Indexes)), ""},
	})
	usd := map[string][2]float64{}
	has := map[string][2]bool{}
	var names []string
	for i, bill := range []*estimate.Bill{r.Bill, o.Bill} {
		for _, op := range bill.Operations {
			v, ok := usd[op.Operation]
			if !ok {
				names = append(names, op.Operation)
			}
			v[i] = op.USD
			usd[op.Operation] = v
			h := has[op.Operation]
			h[i] = true
			has[op.Operation] = h
		}
	}
	side := func(n string, i int) string {
		if !has[n][i] {
			return "not in " + []string{a, b}[i]
		}
		return "$" + estimate.USD(usd[n][i])
	}
	sort.SliceStable(names, func(i, j int) bool {
		x, y := usd[names[i]], usd[names[j]]
		return max(x[0], x[1]) > max(y[0], y[1])
	})
	var bars []Bar
	var rows [][]string
	for _, n := range names {
		v := usd[n]
		bars = append(bars, Bar{Label: n, Values: []float64{v[0], v[1]}, Texts: []string{side(n, 0), side(n, 1)}})
		rows = append(rows, []string{n, strings.TrimPrefix(side(n, 0), "$"), strings.TrimPrefix(side(n, 1), "$"), ratio(v[1], v[0])})
	}
	if len(bars) > 0 {
		c := &BarChart{ID: p.chartID("compare"), Unit: "US$", Bars: bars, Series: []string{a, b},
			Title: "Monthly request cost by operation, model against model", Desc: digits.Count(len(bars), "operation") + " of either model, each with a bar per model."}
		p.figure(c.chart(), fmt.Sprintf("US$ a month of each operation: %s solid, %s hatched.", a, b))
	}
	p.table("Operations a month, model against model", []string{"Operation", a + " US$", b + " US$", "Ratio"}, rows)
	static := map[string][4]float64{}
	var vnames []string
	for i, vs := range [][]estimate.Variant{r.Variants, o.Variants} {
		for _, v := range vs {
			n := variantName(v.Operation, v.Name)
			x, ok := static[n]
			if !ok {
				vnames = append(vnames, n)
				x = [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
			}
			x[2*i], x[2*i+1] = v.WRU, v.RRU
			static[n] = x
		}
	}
	var vrows [][]string
	for _, n := range vnames {
		x := static[n]
		vrows = append(vrows, []string{n, num(x[0]), num(x[2]), num(x[1]), num(x[3])})
	}
	p.table("Static units per variant, model against model", []string{"Variant", a + " WRU", b + " WRU", a + " RRU", b + " RRU"}, vrows)
	return p
}

func num(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return estimate.Num(f)
}

// ratio writes b/a as "x1.25"; "-" when a is 0.
func ratio(b, a float64) string {
	if a == 0 {
		return "-"
	}
	return "x" + trim(b/a)
}

// --- a load run

// scenario names the model's first scenario, for the commands a missing
// section suggests.
func (r *Report) scenario() string {
	if len(r.Model.Scenarios) > 0 {
		return r.Model.Scenarios[0].Name
	}
	return "NAME"
}

func loadSection(r *Report) *section {
	p := &section{}
	l := r.Load
	scenario := r.scenario()
	if l == nil {
		p.absent("load", "Load run: throughput, latency, throttles over time", "Load run", "no results file of a load run",
			fmt.Sprintf("cardapio load %s --scenario %s --results load.jsonl && cardapio report %s --load load.jsonl --out report.html", r.Path, scenario, r.Path))
		return p
	}
	p.section("load", "Load run: "+l.Scenario,
		fmt.Sprintf("The load generator's results (%s): scenario %s of model %s on %s at scale %s, %d seconds, drawn %s.",
			r.LoadFrom, l.Scenario, l.Model, l.Target, trim(l.Scale), l.Seconds, stepWords(l.Step)))
	if len(l.Timeline) > 0 {
		x := make([]float64, len(l.Timeline))
		t := 0.0
		for i := range l.Timeline {
			x[i] = t
			t += float64(l.Span[i])
		}
		// The busiest loads are drawn (a chart of dozens of lines reads
		// as none); every load is in the tables.
		drawn := busiest(l, maxLines)
		if len(drawn) < len(l.Loads) {
			p.para("", fmt.Sprintf("The charts draw the %d busiest of the %s (by operations completed); the summary's table below lists them all.", len(drawn), digits.Count(len(l.Loads), "load")))
		}
		series := func(get func(*Point, int) float64) []Line {
			var out []Line
			for _, name := range drawn {
				ys := make([]float64, len(l.Timeline))
				for i, pt := range l.Timeline {
					if q := pt[name]; q != nil {
						ys[i] = get(q, l.Span[i])
					} else {
						ys[i] = math.NaN()
					}
				}
				out = append(out, Line{Name: name, Y: ys})
			}
			return out
		}
		xl := func(v float64) string { return clockAt(l, v) }
		done := &LineChart{ID: p.chartID("load-done"), Unit: "/s", X: x, XLabel: xl, Time: true, Lines: series(func(q *Point, n int) float64 { return q.Completed / float64(n) }),
			Title: "Completed operations a second, per load", Desc: fmt.Sprintf("%s over %s.", digits.Count(len(l.Loads), "load"), digits.Count(l.Seconds, "second"))}
		p.figure(done.chart(), "Operations completed a second, each load a line, named at its end.")
		lat := &LineChart{ID: p.chartID("load-p99"), Unit: "ms", X: x, XLabel: xl, Time: true, Lines: series(func(q *Point, _ int) float64 { return q.P99 }),
			Title: "Latency p99 per load", Desc: "The 99th percentile of each load's latency, the highest of each step."}
		p.figure(lat.chart(), "p99 latency in milliseconds, each load a line.")
		th := series(func(q *Point, n int) float64 { return q.Throttled / float64(n) })
		any := false
		for _, s := range th {
			for _, v := range s.Y {
				any = any || v > 0
			}
		}
		if any {
			c := &LineChart{ID: p.chartID("load-throttled"), Unit: "/s", X: x, XLabel: xl, Time: true, Lines: th,
				Title: "Throttled operations a second, per load", Desc: "Operations that ended throttled."}
			p.figure(c.chart(), "Operations throttled a second, each load a line.")
		} else {
			p.para("", "No operation ended throttled in any second.")
		}
		p.loadUnits(l, x, xl, r.Peaks)
	}
	s := l.Summary
	if s == nil {
		p.para("absent", "The file ends before its summary line (the run was cut short): totals, throttles by reason and units are missing.")
		return p
	}
	var rows [][]string
	var names []string
	for n := range s.Operations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := s.Operations[n]
		if o == nil {
			continue
		}
		rows = append(rows, []string{n, fmt.Sprint(o.Offered), fmt.Sprint(o.Completed), fmt.Sprint(o.Outcomes["throttled"]),
			trim(o.LatencyMs.P50), trim(o.LatencyMs.P90), trim(o.LatencyMs.P99), trim(o.LatencyMs.P999), trim(o.LatencyMs.Max)})
	}
	p.table("Loads: totals and latency percentiles (ms)", []string{"Load", "Offered", "Completed", "Throttled", "p50", "p90", "p99", "p99.9", "max"}, rows)
	reasons := map[string]float64{}
	for k, v := range s.Throttles {
		reasons[k] = float64(v)
	}
	p.reasons("load-reasons", reasons, "The throttling reasons the target returned, counted.", "No request was throttled.")
	var ub []Bar
	var urows [][]string
	for _, k := range slices.Sorted(maps.Keys(s.Units)) {
		u := s.Units[k]
		ub = append(ub, Bar{Label: k, Values: []float64{u.PeakWriteAWS, u.PeakReadAWS}, Texts: []string{estimate.Num(u.PeakWriteAWS) + " WCU/s", estimate.Num(u.PeakReadAWS) + " RCU/s"}})
		urows = append(urows, []string{k, estimate.Num(u.Write), estimate.Num(u.Read), estimate.Num(u.PeakWriteAWS), estimate.Num(u.PeakReadAWS)})
	}
	if len(ub) > 0 {
		c := &BarChart{ID: p.chartID("load-units"), Bars: ub, Series: []string{"writes", "reads"}, Unit: "/s",
			Title: "Highest second per table and index, at full scale", Desc: "The busiest second's write and read units of each table and index, scaled to the full model."}
		p.figure(c.chart(), "Units in the busiest second, at full scale: writes solid, reads hatched.")
		p.table("Units per table and index", []string{"Structure", "WRU", "RRU", "Peak WCU/s (full scale)", "Peak RCU/s (full scale)"}, urows)
	}
	if len(s.Partitions) > 0 {
		wl, rl := r.Peaks.WriteLimit, r.Peaks.ReadLimit
		var hb []Bar
		var hrows [][]string
		for _, hp := range s.Partitions {
			name := hp.Table
			if hp.Index != "" {
				name = hp.Index
			}
			if len(hp.Keys) > 0 {
				name += " " + hp.Keys[0]
			}
			if hp.Crowded > 1 {
				name += fmt.Sprintf(" (up to %.4gx above full scale: random subjects from a smaller population)", hp.Crowded)
			}
			w, rd := 100*hp.WriteDemand/wl, 100*hp.ReadDemand/rl
			hb = append(hb, Bar{Label: name, Values: []float64{w, rd}, Over: []bool{w > 100, rd > 100},
				Texts: []string{estimate.Num(hp.WriteDemand) + " WCU/s", estimate.Num(hp.ReadDemand) + " RCU/s"}})
			hrows = append(hrows, []string{name, estimate.Num(hp.WriteDemand), estimate.Num(hp.WriteThrottled), estimate.Num(hp.ReadDemand), estimate.Num(hp.ReadThrottled)})
		}
		hundred := 100.0
		c := &BarChart{ID: p.chartID("load-hot"), Bars: hb, Series: []string{"writes", "reads"}, Unit: "%", Line: &hundred, LineLabel: "partition limit", LabelWidth: 380,
			Title: "Hottest partitions against the partition limit", Desc: fmt.Sprintf("Demand of the hottest partitions as a share of %s WCU/s and %s RCU/s.", estimate.Num(wl), estimate.Num(rl))}
		p.figure(c.chart(), "The hottest partitions' demand as a share of a partition's limit.")
		p.table("Hottest partitions", []string{"Partition", "WCU/s demanded", "throttled", "RCU/s demanded", "throttled"}, hrows)
	}
	if len(s.Invariants) > 0 {
		var irows [][]string
		for _, iv := range s.Invariants {
			v := "holds"
			if iv.Violations > 0 {
				v = "VIOLATED " + digits.Count(iv.Violations, "time")
			}
			irows = append(irows, []string{iv.Name, iv.Description, fmt.Sprint(iv.Checked), v})
		}
		p.table("Invariants", []string{"Invariant", "What", "Checked", "Verdict"}, irows)
	}
	return p
}

// loadUnits draws, for the busiest tables and indexes, the units each
// consumed a second of the scenario's clock against its table-level
// limit and a partition's cap, with what was refused, at full scale
// (local units over the run's scale), as the plan's charts are: a
// throttle far under the table-level limit is a hot partition.
func (p *section) loadUnits(l *Load, x []float64, xl func(float64) string, caps *estimate.Peaks) {
	type series struct {
		name, dir, unit string
		total           float64
		used, thr, lim  []float64
		limited         bool
	}
	scale := l.Scale
	if !(scale > 0) {
		scale = 1
	}
	var all []*series
	for _, name := range l.Structures {
		for _, dir := range []string{"write", "read"} {
			sr := &series{name: name, dir: dir, unit: "WCU", used: make([]float64, len(x)), thr: make([]float64, len(x)), lim: make([]float64, len(x))}
			if dir == "read" {
				sr.unit = "RCU"
			}
			for i, pt := range l.Units {
				sr.used[i], sr.thr[i], sr.lim[i] = math.NaN(), math.NaN(), math.NaN()
				q := pt[name]
				if q == nil || !(l.Clock[i] > 0) {
					continue
				}
				used, thr, lim := q.Write, q.WriteThrottled, q.WriteLimit
				if dir == "read" {
					used, thr, lim = q.Read, q.ReadThrottled, q.ReadLimit
				}
				sr.total += used + thr
				sr.used[i], sr.thr[i] = used/l.Clock[i]/scale, thr/l.Clock[i]/scale
				if !math.IsNaN(lim) {
					sr.lim[i], sr.limited = lim/scale, true
				}
			}
			if sr.total > 0 {
				all = append(all, sr)
			}
		}
	}
	if len(all) == 0 {
		if len(l.Structures) == 0 {
			p.para("", "The results file gives no units per table and index a second (a run before they were recorded).")
		}
		return
	}
	drawn := append([]*series(nil), all...)
	sort.SliceStable(drawn, func(i, j int) bool { return drawn[i].total > drawn[j].total })
	if len(drawn) > maxLines {
		p.para("", fmt.Sprintf("Units over time are drawn for the %d busiest of the %d tables and indexes by direction; the table of units below lists them all.", maxLines, len(all)))
		drawn = drawn[:maxLines]
	}
	for _, sr := range drawn {
		lines := []Line{{Name: "consumed", Y: sr.used}}
		refused := false
		for _, v := range sr.thr {
			refused = refused || v > 0
		}
		if refused {
			lines = append(lines, Line{Name: "throttled", Y: sr.thr})
		}
		limit := "no table-level limit recorded"
		if sr.limited {
			lines = append(lines, Line{Name: "limit", Y: sr.lim, Limit: true})
			limit = "the table-level limit dashed black"
		}
		if caps != nil {
			c := caps.WriteLimit
			if sr.dir == "read" {
				c = caps.ReadLimit
			}
			ys := make([]float64, len(x))
			for i := range ys {
				ys[i] = c
			}
			lines = append(lines, Line{Name: "partition cap", Y: ys, Limit: true})
			limit += fmt.Sprintf(", a partition's cap (%s %s/s) too", estimate.Num(c), sr.unit)
		}
		c := &LineChart{ID: p.chartID("load-units-" + sr.dir), Unit: sr.unit + "/s", X: x, XLabel: xl, Time: true, Lines: lines,
			Title: fmt.Sprintf("%s %ss: consumed against the limit, at full scale", sr.name, sr.dir),
			Desc: fmt.Sprintf("%s a second of the scenario's clock that %s consumed and had refused during the run, and %s, at full scale (the run's local units over its scale %s).",
				sr.unit, sr.name, limit, trim(l.Scale))}
		p.figure(c.chart(), fmt.Sprintf("%s %ss during the run: consumed and throttled %s a second, each a line named at its end; %s. At full scale.", sr.name, sr.dir, sr.unit, limit))
	}
}

// reasons draws throttled requests by ThrottlingReason, with their
// table, or says none was.
func (p *section) reasons(id string, by map[string]float64, desc, none string) {
	var bars []Bar
	var rows [][]string
	for _, k := range slices.Sorted(maps.Keys(by)) {
		v := by[k]
		bars = append(bars, Bar{Label: k, Values: []float64{v}, Texts: []string{estimate.Num(v)}})
		rows = append(rows, []string{k, estimate.Num(v)})
	}
	if len(bars) == 0 {
		p.para("", none)
		return
	}
	c := &BarChart{ID: p.chartID(id), Bars: bars, LabelWidth: 480, Title: "Throttled requests by reason", Desc: desc}
	p.figure(c.chart(), "Throttled requests, by the reason given.")
	p.table("Throttled requests by reason", []string{"Reason", "Requests"}, rows)
}

// maxLines is the most loads a timeline draws.
const maxLines = 6

// busiest returns the n loads that completed the most operations, in the
// order of l.Loads.
func busiest(l *Load, n int) []string {
	if len(l.Loads) <= n {
		return l.Loads
	}
	total := map[string]float64{}
	for _, pt := range l.Timeline {
		for k, q := range pt {
			total[k] += q.Completed
		}
	}
	byTotal := append([]string(nil), l.Loads...)
	sort.SliceStable(byTotal, func(i, j int) bool { return total[byTotal[i]] > total[byTotal[j]] })
	keep := map[string]bool{}
	for _, k := range byTotal[:n] {
		keep[k] = true
	}
	var out []string
	for _, k := range l.Loads {
		if keep[k] {
			out = append(out, k)
		}
	}
	return out
}

func stepWords(step int) string {
	if step <= 1 {
		return "a point a second"
	}
	return "a point every " + digits.Count(step, "second")
}

// clockAt returns the scenario clock (its time of day) nearest to v
// seconds from the start.
func clockAt(l *Load, v float64) string {
	t := 0.0
	for i := range l.Clocks {
		if t >= v-0.5 {
			return shortClock(l.Clocks[i])
		}
		t += float64(l.Span[i])
	}
	return tickLabel(v, "s")
}

func shortClock(c string) string {
	if t, err := time.Parse(time.RFC3339, c); err == nil {
		return t.Format("15:04:05")
	}
	return clip(c, 10)
}

// --- a plan

func planVerdict(pl *planner.Result) string {
	if pl.Verdict.Summary != "" {
		return pl.Verdict.Summary
	}
	if pl.Verdict.Throttled {
		return "throttling predicted"
	}
	return "no throttling predicted"
}

// planShort is the verdict in a few words, for the summary card.
func planShort(pl *planner.Result) string {
	if !pl.Verdict.Throttled {
		return "no throttling predicted"
	}
	return fmt.Sprintf("throttling predicted: %s requests throttled", estimate.Num(pl.Throttled.Requests))
}

func planSection(r *Report) *section {
	p := &section{}
	pl := r.Plan
	scenario := r.scenario()
	if pl == nil {
		p.absent("plan", "Plan: hot partitions at full scale", "Plan", "no plan of a scenario at full scale",
			fmt.Sprintf("cardapio plan %s --scenario %s --format json > plan.json && cardapio report %s --plan plan.json --out report.html", r.Path, scenario, r.Path))
		return p
	}
	intro := fmt.Sprintf("The planner's simulation (%s) of scenario %s on model %s, %s from %s, a point every %s: %s.",
		r.PlanFrom, pl.Scenario, pl.Model, secondsWords(pl.Seconds), pl.Start.Format("2006-01-02 15:04:05"), secondsWords(pl.Resolution), planVerdict(pl))
	if len(pl.WhatIf) > 0 {
		intro += " What-ifs: " + strings.Join(pl.WhatIf, "; ") + "."
	}
	p.section("plan", "Plan: "+pl.Scenario+" at full scale", intro)
	xlabel := func(v float64) string { return pl.Start.Add(time.Duration(v) * time.Second).Format("15:04:05") }
	var cool []string
	for _, h := range pl.Heatmaps {
		if len(h.Partitions) == 0 {
			continue
		}
		top := 0.0
		for _, row := range h.Cells {
			for _, v := range row {
				top = max(top, v)
			}
		}
		if top < 0.05 {
			// A resource whose partitions never reach 5% of their cap is
			// named, not drawn: a blank heatmap says nothing.
			cool = append(cool, strings.TrimSpace(h.Index+" "+h.Direction+"s"))
			if h.Index == "" {
				cool[len(cool)-1] = h.Table + " " + h.Direction + "s"
			}
			continue
		}
		cols := 0
		for _, row := range h.Cells {
			cols = max(cols, len(row))
		}
		step := max(1, (cols+599)/600)
		cells := make([][]float64, len(h.Cells))
		for i, row := range h.Cells {
			cells[i] = coarsen(row, step)
		}
		labels := make([]string, (cols+step-1)/step)
		for j := range labels {
			labels[j] = xlabel(float64(j * step * pl.Resolution))
		}
		name := h.Table
		if h.Index != "" {
			name = h.Index
		}
		rows := make([]string, len(h.Partitions))
		for i, part := range h.Partitions {
			rows[i] = name + " " + shortRange(part)
		}
		hm := &Heatmap{ID: p.chartID("plan-heat"), Rows: rows, Cols: labels, Cells: cells,
			Title: fmt.Sprintf("%s %s: the hottest partitions over time", name, h.Direction),
			Desc:  fmt.Sprintf("%s of %s (by hash range), each cell the busiest second's %s demand over the partition's cap; crossed cells reach or pass it and throttle.", digits.Count(len(rows), "partition"), name, h.Direction)}
		p.figure(hm.chart(), fmt.Sprintf("%s %ss: each row a partition (its hash range), each column a moment; darker is nearer the partition's cap, crossed cells reach it.", name, h.Direction))
	}
	if len(cool) > 0 {
		p.para("", fmt.Sprintf("Under 5%% of a partition's cap all the span (no heatmap drawn): %s.", strings.Join(cool, ", ")))
	}
	var srows [][]string
	for _, res := range pl.Resources {
		for _, d := range []struct {
			what, unit string
			pts        []planner.Point
			cap        float64
		}{{"write", "WCU", res.Write, res.PartitionWrite}, {"read", "RCU", res.Read, res.PartitionRead}} {
			peak, limit, throttled, hot := 0.0, math.Inf(1), 0.0, 0.0
			for _, pt := range d.pts {
				peak = max(peak, pt.Demand)
				limit = min(limit, pt.Limit)
				throttled += pt.Throttled
				hot = max(hot, pt.Hottest)
			}
			if len(d.pts) == 0 || peak == 0 {
				continue
			}
			srows = append(srows, []string{resName(res.Table, res.Index) + " " + d.what + "s", estimate.Num(peak), estimate.Num(limit), estimate.Num(hot), estimate.Num(d.cap), estimate.Num(throttled)})
			step := max(1, (len(d.pts)+599)/600)
			n := (len(d.pts) + step - 1) / step
			x := make([]float64, n)
			series := [4][]float64{}
			for k := range series {
				series[k] = make([]float64, n)
			}
			for i := 0; i < n; i++ {
				x[i] = float64(d.pts[i*step].Second)
				lo := math.Inf(1)
				for _, pt := range d.pts[i*step : min(len(d.pts), (i+1)*step)] {
					series[0][i] = max(series[0][i], pt.Consumed)
					series[1][i] = max(series[1][i], pt.Demand)
					series[2][i] = max(series[2][i], pt.Hottest)
					lo = min(lo, pt.Limit)
				}
				series[3][i] = lo
			}
			lines := []Line{{Name: "demand", Y: series[1]}, {Name: "consumed", Y: series[0]}, {Name: "hottest partition", Y: series[2]}, {Name: "limit", Y: series[3], Limit: true}}
			c := &LineChart{ID: p.chartID("plan-" + d.what), Unit: d.unit + "/s", X: x, XLabel: xlabel, Time: true, Lines: lines,
				Title: fmt.Sprintf("%s %ss: demand and consumed against the limit", resName(res.Table, res.Index), d.what),
				Desc:  fmt.Sprintf("%s a second asked of %s and admitted, its hottest partition's (cap %s), and the table-level limit, dashed black.", d.unit, resName(res.Table, res.Index), estimate.Num(d.cap))}
			p.figure(c.chart(), fmt.Sprintf("%s %ss over the scenario: demand, consumed and the hottest partition, each a line named at its end; the limit dashed black (a partition's cap is %s %s/s).", resName(res.Table, res.Index), d.what, estimate.Num(d.cap), d.unit))
		}
	}
	p.table("Tables and indexes: the busiest second", []string{"Resource", "Peak demand /s", "Lowest limit /s", "Hottest partition /s", "Partition cap /s", "Throttled units"}, srows)
	p.reasons("plan-reasons", pl.Throttled.Reasons, "Requests the planner predicts throttled, by ThrottlingReason.", "No request is throttled.")
	if len(pl.First) > 0 {
		var rows [][]string
		for _, h := range pl.First {
			name := h.Table
			if h.Index != "" {
				name = h.Index
			}
			rows = append(rows, []string{name + " " + h.Direction, h.Reason, pl.Start.Add(time.Duration(h.Second) * time.Second).Format("15:04:05"), h.Partition, strings.Join(h.Keys, "; "), estimate.Num(h.Units)})
		}
		p.table("The first second each limit refused", []string{"Resource", "Reason", "At", "Partition", "Keys", "Units throttled"}, rows)
	}
	var wrows [][]string
	for _, w := range pl.Advice.Warm {
		name := w.Table
		if w.Index != "" {
			name = w.Index
		}
		enough := "yes"
		if !w.Enough {
			enough = "no: " + w.Note
		}
		wrows = append(wrows, []string{name, estimate.Num(w.Read), estimate.Num(w.Write), estimate.Num(w.StartRead), estimate.Num(w.StartWrite), enough})
	}
	if len(wrows) > 0 {
		p.table("Warm throughput that serves the busiest second", []string{"Resource", "Read /s", "Write /s", "Started with read", "Started with write", "Enough"}, wrows)
	}
	for _, sh := range pl.Advice.Shards {
		fit := digits.Count(sh.NoThrottle, "shard") + " throttle nothing"
		if sh.NoThrottle == 0 {
			fit = "no shard count searched throttles nothing"
		}
		p.add(block{Para: &para{Strong: sh.Index, Text: fmt.Sprintf("declared %s, planned with %d; %s.", digits.Count(sh.Declared, "shard"), sh.Planned, fit)}})
	}
	if pl.Cost.USD > 0 {
		p.para("", fmt.Sprintf("The span costs US$ %s (%s).", estimate.USD(pl.Cost.USD), pl.Cost.Basis))
	}
	return p
}

// shortRange shortens a partition's hash range "c000000000000000-dfffffffffffffff"
// to its leading digits, "c000-dfff".
func shortRange(r string) string {
	lo, hi, ok := strings.Cut(r, "-")
	if !ok {
		return clip(r, 20)
	}
	return lo[:min(4, len(lo))] + "–" + hi[:min(4, len(hi))]
}

func secondsWords(s int) string {
	switch {
	case s <= 1:
		return "second"
	case s%3600 == 0:
		return fmt.Sprintf("%d h", s/3600)
	case s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d s", s)
}

// coarsen keeps the highest share of every step cells.
func coarsen(xs []float64, step int) []float64 {
	if step <= 1 {
		return xs
	}
	var out []float64
	for i := 0; i < len(xs); i += step {
		m := math.NaN()
		for _, v := range xs[i:min(len(xs), i+step)] {
			if !math.IsNaN(v) && (math.IsNaN(m) || v > m) {
				m = v
			}
		}
		out = append(out, m)
	}
	return out
}
