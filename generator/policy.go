package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// TablePolicy returns the IAM policy document (JSON) confining a
// principal to one tenant's items of a table the model isolates by
// dynamodb:LeadingKeys. With tenant "" the document keeps the model's
// policy variable (${aws:PrincipalTag/tenantId}), so one policy serves
// every principal tagged with its tenant; with a tenant the variable is
// replaced by it, for a principal of that tenant only. The actions are
// those the model's operations and access patterns send to the table
// (transaction actions are authorised one by one, as PutItem, UpdateItem,
// DeleteItem or ConditionCheckItem), with the ones the model lists.
//
// The document names the table as the template deploys it with an empty
// TableNamePrefix; PrefixedTablePolicy names it with a prefix.
func TablePolicy(m *catalog.Model, table, tenant string) ([]byte, error) {
	return PrefixedTablePolicy(m, table, tenant, "")
}

// PrefixedTablePolicy is TablePolicy for the table deployed as
// prefix+table (the template's TableNamePrefix): the same document the
// template's inline policy is, with the table's ARN spelled out.
func PrefixedTablePolicy(m *catalog.Model, table, tenant, prefix string) ([]byte, error) {
	t := m.Table(table)
	if t == nil {
		return nil, fmt.Errorf("no table %q in model %s", table, m.Name)
	}
	if t.Isolation == nil {
		return nil, fmt.Errorf("table %s declares no isolation (isolation.leadingKeys)", table)
	}
	if tenant != "" {
		if err := checkTenant(tenant); err != nil {
			return nil, err
		}
	}
	if err := CheckTablePrefix(m, prefix); err != nil {
		return nil, err
	}
	doc, err := policyDoc(m, t, tenant, prefix, false)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(orderedJSON(doc)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkTenant refuses a tenant id that would widen or break the policy:
// IAM wildcards, policy variables, characters IAM documents cannot hold.
func checkTenant(tenant string) error {
	for _, r := range tenant {
		if r == '*' || r == '?' || r == '$' || r == '"' || r == '\\' || r < 0x20 || r > 0xff {
			return fmt.Errorf("tenant %q: a tenant id in a policy cannot hold %q", tenant, r)
		}
	}
	return nil
}

// tableActions lists the DynamoDB actions the model sends to a table.
func tableActions(m *catalog.Model, t *catalog.Table) (table, index []string) {
	add := func(list *[]string, a string) {
		if !slices.Contains(*list, a) {
			*list = append(*list, a)
		}
	}
	for _, op := range m.Operations {
		forEachRequest(op, func(s *catalog.Step, q *catalog.Request) {
			if q.Table != t {
				return
			}
			if q.Index != nil {
				add(&index, "dynamodb:"+map[catalog.StepKind]string{catalog.Query: "Query", catalog.Scan: "Scan"}[s.Kind])
				return
			}
			switch s.Kind {
			case catalog.Get:
				add(&table, "dynamodb:GetItem")
			case catalog.Put:
				add(&table, "dynamodb:PutItem")
			case catalog.Update:
				add(&table, "dynamodb:UpdateItem")
			case catalog.Delete:
				add(&table, "dynamodb:DeleteItem")
			case catalog.ConditionCheck:
				add(&table, "dynamodb:ConditionCheckItem")
			case catalog.Query:
				add(&table, "dynamodb:Query")
			}
		})
	}
	for _, ap := range m.AccessPatterns {
		if ap.Answer == nil || ap.Answer.Table != t {
			continue
		}
		if ap.Answer.Index != nil {
			add(&index, "dynamodb:Query")
		} else if ap.Answer.Operation == "GetItem" || ap.Answer.Operation == "Query" {
			add(&table, "dynamodb:"+ap.Answer.Operation)
		}
	}
	for _, a := range t.Isolation.Actions {
		add(&table, "dynamodb:"+strings.TrimPrefix(a, "dynamodb:"))
	}
	slices.Sort(table)
	slices.Sort(index)
	// Scan reads every tenant's items whatever the leading keys: never
	// granted under tenant isolation.
	table = slices.DeleteFunc(table, func(a string) bool { return a == "dynamodb:Scan" })
	index = slices.DeleteFunc(index, func(a string) bool { return a == "dynamodb:Scan" || a == "dynamodb:" })
	return table, index
}

// policyDoc builds the policy as ordered maps: the one definition both
// the template's inline policy and iam-TABLE.json print. With cfn,
// resources are CloudFormation references to the template's table
// (which carries its TableNamePrefix); without, the ARN of table
// prefix+t.Name.
func policyDoc(m *catalog.Model, t *catalog.Table, tenant, prefix string, cfn bool) (map[string]any, error) {
	iso := t.Isolation
	pattern := iso.LeadingKeys
	tagVar := ""
	tag := ""
	if mm := principalTag.FindStringSubmatch(pattern); mm != nil {
		tagVar, tag = mm[0], mm[1]
	}
	if tenant != "" && tagVar != "" {
		pattern = strings.ReplaceAll(pattern, tagVar, tenant)
	}
	id := tableIDs(m)[t.Name] + "Table"
	tableARN := any("arn:aws:dynamodb:*:*:table/" + prefix + t.Name)
	indexARN := func(x string) any { return "arn:aws:dynamodb:*:*:table/" + prefix + t.Name + "/index/" + x }
	if cfn {
		tableARN = map[string]any{"Fn::GetAtt": []any{id, "Arn"}}
		indexARN = func(x string) any { return map[string]any{"Fn::Sub": "${" + id + ".Arn}/index/" + x} }
	}
	tableActs, indexActs := tableActions(m, t)
	statements := []any{ordered(
		"Sid", "TenantItems",
		"Effect", "Allow",
		"Action", strs(tableActs),
		"Resource", []any{tableARN},
		"Condition", map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []any{pattern}}},
	)}
	var idx []any
	for _, x := range t.Indexes {
		if tag != "" && len(x.Partition) == 1 && x.Partition[0] == tag {
			idx = append(idx, indexARN(x.Name))
		}
	}
	if len(idx) > 0 && len(indexActs) > 0 {
		value := tagVar
		if tenant != "" {
			value = tenant
		}
		statements = append(statements, ordered(
			"Sid", "TenantIndexQueries",
			"Effect", "Allow",
			"Action", strs(indexActs),
			"Resource", idx,
			"Condition", map[string]any{"ForAllValues:StringEquals": map[string]any{"dynamodb:LeadingKeys": []any{value}}},
		))
	}
	return ordered("Version", "2012-10-17", "Statement", statements), nil
}

// maxTableName is DynamoDB's longest table name.
const maxTableName = 255

// CheckTablePrefix refuses a table name prefix DynamoDB would refuse in
// front of one of the model's tables, or one that would widen an ARN
// (wildcards, policy variables): only letters, digits, '_', '-' and '.'.
func CheckTablePrefix(m *catalog.Model, prefix string) error {
	for i, r := range prefix {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Errorf("table prefix %q: character %q at byte %d; a table name holds only letters, digits, '_', '-' and '.'", prefix, r, i)
		}
	}
	for _, t := range m.Tables {
		if n := len(prefix) + len(t.Name); n > maxTableName {
			return fmt.Errorf("table prefix %q: table %s would be named with %d characters, over DynamoDB's %d", prefix, t.Name, n, maxTableName)
		}
	}
	return nil
}

// PolicyNotes says, for each table with no tenant policy file, why not.
func PolicyNotes(m *catalog.Model) []string {
	var out []string
	for _, t := range m.Tables {
		if t.Isolation == nil {
			out = append(out, "no iam-"+t.Name+".json: table "+t.Name+" declares no tenant isolation (isolation.leadingKeys), so there is no tenant policy to confine its principals; grant its callers the actions they need with a role of their own")
		}
	}
	return out
}
