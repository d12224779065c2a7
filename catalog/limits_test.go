package catalog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
)

// TestSampleLimits: DynamoDB refuses an item over 400 KB and key values
// over 2,048 (partition) or 1,024 (sort) bytes; a sample that breaks one
// is an error at the sample (capacity-rules.md 1.6).
func TestSampleLimits(t *testing.T) {
	base, err := os.ReadFile("testdata/valid/minimal.yaml")
	require.NoError(t, err)
	model := func(note string) []byte {
		m := strings.Replace(string(base), "  orderId: {type: S, description: order}", "  orderId: {type: S, description: order}\n  note: {type: S, description: note}", 1)
		m = strings.Replace(m, "      total: required\n", "      total: required\n      note: optional\n", 1)
		return []byte(strings.Replace(m, "total: 1250}", "total: 1250, note: "+note+"}", 1))
	}
	opts := Options{ItemSize: capacity.Default().ItemSize}

	// The sample with an empty note, then a note that brings it to the
	// limit, then one byte more.
	m, err := ParseWith("empty.yaml", model(`""`), opts)
	require.NoError(t, err)
	room := 409600 - capacity.Default().ItemSize(m.Entities[0].Samples[0].Item)
	_, err = ParseWith("fits.yaml", model(strings.Repeat("x", room)), opts)
	require.NoError(t, err, "exactly 400 KB fits")

	_, err = ParseWith("over.yaml", model(strings.Repeat("x", room+1)), opts)
	var el ErrorList
	require.True(t, errors.As(err, &el), "%v", err)
	require.Len(t, el, 1)
	assert.Equal(t, "over.yaml:26:7: entities.ORDER.samples.one: sample one of ORDER is 409601 bytes, over DynamoDB's item limit of 409600", el[0].Pos.String()+": "+el[0].Path+": "+el[0].Msg)

	_, err = ParseWith("nosize.yaml", model(strings.Repeat("x", 409600)), Options{})
	assert.NoError(t, err, "without a sizer, item sizes are not checked")

	key := strings.Replace(string(base), "one: {customerId: c1,", "one: {customerId: "+strings.Repeat("c", 2048-2+1)+",", 1)
	_, err = ParseWith("key.yaml", []byte(key), opts)
	require.True(t, errors.As(err, &el), "%v", err)
	assert.Equal(t, `key attribute PK of sample one is 2049 bytes, over DynamoDB's limit of 2048 for this key`, el[0].Msg)

	key = strings.Replace(string(base), "one: {customerId: c1, orderId: o1,", "one: {customerId: c1, orderId: "+strings.Repeat("o", 1024-2+1)+",", 1)
	_, err = ParseWith("sort.yaml", []byte(key), opts)
	require.True(t, errors.As(err, &el), "%v", err)
	assert.Equal(t, `key attribute SK of sample one is 1025 bytes, over DynamoDB's limit of 1024 for this key`, el[0].Msg)
}
