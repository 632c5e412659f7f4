//go:build unix

package benchrun

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup puts cmd in a process group of its own and makes cancelling its
// context kill the whole group, so that an interrupted benchmark leaves no
// child behind (a benchmark may start processes of its own).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killGroup kills what is left of the process group of cmd, which ownGroup
// set up and which has exited, and waits, up to a second, until it is
// gone. Wait waits for cmd's own process only: after an interrupt the
// compilers of a killed 'go test -c', or a benchmark's children, may still
// be dying, and the temporary directory they write in must not be removed
// under them (nor may a leftover child weigh on the next benchmark).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		return
	}
	pgid := cmd.Process.Pid
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return // the usual case: nothing left
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
