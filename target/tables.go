package target

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

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// Keys is how the key of a global secondary index with several partition
// or sort attributes is created on a target.
type Keys string

// Keys modes.
const (
	// KeysNative creates multi-attribute keys, as DynamoDB has had since
	// November 2025 (and the embedded engine has).
	KeysNative Keys = "native"
	// KeysSynthetic creates such an index on the model's synthetic
	// fallback (indexes.X.synthetic): one concatenated string attribute
	// per side, which every writer must maintain.
	KeysSynthetic Keys = "synthetic"
	// KeysAuto probes the target with a throwaway table and takes native
	// where it is accepted, synthetic otherwise.
	KeysAuto Keys = "auto"
)

// ParseKeys reads a --keys flag.
func ParseKeys(s string) (Keys, error) {
	switch k := Keys(s); k {
	case KeysNative, KeysSynthetic, KeysAuto:
		return k, nil
	case "":
		return KeysAuto, nil
	}
	return "", fmt.Errorf("--keys %q: want native, synthetic or auto", s)
}

// TableOptions say how a model's tables are created.
type TableOptions struct {
	// Prefix is put before every table name. Empty means a fresh prefix
	// unique to this call ("cardapio-<8 hex>-").
	Prefix string
	// Keys is the key mode; the zero value is KeysAuto.
	Keys Keys
	// ModelNames creates the tables under the model's own names (Prefix
	// ignored): a dataset loaded for people and programs that address
	// the tables as the model names them.
	ModelNames bool
	// OnDemand creates every table on demand, whatever the model's
	// billing (a measurement pays per request and leaves no capacity
	// behind). Otherwise provisioned tables get the model's units.
	OnDemand bool
	// Warm pre-warms each table that declares billing.warmThroughput, and
	// its global secondary indexes, to that throughput (the model's
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
	Keys Keys
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
func (ts *Tables) Synthetic(x *catalog.Index) bool { return UsesSynthetic(x, ts.Keys) }

// UsesSynthetic reports whether index x is keyed on its synthetic
// fallback under key mode k: only an index whose key has more than one
// attribute on a side needs one.
func UsesSynthetic(x *catalog.Index, k Keys) bool {
	return k == KeysSynthetic && x.Synthetic != nil && (len(x.Partition) > 1 || len(x.Sort) > 1)
}

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
		ts.Keys = KeysAuto
	}
	if ts.Keys == KeysAuto {
		k, err := t.ProbeKeys(ctx, ts.Prefix)
		if err != nil {
			return nil, err
		}
		ts.Keys = k
	}
	if err := CheckKeys(m, ts.Keys); err != nil {
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

// CheckKeys says, before any table is created, whether the model's
// indexes can be keyed as k asks: with synthetic keys (a target without
// multi-attribute keys), every index of several key attributes needs its
// synthetic fallback. The errors are the model's, positioned at each
// index (a catalog.ErrorList).
func CheckKeys(m *catalog.Model, k Keys) error {
	if k != KeysSynthetic {
		return nil
	}
	var errs catalog.ErrorList
	for _, x := range m.Indexes {
		if x.Synthetic == nil && (len(x.Partition) > 1 || len(x.Sort) > 1) {
			pos, _ := m.Locate("indexes", x.Name)
			errs = append(errs, &catalog.Error{Pos: pos, Path: "indexes." + x.Name,
				Msg:  "a key of several attributes, and no synthetic fallback for a target without multi-attribute keys",
				Hint: "declare indexes." + x.Name + ".synthetic (partition and sort templates), or use a target with multi-attribute keys (--keys native)"})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// UniquePrefix returns a table prefix no other run uses:
// "cardapio-<8 hex>-".
func UniquePrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "cardapio-" + hex.EncodeToString(b[:]) + "-"
}

// CreateTableInput builds the CreateTable request of a model table under
// key mode k (native or synthetic), named name.
func CreateTableInput(m *catalog.Model, tb *catalog.Table, name string, k Keys, onDemand bool) (*dynamodb.CreateTableInput, error) {
	defs := map[string]types.ScalarAttributeType{}
	def := func(a string) error {
		if _, ok := defs[a]; ok {
			return nil
		}
		at := m.Attribute(a)
		st := types.ScalarAttributeTypeS
		if at != nil {
			switch at.Type {
			case attr.N:
				st = types.ScalarAttributeTypeN
			case attr.B:
				st = types.ScalarAttributeTypeB
			case attr.S:
			default:
				return fmt.Errorf("key attribute %s is %s, not S, N or B", a, at.Type)
			}
		}
		defs[a] = st
		return nil
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(name)}
	if err := def(tb.PartitionKey); err != nil {
		return nil, err
	}
	in.KeySchema = []types.KeySchemaElement{{AttributeName: aws.String(tb.PartitionKey), KeyType: types.KeyTypeHash}}
	if tb.SortKey != "" {
		if err := def(tb.SortKey); err != nil {
			return nil, err
		}
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(tb.SortKey), KeyType: types.KeyTypeRange})
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
	for _, x := range tb.Indexes {
		var ks []types.KeySchemaElement
		proj := &types.Projection{ProjectionType: types.ProjectionType(x.Projection.Type)}
		if proj.ProjectionType == "" {
			proj.ProjectionType = types.ProjectionTypeAll
		}
		if x.Projection.Type == "INCLUDE" {
			proj.NonKeyAttributes = slices.Clone(x.Projection.Attributes)
		}
		switch {
		case UsesSynthetic(x, k):
			s := x.Synthetic
			defs[s.Partition.Attribute] = types.ScalarAttributeTypeS
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(s.Partition.Attribute), KeyType: types.KeyTypeHash})
			if s.Sort != nil {
				defs[s.Sort.Attribute] = types.ScalarAttributeTypeS
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(s.Sort.Attribute), KeyType: types.KeyTypeRange})
			}
			// The natural key attributes are keys no longer: project them,
			// so that the index's entries hold what they hold natively.
			if proj.ProjectionType != types.ProjectionTypeAll {
				proj.ProjectionType = types.ProjectionTypeInclude
				for _, a := range x.KeyAttributes() {
					if a != tb.PartitionKey && a != tb.SortKey && !slices.Contains(proj.NonKeyAttributes, a) {
						proj.NonKeyAttributes = append(proj.NonKeyAttributes, a)
					}
				}
			}
		case k == KeysSynthetic && (len(x.Partition) > 1 || len(x.Sort) > 1):
			return nil, fmt.Errorf("index %s has a multi-attribute key and no synthetic fallback (indexes.%s.synthetic)", x.Name, x.Name)
		default:
			for _, a := range x.Partition {
				if err := def(a); err != nil {
					return nil, fmt.Errorf("index %s: %w", x.Name, err)
				}
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeHash})
			}
			for _, a := range x.Sort {
				if err := def(a); err != nil {
					return nil, fmt.Errorf("index %s: %w", x.Name, err)
				}
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeRange})
			}
		}
		if x.Local {
			lks := append([]types.KeySchemaElement{{AttributeName: aws.String(tb.PartitionKey), KeyType: types.KeyTypeHash}}, ks...)
			if len(x.Partition) > 0 && x.Partition[0] == tb.PartitionKey {
				lks = ks
			}
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{IndexName: aws.String(x.Name), KeySchema: lks, Projection: proj})
			continue
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(x.Name), KeySchema: ks, Projection: proj, ProvisionedThroughput: throughput()})
	}
	names := make([]string, 0, len(defs))
	for a := range defs {
		names = append(names, a)
	}
	slices.Sort(names)
	for _, a := range names {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: defs[a]})
	}
	if tb.Stream != nil && tb.Stream.View != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(tb.Stream.View)}
	}
	return in, nil
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
	if w := tb.Billing.WarmThroughput; o.Warm && w != nil && in.BillingMode == types.BillingModePayPerRequest {
		wt := func() *types.WarmThroughput {
			out := &types.WarmThroughput{}
			if w.Read > 0 {
				out.ReadUnitsPerSecond = aws.Int64(w.Read)
			}
			if w.Write > 0 {
				out.WriteUnitsPerSecond = aws.Int64(w.Write)
			}
			return out
		}
		in.WarmThroughput = wt()
		for i := range in.GlobalSecondaryIndexes {
			in.GlobalSecondaryIndexes[i].WarmThroughput = wt()
		}
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
func (t *Target) ProbeKeys(ctx context.Context, prefix string) (Keys, error) {
	if t.Kind == Embedded {
		return KeysNative, nil
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
			return KeysSynthetic, nil
		}
		return "", fmt.Errorf("probe the target for multi-attribute keys: %w", err)
	}
	// Emulators that create tables asynchronously refuse to delete a
	// table still being created.
	_ = t.waitActive(ctx, name)
	if _, err := t.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		return "", fmt.Errorf("delete the probe table %s: %w", name, err)
	}
	return KeysNative, nil
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
