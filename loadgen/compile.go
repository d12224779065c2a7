package loadgen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/executor"
)

// compileLoad prepares one load: the entities of its context, its
// executor plans, and for every mix entry the sources of all the
// operation's parameters in the order they can be computed. Parameters
// the load gives no source take, in turn: the value of the same name of
// the arrival that caused this one, their attribute's computation, the
// scenario clock for instants (but the subject's own value for an
// instant of the subject's key), the context's attribute of the same name
// (the subject's first, then the others'), or their sample.
func compileLoad(x *executor.Executor, l *loadRun, invs []*catalog.Invariant) error {
	pl := l.plan
	var subj *catalog.Entity
	if pl.Subjects != nil {
		subj = pl.Subjects.Entity
	}
	if pl.Follows != nil && pl.Follows.Each == catalog.EachItem {
		subj = pl.Follows.Entity
	}
	ents := map[*catalog.Entity]bool{}
	addPaths := func(ps []*catalog.Path) {
		for _, p := range ps {
			if p != nil && p.Entity != nil && p.Entity != subj {
				ents[p.Entity] = true
			}
		}
	}
	exprEntities := func(e *catalog.Expr) {
		if e == nil {
			return
		}
		for _, name := range e.Paths {
			if en := x.Model().Entity(name); en != nil && en != subj {
				ents[en] = true
			}
		}
	}
	sourcePaths := func(ss []*catalog.Source) {
		for _, s := range ss {
			addPaths([]*catalog.Path{s.Path})
			if s.Date != nil {
				addPaths([]*catalog.Path{s.Date.From})
			}
			for _, t := range s.Template {
				addPaths([]*catalog.Path{t.Path})
			}
			exprEntities(s.Expr)
		}
	}
	sourcePaths(pl.Params)
	for _, m := range pl.Mix {
		sourcePaths(m.Params)
		exprEntities(m.When)
	}
	if pl.Subjects != nil {
		exprEntities(pl.Subjects.When)
	}
	for e := range ents {
		l.entities = append(l.entities, e)
	}
	sort.Slice(l.entities, func(i, j int) bool { return l.entities[i].Name < l.entities[j].Name })
	ctxEnts := append([]*catalog.Entity{}, l.entities...)
	if subj != nil {
		ctxEnts = append([]*catalog.Entity{subj}, ctxEnts...)
	}

	l.guards = map[string][]versionGuard{}
	for _, m := range pl.Mix {
		plan, err := x.Plan(l.op.Name, m.Variant)
		if err != nil {
			return fmt.Errorf("load %s: %w", l.name, err)
		}
		cm := &compiledMix{entry: m, plan: plan, fresh: map[string]bool{}}
		given := map[string]*catalog.Source{}
		for _, s := range pl.Params {
			given[s.Param.Name] = s
		}
		for _, s := range m.Params {
			given[s.Param.Name] = s
		}
		var causeNames map[string]bool
		if pl.Follows != nil && pl.Follows.Each == catalog.EachArrival && l.follows != nil {
			causeNames = map[string]bool{}
			for _, p := range l.follows.op.Params {
				causeNames[p.Name] = true
			}
			for _, s := range l.follows.op.Steps {
				for _, b := range s.Bind {
					causeNames[b] = true
				}
			}
		}
		var all []*catalog.Source
		for _, p := range l.op.Params {
			if s, ok := given[p.Name]; ok {
				all = append(all, s)
				continue
			}
			s, err := defaultSource(l.op, p, subj, ctxEnts, causeNames, fannedOut(l.op))
			if err != nil {
				return fmt.Errorf("load %s: %w", l.name, err)
			}
			if v, ok := plan.Variant.Params[p.Name]; ok && s.Kind == catalog.SourceSample {
				// The variant's own value stands for the sample.
				s = &catalog.Source{Param: p, Kind: catalog.SourceSample, Value: v}
			}
			all = append(all, s)
		}
		all = rangeDefaults(l.op, given, all)
		order, err := orderSources(all)
		if err != nil {
			return fmt.Errorf("load %s: %w", l.name, err)
		}
		cm.sources = order
		for _, s := range order {
			cm.fresh[s.Param.Name] = readsData(s, cm.fresh)
		}
		l.mix = append(l.mix, cm)
		l.guards[m.Variant] = guardsOf(plan, invs)
	}
	l.reads = l.readsItem()
	return nil
}

// inKey says whether a placeholder of one of e's table key templates is
// the attribute.
func inKey(e *catalog.Entity, name string) bool {
	for _, k := range e.Key {
		for _, part := range k.Template.Parts {
			if part.Attr == name {
				return true
			}
		}
	}
	return false
}

// defaultSource is the source of a parameter the load does not name;
// subj is the load's subject entity, or nil.
func defaultSource(op *catalog.Operation, p *catalog.Param, subj *catalog.Entity, ents []*catalog.Entity, cause, fanned map[string]bool) (*catalog.Source, error) {
	if cause[p.Name] {
		return &catalog.Source{Param: p, Kind: catalog.SourceCopy, Path: &catalog.Path{Text: "cause." + p.Name, Cause: true, Attr: p.Name}}, nil
	}
	if fanned[p.Name] && p.Sample != nil {
		// The shard of a query that reads every shard: the executor
		// fans out, the parameter's value is never used.
		return &catalog.Source{Param: p, Kind: catalog.SourceSample, Value: *p.Sample}, nil
	}
	if a := p.Attribute; a != nil && a.Computed != nil && a.Computed.Kind == catalog.KindHashMod {
		if in := a.Computed.Input; p.Sample != nil && !cause[in] && !carried(in, ents) && !takes(op, in) {
			// Nothing of the arrival holds what it is computed from (a
			// worker's shard that no step reads once the index is not
			// sharded): its sample.
			return &catalog.Source{Param: p, Kind: catalog.SourceSample, Value: *p.Sample}, nil
		}
		return &catalog.Source{Param: p, Kind: catalog.SourceComputed, Attr: a}, nil
	}
	if a := p.Attribute; a != nil && (a.Unit == catalog.UnitInstant || a.Instant != nil) {
		// An instant in the subject's own key (an alert's raisedAt in
		// SK AL#{raisedAt}) addresses the subject: the clock would name
		// an item that does not exist.
		if subj != nil && inKey(subj, p.Name) {
			return &catalog.Source{Param: p, Kind: catalog.SourceCopy, Path: &catalog.Path{Text: subj.Name + "." + p.Name, Entity: subj, Attr: p.Name}}, nil
		}
		return &catalog.Source{Param: p, Kind: catalog.SourceDate, Date: &catalog.DateShift{}}, nil
	}
	for _, e := range ents {
		if e.Has(p.Name) != "" {
			return &catalog.Source{Param: p, Kind: catalog.SourceCopy, Path: &catalog.Path{Text: e.Name + "." + p.Name, Entity: e, Attr: p.Name}}, nil
		}
	}
	if p.Sample != nil {
		return &catalog.Source{Param: p, Kind: catalog.SourceSample, Value: *p.Sample}, nil
	}
	return nil, fmt.Errorf("parameter %s has no source: no sample, and nothing of the context is called so (give it under params)", p.Name)
}

// carried says whether an entity of the context has the attribute.
func carried(a string, ents []*catalog.Entity) bool {
	for _, e := range ents {
		if e.Has(a) != "" {
			return true
		}
	}
	return false
}

// takes says whether the operation has a parameter of that name.
func takes(op *catalog.Operation, name string) bool {
	for _, p := range op.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// fannedOut names the shard attributes of the operation's queries that
// read every shard.
func fannedOut(op *catalog.Operation) map[string]bool {
	out := map[string]bool{}
	var walk func(ss []*catalog.Step)
	walk = func(ss []*catalog.Step) {
		for _, st := range ss {
			if r := st.Request; r != nil && r.Index != nil && r.Index.Shards != nil && r.Shards != nil && r.Shards.FanOut == "all" {
				out[r.Index.Shards.Attribute] = true
			}
			walk(st.Items)
		}
	}
	walk(op.Steps)
	return out
}

// deps lists the parameters a source reads.
func deps(s *catalog.Source) []string {
	var out []string
	add := func(p *catalog.Path) {
		if p != nil && p.Param != "" {
			out = append(out, p.Param)
		}
	}
	add(s.Path)
	if s.Date != nil {
		add(s.Date.From)
	}
	for _, t := range s.Template {
		add(t.Path)
	}
	if s.Expr != nil {
		for _, n := range s.Expr.Paths {
			if n != s.Param.Name {
				out = append(out, n)
			}
		}
	}
	if s.Kind == catalog.SourceComputed && s.Attr.Computed != nil {
		if in := s.Attr.Computed.Input; in != "" {
			out = append(out, in)
		}
		if t := s.Attr.Computed.Template; t != nil {
			out = append(out, t.Placeholders()...)
		}
	}
	return out
}

// orderSources puts the sources in an order where each comes after the
// parameters it reads.
func orderSources(all []*catalog.Source) ([]*catalog.Source, error) {
	byName := map[string]*catalog.Source{}
	for _, s := range all {
		byName[s.Param.Name] = s
	}
	var out []*catalog.Source
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(s *catalog.Source, path []string) error
	visit = func(s *catalog.Source, path []string) error {
		n := s.Param.Name
		switch state[n] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("parameters read each other in a loop: %s", strings.Join(append(path, n), " -> "))
		}
		state[n] = 1
		for _, d := range deps(s) {
			if ds, ok := byName[d]; ok {
				if err := visit(ds, append(path, n)); err != nil {
					return err
				}
			}
		}
		state[n] = 2
		out = append(out, s)
		return nil
	}
	for _, s := range all {
		if err := visit(s, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readsData reports whether a source reads the items of the context (or
// a parameter that does): its value is computed again at each attempt.
func readsData(s *catalog.Source, fresh map[string]bool) bool {
	ent := func(p *catalog.Path) bool { return p != nil && (p.Entity != nil || p.Param != "" && fresh[p.Param]) }
	switch {
	case ent(s.Path):
		return true
	case s.Date != nil && ent(s.Date.From):
		return true
	case s.Expr != nil:
		return true
	case s.Kind == catalog.SourceComputed:
		for _, d := range deps(s) {
			if fresh[d] {
				return true
			}
		}
	}
	for _, t := range s.Template {
		if ent(t.Path) {
			return true
		}
	}
	return false
}

// rangeDefaults draws the two bounds of a range the load names neither
// of as a pair: the upper bound keeps its default (the clock, for an
// instant) and the lower one is the upper shifted back by the width of
// their samples, so every arrival asks for a period as long as the
// samples' and never an empty one. Bounds that are not times, or whose
// samples say no width, keep their own defaults.
func rangeDefaults(op *catalog.Operation, given map[string]*catalog.Source, all []*catalog.Source) []*catalog.Source {
	all = slices.Clone(all)
	for _, rg := range op.Ranges() {
		if given[rg.Lower.Name] != nil || given[rg.Upper.Name] != nil {
			continue
		}
		secs, ok := rg.SampleSpan()
		if !ok {
			continue
		}
		for i, s := range all {
			if s.Param == rg.Lower && s.Kind == catalog.SourceDate {
				all[i] = &catalog.Source{Param: rg.Lower, Kind: catalog.SourceDate, Date: &catalog.DateShift{
					From: &catalog.Path{Text: rg.Upper.Name, Param: rg.Upper.Name}, Secs: int(-secs)}}
			}
		}
	}
	return all
}
