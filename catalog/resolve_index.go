package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Limits of multi-attribute GSI keys (November 2025).
const (
	MaxKeyAttributes = 4
)

func (r *resolver) resolveIndexes() {
	for _, name := range slices.Sorted(maps.Keys(r.raw.Indexes)) {
		r.resolveIndex(name)
	}
}

// resolveIndex resolves one index: its table, key attributes, projection
// and shards, the entities that enter it and the sparse declaration.
func (r *resolver) resolveIndex(name string) {
	ri := r.raw.Indexes[name]
	base := p("indexes", name)
	x := &Index{Name: name, Alias: ri.Alias, Local: ri.Kind == "local", Description: ri.Description, Owner: ri.Owner,
		Partition: ri.Partition, Sort: ri.Sort, Projection: ri.Projection, Shards: ri.Shards, Alarm: ri.Alarm, Unsharded: ri.Unsharded}
	if _, clash := r.tables[name]; clash {
		r.errAt(base, true, "", "index %s has the name of a table", name)
	}
	x.Table = r.tableRef(base, ri.Table)
	r.indexKeys(name, ri)
	if x.Local {
		if x.Table != nil && (len(ri.Partition) != 1 || ri.Partition[0] != x.Table.PartitionKey) {
			r.errf(base+"/partition", "a local index shares the table's partition key %s", x.Table.PartitionKey)
		}
		if len(ri.Sort) != 1 {
			r.errf(base+"/sort", "a local index has exactly one sort attribute")
		}
	}
	r.indexProjection(name, base, x)
	r.indexWarm(base+"/warmThroughput", x, ri.WarmThroughput)
	if x.Shards != nil && !r.broken[name] {
		r.indexShards(base, x)
	}
	if ri.Synthetic != nil {
		x.Synthetic = &Synthetic{}
		x.Synthetic.Partition = r.syntheticKey(base+"/synthetic/partition", ri.Synthetic.Partition, x.Partition)
		if ri.Synthetic.Sort != nil {
			x.Synthetic.Sort = r.syntheticKey(base+"/synthetic/sort", ri.Synthetic.Sort, x.Sort)
		} else if len(x.Sort) > 0 {
			r.errAt(base+"/synthetic", true, "", "the index has a sort key: the fallback needs synthetic.sort")
		}
	}
	r.idx[name] = x
	r.m.Indexes = append(r.m.Indexes, x)
	if x.Table != nil {
		x.Table.Indexes = append(x.Table.Indexes, x)
	}
	// Which entities enter the index: those carrying every key attribute.
	for _, e := range r.m.Entities {
		if e.Table != x.Table {
			continue
		}
		enters := true
		for _, an := range x.KeyAttributes() {
			pr := e.Has(an)
			if pr == "" || pr == KeyOnly {
				enters = false
			}
		}
		if enters {
			x.Entries = append(x.Entries, e)
			e.Indexes = append(e.Indexes, x)
		}
	}
	if ri.Sparse != nil {
		x.Sparse = &Sparse{Entities: ri.Sparse.Entities, Note: ri.Sparse.Note}
	}
	if ri.Sparse != nil && !r.broken[name] {
		r.indexSparse(name, base, x, ri)
	}
}

// indexKeys checks an index's key attributes: at most MaxKeyAttributes a
// side, each once, stored scalars that never move with the calendar and
// never personal data.
func (r *resolver) indexKeys(name string, ri rawIndex) {
	seen := map[string]string{}
	for _, side := range []struct {
		field string
		attrs []string
	}{{"partition", ri.Partition}, {"sort", ri.Sort}} {
		if len(side.attrs) > MaxKeyAttributes {
			r.broken[name] = true
			r.errf(p("indexes", name, side.field), "a %s key has at most %d attributes, this one has %d", side.field, MaxKeyAttributes, len(side.attrs))
		}
		for i, an := range side.attrs {
			ptr := p("indexes", name, side.field, i)
			if prev, dup := seen[an]; dup {
				r.errf(ptr, "%s is already in the %s key", an, prev)
				continue
			}
			seen[an] = side.field
			a := r.attrRef(ptr, an)
			if a == nil {
				r.broken[name] = true
				continue
			}
			if !a.Type.IsScalar() {
				r.errf(ptr, "index key attribute %s must be S, N or B, not %s", an, a.Type)
			}
			if a.CalendarDerived {
				r.errAt(ptr, false, "store the fact it is derived from and derive it at read time", "%s changes with the calendar: as an index key every item would move in the index every night", an)
			}
			if a.PII {
				r.errAt(ptr, false, "keys leak into logs, streams and metrics", "%s is personal data (pii) and must never be an index key", an)
			}
			if !a.Stored {
				r.errf(ptr, "%s is not stored, so it cannot be an index key", an)
			}
			r.checkKeyInstant(ptr, a, "index key attribute "+an)
		}
	}
}

// indexProjection checks an index's projection: INCLUDE lists its
// attributes, each once and stored; the other types list none.
func (r *resolver) indexProjection(name, base string, x *Index) {
	switch x.Projection.Type {
	case "INCLUDE":
		if len(x.Projection.Attributes) == 0 {
			r.errf(base+"/projection", "INCLUDE needs the list of attributes")
		}
	default:
		if len(x.Projection.Attributes) > 0 {
			r.errf(base+"/projection/attributes", "%s projection takes no attribute list", x.Projection.Type)
		}
	}
	pseen := map[string]bool{}
	for i, an := range x.Projection.Attributes {
		ptr := p("indexes", name, "projection", "attributes", i)
		if pseen[an] {
			r.errf(ptr, "%s is listed twice", an)
		}
		pseen[an] = true
		if a := r.attrRef(ptr, an); a != nil && !a.Stored {
			r.errf(ptr, "%s is not stored, so it cannot be projected", an)
		}
	}
}

// indexShards checks a sharded index: its shard attribute is a number in
// the partition key, computed by hashMod modulo the shard count.
func (r *resolver) indexShards(base string, x *Index) {
	ptr := base + "/shards/attribute"
	in := false
	for _, a := range x.Partition {
		in = in || a == x.Shards.Attribute
	}
	if !in {
		r.errf(ptr, "shard attribute %s must be part of the partition key", x.Shards.Attribute)
	}
	if a := r.attrRef(ptr, x.Shards.Attribute); a != nil {
		if a.Type != attr.N {
			r.errf(ptr, "shard attribute %s must be a number", a.Name)
		}
		if a.Computed == nil || a.Computed.Kind != KindHashMod {
			r.errAt(ptr, false, "declare computed: {kind: hashMod, hash: fnv1a32, input: ..., modulo: N} on it", "shard attribute %s must be computed, not random, so every item always knows its shard", a.Name)
		} else if a.Computed.Modulo != x.Shards.Count {
			r.errf(base+"/shards/count", "%d shards, but %s is computed modulo %d", x.Shards.Count, a.Name, a.Computed.Modulo)
		}
	}
}

// indexSparse checks a sparse declaration against the entities that
// carry every key attribute of the index.
func (r *resolver) indexSparse(name, base string, x *Index, ri rawIndex) {
	declared := map[string]bool{}
	for i, en := range ri.Sparse.Entities {
		ptr := p("indexes", name, "sparse", "entities", i)
		e, ok := r.ents[en]
		if !ok {
			r.errAt(ptr, false, didYouMean(en, slices.Sorted(maps.Keys(r.ents))), "unknown entity %q", en)
			continue
		}
		declared[en] = true
		if !containsEntity(x.Entries, e) {
			var missing []string
			for _, an := range x.KeyAttributes() {
				if pr := e.Has(an); pr == "" || pr == KeyOnly {
					missing = append(missing, an)
				}
			}
			r.errf(ptr, "%s never enters %s: it does not carry %s", en, name, strings.Join(missing, ", "))
		}
	}
	for _, e := range x.Entries {
		if !declared[e.Name] && len(declared) > 0 {
			r.errAt(base+"/sparse/entities", false, "add it to sparse.entities, or drop a key attribute from the entity", "%s carries every key attribute of %s, so its items enter the index", e.Name, name)
		}
	}
}

func containsEntity(list []*Entity, e *Entity) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

func (r *resolver) syntheticKey(ptr string, rk *rawSynthKey, natural []string) *SyntheticKey {
	t, err := ParseTemplate(rk.Template)
	if err != nil {
		r.errf(ptr+"/template", "%v", err)
		return nil
	}
	r.typeTemplate(t)
	phs := map[string]bool{}
	for _, ph := range t.Placeholders() {
		phs[ph] = true
		in := false
		for _, a := range natural {
			in = in || a == ph
		}
		if !in {
			r.errf(ptr+"/template", "placeholder {%s} is not one of the key attributes %s", ph, strings.Join(natural, ", "))
		}
	}
	for _, a := range natural {
		if !phs[a] {
			r.errf(ptr+"/template", "the synthetic key leaves out %s, so it is not equivalent to the multi-attribute key", a)
		}
	}
	for _, part := range t.Parts {
		if part.Attr == "" {
			r.checkPrefixes(ptr+"/template", part.Literal)
		}
	}
	if a, ok := r.attrs[rk.Attribute]; ok && a.Type != attr.S {
		r.errf(ptr+"/attribute", "synthetic key %s is a string, but it is declared %s", rk.Attribute, a.Type)
	}
	return &SyntheticKey{Attribute: rk.Attribute, Template: t}
}

// keyConditions resolves a key condition against a table or index.
// avail types the placeholders (nil: any declared attribute).
func (r *resolver) keyConditions(ptr string, raw map[string]json.RawMessage, t *Table, x *Index, avail func(string, string) (attr.Type, bool)) []KeyCondition {
	var part, sort []string
	if x != nil && r.broken[x.Name] {
		return nil // its key is reported on the index
	}
	if x != nil {
		part, sort = x.Partition, x.Sort
	} else if t != nil {
		part = []string{t.PartitionKey}
		if t.SortKey != "" {
			sort = []string{t.SortKey}
		}
	} else {
		return nil
	}
	structure := "table " + t.Name
	if x != nil {
		structure = "index " + x.Name
	}
	conds := map[string]KeyCondition{}
	for _, an := range slices.Sorted(maps.Keys(raw)) {
		cptr := ptr + "/" + escapePtr(an)
		isKey := false
		for _, k := range append(append([]string{}, part...), sort...) {
			isKey = isKey || k == an
		}
		if !isKey {
			r.errAt(cptr, true, didYouMean(an, append(append([]string{}, part...), sort...)), "%s is not a key attribute of %s", an, structure)
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw[an], &m); err != nil || len(m) != 1 {
			r.errf(cptr, "a key condition has exactly one of eq, beginsWith, between, lt, le, gt, ge")
			continue
		}
		kc := KeyCondition{Attribute: an}
		for op, v := range m {
			kc.Op = op
			var vals []json.RawMessage
			if op == OpBetween {
				_ = json.Unmarshal(v, &vals)
			} else {
				vals = []json.RawMessage{v}
			}
			a := r.attrs[an]
			for _, rv := range vals {
				o, err := parseOperand(rv)
				if err != nil {
					r.errf(cptr+"/"+op, "%v", err)
					continue
				}
				r.checkOperand(cptr+"/"+op, o, a, avail)
				if op == OpEq {
					r.checkLiteral(cptr+"/"+op, o, a)
				}
				kc.Operands = append(kc.Operands, o)
			}
			if op == OpBeginsWith && a != nil && a.Type != attr.S {
				r.errf(cptr+"/"+op, "beginsWith needs a string attribute; %s is %s", an, a.Type)
			}
		}
		conds[an] = kc
	}
	var out []KeyCondition
	for _, k := range part {
		c, ok := conds[k]
		if !ok {
			r.errAt(ptr, true, "", "the key condition must give the partition attribute %s of %s", k, structure)
			continue
		}
		if c.Op != OpEq {
			r.errf(ptr+"/"+escapePtr(k), "partition attribute %s takes equality only, not %s", k, c.Op)
		}
		out = append(out, c)
	}
	open := false
	for i, k := range sort {
		c, ok := conds[k]
		if !ok {
			open = true
			continue
		}
		if open {
			r.errAt(ptr+"/"+escapePtr(k), true, "", "sort attribute %s is constrained but %s before it is not: conditions go left to right without gaps", k, sort[i-1])
		}
		if c.Op != OpEq && i+1 < len(sort) {
			if _, next := conds[sort[i+1]]; next {
				r.errf(ptr+"/"+escapePtr(k), "only the last constrained sort attribute may use %s; %s comes after it", c.Op, sort[i+1])
			}
		}
		out = append(out, c)
	}
	return out
}

// checkOperand checks the placeholders of an operand and its type
// against the attribute it is compared with or assigned to.
func (r *resolver) checkOperand(ptr string, o Operand, a *Attribute, avail func(string, string) (attr.Type, bool)) {
	for _, ph := range o.Placeholders() {
		if avail == nil {
			if _, ok := r.attrs[ph]; !ok {
				r.errAt(ptr, false, r.attrHint(ph), "placeholder {%s} is not a declared attribute", ph)
			}
			continue
		}
		if _, ok := avail(ptr, ph); !ok {
			return
		}
	}
	r.typeOperand(o, avail)
	if a == nil {
		return
	}
	var got attr.Type
	switch {
	case o.Param != "":
		if avail != nil {
			got, _ = avail("", o.Param)
		} else if pa, ok := r.attrs[o.Param]; ok {
			got = pa.Type
		}
	case o.Template != nil:
		got = attr.S
	case o.Literal != nil:
		got = o.Literal.Type
	case o.IsList:
		got = attr.L
	case o.IsMap:
		got = attr.M
	}
	if got != attr.Invalid && got != a.Type && !(a.Type == attr.SS && got == attr.S) && !(a.Type == attr.NS && got == attr.N) {
		r.errf(ptr, "%s is %s, but the value given is %s", a.Name, a.Type, got)
	}
	if o.Literal != nil && o.Literal.Type == attr.S && a.Type == attr.S {
		if err := checkString(a, o.Literal.Str); err != nil {
			r.errf(ptr, "%v", err)
		}
	}
	if o.Template != nil && o.Template.IsConstant() && a.Type == attr.S {
		if err := checkString(a, o.Template.Text); err != nil {
			r.errf(ptr, "%v", err)
		}
	}
}

// checkLiteral holds a constant that is assigned or compared equal to an
// attribute to the attribute's whole domain (strings are already held to
// it by checkOperand).
func (r *resolver) checkLiteral(ptr string, o Operand, a *Attribute) {
	if a == nil || o.Literal == nil || o.Literal.Type != a.Type || a.Type == attr.S {
		return
	}
	if err := a.Check(*o.Literal); err != nil {
		r.errf(ptr, "%v", err)
	}
}

// typeOperand fills the placeholder types of the templates inside an
// operand, at any depth, from the scope (or the dictionary).
func (r *resolver) typeOperand(o Operand, avail func(string, string) (attr.Type, bool)) {
	if o.Template != nil {
		r.typeTemplate(o.Template)
		if avail != nil {
			for i := range o.Template.Parts {
				if ph := o.Template.Parts[i].Attr; ph != "" {
					o.Template.Parts[i].Type, _ = avail("", ph)
				}
			}
		}
	}
	for _, e := range o.List {
		r.typeOperand(e, avail)
	}
	for _, m := range o.Map {
		r.typeOperand(m.Value, avail)
	}
}

func (r *resolver) resolveAccessPatterns() {
	for _, id := range slices.Sorted(maps.Keys(r.raw.AccessPatterns)) {
		ra := r.raw.AccessPatterns[id]
		base := p("accessPatterns", id)
		ap := &AccessPattern{ID: id, Question: ra.Question, AskedBy: ra.AskedBy, Velocity: ra.Velocity, Consistency: ra.Consistency, IfWrong: ra.IfWrong, NotAnswered: ra.NotAnswered}
		if ra.Latency != "" {
			ap.Latency, _ = parseDuration(ra.Latency)
		}
		if v := ra.Velocity; v != nil && v.Steady == nil && v.Burst == nil && v.Peak == nil {
			r.errAt(base+"/velocity", false, "", "velocity needs steady, burst or peak")
		}
		if v := ra.Velocity; v != nil {
			for _, rt := range []struct {
				f string
				r *Rate
			}{{"steady", v.Steady}, {"peak", v.Peak}} {
				if rt.r != nil {
					r.peakRefs(base+"/velocity/"+rt.f+"/peaks", rt.r.Peaks)
				}
			}
		}
		ap.Params = r.patternParams(base+"/params", ra.Params)
		switch {
		case ra.Answer == nil && ra.NotAnswered == nil:
			r.errAt(base, true, "declare answer (table or index, key condition) or notAnswered (where it goes instead)", "access pattern %s has no structure that answers it", id)
		case ra.Answer != nil && ra.NotAnswered != nil:
			r.errAt(base+"/notAnswered", true, "", "an access pattern is either answered by the table or not: remove answer or notAnswered")
		case ra.Answer != nil:
			ap.Answer = r.answer(base+"/answer", ap, ra.Answer, ra.Params)
		}
		r.unusedPatternParams(base+"/params", ap)
		r.aps[id] = ap
		r.m.AccessPatterns = append(r.m.AccessPatterns, ap)
	}
}

func (r *resolver) answer(ptr string, ap *AccessPattern, ra *rawAnswer, declared map[string]rawPatternParam) *Answer {
	a := &Answer{Operation: ra.Operation, Order: ra.Order, PageSize: ra.PageSize, Shards: ra.Shards, ConsistentRead: ra.ConsistentRead, Note: ra.Note}
	if a.Operation == "" {
		a.Operation = "Query"
	}
	switch {
	case ra.Table != "" && ra.Index != "":
		r.errAt(ptr+"/index", true, "", "give table or index, not both")
		return nil
	case ra.Index != "":
		x, ok := r.idx[ra.Index]
		if !ok {
			r.errAt(ptr+"/index", false, didYouMean(ra.Index, slices.Sorted(maps.Keys(r.idx))), "unknown index %q", ra.Index)
			return nil
		}
		a.Index, a.Table = x, x.Table
	default:
		a.Table = r.tableRef(ptr, ra.Table)
	}
	if a.Table == nil {
		return nil
	}
	scope := r.patternScope(ap, declared)
	a.Key = r.keyConditions(ptr+"/key", ra.Key, a.Table, a.Index, scope)
	r.checkRanges(ptr+"/key", a.Key, ap.Params, func(n string) bool { _, ok := scope("", n); return ok })
	r.checkReadShape(ptr, ap.Consistency, a.Index, a.Operation, a.ConsistentRead, a.Shards)
	if a.Index != nil {
		a.Index.Serves = append(a.Index.Serves, ap)
	}
	return a
}

// checkReadShape applies the consistency and shard rules to a read.
// Strong and exact are not checked alike (consistency.go says what each
// demands): a strong question may read a local index strongly; an exact
// one is answered on the base table only.
func (r *resolver) checkReadShape(ptr, consistency string, x *Index, op string, consistent bool, fan *FanOut) {
	read := op == "GetItem" || op == "Query" || op == "Scan"
	if x != nil {
		switch {
		case !x.Local && (consistency == Exact || consistency == Strong):
			r.errAt(ptr+"/index", false, "answer it from the base table with a strongly consistent read or a conditional write", "%s question cannot be answered by global index %s: GSIs are eventually consistent only", an(consistency), x.Name)
		case x.Local && consistency == Exact:
			r.errAt(ptr+"/index", false, "read the base table strongly consistent, or answer it with the condition of the write that acts on it", "an exact question is answered on the base table, not by local index %s", x.Name)
		case x.Local && consistency == Strong && read && !consistent:
			r.errAt(ptr, true, "set consistentRead: true", "a strong question read from local index %s needs a strongly consistent read", x.Name)
		}
		if !x.Local && consistent {
			r.errf(ptr+"/consistentRead", "global index %s cannot be read with strong consistency", x.Name)
		}
		if x.Shards != nil && fan == nil {
			r.errAt(ptr, true, fmt.Sprintf("declare shards: {fanOut: all, workers: %d}", x.Shards.Count), "%s is sharded %d ways: say how the shards are read", x.Name, x.Shards.Count)
		}
	} else {
		if fan != nil {
			r.errf(ptr+"/shards", "shards apply to a sharded index only")
		}
		switch {
		case consistency == Exact && read && !consistent:
			r.errAt(ptr, true, "set consistentRead: true, or answer it with the condition of the write that acts on it (operation: PutItem or UpdateItem)",
				"an exact question answered by an eventually consistent %s: a read that may miss the latest write is no answer", op)
		case consistency == Strong && read && !consistent:
			r.errAt(ptr, true, "set consistentRead: true", "a strong question read from the table needs a strongly consistent read")
		}
	}
}
