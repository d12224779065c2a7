package engine

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// PartitionHash places a key where the engine stores it: the first eight
// bytes of the table key and of a multi-attribute index entry.
func TestPartitionHashIsTheStoredOne(t *testing.T) {
	tb := &table{}
	tb.hash = keyAttr{name: "pk", typ: attr.S}
	tb.rng = &keyAttr{name: "sk", typ: attr.N}
	it := attr.Item{{Name: "day", Value: attr.Str("2026-09-25")}, {Name: "pk", Value: attr.Str("T#t001#D#9f2c")},
		{Name: "shard", Value: attr.Num("3")}, {Name: "sk", Value: attr.Num("7")}, {Name: "tenant", Value: attr.Str("t001")}}
	key, ok := tb.tableKey(nil, it)
	require.True(t, ok)
	assert.Equal(t, binary.BigEndian.Uint64(key), PartitionHash(attr.Str("T#t001#D#9f2c")))

	ix := &index{hash: []keyAttr{{name: "tenant", typ: attr.S}, {name: "day", typ: attr.S}, {name: "shard", typ: attr.N}}}
	entry := ix.entryKey(it, key)
	require.NotNil(t, entry)
	assert.Equal(t, binary.BigEndian.Uint64(entry), PartitionHash(attr.Str("t001"), attr.Str("2026-09-25"), attr.Num("3")))
	assert.NotEqual(t, PartitionHash(attr.Str("t001"), attr.Str("2026-09-25"), attr.Num("3")), PartitionHash(attr.Str("t001"), attr.Str("2026-09-25"), attr.Num("4")))
}
