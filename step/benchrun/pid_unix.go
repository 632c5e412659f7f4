//go:build unix

package benchrun

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with the pid exists (one of another
// user's counts: signal 0 is refused with EPERM, not ESRCH).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
