//go:build linux && cgo

package cli

import (
	"os"
	"syscall"
)

// arenaEnv is glibc's setting of how many malloc arenas a process keeps.
const arenaEnv = "MALLOC_ARENA_MAX"

// oneArena starts the process again with a single glibc malloc arena
// when an address-space limit (ulimit -v, prlimit --as) is set and the
// setting is not already chosen. A cgo build links glibc's allocator
// (net, os/user), which gives every thread that allocates an arena of
// its own, 64 MiB of address space apiece, reserved whether used or not:
// five of them took 320 MiB of a 2 GiB limit, and the Go heap, short of
// room, died of "fatal error: out of memory" with 230 MB in use. Go
// allocates its own memory; glibc serves only thread starts, which one
// arena does. glibc reads the setting once, before main, hence the exec
// (the same process id, arguments and environment). It returns only when
// nothing is to be done or the exec failed.
func oneArena() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) {
		return nil
	}
	if _, set := os.LookupEnv(arenaEnv); set {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return syscall.Exec(exe, os.Args, append(os.Environ(), arenaEnv+"=1"))
}

// oneArenaNeeded tells tests that oneArena has work to do here.
const oneArenaNeeded = true
