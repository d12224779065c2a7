package dataset

import (
	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// footprintTrees is how many trees of each root Footprint generates to
// size its entities' items.
const footprintTrees = 8

// Size is what the items of one entity weigh at the population's scale.
type Size struct {
	Items       float64 // expected items
	ItemBytes   float64 // their bytes, as DynamoDB sizes an item
	StoredBytes float64 // the bytes a table stores for them: items and index entries, each with its overhead
}

// Footprint returns the expected size of every entity's items in the
// whole population, without generating it: the expected counts of the
// model's populations at the scale, times the mean size of the items of
// the first trees of each root (an entity none of them holds is sized
// by its first sample, else as 1 KB). A run sizes what it is about to
// hold with it before it writes anything.
func (p *Population) Footprint(rules capacity.Rules) map[*catalog.Entity]Size {
	tables := estimateTables(p.Model)
	type acc struct{ n, item, stored float64 }
	seen := make([]acc, len(p.Nodes))
	gn := p.NewGenerator(func(n *Node, it attr.Item) {
		a := &seen[n.ix]
		a.n++
		a.item += float64(rules.ItemSize(it))
		a.stored += float64(rules.StoredBytes(tables[n.Entity.Table], it, false))
	})
	expected := make([]float64, len(p.Nodes))
	for _, n := range p.Nodes { // every parent before its children
		if n.Parent == nil {
			expected[n.ix] = float64(n.Total)
			for i := int64(0); i < min(n.Total, footprintTrees); i++ {
				if gn.Tree(n, i) != nil {
					break
				}
			}
			continue
		}
		per := n.Count.Expected()
		if per < 0 {
			per = 1
		}
		expected[n.ix] = expected[n.Parent.ix] * per
	}
	out := map[*catalog.Entity]Size{}
	for _, n := range p.Nodes {
		item, stored := 1024.0, 1124.0
		if a := seen[n.ix]; a.n > 0 {
			item, stored = a.item/a.n, a.stored/a.n
		} else if len(n.Entity.Samples) > 0 {
			it := n.Entity.Samples[0].Item
			item, stored = float64(rules.ItemSize(it)), float64(rules.StoredBytes(tables[n.Entity.Table], it, false))
		}
		s := out[n.Entity]
		s.Items += expected[n.ix]
		s.ItemBytes += expected[n.ix] * item
		s.StoredBytes += expected[n.ix] * stored
		out[n.Entity] = s
	}
	return out
}
