package dataset

import (
	"math"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// measureItems is about how many items Measure generates under each
// root entity: enough for every entity that holds a noticeable share of
// the storage to be measured within a percent or two.
const measureItems = 32768

// measurePopulation is the size of the population Measure draws from.
const measurePopulation = 1 << 19

// measureBytes bounds the bytes of the items Measure generates under
// each root entity: a model whose items are large (long lists, big
// texts) is measured on fewer trees, so that cost's work follows the
// model's size, not its items' size times measureItems.
const measureBytes = 64 << 20

// measureStretches is how many runs of consecutive roots Measure spreads
// them over.
const measureStretches = 16

// Measure sizes every entity's items as the model's population draws
// them: trees of each root entity spread evenly over its population (so
// that an attribute spread by exact shares over the roots, the largest
// tenant's 60% first, is seen across all its values), generated at scale
// 1 (or the scale that leaves half a million items) as of the model's
// dataset day, each item sized by rules as a run
// sizes it. Cost prices storage with these means
// (estimate.Options.Measured), so that it follows the shares the model
// declares (states, optional attributes, presence rules, the index
// entries they enter, values' lengths) rather than one sample; an entity
// without items in the measured trees is left out, and cost sizes it by
// its first sample.
func Measure(m *catalog.Model, rules capacity.Rules) (map[string]estimate.Measured, error) {
	p, err := New(m, Options{Scale: 1, Seed: 1})
	if err != nil {
		return nil, err
	}
	// Unique values numbered across the population are counted over all
	// of it before any tree is made: a population of millions is
	// measured at a scale that leaves it measurePopulation items (the
	// numbers are as wide, padded as their patterns say, and the shares
	// as exact).
	var total float64
	for _, r := range p.Roots {
		total += float64(r.Total) * p.subtree(r)
	}
	if total > measurePopulation {
		if p, err = New(m, Options{Scale: measurePopulation / total, Seed: 1}); err != nil {
			return nil, err
		}
	}
	tables := estimateTables(m)
	stats := make([]estimate.Measured, len(p.Nodes))
	gn := p.NewGenerator(func(n *Node, it attr.Item) {
		st := &stats[n.ix]
		st.Items++
		st.ItemBytes += float64(rules.ItemSize(it))
		st.StoredBytes += float64(rules.StoredBytes(tables[n.Entity.Table], it, false))
		st.GSIBytes += float64(rules.GSIStoredBytes(tables[n.Entity.Table], it))
	})
	for _, r := range p.Roots {
		trees := int64(math.Ceil(measureItems / p.subtree(r)))
		trees = min(max(trees, 1), r.Total, max(1, measureBytes/treeBytes(p, r, rules)))
		// measureStretches runs of consecutive trees, each starting in the
		// middle of its share of the population: the generator counts
		// ordinals once per run, not once per tree.
		runs := min(trees, measureStretches)
		for k := int64(0); k < runs; k++ {
			lo := int64((float64(k) + 0.5) * float64(r.Total) / float64(runs))
			n := trees / runs
			if k < trees%runs {
				n++
			}
			lo = min(lo, r.Total-n)
			if err := gn.stretch(r, lo, lo+n); err != nil {
				return nil, err
			}
		}
	}
	out := map[string]estimate.Measured{}
	for i, n := range p.Nodes {
		st := stats[i]
		if st.Items == 0 {
			continue
		}
		st.ItemBytes /= float64(st.Items)
		st.StoredBytes /= float64(st.Items)
		st.GSIBytes /= float64(st.Items)
		out[n.Name()] = st
	}
	return out, nil
}

// treeBytes generates the first tree of r apart and returns its bytes
// (at least 1), the size of a tree Measure budgets by.
func treeBytes(p *Population, r *Node, rules capacity.Rules) int64 {
	n := int64(1)
	gn := p.NewGenerator(func(_ *Node, it attr.Item) { n += int64(rules.ItemSize(it)) })
	if r.Total > 0 {
		_ = gn.Tree(r, 0) // an error is Measure's to report, from its own trees
	}
	return n
}

// stretch generates the trees of roots [lo, hi) of r, as a run of the
// population would: the first as Tree does, the next ones going on from
// it, a new block's ordinals taken up where one begins.
func (gn *Generator) stretch(r *Node, lo, hi int64) error {
	if lo >= hi {
		return nil
	}
	if err := gn.Tree(r, lo); err != nil {
		return err
	}
	off, err := gn.p.offsets()
	if err != nil {
		return err
	}
	size := gn.p.blockSize(r)
	for i := lo + 1; i < hi; i++ {
		if i%size == 0 {
			gn.g.startBlock(off, r, int(i/size))
		}
		gn.g.root(r, i)
	}
	return nil
}
