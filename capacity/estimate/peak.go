package estimate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/throughput"
)

// The peak gate: how many units a second the hottest partition of every
// table and index takes at the peaks the model declares, against what one
// partition serves (throughput's figures: 1,000 write and 3,000 read units
// a second).
//
// A peak is a rate of runs of an operation: its volume.peakPerSecond, the
// rate of a scenario load (its peakPerSecond, or count over window, or
// rate; a focus pins it to the largest value of an attribute), or the
// velocity of an access pattern its steps answer (questions a second,
// divided by the requests one run makes for the question, and shared
// among the operations that answer it by their volumes). The loads of one
// scenario run together and add up on a structure.
//
// One run's units on a structure come from the static estimate, in the
// variant that writes (or reads) the most there. They land on one
// partition, spread by the attributes of its partition key: a shard
// attribute spreads them over its shards; a focused attribute holds them
// all; an attribute with a skew puts its largest value's share on one
// partition; with weighted values, the heaviest value's; a hashMod
// computes one of its modulo; a cardinality or an enum spreads them
// evenly; a constant (a literal in the key condition or in the item
// written) holds them all on its value; a time (a civil date, an instant)
// takes the whole peak on one value (the 00h07 batch moves every entry to
// tomorrow's date); an identifier, or the one key of an entity of known
// population, spreads them one value per item; an attribute of which
// nothing is declared is assumed to spread, and the report says so. An
// entry that moves between partitions is charged on the one it enters or
// leaves, whichever is dearer; the steps of one run are added as if on
// one partition, an upper bound.

// Partition limits, from the throughput model.
const (
	PartitionWrite = float64(throughput.DefaultPartitionWrite)
	PartitionRead  = float64(throughput.DefaultPartitionRead)
)

// Peaks is the peak gate's finding on every table and index.
type Peaks struct {
	WriteLimit float64         `json:"writeLimit"`
	ReadLimit  float64         `json:"readLimit"`
	Structures []PeakStructure `json:"structures"`
}

// PeakStructure is one table or index at its peaks.
type PeakStructure struct {
	Table  string    `json:"table"`
	Index  string    `json:"index,omitempty"`
	Shards int       `json:"shards,omitempty"`
	Write  *PeakLoad `json:"write,omitempty"` // nil when no declared peak writes it
	Read   *PeakLoad `json:"read,omitempty"`
}

// Name is the index name, or the table's.
func (s PeakStructure) Name() string {
	if s.Index != "" {
		return s.Index
	}
	return s.Table
}

// Assumptions says, once per attribute, which key attributes of the
// structure's loads the gate assumed to spread because the model declares
// nothing of their values, and what to declare.
func (s PeakStructure) Assumptions() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range []*PeakLoad{s.Write, s.Read} {
		if l == nil {
			continue
		}
		for _, t := range l.Terms {
			for _, a := range t.Assumed {
				if !seen[a] {
					seen[a] = true
					out = append(out, fmt.Sprintf("%s: %s is assumed to spread, one value per item, since nothing is declared of its values (%s, %s): %s", s.Name(), a, t.Operation, l.Source, Undeclared))
				}
			}
		}
	}
	return out
}

// PeakLoad is the heaviest declared load on the hottest partition of a
// structure, in one direction.
type PeakLoad struct {
	Unit  string  `json:"unit"` // WCU or RCU
	Units float64 `json:"units"`
	Limit float64 `json:"limit"`
	// Source is where the rate is declared (a display path) and Path the
	// keys that Model.Locate finds it by.
	Source string   `json:"source"`
	Path   []string `json:"-"`
	// Together marks the loads of one scenario, added up as if on one
	// partition.
	Together bool       `json:"together,omitempty"`
	Terms    []PeakTerm `json:"terms"`
	// Fit is how many shards of the structure's partition key would
	// bring the load under the limit, when it is over.
	Fit int `json:"fit,omitempty"`
}

// Over reports whether the load exceeds the partition limit.
func (l *PeakLoad) Over() bool { return l != nil && l.Units > l.Limit+1e-9 }

// PeakTerm is one operation's part of a load.
type PeakTerm struct {
	Operation string  `json:"operation"`
	Variant   string  `json:"variant,omitempty"`
	Step      string  `json:"step"`
	Verb      string  `json:"verb"` // "updates", "puts", "queries", "runs"
	Rate      float64 `json:"rate"` // runs a second of the operation
	// Share is the fraction of the runs that land on the hottest
	// partition, Partition says which partition and why.
	Share     float64 `json:"share"`
	Partition string  `json:"partition"`
	PerRun    float64 `json:"perRun"` // units of one run on that partition
	Units     float64 `json:"units"`  // Rate x Share x PerRun
	Note      string  `json:"note,omitempty"`
	// Assumed are the key attributes read as spreading because the
	// model declares nothing of their values.
	Assumed []string `json:"assumed,omitempty"`
}

// String writes the load the way the gate reports it: "2,000 WCU/s on
// the partition A = ..., B = ... (SomeOperation:
// 2,000 updates/s ..., 1 WCU each) vs 1,000".
func (l *PeakLoad) String() string {
	var parts []string
	for _, t := range l.Terms {
		s := fmt.Sprintf("%s: %s %s/s", t.Operation, Rate(t.Rate*t.Share), t.Verb)
		if t.Share < 1 {
			s += fmt.Sprintf(" of %s/s", Rate(t.Rate))
		}
		s += fmt.Sprintf(", %s %s each", Rate(t.PerRun), l.Unit)
		if t.Note != "" {
			s += " (" + t.Note + ")"
		}
		parts = append(parts, s)
	}
	where := ""
	if len(l.Terms) > 0 {
		where = " on " + l.Terms[0].Partition
	}
	src := l.Source
	if l.Together {
		src += ", whose loads run together: added as if on one partition"
	}
	return fmt.Sprintf("%s %s/s%s vs %s (%s; %s)", Rate(l.Units), l.Unit, where, Num(l.Limit), strings.Join(parts, "; "), src)
}

// PeakFailure is a structure whose hottest partition takes more than the
// limit, with the place to fix it.
type PeakFailure struct {
	Structure PeakStructure
	Load      *PeakLoad
}

// Failures lists the loads over their limit, writes first.
func (p *Peaks) Failures() []PeakFailure {
	var out []PeakFailure
	for _, s := range p.Structures {
		for _, l := range []*PeakLoad{s.Write, s.Read} {
			if l.Over() {
				out = append(out, PeakFailure{s, l})
			}
		}
	}
	return out
}

// String says what is over, and what would fit.
func (f PeakFailure) String() string { return f.Structure.Name() + ": " + f.Message() }

// Message is String without the structure's name.
func (f PeakFailure) Message() string {
	s := f.Load.String()
	if f.Load.Fit > 1 {
		what := "shards"
		if f.Structure.Shards > 0 {
			what = fmt.Sprintf("shards (it has %d)", f.Structure.Shards)
		}
		s += fmt.Sprintf("; %d %s would fit", f.Load.Fit, what)
	}
	return s
}

// structKey names a table or index.
type structKey struct{ table, index string }

// contribution is what one run of an operation puts on the hottest
// partition of one structure, in one direction.
type contribution struct {
	perRun    float64 // units on the hottest partition, shares applied
	raw       float64 // the same before shares, for the report
	top       float64 // the dominant step's part of perRun
	steps     int     // steps that contribute
	share     float64 // the share of the dominant step
	partition string
	step      string
	verb      string
	variant   string
	note      string
	assumed   []string
}

// Peaks runs the gate on every table and index of the model.
func (e *Estimator) Peaks() (*Peaks, error) {
	out := &Peaks{WriteLimit: PartitionWrite, ReadLimit: PartitionRead}
	type side struct {
		write, read *PeakLoad
	}
	best := map[structKey]*side{}
	keep := func(k structKey, write bool, l *PeakLoad) {
		if best[k] == nil {
			best[k] = &side{}
		}
		cur := &best[k].read
		if write {
			cur = &best[k].write
		}
		if *cur == nil || l.Units > (*cur).Units {
			*cur = l
		}
	}
	cache := map[string]map[structKey][2]contribution{}
	runs := func(op *catalog.Operation, focus map[string]string) (map[structKey][2]contribution, error) {
		key := op.Name + "\x00" + focusKey(focus)
		if c, ok := cache[key]; ok {
			return c, nil
		}
		c, err := e.runContributions(op, focus)
		cache[key] = c
		return c, err
	}
	// Each operation's own peaks.
	for _, op := range e.Model.Operations {
		for _, src := range e.opRates(op) {
			c, err := runs(op, nil)
			if err != nil {
				return nil, err
			}
			for k, cc := range c {
				for dir, con := range cc {
					if con.raw == 0 {
						continue
					}
					keep(k, dir == 0, e.load(dir == 0, src, []termOf{{op, src.rate, con}}))
				}
			}
		}
	}
	// Scenarios: their loads run together.
	for _, sc := range e.Model.Scenarios {
		terms := map[structKey][2][]termOf{}
		for _, l := range sc.Load {
			op := e.Model.Operation(l.Operation)
			rate, ok := l.PerSecond()
			if op == nil || !ok || rate <= 0 {
				continue
			}
			c, err := runs(op, l.Focus)
			if err != nil {
				return nil, err
			}
			for k, cc := range c {
				t := terms[k]
				for dir, con := range cc {
					if con.raw > 0 {
						t[dir] = append(t[dir], termOf{op, rate, con})
					}
				}
				terms[k] = t
			}
		}
		for k, tt := range terms {
			for dir, ts := range tt {
				if len(ts) == 0 {
					continue
				}
				src := rateSource{path: []string{"scenarios", sc.Name, "load"}, text: "scenarios." + sc.Name}
				for i, l := range sc.Load {
					if l.Operation == ts[0].op.Name {
						src.path = []string{"scenarios", sc.Name, "load", strconv.Itoa(i)}
						if len(ts) == 1 {
							src.text = fmt.Sprintf("scenarios.%s.load[%d]", sc.Name, i)
						}
						break
					}
				}
				l := e.load(dir == 0, src, ts)
				l.Together = len(ts) > 1
				keep(k, dir == 0, l)
			}
		}
	}
	for _, t := range e.Model.Tables {
		keys := []structKey{{t.Name, ""}}
		for _, x := range t.Indexes {
			keys = append(keys, structKey{t.Name, x.Name})
		}
		for _, k := range keys {
			ps := PeakStructure{Table: k.table, Index: k.index}
			if x := e.Model.Index(k.index); x != nil && x.Shards != nil {
				ps.Shards = x.Shards.Count
			}
			if s := best[k]; s != nil {
				ps.Write, ps.Read = s.write, s.read
			}
			for _, l := range []*PeakLoad{ps.Write, ps.Read} {
				if l.Over() {
					n := max(ps.Shards, 1)
					if fit := math.Ceil(l.Units * float64(n) / l.Limit); fit < math.MaxInt32 {
						l.Fit = int(fit)
					}
				}
			}
			out.Structures = append(out.Structures, ps)
		}
	}
	return out, nil
}

// termOf is one operation's rate and its contribution.
type termOf struct {
	op   *catalog.Operation
	rate float64
	c    contribution
}

// load adds terms up into a load.
func (e *Estimator) load(write bool, src rateSource, ts []termOf) *PeakLoad {
	l := &PeakLoad{Unit: "RCU", Limit: PartitionRead, Source: src.text, Path: src.path}
	if write {
		l.Unit, l.Limit = "WCU", PartitionWrite
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].rate*ts[i].c.perRun > ts[j].rate*ts[j].c.perRun })
	for _, t := range ts {
		u := t.rate * t.c.perRun
		l.Units += u
		perRun := t.c.perRun
		if t.c.share > 0 {
			perRun = t.c.perRun / t.c.share
		}
		l.Terms = append(l.Terms, PeakTerm{Operation: t.op.Name, Variant: t.c.variant, Step: t.c.step, Verb: t.c.verb,
			Rate: t.rate, Share: t.c.share, Partition: t.c.partition, PerRun: perRun, Units: u, Note: t.c.note, Assumed: t.c.assumed})
	}
	return l
}

// rateSource is one declared rate of an operation.
type rateSource struct {
	rate float64
	text string
	path []string
}

// opRates lists an operation's declared peak rates outside scenarios:
// its volume's peakPerSecond and the velocities of the questions it
// answers.
func (e *Estimator) opRates(op *catalog.Operation) []rateSource {
	var out []rateSource
	if p := op.Volume.PeakPerSecond; p != nil && *p > 0 {
		out = append(out, rateSource{*p, fmt.Sprintf("operations.%s.volume.peakPerSecond", op.Name), []string{"operations", op.Name, "volume", "peakPerSecond"}})
	}
	for _, ap := range op.Serves {
		rate, which, ok := ap.Velocity.PerSecond()
		if !ok || rate <= 0 {
			continue
		}
		// Requests one run makes for the question.
		per := 0
		for _, s := range op.Steps {
			if s.Pattern == ap {
				n := 1
				if s.Request != nil {
					n, _ = FanOutQueries(s.Request)
				}
				per += n
			}
		}
		if per == 0 {
			per = 1
		}
		share := e.volumeShare(op, ap)
		out = append(out, rateSource{rate / float64(per) * share,
			fmt.Sprintf("accessPatterns.%s.velocity.%s%s", ap.ID, which, shareNote(share, per)),
			[]string{"accessPatterns", ap.ID, "velocity", which}})
	}
	return out
}

func shareNote(share float64, per int) string {
	var s []string
	if per > 1 {
		s = append(s, digits.Count(per, "request")+" a run")
	}
	if share < 1 {
		s = append(s, fmt.Sprintf("%s of it by volume", Pct(share)))
	}
	if len(s) == 0 {
		return ""
	}
	return ", " + strings.Join(s, ", ")
}

// volumeShare is the share of a question's asks an operation makes, by
// the volumes of the operations that answer it (evenly when a volume is
// missing).
func (e *Estimator) volumeShare(op *catalog.Operation, ap *catalog.AccessPattern) float64 {
	if len(ap.Operations) <= 1 {
		return 1
	}
	vol := func(o *catalog.Operation) (float64, bool) {
		switch {
		case o.Volume.PerDay != nil:
			return *o.Volume.PerDay * 30, true
		case o.Volume.PerMonth != nil:
			return *o.Volume.PerMonth, true
		}
		return 0, false
	}
	var sum float64
	for _, o := range ap.Operations {
		v, ok := vol(o)
		if !ok {
			return 1 / float64(len(ap.Operations))
		}
		sum += v
	}
	v, _ := vol(op)
	if sum == 0 {
		return 1 / float64(len(ap.Operations))
	}
	return v / sum
}

// runContributions computes, for each structure an operation touches,
// what one run puts on its hottest partition, writes [0] and reads [1],
// in the variant that puts the most there.
func (e *Estimator) runContributions(op *catalog.Operation, focus map[string]string) (map[structKey][2]contribution, error) {
	vs, err := e.Operation(op)
	if err != nil {
		return nil, err
	}
	out := map[structKey][2]contribution{}
	for _, v := range vs {
		b := budgetOf(op, v.Name)
		per := map[structKey][2]contribution{}
		for _, st := range v.Steps {
			cs := op.Step(lastID(st.ID))
			if cs == nil || cs.Request == nil {
				continue
			}
			c := st.Consumed
			add := func(k structKey, dir int, units float64, ks KeySpread, note string) {
				if units <= 0 {
					return
				}
				share, part := ks.Share, ks.Text
				cur := per[k]
				x := cur[dir]
				for _, a := range ks.Assumed() {
					if !slices.Contains(x.assumed, a) {
						x.assumed = append(x.assumed, a)
					}
				}
				if x.step == "" || units*share > x.top {
					x.top, x.share, x.partition, x.step, x.note = units*share, share, part, st.ID, note
					x.verb = verbOf(cs.Kind)
				}
				if x.steps++; x.steps > 1 {
					x.verb = "runs"
				}
				x.raw += units
				x.perRun += units * share
				x.variant = v.Name
				cur[dir] = x
				per[k] = cur
			}
			if c.Table.Write > 0 || c.Table.Read > 0 {
				ks := e.TableSpread(cs, focus)
				add(structKey{c.TableName, ""}, 0, c.Table.Write, ks, "")
				add(structKey{c.TableName, ""}, 1, c.Table.Read, ks, "")
			}
			for _, m := range []map[string]capacity.Capacity{c.GSIs, c.LSIs} {
				for name, u := range m {
					x := e.Model.Index(name)
					if x == nil {
						continue
					}
					k := structKey{c.TableName, name}
					if x.Local {
						// A local index lives in the table's partitions:
						// its units land on the item's partition, which
						// the table's own units share.
						ks := e.TableSpread(cs, focus)
						for dir, units := range [2]float64{u.Write, u.Read} {
							add(k, dir, units, ks, "")
							add(structKey{c.TableName, ""}, dir, units, ks, "with its local index "+name)
						}
						continue
					}
					if u.Read > 0 {
						add(k, 1, u.Read, e.ReadSpread(cs, x, focus), "")
					}
					if u.Write > 0 {
						ks, split, note := e.writeShare(op, cs, b, x, focus)
						add(k, 0, u.Write*split, ks, note)
					}
				}
			}
		}
		for k, cc := range per {
			cur := out[k]
			for dir := range cc {
				if cc[dir].perRun > cur[dir].perRun || cur[dir].raw == 0 {
					cur[dir] = cc[dir]
				}
			}
			out[k] = cur
		}
	}
	return out, nil
}

func budgetOf(op *catalog.Operation, name string) *catalog.Budget {
	for _, b := range op.Budgets {
		if b.Name == name {
			return b
		}
	}
	return &catalog.Budget{}
}

func lastID(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

func verbOf(k catalog.StepKind) string {
	switch k {
	case catalog.Get:
		return "gets"
	case catalog.Query:
		return "queries"
	case catalog.Scan:
		return "scans"
	case catalog.Put:
		return "puts"
	case catalog.Update:
		return "updates"
	case catalog.Delete:
		return "deletes"
	case catalog.ConditionCheck:
		return "condition checks"
	}
	return "runs"
}

// identity returns how many distinct values an attribute takes when it
// alone keys the partitions of an entity with a known population (an
// account's id): one per item. 0 when no entity says.
func (e *Estimator) identity(name string) float64 {
	best := 0.0
	for _, en := range e.Model.Entities {
		for _, k := range en.Key {
			if en.Table == nil || k.Attribute != en.Table.PartitionKey {
				continue
			}
			if ph := k.Template.Placeholders(); len(ph) == 1 && ph[0] == name {
				if n, ok := e.Population(en); ok && n > 0 && (best == 0 || n < best) {
					best = n
				}
			}
		}
	}
	return best
}

// writeShare is the spread of a write's entries over an index's
// partitions, and the part of its index charge that lands on one of
// them: an entry that moves between partitions is charged there on the
// dearer side only.
func (e *Estimator) writeShare(op *catalog.Operation, s *catalog.Step, b *catalog.Budget, x *catalog.Index, focus map[string]string) (ks KeySpread, split float64, note string) {
	ks, err := e.WriteSpread(op, s, b, x, focus)
	if err != nil {
		return ks, 1, ""
	}
	before, after, _ := op.Images(s, b)
	t := e.tables[s.Request.Table]
	ix, _, ok := t.Index(x.Name)
	if !ok {
		return ks, 1, ""
	}
	os, oin := e.Rules.EntrySize(t, ix, before)
	ns, nin := e.Rules.EntrySize(t, ix, after)
	if oin && !nin {
		// The entry leaves: it was where the items' keys put it, which
		// what the write leaves behind does not say.
		return e.indexSpread(x, s.Request.Entity, nil, focus), 1, ""
	}
	if oin && nin && !samePartition(x, before, after) {
		uo, un := capacity.WriteUnits(os), capacity.WriteUnits(ns)
		return ks, max(uo, un) / (uo + un), "the entry moves to another partition: counted on the one it enters"
	}
	return ks, 1, ""
}

// writtenConstants finds the partition attributes a write sets to the
// same value on every run: a literal in a put's item or among an
// update's values that the item left holds.
func (e *Estimator) writtenConstants(op *catalog.Operation, s *catalog.Step, b *catalog.Budget, after attr.Item, x *catalog.Index) map[string]string {
	q := s.Request
	out := map[string]string{}
	vals := op.Values(b)
	for _, a := range x.Partition {
		v, ok := after.Get(a)
		if !ok {
			continue
		}
		if s.Kind == catalog.Put {
			for _, as := range q.Item {
				if as.Attribute == a && as.Value.IsConstant() {
					out[a] = showValue(v)
				}
			}
			continue
		}
		constant, varying := false, false
		for _, nv := range q.Values {
			w, err := nv.Value.Resolve(vals)
			if err != nil || !attr.Equal(v, w) {
				continue
			}
			if nv.Value.IsConstant() {
				constant = true
			} else {
				varying = true
			}
		}
		if constant && !varying {
			out[a] = showValue(v)
		}
	}
	return out
}

func samePartition(x *catalog.Index, a, b attr.Item) bool {
	for _, n := range x.Partition {
		va, _ := a.Get(n)
		vb, _ := b.Get(n)
		if !attr.Equal(va, vb) {
			return false
		}
	}
	return true
}

func showValue(v attr.Value) string {
	if v.Type == attr.N {
		return v.Str
	}
	if v.Type == attr.S {
		return v.Str
	}
	return v.Type.String()
}

func focusKey(f map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(f)) {
		b.WriteString(k + "=" + f[k] + ";")
	}
	return b.String()
}

// Rate formats a rate or a unit count the short way: whole numbers from
// 100, two decimals from 1, three significant digits below.
func Rate(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.Abs(f) >= 100:
		return Num(math.Round(f))
	case math.Abs(f) >= 1:
		return Num(round2(f))
	}
	if math.Abs(f) < 0.001 {
		return "<0.001"
	}
	g, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return strconv.FormatFloat(g, 'f', -1, 64)
}

// skewOf is the share of an attribute's largest value when its items
// spread unevenly (the attribute's declared skew); 0 when nothing says so.
func skewOf(a *catalog.Attribute) float64 {
	if a.Skew == nil {
		return 0
	}
	return a.Skew.Largest()
}

// distinct is the number of values an attribute takes, 0 when unknown.
func distinct(a *catalog.Attribute) int64 {
	n, _ := a.Distinct()
	return n
}
