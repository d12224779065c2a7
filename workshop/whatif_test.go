package workshop

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhatIfEveryKind: each kind of what-if on a model no other test
// knows, judged as a saved version would be, then applied to the text
// with its comments kept.
func TestWhatIfEveryKind(t *testing.T) {
	text, err := os.ReadFile("testdata/rooms.yaml")
	require.NoError(t, err)
	snap := Check(load, "rooms.yaml", text).Complete(context.Background(), WorldOptions{Items: 50})
	require.True(t, snap.OK())
	edits, err := Edits(snap.Model, map[string][]string{
		"billing.space":        {"provisioned"},
		"consistent.RoomDay/0": {"true"},
		"projection.byMember":  {"KEYS_ONLY"},
		"shards.byMember":      {"4"}, // not sharded: refused below
	})
	require.Error(t, err, "byMember declares no shards")
	edits, err = Edits(snap.Model, map[string][]string{
		"billing.space":           {"provisioned"},
		"consistent.RoomDay/0":    {"true"},
		"projection.byMember":     {"KEYS_ONLY"},
		"consistent.MyBookings/0": {"false"}, // a query of an index: not offered
	})
	require.Error(t, err)
	edits, err = Edits(snap.Model, map[string][]string{
		"billing.space":        {"provisioned"},
		"consistent.RoomDay/0": {"true"},
		"projection.byMember":  {"KEYS_ONLY"},
		"unknown.kind":         {"x"},
	})
	require.NoError(t, err)
	require.Len(t, edits, 3)

	o, err := WhatIf(context.Background(), load, snap, edits)
	require.NoError(t, err)
	require.Empty(t, o.Errors)
	require.Empty(t, o.Problem)
	changed := map[string]Compared{}
	for _, r := range o.Rows {
		changed[r.What] = r
	}
	// A strongly consistent read costs twice the eventual one: over the
	// budget declared for it.
	assert.Equal(t, "PASS 0 WRU, 0.5 RRU", changed["budget RoomDay/typical"].Before)
	assert.Equal(t, "FAIL 0 WRU, 1 RRU", changed["budget RoomDay/typical"].After)
	assert.True(t, changed["verdict"].Changed)

	m, err := load("rooms.yaml", o.Text)
	require.NoError(t, err)
	assert.Equal(t, "provisioned", m.Table("space").Billing.Mode)
	assert.NotNil(t, m.Table("space").Billing.Read)
	assert.True(t, m.Operation("RoomDay").Steps[0].Request.ConsistentRead)
	assert.Equal(t, "KEYS_ONLY", m.Index("byMember").Projection.Type)
	// Comments and the lines not edited are all there.
	var kept int
	for _, l := range strings.Split(string(text), "\n") {
		if strings.Contains(string(o.Text), l) {
			kept++
		}
	}
	assert.GreaterOrEqual(t, kept, len(strings.Split(string(text), "\n"))-3)
	assert.Contains(t, string(o.Text), "# Meeting rooms of a coworking space")
}
