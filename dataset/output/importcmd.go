package output

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// ImportCommand is how DynamoDB's import from S3 creates one table of
// the model from the files --out wrote.
type ImportCommand struct {
	Table string
	// KeyPrefix is the S3 key prefix, relative to where the output
	// directory is uploaded, holding the table's data objects and
	// nothing else (the manifests sit outside every data prefix).
	KeyPrefix string
	// Params is the table the import creates: its CreateTable request
	// (endpoint.CreateTableInput, native keys as the population is
	// written) as ImportTable's TableCreationParameters.
	Params *types.TableCreationParameters
	// Local names the local secondary indexes an import cannot create.
	Local []string
}

// ImportCommands lists the import of every table of the model, named
// by its model name.
func ImportCommands(m *catalog.Model) ([]ImportCommand, error) {
	var out []ImportCommand
	for _, t := range m.Tables {
		in, err := endpoint.CreateTableInput(m, t, t.Name, catalog.KeysNative, false)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		ic := ImportCommand{Table: t.Name, KeyPrefix: t.Name + "/data/", Params: &types.TableCreationParameters{
			TableName: in.TableName, AttributeDefinitions: in.AttributeDefinitions, KeySchema: in.KeySchema,
			BillingMode: in.BillingMode, ProvisionedThroughput: in.ProvisionedThroughput, GlobalSecondaryIndexes: in.GlobalSecondaryIndexes}}
		for _, x := range in.LocalSecondaryIndexes {
			ic.Local = append(ic.Local, *x.IndexName)
		}
		out = append(out, ic)
	}
	return out, nil
}

// ParamsJSON is the TableCreationParameters as the AWS CLI reads them:
// the API's shape, with no null or empty member.
func (ic ImportCommand) ParamsJSON() (string, error) {
	b, err := json.Marshal(ic.Params)
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	b, err = json.Marshal(pruned(v))
	return string(b), err
}

// pruned drops the null, empty and zero-length members the SDK's types
// carry for what a request leaves out.
func pruned(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			e = pruned(e)
			switch y := e.(type) {
			case nil:
				continue
			case string:
				if y == "" {
					continue
				}
			case []any:
				if len(y) == 0 {
					continue
				}
			case map[string]any:
				if len(y) == 0 {
					continue
				}
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pruned(e)
		}
		return out
	}
	return v
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ImportNote is what follows the summary of data --out: where each
// table's data is and the aws dynamodb import-table command that
// creates the table from it, or why there is none (JSON lines are no
// import format; a table with no items has nothing to import).
func ImportNote(m *catalog.Model, dir string, man *Manifest) (string, error) {
	if man == nil {
		return "", nil
	}
	if man.Format != "s3-import" {
		return "Import from S3: --format " + man.Format + " is no format DynamoDB imports; write --format s3-import for an import.\n", nil
	}
	cmds, err := ImportCommands(m)
	if err != nil {
		return "", err
	}
	objects := map[string]int{}
	for _, tm := range man.Tables {
		objects[tm.Table] = len(tm.Objects)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Import from S3: each table's data objects, and nothing else, are under %s/TABLE/data/ (the manifests stay outside every data prefix: import from a table's data prefix, never from the directory's root).\n", dir)
	if man.Parts > 1 {
		fmt.Fprintf(&b, "This is part %d of %d: import once every part is written into the directory.\n", man.Part, man.Parts)
	}
	fmt.Fprintf(&b, "Upload the directory with\n  aws s3 sync %s \"s3://$BUCKET/$KEY_PREFIX\"\n(KEY_PREFIX empty or ending in /), then create each table from its prefix:\n", shellQuote(dir))
	for _, ic := range cmds {
		if objects[ic.Table] == 0 && man.Parts <= 1 {
			fmt.Fprintf(&b, "  (table %s: no items, nothing to import; create it from cloudformation.yaml)\n", ic.Table)
			continue
		}
		js, err := ic.ParamsJSON()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  aws dynamodb import-table --s3-bucket-source \"S3Bucket=$BUCKET,S3KeyPrefix=${KEY_PREFIX}%s\" --input-format DYNAMODB_JSON --input-compression-type %s --table-creation-parameters %s\n",
			ic.KeyPrefix, strings.ToUpper(man.Compression), shellQuote(js))
		if len(ic.Local) > 0 {
			fmt.Fprintf(&b, "  (table %s: an import creates no local secondary index; %s must be created with the table, so load it instead of importing)\n", ic.Table, strings.Join(ic.Local, ", "))
		}
	}
	return b.String(), nil
}
