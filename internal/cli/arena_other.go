//go:build !(linux && cgo)

package cli

// oneArena has nothing to do where glibc's allocator is not linked.
func oneArena() error { return nil }

// oneArenaNeeded tells tests that oneArena has nothing to do here.
const oneArenaNeeded = false

// arenaEnv is glibc's setting of how many malloc arenas a process keeps.
const arenaEnv = "MALLOC_ARENA_MAX"
