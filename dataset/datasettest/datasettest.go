// Package datasettest holds what the tests of dataset and dataset/output
// both need: reading back compressed output, a model's scale for a small
// population, and an embedded engine to load into. It imports neither
// package, so that dataset's own tests can use it.
package datasettest

import (
	"bytes"
	"context"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
)

// Keys returns a map's keys in order.
func Keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Decompress reads b as its name's extension says (.zst, .gz, else as
// it is); concatenated frames or members are read as one stream.
func Decompress(t testing.TB, name string, b []byte) []byte {
	t.Helper()
	switch {
	case strings.HasSuffix(name, ".zst"):
		d, err := zstd.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		defer d.Close()
		out, err := io.ReadAll(d)
		require.NoError(t, err)
		return out
	case strings.HasSuffix(name, ".gz"):
		r, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		return out
	}
	return b
}

// EngineTarget is a fresh embedded engine with the model's tables, named
// as the model names them, reached with retry.
func EngineTarget(t testing.TB, m *catalog.Model, retry endpoint.Retry) *endpoint.Target {
	t.Helper()
	tg := endpoint.InProcess(engine.New(engine.Options{}), "", retry)
	_, err := tg.CreateTables(context.Background(), m, endpoint.TableOptions{ModelNames: true, Keys: catalog.KeysNative})
	require.NoError(t, err)
	return tg
}

// Count scans a table and counts its items.
func Count(t testing.TB, tg *endpoint.Target, table string) int64 {
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

// SmallScale gives a population of a few tens of thousands of items of the model
// at path (the examples, the catalog's corpus, the testdata models).
func SmallScale(p string) float64 {
	switch {
	case strings.HasSuffix(p, "dataset.yaml"):
		return 1
	case strings.Contains(p, "orders"):
		return 0.0005
	case strings.HasSuffix(p, "library.yaml"):
		return 0.1
	case strings.HasSuffix(p, "helpdesk.yaml"):
		return 0.05
	case strings.HasSuffix(p, "telemetry.yaml"):
		return 0.2
	case strings.HasSuffix(p, "courses.yaml"), strings.HasSuffix(p, "ridehail.yaml"):
		return 1
	case strings.HasSuffix(p, "credit.yaml"):
		return 0.1
	}
	return 0.0001
}

// Same fails unless two runs' outputs (file or object name -> bytes)
// name the same files with the same bytes; what names the second run.
func Same(t testing.TB, want, got map[string][]byte, what string) {
	t.Helper()
	require.Equal(t, Keys(want), Keys(got), what)
	for k := range want {
		assert.True(t, bytes.Equal(want[k], got[k]), "%s differs with %s", k, what)
	}
}
