package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/expr"
)

// Run runs one operation in one variant. The error is for a run that
// could not start (an unknown operation or variant, bad parameters);
// everything that happens on the target is in the Result's Outcome.
func (x *Executor) Run(ctx context.Context, in Input) (*Result, error) {
	p, params, err := x.prepare(in)
	if err != nil {
		return nil, err
	}
	return x.RunPlan(ctx, p, params, in.Before), nil
}

// prepare finds an input's plan and checks its parameters.
func (x *Executor) prepare(in Input) (*Plan, map[string]attr.Value, error) {
	p, err := x.Plan(in.Operation, in.Variant)
	if err != nil {
		return nil, nil, err
	}
	// A variant's own parameter values stand in for the samples; the
	// caller's values stand over both.
	given := in.Params
	if p.Variant != nil && len(p.Variant.Params) > 0 {
		given = maps.Clone(p.Variant.Params)
		maps.Copy(given, in.Params)
	}
	params, err := x.Params(p.Operation, given)
	if err != nil {
		return nil, nil, err
	}
	return p, params, nil
}

// RunPlan runs a compiled plan with checked parameter values (Params).
func (x *Executor) RunPlan(ctx context.Context, p *Plan, params map[string]attr.Value, before map[string]attr.Item) *Result {
	res := &Result{Operation: p.Operation.Name, Variant: p.Variant.Name}
	for attempt := 0; ; attempt++ {
		r := run{x: x, p: p, before: before, env: make(map[string]attr.Value, len(params)+p.binds)}
		for k, v := range params {
			r.env[k] = v
		}
		out := r.steps(ctx)
		res.Attempts++
		res.Steps = append(res.Steps, r.results...)
		res.Outcome = out
		if x.opts.Keep {
			res.Values = r.env
		}
		if !out.Retry() || attempt >= x.opts.Retries || ctx.Err() != nil {
			break
		}
	}
	for _, s := range res.Steps {
		res.Capacity.Add(s.Capacity)
	}
	return res
}

// run is the state of one attempt.
type run struct {
	x       *Executor
	p       *Plan
	before  map[string]attr.Item
	env     map[string]attr.Value
	results []StepResult
}

func (r *run) steps(ctx context.Context) Outcome {
	for _, sp := range r.p.Steps {
		if err := ctx.Err(); err != nil {
			return Outcome{Kind: Error, Step: sp.ID, Message: err.Error(), Err: err}
		}
		sr := StepResult{ID: sp.ID, Kind: sp.Kind}
		var out *Outcome
		switch sp.Kind {
		case catalog.Get:
			out = r.get(ctx, sp, &sr)
		case catalog.Query, catalog.Scan:
			out = r.read(ctx, sp, &sr)
		case catalog.Transaction:
			out = r.transaction(ctx, sp, &sr)
		default:
			out = r.write(ctx, sp, &sr)
		}
		r.results = append(r.results, sr)
		if out != nil {
			return *out
		}
	}
	return Outcome{Kind: Applied}
}

var indexes = types.ReturnConsumedCapacityIndexes

// charge adds a response's ConsumedCapacity to a step.
func (r *run) charge(sr *StepResult, ccs []types.ConsumedCapacity, write, computed bool) {
	for i := range ccs {
		c := fromSDK(&ccs[i], write)
		table := r.x.reverse[c.TableName]
		if table == "" {
			table = c.TableName
		}
		sr.Capacity.add(table, c, computed)
	}
}

func (r *run) chargeOne(sr *StepResult, cc *types.ConsumedCapacity, write bool) {
	if cc == nil {
		sr.Capacity.Missing = true
		return
	}
	r.charge(sr, []types.ConsumedCapacity{*cc}, write, false)
}

// key renders a step's table key.
func (r *run) key(sp *StepPlan) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(sp.Key))
	for _, k := range sp.Key {
		v, err := r.x.resolveKey(k.Value, r.env)
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", k.Attribute, err)
		}
		m[k.Attribute] = attr.ToSDK(v)
	}
	return m, nil
}

// resolveKey resolves an operand placed in a key: a template refuses
// values holding the model's key separator, which would make the key
// ambiguous (as catalog.Step.Render does).
func (x *Executor) resolveKey(o catalog.Operand, env map[string]attr.Value) (attr.Value, error) {
	if o.Template != nil {
		s, err := o.Template.RenderSep(env, x.m.Separator)
		return attr.Str(s), err
	}
	return o.Resolve(env)
}

// values renders a step's expression attribute values; nil when none.
func (r *run) values(sp *StepPlan) (map[string]types.AttributeValue, error) {
	if len(sp.Values) == 0 {
		return nil, nil
	}
	m := make(map[string]types.AttributeValue, len(sp.Values)+len(sp.SyntheticWrites))
	for _, nv := range sp.Values {
		v, err := nv.Value.Resolve(r.env)
		if err != nil {
			return nil, fmt.Errorf("value %s: %w", nv.Name, err)
		}
		m[nv.Name] = attr.ToSDK(v)
	}
	return m, nil
}

func names(sp *StepPlan) map[string]string {
	if len(sp.Names) == 0 {
		return nil
	}
	return sp.Names
}

func (r *run) get(ctx context.Context, sp *StepPlan, sr *StepResult) *Outcome {
	key, err := r.key(sp)
	if err != nil {
		return r.fail(sp, err)
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(sp.Table), Key: key, ReturnConsumedCapacity: indexes}
	if sp.ConsistentRead {
		in.ConsistentRead = aws.Bool(true)
	}
	if sp.Projection != "" {
		in.ProjectionExpression = aws.String(sp.Projection)
		in.ExpressionAttributeNames = names(sp)
	}
	sr.Requests++
	out, err := r.x.api.GetItem(ctx, in)
	if err != nil {
		return r.sendError(sp, err)
	}
	r.chargeOne(sr, out.ConsumedCapacity, false)
	if len(out.Item) == 0 {
		if sp.OnMissing != nil {
			sr.Failed = true
			return &Outcome{Kind: NotFound, Step: sp.ID, Meaning: sp.OnMissing.Meaning, Declared: sp.OnMissing.Outcome}
		}
		if len(sp.Bind) > 0 {
			return &Outcome{Kind: NotFound, Step: sp.ID, Declared: "fail", Message: fmt.Sprintf("step %s found no item, binds %s, and declares no onMissing", sp.ID, strings.Join(sp.Bind, ", "))}
		}
		return nil
	}
	sr.Items = 1
	if r.x.opts.Keep {
		sr.Found = append(sr.Found, out.Item)
	}
	return r.bind(sp, out.Item)
}

// bind copies the attributes a read binds into the run's values.
func (r *run) bind(sp *StepPlan, item map[string]types.AttributeValue) *Outcome {
	for _, b := range sp.Bind {
		av, ok := item[b]
		if !ok {
			return &Outcome{Kind: Error, Step: sp.ID, Message: fmt.Sprintf("step %s binds %s, which the item read does not hold", sp.ID, b)}
		}
		v, err := attr.FromSDK(av)
		if err != nil {
			return r.fail(sp, err)
		}
		r.env[b] = v
	}
	return nil
}

// read runs a query or scan: on every shard of a fan-out, the pages one
// run reads (StepPlan.Pages: those the step's matches fill, following
// LastEvaluatedKey, or the whole answer), and that again for each further
// page the variant declares (Budget.Pages), which repeats the same
// requests and is counted at their measured figures, not sent again.
// The shards of a fan-out are read at once, as the workers the model
// declares for it read them (at most shardWorkers in flight), and their
// answers taken in shard order, as if read one after the other: the
// figures, the binding from the first item and the outcome of a failed
// request are those of a sequential read.
func (r *run) read(ctx context.Context, sp *StepPlan, sr *StepResult) *Outcome {
	shards := 1
	if sp.ShardCount > 0 {
		shards = sp.ShardCount
	}
	vals, err := r.values(sp)
	if err != nil {
		return r.fail(sp, err)
	}
	kvs := make([]map[string]types.AttributeValue, shards)
	for shard := range kvs {
		kvs[shard] = vals
		if sp.Kind == catalog.Query {
			if kvs[shard], err = r.keyValues(sp, vals, shard); err != nil {
				return r.fail(sp, err)
			}
		}
	}
	got := make([]shardRead, shards)
	if shards == 1 {
		got[0] = r.readShard(ctx, sp, kvs[0])
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(shards, shardWorkers) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for shard := range next {
					got[shard] = r.readShard(ctx, sp, kvs[shard])
				}
			}()
		}
		for shard := range shards {
			next <- shard
		}
		close(next)
		wg.Wait()
	}
	var bound bool
	for _, g := range got {
		for _, pg := range g.pages {
			sr.Requests++
			r.chargeOne(sr, pg.cc, false)
			sr.Items += pg.items
			sr.Found = append(sr.Found, pg.found...)
			if !bound && len(sp.Bind) > 0 && pg.first != nil {
				bound = true
				if o := r.bind(sp, pg.first); o != nil {
					return o
				}
			}
			sr.LastKey = pg.last
		}
		if g.err != nil {
			if g.sent {
				sr.Requests++
				return r.sendError(sp, g.err)
			}
			return r.fail(sp, g.err)
		}
		for range max(1, r.p.Variant.Pages) - 1 {
			for _, pg := range g.pages {
				r.chargeOne(sr, pg.cc, false)
				sr.Repeated++
			}
		}
	}
	if len(sp.Bind) > 0 && !bound {
		return &Outcome{Kind: NotFound, Step: sp.ID, Declared: "fail", Message: fmt.Sprintf("step %s read no item and binds %s", sp.ID, strings.Join(sp.Bind, ", "))}
	}
	return nil
}

// shardWorkers is the most requests of one fan-out in flight.
const shardWorkers = 8

// shardRead is what the pages of one shard answered, up to a failure.
type shardRead struct {
	pages []pageRead
	err   error
	sent  bool // err is the target's answer to a request (else ctx's)
}

type pageRead struct {
	cc    *types.ConsumedCapacity
	items int
	first map[string]types.AttributeValue   // the page's first item
	last  map[string]types.AttributeValue   // LastEvaluatedKey
	found []map[string]types.AttributeValue // its items, with Options.Keep
}

// readShard reads the pages of one shard with its key values kv.
func (r *run) readShard(ctx context.Context, sp *StepPlan, kv map[string]types.AttributeValue) (g shardRead) {
	var start map[string]types.AttributeValue
	for page := 0; sp.Pages == 0 || page < sp.Pages; page++ {
		if err := ctx.Err(); err != nil {
			g.err = err
			return g
		}
		var items []map[string]types.AttributeValue
		var pg pageRead
		var seen pageItems
		var opts []func(*dynamodb.Options)
		if !r.x.opts.Keep {
			opts = append(opts, firstItemOnly(&seen))
		}
		if sp.Kind == catalog.Query {
			in := &dynamodb.QueryInput{TableName: aws.String(sp.Table), KeyConditionExpression: aws.String(sp.KeyCondition),
				ExpressionAttributeNames: names(sp), ExpressionAttributeValues: kv, ExclusiveStartKey: start, ReturnConsumedCapacity: indexes}
			r.readShape(sp, &in.IndexName, &in.FilterExpression, &in.ProjectionExpression, &in.ConsistentRead, &in.Limit)
			if sp.Descending {
				in.ScanIndexForward = aws.Bool(false)
			}
			out, err := r.x.api.Query(ctx, in, opts...)
			if err != nil {
				g.err, g.sent = err, true
				return g
			}
			items, pg.cc, pg.last = out.Items, out.ConsumedCapacity, out.LastEvaluatedKey
		} else {
			in := &dynamodb.ScanInput{TableName: aws.String(sp.Table), ExpressionAttributeNames: names(sp), ExpressionAttributeValues: kv,
				ExclusiveStartKey: start, ReturnConsumedCapacity: indexes}
			r.readShape(sp, &in.IndexName, &in.FilterExpression, &in.ProjectionExpression, &in.ConsistentRead, &in.Limit)
			out, err := r.x.api.Scan(ctx, in, opts...)
			if err != nil {
				g.err, g.sent = err, true
				return g
			}
			items, pg.cc, pg.last = out.Items, out.ConsumedCapacity, out.LastEvaluatedKey
		}
		pg.items = len(items)
		if seen.cut {
			pg.items = seen.count
		}
		if len(items) > 0 {
			pg.first = items[0]
		}
		if r.x.opts.Keep {
			pg.found = items
		}
		g.pages = append(g.pages, pg)
		start = pg.last
		if pg.last == nil {
			break
		}
	}
	return g
}

func (r *run) readShape(sp *StepPlan, index, filter, projection **string, consistent **bool, limit **int32) {
	if sp.Index != nil {
		*index = aws.String(sp.Index.Name)
	}
	if sp.Filter != "" {
		*filter = aws.String(sp.Filter)
	}
	if sp.Projection != "" {
		*projection = aws.String(sp.Projection)
	}
	if sp.ConsistentRead {
		*consistent = aws.Bool(true)
	}
	if sp.Limit > 0 {
		*limit = aws.Int32(sp.Limit)
	}
}

// keyValues adds a query's key condition values to its other values, for
// one shard of a fan-out.
func (r *run) keyValues(sp *StepPlan, vals map[string]types.AttributeValue, shard int) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(vals)+len(sp.KeyValues))
	for k, v := range vals {
		m[k] = v
	}
	shardType := func(a string) attr.Type {
		if at := r.x.m.Attribute(a); at != nil {
			return at.Type
		}
		return attr.N
	}
	for i := range sp.KeyValues {
		kv := &sp.KeyValues[i]
		if !kv.synthetic {
			var v attr.Value
			var err error
			if i == sp.ShardValue {
				v = shardValue(shardType(kv.Attribute), shard)
			} else if v, err = kv.Operand.Resolve(r.env); err != nil {
				return nil, fmt.Errorf("key condition on %s: %w", kv.Attribute, err)
			}
			m[kv.Placeholder] = attr.ToSDK(v)
			continue
		}
		natural := make(map[string]attr.Value, len(kv.Natural))
		for _, kc := range kv.Natural {
			v, err := kc.Operands[0].Resolve(r.env)
			if err != nil {
				return nil, fmt.Errorf("key condition on %s: %w", kc.Attribute, err)
			}
			natural[kc.Attribute] = v
		}
		if sp.ShardAttr != "" {
			if _, ok := natural[sp.ShardAttr]; ok {
				natural[sp.ShardAttr] = shardValue(shardType(sp.ShardAttr), shard)
			}
		}
		v, err := kv.render(natural, r.env)
		if err != nil {
			return nil, fmt.Errorf("key condition on %s: %w", kv.Attribute, err)
		}
		m[kv.Placeholder] = attr.ToSDK(v)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// item renders a put's item: key, attributes, discriminator, and the
// synthetic keys its attributes make.
func (r *run) item(sp *StepPlan) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(sp.Item)+len(sp.SyntheticWrites))
	keys := sp.ModelTable.KeyAttributes()
	for _, a := range sp.Item {
		var v attr.Value
		var err error
		if contains(keys, a.Attribute) {
			v, err = r.x.resolveKey(a.Value, r.env)
		} else {
			v, err = a.Value.Resolve(r.env)
		}
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.Attribute, err)
		}
		m[a.Attribute] = attr.ToSDK(v)
	}
	if len(sp.SyntheticWrites) > 0 {
		it, err := attr.FromSDKItem(m)
		if err != nil {
			return nil, err
		}
		for _, k := range sp.SyntheticWrites {
			if s, err := k.Template.RenderItem(it); err == nil {
				m[k.Attribute] = &types.AttributeValueMemberS{Value: s}
			}
		}
	}
	return m, nil
}

// updateValues adds the synthetic keys an update sets to its values.
func (r *run) updateValues(sp *StepPlan) (map[string]types.AttributeValue, error) {
	vals, err := r.values(sp)
	if err != nil {
		return nil, err
	}
	for i := range sp.SyntheticWrites {
		k := &sp.SyntheticWrites[i]
		if k.Remove || k.Placeholder == "" {
			continue
		}
		v, err := k.value(r.env)
		if err != nil {
			return nil, fmt.Errorf("synthetic key %s: %w", k.Attribute, err)
		}
		if vals == nil {
			vals = map[string]types.AttributeValue{}
		}
		vals[k.Placeholder] = attr.ToSDK(v)
	}
	return vals, nil
}

// sent is a write ready to send: its input for a single request or its
// action for a transaction, and what is needed to compute its charge.
type sent struct {
	sp     *StepPlan
	key    map[string]types.AttributeValue
	item   map[string]types.AttributeValue
	values map[string]types.AttributeValue
}

func (r *run) prepare(sp *StepPlan) (*sent, error) {
	s := &sent{sp: sp}
	var err error
	switch sp.Kind {
	case catalog.Put:
		if s.item, err = r.item(sp); err != nil {
			return nil, err
		}
		s.values, err = r.values(sp)
	case catalog.Update:
		if s.key, err = r.key(sp); err != nil {
			return nil, err
		}
		s.values, err = r.updateValues(sp)
	default:
		if s.key, err = r.key(sp); err != nil {
			return nil, err
		}
		s.values, err = r.values(sp)
	}
	return s, err
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

func (r *run) write(ctx context.Context, sp *StepPlan, sr *StepResult) *Outcome {
	s, err := r.prepare(sp)
	if err != nil {
		return r.fail(sp, err)
	}
	var billed string
	optFn := captureBilled(&billed)
	sr.Requests++
	var cc *types.ConsumedCapacity
	switch sp.Kind {
	case catalog.Put:
		out, e := r.x.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(sp.Table), Item: s.item,
			ConditionExpression: opt(sp.Condition), ExpressionAttributeNames: names(sp), ExpressionAttributeValues: s.values,
			ReturnValues: types.ReturnValue(sp.ReturnValues), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(sp.ReturnValuesOnConditionCheckFailure),
			ReturnConsumedCapacity: indexes}, optFn)
		if out != nil {
			cc = out.ConsumedCapacity
		}
		err = e
	case catalog.Update:
		out, e := r.x.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(sp.Table), Key: s.key,
			UpdateExpression: opt(sp.Update), ConditionExpression: opt(sp.Condition), ExpressionAttributeNames: names(sp), ExpressionAttributeValues: s.values,
			ReturnValues: types.ReturnValue(sp.ReturnValues), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(sp.ReturnValuesOnConditionCheckFailure),
			ReturnConsumedCapacity: indexes}, optFn)
		if out != nil {
			cc = out.ConsumedCapacity
		}
		err = e
	case catalog.Delete:
		out, e := r.x.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(sp.Table), Key: s.key,
			ConditionExpression: opt(sp.Condition), ExpressionAttributeNames: names(sp), ExpressionAttributeValues: s.values,
			ReturnValues: types.ReturnValue(sp.ReturnValues), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(sp.ReturnValuesOnConditionCheckFailure),
			ReturnConsumedCapacity: indexes}, optFn)
		if out != nil {
			cc = out.ConsumedCapacity
		}
		err = e
	default:
		return r.fail(sp, fmt.Errorf("a %s step runs only inside a transaction", sp.Kind))
	}
	if err == nil {
		r.chargeOne(sr, cc, true)
		return nil
	}
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return r.sendError(sp, err)
	}
	sr.Failed = true
	if b := parseBilled(billed); len(b) > 0 {
		r.charge(sr, derefAll(b), true, false)
	} else {
		t, c := r.computedFailure(s)
		sr.Capacity.add(t, c, true)
	}
	return r.conditionFailed(sp, sp.ID)
}

func derefAll(ps []*types.ConsumedCapacity) []types.ConsumedCapacity {
	out := make([]types.ConsumedCapacity, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// conditionFailed maps a failed condition to the declared outcome.
func (r *run) conditionFailed(sp *StepPlan, id string) *Outcome {
	o := &Outcome{Kind: Kind(sp.ConditionKind), Step: id}
	if o.Kind == "" {
		o.Kind = ConditionFailed
	}
	if f := sp.OnConditionFailed; f != nil {
		o.Meaning, o.Declared = f.Meaning, f.Outcome
	} else {
		o.Declared = "fail"
	}
	return o
}

// beforeOf is the item a write finds: the caller's, or the step's
// declared before sample in the run's variant.
func (r *run) beforeOf(sp *StepPlan) attr.Item {
	if it, ok := r.before[sp.ID]; ok {
		return it
	}
	if sp.Entity == nil {
		return nil
	}
	b, _, _ := r.p.Variant.SamplesFor(sp.Step)
	it, _ := sp.Entity.Sample(b)
	return it
}

// images returns what a write found and would have left.
func (r *run) images(s *sent) (kind capacity.WriteKind, before, after attr.Item) {
	sp := s.sp
	before = r.beforeOf(sp)
	switch sp.Kind {
	case catalog.Put:
		kind = capacity.Put
		after, _ = attr.FromSDKItem(s.item)
	case catalog.Update:
		kind = capacity.Update
		after = before
		vals := map[string]attr.Value{}
		for k, v := range s.values {
			vals[k], _ = attr.FromSDK(v)
		}
		base := before
		if base == nil {
			base, _ = attr.FromSDKItem(s.key)
		}
		if u, err := expr.NewScope(sp.Names, vals).Update(sp.Update); err == nil {
			if n, err := u.Apply(base); err == nil {
				after = n
			}
		}
	case catalog.Delete:
		kind = capacity.Delete
	default:
		kind = capacity.ConditionCheck
	}
	return kind, before, after
}

// computedFailure is the charge of a single write whose condition failed,
// by the billing rules, for a target that reports none.
func (r *run) computedFailure(s *sent) (string, capacity.Consumed) {
	kind, before, after := r.images(s)
	t := r.x.tables[s.sp.ModelTable.Name]
	return s.sp.ModelTable.Name, r.x.opts.Rules.Write(t, capacity.WriteOp{Kind: kind, Before: before, After: after, Failed: true})
}

func (r *run) transaction(ctx context.Context, sp *StepPlan, sr *StepResult) *Outcome {
	actions := make([]*sent, len(sp.Actions))
	items := make([]types.TransactWriteItem, len(sp.Actions))
	for i, a := range sp.Actions {
		s, err := r.prepare(a)
		if err != nil {
			return r.fail(a, err)
		}
		actions[i] = s
		switch a.Kind {
		case catalog.Put:
			items[i].Put = &types.Put{TableName: aws.String(a.Table), Item: s.item, ConditionExpression: opt(a.Condition),
				ExpressionAttributeNames: names(a), ExpressionAttributeValues: s.values,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(a.ReturnValuesOnConditionCheckFailure)}
		case catalog.Update:
			items[i].Update = &types.Update{TableName: aws.String(a.Table), Key: s.key, UpdateExpression: opt(a.Update), ConditionExpression: opt(a.Condition),
				ExpressionAttributeNames: names(a), ExpressionAttributeValues: s.values,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(a.ReturnValuesOnConditionCheckFailure)}
		case catalog.Delete:
			items[i].Delete = &types.Delete{TableName: aws.String(a.Table), Key: s.key, ConditionExpression: opt(a.Condition),
				ExpressionAttributeNames: names(a), ExpressionAttributeValues: s.values,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(a.ReturnValuesOnConditionCheckFailure)}
		case catalog.ConditionCheck:
			items[i].ConditionCheck = &types.ConditionCheck{TableName: aws.String(a.Table), Key: s.key, ConditionExpression: opt(a.Condition),
				ExpressionAttributeNames: names(a), ExpressionAttributeValues: s.values,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(a.ReturnValuesOnConditionCheckFailure)}
		}
	}
	var billed string
	sr.Requests++
	out, err := r.x.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: indexes}, captureBilled(&billed))
	if err == nil {
		if len(out.ConsumedCapacity) == 0 {
			sr.Capacity.Missing = true
		}
		r.charge(sr, out.ConsumedCapacity, true, false)
		return nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return r.sendError(sp, err)
	}
	// The action at fault, by the reasons (one per action, in order).
	fault := -1
	for i, reason := range tce.CancellationReasons {
		code := aws.ToString(reason.Code)
		switch code {
		case "None", "":
			continue
		case "ConditionalCheckFailed":
			if fault < 0 {
				fault = i
			}
		case "ThrottlingError", "ProvisionedThroughputExceeded":
			return &Outcome{Kind: Throttled, Step: sp.ID + "/" + actionID(sp, i), Message: aws.ToString(reason.Message), Err: err}
		case "TransactionConflict":
			return &Outcome{Kind: Conflict, Step: sp.ID + "/" + actionID(sp, i), Message: aws.ToString(reason.Message), Err: err}
		default:
			return &Outcome{Kind: Error, Step: sp.ID + "/" + actionID(sp, i), Message: code + ": " + aws.ToString(reason.Message), Err: err}
		}
	}
	if fault < 0 || fault >= len(sp.Actions) {
		return r.sendError(sp, err)
	}
	sr.Failed = true
	if b := parseBilled(billed); len(b) > 0 {
		r.charge(sr, derefAll(b), true, false)
	} else {
		for _, s := range actions {
			kind, before, after := r.images(s)
			t := r.x.tables[s.sp.ModelTable.Name]
			sr.Capacity.add(s.sp.ModelTable.Name, r.x.opts.Rules.Cancelled(t, capacity.WriteOp{Kind: kind, Before: before, After: after}), true)
		}
	}
	a := sp.Actions[fault]
	return r.conditionFailed(a, a.ID)
}

func actionID(sp *StepPlan, i int) string {
	if i < len(sp.Actions) {
		return sp.Actions[i].Step.ID
	}
	return fmt.Sprint(i)
}

// fail is an outcome for a request the executor could not build.
func (r *run) fail(sp *StepPlan, err error) *Outcome {
	return &Outcome{Kind: Error, Step: sp.ID, Message: err.Error(), Err: err}
}

// sendError classifies an error the target returned.
func (r *run) sendError(sp *StepPlan, err error) *Outcome {
	o := &Outcome{Kind: Error, Step: sp.ID, Message: err.Error(), Err: err}
	var te *types.ThrottlingException
	var pe *types.ProvisionedThroughputExceededException
	var le *types.RequestLimitExceeded
	switch {
	case errors.As(err, &te):
		o.Kind, o.Throttling = Throttled, throttles(te.ThrottlingReasons)
	case errors.As(err, &pe):
		o.Kind, o.Throttling = Throttled, throttles(pe.ThrottlingReasons)
	case errors.As(err, &le):
		o.Kind, o.Throttling = Throttled, throttles(le.ThrottlingReasons)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		o.Message = ae.ErrorCode() + ": " + ae.ErrorMessage()
		if ae.ErrorCode() == "TransactionConflictException" {
			o.Kind = Conflict
		}
	}
	return o
}

func throttles(rs []types.ThrottlingReason) []Throttle {
	out := make([]Throttle, len(rs))
	for i, t := range rs {
		out[i] = Throttle{Reason: aws.ToString(t.Reason), Resource: aws.ToString(t.Resource)}
	}
	return out
}

// captureBilled reads engine.BilledHeader from the raw response into
// dst: what the embedded engine reports a refused write billed.
func captureBilled(dst *string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Deserialize.Add(middleware.DeserializeMiddlewareFunc("cardapioBilled",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleDeserialize(ctx, in)
					if resp, ok := out.RawResponse.(*smithyhttp.Response); ok && resp != nil {
						*dst = resp.Header.Get(engine.BilledHeader)
					}
					return out, md, err
				}), middleware.After)
		})
	}
}
