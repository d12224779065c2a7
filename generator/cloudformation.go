package generator

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
)

// The CloudFormation template is typed: yaml.v3 marshals it, so every
// name and text of the model reaches the file as a scalar yaml.v3 quotes
// as it needs, and the only hand-made text is comments, built from
// prose (one line of printable characters each).

type cfnTemplate struct {
	Version     string                  `yaml:"AWSTemplateFormatVersion"`
	Description string                  `yaml:"Description"`
	Parameters  map[string]cfnParameter `yaml:"Parameters"`
	Resources   *yaml.Node              `yaml:"Resources"`
	Outputs     *yaml.Node              `yaml:"Outputs"`
}

type cfnParameter struct {
	Type        string `yaml:"Type"`
	Default     string `yaml:"Default"`
	Description string `yaml:"Description"`
}

// cfnTable is an AWS::DynamoDB::Table resource, retained on stack
// deletion and replacement.
type cfnTable struct {
	Type                string        `yaml:"Type"`
	DeletionPolicy      string        `yaml:"DeletionPolicy"`
	UpdateReplacePolicy string        `yaml:"UpdateReplacePolicy"`
	Properties          cfnTableProps `yaml:"Properties"`
}

// MarshalYAML says beside the retention policy why it is there.
func (t cfnTable) MarshalYAML() (any, error) {
	type plain cfnTable
	return commented(plain(t), "DeletionPolicy", "# Retained on stack deletion: a table holds data no template can recreate.")
}

type cfnTableProps struct {
	TableName                        cfnTag          `yaml:"TableName"`
	AttributeDefinitions             []cfnAttribute  `yaml:"AttributeDefinitions"`
	KeySchema                        []cfnKey        `yaml:"KeySchema"`
	BillingMode                      string          `yaml:"BillingMode"`
	ProvisionedThroughput            *cfnProvisioned `yaml:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput               *cfnOnDemand    `yaml:"OnDemandThroughput,omitempty"`
	WarmThroughput                   *cfnWarm        `yaml:"WarmThroughput,omitempty"`
	TableClass                       string          `yaml:"TableClass,omitempty"`
	TimeToLiveSpecification          *cfnTTL         `yaml:"TimeToLiveSpecification,omitempty"`
	StreamSpecification              *cfnStream      `yaml:"StreamSpecification,omitempty"`
	PointInTimeRecoverySpecification cfnPITR         `yaml:"PointInTimeRecoverySpecification"`
	DeletionProtectionEnabled        bool            `yaml:"DeletionProtectionEnabled"`
	GlobalSecondaryIndexes           []cfnIndex      `yaml:"GlobalSecondaryIndexes,omitempty"`
	LocalSecondaryIndexes            []cfnIndex      `yaml:"LocalSecondaryIndexes,omitempty"`
}

type cfnAttribute struct {
	AttributeName string `yaml:"AttributeName"`
	AttributeType string `yaml:"AttributeType"`
}

type cfnKey struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

type cfnProvisioned struct {
	ReadCapacityUnits  int64 `yaml:"ReadCapacityUnits"`
	WriteCapacityUnits int64 `yaml:"WriteCapacityUnits"`
}

type cfnOnDemand struct {
	MaxReadRequestUnits  int64 `yaml:"MaxReadRequestUnits,omitempty"`
	MaxWriteRequestUnits int64 `yaml:"MaxWriteRequestUnits,omitempty"`
}

type cfnWarm struct {
	ReadUnitsPerSecond  int64 `yaml:"ReadUnitsPerSecond,omitempty"`
	WriteUnitsPerSecond int64 `yaml:"WriteUnitsPerSecond,omitempty"`
}

type cfnTTL struct {
	AttributeName string `yaml:"AttributeName"`
	Enabled       bool   `yaml:"Enabled"`
}

type cfnStream struct {
	StreamViewType string `yaml:"StreamViewType"`
}

type cfnPITR struct {
	PointInTimeRecoveryEnabled bool `yaml:"PointInTimeRecoveryEnabled"`
}

// cfnIndex is a global or local secondary index; a local one has no
// throughput of its own.
type cfnIndex struct {
	IndexName             string          `yaml:"IndexName"`
	KeySchema             []cfnKey        `yaml:"KeySchema"`
	Projection            cfnProjection   `yaml:"Projection"`
	ProvisionedThroughput *cfnProvisioned `yaml:"ProvisionedThroughput,omitempty"`
	WarmThroughput        *cfnWarm        `yaml:"WarmThroughput,omitempty"`
	// about is the index's purpose, a comment beside its keys.
	about string
}

func (x cfnIndex) MarshalYAML() (any, error) {
	type plain cfnIndex
	return commented(plain(x), "KeySchema", x.about)
}

type cfnProjection struct {
	ProjectionType   string   `yaml:"ProjectionType"`
	NonKeyAttributes []string `yaml:"NonKeyAttributes,omitempty"`
}

type cfnPolicy struct {
	Type       string `yaml:"Type"`
	Properties struct {
		Description    string     `yaml:"Description"`
		PolicyDocument *yaml.Node `yaml:"PolicyDocument"`
	} `yaml:"Properties"`
}

type cfnOutput struct {
	Value cfnTag `yaml:"Value"`
}

// cfnTag is a value under a CloudFormation short-form function (!Sub,
// !Ref, !GetAtt).
type cfnTag struct{ fn, value string }

func (c cfnTag) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: c.fn, Value: c.value}, nil
}

// commented encodes v, a struct, with comment (already "# " lines) above
// its field key; no comment leaves it bare.
func commented(v any, key, comment string) (*yaml.Node, error) {
	n, err := toNode(v)
	if err != nil {
		return nil, err
	}
	for i := 0; comment != "" && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content[i].HeadComment = comment
		}
	}
	return n, nil
}

// toNode encodes v as a YAML node with the comments its parts carry
// (yaml.Node.Encode drops them).
func toNode(v any) (*yaml.Node, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// mapping is a YAML mapping whose keys keep the order they are added in.
type mapping struct{ yaml.Node }

func newMapping() *mapping { return &mapping{yaml.Node{Kind: yaml.MappingNode}} }

// add sets key to v, with comment lines above the key.
func (m *mapping) add(key string, v any, comment string) error {
	val, err := toNode(v)
	if err != nil {
		return err
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key, HeadComment: comment}, val)
	return nil
}

// policyYAML turns a policy document (ordered maps, lists, scalars) into
// YAML nodes, its keys in their order; CloudFormation intrinsic
// functions ({"Fn::Sub": ...}) pass through as they are.
func policyYAML(v any) (*yaml.Node, error) { return orderedYAML(orderedJSON(v)) }

// orderedYAML is the YAML node of a value orderedJSON made.
func orderedYAML(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case orderedMap:
		m := newMapping()
		for _, e := range x {
			val, err := orderedYAML(e.v)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.k}, val)
		}
		return &m.Node, nil
	case []any:
		s := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range x {
			val, err := orderedYAML(e)
			if err != nil {
				return nil, err
			}
			s.Content = append(s.Content, val)
		}
		return s, nil
	}
	var n yaml.Node
	return &n, n.Encode(v)
}

func cfnKeys(keys []catalog.KeyElement) []cfnKey {
	out := make([]cfnKey, len(keys))
	for i, k := range keys {
		out[i] = cfnKey{AttributeName: k.Name, KeyType: keyType(k)}
	}
	return out
}

func cfnThroughput(bill catalog.Billing) *cfnProvisioned {
	p := &cfnProvisioned{ReadCapacityUnits: 1, WriteCapacityUnits: 1}
	if bill.Read != nil {
		p.ReadCapacityUnits = bill.Read.Units
	}
	if bill.Write != nil {
		p.WriteCapacityUnits = bill.Write.Units
	}
	return p
}

func cfnIndexOf(x catalog.IndexLayout) cfnIndex {
	return cfnIndex{IndexName: x.Index.Name, KeySchema: cfnKeys(x.Keys),
		Projection: cfnProjection{ProjectionType: x.Projection, NonKeyAttributes: x.NonKey}}
}

// cfnTableOf is the table resource of layout td.
func cfnTableOf(td catalog.TableLayout) cfnTable {
	t := td.Table
	p := cfnTableProps{
		TableName:                        cfnTag{"!Sub", "${TableNamePrefix}" + t.Name},
		KeySchema:                        cfnKeys(td.Keys),
		BillingMode:                      billingMode(t.Billing),
		TableClass:                       t.Class,
		PointInTimeRecoverySpecification: cfnPITR{t.PITR},
		DeletionProtectionEnabled:        true,
	}
	for _, a := range td.Attributes {
		p.AttributeDefinitions = append(p.AttributeDefinitions, cfnAttribute{a.Name, a.Type.String()})
	}
	provisioned := p.BillingMode == "PROVISIONED"
	if provisioned {
		p.ProvisionedThroughput = cfnThroughput(t.Billing)
	} else if mo := t.Billing.MaxOnDemand; mo != nil {
		p.OnDemandThroughput = &cfnOnDemand{MaxReadRequestUnits: mo.Read, MaxWriteRequestUnits: mo.Write}
	}
	if wt := t.Billing.WarmThroughput; wt != nil {
		p.WarmThroughput = &cfnWarm{ReadUnitsPerSecond: wt.Read, WriteUnitsPerSecond: wt.Write}
	}
	if t.TTL != "" {
		p.TimeToLiveSpecification = &cfnTTL{AttributeName: t.TTL, Enabled: true}
	}
	if t.Stream != nil {
		p.StreamSpecification = &cfnStream{StreamViewType: t.Stream.View}
	}
	for _, x := range td.Global {
		g := cfnIndexOf(x)
		if x.Index.Description != "" {
			// A comment keeps the index's purpose next to its keys.
			g.about = "# " + prose(firstSentence(x.Index.Description))
		}
		if provisioned {
			g.ProvisionedThroughput = cfnThroughput(t.Billing)
		}
		// Each index its own warm throughput, or its table's.
		if wt := x.Index.Warm(); wt != nil {
			g.WarmThroughput = &cfnWarm{ReadUnitsPerSecond: wt.Read, WriteUnitsPerSecond: wt.Write}
		}
		p.GlobalSecondaryIndexes = append(p.GlobalSecondaryIndexes, g)
	}
	for _, x := range td.Local {
		p.LocalSecondaryIndexes = append(p.LocalSecondaryIndexes, cfnIndexOf(x))
	}
	return cfnTable{Type: "AWS::DynamoDB::Table", DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain", Properties: p}
}

// CloudFormation returns a CloudFormation template (YAML) declaring every
// table of the model as an AWS::DynamoDB::Table (multi-attribute GSI
// KeySchema, billing, warm throughput, TTL, stream, point-in-time
// recovery, deletion protection) and, for a table isolated by tenant,
// the tenant policy as an AWS::IAM::ManagedPolicy.
func CloudFormation(m *catalog.Model, o Options) ([]byte, error) {
	if o.Keys == "" {
		o.Keys = catalog.KeysNative
	}
	defs, err := tableLayouts(m, o.Keys)
	if err != nil {
		return nil, err
	}
	src := o.Source
	if src == "" {
		src = "model.yaml"
	}
	ids := tableIDs(m)
	tpl := cfnTemplate{
		Version:     "2010-09-09",
		Description: "Tables of model " + m.Name,
		Parameters: map[string]cfnParameter{"TableNamePrefix": {Type: "String", Default: o.TablePrefix,
			Description: "Put in front of every table name (an environment, a test stack)."}},
	}
	if m.Description != "" {
		tpl.Description += ": " + lowerFirst(firstSentence(m.Description))
	}
	res, outs := newMapping(), newMapping()
	for _, td := range defs {
		t := td.Table
		id := ids[t.Name] + "Table"
		if err := res.add(id, cfnTableOf(td), ""); err != nil {
			return nil, err
		}
		outs.add(id+"Name", cfnOutput{cfnTag{"!Ref", id}}, "")
		outs.add(id+"Arn", cfnOutput{cfnTag{"!GetAtt", id + ".Arn"}}, "")
		if t.Stream != nil {
			outs.add(id+"StreamArn", cfnOutput{cfnTag{"!GetAtt", id + ".StreamArn"}}, "")
		}
		if t.Isolation == nil {
			continue
		}
		doc, err := policyDoc(m, t, "", "", true)
		if err != nil {
			return nil, err
		}
		pol := cfnPolicy{Type: "AWS::IAM::ManagedPolicy"}
		pol.Properties.Description = "Confines a principal tagged with its tenant to the tenant's items of table " + t.Name + "."
		if pol.Properties.PolicyDocument, err = policyYAML(doc); err != nil {
			return nil, err
		}
		pid := ids[t.Name] + "TenantPolicy"
		if err := res.add(pid, pol, yamlComment(policyComment(m, t))); err != nil {
			return nil, err
		}
		outs.add(pid+"Arn", cfnOutput{cfnTag{"!Ref", pid}}, "")
	}
	tpl.Resources, tpl.Outputs = &res.Node, &outs.Node
	var b bytes.Buffer
	b.WriteString("# Code generated by cardapio from " + prose(src) + ". DO NOT EDIT.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(tpl); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// yamlComment wraps text into comment lines, its paragraphs apart.
func yamlComment(text string) string {
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		paras[i] = comment("# ", p)
	}
	return strings.Join(paras, "\n#\n")
}
