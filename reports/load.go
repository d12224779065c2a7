package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/loadgen"
)

// LoadText prints a load run's summary for people: the run, each load's
// offered, attempted and completed arrivals, outcomes and latency, the
// throttling by reason, the dead-letter ledger, units and the hottest
// partitions, the invariants with their violations' keys, and the
// expectations.
func LoadText(w io.Writer, s *loadgen.Summary) {
	w = TextOut(w)
	verdict := "ok"
	if !s.OK {
		verdict = "FAILED"
	}
	part := ""
	switch {
	case s.Merged > 0:
		part = fmt.Sprintf(", %d of %s merged", s.Merged, digits.Count(s.Parts, "part"))
	case s.Parts > 1:
		part = fmt.Sprintf(", part %d/%d", s.Part, s.Parts)
	}
	speed := "as fast as the target answers"
	if s.Speed > 0 {
		speed = fmt.Sprintf("speed %gx", s.Speed)
	}
	fmt.Fprintf(w, "%s: scenario %s on %s, scale %g, %s%s: %s\n", Text(s.Model), s.Scenario, s.Target, s.Scale, speed, part, verdict)
	fmt.Fprintf(w, "  retry policy: %s\n", s.Retry)
	if s.Throughput != "" {
		fmt.Fprintf(w, "  %s\n", s.Throughput)
	}
	if s.Population.Existing {
		fmt.Fprintf(w, "  scenario clock %s to %s; %.1fs of wall time (%.1fs of setup against the tables' population, nothing written; %s verified)\n",
			s.ClockStart, s.ClockEnd, s.WallSeconds, s.SetupSeconds, digits.Count(s.Population.Verified, "sampled item"))
	} else {
		fmt.Fprintf(w, "  scenario clock %s to %s; %.1fs of wall time (%.1fs loading %s)\n", s.ClockStart, s.ClockEnd, s.WallSeconds, s.SetupSeconds, digits.Count(s.Population.Items, "item"))
	}
	if s.Interrupted {
		fmt.Fprintln(w, "  INTERRUPTED: a partial report")
	}
	b := s.Behind
	fmt.Fprintf(w, "  generator: %s late, at most %.1f ms behind (p99 %.1f ms)", digits.Count(b.Late, "arrival"), b.MaxMs, b.P99Ms)
	if b.LimitMs > 0 {
		fmt.Fprintf(w, ", limit %.0f ms", b.LimitMs)
		if b.Exceeded {
			fmt.Fprint(w, ": FELL BEHIND (the client, not the server, is the limit)")
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "\nloads")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  load\toffered\tattempted\tcompleted\tlate\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	for _, n := range slices.Sorted(maps.Keys(s.Operations)) {
		o := s.Operations[n]
		l := o.LatencyMs
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", n, o.Offered, o.Attempted, o.Completed, o.Late, l.P50, l.P90, l.P99, l.P999, l.Max)
	}
	tw.Flush()
	fmt.Fprintln(w, "\noutcomes")
	for _, n := range slices.Sorted(maps.Keys(s.Operations)) {
		o := s.Operations[n]
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(o.Outcomes)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, o.Outcomes[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(o.Throttles)) {
			parts = append(parts, fmt.Sprintf("throttled by %s %d", k, o.Throttles[k]))
		}
		if o.DeadLettered > 0 {
			parts = append(parts, fmt.Sprintf("dead-lettered %d", o.DeadLettered))
		}
		if o.Replayed > 0 {
			parts = append(parts, fmt.Sprintf("replayed %d", o.Replayed))
		}
		if o.Duplicates > 0 {
			parts = append(parts, fmt.Sprintf("duplicates sent %d", o.Duplicates))
		}
		fmt.Fprintf(w, "  %s: %s\n", n, strings.Join(parts, ", "))
	}
	if len(s.Throttles) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.Throttles)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.Throttles[k]))
		}
		fmt.Fprintf(w, "\nthrottled requests by reason: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "dead-letter ledger: %s, %d replayed\n", digits.Count(s.DeadLettered, "message"), s.Replayed)

	if len(s.Units) > 0 {
		fmt.Fprintln(w, "\nconsumed units (local; peak a second, and at full scale)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  table or index\tRRU\tWRU\tpeak RRU/s\tpeak WRU/s\tpeak WRU/s full scale\t")
		for _, n := range slices.Sorted(maps.Keys(s.Units)) {
			u := s.Units[n]
			fmt.Fprintf(tw, "  %s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", n, u.Read, u.Write, u.PeakRead, u.PeakWrite, u.PeakWriteAWS)
		}
		tw.Flush()
	}
	if len(s.Partitions) > 0 {
		fmt.Fprintln(w, "\nhottest partitions (demand a second at full scale)")
		for _, p := range s.Partitions {
			res := p.Table
			if p.Index != "" {
				res += "/" + p.Index
			}
			keys := ""
			if len(p.Keys) > 0 {
				keys = " keys " + strings.Join(p.Keys, ", ")
			}
			crowded := ""
			if p.Crowded > 1 {
				crowded = fmt.Sprintf("; up to %.4gx above full scale: subjects drawn at random from a smaller population", p.Crowded)
			}
			fmt.Fprintf(w, "  %s: write %.0f/s, read %.0f/s, throttled %.0f write, %.0f read units (%s%s)%s\n", res, p.WriteDemand, p.ReadDemand, p.WriteThrottled, p.ReadThrottled, p.From, crowded, keys)
		}
	}

	fmt.Fprintln(w, "\ninvariants")
	invariantsText(w, s.Invariants, s.Interrupted)
	if len(s.Expectations) > 0 {
		fmt.Fprintln(w, "\nexpectations")
		for _, x := range s.Expectations {
			state := "ok"
			switch {
			case !x.Applies:
				state = "does not apply"
			case !x.Checked:
				state = "not checkable (prose)"
			case !x.OK:
				state = "FAILED"
			}
			fmt.Fprintf(w, "  %s: %s\n", Text(x.Text), state)
			for _, c := range x.Checks {
				if !x.Applies {
					continue
				}
				val := "n/a"
				if c.Value != nil {
					val = fmt.Sprintf("%g", *c.Value)
				}
				bound := ""
				if c.Max != nil {
					bound += fmt.Sprintf(" max %g", *c.Max)
				}
				if c.Min != nil {
					bound += fmt.Sprintf(" min %g", *c.Min)
				}
				mark := "ok"
				if !c.OK {
					mark = "FAIL"
				}
				note := ""
				if c.Note != "" {
					note = " (" + Text(c.Note) + ")"
				}
				fmt.Fprintf(w, "    %s %s: %s%s%s\n", mark, c.What, val, bound, note)
			}
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", Text(n))
	}
}

// LoadStatus rewrites a terminal's status line with a run's live state.
func LoadStatus(w io.Writer, s loadgen.Status) {
	switch s.Phase {
	case "loading":
		fmt.Fprintf(w, "\r\033[Kloading the population: %d/%d items, %.0fs", s.Loaded, s.ToLoad, s.Wall.Seconds())
	case "checking":
		fmt.Fprintf(w, "\r\033[Kchecking the invariants, %.0fs", s.Wall.Seconds())
	default:
		fmt.Fprintf(w, "\r\033[K%s  offered %d  completed %d  in flight %d  late %d (behind %s)  throttled %d  dead %d  %.0fs",
			s.Clock.Format("15:04:05"), s.Offered, s.Completed, s.InFlight, s.Late, s.Behind.Round(1e6), s.Throttled, s.Dead, s.Wall.Seconds())
	}
}

// WriteJSONFile writes v as one indented JSON document, whole or not at
// all.
func WriteJSONFile(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return files.Write(path, b.Bytes())
}

// invariantsText prints invariants' verdicts, each violation with its
// keys.
func invariantsText(w io.Writer, invs []loadgen.InvariantResult, interrupted bool) {
	for _, v := range invs {
		state := "ok"
		switch {
		case v.Pending:
			state = "pending (completed by load merge)"
		case v.Violations > 0:
			state = "VIOLATED " + digits.Count(v.Violations, "time")
		case v.Unchecked != "":
			fmt.Fprintf(w, "  %s: NOT CHECKED: %s\n", v.Name, Text(v.Unchecked))
			continue
		case interrupted:
			state = "not checked"
		}
		refused := ""
		if v.Refused > 0 {
			refused = fmt.Sprintf(", %d refused by the operation's declared stop", v.Refused)
		}
		fmt.Fprintf(w, "  %s: %s (%d checked%s)\n", v.Name, state, v.Checked, refused)
		for _, d := range v.Details {
			fmt.Fprintf(w, "    %s: %s\n", d.Keys, d.Message)
		}
		if int64(len(v.Details)) < v.Violations {
			fmt.Fprintf(w, "    ... and %d more\n", v.Violations-int64(len(v.Details)))
		}
	}
}

// LoadCheckText prints what cardapio load check found: the tables read,
// the ledger, each invariant's verdict with its violations' keys, and
// those it could not check and why.
func LoadCheckText(w io.Writer, r *loadgen.CheckReport) {
	w = TextOut(w)
	verdict := "ok"
	switch {
	case !r.OK:
		verdict = "FAILED"
	case r.Unchecked > 0:
		verdict = fmt.Sprintf("ok, %d of %s not checked", r.Unchecked, digits.Count(len(r.Invariants), "invariant"))
	}
	fmt.Fprintf(w, "%s: invariants on %s: %s\n", Text(r.Model), r.Target, verdict)
	names := make([]string, 0, len(r.Tables))
	for k := range r.Tables {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  table %s: %s\n", k, r.Tables[k])
	}
	if len(r.Results) > 0 {
		fmt.Fprintf(w, "  ledger: %s and %s from %s\n", digits.Count(r.Messages, "message"), digits.Count(r.Writes, "version-guarded write"), strings.Join(r.Results, ", "))
	} else {
		fmt.Fprintln(w, "  ledger: none (no --results file)")
	}
	fmt.Fprintln(w, "\ninvariants")
	invariantsText(w, r.Invariants, false)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", Text(n))
	}
}
