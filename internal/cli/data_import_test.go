package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
)

var importLine = regexp.MustCompile(`(?m)^  aws dynamodb import-table --s3-bucket-source "S3Bucket=\$BUCKET,S3KeyPrefix=\$\{KEY_PREFIX\}([^"]+)" --input-format DYNAMODB_JSON --input-compression-type (\w+) --table-creation-parameters '([^']*)'$`)

// TestDataImportCommands: data --out prints, for every table, the
// import-table command of its data prefix, which holds only data objects
// (the manifest is outside it), with TableCreationParameters that are
// the model's table as catalog.Model.Layout lays it out natively: key
// schema, attribute definitions, global indexes and projections, billing.
func TestDataImportCommands(t *testing.T) {
	for _, path := range []string{"../../model.yaml", "../../examples/orders/model.yaml"} {
		m, err := catalog.Load(path)
		require.NoError(t, err)
		dir := t.TempDir()
		r := runCLI([]string{"data", path, "--scale", "0.0001", "--out", dir, "--compression", "gzip", "--quiet"}, nil)
		require.Equal(t, 0, r.code, r.stderr)
		found := importLine.FindAllStringSubmatch(r.stdout, -1)
		require.NotEmpty(t, found, r.stdout)
		imported := 0
		for _, tb := range m.Tables {
			if strings.Contains(r.stdout, "(table "+tb.Name+": no items, nothing to import") {
				ents, _ := os.ReadDir(filepath.Join(dir, tb.Name, "data"))
				assert.Empty(t, ents, "table %s is said to have no items", tb.Name)
				continue
			}
			require.Less(t, imported, len(found), r.stdout)
			prefix, comp, js := found[imported][1], found[imported][2], found[imported][3]
			imported++
			assert.Equal(t, tb.Name+"/data/", prefix)
			assert.Equal(t, "GZIP", comp)
			// The prefix holds data objects only; the manifest is elsewhere.
			ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(prefix)))
			require.NoError(t, err)
			require.NotEmpty(t, ents)
			for _, e := range ents {
				assert.True(t, strings.HasSuffix(e.Name(), ".json.gz"), "%s in %s", e.Name(), prefix)
			}
			assert.FileExists(t, filepath.Join(dir, "manifest.json"))

			var p types.TableCreationParameters
			require.NoError(t, json.Unmarshal([]byte(js), &p), js)
			l, err := m.Layout(tb, catalog.KeysNative)
			require.NoError(t, err)
			assert.Equal(t, tb.Name, *p.TableName)
			assert.Equal(t, keyNames(l.Keys), schemaNames(p.KeySchema))
			var defs []string
			for _, a := range l.Attributes {
				defs = append(defs, a.Name+":"+a.Type.String())
			}
			var got []string
			for _, a := range p.AttributeDefinitions {
				got = append(got, *a.AttributeName+":"+string(a.AttributeType))
			}
			assert.Equal(t, defs, got)
			require.Len(t, p.GlobalSecondaryIndexes, len(l.Global))
			for j, x := range l.Global {
				g := p.GlobalSecondaryIndexes[j]
				assert.Equal(t, x.Index.Name, *g.IndexName)
				assert.Equal(t, keyNames(x.Keys), schemaNames(g.KeySchema), x.Index.Name)
				assert.Equal(t, x.Projection, string(g.Projection.ProjectionType), x.Index.Name)
				assert.Equal(t, x.NonKey, g.Projection.NonKeyAttributes, x.Index.Name)
			}
			want := types.BillingModePayPerRequest
			if tb.Billing.Mode == "provisioned" {
				want = types.BillingModeProvisioned
				require.NotNil(t, p.ProvisionedThroughput)
			}
			assert.Equal(t, want, p.BillingMode)
		}
		assert.Equal(t, len(found), imported)
	}
	r := runCLI([]string{"data", "../../examples/orders/model.yaml", "--scale", "0.0001", "--out", t.TempDir(), "--format", "jsonl", "--quiet"}, nil)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "import-table")
	assert.Contains(t, r.stdout, "is no format DynamoDB imports")
}

func keyNames(ks []catalog.KeyElement) []string {
	var out []string
	for _, k := range ks {
		kt := "HASH"
		if k.Range {
			kt = "RANGE"
		}
		out = append(out, k.Name+":"+kt)
	}
	return out
}

func schemaNames(ks []types.KeySchemaElement) []string {
	var out []string
	for _, k := range ks {
		out = append(out, *k.AttributeName+":"+string(k.KeyType))
	}
	return out
}
