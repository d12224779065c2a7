package yamltext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const doc = `# head comment
tables:
  t:
    # the billing
    billing: {mode: onDemand}   # trailing
    other: {mode: onDemand, why: "a, b"}
    key: "PK" # quoted
indexes:
  X:
    projection:
      type: INCLUDE
      attributes: [a, b]   # projected
    shards:
      count: 16 # why sixteen
steps:
  - id: s1
    get:
      entity: E
`

func TestSet(t *testing.T) {
	for _, c := range []struct {
		path  []string
		value string
		want  string
	}{
		{[]string{"indexes", "X", "shards", "count"}, "32", "      count: 32 # why sixteen\n"},
		{[]string{"tables", "t", "billing", "mode"}, "provisioned", "    billing: {mode: provisioned}   # trailing\n"},
		{[]string{"tables", "t", "key"}, "SK", "    key: SK # quoted\n"},
		{[]string{"tables", "t", "billing", "read"}, "{units: 5}", "    billing: {mode: onDemand, read: {units: 5}}   # trailing\n"},
		{[]string{"tables", "t", "other", "write"}, "{units: 2}", "    other: {mode: onDemand, write: {units: 2}, why: \"a, b\"}\n"},
		{[]string{"steps", "0", "get", "consistentRead"}, "true", "      entity: E\n      consistentRead: true\n"},
	} {
		out, err := Set([]byte(doc), c.path, c.value)
		require.NoError(t, err, c.path)
		// The edited line changes; every other byte, comments
		// included, stays.
		assert.Equal(t, strings.Replace(doc, was(c.want), c.want, 1), string(out), c.path)
	}
	_, err := Set([]byte(doc), []string{"indexes", "Y", "count"}, "1")
	assert.Error(t, err)
	_, err = Set([]byte(doc), []string{"indexes", "X", "projection", "attributes"}, "1")
	assert.Error(t, err, "a list is not a scalar")
}

// was is the text of doc an edit replaces with want.
func was(want string) string {
	switch {
	case want == "      count: 32 # why sixteen\n":
		return "      count: 16 # why sixteen\n"
	case want == "    billing: {mode: provisioned}   # trailing\n", want == "    billing: {mode: onDemand, read: {units: 5}}   # trailing\n":
		return "    billing: {mode: onDemand}   # trailing\n"
	case strings.HasPrefix(want, "    other:"):
		return "    other: {mode: onDemand, why: \"a, b\"}\n"
	case want == "    key: SK # quoted\n":
		return "    key: \"PK\" # quoted\n"
	}
	return "      entity: E\n"
}

func TestDelete(t *testing.T) {
	out, err := Delete([]byte(doc), []string{"indexes", "X", "projection", "attributes"})
	require.NoError(t, err)
	assert.NotContains(t, string(out), "attributes")
	assert.Contains(t, string(out), "      type: INCLUDE\n    shards:\n")
	same, err := Delete([]byte(doc), []string{"indexes", "X", "projection", "nothing"})
	require.NoError(t, err)
	assert.Equal(t, doc, string(same))
	_, err = Delete([]byte(doc), []string{"tables", "t", "billing", "mode"})
	assert.Error(t, err, "the only entry of a flow mapping")
	for _, c := range []struct{ in, key, want string }{
		{"p: {type: INCLUDE, attributes: [a, \"b]\"]}  # kept\n", "attributes", "p: {type: INCLUDE}  # kept\n"},
		{"p: {type: INCLUDE, attributes: [a, b], x: 1}\n", "attributes", "p: {type: INCLUDE, x: 1}\n"},
		{"p: {attributes: {a: 1}, type: INCLUDE}\n", "attributes", "p: {type: INCLUDE}\n"},
	} {
		out, err := Delete([]byte(c.in), []string{"p", c.key})
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, string(out))
	}
}
