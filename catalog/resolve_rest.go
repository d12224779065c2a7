package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

func (r *resolver) resolveRest() {
	raw := r.raw
	m := r.m
	if raw.Pricing != nil {
		m.Pricing = *raw.Pricing
	}
	for _, k := range slices.Sorted(maps.Keys(raw.Figures)) {
		f := raw.Figures[k]
		m.Figures = append(m.Figures, Figure{k, f.Statement, f.Value, f.Unit, f.Derivation})
	}
	m.Scenarios = r.resolveScenarios("/scenarios", raw.Scenarios)
	r.checkThen("/scenarios", m.Scenarios, m.Scenario)
	m.Invariants = r.resolveInvariants("/invariants", raw.Invariants)
	r.checkInvariantRefs("/scenarios", m.Scenarios)
	if raw.Review != nil {
		m.Review = Review{Answers: raw.Review.Answers, Accept: raw.Review.Accept}
	}
}

// keyShape writes a template with its placeholders replaced by their
// types, so that two templates that can render the same key compare equal.
func keyShape(t *KeyTemplate) string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Attr == "" {
			b.WriteString(p.Literal)
			continue
		}
		b.WriteString("{" + p.Type.String())
		if p.Width > 0 {
			b.WriteString(":" + strconv.Itoa(p.Width))
		}
		b.WriteString("}")
	}
	return b.String()
}

// crossChecks are the rules that need the whole model.
func (r *resolver) crossChecks() {
	shapes := map[string]*Entity{}
	for _, e := range r.m.Entities {
		if e.Table == nil || len(e.Key) == 0 || r.broken["entity:"+e.Name] {
			continue
		}
		shape := e.Table.Name
		for _, k := range e.Key {
			shape += "|" + keyShape(k.Template)
		}
		if prev, dup := shapes[shape]; dup {
			r.errAt(p("entities", e.Name, "key"), true, "give one of them a distinct literal prefix", "entities %s and %s have keys of the same shape: their items cannot be told apart", prev.Name, e.Name)
			continue
		}
		shapes[shape] = e
	}
	for _, x := range r.m.Indexes {
		if len(x.Serves) == 0 {
			r.errAt(p("indexes", x.Name), true, "name the access pattern it answers (answer.index), or drop the index", "index %s answers no access pattern: every index is a copy of the table that must earn its writes", x.Name)
		}
	}
	for _, ap := range r.m.AccessPatterns {
		if ap.Answer == nil || ap.Answer.Index == nil || ap.Answer.Index.Shards == nil {
			continue
		}
		sh := ap.Answer.Index.Shards.Attribute
		for _, kc := range ap.Answer.Key {
			if kc.Attribute == sh && ap.Answer.Shards != nil && ap.Answer.Shards.FanOut == "all" && len(kc.Operands) == 1 && kc.Operands[0].Literal != nil {
				r.errf(p("accessPatterns", ap.ID, "answer", "key", sh), "fanOut all reads every shard: the shard must be a placeholder, not a constant")
			}
		}
	}
	for _, e := range r.m.Entities {
		for _, ea := range e.Attributes {
			a, ok := r.attrs[ea.Name]
			if !ok || a.Computed == nil {
				continue
			}
			in := a.Computed.Input
			if a.Computed.Kind == KindHashMod && e.Has(in) == "" {
				r.errAt(p("entities", e.Name, "attributes", ea.Name), true, "", "%s is computed from %s, which %s does not carry", ea.Name, in, e.Name)
			}
		}
	}
	for i, acc := range r.m.Review.Accept {
		if _, ok := r.paths[pathToPtr(acc.Path)]; !ok {
			r.errAt(p("review", "accept", i, "path"), false, "", "accepted finding points at %q, which is not in the model", acc.Path)
		}
	}
}

// pathToPtr turns a display path (indexes.GSI1.partition[2]) into a JSON
// pointer.
func pathToPtr(path string) string {
	var b strings.Builder
	for _, seg := range strings.Split(path, ".") {
		name := seg
		var idx []string
		for {
			i := strings.LastIndexByte(name, '[')
			if i < 0 || !strings.HasSuffix(name, "]") {
				break
			}
			idx = append([]string{name[i+1 : len(name)-1]}, idx...)
			name = name[:i]
		}
		b.WriteString("/" + escapePtr(name))
		for _, x := range idx {
			b.WriteString("/" + x)
		}
	}
	return b.String()
}
