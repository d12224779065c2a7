package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestData runs cardapio data end to end: files with their manifest and
// the summary, and the JSON summary agreeing with the manifest.
func TestData(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI([]string{"data", "../../model.yaml", "--scale", "0.00005", "--as-of", "2026-09-24", "--out", out, "--quiet"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "items at scale 5e-05, seed 1, as of 2026-09-24")
	assert.Contains(t, r.stdout, "importing from S3 instead")
	assert.Empty(t, r.stderr)
	_, err := os.Stat(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)

	out2 := filepath.Join(t.TempDir(), "out")
	r = runCLI([]string{"data", "../../model.yaml", "--scale", "0.00005", "--as-of", "2026-09-24", "--out", out2, "--quiet", "--summary", "json", "--compression", "gzip", "--part", "1/2"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	var rep struct {
		Summary struct {
			Items int64
			Part  int
			Parts int
		}
		Manifest struct {
			Tables []struct {
				Items   int64
				Objects []struct{ Key string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, 1, rep.Summary.Part)
	assert.Equal(t, 2, rep.Summary.Parts)
	require.NotEmpty(t, rep.Manifest.Tables)
	var items int64
	for _, tb := range rep.Manifest.Tables {
		items += tb.Items
		for _, o := range tb.Objects {
			assert.Regexp(t, `^[a-z-]+/data/part-0001-of-0002-[0-9]{5}\.json\.gz$`, o.Key)
		}
	}
	assert.Equal(t, rep.Summary.Items, items)
	_, err = os.Stat(filepath.Join(out2, "manifest-part-0001-of-0002.json"))
	require.NoError(t, err)

	// A load into the embedded engine.
	r = runCLI([]string{"data", "../../model.yaml", "--scale", "0.00002", "--as-of", "2026-09-24", "--serve", "--quiet"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "loading with BatchWriteItem")
}

// TestDataBadInput: flags and models that are wrong exit 2 with a plain
// message (or positioned errors), nothing on stdout.
func TestDataBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"no destination":   {"data", "../../model.yaml"},
		"two destinations": {"data", "../../model.yaml", "--out", dir, "--serve"},
		"bad scale":        {"data", "../../model.yaml", "--out", dir, "--scale", "-1"},
		"bad part":         {"data", "../../model.yaml", "--out", dir, "--part", "4/4"},
		"part not a part":  {"data", "../../model.yaml", "--out", dir, "--part", "x"},
		"bad format":       {"data", "../../model.yaml", "--out", dir, "--format", "csv"},
		"bad compression":  {"data", "../../model.yaml", "--out", dir, "--compression", "lz4"},
		"bad date":         {"data", "../../model.yaml", "--out", dir, "--as-of", "24/09/2026"},
		"resume to files":  {"data", "../../model.yaml", "--out", dir, "--resume"},
		"addr alone":       {"data", "../../model.yaml", "--out", dir, "--addr", "127.0.0.1:0"},
		"missing model":    {"data", filepath.Join(dir, "none.yaml"), "--out", dir},
		"bad summary":      {"data", "../../model.yaml", "--out", dir, "--summary", "xml"},
	} {
		r := runCLI(args, nil)
		assert.Equal(t, ExitBadInput, r.code, "%s: %s", name, r.stderr)
		assert.Empty(t, r.stdout, name)
		assert.NotEmpty(t, r.stderr, name)
		for _, l := range leaks {
			assert.NotContains(t, r.stderr, l, name)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("formatVersion: 1\nname: x\ntables: {t: {partitionKey: PK}}\nattributes: {PK: {type: S, description: k}}\nentities: {E: {key: {PK: \"E#{nope}\"}}}\naccessPatterns: {}\n"), 0o644))
	r := runCLI([]string{"data", bad, "--out", dir}, nil)
	assert.Equal(t, ExitBadInput, r.code, r.stderr)
	assertPositioned(t, r.stderr)
}
