package generator_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/expr"
	"github.com/cardapio/cardapio/generator"
)

// A harness drives a generated package against the embedded engine
// without knowing its model: the access patterns and operations are
// called by name through reflection, their arguments built from the
// model, their answers compared with what an oracle computes from the
// seeded items. Each example package gives it the few package-level
// values reflection cannot find.
type harness struct {
	model *catalog.Model
	// newClient returns the package's *Client over db (a *dynamodb.Client
	// or a wrapper of one).
	newClient func(db any, prefix string) any
	// createTables runs the package's CreateTables with DefaultTables.
	createTables func(ctx context.Context, db *dynamodb.Client) error
	// pageSize is the package's PageSize(n) ReadOption.
	pageSize func(n int) any
	// failure is a pointer to a nil *Failure of the package, for errors.As.
	failure any
	// keys is the package's key mode: a synthetic package's items carry
	// the synthetic index keys.
	keys catalog.KeyMode
}

// open returns a fresh embedded engine with the model's tables.
func (h *harness) open(t *testing.T) (*dynamodb.Client, reflect.Value) {
	t.Helper()
	tg, err := endpoint.Open(context.Background(), endpoint.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	require.NoError(t, h.createTables(context.Background(), tg.Client))
	return tg.Client, reflect.ValueOf(h.newClient(tg.Client, ""))
}

// seeded is one item of a dataset with every value that went into it,
// key-only attributes included.
type seeded struct {
	entity *catalog.Entity
	table  *catalog.Table // the entity's, or an archive table keyed alike
	values map[string]attr.Value
	item   attr.Item
}

func (s seeded) in() *catalog.Table {
	if s.table != nil {
		return s.table
	}
	return s.entity.Table
}

func (s seeded) key() string {
	var parts []string
	for _, k := range s.in().KeyAttributes() {
		v, _ := s.item.Get(k)
		parts = append(parts, v.Str)
	}
	return s.in().Name + "|" + strings.Join(parts, "|")
}

// valuesOf returns a sample's values, key-only attributes read back from
// its keys.
func valuesOf(e *catalog.Entity, it attr.Item) map[string]attr.Value {
	vals := map[string]attr.Value{}
	for _, f := range it {
		vals[f.Name] = f.Value
	}
	for _, k := range e.Key {
		v, ok := it.Get(k.Attribute)
		if !ok {
			continue
		}
		parts, ok := k.Template.Match(v.Str)
		if !ok {
			continue
		}
		for _, p := range k.Template.Parts {
			if p.Attr == "" {
				continue
			}
			if _, have := vals[p.Attr]; have {
				continue
			}
			if p.Type == attr.N || p.Width > 0 {
				n, _ := strconv.Atoi(parts[p.Attr])
				vals[p.Attr] = attr.Num(strconv.Itoa(n))
			} else {
				vals[p.Attr] = attr.Str(parts[p.Attr])
			}
		}
	}
	return vals
}

// build renders a seeded item from values: keys from the templates,
// computed attributes computed, the discriminator set.
func build(m *catalog.Model, e *catalog.Entity, vals map[string]attr.Value, secret []byte) (seeded, error) {
	for _, a := range e.Attributes {
		at := m.Attribute(a.Name)
		if at == nil || at.Computed == nil || at.Computed.Kind == catalog.KindHMAC {
			continue
		}
		if _, ok := vals[at.Computed.Input]; !ok && at.Computed.Kind == catalog.KindHashMod {
			continue
		}
		v, err := at.Computed.Eval(vals, secret)
		if err == nil {
			vals[a.Name] = v
		}
	}
	key, err := e.KeyOf(vals)
	if err != nil {
		return seeded{}, err
	}
	it := key
	for _, a := range e.Attributes {
		if a.Presence == catalog.KeyOnly {
			continue
		}
		if v, ok := vals[a.Name]; ok {
			it = it.With(a.Name, v)
		}
	}
	if d := e.Table.Discriminator; d != "" {
		it = it.With(d, attr.Str(e.TypeValue))
	}
	return seeded{entity: e, values: vals, item: it}, nil
}

// dataset draws n variants of every sample of every entity: the values
// that key items (the key placeholders and the index key attributes) are
// drawn from small pools around the sample's, so that items share
// partitions, collide on sort prefixes and spread over shards; optional
// attributes come and go, so sparse indexes hold some items and not
// others. Later items with the same key replace earlier ones, as a
// put does.
func dataset(m *catalog.Model, n int, seed uint64, keys catalog.KeyMode) []seeded {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	byKey := map[string]int{}
	var out []seeded
	indexAttrs := map[string]bool{}
	// Wide attributes take many values: those that order items (sort
	// keys) or spread them over shards.
	wide := map[string]int{}
	for _, x := range m.Indexes {
		for _, a := range x.KeyAttributes() {
			indexAttrs[a] = true
		}
		for _, a := range x.Sort {
			wide[a] = 8
		}
	}
	for _, e := range m.Entities {
		for _, k := range e.Key {
			if k.Attribute == e.Table.SortKey {
				for _, ph := range k.Template.Placeholders() {
					wide[ph] = 8
				}
			}
		}
	}
	for _, a := range m.Attributes {
		if a.Computed != nil && a.Computed.Kind == catalog.KindHashMod {
			wide[a.Computed.Input] = 5 * a.Computed.Modulo
		}
	}
	// Hot values are the constants the access patterns ask for, so that
	// their answers are not empty.
	hot := map[string][]attr.Value{}
	for _, ap := range m.AccessPatterns {
		if ap.Answer == nil {
			continue
		}
		for _, c := range ap.Answer.Key {
			for _, o := range c.Operands {
				if len(o.Placeholders()) == 0 {
					if v, err := o.Resolve(nil); err == nil {
						hot[c.Attribute] = append(hot[c.Attribute], v)
					}
				}
			}
		}
	}
	for _, e := range m.Entities {
		keyAttrs := map[string]bool{}
		widths := map[string]int{}
		for _, k := range e.Key {
			for _, p := range k.Template.Parts {
				if p.Attr != "" {
					keyAttrs[p.Attr] = true
					if p.Width > 0 {
						widths[p.Attr] = p.Width
					}
				}
			}
		}
		for _, s := range e.Samples {
			base := valuesOf(e, s.Item)
			for i := 0; i < n; i++ {
				vals := map[string]attr.Value{}
				for k, v := range base {
					vals[k] = v
				}
				for _, name := range sortedKeys(base) {
					v := base[name]
					a := m.Attribute(name)
					if a == nil || a.Computed != nil {
						continue
					}
					if !keyAttrs[name] && !indexAttrs[name] {
						continue
					}
					pool := 3
					if wide[name] > 0 {
						pool = wide[name]
					}
					vals[name] = vary(r, a, v, widths[name], pool, hot[name])
				}
				for _, ea := range e.Attributes {
					if ea.Presence == catalog.Optional && r.IntN(4) == 0 {
						delete(vals, ea.Name)
					}
				}
				sd, err := build(m, e, vals, nil)
				if err != nil {
					continue
				}
				sd.item = withSynthetic(e.Table, sd.item, keys)
				if j, ok := byKey[sd.key()]; ok {
					out[j] = sd
					continue
				}
				byKey[sd.key()] = len(out)
				out = append(out, sd)
			}
			// A family: the sample with only the last placeholder of its sort
			// key varied, so that one partition holds a run of sort keys
			// (IN#001 to IN#012) whose order the answers must keep.
			if last := lastSortPlaceholder(e); last != "" {
				a := m.Attribute(last)
				for i := 1; i <= 12 && a != nil; i++ {
					vals := map[string]attr.Value{}
					for k, v := range base {
						vals[k] = v
					}
					switch a.Type {
					case attr.N:
						vals[last] = attr.Num(strconv.Itoa(i))
					case attr.S:
						if a.Unit == catalog.UnitInstant || len(a.Enum) > 0 {
							continue
						}
						vals[last] = attr.Str(fmt.Sprintf("%s%02d", base[last].Str, i))
					}
					sd, err := build(m, e, vals, nil)
					if err != nil {
						continue
					}
					sd.item = withSynthetic(e.Table, sd.item, keys)
					if _, ok := byKey[sd.key()]; !ok {
						byKey[sd.key()] = len(out)
						out = append(out, sd)
					}
				}
			}
		}
	}
	// Tables without entities of their own (archives) hold copies of
	// every other item of the tables keyed alike.
	for _, t := range m.Tables {
		if len(t.Entities) > 0 {
			continue
		}
		n := len(out)
		for i := 0; i < n; i += 2 {
			if slices.Equal(out[i].entity.Table.KeyAttributes(), t.KeyAttributes()) {
				c := out[i]
				c.table = t
				out = append(out, c)
			}
		}
	}
	return out
}

// vary draws a value near v: a string from a pool of its own size, an enum value (half the time the sample's), a civil date a day
// away, a small number that fits the padding.
func vary(r *rand.Rand, a *catalog.Attribute, v attr.Value, width int, pool int, hot []attr.Value) attr.Value {
	switch v.Type {
	case attr.S:
		switch {
		case len(a.Enum) > 0:
			switch x := r.IntN(6); {
			case x < 3:
				return v
			case x < 5 && len(hot) > 0:
				return hot[r.IntN(len(hot))]
			}
			return attr.Str(a.Enum[r.IntN(len(a.Enum))])
		case a.Unit == catalog.UnitCivilDate:
			if d, err := parseDate(v.Str); err == nil {
				return attr.Str(d.AddDate(0, 0, r.IntN(2)).Format("2006-01-02"))
			}
		case a.Unit == catalog.UnitInstant:
			return v
		}
		if i := r.IntN(pool); i > 0 {
			return attr.Str(v.Str + strconv.Itoa(i))
		}
		return v
	case attr.N:
		if !wholeNumber(v.Str) {
			return v
		}
		limit := 12
		if width == 1 {
			limit = 9
		}
		if r.IntN(3) == 0 {
			return v
		}
		return attr.Num(strconv.Itoa(r.IntN(limit) + 1))
	}
	return v
}

func wholeNumber(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// seed writes the items with plain PutItem requests.
func seed(t *testing.T, db *dynamodb.Client, items []seeded) {
	t.Helper()
	for _, s := range items {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.in().Name), Item: attr.ToSDKItem(s.item)})
		require.NoError(t, err, "seed %s", s.key())
	}
}

// snapshot reads every table whole, for comparing states.
func snapshot(t *testing.T, db *dynamodb.Client, m *catalog.Model) map[string]attr.Item {
	t.Helper()
	out := map[string]attr.Item{}
	for _, tb := range m.Tables {
		p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(tb.Name), ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			page, err := p.NextPage(context.Background())
			require.NoError(t, err)
			for _, it := range page.Items {
				x, err := attr.FromSDKItem(it)
				require.NoError(t, err)
				var key []string
				for _, k := range tb.KeyAttributes() {
					v, _ := x.Get(k)
					key = append(key, v.Str)
				}
				out[tb.Name+"|"+strings.Join(key, "|")] = x
			}
		}
	}
	return out
}

// patternArgs lists the parameters of an access pattern's function as the
// generator orders them: placeholders of the key condition in order, the
// fan-out attribute left out.
func patternArgs(ap *catalog.AccessPattern) []string {
	skip := ""
	if x := ap.Answer.Index; x != nil && x.Shards != nil && ap.Answer.Shards != nil && ap.Answer.Shards.FanOut == "all" {
		skip = x.Shards.Attribute
	}
	var out []string
	for _, c := range ap.Answer.Key {
		for _, o := range c.Operands {
			for _, ph := range o.Placeholders() {
				if ph != skip && !slices.Contains(out, ph) {
					out = append(out, ph)
				}
			}
		}
	}
	return out
}

// setValue stores a model value into a Go value of the generated type.
func setValue(t *testing.T, dst reflect.Value, v attr.Value) {
	t.Helper()
	switch dst.Kind() {
	case reflect.String:
		dst.SetString(v.Str)
	case reflect.Int64, reflect.Int:
		n, err := strconv.ParseInt(v.Str, 10, 64)
		require.NoError(t, err)
		dst.SetInt(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(v.Str, 64)
		require.NoError(t, err)
		dst.SetFloat(f)
	case reflect.Bool:
		dst.SetBool(v.Bool)
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			dst.SetBytes([]byte(v.Str))
			return
		}
		if dst.Type().Elem().Kind() == reflect.Interface {
			l := reflect.MakeSlice(dst.Type(), 0, len(v.List))
			for _, e := range v.List {
				l = reflect.Append(l, reflect.ValueOf(attr.ToSDK(e)))
			}
			dst.Set(l)
			return
		}
		src := v.List
		if v.Type.IsSet() {
			for _, s := range v.Set {
				src = append(src, attr.Value{Type: attr.S, Str: s})
			}
		}
		l := reflect.MakeSlice(dst.Type(), len(src), len(src))
		for i, e := range src {
			setValue(t, l.Index(i), e)
		}
		dst.Set(l)
	case reflect.Map:
		mv := reflect.MakeMap(dst.Type())
		for _, f := range v.Map {
			e := reflect.New(dst.Type().Elem()).Elem()
			if dst.Type().Elem().Kind() == reflect.Interface {
				e.Set(reflect.ValueOf(attr.ToSDK(f.Value)))
			} else {
				setValue(t, e, f.Value)
			}
			mv.SetMapIndex(reflect.ValueOf(f.Name), e)
		}
		dst.Set(mv)
	case reflect.Interface:
		dst.Set(reflect.ValueOf(attr.ToSDK(v)))
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		setValue(t, p.Elem(), v)
		dst.Set(p)
	case reflect.Struct:
		// A map with declared members: fields by their dynamodbav names.
		for _, f := range v.Map {
			found := false
			for i := 0; i < dst.NumField(); i++ {
				tag, _, _ := strings.Cut(dst.Type().Field(i).Tag.Get("dynamodbav"), ",")
				if tag == f.Name {
					setValue(t, dst.Field(i), f.Value)
					found = true
				}
			}
			require.True(t, found, "%s has no member %s", dst.Type(), f.Name)
		}
	default:
		t.Fatalf("cannot set a %s from a model value", dst.Type())
	}
}

// tableKey returns the table key of a generated value: an entity (via
// MarshalItem) or an index entry (its Key field).
func tableKey(t *testing.T, table *catalog.Table, v reflect.Value) string {
	t.Helper()
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var parts []string
	if k := v.FieldByName("Key"); k.IsValid() && k.Kind() == reflect.Struct {
		for i := 0; i < k.NumField(); i++ {
			parts = append(parts, fmt.Sprint(k.Field(i).Interface()))
		}
		return table.Name + "|" + strings.Join(parts, "|")
	}
	mi := v.MethodByName("MarshalItem")
	require.True(t, mi.IsValid(), "%s has neither Key nor MarshalItem", v.Type())
	out := mi.Call(nil)
	require.Nil(t, out[1].Interface(), "MarshalItem of %s", v.Type())
	item := out[0].Interface().(map[string]types.AttributeValue)
	for _, k := range table.KeyAttributes() {
		x, err := attr.FromSDK(item[k])
		require.NoError(t, err)
		parts = append(parts, x.Str)
	}
	return table.Name + "|" + strings.Join(parts, "|")
}

// pages runs an iter.Seq2[Page[T], error] and returns the table keys of
// its items in order, and the number of pages.
func pages(t *testing.T, table *catalog.Table, seq reflect.Value) ([]string, int, error) {
	t.Helper()
	var keys []string
	n := 0
	var failure error
	yieldType := seq.Type().In(0)
	yield := reflect.MakeFunc(yieldType, func(args []reflect.Value) []reflect.Value {
		if e := args[1].Interface(); e != nil {
			failure = e.(error)
			return []reflect.Value{reflect.ValueOf(false)}
		}
		n++
		items := args[0].FieldByName("Items")
		for i := 0; i < items.Len(); i++ {
			keys = append(keys, tableKey(t, table, items.Index(i)))
		}
		return []reflect.Value{reflect.ValueOf(true)}
	})
	seq.Call([]reflect.Value{yield})
	return keys, n, failure
}

// expected computes, from the seeded items, what a pattern's key
// condition returns and in which order: the oracle.
func expected(m *catalog.Model, ap *catalog.AccessPattern, params map[string]attr.Value, items []seeded) ([]string, [][]string, error) {
	ans := ap.Answer
	x := ans.Index
	fanAttr := ""
	if x != nil && x.Shards != nil && ans.Shards != nil && ans.Shards.FanOut == "all" {
		fanAttr = x.Shards.Attribute
	}
	type hit struct {
		key  string
		sort []attr.Value
	}
	var hits []hit
	for _, s := range items {
		if s.in() != ans.Table {
			continue
		}
		if x != nil {
			in := true
			for _, a := range x.KeyAttributes() {
				if _, ok := s.item.Get(a); !ok {
					in = false
				}
			}
			if !in {
				continue
			}
		}
		match := true
		for _, c := range ans.Key {
			if c.Attribute == fanAttr {
				continue
			}
			got, ok := s.item.Get(c.Attribute)
			if !ok {
				match = false
				break
			}
			var ops []attr.Value
			for _, o := range c.Operands {
				v, err := o.Resolve(params)
				if err != nil {
					return nil, nil, err
				}
				ops = append(ops, v)
			}
			if !condHolds(c.Op, got, ops) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		var sortAttrs []string
		if x != nil {
			sortAttrs = x.Sort
		} else if ans.Table.SortKey != "" {
			sortAttrs = []string{ans.Table.SortKey}
		}
		h := hit{key: s.key()}
		for _, a := range sortAttrs {
			v, _ := s.item.Get(a)
			h.sort = append(h.sort, v)
		}
		hits = append(hits, h)
	}
	cmp := func(a, b hit) int {
		for i := range a.sort {
			c, _ := attr.Compare(a.sort[i], b.sort[i])
			if c != 0 {
				if ans.Order == "descending" {
					return -c
				}
				return c
			}
		}
		return 0
	}
	slices.SortStableFunc(hits, cmp)
	var keys []string
	var groups [][]string
	for i, h := range hits {
		keys = append(keys, h.key)
		if i > 0 && cmp(hits[i-1], h) == 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], h.key)
		} else {
			groups = append(groups, []string{h.key})
		}
	}
	return keys, groups, nil
}

func condHolds(op string, got attr.Value, ops []attr.Value) bool {
	c, ok := attr.Compare(got, ops[0])
	if !ok && op != catalog.OpBeginsWith {
		return false
	}
	switch op {
	case catalog.OpEq:
		return c == 0
	case catalog.OpBeginsWith:
		return got.Type == ops[0].Type && strings.HasPrefix(got.Str, ops[0].Str)
	case catalog.OpLt:
		return c < 0
	case catalog.OpLe:
		return c <= 0
	case catalog.OpGt:
		return c > 0
	case catalog.OpGe:
		return c >= 0
	case catalog.OpBetween:
		c2, ok := attr.Compare(got, ops[1])
		return ok && c >= 0 && c2 <= 0
	}
	return false
}

// sameOrder checks got against the expected keys: the same items, in the
// order of the expected groups (items that tie on the sort key may come
// in any order among themselves).
func sameOrder(t *testing.T, what string, got []string, groups [][]string) {
	t.Helper()
	var want []string
	for _, g := range groups {
		want = append(want, g...)
	}
	if !assert.Equal(t, len(want), len(got), "%s: number of items", what) {
		return
	}
	i := 0
	for _, g := range groups {
		part := slices.Clone(got[i : i+len(g)])
		slices.Sort(part)
		exp := slices.Clone(g)
		slices.Sort(exp)
		if !assert.Equal(t, exp, part, "%s: items %d..%d", what, i, i+len(g)-1) {
			return
		}
		i += len(g)
	}
}

// checkPatterns calls every access pattern with a read, with parameters
// taken from seeded items, in small pages, and compares the items with
// the oracle's.
func (h *harness) checkPatterns(t *testing.T, n int) {
	m := h.model
	items := dataset(m, n, 7, h.keys)
	db, client := h.open(t)
	seed(t, db, items)
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, ap := range m.AccessPatterns {
		if ap.Answer == nil || (ap.Answer.Operation != "GetItem" && ap.Answer.Operation != "Query") {
			continue
		}
		method := client.MethodByName(generator.Identifier(ap.ID))
		require.True(t, method.IsValid(), "no method %s", generator.Identifier(ap.ID))
		args := patternArgs(ap)
		// Parameters from items the pattern can return, so that answers
		// are not all empty; a prefix parameter also as half a prefix.
		var pool []seeded
		for _, s := range items {
			ok := s.in() == ap.Answer.Table
			for _, a := range args {
				if _, has := s.values[boundName(ap, a)]; !has {
					ok = false
				}
			}
			for _, c := range ap.Answer.Key {
				if len(c.Operands) == 0 || len(c.Operands[0].Placeholders()) > 0 || !ok {
					continue
				}
				v, _ := c.Operands[0].Resolve(nil)
				got, has := s.item.Get(c.Attribute)
				ok = has && condHolds(c.Op, got, []attr.Value{v, v})
			}
			if ok {
				pool = append(pool, s)
			}
		}
		if len(pool) == 0 {
			continue
		}
		for try := 0; try < 6; try++ {
			// Of a few candidates, the parameters with the longest answer.
			var params map[string]attr.Value
			best := -1
			for c := 0; c < 8; c++ {
				src := pool[r.IntN(len(pool))]
				cand := map[string]attr.Value{}
				for _, a := range args {
					cand[a] = src.values[boundName(ap, a)]
				}
				// A range spans the values of two items, in order.
				for _, rg := range catalog.Ranges(ap.Answer.Key, ap.Params) {
					other := pool[r.IntN(len(pool))].values[rg.Attribute.Name]
					lo, hi := cand[rg.Lower.Name], other
					if c, _ := attr.Compare(lo, hi); c > 0 {
						lo, hi = hi, lo
					}
					cand[rg.Lower.Name], cand[rg.Upper.Name] = lo, hi
				}
				if try%2 == 1 {
					for _, c := range ap.Answer.Key {
						if c.Op == catalog.OpBeginsWith && len(c.Operands) == 1 && c.Operands[0].Param != "" {
							v := cand[c.Operands[0].Param]
							cand[c.Operands[0].Param] = attr.Str(v.Str[:max(1, len(v.Str)/2)])
						}
					}
				}
				keys, _, err := expected(m, ap, cand, items)
				require.NoError(t, err)
				// A range is also tried narrow: the shortest answer
				// that is not empty, so a bound the code dropped shows.
				narrow := try%2 == 1 && len(catalog.Ranges(ap.Answer.Key, ap.Params)) > 0
				if score := len(keys); narrow && score > 0 {
					score = 1 << 20 / score
					if score > best {
						best, params = score, cand
					}
				} else if !narrow && len(keys) > best {
					best, params = len(keys), cand
				}
			}
			in := []reflect.Value{reflect.ValueOf(context.Background())}
			for i, a := range args {
				pv := reflect.New(method.Type().In(1 + i)).Elem()
				setValue(t, pv, params[a])
				in = append(in, pv)
			}
			_, groups, err := expected(m, ap, params, items)
			require.NoError(t, err)
			what := fmt.Sprintf("%s(%v)", ap.ID, params)
			if ap.Answer.Operation == "GetItem" {
				out := method.Call(in)
				require.Nil(t, out[2].Interface(), what)
				var got []string
				if !out[0].IsNil() {
					got = []string{tableKey(t, ap.Answer.Table, out[0])}
				}
				sameOrder(t, what, got, groups)
				checked++
				continue
			}
			size := 1 + r.IntN(3)
			in = append(in, reflect.ValueOf(h.pageSize(size)))
			got, npages, err := pages(t, ap.Answer.Table, method.Call(in)[0])
			require.NoError(t, err, what)
			sameOrder(t, what, got, groups)
			if testing.Verbose() {
				t.Logf("%s: %d items, %d pages of %d", ap.ID, len(got), npages, size)
			}
			if len(got) > size {
				assert.Greater(t, npages, 1, "%s: %d items in pages of %d", what, len(got), size)
			}
			checked++
		}
	}
	assert.Positive(t, checked)
	t.Logf("%d pattern calls on %d seeded items", checked, len(items))
}

// stateSample returns the sample item of a step's entity.
func stateSample(e *catalog.Entity, name string) (attr.Item, bool) {
	if name == "" || name == catalog.Absent {
		return nil, false
	}
	return e.Sample(name)
}

// checkOperations runs every operation in every budget variant on a fresh
// engine holding the variant's before state: a variant that fails a step
// returns that step's failure and changes nothing; any other succeeds and
// leaves every written item equal to its after sample.
func (h *harness) checkOperations(t *testing.T) {
	m := h.model
	for _, op := range m.Operations {
		for _, b := range op.Budgets {
			t.Run(op.Name+"/"+b.Name, func(t *testing.T) {
				db, client := h.open(t)
				var seedItems []seeded
				var steps []*catalog.Step
				for _, s := range op.Steps {
					if !s.In(b.Name) {
						continue
					}
					steps = append(steps, s)
					for _, it := range s.Items {
						if it.In(b.Name) {
							steps = append(steps, it)
						}
					}
				}
				for _, s := range steps {
					q := s.Request
					if q == nil {
						continue
					}
					before, after, sample := b.SamplesFor(s)
					if s.ID == b.FailedStep {
						// The state that makes the condition fail: the override
						// the variant gives, or else the step's own after state
						// (the item exists, at a later version).
						if o, ok := b.Samples[s.ID]; !ok || o.Before == nil {
							before = after
						}
					}
					for _, name := range []string{before, sample} {
						if it, ok := stateSample(q.Entity, name); ok {
							seedItems = append(seedItems, seeded{entity: q.Entity, item: withSynthetic(q.Table, it, h.keys)})
						}
					}
					for _, mt := range q.Matches {
						if it, ok := mt.Entity.Sample(mt.Sample); ok {
							seedItems = append(seedItems, seeded{entity: mt.Entity, item: withSynthetic(mt.Entity.Table, it, h.keys)})
						}
					}
				}
				seed(t, db, seedItems)
				beforeState := snapshot(t, db, m)

				method := client.MethodByName(generator.Identifier(op.Name))
				require.True(t, method.IsValid())
				in := reflect.New(method.Type().In(1)).Elem()
				vals := op.SampleInputsIn(b)
				for _, prm := range op.Params {
					f := in.FieldByName(generator.Identifier(prm.Name))
					v, ok := vals[prm.Name]
					if !f.IsValid() || !ok {
						continue
					}
					setValue(t, f, v)
				}
				if v := generator.PathVariant(m, op.Name, b.Name); v != "" {
					in.FieldByName("Variant").SetString(v)
				}
				out := method.Call([]reflect.Value{reflect.ValueOf(context.Background()), in})
				err, _ := out[1].Interface().(error)
				if b.FailedStep != "" {
					require.Error(t, err)
					f := reflect.New(reflect.TypeOf(h.failure).Elem())
					require.True(t, errors.As(err, f.Interface()), "%v is not a *Failure", err)
					assert.Equal(t, b.FailedStep, f.Elem().Elem().FieldByName("Step").String())
					assert.Equal(t, beforeState, snapshot(t, db, m), "a failed step changed the table")
					return
				}
				require.NoError(t, err)
				state := snapshot(t, db, m)
				want := effect(t, op, b, steps, beforeState)
				for key, it := range want {
					if it != nil {
						it = resynthesize(m.Table(strings.SplitN(key, "|", 2)[0]), it, h.keys)
					}
					got, ok := state[key]
					if it == nil {
						assert.False(t, ok, "after %s: %s should be gone", op.Name, key)
						continue
					}
					if assert.True(t, ok, "after %s: no item %s", op.Name, key) {
						assert.True(t, attr.EqualItems(it, got), "after %s: %s\nwant %v\n got %v", op.Name, key, it, got)
					}
				}
				capacity := out[0].FieldByName("Capacity")
				assert.Positive(t, capacity.FieldByName("ReadUnits").Float()+capacity.FieldByName("WriteUnits").Float(), "no capacity reported")
			})
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func parseDate(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }

// effect computes, independently of the generated code, the state each
// write of a variant leaves: a put's item from its templates and
// operands, an update's by applying its expression (package expr, as the
// engine does) to the item before it, a delete's absence. Values bound by
// a read come from the item it reads.
func effect(t *testing.T, op *catalog.Operation, b *catalog.Budget, steps []*catalog.Step, before map[string]attr.Item) map[string]attr.Item {
	t.Helper()
	scope := map[string]attr.Value(op.SampleInputsIn(b))
	out := map[string]attr.Item{}
	keyOf := func(q *catalog.Request) (attr.Item, string) {
		var key attr.Item
		var parts []string
		for _, a := range q.Key {
			v, err := a.Value.Resolve(scope)
			require.NoError(t, err)
			key = key.With(a.Attribute, v)
		}
		for _, k := range q.Table.KeyAttributes() {
			v, _ := key.Get(k)
			parts = append(parts, v.Str)
		}
		return key, q.Table.Name + "|" + strings.Join(parts, "|")
	}
	for _, s := range steps {
		q := s.Request
		if q == nil {
			continue
		}
		switch s.Kind {
		case catalog.Get:
			_, _, sample := b.SamplesFor(s)
			if it, ok := q.Entity.Sample(sample); ok && it != nil {
				for k, v := range valuesOf(q.Entity, it) {
					if slices.Contains(s.Bind, k) {
						scope[k] = v
					}
				}
			}
		case catalog.Query, catalog.Scan:
			// A read binds from its first item: the first match's sample,
			// as a sample run does.
			if len(s.Bind) > 0 && len(q.Matches) > 0 {
				if it, ok := q.Matches[0].Entity.Sample(q.Matches[0].Sample); ok {
					for k, v := range valuesOf(q.Matches[0].Entity, it) {
						if slices.Contains(s.Bind, k) {
							scope[k] = v
						}
					}
				}
			}
		case catalog.Put:
			key, k := keyOf(q)
			it := key
			if d := q.Table.Discriminator; d != "" {
				it = it.With(d, attr.Str(q.Entity.TypeValue))
			}
			for _, a := range q.Item {
				v, err := a.Value.Resolve(scope)
				require.NoError(t, err)
				it = it.With(a.Attribute, v)
			}
			out[k] = it
		case catalog.Update:
			key, k := keyOf(q)
			cur, ok := out[k]
			if !ok {
				cur, ok = before[k]
			}
			if !ok {
				cur = key
			}
			values := map[string]attr.Value{}
			for _, nv := range q.Values {
				v, err := nv.Value.Resolve(scope)
				require.NoError(t, err)
				values[nv.Name] = v
			}
			u, err := expr.NewScope(q.Names, values).Update(q.Update)
			require.NoError(t, err)
			next, err := u.Apply(cur)
			require.NoError(t, err)
			out[k] = next
		case catalog.Delete:
			_, k := keyOf(q)
			out[k] = nil
		}
	}
	return out
}

// withSynthetic adds the synthetic index keys an item's attributes make,
// when the table's indexes are keyed synthetically.
func withSynthetic(t *catalog.Table, it attr.Item, keys catalog.KeyMode) attr.Item {
	for _, x := range t.Indexes {
		if !x.KeyedSynthetic(keys) {
			continue
		}
		for _, sk := range []*catalog.SyntheticKey{x.Synthetic.Partition, x.Synthetic.Sort} {
			if sk == nil {
				continue
			}
			if v, err := sk.Template.RenderItem(it); err == nil {
				it = it.With(sk.Attribute, attr.Str(v))
			}
		}
	}
	return it
}

// resynthesize renders an item's synthetic keys afresh from its natural
// attributes: a write keeps each synthetic key in step with them.
func resynthesize(t *catalog.Table, it attr.Item, keys catalog.KeyMode) attr.Item {
	var out attr.Item
	synthetic := map[string]bool{}
	for _, x := range t.Indexes {
		if x.KeyedSynthetic(keys) {
			synthetic[x.Synthetic.Partition.Attribute] = true
			if x.Synthetic.Sort != nil {
				synthetic[x.Synthetic.Sort.Attribute] = true
			}
		}
	}
	for _, f := range it {
		if !synthetic[f.Name] {
			out = append(out, f)
		}
	}
	return withSynthetic(t, out, keys)
}

// lastSortPlaceholder is the last placeholder of an entity's sort key
// template, "" when it has none.
func lastSortPlaceholder(e *catalog.Entity) string {
	for _, k := range e.Key {
		if k.Attribute != e.Table.SortKey {
			continue
		}
		ph := k.Template.Placeholders()
		if len(ph) > 0 {
			return ph[len(ph)-1]
		}
	}
	return ""
}

// boundName is the value a pattern's argument takes from a seeded item:
// a named parameter (a range's bound) the attribute it bounds, any other
// the attribute of its own name.
func boundName(ap *catalog.AccessPattern, name string) string {
	for _, p := range ap.Params {
		if p.Name == name {
			return p.Attribute.Name
		}
	}
	return name
}
