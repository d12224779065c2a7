package diff

import (
	"math"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// samplePopulation is about how many items the population the means are
// drawn from holds: a model of hundreds of millions of items is drawn at
// the scale that leaves this many, whose blocks the generator numbers in
// milliseconds (the shares per parent do not change with the scale).
const samplePopulation = 1 << 17

// sampled is m's population at the scale that leaves about
// samplePopulation items, or at its declared scale when smaller.
func sampled(m *catalog.Model) (*dataset.Population, error) {
	p, err := dataset.New(m, dataset.Options{Scale: 1, Seed: 1})
	if err != nil {
		return nil, err
	}
	var total float64
	for _, n := range p.Nodes {
		if x, ok := p.Expected(n); ok {
			total += x
		}
	}
	if total <= samplePopulation {
		return p, nil
	}
	return dataset.New(m, dataset.Options{Scale: samplePopulation / total, Seed: 1})
}

// sampleTrees is how many item trees of each root entity the plan's
// means are measured on: enough for a mean within a percent or two, few
// enough for diff to answer in well under a second.
const sampleTrees = 1024

// probe is a per-item figure a step needs (write units, read bytes),
// measured on BASE's items as the population draws them.
type probe func(it attr.Item) float64

// means draws trees of every root entity of m's population, spread over
// it, and returns for each entity the mean of every probe over its
// items (by entity name, then probe), and how many items were drawn.
// An entity the population leaves out is measured on its first sample.
func means(m *catalog.Model, probes map[string][]probe) (map[string][]float64, map[string]int64) {
	sums := map[string][]float64{}
	counts := map[string]int64{}
	emit := func(name string, it attr.Item) {
		ps := probes[name]
		if len(ps) == 0 {
			return
		}
		s := sums[name]
		if s == nil {
			s = make([]float64, len(ps))
			sums[name] = s
		}
		for i, p := range ps {
			s[i] += p(it)
		}
		counts[name]++
	}
	if p, err := sampled(m); err == nil {
		gn := p.NewGenerator(func(n *dataset.Node, it attr.Item) { emit(n.Name(), it) })
		for _, r := range p.Roots {
			k := min(r.Total, sampleTrees)
			for j := int64(0); j < k; j++ {
				i := int64((float64(j) + 0.5) * float64(r.Total) / float64(k))
				if gn.Tree(r, min(i, r.Total-1)) != nil {
					break
				}
			}
		}
	}
	for _, e := range m.Entities {
		if counts[e.Name] == 0 && len(e.Samples) > 0 {
			emit(e.Name, e.Samples[0].Item)
		}
	}
	out := map[string][]float64{}
	for name, s := range sums {
		avg := make([]float64, len(s))
		for i := range s {
			avg[i] = s[i] / float64(counts[name])
		}
		out[name] = avg
	}
	return out, counts
}

// population is how many items of entity e exist at the declared scale,
// as the catalog's population model counts them (0 when it cannot).
func population(e *catalog.Entity) float64 {
	if e == nil || e.Population == nil || !e.Population.Known || math.IsNaN(e.Population.Items) {
		return 0
	}
	return e.Population.Items
}
