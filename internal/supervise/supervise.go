// Package supervise runs cardapio in a child process so that a crash of
// the Go runtime never reads as a refusal of the user's input.
//
// The Go runtime exits with status 2 on a fatal error (out of memory,
// concurrent map writes, stack exhaustion) and on an unrecovered panic,
// and 2 is cardapio's exit for bad input: CI would read a crash as "your
// model is wrong". The process starts the same executable again, with
// the same arguments and the standard streams inherited as they are (a
// pipe, a terminal or /dev/stdout behave exactly as without it), and
// hands it a pipe that the runtime writes its crash report to
// (debug.SetCrashOutput) in addition to stderr. The parent waits, forwards the signals that stop
// a run, and exits with the child's code, except that a crash, or a death
// by a signal it did not forward (the kernel's out-of-memory killer sends
// SIGKILL), exits 1: cardapio itself failed.
//
// A command is supervised by importing this package (blank): it starts
// the child from its init, which the runtime runs as soon as the standard
// library it imports is initialised, so the parent starts the child and
// exits before the inits of the rest of the program, which cost more than
// the process's start (a JSON schema compiled, tables built).
package supervise

import (
	"os"
	"runtime/debug"
)

// Env names the environment variable that turns supervision off
// (CARDAPIO_SUPERVISE=0): the command then runs in the one process, as a
// debugger or a profiler wants it.
const Env = "CARDAPIO_SUPERVISE"

// childEnv marks the child and names the descriptor of its crash pipe.
// The child removes it from its environment, so that a process it starts
// (or its own re-exec) is not mistaken for a supervised child.
const childEnv = "CARDAPIO_CRASH_FD"

// crashFD is the descriptor the crash pipe has in the child: the first
// of exec.Cmd's ExtraFiles.
const crashFD = "3"

// ExitCrash is the exit of a run that crashed: cardapio's "cardapio
// itself failed" (1), rather than EX_SOFTWARE (70), which no script
// written for cardapio's documented codes would know.
const ExitCrash = 1

// init supervises this process. In the parent it starts the child and
// exits with the code it decides; it returns in the child, when
// supervision is off, or when the child cannot be started (the command
// then runs in this process, unsupervised).
func init() {
	if fd, ok := os.LookupEnv(childEnv); ok {
		os.Unsetenv(childEnv)
		child(fd)
		return
	}
	if os.Getenv(Env) == "0" {
		return
	}
	if code, ok := parent(); ok {
		os.Exit(code)
	}
}

// child sends the runtime's crash report to the pipe the parent gave it.
// The runtime keeps a close-on-exec copy, so the descriptor is closed
// here: no process this one starts holds the pipe open.
func child(fd string) {
	if fd != crashFD {
		return
	}
	f := os.NewFile(3, "crash")
	if f == nil {
		return
	}
	_ = debug.SetCrashOutput(f, debug.CrashOptions{})
	f.Close()
}
