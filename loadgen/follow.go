package loadgen

import "github.com/cardapio/cardapio/catalog"

// pairedContext is the context of follow-up arrival k of a load that
// draws subjects of its own besides its cause (a ride paired with an
// available driver): the drawn subject's context and the cause's, the
// load's subject first (the found item for a load that follows each
// item, else the drawn subject), an entity the first holds not taken
// again from the second. The subject is drawn as a load of its own draws
// it: at random (pick random), or each once in a shuffled order (pick
// each). The cause's context alone when the load draws no subjects;
// false when it has none left (then the arrival is not made).
func (l *loadRun) pairedContext(cause *Context, k int64, seed uint64) (*Context, bool) {
	if l.plan.Subjects == nil {
		return cause, true
	}
	drawn := l.subjectAt(k, seed)
	if drawn == nil {
		return nil, false
	}
	first, second := drawn, cause
	if l.plan.Follows != nil && l.plan.Follows.Each == catalog.EachItem {
		first, second = cause, drawn
	}
	out := &Context{block: drawn.block, row: drawn.row}
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
	return out, true
}

// subjectAt is the subject of arrival k of a load with subjects: drawn
// at random (pick random), or the k-th of its shuffled subjects (pick
// each); nil when there is none.
func (l *loadRun) subjectAt(k int64, seed uint64) *Context {
	n := int64(len(l.subjects))
	if n == 0 {
		return nil
	}
	idx := k
	if l.plan.Subjects.Pick == catalog.PickRandom {
		idx = int64(unit(seed, uint64(l.idx), uint64(k), 0x5b1ec7) * float64(n))
	}
	if idx >= n {
		return nil
	}
	return l.subjects[idx]
}
