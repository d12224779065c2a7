package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/throughput"
)

// DynamoDB's limits on table definitions.
const (
	maxGSIs         = 20
	maxLSIs         = 5
	maxKeyAttrs     = 4 // per side of a multi-attribute GSI key
	maxProjected    = 100
	maxCollection   = 10 << 30 // bytes in an item collection of a table with LSIs
	defaultListPage = 100
)

var tableSeq atomic.Uint64

func checkTableName(name, field string) error {
	if name == "" {
		return validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	name = tableName(name)
	if len(name) < 3 {
		return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 3", name, field)
	}
	if len(name) > 255 {
		return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 255", name, field)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", name, field)
		}
	}
	return nil
}

func checkIndexName(name, field string) error {
	if name == "" {
		return validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	if len(name) < 3 || len(name) > 255 {
		return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length between 3 and 255", name, field)
	}
	return checkTableName(name, field)
}

// keySchema resolves a key schema against the attribute definitions. multi
// allows up to four HASH and four RANGE elements (GSIs); otherwise one
// HASH and at most one RANGE.
func keySchema(ks []KeySchemaElement, defs map[string]attr.Type, field string, multi bool) (hash, rng []keyAttr, err error) {
	if len(ks) == 0 {
		return nil, nil, validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	max := 2
	if multi {
		max = 2 * maxKeyAttrs
	}
	if len(ks) > max {
		parts := make([]string, len(ks))
		for i, k := range ks {
			parts[i] = "KeySchemaElement(attributeName=" + k.AttributeName + ", keyType=" + k.KeyType + ")"
		}
		return nil, nil, validationf("1 validation error detected: Value '[%s]' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", strings.Join(parts, ", "), field, max)
	}
	seen := map[string]bool{}
	for i, k := range ks {
		if k.AttributeName == "" {
			return nil, nil, validationf("1 validation error detected: Value null at '%s.%d.member.attributeName' failed to satisfy constraint: Member must not be null", field, i+1)
		}
		if k.KeyType != "HASH" && k.KeyType != "RANGE" {
			return nil, nil, validationf("1 validation error detected: Value '%s' at '%s.%d.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]", k.KeyType, field, i+1)
		}
		if seen[k.AttributeName] {
			if !multi && len(ks) == 2 {
				return nil, nil, validationf("Invalid KeySchema: Some index key attribute have no definition")
			}
			return nil, nil, invalidParam("Duplicate attribute %s in KeySchema", k.AttributeName)
		}
		seen[k.AttributeName] = true
		typ, ok := defs[k.AttributeName]
		if !ok {
			var keys, names []string
			for _, k := range ks {
				keys = append(keys, k.AttributeName)
			}
			for n := range defs {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, nil, invalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(keys, ", "), strings.Join(names, ", "))
		}
		ka := keyAttr{name: k.AttributeName, typ: typ}
		if k.KeyType == "HASH" {
			if len(rng) > 0 {
				return nil, nil, invalidParam("Invalid KeySchema: all HASH elements must come before the RANGE elements")
			}
			hash = append(hash, ka)
		} else {
			if len(hash) == 0 {
				return nil, nil, invalidParam("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
			}
			rng = append(rng, ka)
		}
	}
	if !multi {
		if len(hash) != 1 {
			return nil, nil, invalidParam("Invalid KeySchema: Too many hash keys")
		}
		if len(ks) == 2 && len(rng) != 1 {
			return nil, nil, invalidParam("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
	}
	if len(hash) > maxKeyAttrs || len(rng) > maxKeyAttrs {
		return nil, nil, invalidParam("Invalid KeySchema: at most %d HASH and %d RANGE elements are allowed", maxKeyAttrs, maxKeyAttrs)
	}
	return hash, rng, nil
}

func checkProjection(p *Projection, field string) (Projection, error) {
	if p == nil {
		return Projection{}, validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	out := Projection{ProjectionType: p.ProjectionType, NonKeyAttributes: append([]string(nil), p.NonKeyAttributes...)}
	switch p.ProjectionType {
	case "":
		if len(p.NonKeyAttributes) > 0 {
			return out, invalidParam("ProjectionType is not specified, but NonKeyAttributes is specified")
		}
		out.ProjectionType = "ALL"
	case "ALL", "KEYS_ONLY":
		if len(p.NonKeyAttributes) > 0 {
			return out, invalidParam("ProjectionType is %s, but NonKeyAttributes is specified", p.ProjectionType)
		}
	case "INCLUDE":
		if len(p.NonKeyAttributes) == 0 {
			return out, invalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
		if len(p.NonKeyAttributes) > maxProjected {
			return out, invalidParam("The number of projected attributes exceeds %d", maxProjected)
		}
		seen := map[string]bool{}
		for _, n := range p.NonKeyAttributes {
			if seen[n] {
				return out, invalidParam("Duplicate attribute %s in NonKeyAttributes", n)
			}
			seen[n] = true
		}
	default:
		return out, validationf("1 validation error detected: Value '%s' at '%s.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]", p.ProjectionType, field)
	}
	return out, nil
}

func checkThroughput(p *ProvisionedThroughput, billing, what string) (ProvisionedThroughputDescription, error) {
	if billing == "PAY_PER_REQUEST" {
		if p != nil {
			if what == "" {
				return ProvisionedThroughputDescription{}, invalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
			}
			return ProvisionedThroughputDescription{}, invalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", what)
		}
		return ProvisionedThroughputDescription{}, nil
	}
	if p == nil || p.ReadCapacityUnits == nil || p.WriteCapacityUnits == nil {
		if what == "" {
			return ProvisionedThroughputDescription{}, invalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		}
		return ProvisionedThroughputDescription{}, invalidParam("ProvisionedThroughput is not specified for index: %s", what)
	}
	field := "provisionedThroughput"
	if *p.ReadCapacityUnits < 1 {
		return ProvisionedThroughputDescription{}, validationf("1 validation error detected: Value '%d' at '%s.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", *p.ReadCapacityUnits, field)
	}
	if *p.WriteCapacityUnits < 1 {
		return ProvisionedThroughputDescription{}, validationf("1 validation error detected: Value '%d' at '%s.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", *p.WriteCapacityUnits, field)
	}
	return ProvisionedThroughputDescription{ReadCapacityUnits: *p.ReadCapacityUnits, WriteCapacityUnits: *p.WriteCapacityUnits}, nil
}

func attrDefs(defs []AttributeDefinition) (map[string]attr.Type, error) {
	if len(defs) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null")
	}
	out := map[string]attr.Type{}
	for i, d := range defs {
		if d.AttributeName == "" {
			return nil, validationf("1 validation error detected: Value null at 'attributeDefinitions.%d.member.attributeName' failed to satisfy constraint: Member must not be null", i+1)
		}
		t, ok := attr.ParseType(d.AttributeType)
		if !ok || !t.IsScalar() {
			return nil, validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.%d.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", d.AttributeType, i+1)
		}
		if _, dup := out[d.AttributeName]; dup {
			return nil, invalidParam("Duplicate AttributeName in AttributeDefinitions: %s", d.AttributeName)
		}
		out[d.AttributeName] = t
	}
	return out, nil
}

func checkBilling(mode string) (string, error) {
	switch mode {
	case "":
		return "PROVISIONED", nil
	case "PROVISIONED", "PAY_PER_REQUEST":
		return mode, nil
	}
	return "", validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", mode)
}

// newGSI validates a GSI definition against the table.
func (e *Engine) newGSI(t *table, g *GlobalSecondaryIndex, defs map[string]attr.Type, field string) (*index, error) {
	if err := checkIndexName(g.IndexName, field+".indexName"); err != nil {
		return nil, err
	}
	hash, rng, err := keySchema(g.KeySchema, defs, field+".keySchema", true)
	if err != nil {
		return nil, err
	}
	proj, err := checkProjection(g.Projection, field+".projection")
	if err != nil {
		return nil, err
	}
	tp, err := checkThroughput(g.ProvisionedThroughput, t.billing, g.IndexName)
	if err != nil {
		return nil, err
	}
	return &index{name: g.IndexName, hash: hash, rng: rng, projection: proj, tree: newEntryTree(),
		created: e.opts.Now(), throughput: tp, onDemand: g.OnDemandThroughput, warm: raiseWarm(nil, g.WarmThroughput), arn: t.arn + "/index/" + g.IndexName}, nil
}

// CreateTable creates a table; it is ACTIVE at once.
func (e *Engine) CreateTable(ctx context.Context, in *CreateTableInput) (*CreateTableOutput, error) {
	out, err := e.createTable(ctx, in)
	return out, e.afterWrite(err)
}

// emptyTable is a table with a name and nothing else yet: where
// CreateTable and a restore from the data log start.
func (e *Engine) emptyTable(name string, created time.Time) *table {
	t := &table{name: name, arn: e.arn(name), created: created, items: newRecTree(), rules: &e.rules,
		collections: map[string]int64{}, collectionLimit: maxCollection, defWarm: e.defaultWarm()}
	if e.opts.IndexLag > 0 {
		t.lag = throughput.NewLag[indexOp](e.opts.IndexLag, e.opts.Now)
	}
	return t
}

func (e *Engine) createTable(_ context.Context, in *CreateTableInput) (*CreateTableOutput, error) {
	if err := checkTableName(in.TableName, "tableName"); err != nil {
		return nil, err
	}
	if len(in.KeySchema) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null")
	}
	defs, err := attrDefs(in.AttributeDefinitions)
	if err != nil {
		return nil, err
	}
	billing, err := checkBilling(in.BillingMode)
	if err != nil {
		return nil, err
	}
	name := tableName(in.TableName)
	t := e.emptyTable(name, e.opts.Now())
	t.billing, t.attrs, t.keySchema, t.onDemand, t.tableClass, t.tags = billing, in.AttributeDefinitions, in.KeySchema, in.OnDemandThroughput, in.TableClass, in.Tags
	t.warm = raiseWarm(nil, in.WarmThroughput)
	t.id = fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(t.created.Unix()), tableSeq.Add(1))
	if in.DeletionProtectionEnabled != nil {
		t.protect = *in.DeletionProtectionEnabled
	}
	hash, rng, err := keySchema(in.KeySchema, defs, "keySchema", false)
	if err != nil {
		return nil, err
	}
	t.hash = hash[0]
	if len(rng) == 1 {
		t.rng = &rng[0]
	}
	if t.throughput, err = checkThroughput(in.ProvisionedThroughput, billing, ""); err != nil {
		return nil, err
	}
	used := map[string]bool{t.hash.name: true}
	if t.rng != nil {
		used[t.rng.name] = true
	}
	names := map[string]bool{}
	if len(in.LocalSecondaryIndexes) > 0 && t.rng == nil {
		return nil, invalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
	}
	if len(in.LocalSecondaryIndexes) > maxLSIs {
		return nil, invalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
	}
	if len(in.GlobalSecondaryIndexes) > maxGSIs {
		return nil, invalidParam("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	for i := range in.LocalSecondaryIndexes {
		l := &in.LocalSecondaryIndexes[i]
		field := fmt.Sprintf("localSecondaryIndexes.%d.member", i+1)
		if err := checkIndexName(l.IndexName, field+".indexName"); err != nil {
			return nil, err
		}
		h, r, err := keySchema(l.KeySchema, defs, field+".keySchema", false)
		if err != nil {
			return nil, err
		}
		if h[0].name != t.hash.name {
			return nil, invalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", l.IndexName, h[0].name, t.hash.name)
		}
		if len(r) != 1 {
			return nil, invalidParam("Index KeySchema for index %s must have a range key", l.IndexName)
		}
		proj, err := checkProjection(l.Projection, field+".projection")
		if err != nil {
			return nil, err
		}
		if names[l.IndexName] {
			return nil, invalidParam("Duplicate index name: %s", l.IndexName)
		}
		names[l.IndexName] = true
		used[r[0].name] = true
		t.lsis = append(t.lsis, &index{name: l.IndexName, local: true, hash: h, rng: r, projection: proj, tree: newEntryTree(), created: t.created, arn: t.arn + "/index/" + l.IndexName})
	}
	for i := range in.GlobalSecondaryIndexes {
		g := &in.GlobalSecondaryIndexes[i]
		ix, err := e.newGSI(t, g, defs, fmt.Sprintf("globalSecondaryIndexes.%d.member", i+1))
		if err != nil {
			return nil, err
		}
		if names[g.IndexName] {
			return nil, invalidParam("Duplicate index name: %s", g.IndexName)
		}
		names[g.IndexName] = true
		for _, k := range append(append([]keyAttr(nil), ix.hash...), ix.rng...) {
			used[k.name] = true
		}
		t.gsis = append(t.gsis, ix)
	}
	if len(used) != len(defs) {
		return nil, invalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	if err := checkProjectedTotal(t); err != nil {
		return nil, err
	}
	var stream bool
	var view string
	if in.StreamSpecification != nil {
		if stream, view, err = checkStreamSpec(in.StreamSpecification, true); err != nil {
			return nil, err
		}
	}
	if err := e.writable(); err != nil {
		return nil, err
	}
	t.rebuildDesc()
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.tables[name]; ok {
		return nil, &Error{Type: ErrResourceInUse, Message: "Table already exists: " + name}
	}
	e.tables[name] = t
	e.registered(t, stream, view)
	e.schemaChanged(t, t.describe(), false)
	// The table is usable at once, but CreateTable answers, as DynamoDB
	// does, with the table and its indexes still CREATING.
	d := e.describe(t)
	d.TableStatus = "CREATING"
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].IndexStatus = "CREATING"
	}
	return &CreateTableOutput{TableDescription: d}, nil
}

// checkProjectedTotal applies the limit of 100 projected attributes summed
// over all of a table's indexes.
func checkProjectedTotal(t *table) error {
	n := 0
	for _, ix := range t.indexes() {
		n += len(ix.projection.NonKeyAttributes)
	}
	if n > maxProjected {
		return invalidParam("The number of projected attributes in all indexes exceeds the limit of %d", maxProjected)
	}
	return nil
}

// DeleteTable removes a table and returns its last description. Its
// stream, if any, is disabled and stays readable for its retention.
func (e *Engine) DeleteTable(ctx context.Context, in *DeleteTableInput) (*DeleteTableOutput, error) {
	out, err := e.deleteTable(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) deleteTable(_ context.Context, in *DeleteTableInput) (*DeleteTableOutput, error) {
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.protect {
		return nil, validationf("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if err := e.writable(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.tables[t.name] == t {
		delete(e.tables, t.name)
	}
	e.mu.Unlock()
	t.deleted = true
	e.disableStream(t)
	e.logDrop(t)
	d := t.describe()
	d.TableStatus = "DELETING"
	e.schemaChanged(t, d, true)
	return &DeleteTableOutput{TableDescription: d}, nil
}

// DescribeTable describes a table.
func (e *Engine) DescribeTable(_ context.Context, in *DescribeTableInput) (*DescribeTableOutput, error) {
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, notFound("Requested resource not found: Table: " + tableName(in.TableName) + " not found")
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return &DescribeTableOutput{Table: e.describe(t)}, nil
}

// ListTables lists table names in order, at most Limit (1..100) a page.
func (e *Engine) ListTables(_ context.Context, in *ListTablesInput) (*ListTablesOutput, error) {
	limit := defaultListPage
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value %s", *in.Limit, map[bool]string{true: "greater than or equal to 1", false: "less than or equal to 100"}[*in.Limit < 1])
		}
		limit = *in.Limit
	}
	if in.ExclusiveStartTableName != "" {
		if err := checkTableName(in.ExclusiveStartTableName, "exclusiveStartTableName"); err != nil {
			return nil, err
		}
	}
	e.mu.RLock()
	names := make([]string, 0, len(e.tables))
	for n := range e.tables {
		if n > in.ExclusiveStartTableName {
			names = append(names, n)
		}
	}
	e.mu.RUnlock()
	sort.Strings(names)
	out := &ListTablesOutput{TableNames: names}
	if len(names) > limit {
		out.TableNames = names[:limit]
		out.LastEvaluatedTableName = names[limit-1]
	}
	return out, nil
}

// UpdateTable changes billing, throughput and GSIs, and enables or
// disables the stream. A new GSI is backfilled before UpdateTable returns
// and is ACTIVE at once.
func (e *Engine) UpdateTable(ctx context.Context, in *UpdateTableInput) (*UpdateTableOutput, error) {
	out, err := e.updateTable(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) updateTable(_ context.Context, in *UpdateTableInput) (*UpdateTableOutput, error) {
	t, err := e.table(in.TableName)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, tableNotFound()
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		in.DeletionProtectionEnabled == nil && in.TableClass == "" && in.OnDemandThroughput == nil &&
		in.StreamSpecification == nil && in.SSESpecification == nil && in.WarmThroughput == nil {
		return nil, validationf("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	billing, throughput, err := updatedBilling(t, in)
	if err != nil {
		return nil, err
	}
	streamOn, streamView, err := updatedStream(t, in)
	if err != nil {
		return nil, err
	}
	if err := e.writable(); err != nil {
		return nil, err
	}
	// Validate every index change before applying any.
	defs, err := updatedDefs(t, in)
	if err != nil {
		return nil, err
	}
	oldBilling := t.billing
	t.billing = billing
	creates, deletes, err := e.indexChanges(t, in, defs)
	if err != nil {
		t.billing = oldBilling
		return nil, err
	}
	applyUpdate(t, in, throughput, creates, deletes)
	if in.StreamSpecification != nil {
		if streamOn {
			e.enableStream(t, streamView)
		} else {
			e.disableStream(t)
		}
	}
	e.logDef(t)
	e.schemaChanged(t, t.describe(), false)
	return &UpdateTableOutput{TableDescription: e.updatingDesc(t, creates)}, nil
}

// updatedBilling checks an update's billing mode and throughput against
// the table's, and returns what they become.
func updatedBilling(t *table, in *UpdateTableInput) (string, ProvisionedThroughputDescription, error) {
	var err error
	billing := t.billing
	if in.BillingMode != "" {
		if billing, err = checkBilling(in.BillingMode); err != nil {
			return "", ProvisionedThroughputDescription{}, err
		}
	}
	throughput := t.throughput
	if in.ProvisionedThroughput != nil && billing == "PROVISIONED" && t.billing == "PROVISIONED" && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		in.ProvisionedThroughput.ReadCapacityUnits != nil && in.ProvisionedThroughput.WriteCapacityUnits != nil &&
		*in.ProvisionedThroughput.ReadCapacityUnits == t.throughput.ReadCapacityUnits && *in.ProvisionedThroughput.WriteCapacityUnits == t.throughput.WriteCapacityUnits {
		return "", ProvisionedThroughputDescription{}, validationf("The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			t.throughput.ReadCapacityUnits, *in.ProvisionedThroughput.ReadCapacityUnits, t.throughput.WriteCapacityUnits, *in.ProvisionedThroughput.WriteCapacityUnits)
	}
	if in.ProvisionedThroughput != nil || billing != t.billing {
		if billing == "PAY_PER_REQUEST" && in.ProvisionedThroughput == nil {
			throughput = ProvisionedThroughputDescription{}
		} else if throughput, err = checkThroughput(in.ProvisionedThroughput, billing, ""); err != nil {
			return "", ProvisionedThroughputDescription{}, err
		}
	}
	return billing, throughput, nil
}

// updatedStream checks an update's stream specification: no index
// created or deleted with it, and a change of the stream's state.
func updatedStream(t *table, in *UpdateTableInput) (on bool, view string, err error) {
	if sp := in.StreamSpecification; sp != nil {
		if on, view, err = checkStreamSpec(sp, false); err != nil {
			return false, "", err
		}
		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Create != nil || u.Delete != nil {
				return false, "", invalidParam("You cannot create or delete index while changing stream status")
			}
		}
		switch {
		case on && t.stream != nil:
			return false, "", validationf("Table already has an enabled stream: TableName: %s", t.name)
		case !on && t.stream == nil:
			return false, "", validationf("Table has no stream to disable: TableName: %s", t.name)
		}
	}
	return on, view, nil
}

// updatedDefs merges an update's attribute definitions into the table's.
func updatedDefs(t *table, in *UpdateTableInput) (map[string]attr.Type, error) {
	defs := map[string]attr.Type{}
	for _, d := range t.attrs {
		defs[d.AttributeName], _ = attr.ParseType(d.AttributeType)
	}
	if len(in.AttributeDefinitions) > 0 {
		more, err := attrDefs(in.AttributeDefinitions)
		if err != nil {
			return nil, err
		}
		for n, typ := range more {
			if old, ok := defs[n]; ok && old != typ {
				return nil, invalidParam("Attribute %s is already defined with type %s", n, old)
			}
			defs[n] = typ
		}
	}
	return defs, nil
}

// indexChanges checks every index change of an update before any is
// applied, and returns the indexes to create and the names to delete.
func (e *Engine) indexChanges(t *table, in *UpdateTableInput, defs map[string]attr.Type) ([]*index, map[string]bool, error) {
	var creates []*index
	deletes := map[string]bool{}
	if len(in.GlobalSecondaryIndexUpdates) > 1 {
		creating := 0
		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Create != nil {
				creating++
			}
		}
		if creating > 1 {
			return nil, nil, &Error{Type: ErrLimitExceeded, Message: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"}
		}
	}
	for i, u := range in.GlobalSecondaryIndexUpdates {
		field := fmt.Sprintf("globalSecondaryIndexUpdates.%d.member", i+1)
		switch {
		case u.Create != nil:
			if t.findIndex(u.Create.IndexName) != nil {
				return nil, nil, invalidParam("Attempting to create an index which already exists")
			}
			ix, err := e.newGSI(t, u.Create, defs, field+".create")
			if err != nil {
				return nil, nil, err
			}
			creates = append(creates, ix)
		case u.Delete != nil:
			ix := t.findIndex(u.Delete.IndexName)
			if ix == nil || ix.local {
				return nil, nil, notFound("Requested resource not found: Index: " + u.Delete.IndexName + " not found")
			}
			deletes[ix.name] = true
		case u.Update != nil:
			ix := t.findIndex(u.Update.IndexName)
			if ix == nil || ix.local {
				return nil, nil, notFound("Requested resource not found: Index: " + u.Update.IndexName + " not found")
			}
		default:
			return nil, nil, validationf("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, Update or Delete must be specified")
		}
	}
	if len(t.gsis)-len(deletes)+len(creates) > maxGSIs {
		return nil, nil, invalidParam("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	return creates, deletes, nil
}

// applyUpdate applies a checked update: throughput and settings, index
// updates, deletes and creates (backfilled before it returns).
func applyUpdate(t *table, in *UpdateTableInput, throughput ProvisionedThroughputDescription, creates []*index, deletes map[string]bool) {
	t.throughput = throughput
	if in.DeletionProtectionEnabled != nil {
		t.protect = *in.DeletionProtectionEnabled
	}
	if in.TableClass != "" {
		t.tableClass = in.TableClass
	}
	if in.OnDemandThroughput != nil {
		t.onDemand = in.OnDemandThroughput
	}
	if in.WarmThroughput != nil {
		t.warm = raiseWarm(t.warm, in.WarmThroughput)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update != nil {
			ix := t.findIndex(u.Update.IndexName)
			if u.Update.ProvisionedThroughput != nil {
				if tp, err := checkThroughput(u.Update.ProvisionedThroughput, "PROVISIONED", ix.name); err == nil {
					ix.throughput = tp
				}
			}
			if u.Update.OnDemandThroughput != nil {
				ix.onDemand = u.Update.OnDemandThroughput
			}
			if u.Update.WarmThroughput != nil {
				ix.warm = raiseWarm(ix.warm, u.Update.WarmThroughput)
			}
		}
	}
	kept := t.gsis[:0:0]
	for _, ix := range t.gsis {
		if !deletes[ix.name] {
			kept = append(kept, ix)
		}
	}
	t.gsis = append(kept, creates...)
	if len(creates) > 0 {
		// Record the new key attributes' definitions.
		have := map[string]bool{}
		for _, d := range t.attrs {
			have[d.AttributeName] = true
		}
		attrs := append([]AttributeDefinition(nil), t.attrs...)
		for _, ix := range creates {
			for _, k := range append(append([]keyAttr(nil), ix.hash...), ix.rng...) {
				if !have[k.name] {
					have[k.name] = true
					attrs = append(attrs, AttributeDefinition{AttributeName: k.name, AttributeType: k.typ.String()})
				}
			}
		}
		t.attrs = attrs
	}
	t.rebuildDesc()
	for _, ix := range creates {
		t.backfill(ix)
	}
}

// updatingDesc describes a table after UpdateTable. The change is
// complete at once, but UpdateTable answers, as DynamoDB does, with the
// table UPDATING and new indexes CREATING.
func (e *Engine) updatingDesc(t *table, creates []*index) *TableDescription {
	d := e.describe(t)
	d.TableStatus = "UPDATING"
	for i := range d.GlobalSecondaryIndexes {
		for _, ix := range creates {
			if ix.name == d.GlobalSecondaryIndexes[i].IndexName {
				d.GlobalSecondaryIndexes[i].IndexStatus = "CREATING"
				d.GlobalSecondaryIndexes[i].Backfilling = new(bool)
			}
		}
	}
	return d
}

func keySchemaOf(hash, rng []keyAttr) []KeySchemaElement {
	var out []KeySchemaElement
	for _, k := range hash {
		out = append(out, KeySchemaElement{AttributeName: k.name, KeyType: "HASH"})
	}
	for _, k := range rng {
		out = append(out, KeySchemaElement{AttributeName: k.name, KeyType: "RANGE"})
	}
	return out
}

func epoch(t interface{ UnixMilli() int64 }) float64 { return float64(t.UnixMilli()) / 1000 }

// describe builds the table's description; the caller holds t.mu.
func (t *table) describe() *TableDescription {
	d := &TableDescription{
		TableName:                 t.name,
		TableArn:                  t.arn,
		TableId:                   t.id,
		TableStatus:               "ACTIVE",
		CreationDateTime:          epoch(t.created),
		AttributeDefinitions:      t.attrs,
		KeySchema:                 t.keySchema,
		TableSizeBytes:            t.size,
		ItemCount:                 int64(t.items.len()),
		DeletionProtectionEnabled: t.protect,
	}
	tp := t.throughput
	d.ProvisionedThroughput = &tp
	if t.billing == "PAY_PER_REQUEST" {
		d.BillingModeSummary = &BillingModeSummary{BillingMode: t.billing, LastUpdateToPayPerRequestDateTime: epoch(t.created)}
		d.OnDemandThroughput = t.onDemand
		if d.OnDemandThroughput == nil {
			d.OnDemandThroughput = &OnDemandThroughput{MaxReadRequestUnits: i64(-1), MaxWriteRequestUnits: i64(-1)}
		}
		r, w := t.warmOf(t.warm)
		d.WarmThroughput = &WarmThroughputDescription{ReadUnitsPerSecond: r, WriteUnitsPerSecond: w, Status: "ACTIVE"}
	} else {
		d.BillingModeSummary = &BillingModeSummary{BillingMode: t.billing}
		r, w := t.warmOf(t.warm)
		d.WarmThroughput = &WarmThroughputDescription{ReadUnitsPerSecond: max(tp.ReadCapacityUnits, r), WriteUnitsPerSecond: max(tp.WriteCapacityUnits, w), Status: "ACTIVE"}
	}
	if t.tableClass != "" {
		d.TableClassSummary = &TableClassSummary{TableClass: t.tableClass}
	}
	for _, ix := range t.gsis {
		gtp := ix.throughput
		r, w := t.warmOf(ix.warm)
		g := GlobalSecondaryIndexDescription{
			IndexName: ix.name, KeySchema: keySchemaOf(ix.hash, ix.rng), Projection: ix.projection,
			IndexStatus: "ACTIVE", ProvisionedThroughput: &gtp, IndexSizeBytes: ix.size,
			ItemCount: int64(ix.tree.len()), IndexArn: ix.arn,
			WarmThroughput: &WarmThroughputDescription{ReadUnitsPerSecond: max(gtp.ReadCapacityUnits, r), WriteUnitsPerSecond: max(gtp.WriteCapacityUnits, w), Status: "ACTIVE"},
		}
		if t.billing == "PAY_PER_REQUEST" {
			g.OnDemandThroughput = ix.onDemand
			if g.OnDemandThroughput == nil {
				g.OnDemandThroughput = &OnDemandThroughput{MaxReadRequestUnits: i64(-1), MaxWriteRequestUnits: i64(-1)}
			}
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
	}
	for _, ix := range t.lsis {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, LocalSecondaryIndexDescription{
			IndexName: ix.name, KeySchema: keySchemaOf(ix.hash, ix.rng), Projection: ix.projection,
			IndexSizeBytes: ix.size, ItemCount: int64(ix.tree.len()), IndexArn: ix.arn,
		})
	}
	if t.stream != nil {
		d.StreamSpecification = &StreamSpecification{StreamEnabled: new(bool), StreamViewType: t.stream.view}
		*d.StreamSpecification.StreamEnabled = true
	}
	if t.latest != nil {
		d.LatestStreamArn, d.LatestStreamLabel = t.latest.arn, t.latest.label
	}
	return d
}

func i64(v int64) *int64 { return &v }
