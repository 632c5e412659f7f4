//go:build !unix

package gitexec

import "os/exec"

// ownProcessGroup does nothing where there are no process groups: a stop
// kills git alone.
func ownProcessGroup(cmd *exec.Cmd) {}
