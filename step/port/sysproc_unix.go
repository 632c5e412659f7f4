//go:build unix

package port

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts cmd in a process group of its own, away from the
// terminal's interrupt.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
