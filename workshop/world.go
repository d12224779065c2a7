package workshop

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
)

// WorldOptions size the small population the page draws.
type WorldOptions struct {
	// Items is about how many items the population holds; 0 is
	// DefaultItems. It is capped at MaxItems.
	Items int
	// Seed selects the population (the same seed, the same items).
	Seed uint64
}

// DefaultItems is the population's size by default: enough for every
// entity to show a few items and every index a few partitions, small
// enough to read on a screen and to re-draw on every save.
const DefaultItems = 300

// MaxItems bounds the population whatever the flag says.
const MaxItems = 5000

// maxSuggestions bounds the values suggested for one attribute.
const maxSuggestions = 12

// World is the population as the tables and indexes hold it: the model's
// samples and a small generated population, loaded into the embedded
// engine, and read back from every table and index.
type World struct {
	// Note says what the population is when it is not the generated one
	// (a model that declares none is shown with its samples only).
	Note string
	// Generated is how many items the generator drew.
	Generated int
	// Structures are the tables and indexes as they hold the items.
	Structures []Structure
	// States are the entities' samples side by side.
	States []EntityStates
	// Values are values seen for each attribute, to suggest as
	// parameters.
	Values map[string][]string
	// Examples are whole items of the population by entity, to suggest
	// coherent parameter sets (every value from one item).
	Examples map[string][]attr.Item

	model *catalog.Model
	loads map[string][]attr.Item // model table -> items to load
}

// Structure is one table or index with its items, grouped by partition
// and sorted by sort key.
type Structure struct {
	Table, Index string
	Kind         string // table, gsi or lsi
	Key          string // the key attributes, partition then sort
	Projection   string // ALL, KEYS_ONLY, INCLUDE (attributes); "" for a table
	Sparse       bool   // an index some items do not enter
	Items, Bytes int
	Partitions   []Partition
	// Shown is how many partitions are listed (the largest first are not
	// chosen: the first ones in key order).
	Shown int
}

// Partition is one partition key value and its items in sort-key order.
type Partition struct {
	Key   string
	Items []ItemView
}

// ItemView is one item or index entry: its attributes (keys first), its
// size and the units reading or writing it alone costs.
type ItemView struct {
	Entity string
	Sort   string
	Attrs  []AttrView
	Size   int
	RRU    float64 // an eventually consistent read of it alone
	WRU    float64 // writing it
}

// AttrView is one attribute as shown.
type AttrView struct {
	Name, Type, Value string
	Key               bool
}

// EntityStates are one entity's samples (its states), side by side.
type EntityStates struct {
	Entity  string
	Table   string
	Samples []string
	Sizes   []int
	Rows    []StateRow
}

// StateRow is one attribute across the samples ("" where absent).
type StateRow struct {
	Name   string
	Values []string
	Absent []bool
}

// shownPartitions bounds the partitions listed per structure and
// shownItems the items listed per partition, so a page stays readable.
const (
	shownPartitions = 12
	shownItems      = 12
)

// Build draws the population of m and reads it back as the tables and
// indexes hold it. A population the generator cannot draw leaves the
// samples alone, said in Note.
func Build(ctx context.Context, m *catalog.Model, o WorldOptions) *World {
	w := &World{model: m, loads: map[string][]attr.Item{}, Values: map[string][]string{}, Examples: map[string][]attr.Item{}}
	seen := map[string]map[string]bool{}
	add := func(t *catalog.Table, it attr.Item) {
		k := keyOf(it, t.PartitionKey, t.SortKey)
		if seen[t.Name] == nil {
			seen[t.Name] = map[string]bool{}
		}
		if k == "" || seen[t.Name][k] {
			return
		}
		seen[t.Name][k] = true
		w.loads[t.Name] = append(w.loads[t.Name], it)
	}
	items, note := population(m, o)
	w.Note = note
	w.Generated = len(items)
	for _, it := range items {
		e := m.Entity(it.Entity)
		if e == nil || e.Table == nil {
			continue
		}
		add(e.Table, it.Item)
		w.remember(it.Entity, it.Item)
	}
	// The samples are the entities' states, shown side by side; they
	// enter the tables only when there is no population (a write's run
	// starts from its own samples, which would find them there).
	for _, e := range m.Entities {
		if e.Table == nil {
			continue
		}
		for _, s := range e.Samples {
			if len(items) == 0 {
				add(e.Table, s.Item)
			}
			if len(w.Examples[e.Name]) == 0 {
				w.remember(e.Name, s.Item)
			}
		}
		if len(e.Samples) > 0 {
			w.States = append(w.States, states(e))
		}
	}
	t, ts, err := w.open(ctx)
	if err != nil {
		w.Note = strings.TrimPrefix(w.Note+"; ", "; ") + "the tables could not be drawn: " + err.Error()
		return w
	}
	defer ts.Delete(context.WithoutCancel(ctx))
	for _, tb := range m.Tables {
		ct := estimate.Table(tb)
		s, err := scan(ctx, t.Client, ct, ts.Name(tb.Name), nil, tb)
		if err != nil {
			w.Note += "; " + err.Error()
			continue
		}
		w.Structures = append(w.Structures, s)
		for _, x := range tb.Indexes {
			ix, local, _ := ct.Index(x.Name)
			s, err := scan(ctx, t.Client, ct, ts.Name(tb.Name), ix, tb)
			if err != nil {
				w.Note += "; " + err.Error()
				continue
			}
			s.Kind = "gsi"
			if local {
				s.Kind = "lsi"
			}
			s.Projection = x.Projection.Type
			if len(x.Projection.Attributes) > 0 {
				s.Projection += " (" + strings.Join(x.Projection.Attributes, ", ") + ")"
			}
			s.Sparse = x.Sparse != nil
			w.Structures = append(w.Structures, s)
		}
	}
	return w
}

// remember keeps an item as an example and its values as suggestions.
func (w *World) remember(entity string, it attr.Item) {
	if len(w.Examples[entity]) < maxSuggestions {
		w.Examples[entity] = append(w.Examples[entity], it)
	}
	for _, f := range it {
		if !f.Value.Type.IsScalar() {
			continue
		}
		vs := w.Values[f.Name]
		if len(vs) >= maxSuggestions {
			continue
		}
		v := show(f.Value)
		if !slices.Contains(vs, v) {
			w.Values[f.Name] = append(vs, v)
		}
	}
}

// population draws about o.Items items of m's population: the scale that
// gives that many, then whole root trees, round robin over the root
// entities, until the count is reached.
func population(m *catalog.Model, o WorldOptions) ([]dataset.Item, string) {
	want := o.Items
	if want <= 0 {
		want = DefaultItems
	}
	want = min(want, MaxItems)
	p, err := dataset.New(m, dataset.Options{Scale: 1, Seed: o.Seed})
	if err != nil {
		return nil, "samples only: the population cannot be drawn (" + err.Error() + ")"
	}
	if len(p.Roots) == 0 {
		return nil, "samples only: the model declares no population"
	}
	var total float64
	for _, n := range p.Nodes {
		if e, ok := p.Expected(n); ok {
			total += e
		}
	}
	if total > float64(want) {
		if q, err := dataset.New(m, dataset.Options{Scale: float64(want) / total, Seed: o.Seed}); err == nil {
			p = q
		}
	}
	var out []dataset.Item
	gn := p.NewGenerator(func(n *dataset.Node, it attr.Item) {
		if len(out) < want {
			out = append(out, dataset.Item{Entity: n.Name(), Item: clone(it)})
		}
	})
	for i := int64(0); len(out) < want; i++ {
		grew := false
		for _, r := range p.Roots {
			if i < r.Total && len(out) < want {
				if err := gn.Tree(r, i); err != nil {
					return out, "population cut short: " + err.Error()
				}
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return out, ""
}

// clone copies an item the generator will reuse.
func clone(it attr.Item) attr.Item {
	out := make(attr.Item, len(it))
	for i, f := range it {
		out[i] = attr.Field{Name: strings.Clone(f.Name), Value: cloneValue(f.Value)}
	}
	return out
}

func cloneValue(v attr.Value) attr.Value {
	v.Str = strings.Clone(v.Str)
	if v.List != nil {
		l := make([]attr.Value, len(v.List))
		for i := range v.List {
			l[i] = cloneValue(v.List[i])
		}
		v.List = l
	}
	if v.Map != nil {
		v.Map = clone(v.Map)
	}
	if v.Set != nil {
		s := make([]string, len(v.Set))
		for i := range v.Set {
			s[i] = strings.Clone(v.Set[i])
		}
		v.Set = s
	}
	return v
}

// open starts an embedded engine holding the world's tables and items:
// each question runs on a fresh one, so that no run sees another's
// writes.
func (w *World) open(ctx context.Context) (*endpoint.Target, *endpoint.Tables, error) {
	t, err := endpoint.Open(ctx, endpoint.Options{})
	if err != nil {
		return nil, nil, err
	}
	ts, err := t.CreateTables(ctx, w.model, endpoint.TableOptions{ModelNames: true, OnDemand: true})
	if err != nil {
		return nil, nil, err
	}
	for _, tb := range w.model.Tables {
		if err := t.Load(ctx, ts.Name(tb.Name), w.loads[tb.Name]); err != nil {
			_ = ts.Delete(context.WithoutCancel(ctx))
			return nil, nil, err
		}
	}
	return t, ts, nil
}

// maxScanItems bounds what one structure's read-back holds.
const maxScanItems = 4 * MaxItems

// scan reads a table (ix nil) or one of its indexes whole and groups
// its items by partition, in sort-key order.
func scan(ctx context.Context, c *dynamodb.Client, ct *capacity.Table, name string, ix *capacity.Index, tb *catalog.Table) (Structure, error) {
	s := Structure{Table: ct.Name, Kind: "table"}
	pk, sk := []string{ct.PK}, []string{}
	if ct.SK != "" {
		sk = []string{ct.SK}
	}
	in := &dynamodb.ScanInput{TableName: aws.String(name)}
	if ix != nil {
		s.Index = ix.Name
		in.IndexName = aws.String(ix.Name)
		pk, sk = ix.PK, ix.SK
		if len(pk) == 0 {
			pk = []string{ct.PK}
		}
	}
	s.Key = strings.Join(pk, " + ")
	if len(sk) > 0 {
		s.Key += ", " + strings.Join(sk, " + ")
	}
	var all []attr.Item
	for {
		out, err := c.Scan(ctx, in)
		if err != nil {
			return s, fmt.Errorf("read back %s: %w", s.name(), err)
		}
		for _, raw := range out.Items {
			it, err := attr.FromSDKItem(raw)
			if err != nil {
				return s, err
			}
			all = append(all, it)
		}
		if len(out.LastEvaluatedKey) == 0 || len(all) >= maxScanItems {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	rules := capacity.Default()
	keys := map[string]bool{ct.PK: true, ct.SK: true}
	for _, a := range append(slices.Clone(pk), sk...) {
		keys[a] = true
	}
	groups := map[string][]attr.Item{}
	var order []string
	for _, it := range all {
		k := values(it, pk)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], it)
	}
	sort.Strings(order)
	s.Items = len(all)
	for _, k := range order {
		its := groups[k]
		sort.SliceStable(its, func(i, j int) bool { return less(its[i], its[j], sk) })
		for _, it := range its {
			s.Bytes += rules.ItemSize(it)
		}
		if len(s.Partitions) >= shownPartitions {
			continue
		}
		p := Partition{Key: k}
		for i, it := range its {
			if i >= shownItems {
				break
			}
			size := rules.ItemSize(it)
			p.Items = append(p.Items, ItemView{Entity: entityOf(tb, it), Sort: values(it, sk), Attrs: attrs(it, keys),
				Size: size, RRU: capacity.ReadUnits(size, capacity.Eventual), WRU: capacity.WriteUnits(size)})
		}
		s.Partitions = append(s.Partitions, p)
	}
	s.Shown = len(s.Partitions)
	return s, nil
}

func (s Structure) name() string {
	if s.Index != "" {
		return s.Index
	}
	return s.Table
}

// entityOf names an item's entity by the table's discriminator.
func entityOf(tb *catalog.Table, it attr.Item) string {
	if tb.Discriminator == "" {
		if len(tb.Entities) == 1 {
			return tb.Entities[0].Name
		}
		return ""
	}
	v, ok := it.Get(tb.Discriminator)
	if !ok {
		return ""
	}
	for _, e := range tb.Entities {
		if e.TypeValue == v.Str {
			return e.Name
		}
	}
	return v.Str
}

// less orders two items by their sort key attributes, as DynamoDB does
// (numbers by value, strings and binaries by bytes).
func less(a, b attr.Item, sk []string) bool {
	for _, n := range sk {
		x, _ := a.Get(n)
		y, _ := b.Get(n)
		if c, ok := attr.Compare(x, y); ok && c != 0 {
			return c < 0
		}
	}
	return false
}

// keyOf identifies an item in its table by its key values.
func keyOf(it attr.Item, pk, sk string) string {
	p, ok := it.Get(pk)
	if !ok {
		return ""
	}
	k := p.Type.String() + ":" + p.Str
	if sk != "" {
		s, ok := it.Get(sk)
		if !ok {
			return ""
		}
		k += "\x00" + s.Type.String() + ":" + s.Str
	}
	return k
}

// values shows the values of the named attributes, joined.
func values(it attr.Item, names []string) string {
	var out []string
	for _, n := range names {
		if v, ok := it.Get(n); ok {
			out = append(out, show(v))
		}
	}
	return strings.Join(out, " · ")
}

// attrs lists an item's attributes, keys first.
func attrs(it attr.Item, keys map[string]bool) []AttrView {
	var ks, rest []AttrView
	for _, f := range it {
		a := AttrView{Name: f.Name, Type: f.Value.Type.String(), Value: show(f.Value), Key: keys[f.Name]}
		if a.Key {
			ks = append(ks, a)
		} else {
			rest = append(rest, a)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	return append(ks, rest...)
}

// maxShown bounds one value's text on the page.
const maxShown = 160

// show writes a value as the page shows it: scalars as their text, the
// rest as DynamoDB JSON, cut at maxShown characters.
func show(v attr.Value) string {
	var s string
	switch v.Type {
	case attr.S, attr.N:
		s = v.Str
	case attr.BOOL:
		s = fmt.Sprint(v.Bool)
	case attr.NULL:
		s = "null"
	case attr.B:
		s = base64.StdEncoding.EncodeToString([]byte(v.Str))
	default:
		s = string(attr.AppendValueJSON(nil, v))
	}
	if r := []rune(s); len(r) > maxShown {
		s = string(r[:maxShown]) + "…"
	}
	return s
}

// states lays an entity's samples side by side.
func states(e *catalog.Entity) EntityStates {
	es := EntityStates{Entity: e.Name, Table: e.Table.Name}
	var names []string
	seen := map[string]bool{}
	rules := capacity.Default()
	for _, s := range e.Samples {
		es.Samples = append(es.Samples, s.Name)
		es.Sizes = append(es.Sizes, rules.ItemSize(s.Item))
		for _, f := range s.Item {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
	}
	for _, n := range names {
		r := StateRow{Name: n}
		for _, s := range e.Samples {
			v, ok := s.Item.Get(n)
			if ok {
				r.Values = append(r.Values, show(v))
			} else {
				r.Values = append(r.Values, "")
			}
			r.Absent = append(r.Absent, !ok)
		}
		es.Rows = append(es.Rows, r)
	}
	return es
}
