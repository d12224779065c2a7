package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMigrateReferenceV1 upgrades the reference model as it stood at
// formatVersion 1, in place, and prices it: the cost per 1,000 contracts
// is the reference's, to the cent.
func TestMigrateReferenceV1(t *testing.T) {
	dir := t.TempDir()
	v1, err := os.ReadFile("../../migrate/testdata/lastro-v1.yaml")
	require.NoError(t, err)
	path := filepath.Join(dir, "model.yaml")
	require.NoError(t, os.WriteFile(path, v1, 0o640))

	out, errOut, code := runCheckCLI("check", path)
	require.Equal(t, ExitBadInput, code, out)
	assert.Contains(t, errOut, "run cardapio migrate "+path)

	out, errOut, code = runCheckCLI("migrate", path)
	require.Equal(t, ExitOK, code, errOut)
	assert.Empty(t, errOut)
	assert.Contains(t, out, path+": formatVersion 1 -> 2\n")
	assert.Contains(t, out, path+": scale.paydays -> scale.peaks")
	migrated, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(migrated), "\nformatVersion: 2\n")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm(), "the file keeps its mode")

	out, errOut, code = runCheckCLI("cost", path)
	require.Equal(t, ExitOK, code, errOut)
	ref, err := os.ReadFile("testdata/cost/reference.txt.golden")
	require.NoError(t, err)
	perThousand := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "per 1,000 of") {
				return l
			}
		}
		return ""
	}
	assert.Equal(t, "  per 1,000 of 8,000,000 contracts: US$ 0.0257 (2.57 US cents)", perThousand(string(ref)))
	assert.Equal(t, perThousand(string(ref)), perThousand(out))

	out, _, code = runCheckCLI("migrate", path)
	assert.Equal(t, ExitOK, code)
	assert.True(t, strings.HasPrefix(out, path+": "+path+" is already at formatVersion 2\n"), out)
	assert.Contains(t, out, path+": scenarios.midnight-0007.load[0].tenant: left as it is", "no attribute of the old scale tells the largest value: said again")
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(migrated), string(again), "a second migration changes nothing")

	_, errOut, code = runCheckCLI("migrate", filepath.Join(dir, "missing.yaml"))
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "missing.yaml")
}

// TestMigrateStdout prints instead of writing.
func TestMigrateStdout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.yaml")
	src := "formatVersion: 1\nname: x\ntables: {t: {partitionKey: PK}}\nattributes: {PK: {type: S, description: key}}\nentities: {E: {key: {PK: \"E#{PK}\"}, attributes: {}}}\naccessPatterns: {}\nscale: {contracts: 10}\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	out, errOut, _ := runCheckCLI("migrate", "--stdout", path)
	assert.Contains(t, out, "scale: {businessUnit: {name: contracts, count: 10}}\n")
	assert.Contains(t, errOut, "formatVersion 1 -> 2")
	same, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, src, string(same), "--stdout leaves the file alone")
}

// TestMigrateSaysWhatIsMissing: a formatVersion 1 model whose measured
// operation has parameters without samples migrates, and migrate names
// each sample the new format needs and it could not infer, at its line,
// exit 2; check and budget say the same before anything runs.
func TestMigrateSaysWhatIsMissing(t *testing.T) {
	src, err := os.ReadFile("../../catalog/testdata/valid/indexed.yaml")
	require.NoError(t, err)
	v1 := strings.Replace(string(src), "      shipDate: {sample: \"2026-01-02\"}\n      shard: {sample: 1}\n", "      shipDate: {}\n      shard: {}\n", 1)
	require.NotEqual(t, string(src), v1)
	path := filepath.Join(t.TempDir(), "model.yaml")
	require.NoError(t, os.WriteFile(path, []byte(v1), 0o644))
	_, errOut, code := runCheckCLI("migrate", path)
	require.Equal(t, ExitBadInput, code, errOut)
	assertPositioned(t, errOut)
	for _, prm := range []string{"shipDate", "shard"} {
		assert.Contains(t, errOut, "operations.ShippedOn.params."+prm+": parameter "+prm+" of ShippedOn has no sample")
	}
	for _, cmd := range []string{"check", "budget"} {
		_, errOut, code = runCheckCLI(cmd, path)
		assert.Equal(t, ExitBadInput, code, "%s: %s", cmd, errOut)
		assert.Contains(t, errOut, "parameter shard of ShippedOn has no sample", cmd)
	}
}
