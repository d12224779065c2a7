package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// TestImportIntoEngine: the S3-import lines, decoded one by one with the
// DynamoDB-JSON decoder and written to the engine, give the run's counts
// (an import that loses or repeats an item would not).
func TestImportIntoEngine(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path)/2, 21)
			fs, res := files(t, p, Encoding{Format: "s3-import", Compression: "zstd"}, RunOptions{Workers: 2})
			tg := datasettest.EngineTarget(t, p.Model, LoadRetry)
			for _, k := range datasettest.Keys(fs) {
				table, _, _ := strings.Cut(k, "/")
				var batch []types.WriteRequest
				flush := func() {
					if len(batch) == 0 {
						return
					}
					in := map[string][]types.WriteRequest{table: batch}
					for len(in[table]) > 0 {
						out, err := tg.Client.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: in})
						require.NoError(t, err)
						in = out.UnprocessedItems
					}
					batch = batch[:0]
				}
				sc := bufio.NewScanner(bytes.NewReader(datasettest.Decompress(t, k, fs[k])))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					var wrap struct{ Item json.RawMessage }
					require.NoError(t, json.Unmarshal(sc.Bytes(), &wrap))
					it, err := attr.DecodeItem(wrap.Item)
					require.NoError(t, err)
					batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: attr.ToSDKItem(it)}})
					if len(batch) == BatchSize {
						flush()
					}
				}
				flush()
				assert.Equal(t, res.Tables[table].Items, datasettest.Count(t, tg, table), table)
			}
		})
	}
}
