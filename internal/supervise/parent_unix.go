//go:build unix

package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// forwarded are the signals that stop a run. The parent catches them
// (it would otherwise die and leave the child running) and passes them
// on; the child handles them as it always has. SIGQUIT is among them
// because the runtime's own handling of it would make the parent exit 2.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// drain bounds how long the parent waits, once the child has exited, for
// the end of the crash pipe. Only the child holds its write end, so the
// end comes at once; the bound is against a hang, never a verdict.
const drain = 2 * time.Second

// parent starts the child and returns its exit code. ok is false when
// the child could not be started: the caller then runs in this process.
func parent() (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	defer r.Close()
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append(os.Environ(), childEnv+"="+crashFD)
	cmd.SysProcAttr = sysProcAttr()

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)

	// The parent-death signal is tied to the thread that started the
	// child: it stays this goroutine's for the life of the process.
	runtime.LockOSThread()
	err = cmd.Start()
	w.Close()
	if err != nil {
		runtime.UnlockOSThread()
		return 0, false
	}

	crashed := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, r)
		crashed <- n
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
			continue
		case err = <-done:
		}
		break
	}
	var n int64
	select {
	case n = <-crashed:
	case <-time.After(drain):
	}
	return verdict(cmd.ProcessState, err, n), true
}

// verdict is the parent's exit for how the child ended, after the crash
// report (if any) reached stderr. A child stopped by a forwarded signal
// it did not handle stops the parent by the same signal, as if it had
// run alone.
func verdict(ps *os.ProcessState, err error, crash int64) int {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "cardapio: waiting for the run: %v\n", err)
		return ExitCrash
	}
	if crash > 0 {
		fmt.Fprintf(os.Stderr, "cardapio: the run crashed (the report is above): exit %d, cardapio failed\n", ExitCrash)
		return ExitCrash
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return ps.ExitCode()
	}
	sig := ws.Signal()
	for _, f := range forwarded {
		if f == sig && sig != syscall.SIGQUIT {
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig)
			time.Sleep(time.Second)
			return 128 + int(sig)
		}
	}
	hint := ""
	if sig == syscall.SIGKILL {
		hint = " (the kernel's out-of-memory killer stops a process so)"
	}
	fmt.Fprintf(os.Stderr, "cardapio: killed by signal %v%s\n", sig, hint)
	return ExitCrash
}
