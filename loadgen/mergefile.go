package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cardapio/cardapio/internal/files"
)

// A run split over machines (--part i/n) leaves a results file a part;
// MergeResults makes the one results file of the whole run from them:
// its start line, its seconds (the parts' lines of the same instant of
// the scenario's clock added, their histograms merged), every part's
// ledger and the merged summary, so that cardapio load check and
// cardapio report read the merged run as they read one.

// Part environment variables: the index of an array job's task, which
// --part auto/n takes as the part.
const (
	EnvK8sIndex   = "JOB_COMPLETION_INDEX"      // a Kubernetes Indexed Job
	EnvBatchIndex = "AWS_BATCH_JOB_ARRAY_INDEX" // an AWS Batch array job
)

// ParsePart reads --part: "i/n" (0 <= i < n), or "auto/n", which takes i
// from the scheduler's environment (getenv): JOB_COMPLETION_INDEX, else
// AWS_BATCH_JOB_ARRAY_INDEX. The error is bad input.
func ParsePart(s string, getenv func(string) string) (part, parts int, err error) {
	a, b, ok := strings.Cut(s, "/")
	n, nerr := strconv.Atoi(b)
	if !ok || nerr != nil || n < 1 || n > 1_000_000 {
		return 0, 0, inputErr("--part must be i/n or auto/n with 0 <= i < n, not %q", s)
	}
	from := ""
	if a == "auto" {
		for _, v := range []string{EnvK8sIndex, EnvBatchIndex} {
			if getenv(v) != "" {
				a, from = getenv(v), v
				break
			}
		}
		if from == "" {
			return 0, 0, inputErr("--part %s: neither %s (a Kubernetes Indexed Job) nor %s (an AWS Batch array job) is set", s, EnvK8sIndex, EnvBatchIndex)
		}
	}
	i, ierr := strconv.Atoi(a)
	if ierr != nil || i < 0 || i >= n {
		if from != "" {
			return 0, 0, inputErr("--part %s: %s is %q, not an index from 0 to %d", s, from, a, n-1)
		}
		return 0, 0, inputErr("--part must be i/n or auto/n with 0 <= i < n, not %q", s)
	}
	return i, n, nil
}

// PartPath puts a part's index in a file name: {part} becomes i.
func PartPath(name string, part int) string {
	return strings.ReplaceAll(name, "{part}", strconv.Itoa(part))
}

// ResultPaths expands merge's arguments: a directory stands for the
// results files (*.jsonl) in it, in name order.
func ResultPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		ms, err := filepath.Glob(filepath.Join(a, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%s: no results files (*.jsonl) in the directory", a)
		}
		sort.Strings(ms)
		out = append(out, ms...)
	}
	return out, nil
}

// MergeResults merges the parts' results files into one summary and,
// when w is set, writes the merged run's results file to it.
func MergeResults(paths []string, w io.Writer) (*Summary, error) {
	sum, err := MergeFiles(paths)
	if err != nil || w == nil {
		return sum, err
	}
	var start *Start
	seconds := map[string]*Second{}
	hists := map[string]map[string]*hdr.Histogram{} // clock -> load
	for _, p := range paths {
		f, err := files.Open(p)
		if err != nil {
			return nil, err
		}
		err = resultLines(p, f, func(line int, typ string, b []byte) error {
			switch typ {
			case "start":
				if start == nil {
					start = &Start{}
					if err := json.Unmarshal(b, start); err != nil {
						return fmt.Errorf("%s:%d: %v", p, line, err)
					}
				}
			case "second":
				var s Second
				if err := json.Unmarshal(b, &s); err != nil {
					return fmt.Errorf("%s:%d: %v", p, line, err)
				}
				if err := addSecond(seconds, hists, &s); err != nil {
					return fmt.Errorf("%s:%d: %v", p, line, err)
				}
			}
			return nil
		})
		_ = f.Close()
		if err != nil {
			return nil, err
		}
	}
	st := newStream(w)
	if start != nil {
		start.Part, start.Parts = 0, sum.Parts
		st.write(start)
	}
	clocks := sortedNames(seconds)
	for _, c := range clocks {
		s := seconds[c]
		for name, h := range hists[c] {
			s.Loads[name].Hist = encodeHist(h)
			s.Loads[name].LatencyMs = latencyOf(h)
		}
		st.write(s)
	}
	// The parts' ledgers, read again rather than held: a long run's
	// may not fit in memory.
	for _, p := range paths {
		f, err := files.Open(p)
		if err != nil {
			return nil, err
		}
		err = resultLines(p, f, func(_ int, typ string, b []byte) error {
			if typ == "ledger" || typ == "deadLetters" {
				st.write(json.RawMessage(b))
			}
			return nil
		})
		_ = f.Close()
		if err != nil {
			return nil, err
		}
	}
	st.write(summaryLine{Type: "summary", Summary: sum})
	return sum, nil
}

// addSecond adds one part's second to the merged second of the same
// instant of the scenario's clock.
func addSecond(seconds map[string]*Second, hists map[string]map[string]*hdr.Histogram, s *Second) error {
	m := seconds[s.Clock]
	if m == nil {
		m = &Second{Type: "second", Clock: s.Clock, Loads: map[string]*SecondLoad{}, Units: map[string]*SecondUnits{}}
		seconds[s.Clock] = m
		hists[s.Clock] = map[string]*hdr.Histogram{}
	}
	m.Wall = max(m.Wall, s.Wall)
	m.ClockSeconds = max(m.ClockSeconds, s.ClockSeconds)
	m.InFlight += s.InFlight
	for name, l := range s.Loads {
		d := m.Loads[name]
		if d == nil {
			d = &SecondLoad{}
			m.Loads[name] = d
		}
		d.Offered += l.Offered
		d.Attempted += l.Attempted
		d.Completed += l.Completed
		d.Late += l.Late
		d.DeadLettered += l.DeadLettered
		addCounts(&d.Outcomes, l.Outcomes)
		if l.Hist != "" {
			h, err := decodeHist(l.Hist)
			if err != nil {
				return err
			}
			if hists[s.Clock][name] == nil {
				hists[s.Clock][name] = newHist()
			}
			hists[s.Clock][name].Merge(h)
		}
	}
	for name, u := range s.Units {
		d := m.Units[name]
		if d == nil {
			d = &SecondUnits{Index: u.Index}
			m.Units[name] = d
		}
		d.Read += u.Read
		d.Write += u.Write
		d.ReadLimit, d.WriteLimit = addPtr(d.ReadLimit, u.ReadLimit), addPtr(d.WriteLimit, u.WriteLimit)
		d.ReadThrottled, d.WriteThrottled = addPtr(d.ReadThrottled, u.ReadThrottled), addPtr(d.WriteThrottled, u.WriteThrottled)
	}
	return nil
}

func addPtr(a, b *float64) *float64 {
	if b == nil {
		return a
	}
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}
