//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bin is cardapio built with the crashtest tag, which crashes on demand.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cardapio-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "cardapio")
	out, err := exec.Command("go", "build", "-tags", "crashtest", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary with env added, returning its exit code and output.
func run(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// A crash of the runtime, which exits 2 by itself, exits 1 under
// supervision, after its report reached stderr.
func TestCrashIsNotBadInput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the crash triggers use Linux limits")
	}
	for kind, says := range map[string]string{
		"panic": "panic: crash test",
		// The runtime says "out of memory" when the heap cannot grow and
		// "runtime: cannot allocate memory" when its own metadata cannot:
		// either is the same death.
		"oom":   "fatal error: ",
		"stack": "fatal error: stack overflow",
		"kill":  "killed by signal killed",
	} {
		t.Run(kind, func(t *testing.T) {
			code, _, stderr := run(t, []string{"CARDAPIO_TEST_CRASH=" + kind}, "check", "../../model.yaml")
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, says)
			if kind == "oom" {
				assert.Regexp(t, `fatal error: (runtime: cannot allocate memory|out of memory)`, stderr)
			}
			if kind == "kill" {
				return
			}
			// Without supervision the runtime's own exit is the 2 of bad
			// input: what supervision is for.
			code, _, stderr = run(t, []string{"CARDAPIO_TEST_CRASH=" + kind, "CARDAPIO_SUPERVISE=0"}, "check", "../../model.yaml")
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, says)
			assert.NotContains(t, stderr, "the run crashed")
		})
	}
}

// The exits of commands that did not crash pass through unchanged, with
// the same output as in one process.
func TestExitsPassThrough(t *testing.T) {
	for _, c := range []struct {
		code int
		args []string
	}{
		{0, []string{"check", "../../internal/cli/testdata/check/warn.yaml"}},
		{0, []string{"--help"}},
		{2, []string{"check", "../../internal/cli/testdata/check/bad.yaml"}},
		{2, []string{"check", "--no-such-flag"}},
		{2, []string{"no-such-command"}},
		{3, []string{"check", "../../internal/cli/testdata/check/over.yaml"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, nil, c.args...)
			assert.Equal(t, c.code, code, stderr)
			alone, aout, aerr := run(t, []string{"CARDAPIO_SUPERVISE=0"}, c.args...)
			assert.Equal(t, alone, code)
			assert.Equal(t, aout, stdout)
			assert.Equal(t, aerr, stderr)
		})
	}
}

// serve stops cleanly on SIGTERM and SIGINT sent to the parent, or to
// its process group as Ctrl-C in a terminal sends it (then the child has
// it twice: from the terminal and forwarded), with the exit it has in one
// process. Under an address-space limit serve starts itself again (one
// malloc arena), which the child does as a supervisor of its own.
func TestServeStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, how := range []string{"supervised", "group", "alone", "ulimit"} {
			t.Run(sig.String()+" "+how, func(t *testing.T) {
				cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
				if how == "ulimit" {
					cmd = exec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" serve --addr 127.0.0.1:0`, bin)
				}
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if how == "alone" {
					cmd.Env = append(os.Environ(), "CARDAPIO_SUPERVISE=0")
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				defer cmd.Process.Kill()
				line, err := bufio.NewReader(out).ReadString('\n')
				require.NoError(t, err, stderr.String())
				require.Contains(t, line, "listening")
				if how == "group" {
					require.NoError(t, syscall.Kill(-cmd.Process.Pid, sig))
				} else {
					require.NoError(t, cmd.Process.Signal(sig))
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("serve did not stop")
				}
				assert.Equal(t, 0, cmd.ProcessState.ExitCode(), stderr.String())
				assert.Contains(t, stderr.String(), "cardapio engine stopped")
			})
		}
	}
}

// A run stopped by a forwarded signal it does not handle stops the parent
// by the same signal, as the shell would see it of one process.
func TestUnhandledSignalStopsParent(t *testing.T) {
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(os.Environ(), "CARDAPIO_TEST_CRASH=sleep")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	time.Sleep(500 * time.Millisecond) // the child has started
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err := cmd.Wait()
	require.Error(t, err)
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled(), "exit %d: %s", cmd.ProcessState.ExitCode(), stderr.String())
	assert.Equal(t, syscall.SIGTERM, ws.Signal())
	assert.Empty(t, stderr.String())
}
