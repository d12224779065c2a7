package diff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/loadgen"
)

// DefaultScale is the scale of BASE's population a rehearsal loads unless
// told otherwise: a few tens of thousands of items of a model of
// hundreds of millions, seconds on the embedded engine.
const DefaultScale = 0.0002

// MaxScale bounds --scale; MaxRehearseItems bounds the population a
// rehearsal loads whatever the scale (the embedded engine holds it in
// memory).
const (
	MaxScale         = 1.0
	MaxRehearseItems = 2_000_000
)

// Tolerance is how far a measured step may lie from its estimate, as a
// fraction of the estimate.
const Tolerance = 0.05

// Rehearsal is the migration plan played on the embedded engine at a
// scale of BASE's population: each step's measured write units beside
// the plan's estimate at that scale.
type Rehearsal struct {
	Scale float64         `json:"scale"`
	Items int64           `json:"items"` // BASE's items loaded
	Steps []RehearsedStep `json:"steps"`
	// Invariants are HEAD's invariants checked on the result, each with
	// its verdict.
	Invariants []string `json:"invariants,omitempty"`
	Failures   []string `json:"failures,omitempty"`
}

// RehearsedStep is one step played.
type RehearsedStep struct {
	Order int    `json:"order"`
	Step  string `json:"step"`
	// Estimated is the plan's figure at the rehearsal's scale: each
	// entity's mean write units per item, drawn for the plan, times the
	// items loaded. OnItems is the plan's rule applied to the very items
	// the engine holds before the step; Measured what the engine
	// consumed (a backfill: its entries, each rounded up to 1 KB).
	Estimated float64 `json:"estimatedWriteUnits"`
	OnItems   float64 `json:"onItemsWriteUnits"`
	Measured  float64 `json:"measuredWriteUnits"`
	// Agree is true when Measured is within Tolerance of OnItems; Why
	// says why not, or why Estimated differs from OnItems.
	Agree bool   `json:"agree"`
	Why   string `json:"why,omitempty"`
}

// RehearseOptions say how a rehearsal runs.
type RehearseOptions struct {
	// Scale of BASE's population; 0 is DefaultScale.
	Scale float64
}

// rehearsal is one rehearsal's engine, tables and counts.
type rehearsal struct {
	base, head *catalog.Model
	tg         *endpoint.Target
	rules      capacity.Rules
	loaded     map[string]int64 // entity -> items loaded
}

// Rehearse plays r's migration plan on a new embedded engine loaded with
// base's population at o.Scale, and records what each step that writes
// consumed beside its estimate at that scale; then it checks head's
// invariants (the model's, and its key templates and indexes) on the
// result. A step that disagrees by more than Tolerance fails the report.
func (r *Report) Rehearse(ctx context.Context, base, head *catalog.Model, o RehearseOptions, opts Options) error {
	if o.Scale == 0 {
		o.Scale = DefaultScale
	}
	if !(o.Scale > 0 && o.Scale <= MaxScale) {
		return input.Errorf("--scale %g: want more than 0 and at most %g", o.Scale, MaxScale)
	}
	p, err := dataset.New(base, dataset.Options{Scale: o.Scale, Seed: 1})
	if err != nil {
		return input.Errorf("--rehearse: %s: %v", base.Source, err)
	}
	var expected float64
	for _, n := range p.Nodes {
		if x, ok := p.Expected(n); ok {
			expected += x
		} else {
			expected += population(n.Entity) * o.Scale
		}
	}
	if expected > MaxRehearseItems {
		return input.Errorf("--scale %g loads about %.0f items of %s, more than the %d a rehearsal holds: lower --scale", o.Scale, expected, base.Source, MaxRehearseItems)
	}
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	if err != nil {
		return err
	}
	defer tg.Close()
	rh := &rehearsal{base: base, head: head, tg: tg, rules: capacity.Default(), loaded: map[string]int64{}}
	ts, err := tg.CreateTables(ctx, base, endpoint.TableOptions{ModelNames: true, Keys: catalog.KeysNative, OnDemand: true})
	if err != nil {
		return fmt.Errorf("rehearse: create BASE's tables: %w", err)
	}
	sink := dataset.NewLoadSink(ctx, p, dataset.LoadOptions{Client: tg.Client, Rules: rh.rules, Tables: ts.Names()})
	res, err := p.Run(ctx, sink, dataset.RunOptions{Rules: rh.rules})
	if err != nil {
		return fmt.Errorf("rehearse: load BASE's population: %w", err)
	}
	out := &Rehearsal{Scale: o.Scale}
	for i, n := range p.Nodes {
		if i < len(res.Stats) {
			rh.loaded[n.Name()] += res.Stats[i].Items
			out.Items += res.Stats[i].Items
		}
	}
	for _, s := range r.Migration {
		if len(s.Entities) == 0 && s.Kind != StepCreateIndex && s.Kind != StepRebuildIndex && s.Kind != StepDropIndex {
			continue
		}
		rs, err := rh.play(ctx, s)
		if err != nil {
			return fmt.Errorf("rehearse step %d (%s): %w", s.Order, s.Step, err)
		}
		if rs == nil {
			continue
		}
		out.Steps = append(out.Steps, *rs)
		if !rs.Agree {
			out.Failures = append(out.Failures, fmt.Sprintf("rehearsed step %d: %s", rs.Order, rs.Why))
		}
	}
	if err := rh.invariants(ctx, out); err != nil {
		return err
	}
	r.Rehearsal = out
	r.judge(opts)
	return nil
}

// estimate is the plan's figure for step s on the items loaded.
func (rh *rehearsal) estimate(s Step) float64 {
	var u float64
	for _, e := range s.Entities {
		u += e.Mean * float64(rh.loaded[e.Entity])
	}
	return u
}

// play runs one step and measures it.
func (rh *rehearsal) play(ctx context.Context, s Step) (*RehearsedStep, error) {
	rs := &RehearsedStep{Order: s.Order, Step: s.Step, Estimated: rh.estimate(s)}
	var err error
	if rs.OnItems, err = rh.apply(ctx, s); err != nil {
		return nil, err
	}
	switch s.Kind {
	case StepCreateIndex, StepRebuildIndex:
		rs.Measured, err = rh.index(ctx, s)
	case StepDropIndex:
		_, err = rh.tg.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(s.table),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(indexName(s.Path))}}}})
	case StepRewriteEntity, StepMoveEntity:
		rs.Measured, err = rh.rewrite(ctx, s)
	case StepRemoveAttribute, StepBackfillAttr:
		rs.Measured, err = rh.attribute(ctx, s)
	case StepRecreateTable:
		rs.Measured, err = rh.copyTable(ctx, s)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rs.Agree = within(rs.Measured, rs.OnItems)
	switch {
	case !rs.Agree:
		rs.Why = fmt.Sprintf("the engine consumed %s WRU where capacity's rules give %s on the same items: a billing rule and the engine disagree", num(math.Round(rs.Measured)), num(math.Round(rs.OnItems)))
	case !within(rs.Estimated, rs.OnItems):
		rs.Why = fmt.Sprintf("the plan's means, drawn from other trees of the population, put it at %s: the %d items loaded are a small sample of the population's shares", num(math.Round(rs.Estimated)), rh.items(s))
	}
	return rs, nil
}

// within reports whether x lies within Tolerance of want.
func within(x, want float64) bool {
	return math.Abs(x-want) <= Tolerance*math.Max(want, 1)
}

// items is how many items the step's entities had loaded.
func (rh *rehearsal) items(s Step) int64 {
	var n int64
	for _, e := range s.Entities {
		n += rh.loaded[e.Entity]
	}
	return n
}

// apply runs the step's per-item rules over the items the engine holds
// now, each table read once.
func (rh *rehearsal) apply(ctx context.Context, s Step) (float64, error) {
	byTable := map[*catalog.Table][]entityProbe{}
	for _, p := range s.probes {
		if e := entityOf(rh.base, p.entity); e != nil {
			byTable[e.Table] = append(byTable[e.Table], p)
		}
	}
	var units float64
	for t, ps := range byTable {
		err := rh.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(t.Name)}, func(it attr.Item) error {
			for _, p := range ps {
				if e := entityOf(rh.base, p.entity); e != nil && isEntity(t, e, it) {
					units += p.units(it)
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return units, nil
}

// isEntity reports whether item it of table t is one of entity e's: its
// discriminator says so, or the table holds only e.
func isEntity(t *catalog.Table, e *catalog.Entity, it attr.Item) bool {
	if t.Discriminator == "" {
		return len(t.Entities) == 1
	}
	v, ok := it.Get(t.Discriminator)
	return ok && v.Type == attr.S && v.Str == e.TypeValue
}

// indexName is the index a step's path names (indexes.X).
func indexName(path string) string {
	const pre = "indexes."
	if len(path) > len(pre) && path[:len(pre)] == pre {
		return path[len(pre):]
	}
	return path
}

// index drops (for a rebuild) and creates HEAD's index with UpdateTable,
// which backfills it, and measures the write units of its entries as
// DynamoDB bills a backfill: each entry's size rounded up to 1 KB.
func (rh *rehearsal) index(ctx context.Context, s Step) (float64, error) {
	name := indexName(s.Path)
	ht := tableOf(rh.head, s.table)
	in, err := endpoint.CreateTableInput(rh.head, ht, s.table, catalog.KeysNative, true)
	if err != nil {
		return 0, err
	}
	var gsi *types.GlobalSecondaryIndex
	for i := range in.GlobalSecondaryIndexes {
		if aws.ToString(in.GlobalSecondaryIndexes[i].IndexName) == name {
			gsi = &in.GlobalSecondaryIndexes[i]
		}
	}
	if gsi == nil {
		return 0, fmt.Errorf("HEAD's table %s has no global index %s", s.table, name)
	}
	if s.Kind == StepRebuildIndex {
		if _, err := rh.tg.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(s.table),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}}}}); err != nil {
			return 0, fmt.Errorf("drop index %s: %w", name, err)
		}
	}
	_, err = rh.tg.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(s.table), AttributeDefinitions: in.AttributeDefinitions,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection, OnDemandThroughput: gsi.OnDemandThroughput}}}})
	if err != nil {
		return 0, fmt.Errorf("create index %s: %w", name, err)
	}
	var units float64
	err = rh.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.table), IndexName: aws.String(name)}, func(it attr.Item) error {
		units += capacity.WriteUnits(rh.rules.ItemSize(it))
		return nil
	})
	return units, err
}

// scan reads a table or index whole, handing every item to f.
func (rh *rehearsal) scan(ctx context.Context, in *dynamodb.ScanInput, f func(attr.Item) error) error {
	for {
		out, err := rh.tg.Client.Scan(ctx, in)
		if err != nil {
			return err
		}
		for _, av := range out.Items {
			it, err := attr.FromSDKItem(av)
			if err != nil {
				return err
			}
			if err := f(it); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// itemsOf reads every item of BASE's entity from its table: those whose
// discriminator names it, or all of a table that holds only it.
func (rh *rehearsal) itemsOf(ctx context.Context, entity string) ([]attr.Item, *catalog.Entity, error) {
	be := entityOf(rh.base, entity)
	if be == nil {
		return nil, nil, fmt.Errorf("BASE has no entity %s", entity)
	}
	t := be.Table
	if t.Discriminator == "" && len(t.Entities) > 1 {
		return nil, be, errors.New("table " + t.Name + " declares no discriminator to tell its entities apart")
	}
	var items []attr.Item
	err := rh.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(t.Name)}, func(it attr.Item) error {
		if isEntity(t, be, it) {
			items = append(items, it)
		}
		return nil
	})
	return items, be, err
}

func consumed(c *types.ConsumedCapacity) float64 {
	if c == nil {
		return 0
	}
	return aws.ToFloat64(c.CapacityUnits)
}

// rewrite puts every item of the entity with HEAD's keys into HEAD's
// table and deletes the old one, summing what DynamoDB reports.
func (rh *rehearsal) rewrite(ctx context.Context, s Step) (float64, error) {
	var units float64
	for _, eu := range s.Entities {
		items, be, err := rh.itemsOf(ctx, eu.Entity)
		if err != nil {
			return 0, err
		}
		he := entityOf(rh.head, eu.Entity)
		for _, it := range items {
			after := rekey(be, he, it)
			out, err := rh.tg.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(he.Table.Name), Item: attr.ToSDKItem(after),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return 0, fmt.Errorf("put: %w", err)
			}
			units += consumed(out.ConsumedCapacity)
			if he.Table.Name == be.Table.Name && sameKey(be.Table, it, after) {
				continue
			}
			key := attr.Item{}
			for _, k := range be.Table.KeyAttributes() {
				v, _ := it.Get(k)
				key = key.With(k, v)
			}
			del, err := rh.tg.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(be.Table.Name), Key: attr.ToSDKItem(key),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return 0, fmt.Errorf("delete: %w", err)
			}
			units += consumed(del.ConsumedCapacity)
		}
	}
	return units, nil
}

// keysMatch reports whether item it carries the keys entity e's templates
// render: each string key has its template's shape and renders back to
// itself.
func keysMatch(e *catalog.Entity, it attr.Item) bool {
	return sameKey(e.Table, it, rekey(e, e, it)) && func() bool {
		for _, k := range e.Key {
			v, ok := it.Get(k.Attribute)
			if !ok {
				return false
			}
			if v.Type == attr.S && !k.Natural() {
				if _, ok := k.Template.Match(v.Str); !ok {
					return false
				}
			}
		}
		return true
	}()
}

func sameKey(t *catalog.Table, a, b attr.Item) bool {
	for _, k := range t.KeyAttributes() {
		x, _ := a.Get(k)
		y, _ := b.Get(k)
		if !attr.Equal(x, y) {
			return false
		}
	}
	return true
}

// attribute removes an attribute from, or sets it on, every item of the
// entity, with UpdateItem.
func (rh *rehearsal) attribute(ctx context.Context, s Step) (float64, error) {
	name := lastSegment(s.Path)
	var units float64
	for _, eu := range s.Entities {
		items, be, err := rh.itemsOf(ctx, eu.Entity)
		if err != nil {
			return 0, err
		}
		var v attr.Value
		if s.Kind == StepBackfillAttr {
			var ok bool
			if v, ok = firstValue(entityOf(rh.head, eu.Entity), name); !ok {
				return 0, nil
			}
		}
		for _, it := range items {
			in := &dynamodb.UpdateItemInput{TableName: aws.String(be.Table.Name), ExpressionAttributeNames: map[string]string{"#a": name},
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
			key := attr.Item{}
			for _, k := range be.Table.KeyAttributes() {
				kv, _ := it.Get(k)
				key = key.With(k, kv)
			}
			in.Key = attr.ToSDKItem(key)
			if s.Kind == StepRemoveAttribute {
				if _, ok := it.Get(name); !ok {
					continue
				}
				in.UpdateExpression = aws.String("REMOVE #a")
			} else {
				in.UpdateExpression = aws.String("SET #a = :v")
				in.ExpressionAttributeValues = map[string]types.AttributeValue{":v": attr.ToSDK(v)}
			}
			out, err := rh.tg.Client.UpdateItem(ctx, in)
			if err != nil {
				return 0, fmt.Errorf("update: %w", err)
			}
			units += consumed(out.ConsumedCapacity)
		}
	}
	return units, nil
}

func lastSegment(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}

// copyTable creates HEAD's table beside BASE's and puts every item of
// BASE's into it.
func (rh *rehearsal) copyTable(ctx context.Context, s Step) (float64, error) {
	ht := tableOf(rh.head, s.table)
	name := s.table + "-head"
	in, err := endpoint.CreateTableInput(rh.head, ht, name, catalog.KeysNative, true)
	if err != nil {
		return 0, err
	}
	if _, err := rh.tg.Client.CreateTable(ctx, in); err != nil {
		return 0, err
	}
	var units float64
	err = rh.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.scanned)}, func(it attr.Item) error {
		out, err := rh.tg.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: attr.ToSDKItem(it), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			return err
		}
		units += consumed(out.ConsumedCapacity)
		return nil
	})
	return units, err
}

// invariants checks HEAD on the migrated tables: every item of an entity
// whose key template changed carries HEAD's keys, and HEAD's declared
// invariants (each, sum) hold, read by loadgen's checker through the
// engine served on a loopback port.
func (rh *rehearsal) invariants(ctx context.Context, out *Rehearsal) error {
	for _, he := range rh.head.Entities {
		be := entityOf(rh.base, he.Name)
		if be == nil || be.Table.Name != he.Table.Name {
			continue
		}
		changed := false
		for _, k := range he.Key {
			changed = changed || keyTemplate(be, k.Attribute) != k.Template.Text
		}
		if !changed {
			continue
		}
		items, _, err := rh.itemsOf(ctx, he.Name)
		if err != nil {
			return err
		}
		wrong := 0
		for _, it := range items {
			if !keysMatch(he, it) {
				wrong++
			}
		}
		text := fmt.Sprintf("keys of %s: %d items, %d not as HEAD's templates render them", he.Name, len(items), wrong)
		out.Invariants = append(out.Invariants, text)
		if wrong > 0 {
			out.Failures = append(out.Failures, "rehearsal: "+text)
		}
	}
	if len(rh.head.Invariants) == 0 {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rh.tg.Engine.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	rep, err := loadgen.Check(ctx, rh.head, loadgen.CheckOptions{Target: endpoint.Options{EndpointURL: "http://" + ln.Addr().String()}})
	if err != nil {
		return fmt.Errorf("rehearse: HEAD's invariants: %w", err)
	}
	for _, v := range rep.Invariants {
		text := fmt.Sprintf("%s: %d checked, %d violations", v.Name, v.Checked, v.Violations)
		if v.Unchecked != "" {
			text = v.Name + ": not checked: " + v.Unchecked
		}
		out.Invariants = append(out.Invariants, text)
		if v.Violations > 0 {
			out.Failures = append(out.Failures, "rehearsal: HEAD's invariant "+text)
		}
	}
	return nil
}
