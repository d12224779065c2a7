package generator_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/generator"
)

// wbFile is the part of a Workbench model the tests read back.
type wbFile struct {
	ModelName     string
	ModelMetadata struct{ Version, AWSService string }
	DataModel     []struct {
		TableName     string
		KeyAttributes struct {
			PartitionKey struct{ AttributeName, AttributeType string }
			SortKey      *struct{ AttributeName, AttributeType string }
		}
		NonKeyAttributes []struct{ AttributeName, AttributeType string }
		TableFacets      []struct {
			FacetName         string
			KeyAttributeAlias struct{ PartitionKeyAlias, SortKeyAlias string }
			NonKeyAttributes  []string
			TableData         []map[string]map[string]any
		}
		GlobalSecondaryIndexes []struct {
			IndexName     string
			KeyAttributes struct {
				PartitionKey struct{ AttributeName string }
				SortKey      *struct{ AttributeName string }
			}
		}
		TableData   []map[string]map[string]any
		BillingMode string
	}
}

func TestWorkbenchExport(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	b, err := generator.Workbench(m, generator.Options{Source: "model.yaml", Keys: catalog.KeysSynthetic})
	require.NoError(t, err)
	var wb wbFile
	require.NoError(t, json.Unmarshal(b, &wb))
	assert.Equal(t, "3.0", wb.ModelMetadata.Version)
	assert.Equal(t, "Amazon DynamoDB", wb.ModelMetadata.AWSService)
	require.Len(t, wb.DataModel, len(m.Tables))
	samples := 0
	for _, tb := range wb.DataModel {
		declared := map[string]bool{tb.KeyAttributes.PartitionKey.AttributeName: true}
		if tb.KeyAttributes.SortKey != nil {
			declared[tb.KeyAttributes.SortKey.AttributeName] = true
		}
		for _, a := range tb.NonKeyAttributes {
			declared[a.AttributeName] = true
		}
		// Every attribute of the table data is declared, as Workbench
		// requires; every index has one partition and one sort attribute.
		for _, it := range tb.TableData {
			for name := range it {
				assert.True(t, declared[name], "%s: %s is used in TableData but not declared", tb.TableName, name)
			}
		}
		samples += len(tb.TableData)
		for _, x := range tb.GlobalSecondaryIndexes {
			assert.True(t, declared[x.KeyAttributes.PartitionKey.AttributeName], "index %s", x.IndexName)
		}
		mt := m.Table(tb.TableName)
		require.NotNil(t, mt)
		assert.Len(t, tb.TableFacets, len(mt.Entities))
	}
	assert.Positive(t, samples)
	// GSI1 has three partition attributes: with synthetic keys Workbench shows its synthetic key,
	// and the samples carry it.
	col := wb.DataModel[0]
	require.Equal(t, "collections", col.TableName)
	var gsi1 string
	for _, x := range col.GlobalSecondaryIndexes {
		if x.IndexName == "GSI1" {
			gsi1 = x.KeyAttributes.PartitionKey.AttributeName
		}
	}
	assert.Equal(t, "GSI1PK", gsi1)
	found := false
	for _, it := range col.TableData {
		if v, ok := it["GSI1PK"]; ok && v["S"] == "T#t042#ACT#2026-09-24#10" {
			found = true
		}
	}
	assert.True(t, found, "the sample contract carries its synthetic GSI1 key")
}

// TestWorkbenchRoundTrip: the reference model exported to Workbench and
// imported back keeps its tables, entities, key templates and indexes,
// and loads.
func TestWorkbenchRoundTrip(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	b, err := generator.Workbench(m, generator.Options{Source: "model.yaml"})
	require.NoError(t, err)
	y, err := generator.ImportWorkbench("workbench.json", b)
	require.NoError(t, err)
	back, err := catalog.Parse("imported.yaml", y)
	require.NoError(t, err, "%s", y)
	for _, tb := range m.Tables {
		bt := back.Table(tb.Name)
		require.NotNil(t, bt, tb.Name)
		assert.Equal(t, tb.KeyAttributes(), bt.KeyAttributes())
		if len(tb.Entities) > 0 {
			assert.Equal(t, tb.Discriminator, bt.Discriminator, "read from the samples")
		}
	}
	for _, e := range m.Entities {
		be := back.Entity(e.Name)
		require.NotNil(t, be, e.Name)
		for i, k := range e.Key {
			assert.Equal(t, k.Template.Text, be.Key[i].Template.Text, "%s key %s", e.Name, k.Attribute)
		}
		assert.Len(t, be.Samples, len(e.Samples), "%s: every sample comes back", e.Name)
	}
	for _, x := range m.Indexes {
		assert.NotNil(t, back.Index(x.Name), x.Name)
	}
}

// A model made in Workbench by hand, with its habits: aliases such as
// USER#<userId>, a constant sort key, a facet without data, table data
// shared by the facets.
const handMade = `{
  "ModelName": "Shop Orders",
  "ModelMetadata": {"Author": "", "DateCreated": "Mar 3, 2026, 9:00 AM", "DateLastModified": "Mar 3, 2026, 9:00 AM",
    "Description": "Orders of a small shop", "AWSService": "Amazon DynamoDB", "Version": "3.0"},
  "DataModel": [{
    "TableName": "shop-orders",
    "KeyAttributes": {"PartitionKey": {"AttributeName": "pk", "AttributeType": "S"},
                      "SortKey": {"AttributeName": "sk", "AttributeType": "S"}},
    "NonKeyAttributes": [
      {"AttributeName": "kind", "AttributeType": "S"},
      {"AttributeName": "email", "AttributeType": "S"},
      {"AttributeName": "total", "AttributeType": "N"},
      {"AttributeName": "placedAt", "AttributeType": "S"},
      {"AttributeName": "lines", "AttributeType": "L"}],
    "TableFacets": [
      {"FacetName": "Customer", "KeyAttributeAlias": {"PartitionKeyAlias": "CUSTOMER#<customerId>", "SortKeyAlias": "PROFILE"},
       "NonKeyAttributes": ["kind", "email"], "TableData": []},
      {"FacetName": "Order", "KeyAttributeAlias": {"PartitionKeyAlias": "CUSTOMER#customerId", "SortKeyAlias": "ORDER#{orderId}"},
       "NonKeyAttributes": ["kind", "total", "placedAt", "lines"]},
      {"FacetName": "Note", "KeyAttributeAlias": {"PartitionKeyAlias": "pk", "SortKeyAlias": "sk"}, "NonKeyAttributes": []}],
    "GlobalSecondaryIndexes": [{"IndexName": "by-placedAt",
      "KeyAttributes": {"PartitionKey": {"AttributeName": "kind", "AttributeType": "S"}, "SortKey": {"AttributeName": "placedAt", "AttributeType": "S"}},
      "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}}],
    "TableData": [
      {"pk": {"S": "CUSTOMER#c1"}, "sk": {"S": "PROFILE"}, "kind": {"S": "Customer"}, "email": {"S": "a@example.com"}},
      {"pk": {"S": "CUSTOMER#c1"}, "sk": {"S": "ORDER#o1"}, "kind": {"S": "Order"}, "total": {"N": "12.50"},
       "placedAt": {"S": "2026-03-01T10:00:00Z"}, "lines": {"L": [{"M": {"sku": {"S": "A"}, "qty": {"N": "2"}}}]}}],
    "BillingMode": "PROVISIONED",
    "ProvisionedCapacitySettings": {"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 3}}
  }]
}`

func TestWorkbenchImportHandMade(t *testing.T) {
	y, err := generator.ImportWorkbench("shop.json", []byte(handMade))
	require.NoError(t, err)
	m, err := catalog.Parse("shop.yaml", y)
	require.NoError(t, err, "%s", y)
	assert.Equal(t, "shop-orders", m.Name)
	tb := m.Table("shop-orders")
	require.NotNil(t, tb)
	assert.Equal(t, "kind", tb.Discriminator, "kind holds the facet's name on every item")
	assert.Equal(t, "provisioned", tb.Billing.Mode)
	assert.Equal(t, int64(5), tb.Billing.Read.Units)
	keys := func(name string) []string {
		e := m.Entity(name)
		require.NotNil(t, e, name)
		var out []string
		for _, k := range e.Key {
			out = append(out, k.Template.Text)
		}
		return out
	}
	assert.Equal(t, []string{"CUSTOMER#{customerId}", "PROFILE"}, keys("Customer"))
	assert.Equal(t, []string{"CUSTOMER#{customerId}", "ORDER#{orderId}"}, keys("Order"))
	assert.Equal(t, []string{"{pkValue}", "{skValue}"}, keys("Note"), "a facet whose aliases are the key attributes")
	order := m.Entity("Order")
	require.Len(t, order.Samples, 1, "the table data item with the order's key shape")
	assert.Equal(t, catalog.Required, order.Has("total"))
	assert.Len(t, m.Entity("Customer").Samples, 1)
	x := m.Index("by-placedAt")
	require.NotNil(t, x)
	assert.Equal(t, []string{"kind"}, x.Partition)
	assert.Equal(t, "INCLUDE", x.Projection.Type)
	assert.NotEmpty(t, m.AccessPatterns, "a read by key per entity, for the workshop to replace")
	assert.Contains(t, string(y), "# A starting model, imported from the NoSQL Workbench model \"Shop Orders\".")
}

var positionedLine = regexp.MustCompile(`^[^:]+:\d+:\d+: `)

func TestWorkbenchImportErrors(t *testing.T) {
	cases := map[string]struct {
		doc, want string
		line      int
	}{
		"not json":      {"{\n  \"ModelName\": \n}", "invalid JSON", 3},
		"array":         {"[1, 2]", "want a NoSQL Workbench model", 1},
		"no tables":     {`{"ModelName": "x"}`, "want DataModel", 1},
		"old version":   {"{\"ModelMetadata\": {\"Version\": \"2.0\"},\n \"DataModel\": []}", "version \"2.0\"", 1},
		"short name":    {"{\"DataModel\": [\n {\"TableName\": \"t\", \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}}}]}", "table name \"t\"", 2},
		"key type":      {"{\"DataModel\": [{\"TableName\": \"things\", \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"pk\",\n \"AttributeType\": \"BOOL\"}}}]}", "want S, N or B", 2},
		"bad attr name": {"{\"DataModel\": [{\"TableName\": \"things\", \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}},\n \"NonKeyAttributes\": [{\"AttributeName\": \"my-attr\", \"AttributeType\": \"S\"}]}]}", "rename it in Workbench", 2},
		"bad item":      {"{\"DataModel\": [{\"TableName\": \"things\", \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}},\n \"TableData\": [{\"pk\": {\"N\": \"abc\"}}]}]}", "is not a number", 2},
		"duplicate key": {"{\"DataModel\": [],\n \"DataModel\": []}", "duplicate key", 2},
		"trailing":      {"{\"DataModel\": []} {}", "text after the JSON document", 1},
		"empty":         {"", "the file is empty", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := generator.ImportWorkbench("in.wb", []byte(c.doc))
			require.Error(t, err)
			assert.True(t, generator.IsImportError(err), "%v", err)
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			assert.Regexp(t, positionedLine, first)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(first, "in.wb:"+itoa(c.line)+":"), first)
			for _, leak := range []string{"json:", "interface", "*generator", "map["} {
				assert.NotContains(t, err.Error(), leak)
			}
		})
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	_, err := generator.ImportWorkbench("deep.json", []byte(`{"DataModel": `+deep+`}`))
	require.Error(t, err)
	big := make([]byte, generator.MaxWorkbenchBytes+1)
	_, err = generator.ImportWorkbench("big.json", big)
	require.Error(t, err)
	assert.True(t, generator.IsImportError(err))
	assert.False(t, generator.IsImportError(errors.New("other")))
}

func itoa(n int) string { return strconv.Itoa(n) }

// FuzzImportWorkbench: whatever the file holds, the importer returns a
// model that loads or an error of the input; it never panics.
func FuzzImportWorkbench(f *testing.F) {
	f.Add([]byte(handMade))
	f.Add([]byte(`{"DataModel": [{"TableName": "abc", "KeyAttributes": {"PartitionKey": {"AttributeName": "pk", "AttributeType": "S"}}}]}`))
	f.Add([]byte(`{"DataModel": [{"TableName": "abc", "KeyAttributes": {"PartitionKey": [{"AttributeName": "a", "AttributeType": "S"}]}, "TableFacets": [{"FacetName": "F", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<x:03>"}}]}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		y, err := generator.ImportWorkbench("fuzz.json", data)
		if err != nil {
			if !generator.IsImportError(err) {
				t.Fatalf("not an input error: %v", err)
			}
			return
		}
		if _, err := catalog.Parse("fuzz.yaml", y); err != nil {
			t.Fatalf("the imported model does not load: %v\n%s", err, y)
		}
	})
}
