package output

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// TestDeterministicFiles: the same seed gives the same objects and
// manifest, byte for byte, whatever the number of workers, objects
// rotating at the unit budget alike.
func TestDeterministicFiles(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 7)
			var first map[string][]byte
			for _, w := range []int{1, 2, 5} {
				got, _ := files(t, p, FileOptions{Dir: t.TempDir(), Format: "s3-import", Compression: "zstd", ObjectUnits: 5000}, dataset.RunOptions{Workers: w})
				require.Greater(t, len(got), 2, "several objects and a manifest")
				if first == nil {
					first = got
					continue
				}
				datasettest.Same(t, first, got, fmt.Sprintf("%d workers", w))
			}
		})
	}
}

// TestImportFiles: every line is {"Item": ...} in DynamoDB JSON that the
// project's decoder reads, the keys are unique, and the manifest's
// counts, bytes and checksums are those of the objects.
func TestImportFiles(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path), 1)
			dir := t.TempDir()
			fs, res := files(t, p, FileOptions{Dir: dir, Format: "s3-import", Compression: "zstd", ObjectUnits: 3000}, dataset.RunOptions{})
			var m Manifest
			require.NoError(t, json.Unmarshal(fs["manifest.json"], &m))
			require.NotEmpty(t, m.Tables)
			for _, tm := range m.Tables {
				assert.Equal(t, "DYNAMODB_JSON", tm.InputFormat)
				assert.Equal(t, "ZSTD", tm.InputCompressionType)
				require.Greater(t, len(tm.Objects), 1, "objects rotate at the unit budget")
				var items int64
				seen := map[string]bool{}
				for _, o := range tm.Objects {
					require.True(t, strings.HasPrefix(o.Key, tm.KeyPrefix), o.Key)
					b := fs[o.Key]
					sum := sha256.Sum256(b)
					assert.Equal(t, hex.EncodeToString(sum[:]), o.SHA256)
					assert.Equal(t, int64(len(b)), o.CompressedBytes)
					raw := datasettest.Decompress(t, o.Key, b)
					assert.Equal(t, int64(len(raw)), o.Bytes)
					sc := bufio.NewScanner(bytes.NewReader(raw))
					sc.Buffer(nil, 1<<20)
					n := int64(0)
					for sc.Scan() {
						var wrap struct{ Item json.RawMessage }
						require.NoError(t, json.Unmarshal(sc.Bytes(), &wrap))
						it, err := attr.DecodeItem(wrap.Item)
						require.NoError(t, err)
						pk, _ := it.Get(p.Model.Table(tm.Table).PartitionKey)
						sk, _ := it.Get(p.Model.Table(tm.Table).SortKey)
						k := pk.Str + "\x00" + sk.Str
						require.False(t, seen[k], "key repeated: %s %s", pk.Str, sk.Str)
						seen[k] = true
						n++
					}
					assert.Equal(t, o.Items, n, o.Key)
					items += n
				}
				assert.Equal(t, tm.Items, items)
				assert.Equal(t, res.Tables[tm.Table].Items, items)
			}
		})
	}
}
