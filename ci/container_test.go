package ci_test

import (
	"bufio"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dockerfile is what the test reads of the Dockerfile: its stages' bases
// and the command of the build stage that runs go build.
type dockerfile struct {
	froms []string
	build string // the RUN line's command
	lines []string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	defer f.Close()
	var d dockerfile
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d.lines = append(d.lines, line)
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "FROM":
			d.froms = append(d.froms, rest)
		case "RUN":
			if strings.Contains(rest, "go build") {
				require.Empty(t, d.build, "one go build")
				d.build = rest
			}
		}
	}
	require.NoError(t, s.Err())
	return d
}

// words splits a shell command line as sh does for the plain words,
// single and double quotes of a Dockerfile's RUN line; anything else of
// the shell (expansions, operators) is refused, so the test runs exactly
// what the line says.
func words(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var b strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case strings.ContainsRune("$`;&|<>\\(){}*?", r):
			t.Fatalf("the build's RUN line uses shell beyond words (%q): the test cannot run it as written", r)
		default:
			b.WriteRune(r)
			in = true
		}
	}
	require.Zero(t, quote, "unbalanced quotes")
	if in {
		out = append(out, b.String())
	}
	return out
}

// buildAsDockerfile builds the binary exactly as the Dockerfile's build
// stage does (its environment assignments and go build arguments, from
// the repository's root as WORKDIR and COPY . . make it), into dir.
func buildAsDockerfile(t *testing.T, dir string) string {
	t.Helper()
	d := readDockerfile(t)
	require.Len(t, d.froms, 2)
	assert.True(t, strings.HasPrefix(d.froms[0], "golang:"), "a Go builder stage: %s", d.froms[0])
	assert.Equal(t, "scratch", d.froms[1], "the image is the binary on an empty base")
	assert.Contains(t, d.lines, "COPY --from=build /out/cardapio /cardapio")
	assert.Contains(t, d.lines, `ENTRYPOINT ["/cardapio"]`)
	w := words(t, d.build)
	var env []string
	for len(w) > 0 && strings.Contains(w[0], "=") {
		env = append(env, w[0])
		w = w[1:]
	}
	require.GreaterOrEqual(t, len(w), 2)
	require.Equal(t, []string{"go", "build"}, w[:2])
	assert.Contains(t, env, "CGO_ENABLED=0")
	assert.Contains(t, w, "-trimpath")
	args := append([]string{}, w[1:]...)
	out := filepath.Join(dir, "cardapio")
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			require.Equal(t, "/out/cardapio", args[i+1])
			args[i+1] = out
		}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// TestContainerBinary: the binary of the image is static (no program
// interpreter, no shared library), built without cgo and with trimmed
// paths, and runs with nothing of the system: an empty environment, in
// an empty directory (an empty root, when the test may chroot).
func TestContainerBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardapio")
	}
	dir := t.TempDir()
	bin := buildAsDockerfile(t, dir)

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "no program interpreter: the kernel runs it alone")
		assert.NotEqual(t, elf.PT_DYNAMIC, p.Type, "no dynamic section")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	assert.Empty(t, libs, "no DT_NEEDED: no shared library")
	info, err := buildinfo.ReadFile(bin)
	require.NoError(t, err)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	assert.Equal(t, "0", settings["CGO_ENABLED"])
	assert.Equal(t, "true", settings["-trimpath"])
	assert.Equal(t, "linux", settings["GOOS"])

	// An empty root: the binary, the model, nothing else. chroot needs
	// root; elsewhere the binary runs from an empty directory.
	rootfs := filepath.Join(dir, "rootfs")
	require.NoError(t, os.MkdirAll(filepath.Join(rootfs, "work"), 0o755))
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(rootfs, "cardapio"), data, 0o755))
	for model, name := range map[string]string{"docs/tutorial/clinic.yaml": "clinic.yaml", "model.yaml": "model.yaml", "examples/orders/model.yaml": "orders.yaml", "docs/tutorial/rides-questions.md": "questions.md"} {
		copyFile(t, filepath.Join(root, model), filepath.Join(rootfs, "work", name))
	}
	chroot := os.Geteuid() == 0
	for _, c := range []struct {
		args []string
		exit int
	}{
		{[]string{"check", "clinic.yaml"}, 0},
		{[]string{"check", "--strict", "model.yaml"}, 0},
		{[]string{"budget", "--strict", "orders.yaml", "--junit", "b.xml", "--sarif", "b.sarif", "--markdown", "b.md"}, 0},
		{[]string{"cost", "model.yaml"}, 0},
		{[]string{"init", "questions.md", "--out", "rides.yaml"}, 0},
		{[]string{"generate", "clinic.yaml", "--out", "gen"}, 0},
	} {
		cmd := exec.Command("/cardapio", c.args...)
		cmd.Env = []string{}
		if chroot {
			cmd.Dir = "/work"
			cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs}
		} else {
			cmd.Path = filepath.Join(rootfs, "cardapio")
			cmd.Dir = filepath.Join(rootfs, "work")
		}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, c.exit, code, "%v (chroot %v)\n%s", c.args, chroot, out)
	}
	for _, f := range []string{"b.xml", "b.sarif", "b.md", "rides.yaml", "gen"} {
		_, err := os.Stat(filepath.Join(rootfs, "work", f))
		assert.NoError(t, err, f)
	}
	t.Logf("ran in an empty root: %v", chroot)
}
