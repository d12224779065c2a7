package loadgen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
)

// A run reaches few of the population's trees: those holding a subject
// of its loads (and the items of their contexts), and those a query can
// find, whose keys carry a value the run's arrivals pass (the tenants a
// spread source hands out, say). Writing only those trees keeps every
// outcome of the run: an item no request can address is never read,
// and the invariants, checked on what the tables hold, see every item
// the run could have changed. The population is still generated whole
// (the subjects, the counts of the spread sources and the largest
// values are the whole population's); only the writes are cut.
//
// reachPlan decides whether the cut is sound for a run, from the steps
// of its operations and the sources of their key parameters: a scan of
// everything, a query, or a read or conditional write by key whose key
// takes no value from an arrival's context, its cause, an earlier
// step's read or a spread source could find any item: the run then
// writes the whole population.

// reach is the cut: the spread attributes whose values bound the
// queries, and the loads that hand them out.
type reach struct {
	attrs []string              // sorted
	by    map[string][]*loadRun // attribute -> the loads whose arrivals pass its values
	// why says, when the cut is off, what makes it unsound.
	why string
}

// reachPlan analyses the loads of a run.
func reachPlan(loads []*loadRun) *reach {
	rc := &reach{by: map[string][]*loadRun{}}
	for _, l := range loads {
		if why := rc.add(l); why != "" {
			return &reach{why: fmt.Sprintf("load %s: %s", l.name, why)}
		}
	}
	for a := range rc.by {
		rc.attrs = append(rc.attrs, a)
	}
	sort.Strings(rc.attrs)
	return rc
}

// add analyses one load; a non-empty answer says why its requests may
// reach any item.
func (rc *reach) add(l *loadRun) string {
	sources := map[string][]*catalog.Source{}
	for _, cm := range l.mix {
		for _, s := range cm.sources {
			sources[s.Param.Name] = append(sources[s.Param.Name], s)
		}
	}
	// bound tells whether a parameter's value ties a key to what the
	// arrival is about; spread names the attribute when it is a spread
	// source's.
	bound := func(param string) (ok bool, spread string) {
		ss, given := sources[param]
		if !given {
			// Bound by an earlier step's read: an item the run reached.
			return true, ""
		}
		ok = true
		for _, s := range ss {
			switch s.Kind {
			case catalog.SourceCopy, catalog.SourceMap, catalog.SourceExpr:
				if s.Path != nil && (s.Path.Clock || s.Path.AsOf) {
					ok = false
				}
			case catalog.SourceTemplate:
				has := false
				for _, t := range s.Template {
					has = has || t.Path != nil && (t.Path.Entity != nil || t.Path.Cause || t.Path.Param != "")
				}
				ok = ok && has
			case catalog.SourceUnique:
				// A new item's key: nothing there to reach.
			case catalog.SourceSpread:
				spread = s.Attr.Name
			default:
				ok = false
			}
		}
		return ok, spread
	}
	var why string
	var walk func(ss []*catalog.Step)
	walk = func(ss []*catalog.Step) {
		for _, st := range ss {
			if why != "" {
				return
			}
			walk(st.Items)
			r := st.Request
			if r == nil {
				continue
			}
			var ops []catalog.Operand
			switch st.Kind {
			case catalog.Scan:
				why = fmt.Sprintf("step %s scans", st.ID)
				return
			case catalog.Put:
				// A put keyed by the arrival's values: a condition on what
				// is there reads the same key as any write would.
				for _, a := range r.Key {
					ops = append(ops, a.Value)
				}
				if len(ops) == 0 || r.Condition == "" {
					continue
				}
			case catalog.Query:
				for _, kc := range r.KeyCondition {
					if kc.Op == catalog.OpEq {
						ops = append(ops, kc.Operands...)
					}
				}
			default:
				for _, a := range r.Key {
					ops = append(ops, a.Value)
				}
			}
			any, spreads := false, map[string]bool{}
			for _, p := range operandParams(ops) {
				ok, sp := bound(p)
				if sp != "" {
					spreads[sp] = true
				} else if ok {
					any = true
				}
			}
			switch {
			case any:
			case len(spreads) > 0:
				for a := range spreads {
					rc.by[a] = appendLoad(rc.by[a], l)
				}
			case len(ops) > 0 || st.Kind == catalog.Query:
				why = fmt.Sprintf("step %s: its key takes no value of the arrival's context", st.ID)
			}
		}
	}
	walk(l.op.Steps)
	return why
}

func appendLoad(ls []*loadRun, l *loadRun) []*loadRun {
	for _, x := range ls {
		if x == l {
			return ls
		}
	}
	return append(ls, l)
}

// operandParams lists the parameters operands read.
func operandParams(ops []catalog.Operand) []string {
	var out []string
	for _, o := range ops {
		if o.Param != "" {
			out = append(out, o.Param)
		}
		if o.Template != nil {
			out = append(out, o.Template.Placeholders()...)
		}
		out = append(out, operandParams(o.List)...)
		for _, m := range o.Map {
			out = append(out, operandParams([]catalog.Operand{m.Value})...)
		}
	}
	return out
}

// values lists, per attribute of the cut, the values the run's arrivals
// pass: those a spread source hands the first Count arrivals of each
// load. ok is false when a load's arrivals cannot be counted (a
// follow-up): the cut is then off.
func (rc *reach) values(spreads map[string]*spreader, count func(*loadRun) (int64, bool)) (map[string]map[string]bool, bool) {
	out := map[string]map[string]bool{}
	for _, a := range rc.attrs {
		sp := spreads[a]
		if sp == nil {
			return nil, false
		}
		vals := map[string]bool{}
		for _, l := range rc.by[a] {
			n, ok := count(l)
			if !ok {
				return nil, false
			}
			if n > int64(len(sp.values))*64 && n > 1<<16 {
				// Enough arrivals to hand out every value.
				for _, v := range sp.values {
					vals[v] = true
				}
				continue
			}
			for k := int64(0); k < n; k++ {
				vals[sp.at(k)] = true
			}
		}
		out[a] = vals
	}
	return out, true
}

// cutSpec is what the writing pass of a cut keeps of the trees of its
// root: those holding a subject (held) and those whose root item carries
// a value the run's arrivals pass (vals). Both are told as the tree is
// made again, its root item the last of it: nothing is kept by tree but
// the rows of those holding a subject, 8 bytes each, fewer than the
// subjects (a table of each tree's values, kept from the counting pass
// for this, grew with the trees).
type cutSpec struct {
	root  *dataset.Node
	attrs []string
	vals  []map[string]bool // by attribute of attrs
	held  [][]int64         // by block: rows ascending (indexSpec.hold)
}

// keeps tells whether tree row of block i is written, its root item
// carrying the values tagVals of the cut's attributes ("" none).
func (cs *cutSpec) keeps(i int, row int64, tagVals []string) bool {
	if i < len(cs.held) {
		h := cs.held[i]
		if k := sort.Search(len(h), func(k int) bool { return h[k] >= row }); k < len(h) && h[k] == row {
			return true
		}
	}
	for j, v := range tagVals {
		if v != "" && cs.vals[j][v] {
			return true
		}
	}
	return false
}

// cutNote says what the cut wrote.
func cutNote(rc *reach, vals map[string]map[string]bool, trees, of int64) string {
	var parts []string
	for _, a := range rc.attrs {
		vs := make([]string, 0, len(vals[a]))
		for v := range vals[a] {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		if len(vs) > 8 {
			vs = append(vs[:8], fmt.Sprintf("... (%d values)", len(vals[a])))
		}
		parts = append(parts, a+" "+strings.Join(vs, ", "))
	}
	where := ""
	if len(parts) > 0 {
		where = " or carrying " + strings.Join(parts, "; ")
	}
	return fmt.Sprintf("%d of the population's %d trees written: those holding a subject of a load%s (nothing of the run can reach the others)", trees, of, where)
}

// cutRoot is the root of the population under which every subject and
// context entity of the loads lies, the one whose trees a cut leaves
// out; nil when there is none, or it does not carry every attribute of
// the cut on its own items.
func cutRoot(pop *dataset.Population, want []wanted, attrs []string) *dataset.Node {
	rootOf := map[*catalog.Entity]*dataset.Node{}
	for _, n := range pop.Nodes {
		r := n
		for r.Parent != nil {
			r = r.Parent
		}
		rootOf[n.Entity] = r
	}
	var root *dataset.Node
	for _, w := range want {
		for _, e := range append([]*catalog.Entity{w.subjects.Entity}, w.entities...) {
			r := rootOf[e]
			if r == nil || root != nil && r != root {
				return nil
			}
			root = r
		}
	}
	if root == nil {
		return nil
	}
	for _, a := range attrs {
		if root.Entity.Has(a) == "" {
			return nil
		}
	}
	return root
}

// carries reports the value of an attribute an item (its key-only
// attributes included) carries.
func carries(n *dataset.Node, it attr.Item, a string) (string, bool) {
	if n.Entity.Has(a) == "" {
		return "", false
	}
	v, ok := withKeyAttrs(n.Entity, it).Get(a)
	if !ok {
		return "", false
	}
	// The generator reuses its memory: the text is copied.
	return strings.Clone(valueText(v)), true
}
