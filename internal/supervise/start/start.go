// Package start supervises the process from a package init: imported
// (blank) by a command, the parent starts its child and exits before the
// inits of the rest of the program run, which cost more than the
// process's start (a JSON schema compiled, tables built). The Go runtime
// initialises a package as soon as its imports are, this one's are the
// standard library's, so the parent pays for little besides the runtime.
package start

import "github.com/cardapio/cardapio/internal/supervise"

func init() { supervise.Start() }
