package generator_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// indexKeys is an index's key schema as two lists of attribute names.
type indexKeys struct{ Partition, Sort []string }

// wbSide reads one side of a Workbench key: an attribute object or an
// array of them.
func wbSide(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	type attr struct{ AttributeName string }
	var many []attr
	if err := json.Unmarshal(raw, &many); err != nil {
		var one attr
		require.NoError(t, json.Unmarshal(raw, &one))
		many = []attr{one}
	}
	var out []string
	for _, a := range many {
		out = append(out, a.AttributeName)
	}
	return out
}

// TestWorkbenchIndexesAreTemplates: every global index of the Workbench
// export has the key schema and projection of the CloudFormation
// template's index, in both key modes, on both examples, so
// committing from Workbench builds the template's
// indexes (orders' byCustomer sorts on createdAt then orderId).
func TestWorkbenchIndexesAreTemplates(t *testing.T) {
	models := []string{"../model.yaml", "../examples/orders/model.yaml"}
	for _, path := range models {
		m, err := catalog.Load(path)
		require.NoError(t, err)
		for _, keys := range []catalog.KeyMode{catalog.KeysNative, catalog.KeysSynthetic} {
			o := generator.Options{Package: "p", Keys: keys, Source: "model.yaml"}
			wbJSON, err := generator.Workbench(m, o)
			require.NoError(t, err)
			var wb struct {
				DataModel []struct {
					TableName              string
					GlobalSecondaryIndexes []struct {
						IndexName     string
						KeyAttributes struct{ PartitionKey, SortKey json.RawMessage }
						Projection    struct {
							ProjectionType   string
							NonKeyAttributes []string
						}
					}
				}
			}
			require.NoError(t, json.Unmarshal(wbJSON, &wb))
			got := map[string]any{}
			for _, tb := range wb.DataModel {
				for _, x := range tb.GlobalSecondaryIndexes {
					got[tb.TableName+"/"+x.IndexName] = []any{
						indexKeys{wbSide(t, x.KeyAttributes.PartitionKey), wbSide(t, x.KeyAttributes.SortKey)},
						x.Projection.ProjectionType, x.Projection.NonKeyAttributes}
				}
			}

			cf, err := generator.CloudFormation(m, o)
			require.NoError(t, err)
			var tpl struct {
				Resources map[string]struct {
					Type       string `yaml:"Type"`
					Properties struct {
						TableName              string `yaml:"TableName"`
						GlobalSecondaryIndexes []struct {
							IndexName string `yaml:"IndexName"`
							KeySchema []struct {
								AttributeName string `yaml:"AttributeName"`
								KeyType       string `yaml:"KeyType"`
							} `yaml:"KeySchema"`
							Projection struct {
								ProjectionType   string   `yaml:"ProjectionType"`
								NonKeyAttributes []string `yaml:"NonKeyAttributes"`
							} `yaml:"Projection"`
						} `yaml:"GlobalSecondaryIndexes"`
					} `yaml:"Properties"`
				} `yaml:"Resources"`
			}
			require.NoError(t, yaml.Unmarshal(cf, &tpl))
			want := map[string]any{}
			for _, r := range tpl.Resources {
				if r.Type != "AWS::DynamoDB::Table" {
					continue
				}
				name := r.Properties.TableName[len("${TableNamePrefix}"):]
				for _, x := range r.Properties.GlobalSecondaryIndexes {
					var k indexKeys
					for _, e := range x.KeySchema {
						if e.KeyType == "HASH" {
							k.Partition = append(k.Partition, e.AttributeName)
						} else {
							k.Sort = append(k.Sort, e.AttributeName)
						}
					}
					want[name+"/"+x.IndexName] = []any{k, x.Projection.ProjectionType, x.Projection.NonKeyAttributes}
				}
			}
			require.NotEmpty(t, want, path)
			require.Equal(t, want, got, "%s, %s keys", path, keys)
		}
	}
	m, err := catalog.Load("../examples/orders/model.yaml")
	require.NoError(t, err)
	b, err := generator.Workbench(m, generator.Options{Source: "model.yaml"})
	require.NoError(t, err)
	require.Contains(t, string(b), `"SortKey": [`)
}
