package estimate

import (
	"fmt"
	"math"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// EntitySize is what the items of one entity weigh at the declared scale,
// sized from the entity's first sample (its typical item), or, for
// storage, from the items the model's population draws (Measured).
type EntitySize struct {
	Entity string `json:"entity"`
	Sample string `json:"sample,omitempty"`
	// MeasuredItems is how many generated items sized ItemBytes and
	// StoredBytes (their means, rounded); 0 when the sample did.
	MeasuredItems int64   `json:"measuredItems,omitempty"`
	Items         float64 `json:"items"` // population; 0 when unknown
	Known         bool    `json:"known"` // the population could be worked out
	// ItemBytes is the sample's size; StoredBytes adds the 100 B overhead
	// and the entries of every index the sample enters, each with its own.
	ItemBytes   int            `json:"itemBytes"`
	StoredBytes int            `json:"storedBytes"`
	EntryBytes  map[string]int `json:"entryBytes,omitempty"` // index -> entry size
}

// TableSize is a table's data and billed storage.
type TableSize struct {
	Table    string       `json:"table"`
	Class    string       `json:"class"`
	Entities []EntitySize `json:"entities"`
	// ItemBytes is the items' data (what a Scan reads); StoredBytes the
	// billed storage with overheads and index entries, both computed.
	ItemBytes   float64 `json:"itemBytes"`
	StoredBytes float64 `json:"storedBytes"`
	// ComputedGB is StoredBytes in GB; DeclaredGB the table's sizeGB; GB
	// the figure the bill uses: the declared one when present.
	ComputedGB float64  `json:"computedGB"`
	DeclaredGB *float64 `json:"declaredGB,omitempty"`
	GB         float64  `json:"gb"`
}

// Measured is what an entity's items weigh as the model's population
// draws them (dataset.Measure): the mean of the items measured.
// The means follow the shares the model declares (states, optional
// attributes and their presence rules, values' lengths), which one
// sample cannot.
type Measured struct {
	Items       int64   `json:"items"`
	ItemBytes   float64 `json:"itemBytes"`
	StoredBytes float64 `json:"storedBytes"` // index entries and overheads included
}

// Population returns how many items of the entity exist at the declared
// scale, as the catalog counts them (a total, or a count per parent item
// followed up the chain). ok is false when the model does not say.
func (e *Estimator) Population(en *catalog.Entity) (n float64, ok bool) {
	if en.Population == nil || !en.Population.Known {
		return 0, false
	}
	return en.Population.Items, true
}

// Sizes works out every table's size from the entities' populations and
// typical samples.
func (e *Estimator) Sizes() []TableSize {
	var out []TableSize
	for _, t := range e.Model.Tables {
		out = append(out, e.Size(t))
	}
	return out
}

// Size works out one table's size from its entities' samples.
func (e *Estimator) Size(t *catalog.Table) TableSize { return e.Storage(t, nil) }

// Storage works out one table's size, each entity's items sized by its
// measured means when measured has them (by entity name), else by its
// first sample.
func (e *Estimator) Storage(t *catalog.Table, measured map[string]Measured) TableSize {
	ct := e.tables[t]
	ts := TableSize{Table: t.Name, Class: Class(t).String(), DeclaredGB: t.SizeGB}
	for _, en := range t.Entities {
		es := EntitySize{Entity: en.Name}
		es.Items, es.Known = e.Population(en)
		if len(en.Samples) > 0 {
			it := en.Samples[0].Item
			es.Sample = en.Samples[0].Name
			es.ItemBytes = e.Rules.ItemSize(it)
			es.StoredBytes = e.Rules.StoredBytes(ct, it, false)
			for _, ixs := range [][]capacity.Index{ct.GSIs, ct.LSIs} {
				for i := range ixs {
					if n, ok := e.Rules.EntrySize(ct, &ixs[i], it); ok {
						if es.EntryBytes == nil {
							es.EntryBytes = map[string]int{}
						}
						es.EntryBytes[ixs[i].Name] = n
					}
				}
			}
		}
		item, stored := float64(es.ItemBytes), float64(es.StoredBytes)
		if ms, ok := measured[en.Name]; ok && ms.Items > 0 {
			item, stored = ms.ItemBytes, ms.StoredBytes
			es.MeasuredItems = ms.Items
			es.ItemBytes, es.StoredBytes = int(math.Round(item)), int(math.Round(stored))
		}
		ts.ItemBytes += es.Items * item
		ts.StoredBytes += es.Items * stored
		ts.Entities = append(ts.Entities, es)
	}
	ts.ComputedGB = capacity.GB(ts.StoredBytes, e.GB)
	ts.GB = ts.ComputedGB
	if t.SizeGB != nil {
		ts.GB = *t.SizeGB
	}
	return ts
}

// indexBytes is the data of an index at the declared scale: the entries
// of every entity's typical sample.
func (ts TableSize) indexBytes(index string) float64 {
	var n float64
	for _, es := range ts.Entities {
		n += es.Items * float64(es.EntryBytes[index])
	}
	return n
}

// scanAll charges a scan of a whole table or index: every item (entry) is
// read, in pages of 1 MB, each rounded on its own.
func (e *Estimator) scanAll(t *capacity.Table, q *catalog.Request) (capacity.Consumed, []capacity.Reason, error) {
	ts := e.Size(q.Table)
	bytes, what := ts.ItemBytes, "table "+t.Name
	src := "computed from populations and samples"
	var ix *capacity.Index
	local := false
	switch {
	case q.Index != nil:
		ix, local, _ = t.Index(q.Index.Name)
		bytes, what = ts.indexBytes(q.Index.Name), "index "+q.Index.Name
	case q.Table.SizeGB != nil:
		bytes = *q.Table.SizeGB * e.GB.Bytes()
		src = fmt.Sprintf("declared %s GB", Num(*q.Table.SizeGB))
	}
	if bytes <= 0 {
		return capacity.Consumed{}, nil, fmt.Errorf("the size of %s is unknown: declare the table's sizeGB or the entities' populations", what)
	}
	cons := consistency(q)
	full := math.Floor(bytes / capacity.PageBytes)
	rest := int(bytes - full*capacity.PageBytes)
	perPage := capacity.ReadUnits(capacity.PageBytes, cons)
	u := full * perPage
	pages := full
	if rest > 0 {
		u += capacity.ReadUnits(rest, cons)
		pages++
	}
	c := capacity.Consumed{TableName: t.Name}
	switch {
	case ix != nil && local:
		c.LSIs = map[string]capacity.Capacity{ix.Name: {Read: u}}
	case ix != nil:
		c.GSIs = map[string]capacity.Capacity{ix.Name: {Read: u}}
	default:
		c.Table.Read = u
	}
	why := []capacity.Reason{{Target: target(ix), Units: u, Rule: capacity.RulePage, Bytes: int(math.Min(bytes, math.MaxInt32)), Text: fmt.Sprintf(
		"%s scan of the whole %s, %s B (%s): %s pages of 1 MB at %s RRU each (256 x 4 KB%s), every item read is billed whatever a filter keeps: %s RRU",
		cons, what, Num(math.Round(bytes)), src, Num(pages), Num(perPage), halfNote(cons), Num(u))}}
	return c, why, nil
}

func halfNote(c capacity.Consistency) string {
	if c == capacity.Eventual {
		return " x 0.5"
	}
	return ""
}
