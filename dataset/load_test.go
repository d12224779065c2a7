package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
)

// engineTarget is a fresh embedded engine with the model's tables.
func engineTarget(t *testing.T, p *Population) *endpoint.Target {
	t.Helper()
	tg := endpoint.InProcess(engine.New(engine.Options{}), "", LoadRetry)
	_, err := tg.CreateTables(context.Background(), p.Model, endpoint.TableOptions{ModelNames: true, Keys: catalog.KeysNative})
	require.NoError(t, err)
	return tg
}

// count scans a table and counts its items.
func count(t *testing.T, tg *endpoint.Target, table string) int64 {
	t.Helper()
	var n int64
	pg := dynamodb.NewScanPaginator(tg.Client, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for pg.HasMorePages() {
		out, err := pg.NextPage(context.Background())
		require.NoError(t, err)
		n += int64(out.Count)
	}
	return n
}

// TestImportIntoEngine: the S3-import objects, decoded line by line with
// the DynamoDB-JSON decoder and written to the engine, give the
// manifest's counts (an import that loses or repeats an item would not).
func TestImportIntoEngine(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, smallScale(path)/2, 21)
			dir := t.TempDir()
			fs, _ := files(t, p, FileOptions{Dir: dir, Format: "s3-import", Compression: "zstd", ObjectUnits: 4000}, RunOptions{Workers: 2})
			var m Manifest
			require.NoError(t, json.Unmarshal(fs["manifest.json"], &m))
			tg := engineTarget(t, p)
			for _, tm := range m.Tables {
				var batch []types.WriteRequest
				flush := func() {
					if len(batch) == 0 {
						return
					}
					in := map[string][]types.WriteRequest{tm.Table: batch}
					for len(in[tm.Table]) > 0 {
						out, err := tg.Client.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: in})
						require.NoError(t, err)
						in = out.UnprocessedItems
					}
					batch = batch[:0]
				}
				for _, o := range tm.Objects {
					sc := bufio.NewScanner(bytes.NewReader(decompress(t, o.Key, fs[o.Key])))
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
				}
				flush()
				assert.Equal(t, tm.Items, count(t, tg, tm.Table), tm.Table)
			}
		})
	}
}

// TestLoad: a load writes exactly the population; a resumed load skips
// what its checkpoint records, and only that.
func TestLoad(t *testing.T) {
	p := population(t, models[0], smallScale(models[0])/2, 4)
	ctx := context.Background()
	tg := engineTarget(t, p)
	cpPath := filepath.Join(t.TempDir(), "load.checkpoint")
	fp := Fingerprint(p, 0, 1, tg.Name)
	cp, err := OpenCheckpoint(cpPath, fp, false, len(p.Blocks()))
	require.NoError(t, err)
	sink := NewLoadSink(ctx, p, LoadOptions{Client: tg.Client, Concurrency: 4, Checkpoint: cp, Rules: capacity.Default()})
	res, err := p.Run(ctx, sink, RunOptions{Workers: 2})
	require.NoError(t, err)
	table := p.Model.Tables[0].Name
	require.Equal(t, res.Tables[table].Items, count(t, tg, table))
	assert.Equal(t, res.Tables[table].Items, sink.Items.Load())
	assert.Equal(t, res.Blocks, cp.Len(), "every block is in the checkpoint")

	// Resumed: nothing left to do.
	cp2, err := OpenCheckpoint(cpPath, fp, true, len(p.Blocks()))
	require.NoError(t, err)
	sink2 := NewLoadSink(ctx, p, LoadOptions{Client: tg.Client, Concurrency: 4, Checkpoint: cp2, Rules: capacity.Default()})
	res2, err := p.Run(ctx, sink2, RunOptions{Workers: 2, Skip: cp2.Skip})
	require.NoError(t, err)
	assert.Zero(t, sink2.Items.Load())
	assert.Zero(t, res2.Tables[table].Items)

	// A checkpoint holding the first blocks only: a fresh engine gets
	// the rest, which with the first blocks' items is the whole.
	blocks := p.Blocks()
	require.Greater(t, len(blocks), 2)
	half := len(blocks) / 2
	data, _ := json.Marshal(checkpointFile{Fingerprint: fp, Done: [][2]int{{0, half - 1}}})
	require.NoError(t, os.WriteFile(cpPath, data, 0o644))
	cp3, err := OpenCheckpoint(cpPath, fp, true, len(p.Blocks()))
	require.NoError(t, err)
	fresh := engineTarget(t, p)
	sink3 := NewLoadSink(ctx, p, LoadOptions{Client: fresh.Client, Concurrency: 4, Checkpoint: cp3, Rules: capacity.Default()})
	res3, err := p.Run(ctx, sink3, RunOptions{Workers: 2, Skip: cp3.Skip})
	require.NoError(t, err)
	firstHalf, err := p.Run(ctx, &countSink{}, RunOptions{Skip: func(seq int) bool { return seq >= half }})
	require.NoError(t, err)
	assert.Equal(t, res.Tables[table].Items, res3.Tables[table].Items+firstHalf.Tables[table].Items)
	assert.Equal(t, res3.Tables[table].Items, count(t, fresh, table))

	// Another run's checkpoint is refused.
	_, err = OpenCheckpoint(cpPath, Fingerprint(p, 1, 2, tg.Name), true, len(p.Blocks()))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "another run"), err.Error())
}

// countSink only counts.
type countSink struct{}

func (countSink) Encoding() Encoding                   { return Encoding{Format: "jsonl", Compression: "none"} }
func (countSink) Write(context.Context, *Output) error { return nil }
func (countSink) Close(context.Context) error          { return nil }
