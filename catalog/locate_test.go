package catalog

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineOf returns the text of a line of the reference model.
func lineOf(t *testing.T, n int) string {
	t.Helper()
	f, err := os.Open("../model.yaml")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for i := 1; s.Scan(); i++ {
		if i == n {
			return s.Text()
		}
	}
	t.Fatalf("no line %d", n)
	return ""
}

func TestLocate(t *testing.T) {
	m, err := Load("../model.yaml")
	require.NoError(t, err)
	op := m.Operations[0]
	require.NotEmpty(t, op.Budgets)
	b := op.Budgets[0]

	pos, ok := m.Locate("operations", op.Name, "budgets", b.Name, "wru")
	require.True(t, ok)
	assert.Equal(t, "../model.yaml", pos.File)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(lineOf(t, pos.Line)), "wru:"), lineOf(t, pos.Line))

	pos, ok = m.Locate("operations", op.Name, "steps", "1", "transaction", "items", "0")
	require.True(t, ok)
	assert.Contains(t, lineOf(t, pos.Line), "- id:")

	ix := m.Indexes[0]
	pos, ok = m.Locate("indexes", ix.Name, "projection")
	require.True(t, ok)
	assert.Contains(t, lineOf(t, pos.Line), "projection")

	// A path deeper than the document stops at the deepest value.
	deep, ok := m.Locate("operations", op.Name, "budgets", b.Name, "nothing-here")
	assert.False(t, ok)
	at, _ := m.Locate("operations", op.Name, "budgets", b.Name)
	assert.Equal(t, at, deep)
	_, ok = m.Locate("operations", op.Name, "steps", "99")
	assert.False(t, ok)
	_, ok = m.Locate("operations", op.Name, "steps", "x")
	assert.False(t, ok)
	var none *Model
	_, ok = none.Locate("tables")
	assert.False(t, ok)
}
