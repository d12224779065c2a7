package generator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// resolveARNs replaces the template's references to a table's Arn
// (Fn::GetAtt and Fn::Sub "${ID.Arn}...") with the ARN of the table the
// template deploys under prefix.
func resolveARNs(v any, arns map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) == 2 && ga[1] == "Arn" {
			return arns[ga[0].(string)]
		}
		if s, ok := x["Fn::Sub"].(string); ok {
			for id, arn := range arns {
				s = strings.ReplaceAll(s, "${"+id+".Arn}", arn)
			}
			return s
		}
		out := map[string]any{}
		for k, e := range x {
			out[k] = resolveARNs(e, arns)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = resolveARNs(e, arns)
		}
		return out
	}
	return v
}

// TestPolicyFileIsTemplatePolicy: iam-TABLE.json grants exactly what the
// template's inline tenant policy grants once the template is deployed
// with its TableNamePrefix default, with and without a prefix; a table
// without isolation gets no file and a note saying why.
func TestPolicyFileIsTemplatePolicy(t *testing.T) {
	for _, path := range []string{"../model.yaml", "../examples/orders/model.yaml"} {
		m, err := catalog.Load(path)
		require.NoError(t, err)
		for _, prefix := range []string{"", "staging-"} {
			files, err := generator.Generate(m, generator.Options{Package: "p", TablePrefix: prefix})
			require.NoError(t, err)
			var tpl struct {
				Parameters map[string]struct {
					Default string `yaml:"Default"`
				} `yaml:"Parameters"`
				Resources map[string]struct {
					Type       string         `yaml:"Type"`
					Properties map[string]any `yaml:"Properties"`
				} `yaml:"Resources"`
			}
			require.NoError(t, yaml.Unmarshal(files["cloudformation.yaml"], &tpl))
			require.Equal(t, prefix, tpl.Parameters["TableNamePrefix"].Default)
			arns := map[string]string{}
			for id, r := range tpl.Resources {
				if r.Type == "AWS::DynamoDB::Table" {
					name := strings.ReplaceAll(r.Properties["TableName"].(string), "${TableNamePrefix}", prefix)
					arns[id] = "arn:aws:dynamodb:*:*:table/" + name
				}
			}
			policies := 0
			for _, r := range tpl.Resources {
				if r.Type != "AWS::IAM::ManagedPolicy" {
					continue
				}
				policies++
				inline := resolveARNs(r.Properties["PolicyDocument"], arns)
				var table string
				for _, tb := range m.Tables {
					if strings.HasSuffix(r.Properties["Description"].(string), " table "+tb.Name+".") {
						table = tb.Name
					}
				}
				require.NotEmpty(t, table, "policy %v names no table", r.Properties["Description"])
				var file any
				require.NoError(t, json.Unmarshal(files["iam-"+table+".json"], &file), "iam-%s.json", table)
				require.Empty(t, cmp.Diff(inline, file), "%s, prefix %q: iam-%s.json differs from the template's policy", path, prefix, table)
				require.Contains(t, string(files["iam-"+table+".json"]), "table/"+prefix+table+"\"")
			}
			notes := generator.PolicyNotes(m)
			for _, tb := range m.Tables {
				_, has := files["iam-"+tb.Name+".json"]
				require.Equal(t, tb.Isolation != nil, has, "table %s", tb.Name)
				if !has {
					require.Contains(t, strings.Join(notes, "\n"), "no iam-"+tb.Name+".json: table "+tb.Name+" declares no tenant isolation")
				}
			}
			require.Equal(t, len(m.Tables)-len(notes), policies)
		}
	}
}

// TestTablePrefixRefused: a prefix that is no part of a table name, or
// would widen the policy's ARN, is refused before anything is generated.
func TestTablePrefixRefused(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	for _, p := range []string{"*", "dev/", "${aws:username}", "a b", strings.Repeat("x", 250)} {
		_, err := generator.Generate(m, generator.Options{Package: "p", TablePrefix: p})
		require.Error(t, err, "prefix %q", p)
		require.Contains(t, err.Error(), "table prefix")
	}
}
