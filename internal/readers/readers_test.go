package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports"
)

// TestGitHubRules: each rule of code scanning the validator enforces
// fails a log that breaks it, so a regression of the SARIF writer
// fails the tests that read its logs.
func TestGitHubRules(t *testing.T) {
	errs := catalog.ErrorList{
		{Pos: catalog.Pos{Line: 3, Col: 5}, Path: "entities.E", Msg: "first"},
		{Pos: catalog.Pos{Line: 7, Col: 1}, Path: "tables.T", Msg: "second"},
	}
	var b bytes.Buffer
	require.NoError(t, reports.CheckErrorsSARIF(&b, "../../model.yaml", errs, errors.New("other")))
	valid := b.Bytes()
	require.NoError(t, GitHub(valid))

	type doc = map[string]any
	run := func(d doc) doc { return d["runs"].([]any)[0].(doc) }
	result := func(d doc, i int) doc { return run(d)["results"].([]any)[i].(doc) }
	for _, c := range []struct {
		name  string
		spoil func(d doc)
		want  string
	}{
		{"help", func(d doc) {
			delete(run(d)["tool"].(doc)["driver"].(doc)["rules"].([]any)[0].(doc), "help")
		}, "no help"},
		{"version", func(d doc) { delete(run(d)["tool"].(doc)["driver"].(doc), "version") }, "no version"},
		{"minus one", func(d doc) { run(d)["artifacts"].([]any)[0].(doc)["length"] = -1 }, "is -1"},
		{"rank", func(d doc) { result(d, 0)["rank"] = -1 }, "is -1"},
		{"fingerprint", func(d doc) { delete(result(d, 1)["partialFingerprints"].(doc), "primaryLocationLineHash") }, "primaryLocationLineHash"},
		{"category", func(d doc) { delete(run(d), "automationDetails") }, "automationDetails"},
		{"base", func(d doc) {
			delete(run(d)["artifacts"].([]any)[0].(doc)["location"].(doc), "uriBaseId")
		}, "no uriBaseId"},
		{"absolute", func(d doc) {
			run(d)["artifacts"].([]any)[0].(doc)["location"].(doc)["uri"] = "file:///x/model.yaml"
		}, "not relative"},
		{"end", func(d doc) {
			delete(result(d, 0)["locations"].([]any)[0].(doc)["physicalLocation"].(doc)["region"].(doc), "endLine")
		}, "end line"},
		{"suppressions", func(d doc) {
			result(d, 0)["suppressions"] = []any{doc{"kind": "external"}}
		}, "all or none"},
		{"link", func(d doc) { result(d, 0)["message"].(doc)["text"] = "see [there](4)" }, "does not have"},
	} {
		var d doc
		require.NoError(t, json.Unmarshal(valid, &d))
		c.spoil(d)
		data, err := json.Marshal(d)
		require.NoError(t, err)
		require.ErrorContains(t, GitHub(data), c.want, c.name)
	}

	// Two logs of one category cannot go up in one upload.
	dir := t.TempDir()
	a, bb := filepath.Join(dir, "a.sarif"), filepath.Join(dir, "b.sarif")
	require.NoError(t, os.WriteFile(a, valid, 0o644))
	require.NoError(t, os.WriteFile(bb, valid, 0o644))
	require.NoError(t, SARIF(a))
	require.ErrorContains(t, SARIF(a, bb), "share the category")
}
