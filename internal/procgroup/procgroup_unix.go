//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Own puts cmd in a process group of its own and makes cancelling its
// context kill the whole group. Call it before cmd starts.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's id is the process's id; a negative one names the
		// group.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err == syscall.ESRCH {
			return os.ErrProcessDone
		}
		return err
	}
}

// KillRest kills what is left of the process group of cmd, which Own set
// up and which has exited, and waits, up to a second, until it is gone.
// Wait waits for cmd's own process only: after an interrupt its children
// may still be dying, and a directory they write in must not be removed
// under them (nor may a leftover child weigh on what runs next).
func KillRest(cmd *exec.Cmd) {
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
