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
	ItemBytes   int `json:"itemBytes"`
	StoredBytes int `json:"storedBytes"`
	// GSIBytes is the part of StoredBytes in global secondary indexes,
	// which point-in-time recovery and exports do not bill.
	GSIBytes   int            `json:"gsiBytes,omitempty"`
	EntryBytes map[string]int `json:"entryBytes,omitempty"` // index -> entry size
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
	// GSIStoredBytes is the part of StoredBytes in global secondary
	// indexes. DataGB is the rest in GB, the table's data and its local
	// secondary indexes: what point-in-time recovery and an export to S3
	// are billed on; DataSource says how it was reached.
	GSIStoredBytes float64 `json:"gsiStoredBytes"`
	DataGB         float64 `json:"dataGB"`
	DataSource     string  `json:"dataSource"`
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
	GSIBytes    float64 `json:"gsiBytes"`    // the part of StoredBytes in GSIs
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
			es.GSIBytes = e.Rules.GSIStoredBytes(ct, it)
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
		item, stored, gsi := float64(es.ItemBytes), float64(es.StoredBytes), float64(es.GSIBytes)
		if ms, ok := measured[en.Name]; ok && ms.Items > 0 {
			item, stored, gsi = ms.ItemBytes, ms.StoredBytes, ms.GSIBytes
			es.MeasuredItems = ms.Items
			es.ItemBytes, es.StoredBytes, es.GSIBytes = int(math.Round(item)), int(math.Round(stored)), int(math.Round(gsi))
		}
		ts.ItemBytes += es.Items * item
		ts.StoredBytes += es.Items * stored
		ts.GSIStoredBytes += es.Items * gsi
		ts.Entities = append(ts.Entities, es)
	}
	ts.ComputedGB = capacity.GB(ts.StoredBytes, e.GB)
	ts.GB = ts.ComputedGB
	if t.SizeGB != nil {
		ts.GB = *t.SizeGB
	}
	ts.data(len(ct.GSIs) > 0)
	return ts
}

// data works out DataGB, the table's data and LSIs without its GSIs: from
// the populations' figures, or, when the table's size is declared, the
// declared GB times the share of it the populations' figures put outside
// the GSIs (a declared size is the whole table's, GSIs included).
func (ts *TableSize) data(gsis bool) {
	basis := "samples"
	for _, es := range ts.Entities {
		if es.MeasuredItems > 0 {
			basis = "generated items"
			break
		}
	}
	switch {
	case !gsis && ts.DeclaredGB != nil:
		ts.DataGB, ts.DataSource = ts.GB, "the declared size (the table has no GSI)"
	case !gsis:
		ts.DataGB, ts.DataSource = ts.GB, "the table's size (it has no GSI)"
	case ts.StoredBytes <= 0 && ts.DeclaredGB != nil:
		ts.DataGB, ts.DataSource = ts.GB, "the declared size, whole: no populations to tell its GSIs' share"
	case ts.StoredBytes <= 0:
		ts.DataGB, ts.DataSource = 0, "no populations"
	case ts.DeclaredGB != nil:
		share := (ts.StoredBytes - ts.GSIStoredBytes) / ts.StoredBytes
		ts.DataGB = ts.GB * share
		ts.DataSource = fmt.Sprintf("the declared %s GB x %s, the share outside the GSIs that populations and %s give", Num(ts.GB), Pct(math.Round(share*1000)/1000), basis)
	default:
		ts.DataGB = ts.ComputedGB * (ts.StoredBytes - ts.GSIStoredBytes) / ts.StoredBytes
		ts.DataSource = "populations and " + basis + ", GSI entries left out"
	}
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
