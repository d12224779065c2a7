package catalog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withAcknowledge returns the parking model of diff's tests with the
// given acknowledge section in place of its own, and the section's first
// line.
func withAcknowledge(t *testing.T, section string) ([]byte, int) {
	t.Helper()
	data, err := os.ReadFile("../diff/testdata/parking/head.yaml")
	require.NoError(t, err)
	text := string(data)
	text = text[:strings.Index(text, "\nacknowledge:")+1]
	return []byte(text + section), strings.Count(text, "\n") + 1
}

func TestAcknowledge(t *testing.T) {
	data, _ := withAcknowledge(t, "acknowledge:\n  - change: entities.PERMIT\n    why: rewritten\n  - change: api.Client.PK02\n    why: no caller\n")
	m, err := Parse("head.yaml", data)
	require.NoError(t, err)
	require.Len(t, m.Acknowledged, 2)
	for path, want := range map[string]bool{
		"entities.PERMIT":        true,
		"entities.PERMIT.key.SK": true,
		"entities.PERMITS":       false, // a segment, not a prefix of the text
		"api.Client.PK02":        true,
		"api.Client.PK02Input":   false,
		"accessPatterns.PK02":    false,
		"entities":               false,
	} {
		_, _, ok := m.Acknowledges(path)
		assert.Equal(t, want, ok, path)
	}
	a, i, ok := m.Acknowledges("entities.PERMIT.key.SK")
	require.True(t, ok)
	assert.Equal(t, "rewritten", a.Why)
	pos, ok := m.Locate("acknowledge", "0")
	require.True(t, ok)
	assert.Equal(t, 0, i)
	assert.Positive(t, pos.Line)
}

func TestAcknowledgeRefused(t *testing.T) {
	for name, c := range map[string]struct {
		section string
		line    int // of the section
		want    string
	}{
		"covered":     {"acknowledge:\n  - change: entities.PERMIT\n    why: a\n  - change: entities.PERMIT.key.SK\n    why: b\n", 4, `"entities.PERMIT.key.SK" is already acknowledged by "entities.PERMIT"`},
		"repeated":    {"acknowledge:\n  - change: api.Client.PK02\n    why: a\n  - change: api.Client.PK02\n    why: b\n", 4, "already acknowledged"},
		"no why":      {"acknowledge:\n  - change: api.Client.PK02\n", 2, "why"},
		"empty why":   {"acknowledge:\n  - change: api.Client.PK02\n    why: \"\"\n", 3, ""},
		"bad section": {"acknowledge:\n  - change: budgets.X\n    why: a\n", 2, ""},
		"one segment": {"acknowledge:\n  - change: entities\n    why: a\n", 2, ""},
		"spaces":      {"acknowledge:\n  - change: entities.A B\n    why: a\n", 2, ""},
		"not a list":  {"acknowledge: entities.A\n", 1, ""},
	} {
		t.Run(name, func(t *testing.T) {
			data, first := withAcknowledge(t, c.section)
			_, err := Parse("head.yaml", data)
			var errs ErrorList
			require.True(t, errors.As(err, &errs), "%v", err)
			require.NotEmpty(t, errs)
			assert.Equal(t, first+c.line-1, errs[0].Pos.Line, errs.Error())
			assert.Contains(t, errs.Error(), c.want)
		})
	}
}
