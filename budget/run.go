package budget

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/internal/input"
)

// Options say how the gate runs.
type Options struct {
	// Target is the engine: embedded (the zero value), an endpoint URL,
	// or AWS. Its Retry is ignored: Retries sets the policy.
	Target endpoint.Options
	// TablePrefix names the tables the run creates; "" gives a prefix
	// unique to the run.
	TablePrefix string
	// Keys is how multi-attribute index keys are created: native,
	// synthetic, or auto (probe the target; the zero value).
	Keys catalog.KeyMode
	// Retries is how many times the SDK sends a request again after a
	// throttle or a retryable error (0, the default: never, so that the
	// report shows what the target answered). It replaces Target.Retry.
	Retries int
	// Keep leaves the tables in place at the end (for inspection).
	Keep bool
	// Only restricts the run to these operations ("Op") and variants
	// ("Op/variant"); empty runs everything.
	Only []string
	// FailOnDrift makes a disagreement with the static estimate fail the
	// variant.
	FailOnDrift bool
	// Rules are the billing rules of static and computed figures; the
	// zero value is capacity.Default().
	Rules *capacity.Rules
	// Progress, when set, is called after each variant.
	Progress func(r *Result)
	// Strict makes review warnings the model does not accept fail the
	// gate, as check --strict does.
	Strict bool
}

func inputf(format string, args ...any) error {
	return input.Errorf(format, args...)
}

// selection is the set of variants to run.
type selection map[string]bool

// parseOnly checks every --only entry against the model.
func parseOnly(m *catalog.Model, only []string) (selection, error) {
	if len(only) == 0 {
		return nil, nil
	}
	sel := selection{}
	var problems []string
	for _, raw := range only {
		for _, o := range strings.Split(raw, ",") {
			o = strings.TrimSpace(o)
			if o == "" {
				continue
			}
			name, variant, hasVariant := strings.Cut(o, "/")
			op := m.Operation(name)
			if op == nil {
				var names []string
				for _, x := range m.Operations {
					names = append(names, x.Name)
				}
				problems = append(problems, fmt.Sprintf("--only %s: the model has no operation %q%s", o, name, suggest(name, names)))
				continue
			}
			if !hasVariant {
				sel[name] = true
				continue
			}
			found := false
			var names []string
			for _, b := range op.Budgets {
				names = append(names, b.Name)
				found = found || b.Name == variant
			}
			if !found {
				what := "declares no budget variants"
				if len(names) > 0 {
					what = "has variants " + strings.Join(names, ", ")
				}
				problems = append(problems, fmt.Sprintf("--only %s: %s %s%s", o, name, what, suggest(variant, names)))
				continue
			}
			sel[name+"/"+variant] = true
		}
	}
	if len(problems) > 0 {
		return nil, input.Wrap(errors.New(strings.Join(problems, "\n")))
	}
	return sel, nil
}

func (s selection) has(op, variant string) bool {
	return s == nil || s[op] || s[op+"/"+variant]
}

// suggest returns ` (did you mean "x"?)` for a near name, with the
// catalog's own hint.
func suggest(s string, names []string) string {
	if h := catalog.Hint(s, names); h != "" {
		return " (" + h + ")"
	}
	return ""
}

// Run measures every selected operation and variant of m on the target
// and judges them. The tables it creates are deleted before it returns
// (unless Keep), when ctx is cancelled too; the error is for a run that
// could not happen (bad options, an unreachable target), never for a
// budget exceeded, which is in the report.
func Run(ctx context.Context, m *catalog.Model, path string, o Options) (rep *Report, err error) {
	start := time.Now()
	rules := capacity.Default()
	if o.Rules != nil {
		rules = *o.Rules
	}
	sel, err := parseOnly(m, o.Only)
	if err != nil {
		return nil, err
	}
	// What check decides, before any request: the run fails on it as
	// check does, whatever it measures.
	gate, err := Judge(m, rules, o.Strict)
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("%s: %w", path, err))
	}
	vs := gate.Variants
	if o.Target.AWS && o.Target.EndpointURL != "" {
		return nil, inputf("choose one target: --aws or --endpoint-url, not both")
	}
	if o.Retries < 0 {
		return nil, inputf("--retries must be 0 or more, not %d", o.Retries)
	}
	// Every request is sent once unless the run asks for retries: a
	// throttled or failed request is then reported as it happened, not
	// hidden behind a second attempt whose answer the figures would show
	// (a retried conditional write can find its own first attempt's
	// item). With retries, the SDK's standard backoff and token bucket.
	o.Target.Retry = endpoint.NoRetry
	if o.Retries > 0 {
		o.Target.Retry = endpoint.Retry{MaxAttempts: o.Retries + 1, MaxBackoff: endpoint.Standard.MaxBackoff, Quota: endpoint.Standard.Quota}
	}
	if o.Target.HTTPClient == nil && (o.Target.AWS || o.Target.EndpointURL != "") {
		// A kept-alive connection for every request in flight (workers,
		// each with its seed's batches and its fan-out's shards): the
		// SDK's default keeps 10 a host, and the run would open (and
		// leave in TIME_WAIT) a connection for each request beyond them.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 128, 128
		o.Target.HTTPClient = &http.Client{Transport: tr}
	}
	tg, err := endpoint.Open(ctx, o.Target)
	if err != nil {
		return nil, input.Wrap(err)
	}
	defer tg.Close()
	prefix := o.TablePrefix
	if prefix == "" {
		prefix = endpoint.UniquePrefix()
	}
	quirks, notes, err := probe(ctx, tg, prefix, rules)
	if err != nil {
		return nil, err
	}
	tables, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: prefix, Keys: o.Keys, OnDemand: true, DeferStreams: quirks.deferStreams(tg)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tg.Name, err)
	}
	defer func() {
		if o.Keep {
			return
		}
		// Deleted even after a failure or an interruption: a context
		// of its own, bounded.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if derr := tables.Delete(dctx); derr != nil && err == nil {
			err = fmt.Errorf("delete the run's tables: %w", derr)
		}
	}()
	rep = &Report{Model: path, Name: m.Name, Target: tg.Name, Kind: string(tg.Kind), Keys: string(tables.Keys),
		Retry: tg.Retry.String(), Retries: max(0, tg.Retry.MaxAttempts-1), TablePrefix: tables.Prefix, Notes: append([]string{}, tables.Notes...)}
	for _, f := range m.Warnings {
		if f.Accepted == "" {
			rep.Check.Warnings++
		} else {
			rep.Check.Accepted++
		}
	}
	rep.gate(gate, sel)
	if o.Keep {
		rep.Notes = append(rep.Notes, "tables kept (--keep): "+strings.Join(sortedValues(tables.Names()), ", "))
	}
	rep.Notes = append(rep.Notes, notes...)
	if tables.Keys == catalog.KeysSynthetic {
		rep.Notes = append(rep.Notes, "indexes with several key attributes are keyed on the model's synthetic fallback: their items carry the concatenated key attributes, which the static estimate (of the native design) does not count")
	}
	var todo []*estimate.Variant
	for i := range vs {
		if sel.has(vs[i].Operation, vs[i].Name) {
			todo = append(todo, &vs[i])
		}
	}
	results, err := runAll(ctx, m, rules, tg, tables, quirks, o, todo)
	if err != nil {
		return nil, err
	}
	rep.Results = results
	if rep.Results == nil {
		rep.Results = []Result{}
	}
	rep.Duration = time.Since(start)
	rep.Finish(false)
	return rep, nil
}

func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// deferStreams says whether the run's tables are created without their
// streams, turned on once a variant's state is seeded: where tables are
// made again for each variant's seed (the embedded engine, a server that
// takes streams; not AWS, whose tables are emptied and kept).
func (q Quirks) deferStreams(tg *endpoint.Target) bool {
	return tg.Kind == endpoint.Embedded || tg.Kind == endpoint.Endpoint && !q.NoStreams
}

// workers is how many variants run at once: on the embedded engine and
// on a server at a loopback address (cardapio serve, dynalite or DynamoDB
// Local on this machine) one per processor, each worker on tables of its
// own (so that variants stay isolated), so that one variant's seed is
// built while the server stores another's; elsewhere one, so that a run
// creates one set of tables on a server it does not own.
func workers(tg *endpoint.Target, n int) int {
	if tg.Kind != endpoint.Embedded && !(tg.Kind == endpoint.Endpoint && loopback(tg.Name)) {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n, 8))
}

// loopback reports whether an endpoint URL names this machine.
func loopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// runAll runs the variants, in parallel where workers allows, and
// returns their results in the order given. The dearest variants start
// first, so that workers finish together.
func runAll(ctx context.Context, m *catalog.Model, rules capacity.Rules, tg *endpoint.Target, first *endpoint.Tables, quirks Quirks, o Options, todo []*estimate.Variant) ([]Result, error) {
	results := make([]Result, len(todo))
	order := make([]int, len(todo))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := todo[order[a]], todo[order[b]]
		return x.WRU+x.RRU > y.WRU+y.RRU
	})
	jobs := make(chan int)
	n := workers(tg, len(todo))
	if o.Keep {
		n = 1 // what is kept is every table the run made
	}
	errs := make([]error, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tables := first
			if w > 0 {
				ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: fmt.Sprintf("%sw%d-", first.Prefix, w), Keys: first.Keys, OnDemand: true, DeferStreams: quirks.deferStreams(tg)})
				if err != nil {
					errs[w] = fmt.Errorf("%s: %w", tg.Name, err)
					for range jobs { // let the others take the work
					}
					return
				}
				defer func() {
					dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
					defer cancel()
					if err := ts.Delete(dctx); err != nil && errs[w] == nil {
						errs[w] = fmt.Errorf("delete the run's tables: %w", err)
					}
				}()
				tables = ts
			}
			g := &gate{m: m, rules: rules, tg: tg, tables: tables, quirks: quirks, failOnDrift: o.FailOnDrift}
			g.newExecutor()
			fresh := true
			for i := range jobs {
				if errs[w] != nil || ctx.Err() != nil {
					continue
				}
				if !fresh {
					if err := g.reset(ctx); err != nil {
						errs[w] = err
						continue
					}
				}
				fresh = false
				results[i] = g.variant(ctx, todo[i])
				if o.Progress != nil && ctx.Err() == nil {
					mu.Lock()
					o.Progress(&results[i])
					mu.Unlock()
				}
			}
		}()
	}
	for _, i := range order {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// gate is one worker's state.
type gate struct {
	m           *catalog.Model
	rules       capacity.Rules
	tg          *endpoint.Target
	tables      *endpoint.Tables
	x           *executor.Executor
	quirks      Quirks
	failOnDrift bool
	// seeded is how many items the last variant seeded, to choose how
	// to empty the tables.
	seeded int
}

func (g *gate) newExecutor() {
	g.x = executor.New(g.m, g.tg.Client, executor.Options{Tables: g.tables.Names(), Keys: g.tables.Keys, Rules: g.rules, Loader: g.tg})
}

// variant seeds, runs and judges one variant.
func (g *gate) variant(ctx context.Context, v *estimate.Variant) Result {
	start := time.Now()
	op := g.m.Operation(v.Operation)
	b := &catalog.Budget{}
	for _, x := range op.Budgets {
		if x.Name == v.Name {
			b = x
		}
	}
	res := Result{Operation: v.Operation, Variant: v.Name}
	j := &judgement{m: g.m, op: op, b: b, rules: g.rules, static: v, quirks: g.quirks, failOnDrift: g.failOnDrift}
	in := executor.Input{Operation: v.Operation, Variant: v.Name}
	seeded, err := g.x.Seed(ctx, in)
	if err != nil {
		return g.errored(j, res, start, "the variant's starting state could not be written: "+err.Error())
	}
	g.seeded = seeded.Items
	if err := g.tables.EnableStreams(ctx); err != nil {
		return g.errored(j, res, start, err.Error())
	}
	in.Before = seeded.Before
	out, err := g.x.Run(ctx, in)
	if err != nil {
		return g.errored(j, res, start, err.Error())
	}
	if g.quirks.Misbills {
		res.Known = append(res.Known, g.rebill(ctx, in, out)...)
	}
	res.Outcome = string(out.Outcome.Kind)
	if out.Outcome.Step != "" {
		res.Outcome += " at step " + out.Outcome.Step
	}
	res.Measured = measured(out.Capacity)
	for _, sr := range out.Steps {
		st := Step{ID: sr.ID, Kind: string(sr.Kind), Requests: sr.Requests, Measured: Units{sr.Capacity.WRU, sr.Capacity.RRU},
			Computed: sr.Capacity.Computed}
		mu := measured(sr.Capacity)
		st.Tables, st.Indexes = mu.Tables, mu.Indexes
		switch {
		case sr.Failed && out.Outcome.Step != "":
			st.Outcome = string(out.Outcome.Kind)
		case sr.Failed:
			st.Outcome = "failed"
		default:
			st.Outcome = "ok"
		}
		if sr.Capacity.Missing {
			res.Known = append(res.Known, fmt.Sprintf("step %s: the target reported no consumed capacity", sr.ID))
		}
		res.Steps = append(res.Steps, st)
	}
	if why := g.unexpected(op, b, out); why != "" {
		return g.errored(j, res, start, why)
	}
	j.judge(&res)
	res.Duration = time.Since(start)
	res.Seconds = round3(res.Duration.Seconds())
	return res
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// errored records a variant that could not be measured.
func (g *gate) errored(j *judgement, res Result, start time.Time, why string) Result {
	res.Verdict = Error
	res.Explanation = fmt.Sprintf("%s could not be measured on the %s: %s", res.Name(), g.tg.Name, why)
	j.judge(&res)
	res.Duration = time.Since(start)
	res.Seconds = round3(res.Duration.Seconds())
	return res
}

// unexpected says why a run did not take the variant's path: an error or
// throttling on the target, a condition that should have failed and held,
// or a failure the variant does not declare.
func (g *gate) unexpected(op *catalog.Operation, b *catalog.Budget, out *executor.Result) string {
	o := out.Outcome
	switch o.Kind {
	case executor.Applied:
		if b.FailedStep != "" {
			return fmt.Sprintf("the variant expects the condition of step %s to fail, and every step applied", b.FailedStep)
		}
		return ""
	case executor.Error, executor.Throttled, executor.Conflict:
		msg := o.Message
		if msg == "" && o.Err != nil {
			msg = o.Err.Error()
		}
		return fmt.Sprintf("step %s: %s: %s", o.Step, o.Kind, msg)
	}
	step := o.Step
	if i := strings.LastIndex(step, "/"); i >= 0 {
		step = step[i+1:]
	}
	if b.FailedStep != "" {
		if step == b.FailedStep {
			return ""
		}
		return fmt.Sprintf("the variant expects the condition of step %s to fail; the run ended at step %s (%s), %s", b.FailedStep, o.Step, o.Kind, g.stepAt(op, b, o.Step))
	}
	// A read of an item the variant declares absent ends the run as
	// the model says: that is the variant's path.
	if s := op.Step(step); s != nil && o.Kind == executor.NotFound {
		_, _, sample := b.SamplesFor(s)
		if sample == catalog.Absent {
			return ""
		}
	}
	return fmt.Sprintf("the run ended at step %s (%s%s), %s, which the variant does not declare as failing", o.Step, o.Kind, meaning(o), g.stepAt(op, b, o.Step))
}

// stepAt says where the step (or the transaction's action, the one the
// cancellation reasons name) a run ended at is written.
func (g *gate) stepAt(op *catalog.Operation, b *catalog.Budget, id string) string {
	x := &explainer{m: g.m, op: op, b: b, rules: g.rules}
	if r := x.ref(id); r != nil {
		return "written at " + positioned(g.m, r.path...).short()
	}
	return "a step the model does not declare"
}

func meaning(o executor.Outcome) string {
	if o.Meaning == "" {
		return ""
	}
	return ": " + o.Meaning
}

// measured converts the executor's capacity.
func measured(c executor.Capacity) Measured {
	m := Measured{WRU: c.WRU, RRU: c.RRU, Tables: map[string]Units{}, Indexes: map[string]Units{}, Computed: c.Computed}
	for k, v := range c.Tables {
		m.Tables[k] = Units{WRU: v.Write, RRU: v.Read}
	}
	for k, v := range c.Indexes {
		m.Indexes[k] = Units{WRU: v.Write, RRU: v.Read}
	}
	return m
}

// emptyBelow is how many seeded items the gate deletes one by one; above
// it, tables are dropped and created again where the target does that at
// once.
const emptyBelow = 100

// reset gives the next variant empty tables: the embedded engine and
// local servers drop and recreate them (immediate there), AWS has them
// emptied item by item (a table takes seconds to create). Either way only
// the run's own tables are touched.
func (g *gate) reset(ctx context.Context) error {
	if g.tg.Kind == endpoint.AWS || g.seeded < emptyBelow && g.tg.Kind != endpoint.Embedded {
		return g.empty(ctx)
	}
	if err := g.tables.Delete(ctx); err != nil {
		return err
	}
	for _, name := range g.tables.Names() {
		if err := g.gone(ctx, name); err != nil {
			return err
		}
	}
	ts, err := g.tg.CreateTables(ctx, g.m, endpoint.TableOptions{Prefix: g.tables.Prefix, Keys: g.tables.Keys, OnDemand: true, DeferStreams: g.quirks.deferStreams(g.tg)})
	if err != nil {
		return fmt.Errorf("%s: recreate the run's tables: %w", g.tg.Name, err)
	}
	*g.tables = *ts
	return nil
}

// gone waits until a deleted table no longer exists (servers that delete
// tables asynchronously refuse to create one of the same name before).
func (g *gate) gone(ctx context.Context, name string) error {
	delay := 10 * time.Millisecond
	for start := time.Now(); ; {
		_, err := g.tg.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		switch {
		case errors.As(err, &nf):
			return nil
		case err != nil:
			return fmt.Errorf("wait for table %s to be deleted: %w", name, err)
		case time.Since(start) > time.Minute:
			return fmt.Errorf("table %s still exists a minute after its deletion", name)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// empty deletes every item of the run's tables: a consistent scan of
// their keys, deleted 25 at a time.
func (g *gate) empty(ctx context.Context) error {
	for _, t := range g.m.Tables {
		name := g.tables.Name(t.Name)
		keys := t.KeyAttributes()
		names := map[string]string{}
		var proj []string
		for i, k := range keys {
			p := fmt.Sprintf("#k%d", i)
			names[p] = k
			proj = append(proj, p)
		}
		var start map[string]types.AttributeValue
		for {
			out, err := g.tg.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true),
				ProjectionExpression: aws.String(strings.Join(proj, ", ")), ExpressionAttributeNames: names, ExclusiveStartKey: start})
			if err != nil {
				return fmt.Errorf("empty table %s: %w", name, err)
			}
			for i := 0; i < len(out.Items); i += 25 {
				var reqs []types.WriteRequest
				for _, it := range out.Items[i:min(i+25, len(out.Items))] {
					reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it}})
				}
				if err := g.batch(ctx, name, reqs); err != nil {
					return fmt.Errorf("empty table %s: %w", name, err)
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	return nil
}

// batch sends deletes until none is left unprocessed.
func (g *gate) batch(ctx context.Context, table string, reqs []types.WriteRequest) error {
	delay := 20 * time.Millisecond
	for tries := 0; len(reqs) > 0; tries++ {
		out, err := g.tg.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			return err
		}
		reqs = out.UnprocessedItems[table]
		if len(reqs) == 0 {
			return nil
		}
		if tries == 20 {
			return fmt.Errorf("%d deletes still unprocessed after %d attempts", len(reqs), tries+1)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
	return nil
}

// probe finds what the target is known to report differently: an
// endpoint that leaves index capacity out of its responses, or does not
// turn a stream on with UpdateTable. The embedded engine and AWS are
// known; an endpoint is asked with a throwaway table (named after the
// run's prefix), one write into its index and a stream turned on.
func probe(ctx context.Context, tg *endpoint.Target, prefix string, rules capacity.Rules) (Quirks, []string, error) {
	if tg.Kind != endpoint.Endpoint {
		return Quirks{}, nil, nil
	}
	name := prefix + "capacity-probe"
	s := types.ScalarAttributeTypeS
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: s}, {AttributeName: aws.String("g"), AttributeType: s}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("probe-index"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	}
	_, err := tg.Client.CreateTable(ctx, in)
	var q Quirks
	if err != nil {
		return Quirks{}, nil, fmt.Errorf("%s: probe its capacity reports: %w", tg.Name, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_, _ = tg.Client.DeleteTable(dctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}()
	var out *dynamodb.PutItemOutput
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}, "g": &types.AttributeValueMemberS{Value: "g"}}
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		out, err = tg.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		var nf *types.ResourceNotFoundException
		var inUse *types.ResourceInUseException
		if err == nil || !(errors.As(err, &nf) || errors.As(err, &inUse)) || delay > 5*time.Second {
			break
		}
		time.Sleep(delay) // a table still being created
	}
	if err != nil {
		return Quirks{}, nil, fmt.Errorf("%s: probe its capacity reports: %w", tg.Name, err)
	}
	// Deferred streams are turned on by UpdateTable, which some servers
	// refuse though they take a stream at creation (dynalite).
	_, err = tg.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	q.NoStreams = err != nil
	var notes []string
	wrong, err := misbilling(ctx, tg.Client, name, rules)
	if err != nil {
		return Quirks{}, nil, fmt.Errorf("%s: probe its capacity reports: %w", tg.Name, err)
	}
	if len(wrong) > 0 {
		q.Misbills = true
		notes = append(notes, misbillNote+" ("+strings.Join(wrong, "; ")+"): each variant is run again on the embedded engine, and where a step's figure contradicts the billing rules for the same request the rules' figure decides the verdict, the target's reported beside it")
	}
	if out.ConsumedCapacity == nil || len(out.ConsumedCapacity.GlobalSecondaryIndexes) == 0 {
		q.NoIndexCapacity = true
		notes = append(notes, "the target reports no index capacity (asked for INDEXES, a write into an index came back without it): index figures are computed by the billing rules and marked, not measured")
	}
	return q, notes, nil
}
