package generator_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
	"github.com/cardapio/cardapio/generator"
)

// recorder wraps a client and records every request as a catalog.Call,
// the executor's serialised form: first pages of queries only, no
// seeding batches. It is both an executor.API and the generated
// packages' DynamoDB.
type recorder struct {
	*dynamodb.Client
	mu    sync.Mutex
	calls []*catalog.Call
}

func (r *recorder) add(c *catalog.Call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func recItem(m map[string]types.AttributeValue) attr.Item {
	it, err := attr.FromSDKItem(m)
	if err != nil {
		panic(err)
	}
	return it
}

func (r *recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.add(&catalog.Call{Action: "GetItem", Table: aws.ToString(in.TableName), Key: recItem(in.Key), Projection: aws.ToString(in.ProjectionExpression),
		Names: in.ExpressionAttributeNames, ConsistentRead: aws.ToBool(in.ConsistentRead)})
	return r.Client.GetItem(ctx, in, o...)
}

func (r *recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.add(&catalog.Call{Action: "PutItem", Table: aws.ToString(in.TableName), Item: recItem(in.Item), Condition: aws.ToString(in.ConditionExpression),
		Names: in.ExpressionAttributeNames, Values: recItem(in.ExpressionAttributeValues), ReturnValues: string(in.ReturnValues),
		ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.Client.PutItem(ctx, in, o...)
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.add(&catalog.Call{Action: "UpdateItem", Table: aws.ToString(in.TableName), Key: recItem(in.Key), Update: aws.ToString(in.UpdateExpression),
		Condition: aws.ToString(in.ConditionExpression), Names: in.ExpressionAttributeNames, Values: recItem(in.ExpressionAttributeValues),
		ReturnValues: string(in.ReturnValues), ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.Client.UpdateItem(ctx, in, o...)
}

func (r *recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	r.add(&catalog.Call{Action: "DeleteItem", Table: aws.ToString(in.TableName), Key: recItem(in.Key), Condition: aws.ToString(in.ConditionExpression),
		Names: in.ExpressionAttributeNames, Values: recItem(in.ExpressionAttributeValues), ReturnValues: string(in.ReturnValues),
		ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.Client.DeleteItem(ctx, in, o...)
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if in.ExclusiveStartKey == nil {
		r.add(&catalog.Call{Action: "Query", Table: aws.ToString(in.TableName), Index: aws.ToString(in.IndexName), KeyCondition: aws.ToString(in.KeyConditionExpression),
			Filter: aws.ToString(in.FilterExpression), Projection: aws.ToString(in.ProjectionExpression), Names: in.ExpressionAttributeNames,
			Values: recItem(in.ExpressionAttributeValues), ConsistentRead: aws.ToBool(in.ConsistentRead), Descending: in.ScanIndexForward != nil && !*in.ScanIndexForward,
			Limit: int(aws.ToInt32(in.Limit))})
	}
	return r.Client.Query(ctx, in, o...)
}

func (r *recorder) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if in.ExclusiveStartKey == nil {
		r.add(&catalog.Call{Action: "Scan", Table: aws.ToString(in.TableName), Index: aws.ToString(in.IndexName), Filter: aws.ToString(in.FilterExpression),
			Projection: aws.ToString(in.ProjectionExpression), Names: in.ExpressionAttributeNames, Values: recItem(in.ExpressionAttributeValues),
			ConsistentRead: aws.ToBool(in.ConsistentRead), Limit: int(aws.ToInt32(in.Limit))})
	}
	return r.Client.Scan(ctx, in, o...)
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c := &catalog.Call{Action: "TransactWriteItems"}
	for _, a := range in.TransactItems {
		switch {
		case a.Put != nil:
			p := a.Put
			c.Actions = append(c.Actions, &catalog.Call{Action: "Put", Table: aws.ToString(p.TableName), Item: recItem(p.Item), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: recItem(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.Update != nil:
			p := a.Update
			c.Actions = append(c.Actions, &catalog.Call{Action: "Update", Table: aws.ToString(p.TableName), Key: recItem(p.Key), Update: aws.ToString(p.UpdateExpression),
				Condition: aws.ToString(p.ConditionExpression), Names: p.ExpressionAttributeNames, Values: recItem(p.ExpressionAttributeValues),
				ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.Delete != nil:
			p := a.Delete
			c.Actions = append(c.Actions, &catalog.Call{Action: "Delete", Table: aws.ToString(p.TableName), Key: recItem(p.Key), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: recItem(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.ConditionCheck != nil:
			p := a.ConditionCheck
			c.Actions = append(c.Actions, &catalog.Call{Action: "ConditionCheck", Table: aws.ToString(p.TableName), Key: recItem(p.Key), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: recItem(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		}
	}
	r.add(c)
	return r.Client.TransactWriteItems(ctx, in, o...)
}

// canonCalls serialises calls. The queries of one fan-out, sent one
// after the other by the executor and concurrently by the generated
// code, are sorted: the same requests, in no meaningful order.
func canonCalls(t *testing.T, calls []*catalog.Call) string {
	t.Helper()
	var out []string
	var group []string
	flush := func() {
		slices.Sort(group)
		out = append(out, group...)
		group = nil
	}
	for _, c := range calls {
		b, err := json.MarshalIndent(c, "", " ")
		require.NoError(t, err)
		if c.Action == "Query" {
			group = append(group, string(b))
			continue
		}
		flush()
		out = append(out, string(b))
	}
	flush()
	return strings.Join(out, ",\n")
}

// seededEngine returns an embedded engine with the model's tables in key
// mode keys, seeded by the executor with a variant's before state.
func seededEngine(t *testing.T, m *catalog.Model, keys catalog.KeyMode, op, variant string) (*endpoint.Target, *endpoint.Tables) {
	t.Helper()
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "", Keys: keys})
	require.NoError(t, err)
	if !writes(m.Operation(op), variant) && !binds(m.Operation(op), variant) {
		// The first page of each query is the same request whatever the
		// table holds; fan-outs would seed tens of thousands of items.
		return tg, ts
	}
	x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Keys: keys})
	_, err = x.Seed(ctx, executor.Input{Operation: op, Variant: variant})
	require.NoError(t, err)
	return tg, ts
}

// checkAgreement runs every operation in every variant twice on the same
// seeded state, once through the executor and once through the generated
// package, and compares the requests each sent, serialised.
func (h *harness) checkAgreement(t *testing.T, keys catalog.KeyMode) {
	m := h.model
	ctx := context.Background()
	compared := 0
	for _, op := range m.Operations {
		variants := []string{""}
		if len(op.Budgets) > 0 {
			variants = nil
			for _, b := range op.Budgets {
				variants = append(variants, b.Name)
			}
		}
		for _, variant := range variants {
			tgA, tsA := seededEngine(t, m, keys, op.Name, variant)
			recA := &recorder{Client: tgA.Client}
			x := executor.New(m, recA, executor.Options{Tables: tsA.Names(), Keys: keys})
			_, err := x.Run(ctx, executor.Input{Operation: op.Name, Variant: variant})
			require.NoError(t, err)

			// A variant that only reads leaves the state as it was: the
			// generated code reads the same engine (fan-outs seed tens of
			// thousands of items). One that writes gets its own.
			tgB, tsB := tgA, tsA
			if writes(op, variant) {
				tgB, tsB = seededEngine(t, m, keys, op.Name, variant)
			}
			recB := &recorder{Client: tgB.Client}
			client := reflect.ValueOf(h.newClient(recB, tsB.Prefix))
			method := client.MethodByName(generator.Identifier(op.Name))
			require.True(t, method.IsValid(), "no method %s", op.Name)
			in := reflect.New(method.Type().In(1)).Elem()
			vals := op.SampleInputsIn(op.Budget(variant))
			for _, prm := range op.Params {
				f := in.FieldByName(generator.Identifier(prm.Name))
				if v, ok := vals[prm.Name]; f.IsValid() && ok {
					setValue(t, f, v)
				}
			}
			if v := generator.PathVariant(m, op.Name, variant); v != "" {
				in.FieldByName("Variant").SetString(v)
			}
			method.Call([]reflect.Value{reflect.ValueOf(ctx), in})
			renameCalls(recA.calls, tsA)
			renameCalls(recB.calls, tsB)
			require.Equal(t, canonCalls(t, recA.calls), canonCalls(t, recB.calls), "%s/%s (%s keys): the generated code and the executor sent different requests", op.Name, variant, keys)
			compared += len(recA.calls)
		}
	}
	t.Logf("%d requests agree (%s keys)", compared, keys)
}

// renameCalls gives recorded calls the model's table names.
func renameCalls(calls []*catalog.Call, ts *endpoint.Tables) {
	for _, c := range calls {
		for model, name := range ts.Names() {
			if c.Table == name {
				c.Table = model
			}
		}
		renameCalls(c.Actions, ts)
	}
}

// writes reports whether a variant of an operation writes.
func writes(op *catalog.Operation, variant string) bool {
	for _, s := range op.Steps {
		if s.In(variant) && s.Kind.IsWrite() {
			return true
		}
	}
	return false
}

// binds reports whether a variant reads values later steps use (then the
// state decides what they send).
func binds(op *catalog.Operation, variant string) bool {
	for _, s := range op.Steps {
		if s.In(variant) && len(s.Bind) > 0 {
			return true
		}
	}
	return false
}
