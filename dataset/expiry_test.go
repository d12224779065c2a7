package dataset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestExpiryNote: a load of a population drawn before today into a
// target whose tables expire its items is warned that a sweep deletes
// those already past (a sensors model served with the default sweep
// kept 12 of its 23,933 readings' table items, with nothing said).
func TestExpiryNote(t *testing.T) {
	ref := loadModel(t, "../model.yaml")
	later := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	note := ExpiryNote(ref, "2026-09-24", later)
	assert.Contains(t, note, "as of 2026-09-24, before today")
	assert.Contains(t, note, "--ttl-sweep 0")
	assert.Empty(t, ExpiryNote(ref, "2026-12-01", later), "drawn as of today")
	assert.Empty(t, ExpiryNote(loadModel(t, "testdata/rendered.yaml"), "2026-09-24", later), "no table expires items")
}
