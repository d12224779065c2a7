package reports

import (
	"io"
	"math"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/cost"
)

// InfracostUsage writes Infracost's usage file (version 0.1) for the
// tables of a month: under resource_usage, one aws_dynamodb_table a
// table, with the keys Infracost's aws_dynamodb_table reads
// (monthly_write_request_units, monthly_read_request_units, storage_gb,
// pitr_backup_storage_gb), so that a pull request's Infracost comment
// prices DynamoDB's usage instead of "Monthly cost depends on usage".
// Infracost reads whole numbers: units and GB are rounded up.
func InfracostUsage(w io.Writer, model string, tables []cost.TableUsage) error {
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	num := func(f float64) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatFloat(math.Ceil(f), 'f', 0, 64)}
	}
	res := &yaml.Node{Kind: yaml.MappingNode}
	for _, t := range tables {
		u := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			str("monthly_write_request_units"), num(t.WRU),
			str("monthly_read_request_units"), num(t.RRU),
			str("storage_gb"), num(t.StorageGB),
		}}
		if t.PITRGB > 0 {
			u.Content = append(u.Content, str("pitr_backup_storage_gb"), num(t.PITRGB))
		}
		k := str(InfracostAddress(t.Table))
		k.HeadComment = "table " + Text(t.Table)
		res.Content = append(res.Content, k, u)
	}
	root := &yaml.Node{Kind: yaml.MappingNode,
		HeadComment: "Infracost usage of the DynamoDB tables of " + Text(model) + ", from cardapio cost (a month of the\n" +
			"declared volumes, rounded up). infracost breakdown --usage-file FILE reads it.",
		Content: []*yaml.Node{
			str("version"), {Kind: yaml.ScalarNode, Tag: "!!float", Value: "0.1"},
			str("resource_usage"), res,
		}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	return enc.Close()
}

// notLabel is what a Terraform resource label may not hold.
var notLabel = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// InfracostAddress is the Terraform address of a table's resource, as a
// configuration that names its aws_dynamodb_table after the table
// would: aws_dynamodb_table.NAME, a character a label cannot hold (a
// table name's ".") as "_", and "_" before a leading digit or hyphen.
func InfracostAddress(table string) string {
	l := notLabel.ReplaceAllString(table, "_")
	if l == "" || (l[0] >= '0' && l[0] <= '9') || l[0] == '-' {
		l = "_" + l
	}
	return "aws_dynamodb_table." + l
}
