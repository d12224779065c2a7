package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The no-version finding is decided from the model's writes: STOCK's lock
// is rev because Reserve checks and increments it (no attribute is named
// version), NOTE's is edition by its declared unit. A condition that
// merely mentions the word (":versionless") is not a lock check, and a
// create (attribute_not_exists(PK)) cannot overwrite.
func TestRaceFindings(t *testing.T) {
	m, err := Load("testdata/valid/races.yaml")
	require.NoError(t, err)
	var got []string
	for _, f := range m.Warnings {
		if f.Code == CodeNoVersion {
			got = append(got, f.String())
		}
	}
	assert.Equal(t, []string{
		"testdata/valid/races.yaml:63:9: operations.Recount.steps[0].update: an update of STOCK that does not check its lock rev: it can overwrite a concurrent change it never saw (the last writer silently wins) [no-version]\nhint: check it in the condition (rev = :expected) and change it in the update (rev = rev + :one)",
		"testdata/valid/races.yaml:79:9: operations.Touch.steps[0].update: an update of STOCK that checks rev but does not change it: a concurrent writer holding the same rev also succeeds [no-version]\nhint: change it in the update: rev = rev + :one",
		"testdata/valid/races.yaml:95:9: operations.Restock.steps[0].put: a put of STOCK that can replace an existing item whatever its rev: it can undo a concurrent change [no-version]\nhint: make it a create (attribute_not_exists(PK)), or check rev = :expected",
		"testdata/valid/races.yaml:106:9: operations.Retire.steps[0].delete: a delete of STOCK that does not check its lock rev: it can delete a change it never saw [no-version]\nhint: check it in the condition: rev = :expected",
		"testdata/valid/races.yaml:117:9: operations.Annotate.steps[0].update: an update of NOTE that does not check its lock edition: it can overwrite a concurrent change it never saw (the last writer silently wins) [no-version]\nhint: check it in the condition (edition = :expected) and change it in the update (edition = edition + :one)",
	}, got)

	// The reference model's writes all take part in their locks, but the
	// one it accepts in review (the instalment, whose transaction's
	// contract condition orders it).
	ref, err := Load("../model.yaml")
	require.NoError(t, err)
	for _, f := range ref.Warnings {
		if f.Accepted == "" {
			assert.NotEqual(t, CodeNoVersion, f.Code, f.String())
		}
	}
}
