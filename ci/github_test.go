package ci_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// action is action.yml, as far as the runner reads it.
type action struct {
	Inputs map[string]struct {
		Default string
	}
	Outputs map[string]struct {
		Value string
	}
	Runs struct {
		Using string
		Steps []step
	}
}

type step struct {
	Name             string
	ID               string
	If               string
	Uses             string
	Shell            string
	Run              string
	Env              map[string]string
	With             map[string]string
	WorkingDirectory string `yaml:"working-directory"`
	ContinueOnError  bool   `yaml:"continue-on-error"`
}

// readYAML reads the file of the tree at rel into v, as yaml.v3 does.
func readYAML(t *testing.T, rel string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, v))
}

func readAction(t *testing.T) *action {
	t.Helper()
	var a action
	readYAML(t, "action.yml", &a)
	require.Equal(t, "composite", a.Runs.Using)
	return &a
}

// ghRun is one run of the action: the contexts its expressions read.
type ghRun struct {
	t       *testing.T
	inputs  map[string]string
	steps   map[string]map[string]string
	env     map[string]string // what the runner gives every step
	ws      string            // GITHUB_WORKSPACE
	summary string
	ran     []string // names of the steps run
	used    []string // third-party actions reached
	failed  int      // the exit code of the step that failed the action
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value evaluates a context reference, or a quoted literal.
func (r *ghRun) value(ref string) string {
	ref = strings.TrimSpace(ref)
	switch {
	case strings.HasPrefix(ref, "'") && strings.HasSuffix(ref, "'"):
		return strings.Trim(ref, "'")
	case strings.HasPrefix(ref, "inputs."):
		v, ok := r.inputs[strings.TrimPrefix(ref, "inputs.")]
		require.True(r.t, ok, "unknown input %s", ref)
		return v
	case strings.HasPrefix(ref, "steps."):
		parts := strings.Split(ref, ".")
		require.Len(r.t, parts, 4, ref)
		require.Equal(r.t, "outputs", parts[2], ref)
		return r.steps[parts[1]][parts[3]]
	case ref == "github.token":
		return "fake-token"
	}
	r.t.Fatalf("an expression the runner of this test does not know: %s", ref)
	return ""
}

// expand replaces every ${{ ... }} of s.
func (r *ghRun) expand(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(exprRE.FindStringSubmatch(m)[1])
	})
}

// cond evaluates a step's if: terms joined by &&, each always(), a
// comparison == or != of a reference with a literal, or a reference.
func (r *ghRun) cond(s string) bool {
	s = strings.TrimSpace(exprRE.ReplaceAllString(s, "$1"))
	if s == "" {
		return r.failed == 0
	}
	always := false
	ok := true
	for _, term := range strings.Split(s, "&&") {
		term = strings.TrimSpace(term)
		switch {
		case term == "always()":
			always = true
		case strings.Contains(term, "!="):
			a, b, _ := strings.Cut(term, "!=")
			ok = ok && r.value(a) != r.value(b)
		case strings.Contains(term, "=="):
			a, b, _ := strings.Cut(term, "==")
			ok = ok && r.value(a) == r.value(b)
		default:
			ok = ok && r.value(term) != ""
		}
	}
	if !always && r.failed != 0 {
		return false
	}
	return ok
}

// runAction runs action.yml's steps in the workspace ws with the inputs
// given (the others take their defaults) and the event's variables.
func runAction(t *testing.T, ws string, with map[string]string, event map[string]string) *ghRun {
	t.Helper()
	a := readAction(t)
	r := &ghRun{t: t, inputs: map[string]string{}, steps: map[string]map[string]string{}, ws: ws}
	for k, in := range a.Inputs {
		r.inputs[k] = in.Default
	}
	r.inputs["github-token"] = "fake-token"
	for k, v := range with {
		_, ok := a.Inputs[k]
		require.True(t, ok, "no input %s", k)
		r.inputs[k] = v
	}
	temp := t.TempDir()
	r.summary = filepath.Join(temp, "step_summary.md")
	require.NoError(t, os.WriteFile(r.summary, nil, 0o644))
	r.env = map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux", "RUNNER_TEMP": temp,
		"GITHUB_WORKSPACE": ws, "GITHUB_STEP_SUMMARY": r.summary, "GITHUB_RUN_ID": "4242",
		"GITHUB_JOB": "gate", "GITHUB_REPOSITORY": "acme/shop", "GITHUB_EVENT_NAME": "push",
		"GITHUB_REF": "refs/heads/main", "GITHUB_SHA": strings.Repeat("a", 40),
	}
	for k, v := range event {
		r.env[k] = v
	}
	for i, s := range a.Runs.Steps {
		if !r.cond(s.If) {
			continue
		}
		r.ran = append(r.ran, s.Name)
		if s.Uses != "" {
			r.used = append(r.used, s.Uses)
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = r.expand(v)
			}
			checkUses(t, s.Uses, with)
			continue
		}
		require.Equal(t, "bash", s.Shell, "step %d", i)
		require.NotContains(t, s.Run, "${{", "step %q: no expression inside shell code", s.Name)
		env := map[string]string{}
		for k, v := range r.env {
			env[k] = v
		}
		for k, v := range s.Env {
			env[k] = r.expand(v)
		}
		out := filepath.Join(temp, "output-"+s.Name)
		require.NoError(t, os.WriteFile(out, nil, 0o644))
		env["GITHUB_OUTPUT"] = out
		dir := ws
		if s.WorkingDirectory != "" {
			dir = filepath.Join(ws, r.expand(s.WorkingDirectory))
		}
		// GitHub's own command line for shell: bash.
		log, code := script(t, "bash", s.Run, dir, env, "--noprofile", "--norc", "-eo", "pipefail")
		t.Logf("step %q exit %d\n%s", s.Name, code, log)
		if s.ID != "" {
			r.steps[s.ID] = outputs(t, out)
		}
		if code != 0 && !s.ContinueOnError && r.failed == 0 {
			r.failed = code
		}
	}
	return r
}

// output is an output of the action, as action.yml maps it.
func (r *ghRun) output(name string) string {
	a := readAction(r.t)
	o, ok := a.Outputs[name]
	require.True(r.t, ok, "no output %s", name)
	return r.expand(o.Value)
}

// checkUses holds a step that uses another action to the files the
// scripts wrote: the SARIF uploaded is one, under its own category; the
// JUnit published is one.
func checkUses(t *testing.T, uses string, with map[string]string) {
	t.Helper()
	name, _, _ := strings.Cut(uses, "@")
	switch name {
	case "github/codeql-action/upload-sarif":
		data, err := os.ReadFile(with["sarif_file"])
		require.NoError(t, err, "the SARIF uploaded is a file the gate wrote")
		var doc struct {
			Version string
			Runs    []struct {
				AutomationDetails struct{ ID string } `json:"automationDetails"`
			}
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		assert.Equal(t, "2.1.0", doc.Version)
		require.NotEmpty(t, doc.Runs)
		assert.Equal(t, doc.Runs[0].AutomationDetails.ID, with["category"], "uploaded under the file's own category")
		assert.True(t, strings.HasPrefix(with["category"], "cardapio/budget/"), with["category"])
	case "mikepenz/action-junit-report":
		data, err := os.ReadFile(with["report_paths"])
		require.NoError(t, err, "the JUnit published is a file the gate wrote")
		var suites struct {
			XMLName xml.Name
			Suites  []struct {
				Tests int `xml:"tests,attr"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal(data, &suites))
		assert.Equal(t, "testsuites", suites.XMLName.Local)
		assert.NotEmpty(t, suites.Suites)
	case "actions/setup-go":
		assert.NotEmpty(t, with["go-version"])
	default:
		t.Fatalf("a step uses %s, which this test does not know: say what its inputs must name", uses)
	}
}

func TestActionPasses(t *testing.T) {
	for _, model := range []string{"model.yaml", "examples/orders/model.yaml", "docs/tutorial/clinic.yaml"} {
		t.Run(model, func(t *testing.T) {
			ws := repo(t, model)
			r := runAction(t, ws, map[string]string{"model": model, "cardapio": "cardapio"}, nil)
			assert.Equal(t, 0, r.failed)
			assert.Equal(t, "0", r.output("exit-code"))
			assert.Equal(t, "pass", r.output("verdict"))
			assert.Equal(t, "cardapio/budget/"+model+"/", r.output("sarif-category"))
			assert.Equal(t, []string{"github/codeql-action/upload-sarif@v4", "mikepenz/action-junit-report@v5"}, r.used)
			assert.NotContains(t, r.ran, "Set up Go", "a binary given: nothing installed")
			summary, err := os.ReadFile(r.summary)
			require.NoError(t, err)
			assert.Contains(t, string(summary), "## cardapio budget:")
			assert.Contains(t, string(summary), "pass")
			for _, o := range []string{"junit", "markdown", "sarif"} {
				st, err := os.Stat(r.output(o))
				require.NoError(t, err, o)
				assert.NotZero(t, st.Size(), o)
			}
		})
	}
}

// TestActionFails: a model over its budget fails the action with the
// gate's exit, after every report is published.
func TestActionFails(t *testing.T) {
	const model = "docs/tutorial/clinic-bigger-page.yaml"
	ws := repo(t, model)
	r := runAction(t, ws, map[string]string{"model": model, "cardapio": "cardapio"}, nil)
	assert.Equal(t, 3, r.failed, "the action fails as the gate does")
	assert.Equal(t, "3", r.output("exit-code"))
	assert.Equal(t, "fail", r.output("verdict"))
	assert.Len(t, r.used, 2, "SARIF and JUnit published on failure too")
	assert.Equal(t, "Verdict", r.ran[len(r.ran)-1])
	summary, _ := os.ReadFile(r.summary)
	assert.Contains(t, string(summary), "FreeSlots/page")
}

// TestActionInvalid: a missing model is exit 2, with its reports.
func TestActionInvalid(t *testing.T) {
	ws := repo(t)
	r := runAction(t, ws, map[string]string{"model": "missing.yaml", "cardapio": "cardapio"}, nil)
	assert.Equal(t, 2, r.failed)
	assert.Equal(t, "invalid", r.output("verdict"))
	_, err := os.Stat(r.output("sarif"))
	assert.NoError(t, err, "SARIF on every exit")
}

// TestActionWorkingDirectory: the gate runs where it is told, the model
// relative to it; extra arguments are passed as words.
func TestActionWorkingDirectory(t *testing.T) {
	ws := repo(t, "docs/tutorial/clinic.yaml")
	copyBin(t, filepath.Join(ws, "tools", "cardapio"))
	r := runAction(t, ws, map[string]string{
		"model": "clinic.yaml", "working-directory": "docs/tutorial", "cardapio": "./tools/cardapio",
		"strict": "false", "args": "--only   BookSlot\n--retries 0",
	}, nil)
	assert.Equal(t, 0, r.failed)
	assert.Equal(t, "cardapio/budget/docs/tutorial/clinic.yaml/", r.output("sarif-category"))
	md, err := os.ReadFile(r.output("markdown"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "BookSlot/booked")
	assert.NotContains(t, string(md), "CancelAppointment", "--only reached the gate")
}

// TestActionHostileInput: a model's path and extra arguments that would
// run commands, were they ever spliced into a script, are only words.
func TestActionHostileInput(t *testing.T) {
	ws := repo(t)
	copyFile(t, filepath.Join(root, "docs/tutorial/clinic.yaml"), filepath.Join(ws, hostileModel))
	r := runAction(t, ws, map[string]string{
		"model": hostileModel, "cardapio": "cardapio",
		"args": "--only $(touch " + pwned + ") ;touch " + pwned,
	}, nil)
	_, err := os.Stat(filepath.Join(ws, pwned))
	assert.ErrorIs(t, err, os.ErrNotExist, "no input ran as shell")
	assert.Equal(t, "2", r.output("exit-code"), "cardapio refused the words as arguments")
	r = runAction(t, ws, map[string]string{"model": hostileModel, "cardapio": "cardapio"}, nil)
	assert.Equal(t, "0", r.output("exit-code"), "the model at its odd path is gated")
	_, err = os.Stat(filepath.Join(ws, pwned))
	assert.ErrorIs(t, err, os.ErrNotExist)
	// Without a binary, Go is set up and the version checked before
	// go install sees it.
	r = runAction(t, ws, map[string]string{"model": "model.yaml", "version": "latest; touch " + pwned}, nil)
	assert.Equal(t, 2, r.failed, "a version that is not one is refused")
	assert.Equal(t, []string{"actions/setup-go@v5"}, r.used)
	r = runAction(t, ws, map[string]string{"model": "model.yaml", "cardapio": "$(touch " + pwned + ")"}, nil)
	assert.Equal(t, 2, r.failed, "a binary that is not one is refused")
	_, err = os.Stat(filepath.Join(ws, pwned))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// fakeGH is a gh on PATH that answers the comment calls as GitHub's API
// does and logs them: the list returns the ids of the comments made.
const fakeGH = `#!/usr/bin/env bash
set -eu
echo "$*" >> "$FAKE_GH/log"
body=""
for a in "$@"; do case "$a" in body=@*) body=${a#body=@} ;; esac; done
case "$*" in
  *"--paginate repos/acme/shop/issues/7/comments"*) cat "$FAKE_GH/ids" 2>/dev/null || true ;;
  *"--method POST repos/acme/shop/issues/7/comments"*) echo 1001 >> "$FAKE_GH/ids"; cp "$body" "$FAKE_GH/comment-1001" ;;
  *"--method PATCH repos/acme/shop/issues/comments/"*) id=${*##*/comments/}; id=${id%% *}; cp "$body" "$FAKE_GH/comment-$id" ;;
  *) echo "unexpected gh call: $*" >&2; exit 1 ;;
esac
`

// TestActionComment: on a pull request, the Markdown becomes one
// comment, updated by the next run rather than added again.
func TestActionComment(t *testing.T) {
	const model = "docs/tutorial/clinic-bigger-page.yaml"
	ws := repo(t, model)
	fake := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755))
	defer os.Remove(filepath.Join(bin, "gh"))
	pr := map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/7/merge", "FAKE_GH": fake}
	for range 2 {
		r := runAction(t, ws, map[string]string{"model": model, "cardapio": "cardapio"}, pr)
		assert.Equal(t, 3, r.failed)
	}
	log, err := os.ReadFile(filepath.Join(fake, "log"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(log), "--method POST"), "one comment made\n%s", log)
	assert.Equal(t, 1, strings.Count(string(log), "--method PATCH repos/acme/shop/issues/comments/1001"), "then updated\n%s", log)
	body, err := os.ReadFile(filepath.Join(fake, "comment-1001"))
	require.NoError(t, err)
	assert.Regexp(t, `^<!-- cardapio-budget [0-9a-f]{16} -->\n## cardapio budget:`, string(body))
	assert.Contains(t, string(body), "FreeSlots/page")

	// Not a pull request: no call.
	require.NoError(t, os.Remove(filepath.Join(fake, "log")))
	runAction(t, ws, map[string]string{"model": model, "cardapio": "cardapio"}, map[string]string{"FAKE_GH": fake})
	_, err = os.Stat(filepath.Join(fake, "log"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestActionScriptsTakeNoExpressions: every input reaches the scripts
// through env; no run: holds an expression (GitHub's script-injection
// rule), and every env value that does is a plain reference.
func TestActionScriptsTakeNoExpressions(t *testing.T) {
	a := readAction(t)
	ref := regexp.MustCompile(`^\$\{\{ (inputs|steps\.[a-z]+\.outputs)\.[a-z-]+ \}\}$`)
	for _, s := range a.Runs.Steps {
		assert.NotContains(t, s.Run, "${{", s.Name)
		for k, v := range s.Env {
			if strings.Contains(v, "${{") {
				assert.Regexp(t, ref, v, "%s: %s", s.Name, k)
			}
		}
	}
}
