//go:build !unix

package files

// alive cannot tell here: every owner is taken as alive, so nothing is
// removed that might still be written.
func alive(int) bool { return true }
