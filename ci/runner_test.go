// Package ci_test runs the steps of the GitHub Action (action.yml) and of
// the GitLab CI template (ci/gitlab) as written: each shell script with
// bash, in a copy of a repository, with the environment the CI system
// gives and the cardapio built from this tree on PATH. Steps that use
// third-party actions are not run; their inputs are checked to name the
// files the scripts wrote.
package ci_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/internal/testbin"
)

var (
	root string // the repository
	bin  string // the directory holding the cardapio built from the tree
)

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, "cardapio-ci-", &root, &bin))
}

// repo makes a repository with the given files of this tree at the same
// paths (a git repository, as a checkout is), and returns its path.
func repo(t *testing.T, files ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	for _, f := range files {
		copyFile(t, filepath.Join(root, f), filepath.Join(dir, f))
	}
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "init", "-q", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyBin puts the tree's cardapio at to, executable.
func copyBin(t *testing.T, to string) {
	t.Helper()
	copyFile(t, filepath.Join(bin, "cardapio"), to)
	if err := os.Chmod(to, 0o755); err != nil {
		t.Fatal(err)
	}
}

// script runs a step's script as the CI system does: shell (bash, or
// sh) with the given flags, in dir, with exactly env (nothing of the
// test's own environment but PATH, with cardapio built from the tree
// first).
func script(t *testing.T, shell, text, dir string, env map[string]string, flags ...string) (string, int) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shell, append(flags, f)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running the step: %v", err)
		}
		code = ee.ExitCode()
	}
	return out.String(), code
}

// outputs reads a GITHUB_OUTPUT file: name=value lines, and
// name<<DELIMITER blocks.
func outputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var v []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				v = append(v, lines[i])
			}
			out[name] = strings.Join(v, "\n")
			continue
		}
		if name, v, ok := strings.Cut(line, "="); ok {
			out[name] = v
		}
	}
	return out
}

// pwned is the file a hostile input would create, were it run as shell.
const pwned = "PWNED"

// hostileModel is a model path that runs a command if a script ever
// splices it into shell code.
var hostileModel = "m $(touch " + pwned + ") `touch " + pwned + "`;touch " + pwned + ".yaml"

var wordRE = regexp.MustCompile(`\S+`)
