//go:build unix && !linux

package supervise

import "syscall"

// sysProcAttr has no parent-death signal to set outside Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }
