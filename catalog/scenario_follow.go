package catalog

// followSubjects checks the subjects a follow-up draws besides its
// cause's context (a new ride paired with an available driver): they
// are another entity than the items it follows, which are its subjects
// already. ptr is the load's.
func (r *resolver) followSubjects(ptr string, li *LoadItem) {
	pl := li.Plan
	if pl == nil || pl.Follows == nil || pl.Subjects == nil || pl.Subjects.Entity == nil {
		return
	}
	if f := pl.Follows; f.Each == EachItem && f.Entity == pl.Subjects.Entity {
		r.errAt(ptr+"/subjects/entity", false, "drop subjects, or draw another entity to pair with each item", "the load follows each %s its cause reads: those are its subjects already", f.Entity.Name)
	}
}
