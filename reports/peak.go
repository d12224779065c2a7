package reports

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/internal/digits"
)

func (c *Check) peakSection() checkSection {
	p := c.Gate.Peaks
	return checkSection{
		key:   "peak",
		title: fmt.Sprintf("Peak: the hottest partition of each table and index at the declared peaks (limits %s WCU/s, %s RCU/s)", estimate.Num(p.WriteLimit), estimate.Num(p.ReadLimit)),
		data:  p,
		text: func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			for _, s := range p.Structures {
				name := s.Name()
				if s.Shards > 0 {
					name += " (" + digits.Count(s.Shards, "shard") + ")"
				}
				verdict := "PASS"
				if s.Write.Over() || s.Read.Over() {
					verdict = "FAIL"
				}
				if s.Write == nil && s.Read == nil {
					verdict = "no declared peak"
				}
				line := fmt.Sprintf("  %s\t%s\t%s\t%s", name, peakUnits(s.Write), peakUnits(s.Read), verdict)
				if src := peakSource(s); src != "" {
					line += "\t" + src
				}
				fmt.Fprintln(tw, line)
			}
			_ = tw.Flush()
			for _, s := range p.Structures {
				for _, a := range s.Assumptions() {
					fmt.Fprintf(w, "  assumed %s\n", a)
				}
			}
			for _, f := range c.Gate.Of(budget.FindingHot) {
				fmt.Fprintf(w, "  FAIL %s: %s\n", f.At.Where(), f.Text)
			}
		},
	}
}

// declared reports whether any declared peak touches a structure.
func (c *Check) declared() bool {
	for _, s := range c.Gate.Peaks.Structures {
		if s.Write != nil || s.Read != nil {
			return true
		}
	}
	return false
}

// peakUnits writes "125 WCU/s", or "-" with no declared peak.
func peakUnits(l *estimate.PeakLoad) string {
	if l == nil {
		return "-"
	}
	return estimate.Rate(l.Units) + " " + l.Unit + "/s"
}

// peakSource names what drives the structure nearest to its limit.
func peakSource(s estimate.PeakStructure) string {
	l := s.Write
	if l == nil || s.Read != nil && s.Read.Units/s.Read.Limit > l.Units/l.Limit {
		l = s.Read
	}
	if l == nil || len(l.Terms) == 0 {
		return ""
	}
	return l.Terms[0].Operation + " (" + l.Source + ")"
}
