package budget

// A target can answer every request as DynamoDB does and still misreport
// what the request consumed: moto, for one, puts a constant per request
// kind in ConsumedCapacity (1 for any put or query page, 0.5 for any get)
// whatever the sizes read or written. Its figures, taken as measured,
// would fail a budget that holds on AWS and blame the model for the
// emulator's arithmetic.
//
// So the gate asks each endpoint once per run, with the capacity probe,
// for requests whose charge the billing rules fix exactly (misbilling).
// On AWS and the embedded engine, and on an endpoint that answers those
// as the rules do, the measured figures decide the verdict as before. On
// a target that misbills, each variant is run again on the embedded
// engine, which applies the same rules (package capacity) to the same
// requests on the same seeded state (seeds and parameters are the
// variant's declared samples, so both runs send the same requests):
// where a step's figures differ, the rules' figure replaces the target's
// as the verdict's input, marked computed, and the difference is
// reported as a known difference of the target ("the target reports 1
// RRU; AWS's rules give 0.5 for this page"), never as the model's
// excess. The target still decides the outcome of every request: only
// its arithmetic is set aside.

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/internal/digits"
)

// misbillNote introduces the discrepancies the probe found.
const misbillNote = "the target does not bill like AWS"

// misbilling sends table (keyed on the string attribute pk) requests whose charge the rules fix, far from every
// rounding boundary, and returns each answer that contradicts the rules,
// in words; none on a target that bills like AWS. Only the table's figure
// is compared: index figures are the NoIndexCapacity quirk's.
func misbilling(ctx context.Context, c *dynamodb.Client, table string, rules capacity.Rules) ([]string, error) {
	pk := attr.Str("billing-probe")
	item := attr.Sorted([]attr.Field{{Name: "pk", Value: pk}, {Name: "pad", Value: attr.Str(strings.Repeat("x", 1500))}})
	size := rules.ItemSize(item)
	key := map[string]types.AttributeValue{"pk": attr.ToSDK(pk)}
	var found []string
	check := func(what string, cc *types.ConsumedCapacity, write bool, want float64) {
		got, ok := tableUnits(cc)
		unit := RRU
		if write {
			unit = WRU
		}
		switch {
		case !ok:
			// No figure at all is the Missing case, reported per step.
		case math.Abs(got-want) > 1e-9:
			found = append(found, fmt.Sprintf("%s: the target reports %s %s; AWS's rules give %s", what, num(got), unit, num(want)))
		}
	}
	put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: attr.ToSDKItem(item), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		return nil, err
	}
	check(fmt.Sprintf("a put of a new %s B item", num(float64(size))), put.ConsumedCapacity, true, capacity.WriteUnits(size))
	get, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		return nil, err
	}
	check("an eventually consistent get of it", get.ConsumedCapacity, false, capacity.ReadUnits(size, capacity.Eventual))
	// A scan, not a query: the page reads every item of the table (the
	// caller's and this one), whose sizes the rules know from the table's
	// reads, and a query of its own would be one more request of a kind
	// the run is about to send.
	scan, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		return nil, err
	}
	read := 0
	for _, it := range scan.Items {
		x, err := attr.FromSDKItem(it)
		if err != nil {
			return nil, err
		}
		read += rules.ItemSize(x)
	}
	items := digits.Count(len(scan.Items), "item")
	if len(scan.Items) == 1 {
		items = "1 item"
	}
	check(fmt.Sprintf("an eventually consistent scan page of %s (%s B)", items, num(float64(read))), scan.ConsumedCapacity, false, capacity.ReadUnits(read, capacity.Eventual))
	return found, nil
}

// tableUnits is the table's figure in a response, or its total when the
// response has no Table part.
func tableUnits(cc *types.ConsumedCapacity) (float64, bool) {
	switch {
	case cc == nil:
		return 0, false
	case cc.Table != nil && cc.Table.CapacityUnits != nil:
		return *cc.Table.CapacityUnits, true
	case cc.CapacityUnits != nil:
		return *cc.CapacityUnits, true
	}
	return 0, false
}

// rebill runs in again on the embedded engine and replaces each step's
// figures in out that differ from the engine's, the billing rules' for the
// same request, with the engine's, marked computed. It returns the
// differences, in words, for the result's known differences.
func (g *gate) rebill(ctx context.Context, in executor.Input, out *executor.Result) []string {
	want, err := g.ruled(ctx, in)
	if err != nil {
		return []string{"the billing rules' figures could not be computed (" + err.Error() + "): the target's figures stand"}
	}
	if want.Outcome.Kind != out.Outcome.Kind || len(want.Steps) != len(out.Steps) {
		return []string{fmt.Sprintf("the billing rules' figures could not be paired with the target's: the embedded engine's run ended %s, the target's %s: the target's figures stand",
			ended(want.Outcome), ended(out.Outcome))}
	}
	var known []string
	for i := range out.Steps {
		got, rule := &out.Steps[i], want.Steps[i]
		if got.ID != rule.ID || sameCapacity(got.Capacity, rule.Capacity) {
			continue
		}
		known = append(known, fmt.Sprintf("step %s: the target reports %s; AWS's rules give %s for %s",
			got.ID, unitsText(got.Capacity, rule.Capacity), unitsText(rule.Capacity, got.Capacity), what(got)))
		c := rule.Capacity
		c.Computed, c.ComputedUnits = true, c.WRU+c.RRU
		got.Capacity = c
	}
	out.Capacity = executor.Capacity{}
	for _, s := range out.Steps {
		out.Capacity.Add(s.Capacity)
	}
	return known
}

// ruled runs a variant on a new embedded engine, on tables keyed as the
// run's, and returns what the billing rules charge for its requests.
func (g *gate) ruled(ctx context.Context, in executor.Input) (*executor.Result, error) {
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	ts, err := tg.CreateTables(ctx, g.m, endpoint.TableOptions{Prefix: g.tables.Prefix, Keys: g.tables.Keys, OnDemand: true, DeferStreams: true})
	if err != nil {
		return nil, err
	}
	x := executor.New(g.m, tg.Client, executor.Options{Tables: ts.Names(), Keys: ts.Keys, Rules: g.rules, Loader: tg})
	seeded, err := x.Seed(ctx, executor.Input{Operation: in.Operation, Variant: in.Variant})
	if err != nil {
		return nil, err
	}
	if err := ts.EnableStreams(ctx); err != nil {
		return nil, err
	}
	return x.Run(ctx, executor.Input{Operation: in.Operation, Variant: in.Variant, Params: in.Params, Before: seeded.Before})
}

func ended(o executor.Outcome) string {
	if o.Step == "" {
		return string(o.Kind)
	}
	return fmt.Sprintf("%s at step %s", o.Kind, o.Step)
}

// sameCapacity compares two steps' figures: totals, tables and indexes.
func sameCapacity(a, b executor.Capacity) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if !near(a.WRU, b.WRU) || !near(a.RRU, b.RRU) || len(a.Tables) != len(b.Tables) || len(a.Indexes) != len(b.Indexes) {
		return false
	}
	for _, m := range [][2]map[string]capacity.Capacity{{a.Tables, b.Tables}, {a.Indexes, b.Indexes}} {
		for k, x := range m[0] {
			y, ok := m[1][k]
			if !ok || !near(x.Read, y.Read) || !near(x.Write, y.Write) {
				return false
			}
		}
	}
	return true
}

// unitsText says "1 RRU", "2 WRU" or "2 WRU and 1 RRU": the dimensions
// either figure of a pair has, so that "0 WRU" answers "8 WRU".
func unitsText(c, other executor.Capacity) string {
	var parts []string
	if c.WRU != 0 || other.WRU != 0 {
		parts = append(parts, num(c.WRU)+" WRU")
	}
	if c.RRU != 0 || other.RRU != 0 || len(parts) == 0 {
		parts = append(parts, num(c.RRU)+" RRU")
	}
	return strings.Join(parts, " and ")
}

// what names a step's requests: "this page", "these 3 pages", "this
// write".
func what(s *executor.StepResult) string {
	switch s.Kind {
	case catalog.Query, catalog.Scan:
		if s.Requests > 1 {
			return "these " + digits.Count(s.Requests, "page")
		}
		return "this page"
	case catalog.Get:
		return "this read"
	case catalog.Transaction:
		return "this transaction"
	}
	if s.Requests > 1 {
		return "these " + digits.Count(s.Requests, "write")
	}
	return "this write"
}
