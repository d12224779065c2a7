package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/throughput"
)

// The population, placed without being stored: the dataset generator's
// model of it (the same items, value for value, a full run would write)
// is sampled, root items at evenly spaced indexes with every item hanging
// off them, and each sampled item stands for Total/Sample items of its
// tree. Where the items and their index entries land (the hash of their
// partition keys) and what they weigh gives the data of every partition,
// from which the partitions split by size; the values the sample holds
// name the values the model only ranks (the largest tenant). Memory and
// time depend on the sample, not on the number of items.

// DefaultSample is how many items of each root entity are sampled.
const DefaultSample = 1024

// population is what the sample found.
type population struct {
	roots, items int
	total        float64 // the items the sample stands for
	note         string
	// data per table and index: sizes (GB) at the hashes of the sampled
	// items, and in all.
	data map[resKey][]throughput.Point
	gb   map[resKey]float64
	// values of the partition-key attributes, heaviest first.
	values map[string][]string
	// held are the values of those attributes each entity's items hold
	// (by entity, then attribute): value -> the share of the entity's
	// items holding the attribute.
	held map[string]map[string]map[string]float64
	asOf time.Time
	loc  *time.Location
}

// resKey names a table ("" index) or index.
type resKey struct{ table, index string }

// sample draws the population sample. A model whose population the
// generator cannot build is placed from its declared and computed sizes
// alone; note says why.
func sample(m *catalog.Model, rules capacity.Rules, scale float64, n int, seed uint64, asOf time.Time) *population {
	out := &population{data: map[resKey][]throughput.Point{}, gb: map[resKey]float64{}, values: map[string][]string{}, held: map[string]map[string]map[string]float64{}}
	p, err := dataset.New(m, dataset.Options{Scale: scale, Seed: seed, AsOf: asOf})
	if err != nil {
		out.note = "population not sampled (" + err.Error() + "): partitions sized from the tables' sizes, spread evenly"
		return out
	}
	out.asOf, out.loc = p.AsOf, p.Loc
	if len(p.Roots) == 0 {
		out.note = "the model declares no population: partitions sized from the tables' sizes, spread evenly"
		return out
	}
	keyed := keyAttributes(m)
	tables := map[*catalog.Table]*capacity.Table{}
	for _, t := range m.Tables {
		tables[t] = estimate.Table(t)
	}
	counts := map[string]map[string]float64{}
	weight := 0.0
	gn := p.NewGenerator(func(nd *dataset.Node, it attr.Item) {
		out.items++
		out.total += weight
		t := nd.Entity.Table
		if t == nil {
			return
		}
		ct := tables[t]
		held := out.held[nd.Entity.Name]
		if held == nil {
			held = map[string]map[string]float64{}
			out.held[nd.Entity.Name] = held
		}
		for _, f := range it {
			if keyed[f.Name] && (f.Value.Type == attr.S || f.Value.Type == attr.N) {
				// The generator reuses its items' memory, and a map
				// assignment stores its key even when the key is there
				// already: a value kept as a key is a copy.
				v := strings.Clone(f.Value.Str)
				tally(held, f.Name, v, weight)
				tally(counts, f.Name, v, weight)
			}
		}
		if pk, ok := it.Get(t.PartitionKey); ok {
			// The item and its local index entries, which share its
			// partition.
			bytes := rules.ItemSize(it) + capacity.ItemOverhead
			for i := range ct.LSIs {
				if e, ok := rules.EntrySize(ct, &ct.LSIs[i], it); ok {
					bytes += e + capacity.ItemOverhead
				}
			}
			gb := float64(bytes) * weight / 1e9
			k := resKey{t.Name, ""}
			out.data[k] = append(out.data[k], throughput.Point{Hash: engine.PartitionHash(pk), Weight: gb})
			out.gb[k] += gb
		}
		for i := range ct.GSIs {
			ix := &ct.GSIs[i]
			size, in := rules.EntrySize(ct, ix, it)
			if !in {
				continue
			}
			x := m.Index(ix.Name)
			if x == nil {
				continue
			}
			vals := make([]attr.Value, 0, len(x.Partition))
			for _, a := range x.Partition {
				v, _ := it.Get(a)
				vals = append(vals, v)
			}
			gb := float64(size+capacity.ItemOverhead) * weight / 1e9
			k := resKey{t.Name, ix.Name}
			out.data[k] = append(out.data[k], throughput.Point{Hash: engine.PartitionHash(vals...), Weight: gb})
			out.gb[k] += gb
		}
	})
	for _, r := range p.Roots {
		if r.Total <= 0 {
			continue
		}
		s := int64(min(n, int(min(r.Total, 1<<31))))
		weight = float64(r.Total) / float64(s)
		for k := range s {
			if err := gn.Tree(r, (2*k+1)*r.Total/(2*s)); err != nil {
				out.note = fmt.Sprintf("population sample of %s stopped: %v", r.Name(), err)
				break
			}
			out.roots++
		}
	}
	for a, c := range counts {
		vs := make([]string, 0, len(c))
		for v := range c {
			vs = append(vs, v)
		}
		slices.SortFunc(vs, func(x, y string) int {
			if c := cmp.Compare(c[y], c[x]); c != 0 {
				return c
			}
			return natural(x, y)
		})
		out.values[a] = vs
	}
	for _, byAttr := range out.held {
		for _, h := range byAttr {
			sum := 0.0
			for _, w := range h {
				sum += w
			}
			for v := range h {
				h[v] /= sum
			}
		}
	}
	return out
}

// tally adds w to value v of attribute a, up to MaxSpreadValues values
// an attribute (more read as one per item).
func tally(m map[string]map[string]float64, a, v string, w float64) {
	c := m[a]
	if c == nil {
		c = map[string]float64{}
		m[a] = c
	}
	if len(c) < estimate.MaxSpreadValues || c[v] > 0 {
		c[v] += w
	}
}

// natural orders numbers as numbers and text as text.
func natural(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a, b)
}

// keyAttributes are the attributes of every partition key: the
// placeholders of the tables' partition key templates and the indexes'
// partition attributes.
func keyAttributes(m *catalog.Model) map[string]bool {
	out := map[string]bool{}
	for _, x := range m.Indexes {
		for _, a := range x.Partition {
			out[a] = true
		}
	}
	for _, e := range m.Entities {
		if e.Table == nil {
			continue
		}
		for _, k := range e.Key {
			if k.Attribute == e.Table.PartitionKey {
				for _, ph := range k.Template.Placeholders() {
					out[ph] = true
				}
			}
		}
	}
	return out
}
