package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/planner"
)

// Plan writes one plan, or two side by side (a first, b second), as text
// or JSON (the planner.Result itself; {"a": ..., "b": ...} for two).
func Plan(w io.Writer, format string, plans ...*planner.Result) error {
	switch {
	case format == "json" && len(plans) == 2:
		return planJSON(w, map[string]any{"a": plans[0], "b": plans[1]}, plans...)
	case format == "json":
		return planJSON(w, plans[0], plans...)
	case len(plans) == 2:
		planCompare(w, plans[0], plans[1])
	default:
		planText(w, plans[0])
	}
	return nil
}

// compactPoints is where a plan's JSON goes compact: past an hour of
// points per series, indentation would be most of the file.
const compactPoints = 3600

func planJSON(w io.Writer, v any, plans ...*planner.Result) error {
	for _, r := range plans {
		for _, x := range r.Resources {
			if len(x.Read) > compactPoints {
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				return enc.Encode(v)
			}
		}
	}
	return JSON(w, v)
}

func planText(w io.Writer, r *planner.Result) {
	w = TextOut(w)
	fmt.Fprintf(w, "Plan of %s, scenario %s: %s from %s, one point every %ds\n", Text(r.Model), r.Scenario,
		secondsWords(r.Seconds), r.Start.Format("2006-01-02 15:04:05 MST"), r.Resolution)
	for _, s := range r.WhatIf {
		fmt.Fprintf(w, "  what if: %s\n", s)
	}
	fmt.Fprintf(w, "Population: %s items placed from a sample of %s", num(r.Population.Items), num(float64(r.Population.Sampled)))
	if r.Population.Note != "" {
		fmt.Fprintf(w, " (%s)", Text(r.Population.Note))
	}
	fmt.Fprintln(w)
	verdict := "PASS"
	if r.Verdict.Throttled {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s %s\n", verdict, r.Verdict.Summary)

	fmt.Fprintln(w, "\nLoads")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  load\truns\trequests\tthrottled\tshape")
	for _, l := range r.Loads {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", l.Name, num(l.Runs), num(l.Requests), num(l.Throttled), l.Shape)
	}
	_ = tw.Flush()

	fmt.Fprintln(w, "\nTables and indexes (busiest second: demand against the table-level limit; partitions start -> end)")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  resource\tmode\tpartitions\tGB\tread peak / limit\twrite peak / limit\tthrottled read\tthrottled write")
	for _, x := range r.Resources {
		fmt.Fprintf(tw, "  %s\t%s\t%d -> %d\t%s\t%s / %s\t%s / %s\t%s\t%s\n", resName(x.Table, x.Index), x.Mode,
			x.PartitionsStart, x.PartitionsEnd, dec(x.SizeGB), num(x.PeakDemand.Read), num(limitAtPeak(x.Read)),
			num(x.PeakDemand.Write), num(limitAtPeak(x.Write)), num(x.Throttled.Read), num(x.Throttled.Write))
	}
	_ = tw.Flush()

	fmt.Fprintln(w, "\nHottest partitions (busiest second's demand against the partition's cap)")
	for _, x := range r.Resources {
		if len(x.Hottest) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s (caps %s read, %s write)\n", resName(x.Table, x.Index), num(x.PartitionRead), num(x.PartitionWrite))
		for i, p := range x.Hottest {
			if i == 3 {
				break
			}
			line := fmt.Sprintf("    %s-%s  read %s  write %s", p.Lo, p.Hi, num(p.PeakDemand.Read), num(p.PeakDemand.Write))
			if p.Throttled.Read+p.Throttled.Write > 0 {
				line += fmt.Sprintf("  throttled %s units from second %d", num(p.Throttled.Read+p.Throttled.Write), p.FirstThrottled)
			}
			if len(p.Keys) > 0 {
				line += "  keys: " + strings.Join(p.Keys, "; ")
			}
			fmt.Fprintln(w, line)
		}
	}

	if len(r.Throttled.Reasons) > 0 {
		fmt.Fprintln(w, "\nThrottled requests by reason")
		for _, k := range sortedReasons(r.Throttled.Reasons) {
			fmt.Fprintf(w, "  %s  %s\n", k, num(r.Throttled.Reasons[k]))
		}
	}
	if len(r.First) > 0 {
		fmt.Fprintln(w, "\nFirst second each limit refused")
		for _, f := range r.First {
			fmt.Fprintf(w, "  second %d (%s)  %s %s  %s  partition %s", f.Second, f.At.Format("15:04:05"), resName(f.Table, f.Index), f.Direction, f.Reason, f.Partition)
			if len(f.Keys) > 0 {
				fmt.Fprintf(w, "  keys: %s", strings.Join(f.Keys, "; "))
			}
			fmt.Fprintln(w)
		}
	}

	fmt.Fprintln(w, "\nWhat would throttle nothing")
	for _, a := range r.Advice.Warm {
		if a.Read+a.Write == 0 {
			continue
		}
		line := fmt.Sprintf("  %s: warm throughput %s read, %s write (started with %s, %s)", resName(a.Table, a.Index), num(a.Read), num(a.Write), num(a.StartRead), num(a.StartWrite))
		if a.Note != "" {
			line += " (" + Text(a.Note) + ")"
		}
		fmt.Fprintln(w, line)
	}
	for _, s := range r.Advice.Shards {
		if s.NoThrottle > 0 {
			fmt.Fprintf(w, "  %s: %s (planned with %d; tried %s)\n", s.Index, digits.Count(s.NoThrottle, "shard"), s.Planned, ints(s.Tried))
		} else {
			fmt.Fprintf(w, "  %s: no shard count up to %d stops its throttling (tried %s)\n", s.Index, maxInt(s.Tried), ints(s.Tried))
		}
	}
	fmt.Fprintf(w, "\nCost of the span: US$ %s (%s RRU, %s WRU; %s)\n", usd(r.Cost.USD), num(r.Cost.RRU), num(r.Cost.WRU), r.Cost.Basis)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", Text(n))
	}
}

func planCompare(w io.Writer, a, b *planner.Result) {
	w = TextOut(w)
	label := func(r *planner.Result) string {
		name := r.Model
		if a.File != b.File && r.File != "" {
			// Two files (often copies of one model): the file says which.
			name += " (" + r.File + ")"
		}
		if len(r.WhatIf) == 0 {
			return name + " as declared"
		}
		return name + ": " + strings.Join(r.WhatIf, ", ")
	}
	fmt.Fprintf(w, "Plans of scenario %s side by side\n  A: %s\n  B: %s\n\n", a.Scenario, label(a), label(b))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tA\tB")
	verdict := func(r *planner.Result) string {
		if r.Verdict.Throttled {
			return "FAIL"
		}
		return "PASS"
	}
	fmt.Fprintf(tw, "  verdict\t%s\t%s\n", verdict(a), verdict(b))
	fmt.Fprintf(tw, "  throttled requests\t%s\t%s\n", num(a.Throttled.Requests), num(b.Throttled.Requests))
	first := func(r *planner.Result) string {
		if len(r.First) == 0 {
			return "-"
		}
		f := r.First[0]
		return fmt.Sprintf("second %d, %s %s", f.Second, resName(f.Table, f.Index), f.Reason)
	}
	fmt.Fprintf(tw, "  first limit hit\t%s\t%s\n", first(a), first(b))
	fmt.Fprintf(tw, "  US$ of the span\t%s\t%s\n", usd(a.Cost.USD), usd(b.Cost.USD))
	for _, x := range a.Resources {
		var y *planner.Resource
		for i := range b.Resources {
			if b.Resources[i].Table == x.Table && b.Resources[i].Index == x.Index {
				y = &b.Resources[i]
			}
		}
		if y == nil || x.PeakDemand.Read+x.PeakDemand.Write+y.PeakDemand.Read+y.PeakDemand.Write == 0 {
			continue
		}
		n := resName(x.Table, x.Index)
		fmt.Fprintf(tw, "  %s write peak / throttled\t%s / %s\t%s / %s\n", n, num(x.PeakDemand.Write), num(x.Throttled.Write), num(y.PeakDemand.Write), num(y.Throttled.Write))
		fmt.Fprintf(tw, "  %s read peak / throttled\t%s / %s\t%s / %s\n", n, num(x.PeakDemand.Read), num(x.Throttled.Read), num(y.PeakDemand.Read), num(y.Throttled.Read))
		fmt.Fprintf(tw, "  %s partitions end\t%d\t%d\n", n, x.PartitionsEnd, y.PartitionsEnd)
	}
	for i, l := range a.Loads {
		if i < len(b.Loads) {
			fmt.Fprintf(tw, "  %s throttled\t%s\t%s\n", l.Name, num(l.Throttled), num(b.Loads[i].Throttled))
		}
	}
	_ = tw.Flush()
}

// limitAtPeak is the table-level limit of the busiest point.
func limitAtPeak(s []planner.Point) float64 {
	best, lim := -1.0, 0.0
	for _, p := range s {
		if p.Demand > best {
			best, lim = p.Demand, p.Limit
		}
	}
	return lim
}

func resName(table, index string) string {
	if index == "" {
		return table
	}
	return table + "/" + index
}

func sortedReasons(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if m[ks[i]] != m[ks[j]] {
			return m[ks[i]] > m[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

func secondsWords(s int) string {
	switch {
	case s%3600 == 0:
		return strconv.Itoa(s/3600) + " h"
	case s%60 == 0:
		return strconv.Itoa(s/60) + " min"
	}
	return strconv.Itoa(s) + " s"
}

func dec(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func usd(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func ints(xs []int) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ", ")
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
