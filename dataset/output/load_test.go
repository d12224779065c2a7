package output

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// TestLoad: a load writes exactly the population; a resumed load skips
// what its checkpoint records, and only that.
func TestLoad(t *testing.T) {
	p := population(t, models[0], datasettest.SmallScale(models[0])/2, 4)
	ctx := context.Background()
	tg := datasettest.EngineTarget(t, p.Model, dataset.LoadRetry)
	cpPath := filepath.Join(t.TempDir(), "load.checkpoint")
	fp := Fingerprint(p, 0, 1, tg.Name)
	cp, err := OpenCheckpoint(cpPath, fp, false, len(p.Blocks()))
	require.NoError(t, err)
	sink := dataset.NewLoadSink(ctx, p, dataset.LoadOptions{Client: tg.Client, Concurrency: 4, Checkpoint: cp, Rules: capacity.Default()})
	res, err := p.Run(ctx, sink, dataset.RunOptions{Workers: 2})
	require.NoError(t, err)
	table := p.Model.Tables[0].Name
	require.Equal(t, res.Tables[table].Items, datasettest.Count(t, tg, table))
	assert.Equal(t, res.Tables[table].Items, sink.Items.Load())
	assert.Equal(t, res.Blocks, cp.Len(), "every block is in the checkpoint")

	// Resumed: nothing left to do.
	cp2, err := OpenCheckpoint(cpPath, fp, true, len(p.Blocks()))
	require.NoError(t, err)
	sink2 := dataset.NewLoadSink(ctx, p, dataset.LoadOptions{Client: tg.Client, Concurrency: 4, Checkpoint: cp2, Rules: capacity.Default()})
	res2, err := p.Run(ctx, sink2, dataset.RunOptions{Workers: 2, Skip: cp2.Skip})
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
	fresh := datasettest.EngineTarget(t, p.Model, dataset.LoadRetry)
	sink3 := dataset.NewLoadSink(ctx, p, dataset.LoadOptions{Client: fresh.Client, Concurrency: 4, Checkpoint: cp3, Rules: capacity.Default()})
	res3, err := p.Run(ctx, sink3, dataset.RunOptions{Workers: 2, Skip: cp3.Skip})
	require.NoError(t, err)
	firstHalf, err := p.Run(ctx, &countSink{}, dataset.RunOptions{Skip: func(seq int) bool { return seq >= half }})
	require.NoError(t, err)
	assert.Equal(t, res.Tables[table].Items, res3.Tables[table].Items+firstHalf.Tables[table].Items)
	assert.Equal(t, res3.Tables[table].Items, datasettest.Count(t, fresh, table))

	// Another run's checkpoint is refused.
	_, err = OpenCheckpoint(cpPath, Fingerprint(p, 1, 2, tg.Name), true, len(p.Blocks()))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "another run"), err.Error())
}

// countSink only counts.
type countSink struct{}

func (countSink) Encoding() dataset.Encoding {
	return dataset.Encoding{Format: "jsonl", Compression: "none"}
}
func (countSink) Write(context.Context, *dataset.Output) error { return nil }
func (countSink) Close(context.Context) error                  { return nil }
