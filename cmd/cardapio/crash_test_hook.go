//go:build crashtest && unix

package main

import (
	"os"
	"runtime/debug"
	"syscall"
	"time"
)

// The crashtest build crashes the run as CARDAPIO_TEST_CRASH says, the
// ways the runtime exits 2: an unrecovered panic in a goroutine, memory
// exhausted under an address-space limit, a stack overflow; or a death
// by SIGKILL, as the kernel's out-of-memory killer deals it. "sleep"
// waits, before any signal is handled, to be stopped.
func init() {
	testCrash = func() {
		switch os.Getenv("CARDAPIO_TEST_CRASH") {
		case "panic":
			go func() { panic("crash test") }()
			time.Sleep(time.Minute)
		case "oom":
			lim := syscall.Rlimit{Cur: 1 << 30, Max: 1 << 30}
			if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
				panic(err)
			}
			var keep [][]byte
			for {
				b := make([]byte, 64<<20)
				for i := range b {
					b[i] = 1
				}
				keep = append(keep, b)
			}
		case "stack":
			debug.SetMaxStack(1 << 20)
			var f func(int) int
			f = func(n int) int { return f(n+1) + 1 }
			f(0)
		case "sleep":
			// Not a crash: a run that handles no signal yet.
			time.Sleep(time.Minute)
		case "kill":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		}
	}
}
