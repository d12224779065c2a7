package diff

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/throughput"
)

// Step kinds of a migration plan.
const (
	StepCreateTable     = "create-table"
	StepTableSetting    = "table-setting"
	StepCreateIndex     = "create-index"
	StepRebuildIndex    = "rebuild-index"
	StepRecreateTable   = "recreate-table"
	StepRewriteEntity   = "rewrite-entity"
	StepMoveEntity      = "move-entity"
	StepBackfillAttr    = "backfill-attribute"
	StepRemoveAttribute = "remove-attribute"
	StepDropIndex       = "drop-index"
	StepDeleteTable     = "delete-table"
)

// Phases, in the order a migration runs them: the new structures before
// the code that reads them, the old ones dropped after the code that
// read them is gone.
const (
	PhasePrepare  = "prepare"      // tables and settings, at any time
	PhaseIndexes  = "indexes"      // new indexes built before HEAD's code reads them
	PhaseBackfill = "backfill"     // items rewritten while the application writes both forms
	PhaseCleanUp  = "after deploy" // what HEAD's code no longer reads, removed
)

var phaseOrder = []string{PhasePrepare, PhaseIndexes, PhaseBackfill, PhaseCleanUp}

// Step is one step of the migration from BASE to HEAD.
type Step struct {
	Order int    `json:"order"`
	Step  string `json:"step"` // what to do, in a line
	Kind  string `json:"kind"`
	Phase string `json:"phase"`
	// Path is the change the step carries out (Change.Path).
	Path string `json:"path"`
	// Items is how many items or index entries the step writes.
	Items      float64 `json:"items"`
	WriteUnits float64 `json:"writeUnits"`
	ReadUnits  float64 `json:"readUnits,omitempty"`
	USD        float64 `json:"usd"`
	Seconds    float64 `json:"seconds"`
	// Rate is the write units a second the duration assumes, and
	// RateSource where it comes from.
	Rate       float64 `json:"rate,omitempty"`
	RateSource string  `json:"rateSource,omitempty"`
	// Online: the table serves throughout. DualWrite: the application
	// must write both the old and the new form while the step runs.
	Online    bool   `json:"online"`
	DualWrite bool   `json:"dualWrite"`
	Note      string `json:"note,omitempty"`
	// Entities are the figures WriteUnits adds up: each entity's items
	// and its mean write units per item, on BASE's population.
	Entities []EntityUnits `json:"entities,omitempty"`

	table   string // the table it writes, by HEAD's name
	class   capacity.Class
	scanned string // the BASE table a rewrite scans
	probes  []entityProbe
}

// EntityUnits is one entity's part of a step.
type EntityUnits struct {
	Entity string  `json:"entity"`
	Items  float64 `json:"items"`
	// Mean is the mean write units per item, measured on the items the
	// population draws; Drawn is how many it was measured on.
	Mean  float64 `json:"meanWriteUnits"`
	Drawn int64   `json:"drawn"`
	// Writes is the share of the items the step writes (an index
	// holds only its members; a removed attribute only the items that
	// carry it).
	Writes float64 `json:"writes"`
}

// entityProbe is a step's per-item write units on one BASE entity, and
// whether the item is written at all.
type entityProbe struct {
	entity string
	units  probe
}

// planner builds the migration plan of base to head.
type planner struct {
	base, head *catalog.Model
	rules      capacity.Rules
	prices     capacity.Prices
	steps      []*Step
}

func (pl *planner) add(s *Step) *Step {
	pl.steps = append(pl.steps, s)
	return s
}

// writeRate is the write units a second a table of m (and each of its
// GSIs) takes at once: its warm throughput when the model declares one,
// its provisioned write capacity, else a new on-demand resource's.
func writeRate(t *catalog.Table) (float64, string) {
	switch {
	case t.Billing.WarmThroughput != nil && t.Billing.WarmThroughput.Write > 0:
		return float64(t.Billing.WarmThroughput.Write), "the table's declared warm throughput"
	case t.Billing.Mode == "provisioned" && t.Billing.Write != nil && t.Billing.Write.Units > 0:
		return float64(t.Billing.Write.Units), "the table's provisioned write capacity"
	}
	return throughput.DefaultWarmWrite, "a new on-demand table's or index's warm throughput"
}

// Plan is the migration from base to head, in order, each step priced
// at prices by capacity's rules on base's population.
func Plan(base, head *catalog.Model, prices capacity.Prices) []Step {
	pl := &planner{base: base, head: head, rules: capacity.Default(), prices: prices}
	pl.tables()
	pl.entities()
	pl.measure()
	var out []Step
	for _, ph := range phaseOrder {
		for _, s := range pl.steps {
			if s.Phase == ph {
				s.Order = len(out) + 1
				out = append(out, *s)
			}
		}
	}
	return out
}

// named finds the element of xs called name, or nil.
func named[T any](xs []*T, name string, of func(*T) string) *T {
	for _, x := range xs {
		if of(x) == name {
			return x
		}
	}
	return nil
}

func tableOf(m *catalog.Model, name string) *catalog.Table {
	return named(m.Tables, name, func(t *catalog.Table) string { return t.Name })
}

func indexOf(t *catalog.Table, name string) *catalog.Index {
	if t == nil {
		return nil
	}
	return named(t.Indexes, name, func(x *catalog.Index) string { return x.Name })
}

func entityOf(m *catalog.Model, name string) *catalog.Entity {
	return named(m.Entities, name, func(e *catalog.Entity) string { return e.Name })
}

// tableShape is what a table cannot change in place: its keys and its
// local indexes.
func tableShape(t *catalog.Table) string {
	s := t.PartitionKey + "/" + t.SortKey
	for _, x := range t.Indexes {
		if x.Local {
			s += "|" + x.Name + ":" + indexKeyText(x) + ":" + projText(x.Projection)
		}
	}
	return s
}

func (pl *planner) tables() {
	for _, ht := range pl.head.Tables {
		bt := tableOf(pl.base, ht.Name)
		hct := estimate.Table(ht)
		class := estimate.Class(ht)
		rate, src := writeRate(ht)
		if bt == nil {
			pl.add(&Step{Step: "create table " + ht.Name, Kind: StepCreateTable, Phase: PhasePrepare, Path: "tables." + ht.Name, Online: true, table: ht.Name, class: class})
			continue
		}
		if tableShape(bt) != tableShape(ht) {
			s := pl.add(&Step{Step: "copy every item of " + ht.Name + " into a new table with its new keys or local indexes", Kind: StepRecreateTable,
				Phase: PhaseBackfill, Path: "tables." + ht.Name, Online: true, DualWrite: true, Rate: rate, RateSource: src, table: ht.Name, class: class, scanned: bt.Name,
				Note: "a table's key and its local indexes are fixed at creation: the new table is filled by a scan of the old one (or an export and an import) while the application writes both"})
			for _, e := range bt.Entities {
				s.probes = append(s.probes, entityProbe{e.Name, func(it attr.Item) float64 { return pl.rules.Put(hct, it).WriteUnits }})
			}
			continue
		}
		pl.settings(bt, ht, class)
		for _, hx := range ht.Indexes {
			if hx.Local {
				continue
			}
			bx := indexOf(bt, hx.Name)
			ix, _, _ := hct.Index(hx.Name)
			s := &Step{Phase: PhaseIndexes, Path: "indexes." + hx.Name, Rate: rate, RateSource: src, table: ht.Name, class: class}
			switch {
			case bx == nil:
				s.Step, s.Kind, s.Online = "create index "+hx.Name+" on "+ht.Name+" (UpdateTable): DynamoDB backfills every item it will hold", StepCreateIndex, true
				s.Note = "create it before the code that reads it deploys"
			case indexKeyText(bx) != indexKeyText(hx) || projText(bx.Projection) != projText(hx.Projection):
				s.Step, s.Kind = "drop index "+hx.Name+" and create it again with its new key or projection; DynamoDB backfills every entry", StepRebuildIndex
				s.Note = "an index's key and projection cannot change in place: its queries fail from the drop until the backfill ends; to stay online, create it under a new name, switch the readers, then drop the old"
			default:
				continue
			}
			for _, e := range bt.Entities {
				s.probes = append(s.probes, entityProbe{e.Name, func(it attr.Item) float64 {
					if n, ok := pl.rules.EntrySize(hct, ix, it); ok {
						return capacity.WriteUnits(n)
					}
					return 0
				}})
			}
			pl.add(s)
		}
		for _, bx := range bt.Indexes {
			if !bx.Local && indexOf(ht, bx.Name) == nil {
				pl.add(&Step{Step: "drop index " + bx.Name + " of " + ht.Name, Kind: StepDropIndex, Phase: PhaseCleanUp, Path: "indexes." + bx.Name, Online: true, table: ht.Name, class: class,
					Note: "once no deployed code queries it"})
			}
		}
	}
	for _, bt := range pl.base.Tables {
		if tableOf(pl.head, bt.Name) == nil {
			pl.add(&Step{Step: "delete table " + bt.Name, Kind: StepDeleteTable, Phase: PhaseCleanUp, Path: "tables." + bt.Name, Online: true, table: bt.Name, class: estimate.Class(bt),
				Note: "its items are lost: export it first if they are wanted"})
		}
	}
}

// settings adds a step for every setting of a table that UpdateTable or
// UpdateTimeToLive changes in place, without writing an item.
func (pl *planner) settings(bt, ht *catalog.Table, class capacity.Class) {
	set := func(what, was, now, note string) {
		if was == now {
			return
		}
		pl.add(&Step{Step: fmt.Sprintf("table %s: %s %s -> %s", ht.Name, what, orNone(was), orNone(now)), Kind: StepTableSetting, Phase: PhasePrepare,
			Path: "tables." + ht.Name, Online: true, table: ht.Name, class: class, Note: note})
	}
	set("class", bt.Class, ht.Class, "UpdateTable; at most two class changes in 30 days; the month's storage and requests change as the cost section shows")
	set("billing", billingText(bt.Billing), billingText(ht.Billing), "UpdateTable; the billing mode changes at most once in 24 hours")
	set("warm throughput", tputText(bt.Billing.WarmThroughput), tputText(ht.Billing.WarmThroughput), "UpdateTable WarmThroughput; AWS bills raising warm throughput once, a figure capacity's price table does not hold: not priced here")
	set("TTL", bt.TTL, ht.TTL, "UpdateTimeToLive; TTL deletes consume no write units; moving TTL to another attribute disables it first, and it can be enabled again only an hour later; items without the attribute never expire")
	set("stream", streamText(bt.Stream), streamText(ht.Stream), "UpdateTable StreamSpecification; a new stream starts empty, its consumers see only later writes")
	set("point-in-time recovery", fmt.Sprint(bt.PITR), fmt.Sprint(ht.PITR), "UpdateContinuousBackups")
}

func (pl *planner) entities() {
	for _, he := range pl.head.Entities {
		be := entityOf(pl.base, he.Name)
		if be == nil {
			continue
		}
		ht := tableOf(pl.head, he.Table.Name)
		bt := tableOf(pl.base, be.Table.Name)
		if ht == nil || bt == nil || tableShape(bt) != tableShape(ht) && bt.Name == ht.Name {
			continue // the table's copy rewrites it
		}
		// The old item is deleted from its table as it stands then: with
		// HEAD's indexes when HEAD keeps the table (the index steps come
		// first), else as BASE left it.
		hct, bct := estimate.Table(ht), estimate.Table(bt)
		if t := tableOf(pl.head, bt.Name); t != nil {
			bct = estimate.Table(t)
		}
		rate, src := writeRate(ht)
		class := estimate.Class(ht)
		moved := be.Table.Name != he.Table.Name
		var keys []string
		for _, k := range he.Key {
			if keyTemplate(be, k.Attribute) != k.Template.Text {
				keys = append(keys, k.Attribute)
			}
		}
		if moved || len(keys) > 0 {
			s := &Step{Kind: StepRewriteEntity, Phase: PhaseBackfill, Path: "entities." + he.Name + ".key", Online: true, DualWrite: true,
				Rate: rate, RateSource: src, table: ht.Name, class: class, scanned: bt.Name,
				Step: fmt.Sprintf("rewrite every %s item with its new key (%s): a put of the new item, a delete of the old, read by a scan of %s", he.Name, strings.Join(keys, ", "), bt.Name),
				Note: "the application writes both the old and the new item from before the scan starts until HEAD's code is deployed; an export to S3 instead of the scan reads no capacity"}
			if moved {
				s.Kind, s.Path = StepMoveEntity, "entities."+he.Name+".table"
				s.Step = fmt.Sprintf("move every %s item from %s to %s: a put into the new table, a delete from the old, read by a scan", he.Name, bt.Name, ht.Name)
			}
			s.probes = append(s.probes, entityProbe{be.Name, func(it attr.Item) float64 {
				after := rekey(be, he, it)
				return pl.rules.Write(hct, capacity.WriteOp{Kind: capacity.Put, After: after}).Total().Write +
					pl.rules.Write(bct, capacity.WriteOp{Kind: capacity.Delete, Before: it}).Total().Write
			}})
			pl.add(s)
		}
		for _, ba := range be.Attributes {
			if ba.Presence == catalog.KeyOnly || (ba.Attribute != nil && !ba.Attribute.Stored) || he.Has(ba.Name) != "" {
				continue
			}
			name := ba.Name
			pl.add(&Step{Kind: StepRemoveAttribute, Phase: PhaseCleanUp, Path: "entities." + he.Name + ".attributes." + name, Online: true,
				Rate: rate, RateSource: src, table: ht.Name, class: class,
				Step: fmt.Sprintf("remove %s from every %s item that carries it (UpdateItem REMOVE)", name, he.Name),
				Note: "optional: HEAD's code ignores it, but it is stored and billed until removed; run it after no deployed code reads it",
				probes: []entityProbe{{be.Name, func(it attr.Item) float64 {
					if _, ok := it.Get(name); !ok {
						return 0
					}
					return pl.rules.Write(hct, capacity.WriteOp{Kind: capacity.Update, Before: it, After: it.Without(name)}).Total().Write
				}}}})
		}
		for _, ha := range he.Attributes {
			if ha.Presence != catalog.Required || be.Has(ha.Name) != "" || len(ha.When) > 0 || len(ha.Unless) > 0 {
				continue
			}
			name := ha.Name
			v, ok := firstValue(he, name)
			s := &Step{Kind: StepBackfillAttr, Phase: PhaseBackfill, Path: "entities." + he.Name + ".attributes." + name, Online: true, DualWrite: true,
				Rate: rate, RateSource: src, table: ht.Name, class: class,
				Step: fmt.Sprintf("set %s on every %s item written before HEAD (UpdateItem), sized as HEAD's first sample holds it", name, he.Name),
				Note: "HEAD's code writes it on every new item; the items written before lack it until this step"}
			if !ok {
				s.Note += "; HEAD's samples give no value to size it by: not priced"
			} else {
				s.probes = []entityProbe{{be.Name, func(it attr.Item) float64 {
					return pl.rules.Write(hct, capacity.WriteOp{Kind: capacity.Update, Before: it, After: it.With(name, v)}).Total().Write
				}}}
			}
			pl.add(s)
		}
	}
}

// firstValue is the value of attribute name in the first sample of e
// that has it.
func firstValue(e *catalog.Entity, name string) (attr.Value, bool) {
	for _, s := range e.Samples {
		if v, ok := s.Item.Get(name); ok {
			return v, true
		}
	}
	return attr.Value{}, false
}

// rekey returns item it, an item of BASE's entity be, with the table
// keys HEAD's entity he renders: from the item's attributes, and from
// the placeholders BASE's keys hold (a key-only input such as a civil
// date is read back from the old key, as a migration script would). A
// key HEAD cannot render keeps its old value.
func rekey(be, he *catalog.Entity, it attr.Item) attr.Item {
	values := make(map[string]attr.Value, len(it))
	for _, k := range be.Key {
		v, ok := it.Get(k.Attribute)
		if !ok || v.Type != attr.S {
			continue
		}
		parts, ok := k.Template.Match(v.Str)
		if !ok {
			continue
		}
		for name, text := range parts {
			values[name] = placeholderValue(be, name, text)
		}
	}
	for _, f := range it {
		values[f.Name] = f.Value
	}
	out := it
	for _, k := range he.Key {
		if v, err := k.Value(values, ""); err == nil {
			out = out.With(k.Attribute, v)
		}
	}
	return out
}

// placeholderValue types the text a key held for placeholder name as
// the entity's attribute is typed: a number without its padding, else a
// string.
func placeholderValue(e *catalog.Entity, name, text string) attr.Value {
	for _, ea := range e.Attributes {
		if ea.Name == name && ea.Attribute != nil && ea.Attribute.Type == attr.N {
			if t := strings.TrimLeft(text, "0"); t != "" {
				return attr.Num(t)
			}
			return attr.Num("0")
		}
	}
	return attr.Str(text)
}

// itemBytes is a probe of an item's size, for the scans that read a
// table.
func (pl *planner) itemBytes(it attr.Item) float64 { return float64(pl.rules.ItemSize(it)) }

// measure draws BASE's population once for every probe of every step,
// and works out each step's units, dollars and duration.
func (pl *planner) measure() {
	probes := map[string][]probe{}
	type at struct {
		entity string
		i      int
	}
	where := map[*Step][]at{}
	scanIdx := map[string]int{} // entity -> index of its size probe
	for _, s := range pl.steps {
		for _, p := range s.probes {
			where[s] = append(where[s], at{p.entity, len(probes[p.entity])})
			probes[p.entity] = append(probes[p.entity], p.units)
		}
		if s.scanned != "" {
			if bt := tableOf(pl.base, s.scanned); bt != nil {
				for _, e := range bt.Entities {
					if _, ok := scanIdx[e.Name]; !ok {
						scanIdx[e.Name] = len(probes[e.Name])
						probes[e.Name] = append(probes[e.Name], pl.itemBytes)
					}
				}
			}
		}
	}
	if len(probes) == 0 {
		return
	}
	// A second probe per step and entity: the share of items written.
	mean, drawn := means(pl.base, withShares(probes))
	for _, s := range pl.steps {
		for _, a := range where[s] {
			e := entityOf(pl.base, a.entity)
			n := population(e)
			m := mean[a.entity]
			var u, share float64
			if m != nil {
				u, share = m[2*a.i], m[2*a.i+1]
			}
			s.Entities = append(s.Entities, EntityUnits{Entity: a.entity, Items: n, Mean: u, Drawn: drawn[a.entity], Writes: share})
			s.WriteUnits += n * u
			s.Items += n * share
		}
		if s.scanned != "" {
			var bytes float64
			if bt := tableOf(pl.base, s.scanned); bt != nil {
				for _, e := range bt.Entities {
					if m := mean[e.Name]; m != nil {
						bytes += population(e) * m[2*scanIdx[e.Name]]
					}
				}
			}
			s.ReadUnits = scanUnits(bytes)
			gb := capacity.GB(bytes, estimate.New(pl.base, pl.rules).GB)
			s.Note += fmt.Sprintf(" (the export: %s GB of items, US$ %s)", estimate.Num(math.Round(gb*100)/100), estimate.USD(pl.prices.Export(gb)))
		}
		s.USD = pl.prices.OnDemand(s.WriteUnits, s.ReadUnits, s.class)
		if s.Rate > 0 {
			s.Seconds = s.WriteUnits / s.Rate
		}
	}
	for _, s := range pl.steps {
		slices.SortFunc(s.Entities, func(a, b EntityUnits) int { return compareNames(a.Entity, b.Entity) })
	}
}

// withShares pairs every probe with one that says whether it wrote.
func withShares(probes map[string][]probe) map[string][]probe {
	out := make(map[string][]probe, len(probes))
	for e, ps := range probes {
		for _, p := range ps {
			p := p
			out[e] = append(out[e], p, func(it attr.Item) float64 {
				if p(it) > 0 {
					return 1
				}
				return 0
			})
		}
	}
	return out
}

// scanPage is the most a Scan reads in one request.
const scanPage = 1 << 20

// scanUnits is what an eventually consistent scan of bytes of items
// consumes: full pages of 1 MB, each rounded on its own, and the rest.
func scanUnits(bytes float64) float64 {
	if bytes <= 0 {
		return 0
	}
	full := math.Floor(bytes / scanPage)
	u := full * capacity.ReadUnits(scanPage, capacity.Eventual)
	if rest := int(bytes - full*scanPage); rest > 0 {
		u += capacity.ReadUnits(rest, capacity.Eventual)
	}
	return u
}
