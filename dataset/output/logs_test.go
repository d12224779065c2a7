package output

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// cpfText finds CPFs: formatted, or a run of exactly 11 digits that is
// not the fraction of a decimal number.
var cpfText = regexp.MustCompile(`(?:^|[^0-9.])([0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}|[0-9]{11})(?:[^0-9]|$)`)

// TestNoPersonalDataInLogs runs the command's library on every model,
// to files and into the embedded engine, with progress lines on: no
// progress line, summary (text or JSON) or manifest holds a CPF or the
// value of an attribute marked pii (as stored, or in base64).
func TestNoPersonalDataInLogs(t *testing.T) {
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			p := population(t, path, datasettest.SmallScale(path)/4, 1)
			pii := map[string]bool{}
			for _, a := range p.Model.Attributes {
				if a.PII {
					pii[a.Name] = true
				}
			}
			var values []string
			items, err := p.Items()
			require.NoError(t, err)
			for _, it := range items {
				for _, f := range it.Item {
					if pii[f.Name] && len(f.Value.Str) >= 6 && len(values) < 5000 {
						values = append(values, f.Value.Str, base64.StdEncoding.EncodeToString([]byte(f.Value.Str)))
					}
				}
			}
			var logs bytes.Buffer
			for _, c := range []Config{
				{Out: t.TempDir(), Format: "jsonl", Compression: "none"},
				{Serve: true},
			} {
				c.Scale, c.Seed, c.AsOf, c.Progress = datasettest.SmallScale(path)/4, 1, "2026-09-24", &logs
				rep, err := Execute(context.Background(), p.Model, c)
				require.NoError(t, err)
				require.NoError(t, rep.Summary.Text(&logs))
				require.NoError(t, rep.JSON(&logs))
			}
			text := logs.String()
			assert.Contains(t, text, "data: ", "progress lines")
			if path == models[0] {
				require.NotEmpty(t, values, "the reference stores encrypted documents")
			}
			for _, m := range cpfText.FindAllStringSubmatch(text, -1) {
				assert.False(t, dataset.ValidCPF(m[1]), "a CPF in the logs: %s", m[1])
			}
			for _, v := range values {
				if strings.Contains(text, v) {
					t.Fatalf("a personal value in the logs: %q", v)
				}
			}
		})
	}
}
