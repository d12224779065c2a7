package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
)

func TestImportWorkbench(t *testing.T) {
	r := runCLI([]string{"import", "workbench", "../../examples/lastro/workbench.json"}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	_, err := catalog.Parse("imported.yaml", []byte(r.stdout))
	require.NoError(t, err)

	out := filepath.Join(t.TempDir(), "model.yaml")
	r = runCLI([]string{"import", "workbench", "../../examples/lastro/workbench.json", "--out", out}, nil)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	r = runCLI([]string{"check", out}, nil)
	assert.Equal(t, ExitOK, r.code, r.stderr)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"DataModel\": [\n  {\"TableName\": 7}]}"), 0o644))
	r = runCLI([]string{"import", "workbench", bad}, nil)
	assert.Equal(t, ExitBadInput, r.code)
	assertPositioned(t, r.stderr)
	assert.Contains(t, r.stderr, "bad.json:2:17: DataModel[0].TableName: want a string, got a number")
	assert.Empty(t, r.stdout)

	r = runCLI([]string{"import", "workbench", filepath.Join(t.TempDir(), "none.json")}, nil)
	assert.Equal(t, ExitBadInput, r.code)
	r = runCLI([]string{"import", "workbench"}, nil)
	assert.Equal(t, ExitBadInput, r.code)
}
