package archive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cardapio/cardapio/internal/input"
	"github.com/stretchr/testify/require"
)

// FuzzCheckpoint reads arbitrary bytes as a checkpoint file: refused as
// an input.Error or accepted, never a panic; an accepted one is saved and
// read back the same.
func FuzzCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":1,"from":"a-t","to":"b-t","streams":{"arn:aws:dynamodb:us-east-1:000000000000:table/a-t/stream/2026-01-01T00:00:00.000":{"shards":{"shardId-00000001767225600000-00000000":{"seq":"100000000000000000042"},"shardId-00000001767225600000-00000001":{"done":true}}}}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"from":"a-t","to":"b-t","streams":{"arn:x":null}}`))
	f.Add([]byte(`{"version":1,"from":"a-t","to":"b-t","streams":{"arn:x":{"shards":{"s":null}}}} {}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "cp.json")
		require.NoError(t, os.WriteFile(path, b, 0o644))
		cp, err := loadCheckpoint(path, "a-t", "b-t")
		if err != nil {
			var ie *input.Error
			require.ErrorAs(t, err, &ie)
			return
		}
		cp.dirty = true
		require.NoError(t, cp.save())
		again, err := loadCheckpoint(path, "a-t", "b-t")
		require.NoError(t, err)
		require.Equal(t, cp.f, again.f)
	})
}
