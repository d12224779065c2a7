package capacity

import "github.com/cardapio/cardapio/attr"

// PutPlan is Put worked out once for the items of one shape: a table and
// the attribute names its items may carry, in a fixed order. What every
// item of the shape shares (each name's bytes, which names key each index
// and which it projects) is computed here; Put then sizes each value once
// and adds the figures up, without looking names up. A synthetic
// population sizes hundreds of millions of items of a few dozen shapes.
type PutPlan struct {
	r       Rules
	nameLen []int
	ixs     []planIndex
}

type planIndex struct {
	keys []int // positions of the index's key attributes; all must be present scalars
	all  bool  // ALL projection: the entry is the item
	proj []int // otherwise: positions of the attributes the entry holds
	miss bool  // a key attribute is not among the names: never a member
}

// PutPlan returns the plan of the items of t whose attributes are drawn
// from names (in the order Put's values will come in; names unique).
func (r Rules) PutPlan(t *Table, names []string) *PutPlan {
	p := &PutPlan{r: r, nameLen: make([]int, len(names))}
	pos := map[string]int{}
	for i, n := range names {
		p.nameLen[i] = len(n)
		pos[n] = i
	}
	for _, ixs := range [2][]Index{t.GSIs, t.LSIs} {
		for i := range ixs {
			ix := &ixs[i]
			pi := planIndex{all: ix.Projection == ProjectAll}
			for _, ks := range [2][]string{ix.PK, ix.SK} {
				for _, k := range ks {
					j, ok := pos[k]
					if !ok {
						pi.miss = true
						continue
					}
					pi.keys = append(pi.keys, j)
				}
			}
			if !pi.all {
				for j, n := range names {
					if ix.projects(t, n) {
						pi.proj = append(pi.proj, j)
					}
				}
			}
			p.ixs = append(p.ixs, pi)
		}
	}
	return p
}

// Put returns the figures of a new item whose value of the plan's name i
// is vals[i], nil where the item lacks it: the same as Rules.Put on the
// item. sizes, when at least len(vals) long, receives each attribute's
// size (its name's bytes and its value's; 0 where absent), as scratch
// space that spares an allocation.
func (p *PutPlan) Put(vals []*attr.Value, sizes []int) PutFigures {
	if len(sizes) < len(vals) {
		sizes = make([]int, len(vals))
	}
	size := 0
	for i, v := range vals {
		if v == nil {
			sizes[i] = 0
			continue
		}
		s := p.r.size(v)
		sizes[i] = p.nameLen[i] + s
		size += sizes[i]
	}
	f := PutFigures{Size: size, WriteUnits: WriteUnits(size), StoredBytes: size + ItemOverhead}
	for i := range p.ixs {
		ix := &p.ixs[i]
		if ix.miss {
			continue
		}
		member := true
		for _, j := range ix.keys {
			if v := vals[j]; v == nil || !v.Type.IsScalar() {
				member = false
				break
			}
		}
		if !member {
			continue
		}
		e := size
		if !ix.all {
			e = 0
			for _, j := range ix.proj {
				e += sizes[j]
			}
		}
		f.WriteUnits += WriteUnits(e)
		f.StoredBytes += e + ItemOverhead
	}
	return f
}
