package estimate

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// USD formats dollars for a report: cents from US$1, four significant
// digits below, "0" for nothing.
func USD(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.Abs(f) >= 0.01:
		c := math.Round(f * 100)
		return Num(math.Trunc(c/100)) + fmt.Sprintf(".%02d", int(math.Abs(math.Mod(c, 100))))
	case math.Abs(f) >= 0.0001:
		return fmt.Sprintf("%.4f", f)
	}
	return "<0.0001"
}

// big formats a monthly unit count: 240,000,000 or 1.5.
func big(f float64) string {
	if f >= 1000 {
		return Num(math.Round(f))
	}
	return Num(f)
}

// WriteText writes the bill as a readable report.
func (b *Bill) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s: monthly cost, on-demand, %s prices of %s (a month is 30 days of the declared volumes)\n",
		b.Model, b.Region, b.PriceDate)

	fmt.Fprintf(w, "\nOperations\n")
	var t table
	t.add("operation", "runs/month", "WRU/run", "RRU/run", "WRU/month", "RRU/month", "US$/month", "variants charged")
	for _, o := range b.Operations {
		t.add(o.Operation, big(o.Runs), Num(o.UnitWRU), Num(o.UnitRRU), big(o.WRU), big(o.RRU), USD(o.USD), o.Basis)
	}
	t.write(w)
	if len(b.Unpriced) > 0 {
		fmt.Fprintf(w, "  not priced (no volume declared): %s\n", strings.Join(b.Unpriced, ", "))
	}

	fmt.Fprintf(w, "\nAccess patterns\n")
	t = table{}
	t.add("pattern", "WRU/month", "RRU/month", "US$/month", "question (operations)")
	for _, p := range b.Patterns {
		id, q := p.Pattern, p.Question
		if id == "" {
			id, q = "-", "steps that answer no question"
		}
		t.add(id, big(p.WRU), big(p.RRU), USD(p.USD), clip(q, 60)+" ("+strings.Join(p.Operations, ", ")+")")
	}
	t.write(w)

	unit := "10^9 B"
	if b.GB == "binary" {
		unit = "2^30 B"
	}
	fmt.Fprintf(w, "\nStorage (a GB is %s; each item and index entry counts 100 B more)\n", unit)
	t = table{}
	t.add("table", "class", "GB", "US$ Standard", "US$ Standard-IA", "size")
	for _, tb := range b.Tables {
		src := "from populations and samples"
		if tb.DeclaredGB != nil {
			src = fmt.Sprintf("declared; populations and samples give %s GB", Num(round2(tb.ComputedGB)))
		}
		class := "Standard"
		if tb.Class != "STANDARD" {
			class = "Standard-IA"
		}
		t.add(tb.Table, class, Num(round2(tb.GB)), USD(tb.StandardUSD), USD(tb.IAUSD), src)
	}
	t.write(w)
	if b.DeclaredStorageGB > 0 {
		fmt.Fprintf(w, "  the model's scale declares %s GB in all\n", Num(b.DeclaredStorageGB))
	}

	fmt.Fprintf(w, "\nMonth\n")
	t = table{}
	t.add(fmt.Sprintf("requests (%s WRU, %s RRU)", big(b.WRU), big(b.RRU)), "US$ "+USD(b.RequestsUSD))
	t.add(fmt.Sprintf("storage (%s GB, by table class)", Num(round2(b.StorageGB))), "US$ "+USD(b.StorageUSD))
	t.add("point-in-time recovery", "US$ "+USD(b.PITRUSD))
	t.add("export to S3 (one full export a month)", "US$ "+USD(b.ExportUSD))
	t.add("total", "US$ "+USD(b.TotalUSD))
	t.write(w)
	if b.Units > 0 {
		fmt.Fprintf(w, "  per 1,000 of %s %s: US$ %.4f (%s US cents)\n", Num(b.Units), b.Unit, b.PerThousandUSD, Num(round2(b.PerThousandUSD*100)))
	}

	p := b.Provisioned
	fmt.Fprintf(w, "\nProvisioned alternative (requests only), at %s%% target utilisation\n", Num(p.Utilisation*100))
	fmt.Fprintf(w, "  auto scaling tracking the load: the month's units spread evenly, %s WCU/s and %s RCU/s, / %s: US$ %s a month\n",
		Num(round2(p.AvgWPS)), Num(round2(p.AvgRPS)), Num(p.Utilisation), USD(p.USD))
	fmt.Fprintf(w, "  capacity held at the declared peaks all month: %s WCU/s and %s RCU/s, / %s: US$ %s a month\n",
		Num(round2(p.PeakWPS)), Num(round2(p.PeakRPS)), Num(p.Utilisation), USD(p.PeakUSD))
	fmt.Fprintf(w, "  on-demand requests: US$ %s a month\n", USD(b.RequestsUSD))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// WriteCompare writes two bills side by side with the ratio of the first
// to the second.
func WriteCompare(w io.Writer, a, b *Bill) {
	fmt.Fprintf(w, "%s vs %s: monthly cost, on-demand (US$ unless said)\n\n", a.Model, b.Model)
	var t table
	t.add("", a.Model, b.Model, a.Model+" / "+b.Model)
	row := func(name, x, y string, fx, fy float64) { t.add(name, x, y, ratio(fx, fy)) }
	ops := map[string][2]*OpMonth{}
	var names []string
	for i, bill := range []*Bill{a, b} {
		for j := range bill.Operations {
			o := &bill.Operations[j]
			e, seen := ops[o.Operation]
			if !seen {
				names = append(names, o.Operation)
			}
			e[i] = o
			ops[o.Operation] = e
		}
	}
	sort.Strings(names)
	t.add("operations (US$ a month)")
	for _, n := range names {
		e := ops[n]
		x, y := "-", "-"
		var fx, fy float64
		if e[0] != nil {
			x, fx = USD(e[0].USD), e[0].USD
		}
		if e[1] != nil {
			y, fy = USD(e[1].USD), e[1].USD
		}
		row(n, x, y, fx, fy)
	}
	t.add("units a month")
	row("write units", big(a.WRU), big(b.WRU), a.WRU, b.WRU)
	row("read units", big(a.RRU), big(b.RRU), a.RRU, b.RRU)
	t.add("month (US$)")
	row("requests", USD(a.RequestsUSD), USD(b.RequestsUSD), a.RequestsUSD, b.RequestsUSD)
	row("storage GB", Num(round2(a.StorageGB)), Num(round2(b.StorageGB)), a.StorageGB, b.StorageGB)
	row("storage", USD(a.StorageUSD), USD(b.StorageUSD), a.StorageUSD, b.StorageUSD)
	row("point-in-time recovery", USD(a.PITRUSD), USD(b.PITRUSD), a.PITRUSD, b.PITRUSD)
	row("export to S3", USD(a.ExportUSD), USD(b.ExportUSD), a.ExportUSD, b.ExportUSD)
	row("total", USD(a.TotalUSD), USD(b.TotalUSD), a.TotalUSD, b.TotalUSD)
	if a.Units > 0 && b.Units > 0 {
		unit := "business units"
		if a.Unit == b.Unit {
			unit = a.Unit
		}
		row("per 1,000 "+unit, USD(a.PerThousandUSD), USD(b.PerThousandUSD), a.PerThousandUSD, b.PerThousandUSD)
	}
	row(fmt.Sprintf("requests if provisioned at %s%%", Num(a.Provisioned.Utilisation*100)), USD(a.Provisioned.USD), USD(b.Provisioned.USD), a.Provisioned.USD, b.Provisioned.USD)
	t.write(w)
}

// ratio writes x / y as "40x", or "-" when either side is missing.
func ratio(x, y float64) string {
	if x == 0 || y == 0 {
		return "-"
	}
	r := x / y
	switch {
	case r >= 10:
		return Num(math.Round(r)) + "x"
	case r >= 0.1:
		return fmt.Sprintf("%.2fx", r)
	}
	return fmt.Sprintf("%.3gx", r)
}

// table lays out rows in columns: the first left-aligned, the others
// right-aligned (numbers), with a two-space indent and gutter. A row with
// one cell is a heading.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	var width []int
	for _, r := range t.rows {
		if len(r) == 1 {
			continue
		}
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		if len(r) == 1 {
			fmt.Fprintf(w, "%s\n", r[0])
			continue
		}
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case i == len(r)-1 && !isNumeric(c):
				b.WriteString("  " + c)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// isNumeric reports whether a cell reads as a figure (right-aligned).
func isNumeric(c string) bool {
	if c == "" || c == "-" {
		return true
	}
	c = strings.TrimPrefix(strings.TrimPrefix(c, "US$ "), "<")
	return strings.IndexFunc(c, func(r rune) bool { return !strings.ContainsRune("0123456789.,x% ", r) && !strings.HasSuffix(c, " GB") }) < 0 || strings.HasSuffix(c, " GB")
}
