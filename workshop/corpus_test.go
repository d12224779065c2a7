package workshop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/internal/input"
)

// TestCorpus: whatever check accepts, the workshop shows and runs. On
// both examples, the independent and outside models and the tutorial's,
// every version the page would show is whole (verdict, month, items),
// every table and index is drawn, and every operation, question or write,
// runs on the engine with the values the page suggests: a refusal of the
// input is the only error allowed, and a write runs from its samples as
// the model says.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("draws and runs every model of the corpora")
	}
	var paths []string
	for _, g := range []string{"../model.yaml", "../examples/orders/model.yaml", "testdata/*.yaml", "../internal/cli/testdata/models/*.yaml",
		"../internal/cli/testdata/datamodels/*.yaml", "../docs/tutorial/*.yaml"} {
		ps, err := filepath.Glob(g)
		require.NoError(t, err)
		paths = append(paths, ps...)
	}
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			text, err := os.ReadFile(p)
			require.NoError(t, err)
			snap := Check(load, p, text)
			if !snap.OK() {
				t.Skipf("not a model check accepts: %v %s", snap.Errors, snap.Problem)
			}
			snap = snap.Complete(context.Background(), WorldOptions{Items: 100})
			assert.Empty(t, snap.BillErr)
			require.NotNil(t, snap.World)
			drawn := 0
			for _, tb := range snap.Model.Tables {
				drawn += 1 + len(tb.Indexes)
			}
			assert.Len(t, snap.World.Structures, drawn, snap.World.Note)
			v := newView(snap, "t")
			var b []byte
			b, err = (&Server{token: "t"}).render(snap, 0)
			require.NoError(t, err)
			assert.NotEmpty(t, b)
			for _, op := range v.Ops {
				q := Question{Operation: op.Name, Seed: op.Writes, Params: map[string]string{}}
				if !op.Writes && len(op.Suggestions) > 0 {
					q.Params = op.Suggestions[0].Values
				}
				a, err := snap.World.Ask(context.Background(), snap.Model, snap.Gate.Variants, q)
				if err != nil {
					var ie *input.Error
					assert.True(t, errors.As(err, &ie), "%s: %v", op.Name, err)
					continue
				}
				assert.NotEmpty(t, a.Requests, op.Name)
				if op.Writes {
					assert.True(t, a.OK, "%s from its samples: %s %s", op.Name, a.Outcome, a.Message)
				}
			}
		})
	}
}
