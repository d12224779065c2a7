package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCodeQuality: budget's GitLab code quality report holds the same
// findings as its SARIF, one issue per result, at the same lines, each
// with what GitLab requires of an issue; a run without a verdict says
// why in it too.
func TestCodeQuality(t *testing.T) {
	dir := t.TempDir()
	for model, exit := range map[string]int{
		"../../docs/tutorial/clinic.yaml":                              0,
		"../../docs/tutorial/clinic-bigger-page.yaml":                  3,
		"testdata/budget/regressions/orders-history-projects-all.yaml": 3,
		filepath.Join(dir, "missing.yaml"):                             2,
	} {
		t.Run(filepath.Base(model), func(t *testing.T) {
			cq, sf := filepath.Join(dir, "cq.json"), filepath.Join(dir, "b.sarif")
			r := runCLI([]string{"budget", "--strict", model, "--codequality", cq, "--sarif", sf, "--junit", os.DevNull}, nil)
			require.Equal(t, exit, r.code, r.stderr)
			var issues []struct {
				Description string `json:"description"`
				CheckName   string `json:"check_name"`
				Fingerprint string `json:"fingerprint"`
				Severity    string `json:"severity"`
				Location    struct {
					Path  string `json:"path"`
					Lines struct {
						Begin int `json:"begin"`
					} `json:"lines"`
				} `json:"location"`
			}
			data, err := os.ReadFile(cq)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &issues), "%s", data)
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string `json:"ruleId"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
								Region           struct{ StartLine int } `json:"region"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			data, err = os.ReadFile(sf)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &log))
			results := log.Runs[0].Results
			require.Len(t, issues, len(results), "one issue per SARIF result")
			if exit != 0 {
				assert.NotEmpty(t, issues)
			}
			seen := map[string]bool{}
			for i, x := range issues {
				pl := results[i].Locations[0].PhysicalLocation
				assert.Equal(t, "cardapio/"+results[i].RuleID, x.CheckName)
				assert.Equal(t, pl.Region.StartLine, x.Location.Lines.Begin)
				assert.Equal(t, pl.ArtifactLocation.URI, x.Location.Path, "relative to the repository's root, as GitLab reads it")
				assert.False(t, filepath.IsAbs(x.Location.Path))
				assert.Contains(t, []string{"info", "minor", "major", "critical", "blocker"}, x.Severity)
				assert.NotEmpty(t, x.Description)
				assert.NotContains(t, x.Description, "](1)", "no SARIF link markup")
				assert.False(t, seen[x.Fingerprint], "fingerprints are unique")
				seen[x.Fingerprint] = true
			}
		})
	}
}
