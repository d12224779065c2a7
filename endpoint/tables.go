package endpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/cardapio/cardapio/catalog"
)

// TableOptions say how a model's tables are created.
type TableOptions struct {
	// Prefix is put before every table name. Empty means a fresh prefix
	// unique to this call ("cardapio-<8 hex>-").
	Prefix string
	// Keys is the key mode; the zero value is catalog.KeysAuto.
	Keys catalog.KeyMode
	// ModelNames creates the tables under the model's own names (Prefix
	// ignored): a dataset loaded for people and programs that address
	// the tables as the model names them.
	ModelNames bool
	// OnDemand creates every table on demand, whatever the model's
	// billing (a measurement pays per request and leaves no capacity
	// behind). Otherwise provisioned tables get the model's units.
	OnDemand bool
	// Warm pre-warms each table that declares billing.warmThroughput, and
	// its global secondary indexes, each to its own warmThroughput or
	// else the table's (the model's
	// advice: pre-warm the table and its indexes before the peak), so
	// that a load meets the limits the design plans for. On AWS warm
	// throughput is billed.
	Warm bool
	// DeferStreams creates the tables without their streams, which
	// Tables.EnableStreams then turns on: a set-up loaded in between (a
	// measurement's seed, tens of thousands of items) makes no stream
	// records, which no one reads and which cost the engine a tenth of
	// the load. Streams bill nothing on writes, so what is measured
	// after EnableStreams is what the model's tables measure.
	DeferStreams bool
}

// Tables are a model's tables created on a target. Delete removes them,
// and only them.
type Tables struct {
	Prefix string
	// Keys is the key mode in force: native or synthetic.
	Keys catalog.KeyMode
	// Notes say what the target did not take (a stream, a table class)
	// and so what the created tables lack compared with the model.
	Notes []string

	target   *Target
	names    map[string]string // model table -> created name
	created  []string          // created names, in creation order
	deferred []*dynamodb.UpdateTableInput
}

// EnableStreams turns on the streams DeferStreams left off (nothing when
// none is left) and waits until the tables are active again.
func (ts *Tables) EnableStreams(ctx context.Context) error {
	for len(ts.deferred) > 0 {
		in := ts.deferred[0]
		if _, err := ts.target.Client.UpdateTable(ctx, in); err != nil {
			return fmt.Errorf("enable the stream of %s: %w", aws.ToString(in.TableName), err)
		}
		if err := ts.target.waitActive(ctx, aws.ToString(in.TableName)); err != nil {
			return err
		}
		ts.deferred = ts.deferred[1:]
	}
	return nil
}

// Name returns the created name of a model table ("" when it is not one
// of the model's).
func (ts *Tables) Name(table string) string { return ts.names[table] }

// Names returns the created names, model table -> name.
func (ts *Tables) Names() map[string]string {
	out := make(map[string]string, len(ts.names))
	for k, v := range ts.names {
		out[k] = v
	}
	return out
}

// Synthetic reports whether x is created on its synthetic keys.
func (ts *Tables) Synthetic(x *catalog.Index) bool { return x.KeyedSynthetic(ts.Keys) }

// CreateTables creates every table of m, with its indexes, TTL and stream,
// under the options' prefix, and waits until they are active. On failure
// the tables already created are deleted.
func (t *Target) CreateTables(ctx context.Context, m *catalog.Model, o TableOptions) (*Tables, error) {
	ts := &Tables{Prefix: o.Prefix, Keys: o.Keys, target: t, names: map[string]string{}}
	switch {
	case o.ModelNames:
		ts.Prefix = ""
	case ts.Prefix == "":
		ts.Prefix = UniquePrefix()
	}
	if ts.Keys == "" {
		ts.Keys = catalog.KeysAuto
	}
	if ts.Keys == catalog.KeysAuto {
		k, err := t.ProbeKeys(ctx, ts.Prefix)
		if err != nil {
			return nil, err
		}
		ts.Keys = k
	}
	if err := m.CheckKeys(ts.Keys); err != nil {
		return nil, err
	}
	for _, tb := range m.Tables {
		ts.names[tb.Name] = ts.Prefix + tb.Name
	}
	for _, tb := range m.Tables {
		if err := ts.create(ctx, m, tb, o); err != nil {
			_ = ts.Delete(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("create table %s: %w", ts.names[tb.Name], err)
		}
	}
	return ts, nil
}

// UniquePrefix returns a table prefix no other run uses:
// "cardapio-<8 hex>-".
func UniquePrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "cardapio-" + hex.EncodeToString(b[:]) + "-"
}

// CreateTableInput builds the CreateTable request of a model table under
// key mode k (native or synthetic), named name, from the table's layout
// (catalog.Model.Layout, which the generated code and CloudFormation are
// built from too).
func CreateTableInput(m *catalog.Model, tb *catalog.Table, name string, k catalog.KeyMode, onDemand bool) (*dynamodb.CreateTableInput, error) {
	for _, x := range tb.Indexes {
		if k == catalog.KeysSynthetic && x.MultiKey() && x.Synthetic == nil {
			return nil, fmt.Errorf("index %s has a multi-attribute key and no synthetic fallback (indexes.%s.synthetic)", x.Name, x.Name)
		}
	}
	l, err := m.Layout(tb, k)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), KeySchema: keySchema(l.Keys)}
	for _, a := range l.Attributes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a.Name), AttributeType: types.ScalarAttributeType(a.Type.String())})
	}
	provisioned := !onDemand && tb.Billing.Mode == "provisioned"
	throughput := func() *types.ProvisionedThroughput {
		if !provisioned {
			return nil
		}
		pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		if tb.Billing.Read != nil {
			pt.ReadCapacityUnits = aws.Int64(tb.Billing.Read.Units)
		}
		if tb.Billing.Write != nil {
			pt.WriteCapacityUnits = aws.Int64(tb.Billing.Write.Units)
		}
		return pt
	}
	if provisioned {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = throughput()
	} else {
		in.BillingMode = types.BillingModePayPerRequest
	}
	projection := func(x catalog.IndexLayout) *types.Projection {
		return &types.Projection{ProjectionType: types.ProjectionType(x.Projection), NonKeyAttributes: slices.Clone(x.NonKey)}
	}
	for _, x := range l.Global {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(x.Index.Name), KeySchema: keySchema(x.Keys), Projection: projection(x), ProvisionedThroughput: throughput()})
	}
	for _, x := range l.Local {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{IndexName: aws.String(x.Index.Name), KeySchema: keySchema(x.Keys), Projection: projection(x)})
	}
	if tb.Stream != nil && tb.Stream.View != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(tb.Stream.View)}
	}
	return in, nil
}

// Warm pre-warms an on-demand table's CreateTable request: the table to
// its billing.warmThroughput, each global index to its own
// warmThroughput or else the table's (catalog.Index.Warm), as the
// generated CreateTableInput and CloudFormation declare them.
func Warm(m *catalog.Model, tb *catalog.Table, in *dynamodb.CreateTableInput) {
	if in.BillingMode != types.BillingModePayPerRequest {
		return
	}
	wt := func(w *catalog.Throughput) *types.WarmThroughput {
		if w == nil {
			return nil
		}
		out := &types.WarmThroughput{}
		if w.Read > 0 {
			out.ReadUnitsPerSecond = aws.Int64(w.Read)
		}
		if w.Write > 0 {
			out.WriteUnitsPerSecond = aws.Int64(w.Write)
		}
		return out
	}
	in.WarmThroughput = wt(tb.Billing.WarmThroughput)
	for i := range in.GlobalSecondaryIndexes {
		if x := m.Index(aws.ToString(in.GlobalSecondaryIndexes[i].IndexName)); x != nil {
			in.GlobalSecondaryIndexes[i].WarmThroughput = wt(x.Warm())
		}
	}
}

// keySchema is the SDK's form of a key schema.
func keySchema(keys []catalog.KeyElement) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, len(keys))
	for i, k := range keys {
		out[i] = types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyTypeHash}
		if k.Range {
			out[i].KeyType = types.KeyTypeRange
		}
	}
	return out
}

func (ts *Tables) create(ctx context.Context, m *catalog.Model, tb *catalog.Table, o TableOptions) error {
	name := ts.names[tb.Name]
	in, err := CreateTableInput(m, tb, name, ts.Keys, o.OnDemand)
	if err != nil {
		return err
	}
	if ts.target.Kind == AWS && tb.Class != "" {
		in.TableClass = types.TableClass(tb.Class)
	}
	if o.Warm {
		Warm(m, tb, in)
	}
	if o.DeferStreams && in.StreamSpecification != nil {
		ts.deferred = append(ts.deferred, &dynamodb.UpdateTableInput{TableName: in.TableName, StreamSpecification: in.StreamSpecification})
		in.StreamSpecification = nil
	}
	c := ts.target.Client
	// A request cancelled in flight may have created the table without
	// its answer arriving, which would leave it behind, unknown to
	// Delete: each CreateTable runs to its answer (bounded), and the
	// cancellation is seen by the wait that follows.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	_, err = c.CreateTable(cctx, in)
	if err != nil && in.StreamSpecification != nil && isValidation(err) {
		// A target without streams (dynalite, some emulators): the table
		// is still worth measuring; say what it lacks.
		in.StreamSpecification = nil
		if _, err2 := c.CreateTable(cctx, in); err2 == nil {
			ts.Notes = append(ts.Notes, fmt.Sprintf("table %s: created without its stream (%s): %v", name, tb.Stream.View, short(err)))
			err = nil
		}
	}
	if err != nil {
		return err
	}
	ts.created = append(ts.created, name)
	if err := ts.target.waitActive(ctx, name); err != nil {
		return err
	}
	if tb.TTL != "" {
		_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(tb.TTL), Enabled: aws.Bool(true)}})
		if err != nil {
			if !isUnsupported(err) {
				return fmt.Errorf("enable TTL on %s: %w", tb.TTL, err)
			}
			ts.Notes = append(ts.Notes, fmt.Sprintf("table %s: TTL on %s not enabled: %v", name, tb.TTL, short(err)))
		}
	}
	return nil
}

// waitActive waits until a table (and its indexes) are active: at once
// on the embedded engine, after a short poll on emulators that create
// tables asynchronously (dynalite), and with the SDK's waiter on AWS.
func (t *Target) waitActive(ctx context.Context, name string) error {
	minDelay, maxDelay, limit := 20*time.Millisecond, 200*time.Millisecond, time.Minute
	if t.Kind == AWS {
		minDelay, maxDelay, limit = time.Second, 5*time.Second, 10*time.Minute
	}
	for start := time.Now(); ; {
		out, err := t.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return err
		}
		active := out.Table != nil && out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			active = active && (g.IndexStatus == "" || g.IndexStatus == types.IndexStatusActive)
		}
		if active {
			return nil
		}
		if time.Since(start) > limit {
			return fmt.Errorf("table %s is still %s after %s", name, out.Table.TableStatus, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(minDelay):
		}
		minDelay = min(2*minDelay, maxDelay)
	}
}

// Delete deletes the tables this value created, and no other; a table
// already gone is not an error. It may be called more than once.
func (ts *Tables) Delete(ctx context.Context) error {
	var errs []error
	var left []string // not deleted: a later Delete tries them again
	for _, name := range ts.created {
		_, err := ts.target.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			errs = append(errs, fmt.Errorf("delete table %s: %w", name, err))
			left = append(left, name)
		}
	}
	ts.created = left
	return errors.Join(errs...)
}

// ProbeKeys finds whether the target takes multi-attribute GSI keys, by
// creating a throwaway table with one (named after prefix) and deleting
// it at once.
func (t *Target) ProbeKeys(ctx context.Context, prefix string) (catalog.KeyMode, error) {
	if t.Kind == Embedded {
		return catalog.KeysNative, nil
	}
	name := prefix + "keys-probe"
	s := types.ScalarAttributeTypeS
	_, err := t.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: s},
			{AttributeName: aws.String("a"), AttributeType: s},
			{AttributeName: aws.String("b"), AttributeType: s},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("probe"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("b"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		if isValidation(err) {
			return catalog.KeysSynthetic, nil
		}
		return "", fmt.Errorf("probe the target for multi-attribute keys: %w", err)
	}
	// Emulators that create tables asynchronously refuse to delete a
	// table still being created.
	_ = t.waitActive(ctx, name)
	if _, err := t.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		return "", fmt.Errorf("delete the probe table %s: %w", name, err)
	}
	return catalog.KeysNative, nil
}

func isValidation(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// isUnsupported reports an error of an operation the target does not
// implement.
func isUnsupported(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "UnknownOperationException", "ValidationException", "NotImplemented", "UnrecognizedClientException":
		return true
	}
	return false
}

func short(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return strings.TrimSpace(ae.ErrorCode() + ": " + ae.ErrorMessage())
	}
	return err.Error()
}

// ErrNoTable is wrapped by Existing's error for a table that is not there.
var ErrNoTable = errors.New("no such table")

// Existing opens a model's tables that are already on the target (a
// population written earlier by an S3 import, cardapio data or a kept
// run), under prefix: each must exist and carry the key schema of the
// model's layout, in the key mode given or, for catalog.KeysAuto, in the
// mode its indexes were created in. Delete leaves them.
func (t *Target) Existing(ctx context.Context, m *catalog.Model, prefix string, keys catalog.KeyMode) (*Tables, error) {
	ts := &Tables{Prefix: prefix, target: t, names: map[string]string{}}
	modes := []catalog.KeyMode{keys}
	if keys == "" || keys == catalog.KeysAuto {
		modes = []catalog.KeyMode{catalog.KeysNative, catalog.KeysSynthetic}
	}
	for _, tb := range m.Tables {
		ts.names[tb.Name] = prefix + tb.Name
	}
	var why []string
	for _, k := range modes {
		ok := true
		for _, tb := range m.Tables {
			name := ts.names[tb.Name]
			out, err := t.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			var nf *types.ResourceNotFoundException
			if errors.As(err, &nf) {
				return nil, fmt.Errorf("table %s (the model's %s) does not exist on %s: %w", name, tb.Name, t.Name, ErrNoTable)
			}
			if err != nil {
				return nil, fmt.Errorf("describe table %s: %w", name, err)
			}
			want, err := CreateTableInput(m, tb, name, k, true)
			if err != nil {
				ok = false
				why = append(why, fmt.Sprintf("%s keys: %v", k, err))
				break
			}
			if d := schemaDiff(want, out.Table); d != "" {
				ok = false
				why = append(why, fmt.Sprintf("%s keys: table %s %s", k, name, d))
				break
			}
		}
		if ok {
			ts.Keys = k
			return ts, nil
		}
	}
	return nil, fmt.Errorf("the tables under prefix %q are not the model's: %s", prefix, strings.Join(why, "; "))
}

// schemaDiff says how a table's key schema and indexes differ from what
// CreateTable would ask ("" when they agree).
func schemaDiff(want *dynamodb.CreateTableInput, got *types.TableDescription) string {
	key := func(ks []types.KeySchemaElement) string {
		var out []string
		for _, k := range ks {
			out = append(out, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
		}
		return strings.Join(out, ",")
	}
	if w, g := key(want.KeySchema), key(got.KeySchema); w != g {
		return fmt.Sprintf("has the key %s, the model %s", g, w)
	}
	have := map[string]string{}
	for _, x := range got.GlobalSecondaryIndexes {
		have[aws.ToString(x.IndexName)] = key(x.KeySchema)
	}
	for _, x := range got.LocalSecondaryIndexes {
		have[aws.ToString(x.IndexName)] = key(x.KeySchema)
	}
	check := func(name string, ks []types.KeySchemaElement) string {
		g, ok := have[name]
		if !ok {
			return fmt.Sprintf("lacks the index %s", name)
		}
		if w := key(ks); g != w {
			return fmt.Sprintf("has the index %s on %s, the model on %s", name, g, w)
		}
		return ""
	}
	for _, x := range want.GlobalSecondaryIndexes {
		if d := check(aws.ToString(x.IndexName), x.KeySchema); d != "" {
			return d
		}
	}
	for _, x := range want.LocalSecondaryIndexes {
		if d := check(aws.ToString(x.IndexName), x.KeySchema); d != "" {
			return d
		}
	}
	return ""
}
