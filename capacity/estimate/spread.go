package estimate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// The model's reading of how a load spreads over the values of a
// partition key's attributes: one reading, shared by the peak gate (which
// charges the hottest value) and the planner (which places every value on
// the partitions of a table or index).

// SpreadKind says why a load spreads as it does over an attribute.
type SpreadKind string

// The kinds of spread, in the order the reading tries them.
const (
	SpreadConstant   SpreadKind = "constant"   // a literal in the key condition or in the item written
	SpreadFocus      SpreadKind = "focus"      // a scenario pins the load on one value
	SpreadShards     SpreadKind = "shards"     // the index's shard attribute: its shards evenly
	SpreadSkew       SpreadKind = "skew"       // the attribute's declared skew
	SpreadWeighted   SpreadKind = "weighted"   // the attribute's weighted values
	SpreadHashMod    SpreadKind = "hashMod"    // a computed hash modulo: its values evenly
	SpreadDistinct   SpreadKind = "distinct"   // a cardinality or an enum: its values evenly
	SpreadIdentifier SpreadKind = "identifier" // a value of its own per item
	SpreadTime       SpreadKind = "time"       // a civil date or an instant: the peak falls on one value
	SpreadIdentity   SpreadKind = "identity"   // the one key of an entity: one value per item
	SpreadUnknown    SpreadKind = "unknown"    // nothing declared: assumed to spread
)

// MaxSpreadValues bounds the values a Spread lists: an attribute with
// more is read as spreading over the key space, one value per item.
const MaxSpreadValues = 1 << 12

// Spread is how a load spreads over the values of one attribute.
type Spread struct {
	Attribute string
	Kind      SpreadKind
	// Hottest is the share of the load on the attribute's hottest value,
	// what the peak gate charges; 0 when it spreads one value per item.
	Hottest float64
	// Text says so in the gate's words.
	Text string
	// N is the number of values the load spreads over, 0 when one per
	// item (or unknown).
	N int64
	// Values are the values and their shares, heaviest first (by rank
	// for a skew), when N is at most MaxSpreadValues. Value is the
	// value's text where the model names it (an enum, weighted values,
	// shard numbers, a constant); "" where only its rank is known (the
	// k-th value of a cardinality or a skew), and for a time, whose one
	// value is the item's.
	Values []SpreadValue
}

// SpreadValue is one value of an attribute and its share of a load.
type SpreadValue struct {
	Value string
	Rank  int64
	Share float64
}

// Even reports whether the load spreads one value per item (no value is
// hotter than the item count makes it).
func (s Spread) Even() bool { return s.Hottest == 0 || (s.N > MaxSpreadValues && len(s.Values) == 0) }

// AttributeSpread reads how a load spreads over the values of attribute
// name of a partition key: x is the index whose key it is (nil for a
// table's key template), focus a scenario's pinned attributes.
func (e *Estimator) AttributeSpread(x *catalog.Index, name string, focus map[string]string) Spread {
	return e.attributeSpread(x, nil, name, focus)
}

// attributeSpread is AttributeSpread for the items of entity en (nil:
// every entity that enters x, the hottest reading of them).
func (e *Estimator) attributeSpread(x *catalog.Index, en *catalog.Entity, name string, focus map[string]string) Spread {
	sp := Spread{Attribute: name}
	a := e.Model.Attribute(name)
	if focus[name] != "" {
		sp.Kind, sp.Hottest, sp.N = SpreadFocus, 1, 1
		sp.Text = name + " = its " + focus[name] + " value (focus)"
		v := SpreadValue{Share: 1}
		if a != nil {
			if vs := e.valuesOf(a); len(vs) > 0 {
				v.Value, v.Rank = vs[0].Value, vs[0].Rank
			}
		}
		sp.Values = []SpreadValue{v}
		return sp
	}
	if x != nil && x.Shards != nil && x.Shards.Attribute == name && x.Shards.Count > 0 {
		n := x.Shards.Count
		sp.Kind, sp.Hottest, sp.N = SpreadShards, 1/float64(n), int64(n)
		sp.Text = fmt.Sprintf("%s = one of %d shards", name, n)
		sp.Values = numbered(int64(n))
		return sp
	}
	if a == nil {
		sp.Kind, sp.Hottest, sp.N = SpreadUnknown, 1, 1
		sp.Text = name + " = one value"
		sp.Values = []SpreadValue{{Share: 1}}
		return sp
	}
	if held, ok := e.heldSpread(x, en, a); ok {
		return held
	}
	if sk := skewOf(a); sk > 0 {
		sp.Kind, sp.Hottest, sp.N = SpreadSkew, sk, a.Skew.N
		sp.Text = fmt.Sprintf("%s = its largest value (%s of the items)", name, Pct(sk))
		sp.Values = e.valuesOf(a)
		return sp
	}
	if d := a.Values; d != nil && d.Kind == "weighted" && len(d.Weights) > 0 {
		vs := e.valuesOf(a)
		sp.Kind, sp.Hottest, sp.N = SpreadWeighted, vs[0].Share, int64(len(vs))
		sp.Text = fmt.Sprintf("%s = %s (%s of the items)", name, vs[0].Value, Pct(vs[0].Share))
		sp.Values = vs
		return sp
	}
	if c := a.Computed; c != nil && c.Kind == catalog.KindHashMod && c.Modulo > 0 {
		sp.Kind, sp.Hottest, sp.N = SpreadHashMod, 1/float64(c.Modulo), int64(c.Modulo)
		sp.Text = fmt.Sprintf("%s = one of %d hashed values", name, c.Modulo)
		sp.Values = numbered(int64(c.Modulo))
		return sp
	}
	if d := a.Values; d != nil && d.Kind == "constant" {
		vs := e.distributionValues(a, d)
		sp.Kind, sp.Hottest, sp.N, sp.Values = SpreadWeighted, 1, 1, vs
		sp.Text = fmt.Sprintf("%s = %s (its one value: every entry on one partition)", name, vs[0].Value)
		return sp
	}
	if n := distinct(a); n > 1 {
		sp.Kind, sp.Hottest, sp.N = SpreadDistinct, 1/float64(n), n
		sp.Text = fmt.Sprintf("%s = one of %s values", name, Num(float64(n)))
		sp.Values = e.valuesOf(a)
		return sp
	} else if n == 1 {
		// A one-value domain: the sparse marker that exists only while
		// the item waits (queueStatus: [OPEN]) keys every entry alike.
		sp.Kind, sp.Hottest, sp.N = SpreadDistinct, 1, 1
		sp.Values = e.valuesOf(a)
		sp.Text = fmt.Sprintf("%s = %s (its one value: every entry on one partition)", name, sp.Values[0].Value)
		return sp
	}
	if a.Type == attr.BOOL {
		sp.Kind, sp.Hottest, sp.N = SpreadDistinct, 0.5, 2
		sp.Values = []SpreadValue{{Value: "false", Share: 0.5}, {Value: "true", Rank: 1, Share: 0.5}}
		sp.Text = name + " = one of 2 values (a boolean)"
		return sp
	}
	if a.Unit == "id" || a.Unit == "hex" {
		sp.Kind = SpreadIdentifier
		sp.Text = name + " = a value of its own per item (an identifier)"
		return sp
	}
	switch a.Unit {
	case catalog.UnitCivilDate, catalog.UnitInstant, catalog.UnitEpochSeconds:
		sp.Kind, sp.Hottest, sp.N = SpreadTime, 1, 1
		sp.Text = name + " = one value (a time: the peak falls on one)"
		sp.Values = []SpreadValue{{Share: 1}}
		return sp
	}
	if n := e.identity(name); n > 1 {
		sp.Kind, sp.Hottest, sp.N = SpreadIdentity, 1/n, int64(math.Round(n))
		sp.Text = fmt.Sprintf("%s = one of %s values (one per item of its entity)", name, Num(math.Round(n)))
		if sp.N <= MaxSpreadValues {
			sp.Values = evenRanks(sp.N)
		}
		return sp
	}
	sp.Kind = SpreadUnknown
	sp.Text = name + " = spread (nothing declared: " + Undeclared + ")"
	return sp
}

// Undeclared says what to declare of an attribute the gate can only
// assume spreads.
const Undeclared = "declare its enum (one value for a sparse marker), a cardinality, a skew or weighted values to weigh it"

// heldSpread reads what an entity says of an attribute's values beyond
// the dictionary: the values it declares for it (ORDER's share of
// PENDING queue states), and the presence rules of the index's other key
// attributes, which confine the index's entries to some of its values
// (an entry needs every key attribute, and a key attribute present only
// while status is REQUESTED leaves only REQUESTED items in the index).
// With en nil, every entity that enters x is read and the hottest
// reading kept; ok is false when no entity says more.
func (e *Estimator) heldSpread(x *catalog.Index, en *catalog.Entity, a *catalog.Attribute) (Spread, bool) {
	ens := []*catalog.Entity{en}
	if en == nil {
		if x == nil {
			return Spread{}, false
		}
		ens = x.Entries
	}
	var best Spread
	found := false
	for _, en := range ens {
		if sp, ok := e.entitySpread(x, en, a); ok && (!found || sp.Hottest > best.Hottest) {
			best, found = sp, true
		}
	}
	return best, found
}

func (e *Estimator) entitySpread(x *catalog.Index, en *catalog.Entity, a *catalog.Attribute) (Spread, bool) {
	var ea *catalog.EntityAttr
	for i := range en.Attributes {
		if en.Attributes[i].Name == a.Name {
			ea = &en.Attributes[i]
		}
	}
	if ea == nil {
		return Spread{}, false
	}
	var vs []SpreadValue
	var why []string
	if d := ea.Values; d != nil && (d.Kind == "weighted" && len(d.Weights) > 0 || d.Kind == "constant") {
		vs = e.distributionValues(a, d)
		why = append(why, "as "+en.Name+" declares its values")
	}
	allowed, excluded, rule := confined(x, en, a.Name)
	if vs == nil && allowed == nil && excluded == nil {
		return Spread{}, false
	}
	if vs == nil {
		vs = e.valuesOf(a)
	}
	if allowed != nil || excluded != nil {
		why = append(why, rule)
		var kept []SpreadValue
		for _, v := range vs {
			if v.Value != "" && (allowed == nil || allowed[v.Value]) && !excluded[v.Value] {
				kept = append(kept, v)
			}
		}
		sum := 0.0
		for _, v := range kept {
			sum += v.Share
		}
		if sum <= 0 && allowed != nil {
			// Nothing weighs the values the rule leaves: evenly.
			kept = nil
			for _, v := range slices.Sorted(maps.Keys(allowed)) {
				kept = append(kept, SpreadValue{Value: v, Share: 1})
			}
		}
		vs = kept
	}
	if len(vs) == 0 {
		return Spread{}, false
	}
	normalize(vs)
	sortShares(vs)
	for i := range vs {
		vs[i].Rank = int64(i)
	}
	sp := Spread{Attribute: a.Name, Kind: SpreadWeighted, Hottest: vs[0].Share, N: int64(len(vs)), Values: vs}
	share := Num(round2(vs[0].Share*100)) + "% of " + en.Name + "'s entries"
	if len(vs) == 1 {
		share = "every entry of " + en.Name + " on one partition"
	}
	sp.Text = fmt.Sprintf("%s = %s (%s, %s)", a.Name, vs[0].Value, share, strings.Join(why, ", "))
	return sp, true
}

// confined reads the presence rules of x's other key attributes on en:
// the values of attribute name their when clauses allow (nil: any) and
// those a one-term unless excludes, with the rule in words.
func confined(x *catalog.Index, en *catalog.Entity, name string) (allowed, excluded map[string]bool, rule string) {
	if x == nil {
		return nil, nil, ""
	}
	var words []string
	for _, k := range x.KeyAttributes() {
		if k == name {
			continue
		}
		for _, ea := range en.Attributes {
			if ea.Name != k {
				continue
			}
			for _, c := range ea.When {
				if c.Attribute != name {
					continue
				}
				set := map[string]bool{}
				var vals []string
				for _, v := range c.Values {
					set[showValue(v)] = allowed == nil || allowed[showValue(v)]
					vals = append(vals, showValue(v))
				}
				maps.DeleteFunc(set, func(_ string, ok bool) bool { return !ok })
				allowed = set
				words = append(words, fmt.Sprintf("%s, a key of %s, is present only while %s is %s", k, x.Name, name, strings.Join(vals, " or ")))
			}
			if len(ea.Unless) == 1 && ea.Unless[0].Attribute == name {
				if excluded == nil {
					excluded = map[string]bool{}
				}
				var vals []string
				for _, v := range ea.Unless[0].Values {
					excluded[showValue(v)] = true
					vals = append(vals, showValue(v))
				}
				words = append(words, fmt.Sprintf("%s, a key of %s, is absent while %s is %s", k, x.Name, name, strings.Join(vals, " or ")))
			}
		}
	}
	return allowed, excluded, strings.Join(words, "; ")
}

func sortShares(vs []SpreadValue) {
	slices.SortStableFunc(vs, func(x, y SpreadValue) int {
		switch {
		case x.Share > y.Share:
			return -1
		case x.Share < y.Share:
			return 1
		}
		return strings.Compare(x.Value, y.Value)
	})
}

// constantSpread is a literal value holding the whole load.
func constantSpread(name, value string) Spread {
	return Spread{Attribute: name, Kind: SpreadConstant, Hottest: 1, N: 1, Text: name + " = " + value,
		Values: []SpreadValue{{Value: value, Share: 1}}}
}

// valuesOf lists an attribute's values with their shares, heaviest first,
// when it has at most MaxSpreadValues: by the skew's ranks, the weighted
// values' weights (values an enum lists without a weight share what the
// weights leave), or evenly over an enum or a cardinality. Values are
// named where the model names them (an enum, weighted values, a whole
// number range).
func (e *Estimator) valuesOf(a *catalog.Attribute) []SpreadValue {
	if d := a.Values; d != nil && (d.Kind == "weighted" && len(d.Weights) > 0 || d.Kind == "constant") {
		return e.distributionValues(a, d)
	}
	n, _ := a.Distinct()
	if n <= 0 || n > MaxSpreadValues {
		return nil
	}
	names := valueNames(a, n)
	out := evenRanks(n)
	if a.Skew != nil {
		for i := range out {
			out[i].Share = a.Skew.Share(int64(i))
		}
		normalize(out)
	}
	for i := range out {
		if i < len(names) {
			out[i].Value = names[i]
		}
	}
	return out
}

// valueNames names an attribute's n values where the model names them:
// an enum, a whole number range.
func valueNames(a *catalog.Attribute, n int64) []string {
	var names []string
	switch {
	case len(a.Enum) > 0:
		names = a.Enum
	case a.Type == attr.N && a.Integer && a.Min != nil && n > 0 && n <= MaxSpreadValues && *a.Min == math.Trunc(*a.Min):
		for i := range n {
			names = append(names, strconv.FormatInt(int64(*a.Min)+i, 10))
		}
	}
	return names
}

// distributionValues lists the values a weighted or constant distribution
// of attribute a gives, with their shares, heaviest first: values an enum
// lists without a weight share what the weights leave.
func (e *Estimator) distributionValues(a *catalog.Attribute, d *catalog.Distribution) []SpreadValue {
	if d.Kind == "constant" {
		return []SpreadValue{{Value: fmt.Sprint(d.Value), Share: 1}}
	}
	n, _ := a.Distinct()
	names := valueNames(a, n)
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(d.Weights))
	}
	listed, unlisted := 0.0, 0
	for _, v := range names {
		if w, ok := d.Weights[v]; ok {
			listed += w
		} else {
			unlisted++
		}
	}
	out := make([]SpreadValue, len(names))
	for i, v := range names {
		w, ok := d.Weights[v]
		if !ok && unlisted > 0 {
			w = max(0, 1-listed) / float64(unlisted)
		}
		out[i] = SpreadValue{Value: v, Rank: int64(i), Share: w}
	}
	normalize(out)
	sortShares(out)
	return out
}

func normalize(vs []SpreadValue) {
	sum := 0.0
	for _, v := range vs {
		sum += v.Share
	}
	if sum > 0 && math.Abs(sum-1) > 1e-9 {
		for i := range vs {
			vs[i].Share /= sum
		}
	}
}

// numbered is n values 0..n-1, evenly (shards, a hash modulo).
func numbered(n int64) []SpreadValue {
	if n > MaxSpreadValues {
		return nil
	}
	out := evenRanks(n)
	for i := range out {
		out[i].Value = strconv.FormatInt(int64(i), 10)
	}
	return out
}

// evenRanks is n unnamed values, evenly.
func evenRanks(n int64) []SpreadValue {
	out := make([]SpreadValue, n)
	for i := range out {
		out[i] = SpreadValue{Rank: int64(i), Share: 1 / float64(n)}
	}
	return out
}

// KeySpread is how a step's requests (or the entries it writes) spread
// over the partitions of a table or index: one Spread per attribute of
// the partition key, in key order. For a table the attributes are the
// placeholders of its partition key template (Template), none when the
// template is a constant (then every request lands on its one value).
type KeySpread struct {
	Table    string
	Index    string // "" for the table
	Template *catalog.KeyTemplate
	Attrs    []Spread
	// Share and Text are what the peak gate reads: the hottest partition's
	// share of the load, and the key in words.
	Share float64
	Text  string
}

// TableSpread reads how a step's item (or a query's partition) spreads
// over the table's partitions: the placeholders of its partition key
// template.
func (e *Estimator) TableSpread(s *catalog.Step, focus map[string]string) KeySpread {
	q := s.Request
	ks := KeySpread{Table: q.Table.Name}
	tmpl := partitionTemplate(q)
	if tmpl == nil {
		ks.Share, ks.Text = 1, q.Table.PartitionKey+" = one value"
		return ks
	}
	ks.Template = tmpl
	if tmpl.IsConstant() {
		ks.Share, ks.Text = 1, fmt.Sprintf("`%s = %s`", q.Table.PartitionKey, tmpl.Text)
		return ks
	}
	ks.Attrs = e.spreads(nil, q.Entity, tmpl.Placeholders(), nil, focus)
	share, parts := combined(ks.Attrs)
	ks.Share, ks.Text = share, fmt.Sprintf("%s %s (`%s`)", q.Table.PartitionKey, tmpl.Text, parts)
	return ks
}

// partitionTemplate is the template of a request's partition key: from
// its key, its key condition, or its entity.
func partitionTemplate(q *catalog.Request) *catalog.KeyTemplate {
	var tmpl *catalog.KeyTemplate
	for _, k := range q.Key {
		if k.Attribute == q.Table.PartitionKey && k.Value.Template != nil {
			tmpl = k.Value.Template
		}
	}
	for _, kc := range q.KeyCondition {
		if kc.Attribute == q.Table.PartitionKey && len(kc.Operands) == 1 && kc.Operands[0].Template != nil {
			tmpl = kc.Operands[0].Template
		}
	}
	if tmpl == nil && q.Entity != nil {
		for _, k := range q.Entity.Key {
			if k.Attribute == q.Table.PartitionKey {
				tmpl = k.Template
			}
		}
	}
	return tmpl
}

// ReadSpread reads how a query's (or get's) requests spread over an
// index's partitions: constants in the key condition hold them on their
// value.
func (e *Estimator) ReadSpread(s *catalog.Step, x *catalog.Index, focus map[string]string) KeySpread {
	consts := map[string]string{}
	for _, kc := range s.Request.KeyCondition {
		if len(kc.Operands) == 1 && kc.Operands[0].IsConstant() {
			if v, err := kc.Operands[0].Resolve(nil); err == nil {
				consts[kc.Attribute] = showValue(v)
			}
		}
	}
	return e.indexSpread(x, readEntity(s.Request), consts, focus)
}

// readEntity is the entity a read is about: its own, or its first
// match's.
func readEntity(q *catalog.Request) *catalog.Entity {
	if q.Entity != nil {
		return q.Entity
	}
	for _, mt := range q.Matches {
		if mt.Entity != nil {
			return mt.Entity
		}
	}
	return nil
}

// WriteSpread reads how the entries a write leaves (after) spread over an
// index's partitions: partition attributes the write sets to the same
// value on every run (a literal) hold them on it. The entries it removes
// spread as the item's key did before: the same reading without the
// written constants.
func (e *Estimator) WriteSpread(op *catalog.Operation, s *catalog.Step, b *catalog.Budget, x *catalog.Index, focus map[string]string) (after KeySpread, err error) {
	_, img, err := op.Images(s, b)
	if err != nil {
		return e.indexSpread(x, s.Request.Entity, nil, focus), err
	}
	return e.indexSpread(x, s.Request.Entity, e.writtenConstants(op, s, b, img, x), focus), nil
}

// IndexSpread reads how an index's entries spread over its partitions
// when no literal holds an attribute: the entries a write removes spread
// as the items' keys did.
func (e *Estimator) IndexSpread(x *catalog.Index, focus map[string]string) KeySpread {
	return e.indexSpread(x, nil, nil, focus)
}

func (e *Estimator) indexSpread(x *catalog.Index, en *catalog.Entity, consts map[string]string, focus map[string]string) KeySpread {
	ks := KeySpread{Table: x.Table.Name, Index: x.Name}
	ks.Attrs = e.spreads(x, en, x.Partition, consts, focus)
	share, parts := combined(ks.Attrs)
	ks.Share, ks.Text = share, "`"+parts+"`"
	return ks
}

func (e *Estimator) spreads(x *catalog.Index, en *catalog.Entity, names []string, consts map[string]string, focus map[string]string) []Spread {
	out := make([]Spread, 0, len(names))
	for _, n := range names {
		if v, ok := consts[n]; ok {
			out = append(out, constantSpread(n, v))
			continue
		}
		out = append(out, e.attributeSpread(x, en, n, focus))
	}
	return out
}

// Assumed lists the attributes of the key of which nothing is declared,
// assumed to spread.
func (k KeySpread) Assumed() []string {
	var out []string
	for _, a := range k.Attrs {
		if a.Kind == SpreadUnknown && a.Hottest == 0 {
			out = append(out, a.Attribute)
		}
	}
	return out
}

// combined multiplies the attributes' hottest shares and joins their
// words.
func combined(ss []Spread) (float64, string) {
	share := 1.0
	text := ""
	for i, s := range ss {
		if s.Kind != SpreadConstant {
			share *= s.Hottest
		}
		if i > 0 {
			text += ", "
		}
		text += s.Text
	}
	return share, text
}
