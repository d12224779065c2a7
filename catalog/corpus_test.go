package catalog

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata")

// TestInvalidCorpus loads every model of testdata/invalid and compares
// the errors with the sibling .err file: the message, the position and
// the hint a user would see.
func TestInvalidCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 35)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			name := filepath.Base(f)
			_, err = Parse(name, data)
			require.Error(t, err, "the model should be rejected")
			var el ErrorList
			require.True(t, errors.As(err, &el), "a bad model returns an ErrorList")
			for _, e := range el {
				assert.GreaterOrEqual(t, e.Pos.Line, 1)
				assert.GreaterOrEqual(t, e.Pos.Col, 1)
				assert.NotContains(t, e.Msg, "catalog.")
				assert.NotContains(t, e.Msg, "map[")
			}
			got := el.Error() + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing %s: run go test -update", golden)
			assert.Equal(t, string(want), got)
		})
	}
}
