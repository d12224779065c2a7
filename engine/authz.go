package engine

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
	"github.com/cardapio/cardapio/expr"
)

// Authorization with IAM policies (ServerOptions.Policies).
//
// Each request needs one or more authorizations, an action on a resource
// with a condition context, and is refused with AccessDeniedException,
// worded as AWS words it, unless the identity's policies allow every one:
//
//   - an operation on one table is the action of its name on the table's
//     ARN (a Query or Scan of an index, on the index's ARN,
//     table/NAME/index/INDEX); ListTables, DescribeLimits and
//     DescribeEndpoints on "*"; the tag operations on the ARN they name;
//   - BatchGetItem and BatchWriteItem need their own action on every
//     table they name, each with the keys it names in that table;
//   - TransactGetItems needs dynamodb:GetItem, and TransactWriteItems
//     dynamodb:PutItem, UpdateItem, DeleteItem or ConditionCheckItem, on
//     the table of each of their actions.
//
// The condition context, computed only when a policy asks for a key:
//
//   - dynamodb:LeadingKeys: the values of the partition key the request
//     names (the Key or Item of an item operation, every key of a batch
//     on that table, the partition of a Query, of the index when it
//     queries one; for a key of several attributes, the first), strings
//     as they are, numbers as their text, binaries in base64. A Scan has
//     none: a ForAllValues condition holds for it, as on AWS, so a policy
//     meant to confine a tenant must not allow Scan.
//     dynamodb:FirstPartitionKeyValues ... FourthPartitionKeyValues: each
//     attribute of a multi-attribute partition key.
//   - dynamodb:Attributes: the top-level attribute names the request
//     names: the key's, the Item's, those of its projection, update,
//     condition, key condition and filter expressions and of their
//     legacy forms.
//   - dynamodb:Select: the request's Select, or what the read does
//     without one (SPECIFIC_ATTRIBUTES with a projection, ALL_ATTRIBUTES
//     on a table, ALL_PROJECTED_ATTRIBUTES on an index); GetItem and the
//     batch and transaction reads have it too.
//   - dynamodb:ReturnValues and dynamodb:ReturnConsumedCapacity: the
//     request's members, absent when not sent (use ...IfExists).
//   - aws:PrincipalTag/KEY, aws:PrincipalArn, aws:PrincipalAccount,
//     aws:PrincipalType, aws:username, aws:userid, aws:RequestedRegion,
//     aws:SourceIp, aws:SecureTransport (false), aws:CurrentTime and
//     aws:EpochTime.
//
// When the keys of a request cannot be read (its table does not exist,
// its key condition does not parse) they are unknown: an Allow that
// depends on them does not apply, a Deny does. Nothing is ever allowed
// for want of a value.

// access is one authorization a request needs.
type access struct {
	action string // e.g. dynamodb:GetItem
	table  string // name or ARN; "" for "*"
	arn    string // an ARN given as the resource (tag operations)
	index  string
	// keys are the partition-key-bearing items the action names (Keys,
	// Items) in the table; query is the Query it runs.
	keys  []attr.Item
	query *QueryInput
	// names lists, when a policy asks, the top-level attribute names it
	// names, and whether an expression could not be read.
	names   func() ([]string, bool)
	sel     string // dynamodb:Select, "" when absent
	rv, rcc string
}

// authorize decides a request with the identity's policies.
func (s *Server) authorize(name string, in any, c *call) error {
	id := c.identity()
	policies := s.opts.Policies(id)
	for _, a := range accesses(name, in) {
		res := c.resource(a)
		ctx := &reqContext{c: c, a: a}
		req := &iam.Request{Action: a.action, Resource: res, Context: ctx}
		if d := iam.Evaluate(policies, req); d != iam.Allowed {
			// A request whose keys the engine could not read (no such
			// table, a key condition it refuses) fails with the engine's
			// own error for a caller some statement may allow on the
			// resource, as DynamoDB validates after authorizing the
			// action; any other caller learns nothing of the table.
			if ctx.err != nil && d == iam.ImplicitDeny && iam.MayAllow(policies, req) {
				return ctx.err
			}
			return &Error{Type: ErrAccessDenied, Message: denied(id, a.action, res, d)}
		}
	}
	return nil
}

// denied words a refusal as AWS does.
func denied(id *auth.Identity, action, resource string, d iam.Decision) string {
	msg := "User: " + id.ARN + " is not authorized to perform: " + action + " on resource: " + resource
	if d == iam.ExplicitDeny {
		return msg + " with an explicit deny in an identity-based policy"
	}
	return msg + " because no identity-based policy allows the " + action + " action"
}

// resource is the ARN an access is on, in the request's space.
func (c *call) resource(a *access) string {
	switch {
	case a.arn != "":
		return a.arn
	case a.table == "":
		return "*"
	}
	arn := a.table
	if !strings.HasPrefix(arn, "arn:") {
		arn = "arn:aws:dynamodb:" + c.e.opts.Region + ":" + c.e.opts.Account + ":table/" + a.table
	}
	if a.index != "" {
		arn += "/index/" + a.index
	}
	return arn
}

// accesses lists the authorizations a request needs.
// It stays one type switch, one case an operation (21 of them), so an
// operation's authorization reads in one place beside the others.
func accesses(name string, in any) []*access {
	act := "dynamodb:" + name
	names := func(ps ...[]string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	switch x := in.(type) {
	case *GetItemInput:
		a := &access{action: act, table: x.TableName, keys: []attr.Item{x.Key}, rcc: x.ReturnConsumedCapacity, sel: readSelect("", x.ProjectionExpression, x.AttributesToGet, "")}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, nil, "", "", x.ProjectionExpression, "", x.AttributesToGet)
		}
		return []*access{a}
	case *PutItemInput:
		a := &access{action: act, table: x.TableName, keys: []attr.Item{x.Item}, rv: x.ReturnValues, rcc: x.ReturnConsumedCapacity}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression, "", "", "", names(itemNames(x.Item), mapKeys(x.Expected)))
		}
		return []*access{a}
	case *UpdateItemInput:
		a := &access{action: act, table: x.TableName, keys: []attr.Item{x.Key}, rv: x.ReturnValues, rcc: x.ReturnConsumedCapacity}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression, x.UpdateExpression, "", "", names(itemNames(x.Key), mapKeys(x.Expected), mapKeys(x.AttributeUpdates)))
		}
		return []*access{a}
	case *DeleteItemInput:
		a := &access{action: act, table: x.TableName, keys: []attr.Item{x.Key}, rv: x.ReturnValues, rcc: x.ReturnConsumedCapacity}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression, "", "", "", names(itemNames(x.Key), mapKeys(x.Expected)))
		}
		return []*access{a}
	case *QueryInput:
		a := &access{action: act, table: x.TableName, index: x.IndexName, query: x, rcc: x.ReturnConsumedCapacity,
			sel: readSelect(x.Select, x.ProjectionExpression, x.AttributesToGet, x.IndexName)}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.KeyConditionExpression, "", x.ProjectionExpression, x.FilterExpression,
				names(x.AttributesToGet, mapKeys(x.KeyConditions), mapKeys(x.QueryFilter)))
		}
		return []*access{a}
	case *ScanInput:
		a := &access{action: act, table: x.TableName, index: x.IndexName, rcc: x.ReturnConsumedCapacity,
			sel: readSelect(x.Select, x.ProjectionExpression, x.AttributesToGet, x.IndexName)}
		a.names = func() ([]string, bool) {
			return exprNames(x.ExpressionAttributeNames, x.ExpressionAttributeValues, "", "", x.ProjectionExpression, x.FilterExpression,
				names(x.AttributesToGet, mapKeys(x.ScanFilter)))
		}
		return []*access{a}
	case *BatchGetItemInput:
		var out []*access
		for _, t := range sortedKeys(x.RequestItems) {
			ka := x.RequestItems[t]
			a := &access{action: act, table: t, rcc: x.ReturnConsumedCapacity}
			if ka != nil {
				a.keys = ka.Keys
				a.sel = readSelect("", ka.ProjectionExpression, ka.AttributesToGet, "")
				a.names = func() ([]string, bool) {
					return exprNames(ka.ExpressionAttributeNames, nil, "", "", ka.ProjectionExpression, "", names(ka.AttributesToGet, keysNames(ka.Keys)))
				}
			}
			out = append(out, a)
		}
		return out
	case *BatchWriteItemInput:
		var out []*access
		for _, t := range sortedKeys(x.RequestItems) {
			a := &access{action: act, table: t, rcc: x.ReturnConsumedCapacity}
			for _, w := range x.RequestItems[t] {
				switch {
				case w.PutRequest != nil:
					a.keys = append(a.keys, w.PutRequest.Item)
				case w.DeleteRequest != nil:
					a.keys = append(a.keys, w.DeleteRequest.Key)
				}
			}
			keys := a.keys
			a.names = func() ([]string, bool) { return exprNames(nil, nil, "", "", "", "", keysNames(keys)) }
			out = append(out, a)
		}
		return out
	case *TransactGetItemsInput:
		var out []*access
		for _, it := range x.TransactItems {
			if g := it.Get; g != nil {
				a := &access{action: "dynamodb:GetItem", table: g.TableName, keys: []attr.Item{g.Key}, rcc: x.ReturnConsumedCapacity, sel: readSelect("", g.ProjectionExpression, nil, "")}
				a.names = func() ([]string, bool) {
					return exprNames(g.ExpressionAttributeNames, nil, "", "", g.ProjectionExpression, "", itemNames(g.Key))
				}
				out = append(out, a)
			}
		}
		return out
	case *TransactWriteItemsInput:
		var out []*access
		for _, it := range x.TransactItems {
			var a *access
			switch {
			case it.Put != nil:
				p := it.Put
				a = &access{action: "dynamodb:PutItem", table: p.TableName, keys: []attr.Item{p.Item}}
				a.names = func() ([]string, bool) {
					return exprNames(p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ConditionExpression, "", "", "", itemNames(p.Item))
				}
			case it.Update != nil:
				u := it.Update
				a = &access{action: "dynamodb:UpdateItem", table: u.TableName, keys: []attr.Item{u.Key}}
				a.names = func() ([]string, bool) {
					return exprNames(u.ExpressionAttributeNames, u.ExpressionAttributeValues, u.ConditionExpression, u.UpdateExpression, "", "", itemNames(u.Key))
				}
			case it.Delete != nil:
				d := it.Delete
				a = &access{action: "dynamodb:DeleteItem", table: d.TableName, keys: []attr.Item{d.Key}}
				a.names = func() ([]string, bool) {
					return exprNames(d.ExpressionAttributeNames, d.ExpressionAttributeValues, d.ConditionExpression, "", "", "", itemNames(d.Key))
				}
			case it.ConditionCheck != nil:
				cc := it.ConditionCheck
				a = &access{action: "dynamodb:ConditionCheckItem", table: cc.TableName, keys: []attr.Item{cc.Key}}
				a.names = func() ([]string, bool) {
					return exprNames(cc.ExpressionAttributeNames, cc.ExpressionAttributeValues, cc.ConditionExpression, "", "", "", itemNames(cc.Key))
				}
			default:
				continue
			}
			a.rcc = x.ReturnConsumedCapacity
			out = append(out, a)
		}
		return out
	case *TagResourceInput:
		return []*access{{action: act, arn: x.ResourceArn}}
	case *UntagResourceInput:
		return []*access{{action: act, arn: x.ResourceArn}}
	case *ListTagsOfResourceInput:
		return []*access{{action: act, arn: x.ResourceArn}}
	case *ListTablesInput, *DescribeLimitsInput, *DescribeEndpointsInput, *ListStreamsInput:
		return []*access{{action: act}}
	case *GetRecordsInput:
		// On the stream the iterator reads.
		if it, ok := parseIterator(x.ShardIterator); ok {
			return []*access{{action: act, arn: it.arn}}
		}
		return []*access{{action: act}}
	case *CreateTableInput:
		return []*access{{action: act, table: x.TableName}}
	case *DeleteTableInput:
		return []*access{{action: act, table: x.TableName}}
	case *DescribeTableInput:
		return []*access{{action: act, table: x.TableName}}
	case *UpdateTableInput:
		return []*access{{action: act, table: x.TableName}}
	case *UpdateTimeToLiveInput:
		return []*access{{action: act, table: x.TableName}}
	case *DescribeTimeToLiveInput:
		return []*access{{action: act, table: x.TableName}}
	}
	// An operation added later: its table, stream or resource ARN, else "*".
	b, _ := json.Marshal(in)
	var v struct{ TableName, StreamArn, ResourceArn string }
	_ = json.Unmarshal(b, &v)
	switch {
	case v.StreamArn != "":
		return []*access{{action: act, arn: v.StreamArn}}
	case v.ResourceArn != "":
		return []*access{{action: act, arn: v.ResourceArn}}
	case v.TableName != "":
		return []*access{{action: act, table: v.TableName}}
	}
	return []*access{{action: act}}
}

// readSelect is dynamodb:Select of a read: as sent, or what DynamoDB
// does without it.
func readSelect(sel, proj string, toGet []string, index string) string {
	switch {
	case sel != "":
		return sel
	case proj != "" || len(toGet) > 0:
		return "SPECIFIC_ATTRIBUTES"
	case index != "":
		return "ALL_PROJECTED_ATTRIBUTES"
	}
	return "ALL_ATTRIBUTES"
}

func itemNames(it attr.Item) []string {
	out := make([]string, len(it))
	for i, f := range it {
		out[i] = f.Name
	}
	return out
}

func keysNames(items []attr.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, itemNames(it)...)
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// exprNames lists, sorted and unique, the top-level attribute names of a
// request's expressions and of extra; bad is true when an expression
// could not be read (the names are then unknown).
func exprNames(names map[string]string, values map[string]attr.Value, cond, update, proj, filter string, extra []string) (out []string, bad bool) {
	out = append(out, extra...)
	sc := expr.NewScope(names, values)
	if cond != "" {
		// A key condition or a condition: both have a condition's names.
		if c, err := sc.Condition(cond); err == nil {
			out = append(out, c.Attrs()...)
		} else {
			bad = true
		}
	}
	if update != "" {
		if u, err := sc.Update(update); err == nil {
			out = append(out, u.Attrs()...)
			out = append(out, u.Reads()...)
		} else {
			bad = true
		}
	}
	if proj != "" {
		if p, err := sc.Projection(proj); err == nil {
			out = append(out, p.Attrs()...)
		} else {
			bad = true
		}
	}
	if filter != "" {
		if f, err := sc.Filter(filter); err == nil {
			out = append(out, f.Attrs()...)
		} else {
			bad = true
		}
	}
	sort.Strings(out)
	return slices.Compact(out), bad
}

// reqContext is the condition context of one access, computed on demand.
type reqContext struct {
	c *call
	a *access

	leading     [][]string // per partition attribute; nil until computed
	leadingDone bool
	leadingOK   bool
	err         error // why the keys could not be read

	attrs               []string
	attrsDone, attrsBad bool
}

// Lookup implements iam.Context.
func (r *reqContext) Lookup(key string) ([]string, iam.State) {
	switch key {
	case "dynamodb:leadingkeys", "dynamodb:firstpartitionkeyvalues":
		return r.partition(0)
	case "dynamodb:secondpartitionkeyvalues":
		return r.partition(1)
	case "dynamodb:thirdpartitionkeyvalues":
		return r.partition(2)
	case "dynamodb:fourthpartitionkeyvalues":
		return r.partition(3)
	case "dynamodb:attributes":
		if r.a.names == nil {
			return nil, iam.Absent
		}
		if !r.attrsDone {
			r.attrsDone = true
			r.attrs, r.attrsBad = r.a.names()
		}
		if r.attrsBad {
			return nil, iam.Unknown
		}
		if len(r.attrs) == 0 {
			return nil, iam.Absent
		}
		return r.attrs, iam.Present
	case "dynamodb:select":
		return single(r.a.sel)
	case "dynamodb:returnvalues":
		return single(r.a.rv)
	case "dynamodb:returnconsumedcapacity":
		return single(r.a.rcc)
	}
	return r.c.globalContext().Lookup(key)
}

func single(v string) ([]string, iam.State) {
	if v == "" {
		return nil, iam.Absent
	}
	return []string{v}, iam.Present
}

// partition returns the values of the i-th partition key attribute the
// access names.
func (r *reqContext) partition(i int) ([]string, iam.State) {
	if !r.leadingDone {
		r.leadingDone = true
		r.leading, r.err = r.readPartitions()
		r.leadingOK = r.err == nil
	}
	switch {
	case !r.leadingOK:
		return nil, iam.Unknown
	case i >= len(r.leading) || len(r.leading[i]) == 0:
		return nil, iam.Absent
	}
	return r.leading[i], iam.Present
}

// readPartitions reads the partition key values of the access from the
// table's key schema (or, for a Query, from the key condition as the
// engine resolves it).
func (r *reqContext) readPartitions() ([][]string, error) {
	a, e := r.a, r.c.e
	if a.query != nil {
		rq, err := e.prepareQuery(a.query)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(rq.hash))
		for i, v := range rq.hash {
			out[i] = []string{keyString(v)}
		}
		return out, nil
	}
	if a.keys == nil {
		return nil, nil // no items named: no leading keys (a Scan)
	}
	t, err := e.table(a.table)
	if err != nil {
		return nil, err
	}
	out := [][]string{nil}
	for _, it := range a.keys {
		v, ok := it.Get(t.hash.name)
		if !ok {
			continue // the engine refuses the key itself
		}
		out[0] = append(out[0], keyString(v))
	}
	sort.Strings(out[0])
	out[0] = slices.Compact(out[0])
	return out, nil
}

// keyString is a key value as IAM compares it.
func keyString(v attr.Value) string {
	if v.Type == attr.B {
		return base64.StdEncoding.EncodeToString([]byte(v.Str))
	}
	return v.Str
}

// globalContext is the aws: condition keys of the request.
func (c *call) globalContext() iam.Context { return globalKeys{c} }

type globalKeys struct{ c *call }

func (g globalKeys) Lookup(key string) ([]string, iam.State) {
	c := g.c
	id := c.identity()
	if tag, ok := strings.CutPrefix(key, "aws:principaltag/"); ok {
		for k, v := range id.Tags {
			if strings.EqualFold(k, tag) {
				return []string{v}, iam.Present
			}
		}
		return nil, iam.Absent
	}
	switch key {
	case "aws:principalarn":
		return []string{id.ARN}, iam.Present
	case "aws:principalaccount":
		return []string{id.Account}, iam.Present
	case "aws:principaltype":
		if strings.Contains(id.ARN, ":assumed-role/") {
			return []string{"AssumedRole"}, iam.Present
		}
		return []string{"User"}, iam.Present
	case "aws:username":
		return single(id.Name)
	case "aws:userid":
		return []string{id.AccessKey}, iam.Present
	case "aws:requestedregion":
		return single(c.sig.Region)
	case "aws:sourceip":
		if h, _, err := net.SplitHostPort(c.remote); err == nil {
			return []string{h}, iam.Present
		}
		return nil, iam.Absent
	case "aws:securetransport":
		return []string{"false"}, iam.Present
	case "aws:currenttime":
		return []string{c.now().UTC().Format("2006-01-02T15:04:05Z")}, iam.Present
	case "aws:epochtime":
		return []string{strconv.FormatInt(c.now().Unix(), 10)}, iam.Present
	}
	return nil, iam.Absent
}

// now is the engine's clock, or the system's before a space is known.
func (c *call) now() time.Time {
	if c.e != nil {
		return c.e.opts.Now()
	}
	return time.Now()
}
