package catalog

import (
	"fmt"
	"sort"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/expr"
)

// Optimistic locks, found from the model's own writes rather than from an
// attribute's name.
//
// An attribute is a lock of an entity when it is a number that some
// update of the entity both checks in its condition and writes
// (version = :expected with SET version = version + :one; a counter
// written under a limit, attempts < :max with ADD attempts :one), or when
// the entity carries it and its declared unit is version. An entity with a lock is written under a
// protocol: every write that can meet a concurrent one must take part in
// it, or it silently undoes the others' work. The review flags (no-version)
// the writes of a locked entity that do not:
//
//   - an update whose condition does not read the lock: the last writer
//     wins over a change it never saw;
//   - an update that checks the lock but does not change it: a concurrent
//     writer holding the same value also succeeds;
//   - a put that can replace an existing item, its condition reading
//     neither the lock nor a key attribute (attribute_not_exists(PK)
//     makes it a create, which cannot overwrite);
//   - a delete whose condition does not read the lock.

// writeExprs is what a write's expressions read and write, at the top
// level, names resolved.
type writeExprs struct {
	cond, writes, reads []string
}

// lockedWrite is one write of an entity with its pointer.
type lockedWrite struct {
	op  *Operation
	s   *Step
	ptr string
	x   writeExprs
}

// raceFindings warns on the writes of locked entities that bypass the lock.
func (r *resolver) raceFindings(m *Model) {
	var writes []lockedWrite
	for _, op := range m.Operations {
		scope := r.stepScope(op)
		for i, st := range op.Steps {
			sptr := p("operations", op.Name, "steps", i)
			actions, ptrs := []*Step{st}, []string{sptr + "/" + string(st.Kind)}
			if st.Kind == Transaction {
				actions, ptrs = st.Items, nil
				for j, a := range st.Items {
					ptrs = append(ptrs, fmt.Sprintf("%s/transaction/items/%d/%s", sptr, j, a.Kind))
				}
			}
			for j, a := range actions {
				if a.Request == nil || a.Request.Entity == nil || (a.Kind != Put && a.Kind != Update && a.Kind != Delete) {
					continue
				}
				x, ok := r.writeExprs(scope, a.Request)
				if ok {
					writes = append(writes, lockedWrite{op, a, ptrs[j], x})
				}
			}
		}
	}
	locks := map[*Entity][]string{}
	for _, w := range writes {
		if w.s.Kind != Update {
			continue
		}
		for _, a := range w.x.cond {
			at := r.attrs[a]
			if at != nil && at.Type == attr.N && contains(w.x.writes, a) && !contains(locks[w.s.Request.Entity], a) {
				locks[w.s.Request.Entity] = append(locks[w.s.Request.Entity], a)
			}
		}
	}
	for _, e := range m.Entities {
		for _, ea := range e.Attributes {
			if a := r.attrs[ea.Name]; a != nil && a.Unit == "version" && ea.Presence != KeyOnly && !contains(locks[e], a.Name) {
				locks[e] = append(locks[e], a.Name)
			}
		}
		sort.Strings(locks[e])
	}
	const hint = "check it in the condition (%[1]s = :expected) and change it in the update (%[1]s = %[1]s + :one)"
	for _, w := range writes {
		e := w.s.Request.Entity
		lock := locks[e]
		if len(lock) == 0 {
			continue
		}
		checked := ""
		for _, a := range lock {
			if contains(w.x.cond, a) {
				checked = a
			}
		}
		switch w.s.Kind {
		case Update:
			switch {
			case checked == "":
				r.warn(m, w.ptr, CodeNoVersion, fmt.Sprintf(hint, lock[0]),
					"an update of %s that does not check its lock %s: it can overwrite a concurrent change it never saw (the last writer silently wins)", e.Name, lock[0])
			case !contains(w.x.writes, checked):
				r.warn(m, w.ptr, CodeNoVersion, fmt.Sprintf("change it in the update: %[1]s = %[1]s + :one", checked),
					"an update of %s that checks %s but does not change it: a concurrent writer holding the same %s also succeeds", e.Name, checked, checked)
			}
		case Put:
			guarded := checked != ""
			for _, k := range e.Table.KeyAttributes() {
				guarded = guarded || contains(w.x.cond, k)
			}
			if !guarded {
				r.warn(m, w.ptr, CodeNoVersion, fmt.Sprintf("make it a create (attribute_not_exists(%s)), or check %s = :expected", e.Table.PartitionKey, lock[0]),
					"a put of %s that can replace an existing item whatever its %s: it can undo a concurrent change", e.Name, lock[0])
			}
		case Delete:
			if checked == "" {
				r.warn(m, w.ptr, CodeNoVersion, fmt.Sprintf("check it in the condition: %s = :expected", lock[0]),
					"a delete of %s that does not check its lock %s: it can delete a change it never saw", e.Name, lock[0])
			}
		}
	}
}

// stepScope types the values a step's expressions may use: the
// operation's parameters and every attribute a read binds.
func (r *resolver) stepScope(op *Operation) *opScope {
	sc := &opScope{r: r, op: op, params: map[string]attr.Type{}}
	for _, prm := range op.Params {
		sc.params[prm.Name] = prm.Type
	}
	for _, st := range op.Steps {
		for _, b := range st.Bind {
			if a := r.attrs[b]; a != nil {
				sc.params[b] = a.Type
			}
		}
	}
	return sc
}

// writeExprs parses a write's condition and update, as the resolver did,
// for the attributes they read and write.
func (r *resolver) writeExprs(scope *opScope, q *Request) (writeExprs, bool) {
	values := map[string]attr.Value{}
	var samples []string
	for _, nv := range q.Values {
		v, sample, ok := representative(nv.Value, scope)
		if !ok {
			return writeExprs{}, false
		}
		values[nv.Name] = v
		if sample {
			samples = append(samples, nv.Name)
		}
	}
	sc := expr.NewScope(q.Names, values).Samples(samples...)
	var x writeExprs
	if q.Condition != "" {
		c, err := sc.Condition(q.Condition)
		if err != nil {
			return x, false
		}
		x.cond = c.Attrs()
	}
	if q.Update != "" {
		u, err := sc.Update(q.Update)
		if err != nil {
			return x, false
		}
		x.writes, x.reads = u.Attrs(), u.Reads()
	}
	return x, true
}
