package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemaDocumented walks the schema: every property has a description
// and every object with fixed properties rejects unknown ones.
func TestSchemaDocumented(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(JSON, &doc))
	var walk func(path string, node any)
	walk = func(path string, node any) {
		m, ok := node.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			assert.Equal(t, false, m["additionalProperties"], "%s: objects with fixed properties set additionalProperties: false", path)
			for name, p := range props {
				pm, _ := p.(map[string]any)
				assert.NotEmpty(t, pm["description"], "%s.%s has no description", path, name)
			}
		}
		for k, v := range m {
			switch x := v.(type) {
			case map[string]any:
				walk(path+"/"+k, x)
			case []any:
				for i, e := range x {
					walk(fmt.Sprintf("%s/%s/%d", path, k, i), e)
				}
			}
		}
	}
	walk("", doc)
	_, err := Compiled()
	require.NoError(t, err)
	assert.Contains(t, Properties("/$defs/index"), "partition")
	assert.Nil(t, Properties("/$defs/nothing"))
}
