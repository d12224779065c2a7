package dataset

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/internal/digits"
)

// Summary is what a run made and what it would cost in DynamoDB, set
// against what the model declares.
type Summary struct {
	Model   string          `json:"model"`
	Seed    uint64          `json:"seed"`
	Scale   float64         `json:"scale"`
	AsOf    string          `json:"asOf"`
	Part    int             `json:"part"`
	Parts   int             `json:"parts"`
	Items   int64           `json:"items"`
	Raw     int64           `json:"rawBytes"` // uncompressed lines
	Seconds float64         `json:"seconds"`
	PerSec  float64         `json:"itemsPerSecond"`
	MBPerS  float64         `json:"mbPerSecond"` // uncompressed MB (10^6 B) a second
	Entity  []EntitySummary `json:"entities"`
	Tables  []TableSummary  `json:"tables"`
	Skipped []Skip          `json:"skipped,omitempty"`
	Prices  string          `json:"prices"`
}

// EntitySummary is one entity's share.
type EntitySummary struct {
	Entity string `json:"entity"`
	Table  string `json:"table"`
	Items  int64  `json:"items"`
	// Declared is the population the model declares, at the run's scale
	// (and part), as cost works it out; -1 when unknown.
	Declared    float64 `json:"declared"`
	ItemBytes   int64   `json:"itemBytes"`
	StoredBytes int64   `json:"storedBytes"`
	// CostStored is the stored size cost gives each item: the mean of
	// the items Measure draws, else the entity's first sample's; 0 when
	// cost cannot size it. CostMeasured says which.
	CostStored   int     `json:"costStoredBytes"`
	CostMeasured bool    `json:"costMeasured,omitempty"`
	P50          int     `json:"p50"`
	P90          int     `json:"p90"`
	P99          int     `json:"p99"`
	Max          int     `json:"max"`
	WriteUnits   float64 `json:"writeUnits"`
	Dropped      int64   `json:"dropped,omitempty"`
	KeyErrors    int64   `json:"keyErrors,omitempty"`
}

// TableSummary is one table's storage and load figures.
type TableSummary struct {
	Table       string  `json:"table"`
	Class       string  `json:"class"`
	Items       int64   `json:"items"`
	ItemBytes   int64   `json:"itemBytes"`
	StoredBytes int64   `json:"storedBytes"`
	GB          float64 `json:"gb"`
	StandardUSD float64 `json:"standardUsdMonth"`
	IAUSD       float64 `json:"iaUsdMonth"`
	LoadWRU     float64 `json:"loadWriteUnits"`
	LoadUSD     float64 `json:"loadUsd"`
	ImportGB    float64 `json:"importGB"`
	ImportUSD   float64 `json:"importUsd"`
	// DeclaredGB is the table's sizeGB at the run's scale; CostGB what
	// cost computes from populations and item sizes; nil/0 when absent.
	DeclaredGB *float64 `json:"declaredGB,omitempty"`
	CostGB     float64  `json:"costGB"`
	Why        []string `json:"why,omitempty"`
}

// Summarize turns a run's figures into its summary, priced with prices.
func (r *Result) Summarize(prices capacity.Prices) Summary {
	p := r.Pop
	m := p.Model
	est := estimate.New(m, capacity.Default())
	measured := r.CostSizes()
	frac := r.fraction()
	s := Summary{Model: m.Name, Seed: p.Opts.Seed, Scale: p.Opts.Scale, AsOf: p.AsOf.Format("2006-01-02"), Part: r.Part, Parts: r.Parts,
		Seconds: r.Elapsed.Seconds(), Skipped: p.Skipped, Raw: r.Raw,
		Prices: fmt.Sprintf("%s prices of %s", prices.Region, prices.Date)}
	for i, n := range p.Nodes {
		st := r.Stats[i]
		h := r.Hist[i]
		es := EntitySummary{Entity: n.Name(), Items: st.Items, ItemBytes: st.ItemBytes, StoredBytes: st.StoredBytes,
			P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), Max: h.Max(), WriteUnits: st.WriteUnits,
			Dropped: st.Dropped, KeyErrors: st.KeyErrors, Declared: -1}
		if t := n.Entity.Table; t != nil {
			es.Table = t.Name
		}
		if d, ok := est.Population(n.Entity); ok {
			if n.Rules != nil && n.Rules.Each != "" {
				es.Declared = d * frac
			} else {
				es.Declared = d * p.Opts.Scale * frac
			}
		}
		s.Items += st.Items
		s.Entity = append(s.Entity, es)
	}
	if s.Seconds > 0 {
		s.PerSec = float64(s.Items) / s.Seconds
		s.MBPerS = float64(s.Raw) / 1e6 / s.Seconds
	}
	for _, t := range m.Tables {
		ts := TableSummary{Table: t.Name, Class: estimate.Class(t).String()}
		for _, es := range s.Entity {
			if es.Table != t.Name {
				continue
			}
			ts.Items += es.Items
			ts.ItemBytes += es.ItemBytes
			ts.StoredBytes += es.StoredBytes
			ts.LoadWRU += es.WriteUnits
		}
		gb := capacity.GB(float64(ts.StoredBytes), est.GB)
		ts.GB = gb
		ts.StandardUSD = prices.Storage(gb, capacity.Standard)
		ts.IAUSD = prices.Storage(gb, capacity.StandardIA)
		ts.LoadUSD = prices.OnDemand(ts.LoadWRU, 0, estimate.Class(t))
		ts.ImportGB = capacity.GB(float64(r.TableRaw[t.Name]), est.GB)
		ts.ImportUSD = prices.Import(ts.ImportGB)
		size := est.Storage(t, measured)
		ts.CostGB = size.ComputedGB * p.Opts.Scale * frac
		if t.SizeGB != nil {
			d := *t.SizeGB * p.Opts.Scale * frac
			ts.DeclaredGB = &d
		}
		for _, es := range size.Entities {
			for i := range s.Entity {
				if s.Entity[i].Entity == es.Entity {
					s.Entity[i].CostStored, s.Entity[i].CostMeasured = es.StoredBytes, es.MeasuredItems > 0
				}
			}
		}
		ts.Why = s.why(t.Name)
		if ts.Items > 0 || ts.DeclaredGB != nil {
			s.Tables = append(s.Tables, ts)
		}
	}
	return s
}

// CostSizes is what cost sizes the model's items with (Measure's means;
// nil when the model cannot be measured, and cost sizes it by its
// samples), measured once per result.
func (r *Result) CostSizes() map[string]estimate.Measured {
	r.measureOnce.Do(func() { r.measured, _ = Measure(r.Pop.Model, capacity.Default()) })
	return r.measured
}

// fraction is the share of the population the run's part holds (by the
// blocks' expected items).
func (r *Result) fraction() float64 {
	if r.Parts <= 1 {
		return 1
	}
	all := r.Pop.Blocks()
	part, _ := r.Pop.Part(r.Part, r.Parts)
	var a, b float64
	for _, x := range all {
		a += x.Items
	}
	for _, x := range part {
		b += x.Items
	}
	if a == 0 {
		return 0
	}
	return b / a
}

// why explains, entity by entity, the largest differences between the
// generated storage and cost's figure: how many items (generated against
// declared) and how large (generated against the typical sample).
func (s *Summary) why(table string) []string {
	type diff struct {
		text  string
		bytes float64
	}
	var ds []diff
	for _, es := range s.Entity {
		if es.Table != table || es.Declared < 0 {
			continue
		}
		costBytes := es.Declared * float64(es.CostStored)
		delta := float64(es.StoredBytes) - costBytes
		if math.Abs(delta) < 1 {
			continue
		}
		var parts []string
		if es.Declared > 0 && math.Abs(float64(es.Items)-es.Declared)/es.Declared > 0.02 {
			parts = append(parts, fmt.Sprintf("%s items against %s declared", estimate.Num(float64(es.Items)), estimate.Num(math.Round(es.Declared))))
		}
		if es.Items > 0 && es.CostStored > 0 {
			avg := float64(es.StoredBytes) / float64(es.Items)
			if math.Abs(avg-float64(es.CostStored))/float64(es.CostStored) > 0.02 {
				against := "its first sample"
				if es.CostMeasured {
					against = "the items cost measured"
				}
				parts = append(parts, fmt.Sprintf("%.0f B stored an item on average against %d B for %s", avg, es.CostStored, against))
			}
		}
		if es.CostStored == 0 {
			parts = append(parts, "no sample, so cost does not size it")
		}
		if len(parts) == 0 {
			continue
		}
		sign := "+"
		if delta < 0 {
			sign = "-"
		}
		ds = append(ds, diff{fmt.Sprintf("%s %s %s: %s", es.Entity, sign, BytesText(math.Abs(delta)), strings.Join(parts, "; ")), math.Abs(delta)})
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].bytes > ds[j].bytes })
	var out []string
	for i, d := range ds {
		if i == 6 {
			break
		}
		out = append(out, d.text)
	}
	return out
}

// BytesText writes a size in decimal units, as the bills count them.
func BytesText(bytes float64) string {
	switch {
	case bytes >= 1e9:
		return fmt.Sprintf("%.2f GB", bytes/1e9)
	case bytes >= 1e6:
		return fmt.Sprintf("%.1f MB", bytes/1e6)
	case bytes >= 1e3:
		return fmt.Sprintf("%.1f KB", bytes/1e3)
	}
	return fmt.Sprintf("%.0f B", bytes)
}

// Text writes the summary for people.
func (s Summary) Text(w io.Writer) error {
	part := ""
	if s.Parts > 1 {
		part = fmt.Sprintf(", part %d of %d", s.Part, s.Parts)
	}
	fmt.Fprintf(w, "%s: %s items at scale %g, seed %d, as of %s%s\n", s.Model, estimate.Num(float64(s.Items)), s.Scale, s.Seed, s.AsOf, part)
	fmt.Fprintf(w, "generated in %.1f s: %s items/s, %.1f MB/s of uncompressed lines\n\n", s.Seconds, estimate.Num(math.Round(s.PerSec)), s.MBPerS)
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "entity\ttable\titems\tdeclared\tp50 B\tp90 B\tp99 B\tmax B\tstored GB\tload WRU\t")
	for _, e := range s.Entity {
		decl := "-"
		if e.Declared >= 0 {
			decl = estimate.Num(math.Round(e.Declared))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.3f\t%s\t\n", e.Entity, e.Table, estimate.Num(float64(e.Items)), decl,
			e.P50, e.P90, e.P99, e.Max, float64(e.StoredBytes)/1e9, estimate.Num(e.WriteUnits))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range s.Entity {
		if e.Dropped > 0 || e.KeyErrors > 0 {
			fmt.Fprintf(w, "  %s: %s dropped (their key kept repeating a sibling's), %d with a key that could not be rendered\n", e.Entity, digits.Count(e.Dropped, "item"), e.KeyErrors)
		}
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "  %s: no items (%s)\n", sk.Entity, sk.Why)
	}
	fmt.Fprintf(w, "\nStorage and loading (%s; a GB is 10^9 B; each item and index entry counts 100 B more)\n", s.Prices)
	for _, t := range s.Tables {
		fmt.Fprintf(w, "  %s: %s items, %.3f GB of items, %.3f GB stored (indexes included)\n", t.Table, estimate.Num(float64(t.Items)), float64(t.ItemBytes)/1e9, t.GB)
		fmt.Fprintf(w, "    storage: US$ %.2f a month in Standard, US$ %.2f in Standard-IA (table class %s)\n", t.StandardUSD, t.IAUSD, t.Class)
		fmt.Fprintf(w, "    loading with BatchWriteItem: %s WRU, US$ %.2f on demand; importing from S3 instead: %.3f GB of uncompressed source, US$ %.2f, no write units\n",
			estimate.Num(math.Round(t.LoadWRU)), t.LoadUSD, t.ImportGB, t.ImportUSD)
		if t.DeclaredGB != nil || t.CostGB > 0 {
			decl := "no sizeGB"
			if t.DeclaredGB != nil {
				decl = fmt.Sprintf("%.3f GB declared (sizeGB at this scale)", *t.DeclaredGB)
			}
			fmt.Fprintf(w, "    against the model: %s, %.3f GB from cost's populations and item sizes; generated %.3f GB\n", decl, t.CostGB, t.GB)
			for _, y := range t.Why {
				fmt.Fprintf(w, "      %s\n", y)
			}
		}
	}
	return nil
}
