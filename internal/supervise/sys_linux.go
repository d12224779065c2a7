package supervise

import "syscall"

// sysProcAttr kills the child when the parent dies (kill -9 of the
// parent, which a container's stop may send), so no run is left behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
