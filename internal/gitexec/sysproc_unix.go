//go:build unix

package gitexec

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup puts cmd in a process group of its own, and makes a
// stop kill that whole group.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's id is git's process id; a negative one names the
		// group.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err == syscall.ESRCH {
			return os.ErrProcessDone
		}
		return err
	}
}
