package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// tableLayouts lays out every table with its indexes under key mode k
// (catalog.Model.Layout, which the runners' tables are created from too).
func tableLayouts(m *catalog.Model, k catalog.KeyMode) ([]catalog.TableLayout, error) {
	out := make([]catalog.TableLayout, 0, len(m.Tables))
	for _, t := range m.Tables {
		l, err := m.Layout(t, k)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// keyType is the key schema's name of a side: HASH or RANGE.
func keyType(k catalog.KeyElement) string {
	if k.Range {
		return "RANGE"
	}
	return "HASH"
}

func billingMode(b catalog.Billing) string {
	if b.Mode == "provisioned" {
		return "PROVISIONED"
	}
	return "PAY_PER_REQUEST"
}

// tablesSource prints tables.go: CreateTableInput values and CreateTables.
func (p *plan) tablesSource() (string, error) {
	defs, err := tableLayouts(p.m, p.o.Keys)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", p.o.Package)
	var funcs []string
	for _, td := range defs {
		tp := p.tableByN[td.Table.Name]
		fn := p.names.claim("tableinput:"+td.Table.Name, tp.Field+"Table", "Input")
		funcs = append(funcs, fn+"(t."+tp.Field+")")
		doc := fmt.Sprintf("%s returns the CreateTable request of table %s, under name.", fn, td.Table.Name)
		if td.Table.Description != "" {
			doc += " " + firstSentence(td.Table.Description)
		}
		doc += " Deletion protection stays off, so that test and measurement tables can be dropped"
		if td.Table.PITR {
			doc += "; the CloudFormation template turns it on, with point-in-time recovery, which CreateTable cannot set"
		} else {
			doc += "; the CloudFormation template turns it on"
		}
		doc += "."
		if len(td.Global) > 0 {
			if p.o.Keys == catalog.KeysSynthetic {
				doc += " Indexes with multi-attribute keys are keyed by their synthetic attributes."
			} else {
				doc += " Global indexes use multi-attribute keys where the model declares them (up to four partition and four sort attributes)."
			}
		}
		b.WriteString("\n" + comment("// ", doc) + "\n")
		fmt.Fprintf(&b, "func %s(name string) *dynamodb.CreateTableInput {\nreturn &dynamodb.CreateTableInput{\nTableName: aws.String(name),\n", fn)
		b.WriteString("AttributeDefinitions: []types.AttributeDefinition{\n")
		for _, a := range td.Attributes {
			fmt.Fprintf(&b, "{AttributeName: aws.String(%s), AttributeType: types.ScalarAttributeType%s},\n", quote(a.Name), a.Type)
		}
		b.WriteString("},\n")
		b.WriteString("KeySchema: " + keySchemaGo(td.Keys) + ",\n")
		bill := td.Table.Billing
		if billingMode(bill) == "PROVISIONED" {
			b.WriteString("BillingMode: types.BillingModeProvisioned,\n")
			fmt.Fprintf(&b, "ProvisionedThroughput: %s,\n", provisionedGo(bill))
		} else {
			b.WriteString("BillingMode: types.BillingModePayPerRequest,\n")
			if mo := bill.MaxOnDemand; mo != nil {
				fmt.Fprintf(&b, "OnDemandThroughput: &types.OnDemandThroughput{%s},\n", pairGo("MaxReadRequestUnits", mo.Read, "MaxWriteRequestUnits", mo.Write))
			}
		}
		if wt := bill.WarmThroughput; wt != nil {
			fmt.Fprintf(&b, "WarmThroughput: &types.WarmThroughput{%s},\n", pairGo("ReadUnitsPerSecond", wt.Read, "WriteUnitsPerSecond", wt.Write))
		}
		if td.Table.Class != "" {
			fmt.Fprintf(&b, "TableClass: types.TableClass(%s),\n", quote(td.Table.Class))
		}
		if td.Table.Stream != nil {
			fmt.Fprintf(&b, "StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(%s)},\n", quote(td.Table.Stream.View))
		}
		if len(td.Global) > 0 {
			b.WriteString("GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{\n")
			for _, x := range td.Global {
				fmt.Fprintf(&b, "{\nIndexName: aws.String(%s),\nKeySchema: %s,\nProjection: %s,\n", quote(x.Index.Name), keySchemaGo(x.Keys), projectionGo(x))
				if billingMode(bill) == "PROVISIONED" {
					fmt.Fprintf(&b, "ProvisionedThroughput: %s,\n", provisionedGo(bill))
				}
				if wt := x.Index.Warm(); wt != nil {
					fmt.Fprintf(&b, "WarmThroughput: &types.WarmThroughput{%s},\n", pairGo("ReadUnitsPerSecond", wt.Read, "WriteUnitsPerSecond", wt.Write))
				}
				b.WriteString("},\n")
			}
			b.WriteString("},\n")
		}
		if len(td.Local) > 0 {
			b.WriteString("LocalSecondaryIndexes: []types.LocalSecondaryIndex{\n")
			for _, x := range td.Local {
				fmt.Fprintf(&b, "{\nIndexName: aws.String(%s),\nKeySchema: %s,\nProjection: %s,\n},\n", quote(x.Index.Name), keySchemaGo(x.Keys), projectionGo(x))
			}
			b.WriteString("},\n")
		}
		b.WriteString("}\n}\n")
	}
	b.WriteString(`
// CreateTableInputs returns the CreateTable requests of every table of the
// model, named by t.
func CreateTableInputs(t Tables) []*dynamodb.CreateTableInput {
	return []*dynamodb.CreateTableInput{` + strings.Join(funcs, ", ") + `}
}

// TableAdmin is the part of the DynamoDB API CreateTables uses.
// *dynamodb.Client satisfies it.
type TableAdmin interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

var _ TableAdmin = (*dynamodb.Client)(nil)
`)
	var ttl []string
	for _, td := range defs {
		if td.Table.TTL != "" {
			ttl = append(ttl, fmt.Sprintf("t.%s: %s,", p.tableByN[td.Table.Name].Field, quote(td.Table.TTL)))
		}
	}
	b.WriteString(`
// CreateTables creates every table of the model under the names t gives,
// waits until each is active`)
	if len(ttl) > 0 {
		b.WriteString(`, and turns on time to live where the model
// declares it`)
	}
	b.WriteString(`. Point-in-time recovery and deletion protection are the
// CloudFormation template's: CreateTables makes tables that can be
// dropped.
func CreateTables(ctx context.Context, db TableAdmin, t Tables) error {
`)
	if len(ttl) > 0 {
		b.WriteString("ttl := map[string]string{\n" + strings.Join(ttl, "\n") + "\n}\n")
	}
	b.WriteString(`	for _, in := range CreateTableInputs(t) {
		if _, err := db.CreateTable(ctx, in); err != nil {
			return fmt.Errorf("create table %s: %w", aws.ToString(in.TableName), err)
		}
		w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = time.Second })
		if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}, 10*time.Minute); err != nil {
			return fmt.Errorf("wait for table %s: %w", aws.ToString(in.TableName), err)
		}
`)
	if len(ttl) > 0 {
		b.WriteString(`		if a, ok := ttl[aws.ToString(in.TableName)]; ok {
			_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
				TableName:               in.TableName,
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(a), Enabled: aws.Bool(true)},
			})
			if err != nil {
				return fmt.Errorf("time to live of table %s: %w", aws.ToString(in.TableName), err)
			}
		}
`)
	}
	b.WriteString("}\nreturn nil\n}\n")
	return b.String(), nil
}

func keySchemaGo(keys []catalog.KeyElement) string {
	var parts []string
	for _, k := range keys {
		kind := "types.KeyTypeHash"
		if k.Range {
			kind = "types.KeyTypeRange"
		}
		parts = append(parts, fmt.Sprintf("{AttributeName: aws.String(%s), KeyType: %s}", quote(k.Name), kind))
	}
	return "[]types.KeySchemaElement{\n" + strings.Join(parts, ",\n") + ",\n}"
}

func projectionGo(x catalog.IndexLayout) string {
	switch x.Projection {
	case "KEYS_ONLY":
		return "&types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}"
	case "INCLUDE":
		q := make([]string, len(x.NonKey))
		for i, a := range x.NonKey {
			q[i] = quote(a)
		}
		return "&types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{" + strings.Join(q, ", ") + "}}"
	}
	return "&types.Projection{ProjectionType: types.ProjectionTypeAll}"
}

func provisionedGo(b catalog.Billing) string {
	var r, w int64 = 1, 1
	if b.Read != nil {
		r = b.Read.Units
	}
	if b.Write != nil {
		w = b.Write.Units
	}
	return fmt.Sprintf("&types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(%d), WriteCapacityUnits: aws.Int64(%d)}", r, w)
}

func pairGo(rn string, r int64, wn string, w int64) string {
	var parts []string
	if r > 0 {
		parts = append(parts, fmt.Sprintf("%s: aws.Int64(%d)", rn, r))
	}
	if w > 0 {
		parts = append(parts, fmt.Sprintf("%s: aws.Int64(%d)", wn, w))
	}
	return strings.Join(parts, ", ")
}

// yamlStr quotes a scalar for YAML: a JSON string is a valid YAML
// double-quoted scalar.
func yamlStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// principalTag finds the ${aws:PrincipalTag/NAME} variable of a
// LeadingKeys pattern.
var principalTag = regexp.MustCompile(`\$\{aws:PrincipalTag/([^}]+)\}`)

// policyComment says what the tenant policy covers and what it does not.
func policyComment(m *catalog.Model, t *catalog.Table) string {
	iso := t.Isolation
	tag := "the tenant"
	if mm := principalTag.FindStringSubmatch(iso.LeadingKeys); mm != nil {
		tag = mm[1]
	}
	var alone, multi, other []string
	for _, x := range t.Indexes {
		switch {
		case len(x.Partition) == 1 && x.Partition[0] == tag:
			alone = append(alone, x.Name)
		case len(x.Partition) > 1 && x.Partition[0] == tag:
			multi = append(multi, x.Name)
		default:
			other = append(other, x.Name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tenant isolation of table %s by dynamodb:LeadingKeys. LeadingKeys is the partition key value a request names: for GetItem, PutItem, UpdateItem, DeleteItem, a Query of the table and every action of TransactWriteItems (each authorised as its own action) it is the table's partition key %s, which starts with %s for every item of a tenant, so a key built for another tenant is AccessDeniedException, not a leak.",
		t.Name, t.PartitionKey, strings.ReplaceAll(iso.LeadingKeys, "*", "..."))
	b.WriteString("\n\n")
	b.WriteString("For a Query of a secondary index LeadingKeys is the index's partition key value, not the table's, so the table's pattern never matches there.")
	if len(alone) > 0 {
		fmt.Fprintf(&b, " Indexes partitioned by %s alone (%s) get a statement of their own that matches the tenant's id itself.", tag, joinWords(alone))
	}
	if len(multi) > 0 {
		fmt.Fprintf(&b, " Indexes whose multi-attribute partition key starts with %s (%s) are not granted: AWS does not document which of their values LeadingKeys holds, and when it holds every one (as the embedded engine has it) no ForAllValues condition can pin the first value to the tenant without letting any value through. The services that read them need a role of their own.", tag, joinWords(multi))
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, " Indexes whose partition key does not carry the tenant (%s) are not granted: a tenant's principal cannot query them.", joinWords(other))
	}
	b.WriteString(" LeadingKeys does not restrict what an index entry projects, nor Scan, which is not granted.")
	b.WriteString("\n\n")
	b.WriteString("Nothing here conditions dynamodb:ReturnConsumedCapacity: every request of the generated code asks for INDEXES, and capacity budgets depend on the answer.")
	return b.String()
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// ordered builds a map whose keys print in the given order.
func ordered(kv ...any) map[string]any {
	m := map[string]any{}
	var order []string
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		m[k] = kv[i+1]
		order = append(order, k)
	}
	m["\x00order"] = order
	return m
}

// orderedJSON turns ordered maps into values encoding/json prints in
// order.
func orderedJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := sortedNames(x)
		if order, ok := x["\x00order"].([]string); ok {
			keys = order
		}
		var om orderedMap
		for _, k := range keys {
			if k == "\x00order" {
				continue
			}
			om = append(om, kv{k, orderedJSON(x[k])})
		}
		return om
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = orderedJSON(e)
		}
		return out
	}
	return v
}

type kv struct {
	k string
	v any
}

type orderedMap []kv

func (o orderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// iamSource prints iam.go: the tenant policy as a function.
func (p *plan) iamSource() (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", p.o.Package)
	var isolated []*catalog.Table
	for _, t := range p.m.Tables {
		if t.Isolation != nil {
			isolated = append(isolated, t)
		}
	}
	for _, t := range isolated {
		doc, err := PrefixedTablePolicy(p.m, t.Name, "", p.o.TablePrefix)
		if err != nil {
			return "", err
		}
		fn := "TenantPolicy"
		if len(isolated) > 1 {
			fn = p.tableByN[t.Name].Field + "TenantPolicy"
		}
		tagVar := ""
		if mm := principalTag.FindStringSubmatch(t.Isolation.LeadingKeys); mm != nil {
			tagVar = mm[0]
		}
		cv := unexported(p.tableByN[t.Name].Field) + "Policy"
		fmt.Fprintf(&b, "\n%s\n", comment("// ", cv+" is the tenant policy of table "+t.Name+", with the policy variable "+tagVar+"."))
		fmt.Fprintf(&b, "const %s = %s\n", cv, literal(strings.TrimRight(string(doc), "\n")))
		b.WriteString("\n" + comment("// ", fn+" returns the IAM policy document (JSON) confining a principal to the items of one tenant of table "+t.Name+". With tenant \"\" it keeps the policy variable "+tagVar+", so one policy serves every principal tagged with its tenant; the same document is iam-"+t.Name+".json and a resource of cloudformation.yaml.") + "\n//\n")
		for i, para := range strings.Split(policyComment(p.m, t), "\n\n") {
			if i > 0 {
				b.WriteString("//\n")
			}
			b.WriteString(comment("// ", para) + "\n")
		}
		fmt.Fprintf(&b, "func %s(tenant string) (string, error) {\n", fn)
		b.WriteString("if tenant == \"\" {\nreturn " + cv + ", nil\n}\n")
		b.WriteString("for _, r := range tenant {\nif r == '*' || r == '?' || r == '$' || r == '\"' || r == '\\\\' || r < 0x20 || r > 0xff {\nreturn \"\", fmt.Errorf(\"tenant %q: a tenant id in a policy cannot hold %q\", tenant, r)\n}\n}\n")
		fmt.Fprintf(&b, "return strings.ReplaceAll(%s, %s, tenant), nil\n}\n", cv, quote(tagVar))
	}
	return b.String(), nil
}
