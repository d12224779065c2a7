package executor_test

import (
	"context"
	"encoding/json"
	"sort"
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
)

// recorder is an executor.API that records every request but the
// seeding batches, as catalog.Calls, and passes it on.
type recorder struct {
	executor.API
	mu    sync.Mutex
	calls []*catalog.Call
}

func (r *recorder) add(c *catalog.Call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func item(m map[string]types.AttributeValue) attr.Item {
	it, err := attr.FromSDKItem(m)
	if err != nil {
		panic(err)
	}
	return it
}

func (r *recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.add(&catalog.Call{Action: "GetItem", Table: aws.ToString(in.TableName), Key: item(in.Key), Projection: aws.ToString(in.ProjectionExpression),
		Names: in.ExpressionAttributeNames, ConsistentRead: aws.ToBool(in.ConsistentRead)})
	return r.API.GetItem(ctx, in, o...)
}

func (r *recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.add(&catalog.Call{Action: "PutItem", Table: aws.ToString(in.TableName), Item: item(in.Item), Condition: aws.ToString(in.ConditionExpression),
		Names: in.ExpressionAttributeNames, Values: item(in.ExpressionAttributeValues), ReturnValues: string(in.ReturnValues),
		ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.API.PutItem(ctx, in, o...)
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.add(&catalog.Call{Action: "UpdateItem", Table: aws.ToString(in.TableName), Key: item(in.Key), Update: aws.ToString(in.UpdateExpression),
		Condition: aws.ToString(in.ConditionExpression), Names: in.ExpressionAttributeNames, Values: item(in.ExpressionAttributeValues),
		ReturnValues: string(in.ReturnValues), ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.API.UpdateItem(ctx, in, o...)
}

func (r *recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	r.add(&catalog.Call{Action: "DeleteItem", Table: aws.ToString(in.TableName), Key: item(in.Key), Condition: aws.ToString(in.ConditionExpression),
		Names: in.ExpressionAttributeNames, Values: item(in.ExpressionAttributeValues), ReturnValues: string(in.ReturnValues),
		ReturnValuesOnConditionCheckFailure: string(in.ReturnValuesOnConditionCheckFailure)})
	return r.API.DeleteItem(ctx, in, o...)
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if in.ExclusiveStartKey == nil {
		r.add(&catalog.Call{Action: "Query", Table: aws.ToString(in.TableName), Index: aws.ToString(in.IndexName), KeyCondition: aws.ToString(in.KeyConditionExpression),
			Filter: aws.ToString(in.FilterExpression), Projection: aws.ToString(in.ProjectionExpression), Names: in.ExpressionAttributeNames,
			Values: item(in.ExpressionAttributeValues), ConsistentRead: aws.ToBool(in.ConsistentRead), Descending: in.ScanIndexForward != nil && !*in.ScanIndexForward,
			Limit: int(aws.ToInt32(in.Limit))})
	}
	return r.API.Query(ctx, in, o...)
}

func (r *recorder) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if in.ExclusiveStartKey == nil {
		r.add(&catalog.Call{Action: "Scan", Table: aws.ToString(in.TableName), Index: aws.ToString(in.IndexName), Filter: aws.ToString(in.FilterExpression),
			Projection: aws.ToString(in.ProjectionExpression), Names: in.ExpressionAttributeNames, Values: item(in.ExpressionAttributeValues),
			ConsistentRead: aws.ToBool(in.ConsistentRead), Limit: int(aws.ToInt32(in.Limit))})
	}
	return r.API.Scan(ctx, in, o...)
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c := &catalog.Call{Action: "TransactWriteItems"}
	for _, a := range in.TransactItems {
		switch {
		case a.Put != nil:
			p := a.Put
			c.Actions = append(c.Actions, &catalog.Call{Action: "Put", Table: aws.ToString(p.TableName), Item: item(p.Item), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: item(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.Update != nil:
			p := a.Update
			c.Actions = append(c.Actions, &catalog.Call{Action: "Update", Table: aws.ToString(p.TableName), Key: item(p.Key), Update: aws.ToString(p.UpdateExpression),
				Condition: aws.ToString(p.ConditionExpression), Names: p.ExpressionAttributeNames, Values: item(p.ExpressionAttributeValues),
				ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.Delete != nil:
			p := a.Delete
			c.Actions = append(c.Actions, &catalog.Call{Action: "Delete", Table: aws.ToString(p.TableName), Key: item(p.Key), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: item(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		case a.ConditionCheck != nil:
			p := a.ConditionCheck
			c.Actions = append(c.Actions, &catalog.Call{Action: "ConditionCheck", Table: aws.ToString(p.TableName), Key: item(p.Key), Condition: aws.ToString(p.ConditionExpression),
				Names: p.ExpressionAttributeNames, Values: item(p.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: string(p.ReturnValuesOnConditionCheckFailure)})
		}
	}
	r.add(c)
	return r.API.TransactWriteItems(ctx, in, o...)
}

// canon writes calls without step ids (the wire does not carry them).
func canon(t *testing.T, calls []*catalog.Call) string {
	var strip func(cs []*catalog.Call) []*catalog.Call
	strip = func(cs []*catalog.Call) []*catalog.Call {
		out := make([]*catalog.Call, len(cs))
		for i, c := range cs {
			cc := *c
			cc.Step = ""
			cc.Actions = strip(c.Actions)
			out[i] = &cc
		}
		return out
	}
	b, err := json.MarshalIndent(strip(calls), "", " ")
	require.NoError(t, err)
	return string(b)
}

// TestAgreesWithRender: for every operation and variant, the executor
// sends exactly the requests catalog.Operation.SampleRun renders (the
// requests the code generator's code builds), shard by shard.
func TestAgreesWithRender(t *testing.T) {
	m := load(t, "../model.yaml")
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(t, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "", Keys: catalog.KeysNative})
	require.NoError(t, err)
	names := map[string]string{}
	for _, tb := range m.Tables {
		names[tb.Name] = tb.Name
	}
	_ = ts
	for _, ov := range variants(m) {
		op := m.Operation(ov[0])
		want, err := op.SampleRun(ov[1])
		require.NoError(t, err)
		rec := &recorder{API: tg.Client}
		x := executor.New(m, rec, executor.Options{Tables: ts.Names()})
		_, err = x.Run(ctx, executor.Input{Operation: ov[0], Variant: ov[1]})
		require.NoError(t, err)
		for _, c := range rec.calls {
			rename(c, ts)
		}
		// A run ends where its variant's failure is; SampleRun renders
		// every step.
		require.Equal(t, canon(t, shardOrder(t, want[:min(len(want), len(rec.calls))])), canon(t, shardOrder(t, rec.calls)), "%s/%s", ov[0], ov[1])
	}
}

// shardOrder sorts each run of reads of one fan-out (consecutive queries
// of the same table, index and key condition) by their encoding: the
// executor sends a fan-out's shards at once, in no set order.
func shardOrder(t *testing.T, calls []*catalog.Call) []*catalog.Call {
	out := append([]*catalog.Call(nil), calls...)
	same := func(a, b *catalog.Call) bool {
		return a.Action == "Query" && b.Action == a.Action && a.Table == b.Table && a.Index == b.Index && a.KeyCondition == b.KeyCondition
	}
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && same(out[i], out[j]) {
			j++
		}
		run := out[i:j]
		sort.SliceStable(run, func(a, b int) bool { return canon(t, run[a:a+1]) < canon(t, run[b:b+1]) })
		i = j
	}
	return out
}

// rename gives recorded calls the model's table names.
func rename(c *catalog.Call, ts *endpoint.Tables) {
	for model, name := range ts.Names() {
		if c.Table == name {
			c.Table = model
		}
	}
	for _, a := range c.Actions {
		rename(a, ts)
	}
}
