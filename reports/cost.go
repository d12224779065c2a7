package reports

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/capacity/estimate"
)

// Cost writes cost's report: one bill, or two side by side with their
// ratio, as text or as one JSON document ({"a": ..., "b": ...} for two).
func Cost(w io.Writer, format string, bills ...*estimate.Bill) error {
	switch {
	case format == "json" && len(bills) == 2:
		return JSON(w, map[string]any{"a": bills[0], "b": bills[1]})
	case format == "json":
		return JSON(w, bills[0])
	case len(bills) == 2:
		CostCompare(w, bills[0], bills[1])
	default:
		CostText(w, bills[0])
	}
	return nil
}

// big formats a monthly unit count: 240,000,000 or 1.5.
func big(f float64) string {
	if f >= 1000 {
		return estimate.Num(math.Round(f))
	}
	return estimate.Num(f)
}

// CostText writes a bill as a readable report.
func CostText(w io.Writer, b *estimate.Bill) {
	w = TextOut(w)
	fmt.Fprintf(w, "%s: monthly cost, on-demand, %s prices of %s (a month is 30 days of the declared volumes)\n",
		Text(b.Model), b.Region, b.PriceDate)

	fmt.Fprintf(w, "\nOperations\n")
	var t table
	t.add("operation", "runs/month", "WRU/run", "RRU/run", "WRU/month", "RRU/month", "US$/month", "variants charged")
	for _, o := range b.Operations {
		t.add(o.Operation, big(o.Runs), estimate.Num(o.UnitWRU), estimate.Num(o.UnitRRU), big(o.WRU), big(o.RRU), estimate.USD(o.USD), o.Basis)
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
		t.add(id, big(p.WRU), big(p.RRU), estimate.USD(p.USD), clip(q, 60)+" ("+strings.Join(p.Operations, ", ")+")")
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
		basis := "samples"
		for _, es := range tb.Entities {
			if es.MeasuredItems > 0 {
				basis = "generated items"
				break
			}
		}
		src := "from populations and " + basis
		if tb.DeclaredGB != nil {
			src = fmt.Sprintf("declared; populations and %s give %s GB", basis, estimate.Num(round2(tb.ComputedGB)))
		}
		class := "Standard"
		if tb.Class != "STANDARD" {
			class = "Standard-IA"
		}
		t.add(tb.Table, class, estimate.Num(round2(tb.GB)), estimate.USD(tb.StandardUSD), estimate.USD(tb.IAUSD), src)
	}
	t.write(w)
	if b.DeclaredStorageGB > 0 {
		fmt.Fprintf(w, "  the model's scale declares %s GB in all\n", estimate.Num(b.DeclaredStorageGB))
	}

	fmt.Fprintf(w, "\nMonth\n")
	t = table{}
	t.add(fmt.Sprintf("requests (%s WRU, %s RRU)", big(b.WRU), big(b.RRU)), "US$ "+estimate.USD(b.RequestsUSD))
	t.add(fmt.Sprintf("storage (%s GB, by table class)", estimate.Num(round2(b.StorageGB))), "US$ "+estimate.USD(b.StorageUSD))
	t.add("point-in-time recovery", "US$ "+estimate.USD(b.PITRUSD))
	t.add("export to S3 (one full export a month)", "US$ "+estimate.USD(b.ExportUSD))
	t.add("total", "US$ "+estimate.USD(b.TotalUSD))
	t.write(w)
	if b.Units > 0 {
		fmt.Fprintf(w, "  per 1,000 of %s %s: US$ %.4f (%s US cents)\n", estimate.Num(b.Units), b.Unit, b.PerThousandUSD, estimate.Num(round2(b.PerThousandUSD*100)))
	}
	for _, f := range b.Figures {
		fmt.Fprintf(w, "  the model's figure %s, which counts PITR or exports: US$ %s a month (%s)\n", f.Name, estimate.Num(f.USD), clip(f.Statement, 100))
	}
	fmt.Fprintf(w, "  what each line is billed on:\n")
	for _, l := range b.Lines {
		fmt.Fprintf(w, "    %s: %s; at %s\n", l.Line, l.On, l.Price)
	}

	p := b.Provisioned
	fmt.Fprintf(w, "\nProvisioned alternative (requests only), at %s target utilisation\n", estimate.Pct(p.Utilisation))
	fmt.Fprintf(w, "  auto scaling tracking the load: the month's units spread evenly, %s WCU/s and %s RCU/s, / %s: US$ %s a month\n",
		estimate.Num(round2(p.AvgWPS)), estimate.Num(round2(p.AvgRPS)), estimate.Num(p.Utilisation), estimate.USD(p.USD))
	fmt.Fprintf(w, "  capacity held at the declared peaks all month: %s WCU/s and %s RCU/s, / %s: US$ %s a month\n",
		estimate.Num(round2(p.PeakWPS)), estimate.Num(round2(p.PeakRPS)), estimate.Num(p.Utilisation), estimate.USD(p.PeakUSD))
	fmt.Fprintf(w, "  on-demand requests: US$ %s a month\n", estimate.USD(b.RequestsUSD))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CostCompare writes two bills side by side with the ratio of the first
// to the second.
func CostCompare(w io.Writer, a, b *estimate.Bill) {
	w = TextOut(w)
	la, lb := compareLabels(a, b)
	fmt.Fprintf(w, "%s vs %s: monthly cost, on-demand (US$ unless said)\n\n", Text(la), Text(lb))
	var t table
	t.add("", la, lb, la+" / "+lb)
	row := func(name, x, y string, fx, fy float64) { t.add(name, x, y, ratio(fx, fy)) }
	ops := map[string][2]*estimate.OpMonth{}
	var names []string
	for i, bill := range []*estimate.Bill{a, b} {
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
			x, fx = estimate.USD(e[0].USD), e[0].USD
		}
		if e[1] != nil {
			y, fy = estimate.USD(e[1].USD), e[1].USD
		}
		row(n, x, y, fx, fy)
	}
	t.add("units a month")
	row("write units", big(a.WRU), big(b.WRU), a.WRU, b.WRU)
	row("read units", big(a.RRU), big(b.RRU), a.RRU, b.RRU)
	t.add("month (US$)")
	row("requests", estimate.USD(a.RequestsUSD), estimate.USD(b.RequestsUSD), a.RequestsUSD, b.RequestsUSD)
	row("storage GB", estimate.Num(round2(a.StorageGB)), estimate.Num(round2(b.StorageGB)), a.StorageGB, b.StorageGB)
	row("storage", estimate.USD(a.StorageUSD), estimate.USD(b.StorageUSD), a.StorageUSD, b.StorageUSD)
	row("point-in-time recovery", estimate.USD(a.PITRUSD), estimate.USD(b.PITRUSD), a.PITRUSD, b.PITRUSD)
	row("export to S3", estimate.USD(a.ExportUSD), estimate.USD(b.ExportUSD), a.ExportUSD, b.ExportUSD)
	row("total", estimate.USD(a.TotalUSD), estimate.USD(b.TotalUSD), a.TotalUSD, b.TotalUSD)
	if a.Units > 0 && b.Units > 0 {
		unit := "business units"
		if a.Unit == b.Unit {
			unit = a.Unit
		}
		row("per 1,000 "+unit, estimate.USD(a.PerThousandUSD), estimate.USD(b.PerThousandUSD), a.PerThousandUSD, b.PerThousandUSD)
	}
	row(fmt.Sprintf("requests if provisioned at %s", estimate.Pct(a.Provisioned.Utilisation)), estimate.USD(a.Provisioned.USD), estimate.USD(b.Provisioned.USD), a.Provisioned.USD, b.Provisioned.USD)
	t.write(w)
}

// compareLabels names the two sides of a comparison: by their models'
// names, or by the files they were read from when the names are one
// ("ridehail vs ridehail" tells nothing), the files' base names unless
// those are one too.
func compareLabels(a, b *estimate.Bill) (string, string) {
	if a.Model != b.Model || a.Source == "" || b.Source == "" || a.Source == b.Source {
		return a.Model, b.Model
	}
	if la, lb := filepath.Base(a.Source), filepath.Base(b.Source); la != lb {
		return la, lb
	}
	return a.Source, b.Source
}

// ratio writes x / y as "40x", or "-" when either side is missing.
func ratio(x, y float64) string {
	if x == 0 || y == 0 {
		return "-"
	}
	r := x / y
	switch {
	case r >= 10:
		return estimate.Num(math.Round(r)) + "x"
	case r >= 0.1:
		return fmt.Sprintf("%.2fx", r)
	}
	return fmt.Sprintf("%.3gx", r)
}

// table lays out rows in columns: the first left-aligned, the others
// right-aligned (numbers), with a two-space indent and gutter. A row with
// one cell is a heading.
type table struct{ rows [][]string }

// add adds a row; each cell is one field of text output (Text).
func (t *table) add(cells ...string) {
	for i, c := range cells {
		cells[i] = Text(c)
	}
	t.rows = append(t.rows, cells)
}

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
