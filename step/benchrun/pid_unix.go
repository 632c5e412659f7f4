//go:build unix

package benchrun

import (
	"errors"
	"os"
	"syscall"
)

// processExists reports whether a process with the pid exists (one of another
// user's counts: signal 0 is refused with EPERM, not ESRCH).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// ownedByMe reports whether fi is of a file this process's user owns.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
