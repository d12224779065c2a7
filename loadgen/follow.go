package loadgen

import "github.com/cardapio/cardapio/catalog"

// subjectIndex is the number of the subject arrival k of a load with
// subjects takes: drawn at random (pick random), or the k-th of a
// seeded permutation (pick each); false when there is none. The subject
// itself is generated again by the worker that runs the arrival, so
// nothing of the population is held.
func (l *loadRun) subjectIndex(k int64, seed uint64) (int64, bool) {
	n := l.subjectCount()
	if n == 0 {
		return 0, false
	}
	idx := k
	if l.plan.Subjects.Pick == catalog.PickRandom {
		idx = int64(unit(seed, uint64(l.idx), uint64(k), 0x5b1ec7) * float64(n))
	} else if idx < n {
		idx = l.perm.at(idx)
	}
	return idx, idx < n
}

// paired is the context of a follow-up arrival that draws subjects of
// its own besides its cause (a ride paired with an available driver):
// the load's subject first (the found item for a load that follows each
// item, else the drawn subject), then the other's items of entities the
// first does not hold.
func (l *loadRun) paired(cause, drawn *Context) *Context {
	first, second := drawn, cause
	if l.plan.Follows != nil && l.plan.Follows.Each == catalog.EachItem {
		first, second = cause, drawn
	}
	out := &Context{block: drawn.block, row: drawn.row, tree: drawn.tree}
	if first != nil {
		out.Items = append(out.Items, first.Items...)
	}
	if second != nil {
		for _, it := range second.Items {
			if _, ok := out.Get(it.Entity); !ok {
				out.Items = append(out.Items, it)
			}
		}
	}
	return out
}
