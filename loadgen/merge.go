package loadgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cardapio/cardapio/internal/files"
)

// maxResultLine caps one line of a results file (a summary with its
// histograms and dead letters is the longest).
const maxResultLine = 64 << 20

// ReadSummary reads a results file (--results): the summary on its last
// summary line. A file without one is a part that did not finish.
func ReadSummary(name string, r io.Reader) (*Summary, error) {
	var last *Summary
	err := resultLines(name, r, func(line int, typ string, b []byte) error {
		if typ != "summary" {
			return nil
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%s:%d: the summary: %v", name, line, err)
		}
		last = &s
		return nil
	})
	if err != nil {
		return nil, err
	}
	if last == nil {
		return nil, fmt.Errorf("%s: no summary line: that part did not finish (its seconds are in the file)", name)
	}
	return last, nil
}

// resultLines calls f with each line of a results file, numbered from 1,
// and its type; a line that is not a JSON object with a type, or one
// longer than maxResultLine, is an error naming the file and line.
func resultLines(name string, r io.Reader, f func(line int, typ string, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxResultLine)
	line := 0
	for sc.Scan() {
		line++
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			return fmt.Errorf("%s:%d: not a line of a results file: %v", name, line, err)
		}
		if err := f(line, head.Type, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// MergeFiles reads the results files of the parts of one run and merges
// them (Merge).
func MergeFiles(paths []string) (*Summary, error) {
	var parts []*Summary
	for _, p := range paths {
		f, err := files.Open(p)
		if err != nil {
			return nil, err
		}
		s, err := ReadSummary(p, f)
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	return Merge(parts)
}

// Merge combines the summaries of the parts of one run (--part i/n): the
// counts added, the latency histograms merged exactly (HdrHistogram) and
// their percentiles read again, the join invariants completed from the
// parts' partial groups, the other invariants' violations added. The
// parts must be of one scenario, model, scale and number of parts, each
// part once; a missing part is said in the notes and fails the merge's
// verdict. Peak units a second are added across parts: an upper bound
// of the run's peak (the parts' seconds are not aligned).
func Merge(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := parts[0]
	seen, err := sameRun(parts)
	if err != nil {
		return nil, err
	}
	out := &Summary{Scenario: first.Scenario, Model: first.Model, File: first.File, Part: 0, Parts: first.Parts, Scale: first.Scale,
		PopulationScale: first.PopulationScale, Speed: first.Speed, Seed: first.Seed, AsOf: first.AsOf, Target: first.Target, Retry: first.Retry,
		Keys: first.Keys, Throughput: first.Throughput, Tables: first.Tables, Operations: map[string]*LoadStats{}, Throttles: map[string]int64{},
		Units: map[string]Units{}, Histograms: map[string]string{}}
	out.Population.ByTable = map[string]int64{}
	out.Population.Subjects = map[string]int64{}
	out.Population.Largest = first.Population.Largest
	out.Population.Loaded, out.Population.Existing = first.Population.Loaded, first.Population.Existing
	out.Merged = len(parts)
	var missing []string
	for i := 0; i < first.Parts; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("parts missing: %s of %d; the figures are those of the parts given", strings.Join(missing, ", "), first.Parts))
	}
	out.ClockStart, out.ClockEnd = first.ClockStart, first.ClockEnd
	hists := map[string]*hdr.Histogram{}
	invs := invariantSum{byName: map[string]*InvariantResult{}, groups: map[string]map[string][3]float64{}}
	expects := expectSum{byText: map[string]*ExpectResult{}}
	for _, p := range parts {
		if p.ClockStart < out.ClockStart {
			out.ClockStart = p.ClockStart
		}
		if p.ClockEnd > out.ClockEnd {
			out.ClockEnd = p.ClockEnd
		}
		out.WallSeconds = math.Max(out.WallSeconds, p.WallSeconds)
		out.SetupSeconds = math.Max(out.SetupSeconds, p.SetupSeconds)
		out.RunSeconds = math.Max(out.RunSeconds, p.RunSeconds)
		out.Interrupted = out.Interrupted || p.Interrupted
		out.Behind.Late += p.Behind.Late
		out.Behind.MaxMs = math.Max(out.Behind.MaxMs, p.Behind.MaxMs)
		out.Behind.P99Ms = math.Max(out.Behind.P99Ms, p.Behind.P99Ms)
		out.Behind.LimitMs = p.Behind.LimitMs
		out.Behind.Exceeded = out.Behind.Exceeded || p.Behind.Exceeded
		addOperations(out.Operations, p.Operations)
		for name, enc := range p.Histograms {
			h, err := decodeHist(enc)
			if err != nil {
				return nil, fmt.Errorf("part %d, load %s: %w", p.Part, name, err)
			}
			if hists[name] == nil {
				hists[name] = newHist()
			}
			hists[name].Merge(h)
		}
		for k, v := range p.Throttles {
			out.Throttles[k] += v
		}
		out.DeadLettered += p.DeadLettered
		out.Replayed += p.Replayed
		out.DeadLetters = append(out.DeadLetters, p.DeadLetters...)
		out.DeadLetterLines += p.DeadLetterLines
		for u, v := range p.Units {
			out.Units[u] = addUnits(out.Units[u], v)
		}
		out.Partitions = append(out.Partitions, p.Partitions...)
		out.Population.Items += p.Population.Items
		out.Population.Verified += p.Population.Verified
		out.Population.WriteUnits += p.Population.WriteUnits
		out.Population.CostUSD += p.Population.CostUSD
		out.Population.Requests += p.Population.Requests
		out.Population.Throttled += p.Population.Throttled
		for k, v := range p.Population.ByTable {
			out.Population.ByTable[k] += v
		}
		// Every part numbers the whole population's subjects.
		for k, v := range p.Population.Subjects {
			out.Population.Subjects[k] = max(out.Population.Subjects[k], v)
		}
		invs.add(p)
		expects.add(p)
		out.Notes = append(out.Notes, prefixed(fmt.Sprintf("part %d: ", p.Part), p.Notes)...)
	}
	for name, h := range hists {
		out.Histograms[name] = encodeHist(h)
		if m := out.Operations[name]; m != nil {
			m.LatencyMs = latencyOf(h)
		}
	}
	out.Invariants = invs.results()
	out.Expectations = expects.results()
	if len(out.Expectations) > 0 {
		out.Notes = append(out.Notes, "expectations are each part's verdicts combined (one that fails in a part fails the run)")
	}
	sort.SliceStable(out.Partitions, func(i, j int) bool { return out.Partitions[i].WriteDemand > out.Partitions[j].WriteDemand })
	if len(out.Partitions) > 20 {
		out.Partitions = out.Partitions[:20]
	}
	finishOK(out)
	if len(missing) > 0 {
		out.OK = false
	}
	return out, nil
}

// sameRun checks that the parts are of one run (scenario, model, scale,
// parts, seed), each given once, and returns the parts given.
func sameRun(parts []*Summary) (map[int]bool, error) {
	first := parts[0]
	seen := map[int]bool{}
	for _, p := range parts {
		if p.Scenario != first.Scenario || p.Model != first.Model || p.Scale != first.Scale || p.Parts != first.Parts || p.Seed != first.Seed ||
			p.PopulationScale != first.PopulationScale || p.AsOf != first.AsOf {
			return nil, fmt.Errorf("part %d/%d (%s of %s, scale %g, population %g, seed %d, as of %s) is not of the same run as part %d/%d (%s of %s, scale %g, population %g, seed %d, as of %s)",
				p.Part, p.Parts, p.Scenario, p.Model, p.Scale, p.PopulationScale, p.Seed, p.AsOf, first.Part, first.Parts, first.Scenario, first.Model, first.Scale, first.PopulationScale, first.Seed, first.AsOf)
		}
		if seen[p.Part] {
			return nil, fmt.Errorf("part %d/%d given twice", p.Part, p.Parts)
		}
		seen[p.Part] = true
	}
	return seen, nil
}

// addOperations adds a part's load statistics to the sums, load by load.
func addOperations(out, part map[string]*LoadStats) {
	for name, o := range part {
		m := out[name]
		if m == nil {
			m = &LoadStats{Operation: o.Operation, Outcomes: map[string]int64{}}
			out[name] = m
		}
		m.Offered += o.Offered
		m.Attempted += o.Attempted
		m.Completed += o.Completed
		m.Late += o.Late
		m.Retried += o.Retried
		m.Rereads += o.Rereads
		m.Duplicates += o.Duplicates
		m.DeadLettered += o.DeadLettered
		m.Replayed += o.Replayed
		addCounts(&m.Outcomes, o.Outcomes)
		addCounts(&m.Throttles, o.Throttles)
		addCounts(&m.Requests, o.Requests)
		m.BehindMs.Max = math.Max(m.BehindMs.Max, o.BehindMs.Max)
		for u, v := range o.Units {
			if m.Units == nil {
				m.Units = map[string]Units{}
			}
			m.Units[u] = addUnits(m.Units[u], v)
		}
	}
}

// invariantSum adds up the parts' invariant results and, for a sum over
// the whole, their groups, which only the merge can judge.
type invariantSum struct {
	byName map[string]*InvariantResult
	order  []string
	groups map[string]map[string][3]float64
}

func (s *invariantSum) add(p *Summary) {
	for _, v := range p.Invariants {
		r := s.byName[v.Name]
		if r == nil {
			r = &InvariantResult{Name: v.Name, Description: v.Description, Pending: v.Pending}
			s.byName[v.Name] = r
			s.order = append(s.order, v.Name)
		}
		r.Checked += v.Checked
		r.Violations += v.Violations
		r.Refused += v.Refused
		for _, d := range v.Details {
			if len(r.Details) < maxDetails {
				r.Details = append(r.Details, d)
			}
		}
	}
	for name, gs := range p.Groups {
		dst := s.groups[name]
		if dst == nil {
			dst = map[string][3]float64{}
			s.groups[name] = dst
		}
		for k, g := range gs {
			d := dst[k]
			d[0] += g[0]
			switch g[2] {
			case constGroup:
				// A constant is the same in every part.
				d[1], d[2] = g[1], constGroup
			case 1:
				d[1] += g[1]
				d[2] = 1
			}
			dst[k] = d
		}
	}
}

// results judges every pending sum on the merged groups and returns the
// invariants in the order the parts gave them.
func (s *invariantSum) results() []InvariantResult {
	var out []InvariantResult
	for _, name := range s.order {
		r := s.byName[name]
		if gs, ok := s.groups[name]; ok && r.Pending {
			r.Pending = false
			r.Checked, r.Violations, r.Details = 0, 0, nil
			for _, k := range sortedNames(gs) {
				g := gs[k]
				if g[2] == 0 {
					continue
				}
				r.Checked++
				if math.Abs(g[0]-g[1]) > 1e-9 {
					r.Violations++
					if len(r.Details) < maxDetails {
						r.Details = append(r.Details, Violation{Keys: k, Message: fmt.Sprintf("%s of the parts' items, against %s", num(g[0]), num(g[1]))})
					}
				}
			}
		}
		out = append(out, *r)
	}
	return out
}

// expectSum combines the parts' expectation verdicts: one that fails in a
// part fails the run.
type expectSum struct {
	byText map[string]*ExpectResult
	order  []string
}

func (s *expectSum) add(p *Summary) {
	for _, x := range p.Expectations {
		e := s.byText[x.Text]
		if e == nil {
			cp := x
			cp.Checks = nil
			cp.OK = true
			s.byText[x.Text] = &cp
			e = &cp
			s.order = append(s.order, x.Text)
		}
		e.Applies = e.Applies || x.Applies
		e.Checked = e.Checked || x.Checked
		e.OK = e.OK && (!x.Applies || x.OK)
	}
}

func (s *expectSum) results() []ExpectResult {
	var out []ExpectResult
	for _, t := range s.order {
		out = append(out, *s.byText[t])
	}
	return out
}

func addCounts(dst *map[string]int64, src map[string]int64) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = map[string]int64{}
	}
	for k, v := range src {
		(*dst)[k] += v
	}
}

func addUnits(a, b Units) Units {
	return Units{Index: a.Index || b.Index, Read: a.Read + b.Read, Write: a.Write + b.Write,
		PeakRead: a.PeakRead + b.PeakRead, PeakWrite: a.PeakWrite + b.PeakWrite,
		PeakReadAWS: a.PeakReadAWS + b.PeakReadAWS, PeakWriteAWS: a.PeakWriteAWS + b.PeakWriteAWS}
}

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}
