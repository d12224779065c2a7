package catalog

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Review finding codes. Each is a question a senior reviewer would ask of
// the model; see docs/model-format.md.
const (
	CodeCalendarStored = "calendar-stored"  // a calendar-driven attribute is written
	CodeDerivedNotKey  = "derived-not-key"  // a stored derived value that keys no index
	CodeDerivedKey     = "derived-key"      // an index key that changes without a business event
	CodeSizeBoundary   = "size-boundary"    // a sample a few bytes over a 1 KB write unit
	CodeEntrySize      = "index-entry-size" // an index entry larger than one write unit
	CodeProjectionAll  = "projection-all"   // a GSI copying whole items
	CodeProjectKey     = "projection-key"   // INCLUDE lists an attribute every entry has anyway
	CodeLowCardinality = "low-cardinality"  // an unsharded index partition with few values
	CodeNoAlarm        = "no-alarm"         // an index without a throttling alarm
	CodeSingleTx       = "single-action-tx" // a transaction of one action
	CodeFilter         = "post-read-filter" // a query paying for what it discards
	CodeLSI            = "local-index"      // a local secondary index
	CodeTwinIndexes    = "twin-indexes"     // two GSIs with the same partition
	CodeNoOperation    = "no-operation"     // a question no operation runs
	CodeNoBudget       = "no-budget"        // writes or reads without a budget
	CodeNoVersion      = "no-version"       // a write of a locked entity that bypasses its lock (race.go)
	CodeUnusedAttr     = "unused-attribute" // a stored attribute no entity carries
	CodeNoSample       = "no-sample"        // an entity without a sample item
	CodeKeyChange      = "index-key-change" // an operation moves items inside an index
	CodeOldField       = "old-field"        // a field of an older format, read as its new one (peak.go)
	CodeKeyDomain      = "key-domain"       // an index partition attribute at a declared peak with no values the gate can weigh
)

// Options tune Parse. The zero value is the default.
type Options struct {
	// ItemSize, when set, enables the size findings (samples and index
	// entries near or over a write unit). The capacity package provides
	// it; the catalog does not depend on billing rules.
	ItemSize func(attr.Item) int
}

func (r *resolver) warn(m *Model, ptr, code, hint, format string, args ...any) {
	f := Finding{Pos: posAt(r.file, r.paths, ptr, true), Path: displayPath(r.paths, ptr), Code: code, Msg: fmt.Sprintf(format, args...), Hint: hint}
	for _, a := range m.Review.Accept {
		if a.Code == code && pathToPtr(a.Path) == ptr {
			f.Accepted = a.Reason
		}
	}
	m.Warnings = append(m.Warnings, f)
}

func review(r *resolver, m *Model, opts Options) {
	keyOf := map[string][]*Index{}
	for _, x := range m.Indexes {
		for _, a := range x.KeyAttributes() {
			keyOf[a] = append(keyOf[a], x)
		}
	}
	carried := map[string]bool{}
	for _, e := range m.Entities {
		for _, a := range e.Attributes {
			carried[a.Name] = true
		}
		for _, k := range e.Key {
			carried[k.Attribute] = true
		}
		if e.Table != nil && e.Table.Discriminator != "" {
			carried[e.Table.Discriminator] = true
		}
	}
	for _, x := range m.Indexes {
		for _, sk := range []*SyntheticKey{synthPart(x), synthSort(x)} {
			if sk != nil {
				carried[sk.Attribute] = true
			}
		}
	}
	for _, a := range m.Attributes {
		ptr := p("attributes", a.Name)
		if a.CalendarDerived && a.Stored {
			r.warn(m, ptr, CodeCalendarStored, "store the fact it is derived from and derive it at read time", "%s changes with the calendar, yet it is stored: every item is rewritten without a business event", a.Name)
		}
		if a.Derived != nil && len(keyOf[a.Name]) == 0 {
			r.warn(m, ptr, CodeDerivedNotKey, "store the fact, derive the state at read time", "%s is a stored derived value but keys no index", a.Name)
		}
		if a.Derived != nil && len(keyOf[a.Name]) > 0 && (a.Derived.Changes == "" || a.Derived.Why == "") {
			r.warn(m, ptr, CodeDerivedKey, "say how often it changes and why it is stored (derived.changes, derived.why)", "%s keys %s and changes without a business event of its own", a.Name, keyOf[a.Name][0].Name)
		}
		if a.Stored && !carried[a.Name] && a.Computed == nil {
			used := false
			for _, o := range m.Operations {
				for _, prm := range o.Params {
					used = used || prm.Attribute == a
				}
			}
			if !used {
				r.warn(m, ptr, CodeUnusedAttr, "", "no entity carries %s", a.Name)
			}
		}
	}
	for _, e := range m.Entities {
		ptr := p("entities", e.Name)
		if len(e.Samples) == 0 {
			r.warn(m, ptr, CodeNoSample, "samples feed the static estimate and the dataset generator", "entity %s has no sample item", e.Name)
		}
		if opts.ItemSize == nil {
			continue
		}
		for _, s := range e.Samples {
			n := opts.ItemSize(s.Item)
			if n > 1024 && n%1024 <= 64 {
				r.warn(m, p("entities", e.Name, "samples", s.Name), CodeSizeBoundary, "trim attribute names or move rarely read data to a sibling item", "sample %s of %s is %d bytes, %d over a write unit: every write pays one more unit", s.Name, e.Name, n, n%1024)
			}
			for _, x := range e.Indexes {
				entry := indexEntry(x, s.Item)
				if len(entry) == 0 {
					continue
				}
				if en := opts.ItemSize(entry); en > 1024 {
					r.warn(m, p("indexes", x.Name, "projection"), CodeEntrySize, "project only what the reader of the index needs", "an entry of %s for sample %s of %s is %d bytes: more than one write unit per index write", x.Name, s.Name, e.Name, en)
				}
			}
		}
	}
	for i, x := range m.Indexes {
		ptr := p("indexes", x.Name)
		if x.Local {
			r.warn(m, ptr, CodeLSI, "prefer a global index", "local index %s caps every item collection at 10 GB and can only be created with the table", x.Name)
		}
		if x.Projection.Type == "ALL" && !x.Local {
			r.warn(m, ptr+"/projection", CodeProjectionAll, "list the attributes the reader needs with INCLUDE", "%s copies whole items: every write of a projected item is paid again in the index", x.Name)
		}
		for j, a := range x.Projection.Attributes {
			if contains(x.KeyAttributes(), a) || x.Table != nil && (a == x.Table.PartitionKey || a == x.Table.SortKey) {
				r.warn(m, p("indexes", x.Name, "projection", "attributes", j), CodeProjectKey, "remove it from the list", "%s is a key attribute: every entry of %s has it anyway", a, x.Name)
			}
		}
		if x.Alarm == "" {
			r.warn(m, ptr, CodeNoAlarm, "declare alarm: the throttling metric and threshold watched", "%s has no throttling alarm: a throttled GSI blocks writes to the base table", x.Name)
		}
		if x.Shards == nil && x.Unsharded == "" {
			card := int64(1)
			known := true
			for _, an := range x.Partition {
				if a, ok := r.attrs[an]; ok && a.Cardinality > 0 {
					card *= a.Cardinality
				} else if ok && len(a.Enum) > 0 {
					card *= int64(len(a.Enum))
				} else {
					known = false
				}
			}
			if known && card < 1000 {
				r.warn(m, ptr+"/partition", CodeLowCardinality, "shard it, or say in unsharded why it starts without shards (and alarm on throttling)", "the partition of %s has about %d distinct values: its writes concentrate on few partitions", x.Name, card)
			}
		}
		for _, y := range m.Indexes[i+1:] {
			if !x.Local && !y.Local && strings.Join(x.Partition, ",") == strings.Join(y.Partition, ",") {
				r.warn(m, p("indexes", y.Name, "partition"), CodeTwinIndexes, "could one index with a longer sort key serve both?", "%s has the same partition key as %s", y.Name, x.Name)
			}
		}
	}
	for _, ap := range m.AccessPatterns {
		if ap.Answer != nil && len(ap.Operations) == 0 {
			r.warn(m, p("accessPatterns", ap.ID), CodeNoOperation, "declare the operation that runs it, with a budget", "no operation runs %s", ap.ID)
		}
	}
	r.raceFindings(m)
	r.keyDomains(m)
	for _, o := range m.Operations {
		base := p("operations", o.Name)
		writes, reads := false, false
		for i, st := range o.Steps {
			sptr := p("operations", o.Name, "steps", i)
			switch st.Kind {
			case Get, Query, Scan:
				reads = true
			default:
				writes = true
			}
			if st.Kind == Transaction && len(st.Items) == 1 {
				r.warn(m, sptr+"/transaction", CodeSingleTx, "use a conditional put or update: it is atomic on one item", "a transaction of one action costs twice a plain write")
			}
			if st.Request != nil && st.Request.Filter != "" {
				r.warn(m, sptr+"/"+string(st.Kind)+"/filter", CodeFilter, "move the condition into the key, or accept the cost knowingly", "a filter does not reduce the read cost: every matched item is paid for")
			}
		}
		hasW, hasR := false, false
		for _, b := range o.Budgets {
			hasW = hasW || b.WRU != nil
			hasR = hasR || b.RRU != nil
		}
		if writes && !hasW {
			r.warn(m, base+"/budgets", CodeNoBudget, "", "%s writes but declares no wru budget", o.Name)
		}
		if reads && !hasR {
			r.warn(m, base+"/budgets", CodeNoBudget, "", "%s reads but declares no rru budget", o.Name)
		}
	}
}

func synthPart(x *Index) *SyntheticKey {
	if x.Synthetic == nil {
		return nil
	}
	return x.Synthetic.Partition
}

func synthSort(x *Index) *SyntheticKey {
	if x.Synthetic == nil {
		return nil
	}
	return x.Synthetic.Sort
}

// indexEntry returns the index entry of an item: table keys, index keys
// and projected attributes; nil when the item does not enter the index.
func indexEntry(x *Index, it attr.Item) attr.Item {
	for _, a := range x.KeyAttributes() {
		if _, ok := it.Get(a); !ok {
			return nil
		}
	}
	var out attr.Item
	for _, f := range it {
		if x.Projects(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// IndexEntry is exported for the estimator: the entry an item makes in an
// index, or nil when it does not enter.
func (x *Index) Entry(it attr.Item) attr.Item { return indexEntry(x, it) }

// keyDomains finds the partition attributes of the indexes a declared
// peak reaches (an operation's peakPerSecond, a scenario load's rate, a
// question's velocity) of which the model says nothing the peak gate can
// weigh: no enum, cardinality, range, hashMod, skew or value shares, on
// the attribute or on an entity that enters the index. The gate can only
// assume they spread, and a sparse marker (an attribute present only
// while the item waits in a queue) is the opposite: every entry on one
// value.
func (r *resolver) keyDomains(m *Model) {
	peaked := map[*Operation]bool{}
	for _, o := range m.Operations {
		if o.Volume.PeakPerSecond != nil && *o.Volume.PeakPerSecond > 0 {
			peaked[o] = true
		}
		for _, ap := range o.Serves {
			if rate, _, ok := ap.Velocity.PerSecond(); ok && rate > 0 {
				peaked[o] = true
			}
		}
	}
	for _, sc := range m.Scenarios {
		for _, l := range sc.Load {
			if rate, ok := l.PerSecond(); ok && rate > 0 {
				if o := m.Operation(l.Operation); o != nil {
					peaked[o] = true
				}
			}
		}
	}
	reached := map[*Index]*Operation{}
	reach := func(x *Index, o *Operation) {
		if x != nil && !x.Local && reached[x] == nil {
			reached[x] = o
		}
	}
	for _, o := range m.Operations {
		if !peaked[o] {
			continue
		}
		for _, s := range o.Steps {
			for _, st := range append([]*Step{s}, s.Items...) {
				q := st.Request
				if q == nil {
					continue
				}
				reach(q.Index, o)
				if st.Kind.IsWrite() && q.Entity != nil {
					for _, x := range q.Entity.Indexes {
						reach(x, o)
					}
				}
			}
		}
	}
	warned := map[string]bool{}
	for _, x := range m.Indexes {
		o := reached[x]
		if o == nil {
			continue
		}
		for _, an := range x.Partition {
			a := m.Attribute(an)
			if a == nil || warned[an] || x.Shards != nil && x.Shards.Attribute == an || weighable(m, x, a) {
				continue
			}
			warned[an] = true
			r.warn(m, p("attributes", an), CodeKeyDomain,
				"declare its enum (one value for a sparse marker that exists only while an item waits), a cardinality, a skew or weighted values",
				"%s keys the partition of %s, which %s runs at a declared peak, but nothing says how many values it takes: the peak gate assumes it spreads one value per item", an, x.Name, o.Name)
		}
	}
}

// weighable reports whether the model says enough of an attribute's
// values for the peak gate to weigh a partition key that holds it.
func weighable(m *Model, x *Index, a *Attribute) bool {
	if n, ok := a.Distinct(); ok && n > 0 || a.Skew != nil || a.Type == attr.BOOL {
		return true
	}
	shares := func(d *Distribution) bool { return d != nil && (d.Kind == "weighted" || d.Kind == "constant") }
	if shares(a.Values) {
		return true
	}
	switch a.Unit {
	case "id", "hex", UnitCivilDate, UnitInstant, UnitEpochSeconds:
		return true
	}
	for _, e := range x.Entries {
		for _, ea := range e.Attributes {
			if ea.Name == a.Name && shares(ea.Values) {
				return true
			}
		}
	}
	// The one placeholder of an entity's partition key: spread one value
	// per item of the entity.
	for _, e := range m.Entities {
		for _, k := range e.Key {
			if e.Table != nil && k.Attribute == e.Table.PartitionKey {
				if ph := k.Template.Placeholders(); len(ph) == 1 && ph[0] == a.Name {
					return true
				}
			}
		}
	}
	return false
}
