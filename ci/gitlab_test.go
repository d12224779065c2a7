package ci_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// template is the GitLab CI template, as far as the runner reads it.
type template struct {
	Variables map[string]string
	Job       struct {
		Image        string
		BeforeScript []string `yaml:"before_script"`
		Script       []string
		Artifacts    struct {
			When    string
			Paths   []string
			Reports map[string]string
		}
	} `yaml:"cardapio-budget"`
}

func readTemplate(t *testing.T) *template {
	t.Helper()
	var tp template
	readYAML(t, "ci/gitlab/cardapio.gitlab-ci.yml", &tp)
	require.NotEmpty(t, tp.Job.Script)
	return &tp
}

// runJob runs the job's scripts as a GitLab runner does (the commands in
// one shell that stops at the first failure), in the project ws, with
// the template's variables overridden by vars and the variables GitLab
// gives. shell is the runner's shell: bash, or the POSIX sh of an image
// without it.
func runJob(t *testing.T, shell, ws string, vars map[string]string) (string, int) {
	t.Helper()
	tp := readTemplate(t)
	env := map[string]string{
		"CI": "true", "GITLAB_CI": "true", "CI_PROJECT_DIR": ws, "CI_JOB_NAME": "cardapio-budget",
		"CI_COMMIT_SHA": strings.Repeat("b", 40), "CI_PIPELINE_SOURCE": "merge_request_event",
		"CI_MERGE_REQUEST_IID": "7", "CI_SERVER_URL": "https://gitlab.example.com", "TMPDIR": t.TempDir(),
	}
	for k, v := range tp.Variables {
		env[k] = v
	}
	for k, v := range vars {
		_, ok := tp.Variables[k]
		require.True(t, ok, "the template has no variable %s", k)
		env[k] = v
	}
	text := strings.Join(append(append([]string{}, tp.Job.BeforeScript...), tp.Job.Script...), "\n")
	if shell == "bash" {
		return script(t, "bash", text, ws, env, "--noprofile", "--norc", "-eo", "pipefail")
	}
	if sh, err := filepath.EvalSymlinks("/bin/sh"); err != nil || !strings.Contains(sh, "dash") {
		t.Skip("no dash as /bin/sh to hold the script to POSIX sh")
	}
	return script(t, "/bin/sh", text, ws, env, "-e")
}

// reports holds the job's artifacts to what GitLab reads: the JUnit and
// the code quality report where the template says, among the artifacts
// kept on failure too.
func reports(t *testing.T, ws string) []map[string]any {
	t.Helper()
	tp := readTemplate(t)
	assert.Equal(t, "always", tp.Job.Artifacts.When, "reports kept when the gate fails")
	for _, kind := range []string{"junit", "codequality"} {
		p := tp.Job.Artifacts.Reports[kind]
		require.NotEmpty(t, p, kind)
		covered := false
		for _, a := range tp.Job.Artifacts.Paths {
			covered = covered || strings.HasPrefix(p, a)
		}
		assert.True(t, covered, "%s is among the artifacts", p)
	}
	data, err := os.ReadFile(filepath.Join(ws, tp.Job.Artifacts.Reports["junit"]))
	require.NoError(t, err, "the JUnit report GitLab reads is a file the job wrote")
	var suites struct {
		XMLName xml.Name
	}
	require.NoError(t, xml.Unmarshal(data, &suites))
	assert.Equal(t, "testsuites", suites.XMLName.Local)
	data, err = os.ReadFile(filepath.Join(ws, tp.Job.Artifacts.Reports["codequality"]))
	require.NoError(t, err, "the code quality report GitLab reads is a file the job wrote")
	var issues []map[string]any
	require.NoError(t, json.Unmarshal(data, &issues), "a JSON array of issues")
	for _, f := range []string{"budget.md", "budget.sarif", "budget.txt"} {
		_, err := os.Stat(filepath.Join(ws, "cardapio-reports", f))
		assert.NoError(t, err, f)
	}
	return issues
}

func TestGitLabPasses(t *testing.T) {
	for _, shell := range []string{"bash", "sh"} {
		for _, model := range []string{"model.yaml", "examples/orders/model.yaml"} {
			t.Run(shell+"/"+model, func(t *testing.T) {
				ws := repo(t, model)
				log, code := runJob(t, shell, ws, map[string]string{"CARDAPIO_MODEL": model, "CARDAPIO_BIN": "cardapio"})
				require.Equal(t, 0, code, log)
				assert.Empty(t, reports(t, ws), "no issue")
				assert.Contains(t, log, "cardapio budget: exit 0")
			})
		}
	}
}

// TestGitLabFails: a model over its budget fails the job with exit 3,
// its issues in the code quality report at their lines of the model.
func TestGitLabFails(t *testing.T) {
	const model = "docs/tutorial/clinic-bigger-page.yaml"
	for _, shell := range []string{"bash", "sh"} {
		t.Run(shell, func(t *testing.T) {
			ws := repo(t, model)
			copyBin(t, filepath.Join(ws, "tools", "cardapio"))
			// From a subdirectory: paths stay relative to the project,
			// the binary's too.
			log, code := runJob(t, shell, ws, map[string]string{
				"CARDAPIO_MODEL": "clinic-bigger-page.yaml", "CARDAPIO_DIR": "docs/tutorial",
				"CARDAPIO_BIN": "./tools/cardapio", "CARDAPIO_ARGS": "--retries 0\n--only FreeSlots",
			})
			require.Equal(t, 3, code, log)
			issues := reports(t, ws)
			require.NotEmpty(t, issues)
			for _, x := range issues {
				loc := x["location"].(map[string]any)
				assert.Equal(t, model, loc["path"])
			}
			assert.Contains(t, log, "FAIL FreeSlots/page")
		})
	}
}

// TestGitLabHostileVariables: a model's path and arguments that would
// run commands, were they shell code, are words.
func TestGitLabHostileVariables(t *testing.T) {
	for _, shell := range []string{"bash", "sh"} {
		t.Run(shell, func(t *testing.T) {
			ws := repo(t)
			copyFile(t, filepath.Join(root, "docs/tutorial/clinic.yaml"), filepath.Join(ws, hostileModel))
			log, code := runJob(t, shell, ws, map[string]string{"CARDAPIO_MODEL": hostileModel, "CARDAPIO_BIN": "cardapio"})
			assert.Equal(t, 0, code, log)
			log, code = runJob(t, shell, ws, map[string]string{
				"CARDAPIO_MODEL": hostileModel, "CARDAPIO_BIN": "cardapio", "CARDAPIO_ARGS": "* $(touch " + pwned + ") ;touch " + pwned,
			})
			assert.Equal(t, 2, code, "cardapio refused the words\n%s", log)
			assert.Contains(t, log, "received 6", "five words, * not globbed")
			log, code = runJob(t, shell, ws, map[string]string{"CARDAPIO_VERSION": "latest; touch " + pwned})
			assert.Equal(t, 2, code, log)
			_, err := os.Stat(filepath.Join(ws, pwned))
			assert.ErrorIs(t, err, os.ErrNotExist, "no variable ran as shell")
		})
	}
}
