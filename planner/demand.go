package planner

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/throughput"
)

// What one run of an operation asks of the tables and indexes, request by
// request: the static estimate's units of every step in every budget
// variant (the capacity rules, never re-implemented), placed on the
// partition keys the model's spread reading gives (capacity/estimate's,
// the peak gate's), with values named by the model, by the population
// sample or, for a time, by the step's own items.

// opDemand is one load of the scenario.
type opDemand struct {
	shape    *loadShape
	op       *catalog.Operation
	variants []variantDemand
	basis    string // how the variants are weighed
}

// variantDemand is one budget variant and its share of the runs.
type variantDemand struct {
	name  string
	share float64
	steps []stepDemand
}

// stepDemand is one request kind of a run.
type stepDemand struct {
	id      string
	perRun  float64 // requests a run makes (fan-out x pages)
	charges []throughput.Charge
	units   [2]float64 // read and write units of one request, all structures
	keys    []string   // where it lands, in words
}

// maxPoints bounds the keys one charge is placed on; lighter keys beyond
// are taken as spread over the key space.
var maxPoints = 1024

// demandOf builds a load's demand.
func (p *planner) demandOf(sh *loadShape) (*opDemand, error) {
	op := p.m.Operation(sh.item.Operation)
	if op == nil {
		return nil, fmt.Errorf("no operation %s", sh.item.Operation)
	}
	vs, err := p.est.Operation(op)
	if err != nil {
		return nil, fmt.Errorf("operation %s: %w", op.Name, err)
	}
	d := &opDemand{shape: sh, op: op}
	weights, basis := variantWeights(op, vs)
	if sh.item.Plan != nil && len(sh.item.Plan.Mix) > 0 {
		weights, basis = mixWeights(op, vs, sh.item.Plan.Mix)
	}
	d.basis = basis
	for i, v := range vs {
		if weights[i] <= 0 {
			continue
		}
		b := budget(op, v.Name)
		vd := variantDemand{name: v.Name, share: weights[i]}
		for _, cs := range op.Steps {
			if !cs.In(v.Name) {
				continue
			}
			sd, ran, ends, err := p.stepOf(op, b, &v, cs, sh.item.Focus)
			if err != nil {
				return nil, fmt.Errorf("operation %s/%s step %s: %w", op.Name, v.Name, cs.ID, err)
			}
			if !ran {
				break
			}
			vd.steps = append(vd.steps, sd)
			if ends {
				break
			}
		}
		d.variants = append(d.variants, vd)
	}
	return d, nil
}

// variantWeights weighs the variants as the monthly bill does: by their
// declared shares, or all the runs on the dearest.
func variantWeights(op *catalog.Operation, vs []estimate.Variant) ([]float64, string) {
	w := make([]float64, len(vs))
	if len(op.Budgets) == len(vs) && len(vs) > 0 {
		all := true
		sum := 0.0
		for _, b := range op.Budgets {
			all = all && b.Share != nil
			if b.Share != nil {
				sum += *b.Share
			}
		}
		if all && sum > 0 {
			var parts []string
			for i, b := range op.Budgets {
				w[i] = *b.Share / sum
				parts = append(parts, b.Name+" "+estimate.Pct(*b.Share))
			}
			return w, "by share: " + strings.Join(parts, ", ")
		}
	}
	best, most := 0, -1.0
	for i, v := range vs {
		if u := v.WRU + v.RRU; u > most {
			best, most = i, u
		}
	}
	if len(w) == 0 {
		return w, ""
	}
	w[best] = 1
	switch {
	case vs[best].Name == "":
		return w, "every step"
	case len(vs) == 1:
		return w, vs[best].Name
	}
	return w, vs[best].Name + " (the dearest of " + strconv.Itoa(len(vs)) + "; no shares declared)"
}

// mixWeights weighs the variants as the load's mix picks them for the
// load generator: an entry with a condition (when) takes the arrivals
// whose context meets it, and the planner, which builds no contexts,
// gives the variants so chosen their budgets' declared shares among
// themselves (equal shares when none are declared) of what the
// conditions take; the entries without a condition share the rest by
// their shares. Only the variants the mix names run.
func mixWeights(op *catalog.Operation, vs []estimate.Variant, mix []catalog.MixEntry) ([]float64, string) {
	w := make([]float64, len(vs))
	idx := func(name string) int {
		return slices.IndexFunc(vs, func(v estimate.Variant) bool { return v.Name == name })
	}
	var cond []int
	plain, plainShare := map[int]float64{}, 0.0
	for _, e := range mix {
		i := idx(e.Variant)
		if i < 0 {
			continue
		}
		if e.When != nil {
			if !slices.Contains(cond, i) {
				cond = append(cond, i)
			}
			continue
		}
		plain[i] += e.Share
		plainShare += e.Share
	}
	// What the conditions take: all of it without a plain entry, half of
	// it with one (the planner cannot tell), none without a condition.
	condShare := 0.0
	switch {
	case len(cond) > 0 && plainShare > 0:
		condShare = 0.5
	case len(cond) > 0:
		condShare = 1
	}
	if len(cond) > 0 {
		sum := 0.0
		declared := make([]float64, len(cond))
		for k, i := range cond {
			if b := budget(op, vs[i].Name); b.Share != nil {
				declared[k] = *b.Share
			}
			sum += declared[k]
		}
		for k, i := range cond {
			if sum > 0 {
				w[i] += condShare * declared[k] / sum
			} else {
				w[i] += condShare / float64(len(cond))
			}
		}
	}
	for i, s := range plain {
		if plainShare > 0 {
			w[i] += (1 - condShare) * s / plainShare
		}
	}
	var parts []string
	for i, v := range vs {
		if w[i] > 0 {
			parts = append(parts, v.Name+" "+estimate.Pct(w[i]))
		}
	}
	if len(parts) == 0 {
		return variantWeights(op, vs)
	}
	basis := "by the load's mix: " + strings.Join(parts, ", ")
	if len(cond) > 0 {
		basis += " (variants chosen by a condition weighed by their budgets' shares)"
	}
	return w, basis
}

func budget(op *catalog.Operation, name string) *catalog.Budget {
	for _, b := range op.Budgets {
		if b.Name == name {
			return b
		}
	}
	return &catalog.Budget{}
}

// stepOf builds one step's requests in a variant: ran is false when the
// variant's run ended before it, ends when the run ends after it (its
// condition fails).
func (p *planner) stepOf(op *catalog.Operation, b *catalog.Budget, v *estimate.Variant, cs *catalog.Step, focus map[string]string) (sd stepDemand, ran, ends bool, err error) {
	sd.id = cs.ID
	sd.perRun = 1
	parts := []*catalog.Step{cs}
	if cs.Kind == catalog.Transaction {
		parts = nil
		for _, it := range cs.Items {
			if it.In(v.Name) {
				parts = append(parts, it)
			}
		}
	}
	var charges []charge
	for _, part := range parts {
		id := part.ID
		if part != cs {
			id = cs.ID + "/" + part.ID
		}
		es := findStep(v, id)
		if es == nil {
			continue
		}
		ran = true
		ends = ends || es.Failed
		if cs.Kind == catalog.Query || cs.Kind == catalog.Scan {
			n, _ := estimate.FanOutQueries(part.Request)
			sd.perRun = float64(max(n, 1) * max(b.Pages, 1))
		}
		cc, err := p.chargesOf(op, b, part, es, focus)
		if err != nil {
			return sd, ran, ends, err
		}
		charges = append(charges, cc...)
	}
	if !ran {
		return sd, false, false, nil
	}
	// Charges on one key of one structure are one charge: the actions of
	// a transaction on one item collection land on one partition.
	merged := []charge{}
	for _, c := range charges {
		c.units /= sd.perRun
		if i := slices.IndexFunc(merged, func(x charge) bool { return x.same(&c) }); i >= 0 {
			merged[i].units += c.units
			continue
		}
		merged = append(merged, c)
	}
	for _, c := range merged {
		sd.charges = append(sd.charges, throughput.Charge{Table: c.table, Index: c.index, Write: c.write, Units: c.units, Points: c.points, Even: c.even})
		dir := 0
		if c.write {
			dir = 1
		}
		sd.units[dir] += c.units
		sd.keys = append(sd.keys, c.where)
	}
	return sd, true, ends, nil
}

func findStep(v *estimate.Variant, id string) *estimate.Step {
	for i := range v.Steps {
		if v.Steps[i].ID == id {
			return &v.Steps[i]
		}
	}
	return nil
}

// charge is one structure's units of one request, before it becomes a
// throughput.Charge.
type charge struct {
	table, index string
	write        bool
	units        float64
	points       []throughput.Point
	even         float64
	sig          string // the key's identity, to merge charges on one key
	where        string
}

func (c *charge) same(o *charge) bool {
	return c.table == o.table && c.index == o.index && c.write == o.write && c.sig == o.sig
}

// chargesOf places one step's (or transaction action's) units.
func (p *planner) chargesOf(op *catalog.Operation, b *catalog.Budget, s *catalog.Step, es *estimate.Step, focus map[string]string) ([]charge, error) {
	q := s.Request
	c := es.Consumed
	t := q.Table
	vals := op.Values(b)
	write := isWrite(s.Kind)
	var before, after attr.Item
	if write {
		var err error
		before, after, err = op.Images(s, b)
		if err != nil {
			before, after = nil, nil
		}
	}
	value := func(img attr.Item) func(string) (attr.Value, bool) {
		return func(name string) (attr.Value, bool) {
			if v, ok := img.Get(name); ok {
				return v, true
			}
			if v, ok := after.Get(name); ok {
				return v, true
			}
			if v, ok := before.Get(name); ok {
				return v, true
			}
			for _, kc := range q.KeyCondition {
				if kc.Attribute == name && len(kc.Operands) > 0 {
					if v, err := kc.Operands[0].Resolve(vals); err == nil {
						return v, true
					}
				}
			}
			if v, ok := vals[name]; ok {
				return v, true
			}
			if q.Entity != nil && q.Sample != "" {
				if it, ok := q.Entity.Sample(q.Sample); ok {
					return it.Get(name)
				}
			}
			return attr.Value{}, false
		}
	}
	var out []charge
	// The table's units (and its local indexes', which live on its
	// partitions); a query or scan of a global index is charged there.
	tu := c.Table.Read
	if write {
		tu += c.Table.Write
	}
	for _, l := range c.LSIs {
		tu += l.Read + l.Write
	}
	readsIndex := q.Index != nil && !q.Index.Local
	if tu > 0 && !readsIndex {
		ks := p.est.TableSpread(s, focus)
		ch := p.place(ks, nil, q.Table, value(after))
		if s.Kind == catalog.Scan {
			ch.points, ch.even, ch.sig, ch.where = nil, 1, "scan", "every partition (a scan)"
		}
		ch.table, ch.write, ch.units = t.Name, write, tu
		out = append(out, ch)
	}
	for _, name := range slices.Sorted(mapsKeys(c.GSIs)) {
		u := c.GSIs[name]
		x := p.m.Index(name)
		if x == nil {
			continue
		}
		if u.Read > 0 {
			ks := p.est.ReadSpread(s, x, focus)
			ch := p.place(ks, x, t, value(nil))
			if s.Kind == catalog.Scan {
				ch.points, ch.even, ch.sig, ch.where = nil, 1, "scan", "every partition (a scan)"
			}
			ch.table, ch.index, ch.units = t.Name, name, u.Read
			out = append(out, ch)
		}
		if u.Write <= 0 {
			continue
		}
		// Where the entry was and where it goes: a key move charges the
		// old entry's delete where it was and the rest where it goes.
		ct := p.tables[t]
		ix, _, _ := ct.Index(name)
		_, oin := p.rules.EntrySize(ct, ix, before)
		_, nin := p.rules.EntrySize(ct, ix, after)
		afterKS, _ := p.est.WriteSpread(op, s, b, x, focus)
		put := p.place(afterKS, x, t, value(after))
		del := p.place(p.removed(p.est.IndexSpread(x, focus), q.Entity), x, t, value(before))
		switch {
		case oin && nin && del.sig != put.sig:
			d := p.rules.Write(ct, capacity.WriteOp{Kind: capacity.Delete, Before: before}).GSIs[name].Write
			d = min(d, u.Write)
			stay := stays(&del, &put)
			del.table, del.index, del.write, del.units = t.Name, name, true, d*(1-stay)
			put.table, put.index, put.write, put.units = t.Name, name, true, u.Write-d
			out = append(out, del, put)
		case oin && !nin:
			del.table, del.index, del.write, del.units = t.Name, name, true, u.Write
			out = append(out, del)
		default:
			put.table, put.index, put.write, put.units = t.Name, name, true, u.Write
			out = append(out, put)
		}
	}
	kept := out[:0]
	for _, ch := range out {
		if ch.units > 0 {
			kept = append(kept, ch)
		}
	}
	return kept, nil
}

func isWrite(k catalog.StepKind) bool {
	switch k {
	case catalog.Put, catalog.Update, catalog.Delete, catalog.ConditionCheck:
		return true
	}
	return false
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// place turns a key's spread into the keys it lands on: for a table, the
// partition key template rendered with each combination of its
// placeholders' values; for an index, its partition attributes' values
// in order. An attribute spread one value per item spreads the whole key
// over the key space.
func (p *planner) place(ks estimate.KeySpread, x *catalog.Index, t *catalog.Table, value func(string) (attr.Value, bool)) charge {
	var out charge
	if x == nil && ks.Template != nil && ks.Template.IsConstant() {
		v := attr.Str(ks.Template.Text)
		h := engine.PartitionHash(v)
		out.points = []throughput.Point{{Hash: h, Weight: 1, Key: []byte(v.Str)}}
		out.sig = "=" + v.Str
		out.where = t.PartitionKey + " = " + v.Str
		return out
	}
	if x == nil && ks.Template == nil {
		out.even, out.sig, out.where = 1, "even", "spread over the key space"
		return out
	}
	type opt struct {
		v attr.Value
		w float64
	}
	lists := make([][]opt, len(ks.Attrs))
	var words []string
	for i, sp := range ks.Attrs {
		if sp.Even() || len(sp.Values) == 0 {
			out.even, out.sig = 1, "even"
			out.where = keyWords(x, t) + " spread over the key space (" + sp.Text + ")"
			return out
		}
		a := p.m.Attribute(sp.Attribute)
		for _, v := range sp.Values {
			lists[i] = append(lists[i], opt{p.names.value(a, sp, v, value), v.Share})
		}
		words = append(words, sp.Text)
	}
	// Keep the combinations under maxPoints: the lightest values of the
	// longest list go to the even rest.
	rest := 0.0
	for {
		n := 1
		longest := 0
		for i, l := range lists {
			n *= max(len(l), 1)
			if len(l) > len(lists[longest]) {
				longest = i
			}
		}
		if n <= maxPoints || len(lists[longest]) <= 1 {
			break
		}
		l := lists[longest]
		sort.SliceStable(l, func(a, b int) bool { return l[a].w > l[b].w })
		keep := max(1, len(l)*maxPoints/n)
		other := 1.0
		for j, ol := range lists {
			if j != longest {
				s := 0.0
				for _, o := range ol {
					s += o.w
				}
				other *= s
			}
		}
		for _, o := range l[keep:] {
			rest += o.w * other
		}
		lists[longest] = l[:keep]
	}
	idx := make([]int, len(lists))
	var sig strings.Builder
	for {
		w := 1.0
		vals := make([]attr.Value, len(lists))
		for i, l := range lists {
			vals[i] = l[idx[i]].v
			w *= l[idx[i]].w
		}
		h, key := p.hashOf(ks, x, vals)
		if w > 0 {
			out.points = append(out.points, throughput.Point{Hash: h, Weight: w, Key: key})
			fmt.Fprintf(&sig, "%x:%g;", h, w)
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(lists[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	out.even = rest
	out.sig = sig.String() + fmt.Sprintf("even:%g", rest)
	out.where = keyWords(x, t) + " `" + strings.Join(words, ", ") + "`"
	if len(out.points) == 1 {
		out.where = keyWords(x, t) + " " + string(out.points[0].Key)
	}
	return out
}

// stays takes out of del, the entries a write removes, the share that
// was already at a key put places new ones on (an item whose key does
// not change, its other key attributes being its own, like a shard: its
// entry is updated in place, charged where put is), and
// returns that share; del's other points keep their units by weighing
// more (the charge's units are then scaled by the rest).
func stays(del, put *charge) float64 {
	at := map[uint64]bool{}
	for _, pt := range put.points {
		at[pt.Hash] = true
	}
	w := 0.0
	var kept []throughput.Point
	for _, pt := range del.points {
		if at[pt.Hash] {
			w += pt.Weight
			continue
		}
		kept = append(kept, pt)
	}
	if w <= 0 || w >= 1-1e-9 {
		return 0
	}
	for k := range kept {
		kept[k].Weight /= 1 - w
	}
	del.points, del.even = kept, del.even/(1-w)
	return w
}

// removed reads where the entries a write removes were: as the items'
// keys spread. The peak gate's reading puts a time (a date) on one
// value, where the new entries of a batch converge; the old entries are
// where the population holds them, so a time the sample's items of the
// entity hold spreads over their values by their shares (the entity's
// distribution of the attribute: the planner does not narrow it to the
// load's subjects).
func (p *planner) removed(ks estimate.KeySpread, e *catalog.Entity) estimate.KeySpread {
	if e == nil {
		return ks
	}
	out := ks
	out.Attrs = slices.Clone(ks.Attrs)
	for i, sp := range out.Attrs {
		h := p.names.held[e.Name][sp.Attribute]
		if sp.Kind != estimate.SpreadTime || len(h) == 0 {
			continue
		}
		vs := slices.Collect(maps.Keys(h))
		slices.SortFunc(vs, func(a, b string) int {
			if c := cmp.Compare(h[b], h[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		sp.Values = make([]estimate.SpreadValue, len(vs))
		for k, v := range vs {
			sp.Values[k] = estimate.SpreadValue{Value: v, Rank: int64(k), Share: h[v]}
		}
		sp.N, sp.Hottest = int64(len(vs)), h[vs[0]]
		sp.Text = fmt.Sprintf("%s = one of %s, as the population's %s items hold them", sp.Attribute, digits.Count(len(vs), "value"), e.Name)
		out.Attrs[i] = sp
	}
	return out
}

func keyWords(x *catalog.Index, t *catalog.Table) string {
	if x != nil {
		return x.Name
	}
	return t.Name
}

// hashOf places one combination of values: an index's partition
// attributes hashed together, or a table's template rendered.
func (p *planner) hashOf(ks estimate.KeySpread, x *catalog.Index, vals []attr.Value) (uint64, []byte) {
	if x != nil {
		var key []byte
		for i, v := range vals {
			if i > 0 {
				key = append(key, ", "...)
			}
			key = append(key, ks.Attrs[i].Attribute+" = "+v.Str...)
		}
		return engine.PartitionHash(vals...), key
	}
	m := make(map[string]attr.Value, len(vals))
	for i, v := range vals {
		m[ks.Attrs[i].Attribute] = v
	}
	s, err := ks.Template.RenderSep(m, p.m.Separator)
	if err != nil {
		// A value the template cannot take: place it by its values.
		return engine.PartitionHash(vals...), []byte(fmt.Sprint(vals))
	}
	return engine.PartitionHash(attr.Str(s)), []byte(s)
}

// namer names the values the model only ranks.
type namer struct {
	sampled map[string][]string                      // by the population sample, heaviest first
	held    map[string]map[string]map[string]float64 // by entity and attribute: value -> share
	year    int
}

// value is the value v of attribute a stands for: its name where the
// model gives one; for a time, the step's own (its item's, its key
// condition's); for a ranked value, the value the attribute's pattern
// renders for that rank (as the dataset generator renders it), or the
// sample's value of that rank, or a made-up name.
func (n *namer) value(a *catalog.Attribute, sp estimate.Spread, v estimate.SpreadValue, own func(string) (attr.Value, bool)) attr.Value {
	typ := attr.S
	if a != nil {
		typ = a.Type
	}
	typed := func(s string) attr.Value {
		switch typ {
		case attr.N:
			return attr.Num(s)
		case attr.BOOL:
			return attr.Bool(s == "true")
		}
		return attr.Str(s)
	}
	if v.Value != "" {
		return typed(v.Value)
	}
	if sp.Kind == estimate.SpreadTime || sp.Kind == estimate.SpreadUnknown {
		if x, ok := own(sp.Attribute); ok {
			return x
		}
	}
	if a != nil && a.Values != nil && a.Values.Kind == "pattern" && a.Values.Pattern != "" {
		if t, err := catalog.ParseTemplate(a.Values.Pattern); err == nil {
			if s, err := t.Render(map[string]attr.Value{"n": attr.Num(strconv.FormatInt(v.Rank+1, 10)), "year": attr.Num(strconv.Itoa(n.year))}); err == nil {
				return typed(s)
			}
		}
	}
	if vs := n.sampled[sp.Attribute]; v.Rank < int64(len(vs)) {
		return typed(vs[v.Rank])
	}
	if x, ok := own(sp.Attribute); ok && v.Rank == 0 {
		return x
	}
	if typ == attr.N {
		return attr.Num(strconv.FormatInt(v.Rank+1, 10))
	}
	return attr.Str(fmt.Sprintf("%s-%d", sp.Attribute, v.Rank+1))
}

// units rounds a figure for words.
func units(f float64) string {
	if f >= 100 {
		return commas(math.Round(f))
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}
