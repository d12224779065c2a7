//go:build !unix

package supervise

// parent does not supervise where there are no Unix signals to forward:
// the command runs in this process.
func parent() (int, bool) { return 0, false }
